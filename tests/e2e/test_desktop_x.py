"""Issue 15: a target on a shared desktop (Xvfb with a window manager), covered by another program's window.

The cover is a plain X window of pure green (#00ff00) on a connection of its own
(another client, as another program would be); it logs every key and button event
it receives.  Frames must never hold its colour, and it must never get input.
"""

from __future__ import annotations

import io
import sqlite3
import time
from typing import Any

import numpy as np
from PIL import Image
from Xlib import X
from Xlib import display as xdisplay

from app.engine.play import desktop, desktop_input
from app.engine.play.desktop import DesktopCapture
from app.engine.play.desktop_input import COVERED_AT_POINT, DesktopBackend
from app.engine.play.events import EventBus, WindowMoved
from app.engine.run.session import RunConfig, Session
from app.engine.trace.store import TrajectoryStore

from suite import TARGETS
from desktop_support import (  # noqa: F401  (wm_display is a fixture)
    GREEN, POPUP, TARGET_BG, Cover, count_colour, input_events, needs_wm, screen_rect, wait_viewable, window_info,
    wm_display, x_window,
)

pytestmark = needs_wm


# -- capture ---------------------------------------------------------------------------------------
def test_composite_reads_a_covered_window_and_paints_its_own_popup(wm_display):
    mine, other = xdisplay.Display(wm_display.name), xdisplay.Display(wm_display.name)
    capture = None
    try:
        target = x_window(mine, (100, 100, 400, 300), TARGET_BG, name="Target")
        wait_viewable(mine, target)
        info = window_info(mine, target)
        popup = x_window(mine, (info.x + 10, info.y + 10, 60, 40), POPUP, override=True)  # a posted menu
        cover = x_window(other, (info.x + 150, info.y + 100, 200, 150), GREEN, override=True, name="Cover")
        wait_viewable(other, cover)
        assert count_colour(screen_rect(wm_display.name, info), GREEN) == 200 * 150  # the screen shows the cover

        capture = DesktopCapture(wm_display.name, lambda: info, lambda: info, lambda: True)
        assert capture.use_composite
        width, height, bgrx = capture.grab()
        frame = np.frombuffer(bgrx, dtype=np.uint8).reshape(height, width, 4)
        assert (width, height) == (400, 300)
        assert count_colour(frame, GREEN) == 0
        assert count_colour(frame, POPUP) == 60 * 40 and frame[20, 20, :3].tolist() == [0, 0, 255]
        assert count_colour(frame, TARGET_BG) == 400 * 300 - 60 * 40
        assert frame[:, :, 3].max() == 0

        times = []
        for _ in range(20):
            t0 = time.perf_counter()
            capture.grab()
            times.append(time.perf_counter() - t0)
        print(f"composite capture of 400x300 (+1 popup): median {1000 * sorted(times)[10]:.2f} ms")
        popup.unmap()
        cover.unmap()
        mine.sync()
        other.sync()
    finally:
        if capture is not None:
            capture.close()
        mine.close()
        other.close()


def test_without_composite_a_covered_window_holds_the_run_until_the_cover_goes(wm_display, monkeypatch):
    monkeypatch.setattr(desktop, "WAIT_S", 0.2)
    mine, other = xdisplay.Display(wm_display.name), xdisplay.Display(wm_display.name)
    capture = None
    try:
        target = x_window(mine, (100, 100, 400, 300), TARGET_BG, name="Target")
        wait_viewable(mine, target)
        info = window_info(mine, target)
        cover = x_window(other, (info.x + 150, info.y + 100, 200, 150), GREEN, name="Cover")
        wait_viewable(other, cover)
        reasons: list[str] = []

        def hold(reason: str, ready: Any) -> None:
            reasons.append(reason)
            assert not ready()
            cover.unmap()
            other.sync()
            deadline = time.monotonic() + 5
            while not ready():
                assert time.monotonic() < deadline, "the capture never became ready"
                time.sleep(0.05)

        capture = DesktopCapture(wm_display.name, lambda: info, lambda: info, lambda: True, hold=hold,
                                 use_composite=False)
        width, height, bgrx = capture.grab()
        frame = np.frombuffer(bgrx, dtype=np.uint8).reshape(height, width, 4)
        assert len(reasons) == 1 and "covers the target" in reasons[0]
        assert count_colour(frame, GREEN) == 0 and count_colour(frame, TARGET_BG) == 400 * 300
    finally:
        if capture is not None:
            capture.close()
        mine.close()
        other.close()


# -- input ------------------------------------------------------------------------------------------
def test_a_click_waits_and_holds_while_another_window_stays_over_the_point(wm_display, monkeypatch):
    monkeypatch.setattr(desktop_input, "WAIT_S", 0.3)
    monkeypatch.setattr(desktop_input, "activate", lambda conn, window_id: None)  # a cover that stays on top
    mine, other = xdisplay.Display(wm_display.name), xdisplay.Display(wm_display.name)
    backend = None
    try:
        target = x_window(mine, (100, 100, 400, 300), TARGET_BG, name="Target")
        wait_viewable(mine, target)
        info = window_info(mine, target)
        cover = x_window(other, (info.x + 150, info.y + 100, 200, 150), GREEN, override=True, name="Cover")
        wait_viewable(other, cover)
        reasons: list[str] = []

        def hold(reason: str, ready: Any) -> None:
            reasons.append(reason)
            assert not ready()
            cover.unmap()
            other.sync()
            deadline = time.monotonic() + 5
            while not ready():
                assert time.monotonic() < deadline
                time.sleep(0.05)

        backend = DesktopBackend(wm_display.name, lambda: info, lambda: info, hold=hold)
        root = mine.screen().root
        backend.begin()
        start = root.query_pointer()
        backend.move(info.x + 200, info.y + 150)  # under the cover
        backend.button(1, True)
        backend.button(1, False)
        backend.end(time.sleep)
        mine.sync()
        time.sleep(0.2)
        assert reasons == [COVERED_AT_POINT]
        assert input_events(other, cover.id) == []
        assert input_events(mine, target.id) == [X.ButtonPress, X.ButtonRelease]
        end = root.query_pointer()
        assert (end.root_x, end.root_y) == (start.root_x, start.root_y)  # the user's pointer is back
    finally:
        if backend is not None:
            backend.close()
        mine.close()
        other.close()


def test_keys_go_to_the_target_even_when_another_window_has_the_focus(wm_display):
    mine, other = xdisplay.Display(wm_display.name), xdisplay.Display(wm_display.name)
    backend = None
    try:
        target = x_window(mine, (100, 100, 400, 300), TARGET_BG, name="Target")
        wait_viewable(mine, target)
        info = window_info(mine, target)
        cover = x_window(other, (info.x + 50, info.y + 50, 200, 150), GREEN, name="Cover")
        wait_viewable(other, cover)
        cover.set_input_focus(X.RevertToParent, X.CurrentTime)
        other.sync()
        backend = DesktopBackend(wm_display.name, lambda: info, lambda: info)
        backend.begin()
        backend.focus()
        backend.key("a", True)
        cover.set_input_focus(X.RevertToParent, X.CurrentTime)  # the focus moves away while the key is down
        other.sync()
        backend.key("a", False)
        backend.end(time.sleep)
        time.sleep(0.2)
        assert input_events(other, cover.id) == []
        assert input_events(mine, target.id) == [X.KeyPress, X.KeyRelease]
    finally:
        if backend is not None:
            backend.close()
        mine.close()
        other.close()


# -- a whole run --------------------------------------------------------------------------------------
def test_a_desktop_run_records_only_the_target_and_never_touches_the_cover(wm_display, db_path):
    cover = Cover(wm_display.name, "Probe")
    cover.start()
    bus = EventBus()
    moves: list[WindowMoved] = []
    bus.subscribe(lambda e: moves.append(e) if isinstance(e, WindowMoved) else None)
    store = TrajectoryStore(db_path)
    try:
        result = Session(RunConfig(target=str(TARGETS / "probe_tk"), display="desktop", max_steps=16, seed=1),
                         store, bus=bus).run()
    finally:
        cover.stop.set()
        cover.join(10)
    assert cover.error is None, cover.error
    assert result.status == "completed", result.error
    assert result.steps == 16
    assert cover.covered_seen >= 2, "the cover never covered the target on screen: the test proves nothing"
    assert cover.inputs == [], "the cover received input"

    conn = sqlite3.connect(db_path)
    frames = [np.asarray(Image.open(io.BytesIO(data)).convert("RGB")) for (data,) in conn.execute("SELECT data FROM frames")]
    assert frames
    for rgb in frames:
        assert not ((rgb[:, :, 0] == 0) & (rgb[:, :, 1] == 255) & (rgb[:, :, 2] == 0)).any(), "a frame shows the cover"
    steps = store.steps(result.run_id)
    logs = [text for (text,) in conn.execute("SELECT text FROM target_logs WHERE run_id = ?", [result.run_id])]
    conn.close()
    store.close()
    clicks = [s for s in steps if s["action"]["action"] in ("click", "double_click", "right_click") and s["outcome"] == "ok"]
    keys = [s for s in steps if s["action"]["action"] == "press" and s["outcome"] == "ok"]
    assert len([t for t in logs if t.startswith(("click ", "double "))]) >= len(clicks)
    assert len([t for t in logs if t.startswith("key ")]) >= len(keys)
    assert cover.moved_target and moves and (moves[-1].x, moves[-1].y) != (1, 22)


def test_a_window_the_program_recreates_is_found_again(xvfb, tmp_path):
    from app.engine.play.target import TargetProcess
    from app.engine.play.targetspec import load_spec

    folder = tmp_path / "recreate"
    folder.mkdir()
    (folder / "playcoder.toml").write_text('name = "recreate"\ncommand = ["python", "main.py"]\n')
    (folder / "main.py").write_text(
        "import tkinter as tk\n"
        "root = tk.Tk(); root.withdraw()\n"
        "first = tk.Toplevel(root, width=300, height=200); first.title('First')\n"
        "def again():\n"
        "    first.destroy()\n"
        "    second = tk.Toplevel(root, width=320, height=240); second.title('Second')\n"
        "root.after(1500, again)\n"
        "root.mainloop()\n")
    target = TargetProcess(load_spec(folder), xvfb)
    try:
        first = target.wait_for_window()
        assert (first.width, first.height) == (300, 200)
        deadline = time.monotonic() + 10
        while (win := target.refresh_geometry()) is not None and win.id == first.id:
            assert time.monotonic() < deadline, "the re-created window was not found"
            time.sleep(0.1)
        assert win is not None and (win.width, win.height) == (320, 240)
    finally:
        target.shutdown()
