"""Capture cost per frame: a window's own pixels (Composite) against a screen rectangle (mss).

    python benchmark/capture_speed.py [--frames 60] [--sizes 320x240,800x600,1280x800] [--wm]

For each size a plain X window is opened on a private Xvfb and read ``--frames``
times each way: ``mss`` (XShmGetImage of the rectangle, what isolated runs use),
``composite`` (:class:`~app.engine.play.composite.WindowPixels`: name the
window's pixmap, GetImage through python-xlib, convert to BGRX) and
``desktop`` (:class:`~app.engine.play.desktop.DesktopCapture`: composite plus
the stacking walk that paints the target's own popups).  Prints median and p90
in milliseconds.  Composite needs no window manager; ``--wm`` runs openbox
(the window is then framed, and the stacking walk visits the manager's own
windows above it).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import mss  # noqa: E402
from Xlib import X  # noqa: E402
from Xlib import display as xdisplay  # noqa: E402

from app.engine.play.composite import WindowPixels  # noqa: E402
from app.engine.play.desktop import DesktopCapture  # noqa: E402
from app.engine.play.display import start_xvfb  # noqa: E402
from app.engine.play.target import WindowInfo  # noqa: E402


def timed(fn: Callable[[], object], frames: int) -> tuple[float, float]:
    fn()  # warm up (the first composite read redirects the window)
    times = []
    for _ in range(frames):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    return times[len(times) // 2], times[min(len(times) - 1, int(0.9 * len(times)))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=60)
    ap.add_argument("--sizes", default="320x240,800x600,1280x800")
    ap.add_argument("--wm", action="store_true", help="run openbox on the display")
    args = ap.parse_args()
    sizes = [tuple(int(v) for v in s.split("x")) for s in args.sizes.split(",")]
    display = start_xvfb((1280, 800))
    wm = None
    if args.wm:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
        from desktop_support import wait_for_window_manager

        wm = subprocess.Popen(["openbox", "--sm-disable"], env=dict(os.environ, DISPLAY=display.name),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        wait_for_window_manager(display.name)
    conn = xdisplay.Display(display.name)
    try:
        screen = conn.screen()
        print(f"{'size':>10}  {'mss median/p90':>16}  {'composite':>16}  {'desktop':>16}   (ms)")
        for width, height in sizes:
            win = screen.root.create_window(0, 0, width, height, 0, screen.root_depth, X.InputOutput,
                                            X.CopyFromParent, background_pixel=0x203040)
            win.map()
            conn.sync()
            while win.get_attributes().map_state != X.IsViewable:
                time.sleep(0.02)
            time.sleep(0.3)
            pos = screen.root.translate_coords(win, 0, 0)
            info = WindowInfo(win.id, int(pos.x), int(pos.y), width, height, "benchmark")
            pixels = WindowPixels(conn)
            desktop = DesktopCapture(display.name, lambda: info, lambda: info, lambda: True)
            with mss.MSS(display=display.name) as grabber:
                rect = {"left": max(0, info.x), "top": max(0, info.y), "width": min(width, 1280 - max(0, info.x)),
                        "height": min(height, 800 - max(0, info.y))}
                rows = [timed(lambda: grabber.grab(rect), args.frames),
                        timed(lambda: pixels.grab(win.id), args.frames),
                        timed(desktop.grab, args.frames)]
            desktop.close()
            pixels.close()
            win.destroy()
            conn.sync()
            cells = "  ".join(f"{m:7.2f} / {p:6.2f}" for m, p in rows)
            print(f"{width:>4}x{height:<5}  {cells}")
    finally:
        conn.close()
        if wm is not None:
            wm.terminate()
            wm.wait(5)
        display.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
