"""VisualObserver on real windows: window-only capture, change boxes, settle, animation."""

from __future__ import annotations

import json
import os
import subprocess
import sys


from app.engine.play.actions import Press
from app.engine.play.executor import make_executor
from app.engine.play.observer import FRAME_CACHE, VisualObserver, changed_bbox, is_blank
from app.engine.trace.store import TrajectoryStore
from app.engine.play.target import TargetProcess
from app.engine.play.targetspec import load_spec

from suite import ROOT, TARGETS, needs_xvfb

pytestmark = needs_xvfb


def _start(xvfb, name):
    target = TargetProcess(load_spec(TARGETS / name), xvfb)
    target.wait_for_window()

    def geometry():
        w = target.window
        return (w.x, w.y, w.width, w.height)

    return target, geometry


def test_captures_only_the_window_and_keeps_three_frames(xvfb):
    target, geometry = _start(xvfb, "probe_tk")
    observer = VisualObserver(xvfb.name, geometry)
    try:
        obs = observer.settle()
        assert obs.settled and (obs.frame.width, obs.frame.height) == (400, 300)
        assert not is_blank(obs.frame)
        r, g, b = obs.frame.image().getpixel((5, 5))
        assert (r, g, b) == (0x20, 0x30, 0x40)  # the probe's canvas colour, not the root window
        for _ in range(5):
            observer.capture()
        assert len(observer.frames) == FRAME_CACHE
    finally:
        observer.close()
        target.shutdown()


def test_change_box_covers_the_changed_label_only(xvfb):
    target, geometry = _start(xvfb, "probe_tk")
    observer = VisualObserver(xvfb.name, geometry)
    executor = make_executor(xvfb.name, True, target.window.id, geometry, xvfb.size)
    try:
        before = observer.settle().frame
        executor.execute(Press("q"))
        obs = observer.settle(before)
        assert obs.settled and obs.settle_ms < 1000
        x0, y0, x1, y1 = obs.changed_bbox
        assert 100 < x0 < x1 < 300 and 120 < y0 < y1 < 180  # the centred text, not the whole window
        assert changed_bbox(obs.frame, obs.frame) is None
    finally:
        executor.close()
        observer.close()
        target.shutdown()


def test_animation_is_told_from_a_static_screen(xvfb):
    anim, anim_geo = _start(xvfb, "anim_pg")
    static, static_geo = _start(xvfb, "probe_tk")
    a = VisualObserver(xvfb.name, anim_geo)
    s = VisualObserver(xvfb.name, static_geo)
    try:
        assert a.motion(0.5) > 0.5
        assert s.motion(0.5) == 0.0
        obs = a.settle(cap_s=0.3)
        assert not obs.settled and obs.settle_ms >= 300  # a moving window hits the cap
    finally:
        a.close()
        s.close()
        anim.shutdown()
        static.shutdown()


def test_desktop_mode_drives_the_current_display_with_pyautogui(xvfb, db_path):
    env = dict(os.environ, DISPLAY=xvfb.name)
    proc = subprocess.run([sys.executable, "-m", "app", "test", str(TARGETS / "probe_tk"), "--display", "desktop",
                           "--max-steps", "5", "--json", "--db", str(db_path)],
                          capture_output=True, text=True, timeout=120, cwd=ROOT, env=env)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert summary["verdict"] == "pass"
    store = TrajectoryStore(db_path)
    assert store.run(summary["run_id"])["display"] == "desktop"
    texts = [r["text"] for r in store.logs(summary["run_id"])]
    assert any(t.startswith(("key", "click")) for t in texts)


def test_desktop_mode_without_display_is_one_sentence(db_path):
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    proc = subprocess.run([sys.executable, "-m", "app", "test", str(TARGETS / "probe_tk"), "--display", "desktop",
                           "--json", "--db", str(db_path)], capture_output=True, text=True, timeout=60, cwd=ROOT, env=env)
    assert proc.returncode == 2
    assert "$DISPLAY is not set" in proc.stderr and "Traceback" not in proc.stderr


def test_the_tap_gets_captures_in_the_order_they_were_taken(xvfb):
    """Two threads capture (the step loop and the film's poller): the film never gets an older picture after a
    newer one, which its flash oracle would read as a picture flashing up between two equal ones."""
    import threading
    import time

    class Source:
        def grab(self):
            return 4, 4, bytes(64)

        def close(self):
            pass

    observer = VisualObserver(xvfb.name, lambda: (0, 0, 4, 4), source=Source())
    seen: list[float] = []

    def tap(frame, overlaid):
        time.sleep(0.0005 if len(seen) % 3 else 0.002)  # a slow hand-over now and then
        seen.append(frame.t)

    observer.tap = tap
    threads = [threading.Thread(target=lambda: [observer.capture() for _ in range(150)]) for _ in range(2)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        observer.close()
    assert len(seen) == 300 and seen == sorted(seen)
