"""Web page step speed: action to settled on a static DOM page, settled from inside (the page's probe) and
from pixels at a person's pace beside it.

    python benchmark/web_step_speed.py [--steps 40]

Target: median action -> settled <= 30 ms for a static DOM app settled from inside.  Writes
benchmark/results/web-step-speed.json with the machine's load average (a loaded machine is slower).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.engine.play.actions import Click, Press  # noqa: E402
from app.engine.play.display import start_xvfb  # noqa: E402
from app.engine.play.player import Player  # noqa: E402
from app.engine.play.targetspec import load_spec  # noqa: E402

TARGET = ROOT / "tests" / "targets" / "web_counter"
RESULTS = ROOT / "benchmark" / "results" / "web-step-speed.json"


def measure(steps: int, mode: str) -> list[float]:
    os.environ["PLAYCODER_SETTLE"] = mode
    spec = load_spec(TARGET)
    display = start_xvfb(spec.size)
    player = Player(spec, display, 0, time.sleep)
    try:
        player.start()
        assert player.observer is not None and player.executor is not None
        out = []
        for i in range(steps):
            action = Click(116, 190) if i % 2 else Press("up")
            before = player.observer.capture()
            start = time.perf_counter()
            player.executor.execute(action)
            player.observer.settle(before)
            out.append((time.perf_counter() - start) * 1000)
        return out
    finally:
        if player.target is not None:
            player.target.shutdown()
        display.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=40)
    args = ap.parse_args()
    load = os.getloadavg()
    result = {"commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                       text=True).stdout.strip(),
              "target": "tests/targets/web_counter", "steps": args.steps, "load_average": [round(v, 2) for v in load],
              "cores": os.cpu_count()}
    if load[0] > (os.cpu_count() or 1):
        result["note"] = (f"measured on a loaded machine (load average {load[0]:.1f} on {os.cpu_count()} cores): "
                          "timings are slower than on an idle one")
    for mode in ("auto", "pixels"):
        times = measure(args.steps, mode)
        result[mode] = {"median_ms": round(statistics.median(times), 1),
                        "p90_ms": round(sorted(times)[int(0.9 * len(times)) - 1], 1)}
        print(f"{mode:6s} action->settled median {result[mode]['median_ms']} ms, p90 {result[mode]['p90_ms']} ms")
    print(f"load average {load[0]:.2f} on {os.cpu_count()} cores")
    RESULTS.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
