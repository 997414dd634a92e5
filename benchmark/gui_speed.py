"""Workbench speed: open a 10,000-step run, step through it, memory, event-loop stalls in a live run.

    python benchmark/gui_speed.py [--steps 10000] [--live-seconds 60] [--live-target benchmark/apps/flappy]

Prints one line per measure with its target, then a JSON summary.  Runs
offscreen unless QT_QPA_PLATFORM is already set; the live run uses the
engine's own private Xvfb (skipped when Xvfb is missing or --live-seconds 0).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import psutil  # noqa: E402
from PIL import Image, ImageDraw  # noqa: E402

from app.engine.trace.store import TrajectoryStore  # noqa: E402

OPEN_TARGET_S = 1.0
STEP_TARGET_MS = 16.0
RSS_TARGET_MB = 400.0
STALL_TARGET_MS = 100.0
TICK_MS = 10
FRAME_SIZE = (640, 480)
ACTIONS = (
    {"action": "click", "x": 120, "y": 80},
    {"action": "drag", "x": 50, "y": 60, "x2": 400, "y2": 300},
    {"action": "type", "text": "hello"},
    {"action": "press", "key": "space"},
    {"action": "scroll", "x": 320, "y": 240, "direction": "down", "amount": 2},
)


def make_run(store: TrajectoryStore, steps: int, distinct: int) -> int:
    """A finished synthetic run; ``distinct`` different frames so stepping mostly decodes new PNGs."""
    t0 = time.time() - steps * 0.2
    run_id = store.create_run(target="synthetic-bench", tester="offline", display="isolated", seed=0,
                              max_steps=steps, window_width=FRAME_SIZE[0], window_height=FRAME_SIZE[1], started_at=t0)
    shas = []
    for i in range(distinct):
        image = Image.new("RGB", FRAME_SIZE, (30 + i % 200, 40 + (i * 7) % 150, 70))
        draw = ImageDraw.Draw(image)
        for k in range(12):
            x = (i * 13 + k * 47) % (FRAME_SIZE[0] - 60)
            draw.rectangle([x, 20 + k * 36, x + 50, 46 + k * 36], fill=((k * 40) % 255, 200, (i * 3) % 255))
        draw.text((10, FRAME_SIZE[1] - 20), f"frame {i}", fill=(255, 255, 255))
        shas.append(store.put_image(image))
    with store.transaction():
        for i in range(steps):
            s = t0 + i * 0.2
            store.add_step(run_id, i, {
                "action": ACTIONS[i % len(ACTIONS)], "outcome": "ok", "rationale": f"bench step {i}",
                "frame_before": shas[i % distinct], "frame_after": shas[(i + 1) % distinct],
                "changed_bbox": [20, 20, 300, 200], "settle_ms": 80.0, "settled": 1, "decide_ms": 2.0,
                "act_ms": 20.0, "started_at": s, "ended_at": s + 0.1,
            })
    store.finish_run(run_id, status="completed", verdict="pass", reason="synthetic")
    return run_id


def wait_painted(app: object, views: list, before: list[int], timeout_s: float = 2.0) -> None:
    deadline = time.perf_counter() + timeout_s
    while any(v.paints <= b for v, b in zip(views, before)) and time.perf_counter() < deadline:
        app.processEvents()  # type: ignore[attr-defined]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--distinct-frames", type=int, default=600)
    parser.add_argument("--moves", type=int, default=300)
    parser.add_argument("--live-seconds", type=float, default=60.0)
    parser.add_argument("--live-target", default=str(ROOT / "benchmark" / "apps" / "flappy"))
    args = parser.parse_args(argv)

    from PySide6.QtWidgets import QApplication

    from app.views.shell.main_window import MainWindow, apply_style
    from app.views.live.run_request import RunRequest

    work = Path(tempfile.mkdtemp(prefix="playcoder-gui-bench-"))
    db = work / "bench.db"
    print(f"building a synthetic {args.steps}-step run ({args.distinct_frames} distinct {FRAME_SIZE[0]}x"
          f"{FRAME_SIZE[1]} frames) in {db} …", flush=True)
    store = TrajectoryStore(db)
    run_id = make_run(store, args.steps, args.distinct_frames)
    store.close()

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setOrganizationName("PlayCoderBench")
    apply_style(app)
    window = MainWindow()
    window.modal_messages = False
    window.resize(1400, 900)
    window.show()
    app.processEvents()
    rv = window.run_view
    results: dict[str, object] = {}

    # 1. Open the database and the 10k-step run until both frames are painted.
    t0 = time.perf_counter()
    window.open_database(db)
    paints = [rv.before.paints, rv.after.paints]
    window.open_run(run_id)
    wait_painted(app, [rv.before, rv.after], paints)
    open_s = time.perf_counter() - t0
    assert rv.model.available == args.steps and rv.before.image() is not None
    results["open_s"] = round(open_s, 3)
    print(f"open 10k-step run until first frame shown: {open_s * 1000:7.1f} ms   (target <= {OPEN_TARGET_S * 1000:.0f} ms)")

    # 2. Move to the next step: select + both frames painted.
    cold: list[float] = []
    for _ in range(args.moves):
        paints = [rv.before.paints, rv.after.paints]
        t = time.perf_counter()
        rv.next_step()
        wait_painted(app, [rv.before, rv.after], paints)
        cold.append((time.perf_counter() - t) * 1000)
    warm: list[float] = []
    for _ in range(min(args.moves, 100)):
        paints = [rv.before.paints, rv.after.paints]
        t = time.perf_counter()
        rv.previous_step()
        wait_painted(app, [rv.before, rv.after], paints)
        warm.append((time.perf_counter() - t) * 1000)
    t = time.perf_counter()
    rv.last_step()
    wait_painted(app, [rv.before, rv.after], [rv.before.paints, rv.after.paints])
    end_ms = (time.perf_counter() - t) * 1000
    results.update(step_median_ms=round(statistics.median(cold), 2), step_p95_ms=round(sorted(cold)[int(len(cold) * .95)], 2),
                   step_cached_median_ms=round(statistics.median(warm), 2), jump_to_end_ms=round(end_ms, 1),
                   decodes=rv.frames.decodes)
    print(f"next step (new frame decoded), median:       {statistics.median(cold):7.2f} ms   (target <= {STEP_TARGET_MS:.0f} ms; "
          f"p95 {results['step_p95_ms']} ms)")
    print(f"previous step (cached frames), median:       {statistics.median(warm):7.2f} ms")
    print(f"End: jump to step {args.steps - 1} (fetch all rows):   {end_ms:7.1f} ms")

    rss_mb = psutil.Process().memory_info().rss / 2**20
    results["rss_mb"] = round(rss_mb, 1)
    print(f"resident memory:                             {rss_mb:7.1f} MB   (target <= {RSS_TARGET_MB:.0f} MB)")

    # 3. Live run: the event loop must stay responsive while events and frames stream in.
    if args.live_seconds > 0 and shutil.which("Xvfb"):
        results.update(live(app, window, args.live_target, args.live_seconds, RunRequest))
    else:
        print("live run: skipped (Xvfb missing or --live-seconds 0)")
    window.close()
    app.processEvents()
    shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(results))
    return 0


def live(app: object, window: object, target: str, seconds: float, request_cls: type) -> dict[str, object]:
    from PySide6.QtCore import QTimer

    live_run = window.start_run(request_cls(target, max_steps=100_000))  # type: ignore[attr-defined]
    ticks: list[float] = []
    timer = QTimer()
    timer.setInterval(TICK_MS)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    steps: list[int] = []
    live_run.bridge.sig_step_recorded.connect(lambda e: steps.append(e.idx))
    deadline = time.perf_counter() + 30
    while live_run.capture is None and time.perf_counter() < deadline:  # wait for the target window
        app.processEvents()  # type: ignore[attr-defined]
        time.sleep(0.005)
    view = window.run_view.live  # type: ignore[attr-defined]
    frames0 = view.frames_shown
    timer.start()
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        app.processEvents()  # type: ignore[attr-defined]
        time.sleep(0.001)
    timer.stop()
    elapsed = time.perf_counter() - t0
    fps = (view.frames_shown - frames0) / elapsed
    gaps = [(b - a) * 1000 for a, b in zip(ticks, ticks[1:])]
    stall = max(gaps) - TICK_MS if gaps else float("nan")
    t = time.perf_counter()
    live_run.stop()
    while live_run.active and time.perf_counter() - t < 10:
        app.processEvents()  # type: ignore[attr-defined]
        time.sleep(0.005)
    rss_mb = psutil.Process().memory_info().rss / 2**20
    print(f"live run of {Path(target).name} for {elapsed:.0f} s: {len(steps)} steps, live view {fps:.1f} fps")
    print(f"max event-loop stall (10 ms timer):          {stall:7.1f} ms   (target <= {STALL_TARGET_MS:.0f} ms; "
          f"median tick gap {statistics.median(gaps) if gaps else float('nan'):.1f} ms)")
    print(f"resident memory after the live run:          {rss_mb:7.1f} MB")
    return {"live_seconds": round(elapsed, 1), "live_steps": len(steps), "live_fps": round(fps, 1),
            "max_stall_ms": round(stall, 1), "rss_after_live_mb": round(rss_mb, 1)}


if __name__ == "__main__":
    raise SystemExit(main())
