"""Screenshots of a desktop run: the workbench and the target side by side under a window manager.

    python docs/desktop_screenshots.py [--out docs] [--size 1600x900]

Starts a private Xvfb with openbox, the workbench on it (QT_QPA_PLATFORM=xcb),
a desktop run of the probe target, and another program's pure green window
that keeps covering part of the target.  Saves the whole screen at each
stage: running (``workbench-desktop.png``), paused after a step and a
take-over click (``workbench-desktop-paused.png``), and held because the
target was minimised (``workbench-desktop-held.png``).  Checks on the way that
the target was placed beside the workbench, that the live view never shows
the green window, and that the green window got no input.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from app.engine.play.display import start_xvfb  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "docs")
    ap.add_argument("--size", default="1600x900")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    size = tuple(int(v) for v in args.size.split("x"))
    display = start_xvfb((size[0], size[1]))
    wm = None
    try:
        os.environ["DISPLAY"] = display.name
        os.environ["QT_QPA_PLATFORM"] = "xcb"
        from desktop_support import wait_for_window_manager

        wm = subprocess.Popen(["openbox", "--sm-disable"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)
        wait_for_window_manager(display.name)
        return _play(args.out, display.name)
    finally:
        if wm is not None:
            wm.terminate()
            wm.wait(5)
        display.close()


def _play(out: Path, display: str) -> int:
    import mss
    import numpy as np
    from PIL import Image
    from PySide6.QtCore import QCoreApplication, QPointF, QSettings, Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from app.engine.play.desktop import outer_rect
    from app.views.live.live_run import PAUSED, RUNNING
    from app.views.live.run_request import RunRequest
    from app.views.shell.main_window import MainWindow
    from desktop_support import Cover, iconify, restore

    app = QApplication.instance() or QApplication([])
    app.setOrganizationName("PlayCoderScreenshots")
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    tmp = Path(tempfile.mkdtemp(prefix="playcoder-shots-"))
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp / "settings"))

    def wait(cond: Callable[[], bool], timeout: float = 30.0, what: str = "") -> None:
        deadline = time.monotonic() + timeout
        while not cond():
            if time.monotonic() > deadline:
                raise SystemExit(f"timed out waiting for {what}")
            QCoreApplication.processEvents()
            time.sleep(0.02)

    def pause_for(seconds: float) -> None:
        end = time.monotonic() + seconds
        wait(lambda: time.monotonic() >= end, seconds + 5)

    def shot(name: str) -> None:
        pause_for(0.6)
        with mss.MSS(display=display) as grabber:
            img = grabber.grab(grabber.monitors[0])
        Image.frombytes("RGB", img.size, img.bgra, "raw", "BGRX").save(out / name, optimize=True)
        print(f"wrote {out / name}")

    window = MainWindow()
    window.modal_messages = False
    window.resize(1100, 820)
    window.move(0, 0)
    window.show()
    assert window.open_database(tmp / "desktop.db")
    wait(lambda: window.isVisible(), what="the workbench")
    notices: list[str] = []
    found: list[int] = []
    reasons: list[str] = []
    live = window.start_run(RunRequest(str(ROOT / "tests" / "targets" / "probe_tk"), display="desktop",
                                       max_steps=400))
    assert live is not None
    live.sig_notice.connect(notices.append)
    live.bridge.sig_window_found.connect(lambda e: found.append(e.window_id))
    live.bridge.sig_control_changed.connect(lambda e: reasons.append(e.reason) if e.reason else None)
    wait(lambda: bool(found), what="the target window")
    cover = Cover(display, "Probe", every_s=0.4, offset=(180, 120), size=(260, 220), move_at=None)
    cover.start()
    view = window.run_view.live
    try:
        wait(lambda: cover.covered_seen >= 1 and view.frames_shown > 10, what="the cover and live frames")
        pause_for(2.0)
        target = outer_rect(display, found[0])
        frame = window.frameGeometry()
        assert target is not None and target[0] >= frame.x() + frame.width(), (target, frame, notices)
        shot("workbench-desktop.png")

        window.commands.pause.trigger()
        wait(lambda: live.state == PAUSED, what="pause")
        window.commands.step.trigger()
        pause_for(1.5)
        wait(lambda: live.state == PAUSED, what="the step")
        point = view.image_transform().map(QPointF(120, 200)).toPoint()
        QTest.mouseClick(view, Qt.MouseButton.LeftButton, pos=point)
        pause_for(1.5)
        shot("workbench-desktop-paused.png")

        window.commands.pause.trigger()
        wait(lambda: live.state == RUNNING, what="resume")
        for _ in range(20):
            iconify(display, found[-1])
            pause_for(1.0)
            if reasons:
                break
        wait(lambda: live.state == PAUSED, what="the hold")
        shot("workbench-desktop-held.png")
        restore(display, found[-1])
        wait(lambda: live.state == RUNNING, what="the run going on by itself")
        live.stop()
        wait(lambda: not live.active, what="the run's end")
        image = view.image()
        rgb = np.asarray(Image.frombytes("RGBA", (image.width(), image.height()),
                                         bytes(image.convertToFormat(image.Format.Format_RGBA8888).constBits())))
        assert not ((rgb[:, :, 0] == 0) & (rgb[:, :, 1] == 255) & (rgb[:, :, 2] == 0)).any()
    finally:
        cover.stop.set()
        cover.join(10)
        window.close()
    assert cover.inputs == [], cover.inputs
    print("notices:", *notices, sep="\n  ")
    return 0


if __name__ == "__main__":
    sys.exit(main())
