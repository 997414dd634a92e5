"""What the inside channel costs: the line tracer in a game loop, and a question's round trip.

    python benchmark/inside_overhead.py [--frames 20000] [--asks 50]

1. A pure-Python "frame" (moves 200 sprites, checks collisions) is run
   ``--frames`` times bare, then under the program-side tracer of
   ``app/engine/play/seeding/_playcoder_inside.py``: the first pass (every
   line still new) and the steady state (every code object seen whole, so no
   longer traced: the cost a game pays for its whole run).  Before Python 3.12
   (``sys.settrace``) the steady state still pays CPython's call event for
   every Python call (about 1-2 us each, whatever the trace function does);
   from 3.12 ``sys.monitoring`` disables each line once seen and the steady
   state costs nothing measurable.
2. The Tk test window ``tests/targets/inside_tk`` on a private Xvfb: the
   median and worst time of ``coverage()``, ``widgets()`` and ``idle()`` over
   ``--asks`` questions each.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "app/engine/play/seeding"))

FRAME_SOURCE = '''
import random

class Sprite:
    def __init__(self, rng):
        self.x, self.y = rng.random() * 640, rng.random() * 480
        self.dx, self.dy = rng.random() - 0.5, rng.random() - 0.5

    def move(self):
        self.x = (self.x + self.dx) % 640
        self.y = (self.y + self.dy) % 480

def frame(sprites):
    hits = 0
    for s in sprites:
        s.move()
        if s.x < 10 and s.y < 10:
            hits += 1
    return hits

def sprites():
    rng = random.Random(1)
    return [Sprite(rng) for _ in range(200)]
'''


def _time_frames(frame: Callable[[Any], int], sprites: Any, frames: int) -> float:
    t0 = time.perf_counter()
    for _ in range(frames):
        frame(sprites)
    return (time.perf_counter() - t0) / frames * 1e6


def tracer_cost(frames: int) -> None:
    import _playcoder_inside as program_side

    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "game.py").write_text(FRAME_SOURCE)
        sys.path.insert(0, folder)
        import game  # type: ignore[import-not-found]

        bare = _time_frames(game.frame, game.sprites(), frames)
        tracer = program_side.Tracer(folder)
        tracer.start()
        try:
            sprites = game.sprites()
            first = _time_frames(game.frame, sprites, 1)
            steady = _time_frames(game.frame, sprites, frames)
        finally:
            sys.settrace(None)
            monitoring = getattr(sys, "monitoring", None)
            if monitoring is not None:
                monitoring.set_events(monitoring.COVERAGE_ID, 0)
        lines = sum(len(v) for v in tracer.take().values())
    print(f"tracer, one frame of 200 sprites (Python {sys.version.split()[0]}): bare {bare:.1f} us; "
          f"first traced frame {first:.1f} us; steady state {steady:.1f} us "
          f"({(steady / bare - 1) * 100:+.1f}%); {lines} lines seen")


def round_trips(asks: int) -> None:
    from app.engine.play.display import start_xvfb
    from app.engine.play.target import TargetProcess
    from app.engine.play.targetspec import load_spec

    display = start_xvfb((640, 480))
    target = TargetProcess(load_spec(ROOT / "tests/targets/inside_tk"), display)
    try:
        target.wait_for_window()
        inside = target.inside
        inside.wait_hello(5.0)
        for name, ask in (("coverage()", lambda: inside.coverage()), ("widgets()", lambda: inside.widgets()),
                          ("idle()", lambda: inside.idle(1.0))):
            times = []
            for _ in range(asks):
                t0 = time.perf_counter()
                answer = ask()
                times.append((time.perf_counter() - t0) * 1000)
                assert answer is not None, f"{name} gave no answer"
            print(f"{name:<12} median {statistics.median(times):.2f} ms, worst {max(times):.2f} ms over {asks}")
    finally:
        target.shutdown()
        display.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=20000)
    parser.add_argument("--asks", type=int, default=50)
    args = parser.parse_args()
    tracer_cost(args.frames)
    round_trips(args.asks)


if __name__ == "__main__":
    main()
