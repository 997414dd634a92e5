"""Engine speed on this machine: per-step overhead, action→settled latency, capture rate.

    python benchmark/engine_speed.py [--steps 200] [--capture-seconds 10] [--film-fps 30]

Targets: overhead median ≤ 30 ms on a static 800×600 window;
action→settled median ≤ 150 ms (the paper sleeps a fixed 1 s); capture ≥ 60 fps for 10 s.
Settling from inside: action→settled median ≤ 30 ms when the program says from inside that its loop is idle
(a Tk window; the pixel settling it replaces is printed beside, at a person's pace).
The step loop runs with the run's film recording, as a session does (``--film-fps 0``: without).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.engine.play.actions import Click, Press, action_to_dict  # noqa: E402
from app.engine.play.display import start_xvfb  # noqa: E402
from app.engine.play.executor import make_executor  # noqa: E402
from app.engine.play.player import Player  # noqa: E402
from app.engine.play.observer import VisualObserver  # noqa: E402
from app.engine.play.targetspec import Timing  # noqa: E402
from app.engine.run.film import RunFilm  # noqa: E402
from app.engine.trace.film import FILM_FPS  # noqa: E402
from app.engine.trace.store import TrajectoryStore  # noqa: E402
from app.engine.play.target import TargetProcess  # noqa: E402
from app.engine.play.targetspec import load_spec  # noqa: E402

TARGET = Path(__file__).resolve().parent / "targets" / "form800"
TARGET_QT = Path(__file__).resolve().parent / "targets" / "form_qt"


def pct(values: list[float], q: float) -> float:
    return sorted(values)[min(len(values) - 1, int(q * len(values)))]


def settled_from_inside(folder: Path, presses: int = 40) -> list[float]:
    """Key press -> settled picture on a static window, the program saying from inside that its loop is idle
    (set up as a Player does it); [] when the program does not answer from inside."""
    spec = load_spec(folder)
    display = start_xvfb(spec.size)
    player = Player(spec, display, 0, time.sleep)
    times: list[float] = []
    try:
        player.start()
        assert player.target is not None and player.observer is not None and player.executor is not None
        if not player.target.inside.wait_hello(5.0) or player.settle_source != "inside":
            return []
        player.settle(1.0, 0.08)
        for i in range(presses):
            before = player.observer.capture()
            t0 = time.perf_counter()
            player.executor.execute(Press("a" if i % 2 else "b"))
            obs = player.observer.settle(before)
            times.append((time.perf_counter() - t0) * 1000)
            assert obs.changed_bbox is not None and obs.how == "inside", "the key press should change the label"
    finally:
        player.stop()
        display.close()
    return times


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--capture-seconds", type=float, default=10.0)
    ap.add_argument("--film-fps", type=int, default=FILM_FPS, help="the run's film rate (0: no film)")
    args = ap.parse_args()
    display = start_xvfb((1280, 800))
    target = TargetProcess(load_spec(TARGET), display)
    try:
        win = target.wait_for_window()

        def geometry() -> tuple[int, int, int, int]:
            return (win.x, win.y, win.width, win.height)

        observer = VisualObserver(display.name, geometry)
        no_sleep = lambda s: None  # noqa: E731  deliberate waits (key hold, pointer park) are excluded
        executor = make_executor(display.name, True, win.id, geometry, display.size, sleep=no_sleep)
        observer.settle()
        with tempfile.TemporaryDirectory() as tmp:
            store = TrajectoryStore(Path(tmp) / "bench.db")
            run = store.create_run(target="form800", tester="bench")
            film = RunFilm(store, run, args.film_fps, Timing())
            film.attach(observer)
            overhead: list[float] = []
            for i in range(args.steps):
                t0 = time.perf_counter()
                before = observer.capture()
                action = Click(400, 590)  # empty background: the window stays static
                executor.execute(action)
                obs = observer.settle(before, quiet_s=0.0)
                with store.transaction():
                    hb = store.put_frame(before.width, before.height, before.bgrx)
                    ha = store.put_frame(obs.frame.width, obs.frame.height, obs.frame.bgrx)
                    store.add_step(run, i, {"action": action_to_dict(action), "outcome": "ok",
                                            "frame_before": hb, "frame_after": ha, "started_at": time.time(),
                                            "ended_at": time.time()})
                overhead.append((time.perf_counter() - t0) * 1000)
            film.close()
            store.close()
        executor.close()

        executor = make_executor(display.name, True, win.id, geometry, display.size)
        settle: list[float] = []
        fresh_commit: list[float] = []
        with tempfile.TemporaryDirectory() as tmp:
            store = TrajectoryStore(Path(tmp) / "bench.db")
            run = store.create_run(target="form800", tester="bench")
            for i in range(40):
                before = observer.capture()
                t0 = time.perf_counter()
                executor.execute(Press("a" if i % 2 else "b"))
                obs = observer.settle(before)
                settle.append((time.perf_counter() - t0) * 1000)
                assert obs.changed_bbox is not None, "the key press should change the label"
                t1 = time.perf_counter()
                with store.transaction():
                    ha = store.put_frame(obs.frame.width, obs.frame.height, obs.frame.bgrx)
                    store.add_step(run, i, {"action": "{}", "outcome": "ok", "frame_after": ha,
                                            "started_at": time.time(), "ended_at": time.time()})
                fresh_commit.append((time.perf_counter() - t1) * 1000)
            store.close()
        executor.close()

        frames = 0
        t_end = time.perf_counter() + args.capture_seconds
        t0 = time.perf_counter()
        while time.perf_counter() < t_end:
            observer.capture()
            frames += 1
        fps = frames / (time.perf_counter() - t0)
        observer.close()
    finally:
        target.shutdown()
        display.close()

    ok1 = statistics.median(overhead) <= 30
    ok2 = statistics.median(settle) <= 150
    ok3 = fps >= 60
    inside = {"Tk": settled_from_inside(TARGET), "Qt": settled_from_inside(TARGET_QT)}
    ok4 = all(times and statistics.median(times) <= 30 for times in inside.values())
    print(f"engine overhead per step (capture+act+settle check+commit, 800x600 static, {args.steps} steps, "
          f"film {'at ' + str(args.film_fps) + ' fps' if args.film_fps else 'off'}): "
          f"median {statistics.median(overhead):.1f} ms, p90 {pct(overhead, 0.9):.1f} ms  "
          f"[target <= 30 ms: {'OK' if ok1 else 'MISS'}]")
    print(f"  (commit of a step whose 800x600 frame is new, PNG-encoded: median "
          f"{statistics.median(fresh_commit):.1f} ms)")
    print(f"action -> settled observation (static UI, key press, quiet window 80 ms): "
          f"median {statistics.median(settle):.1f} ms, p90 {pct(settle, 0.9):.1f} ms  "
          f"[target <= 150 ms: {'OK' if ok2 else 'MISS'}]")
    for toolkit, times in inside.items():
        if times:
            good = statistics.median(times) <= 30
            print(f"action -> settled from inside, {toolkit} (static 800x600 window, key press, the loop says idle): "
                  f"median {statistics.median(times):.1f} ms, p90 {pct(times, 0.9):.1f} ms  "
                  f"[target <= 30 ms: {'OK' if good else 'MISS'}]")
        else:
            print(f"action -> settled from inside, {toolkit} (static window): the program did not answer from inside  "
                  "[target <= 30 ms: MISS]")
    print(f"window capture 800x600 sustained {args.capture_seconds:g} s: {fps:.0f} frames/s  "
          f"[target >= 60: {'OK' if ok3 else 'MISS'}]")
    return 0 if ok1 and ok2 and ok3 and ok4 else 1


if __name__ == "__main__":
    raise SystemExit(main())
