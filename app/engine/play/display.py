"""X displays for runs: a private Xvfb per run (isolated) or the user's desktop.

Children started here (Xvfb, targets) get ``PR_SET_PDEATHSIG = SIGKILL``: if
the engine dies, even by ``kill -9``, the kernel kills them too, so a run never
leaves orphans.  Normal exits shut them down explicitly.
"""

from __future__ import annotations

import ctypes
import functools
import os
import resource
import select
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from Xlib import display as xdisplay
from Xlib.ext import randr

from app.engine.errors import DisplayError

ISOLATED = "isolated"
DESKTOP = "desktop"
DISPLAY_MODES = (ISOLATED, DESKTOP)
XVFB_START_TIMEOUT_S = 10.0
DEFAULT_SCREEN = (1280, 800)
_PR_SET_PDEATHSIG = 1
XVFB_MEMORY_MB = 2048
"""Address space of a private X server: a program that makes it hold pixmaps gets BadAlloc past this (a program cannot take the machine's memory through its X server)."""
_MB = 1024 * 1024
SCREEN_HEADROOM = 2
"""A private Xvfb's framebuffer is this many times the declared size (at most MAX_FRAMEBUFFER a side): room for
a window that grows while it is played (a label widened by a long sum) to grow its screen into."""
MAX_FRAMEBUFFER = 4096


_PRCTL = getattr(ctypes.CDLL(None, use_errno=True), "prctl", None)  # resolved here: no dlopen in a forked child


def die_with_parent(parent: int) -> None:
    """preexec_fn part: ask the kernel to SIGKILL this child when ``parent`` (the pid that forked it, taken
    before the fork) dies.  A parent killed between the fork and this call would never trigger it — the
    child, adopted by init or a subreaper, would outlive it (seen in CI: a ``kill -9`` of the engine just
    as it started bubblewrap) — so a child whose parent is already gone ends here."""
    if _PRCTL is not None:
        _PRCTL(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(128 + signal.SIGKILL)


def _xvfb_preexec(parent: int) -> None:
    """preexec_fn of a private Xvfb: dies with the engine, and its memory is bounded (pixmaps a program makes)."""
    die_with_parent(parent)
    limit = XVFB_MEMORY_MB * _MB
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def stop_process(proc: subprocess.Popen[Any], *, grace_s: float = 2.0, group: bool = True) -> int | None:
    """Terminate a child (and its process group), escalating to SIGKILL; returns its exit code."""
    if proc.poll() is not None:
        return proc.returncode
    try:
        if group:
            os.killpg(proc.pid, signal.SIGTERM)
        else:
            proc.terminate()
    except (ProcessLookupError, PermissionError):
        pass
    try:
        return proc.wait(grace_s)
    except subprocess.TimeoutExpired:
        try:
            if group:
                os.killpg(proc.pid, signal.SIGKILL)
            else:
                proc.kill()
        except (ProcessLookupError, PermissionError):
            pass
        return proc.wait(grace_s)


class WindowBox(Protocol):
    """Where a window is (a target's ``WindowInfo``): what the screen must hold, what a view of it reads."""

    @property
    def x(self) -> int: ...
    @property
    def y(self) -> int: ...
    @property
    def width(self) -> int: ...
    @property
    def height(self) -> int: ...


@dataclass
class XDisplay:
    """An X display a run plays on.  ``name`` is a DISPLAY string such as ``:7``."""

    name: str
    mode: str
    size: tuple[int, int]
    process: subprocess.Popen[bytes] | None = None
    framebuffer: tuple[int, int] | None = None
    """The most a private screen can grow to (RandR); None: it stays ``size``."""
    _closed: bool = field(default=False, repr=False)

    @property
    def isolated(self) -> bool:
        return self.mode == ISOLATED

    def hold(self, window: WindowBox | None) -> bool:
        """Grow the screen to hold a window followed while it is played (grown past the screen's right or bottom
        edge), as far as :meth:`fit` can; True when it grew.  A window moved left of or above the origin stays
        out of it."""
        if window is None or window.x < 0 or window.y < 0:
            return False
        return self.fit(window.x + window.width, window.y + window.height)

    def fit(self, right: int, bottom: int) -> bool:
        """Grow the screen so that it reaches ``right`` × ``bottom`` (a window's far corner), if its framebuffer
        has room; True when it grew (``size`` then says the new size).  Never shrinks it."""
        if self.framebuffer is None or self.process is None:
            return False
        w, h = max(self.size[0], right), max(self.size[1], bottom)
        if (w, h) == self.size or w > self.framebuffer[0] or h > self.framebuffer[1]:
            return False
        try:
            set_screen_size(self.name, (w, h))
        except Exception:  # no RandR after all, or the server is going away: the window stays uncapturable
            return False
        self.size = (w, h)
        return True

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self.process is not None:
            stop_process(self.process, group=True)

    def __enter__(self) -> XDisplay:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def start_xvfb(size: tuple[int, int] = DEFAULT_SCREEN, depth: int = 24) -> XDisplay:
    """Start a private Xvfb on a free display number (``-displayfd``) whose screen is ``size``, on a framebuffer
    with headroom; an X server whose screen cannot be set (no RandR) is started again at exactly ``size``."""
    framebuffer = (min(MAX_FRAMEBUFFER, max(size[0], SCREEN_HEADROOM * size[0])),
                   min(MAX_FRAMEBUFFER, max(size[1], SCREEN_HEADROOM * size[1])))
    if framebuffer != size:
        display = _start_xvfb(framebuffer, depth)
        try:
            set_screen_size(display.name, size, centre_pointer=True)
        except Exception:
            display.close()
        else:
            display.size, display.framebuffer = size, framebuffer
            return display
    return _start_xvfb(size, depth)


def _start_xvfb(size: tuple[int, int], depth: int) -> XDisplay:
    binary = shutil.which("Xvfb")
    if binary is None:
        raise DisplayError(
            "Xvfb is not installed; install it (apt-get install xvfb) or run with --display desktop on a desktop session."
        )
    read_fd, write_fd = os.pipe()
    try:
        proc = subprocess.Popen(
            [
                binary, "-displayfd", str(write_fd), "-screen", "0", f"{size[0]}x{size[1]}x{depth}",
                "-nolisten", "tcp", "-noreset", "+extension", "XTEST", "+extension", "X-Resource",
            ],
            pass_fds=(write_fd,),
            env={"PATH": os.environ.get("PATH", os.defpath)},  # the X server needs no key, so it gets none
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
            preexec_fn=functools.partial(_xvfb_preexec, os.getpid()),
        )
    finally:
        os.close(write_fd)
    try:
        number = _read_display_number(read_fd, proc)
    except DisplayError:
        stop_process(proc)
        raise
    finally:
        os.close(read_fd)
    return XDisplay(name=f":{number}", mode=ISOLATED, size=size, process=proc)


def set_screen_size(name: str, size: tuple[int, int], *, centre_pointer: bool = False) -> None:
    """Make the screen of X display ``name`` exactly ``size`` (within its framebuffer), through RandR: its one
    output shows a mode of that size (so a full-screen program sizes itself to it) and the root window is that
    big.  ``centre_pointer``: put the pointer mid-screen, where Xvfb puts it (a screen shrunk at start leaves it
    in a corner, which a desktop run takes for pyautogui's failsafe).  Raises when the server cannot (no RandR,
    a size past its framebuffer)."""
    w, h = size
    conn = xdisplay.Display(name)
    errors: list[object] = []
    conn.set_error_handler(lambda err, request=None: errors.append(err))
    try:
        screen = conn.screen()
        root = screen.root
        mm = (_mm(w, screen.width_in_pixels, screen.width_in_mms), _mm(h, screen.height_in_pixels,
                                                                       screen.height_in_mms))
        res = randr.get_screen_resources(root)
        crtc, output = res.crtcs[0], res.outputs[0]
        now = root.get_geometry()
        if w > now.width or h > now.height:  # the screen first holds the new mode, then fits it
            randr.set_screen_size(root, max(w, now.width), max(h, now.height), mm[0], mm[1])
        mode = next((m.id for m in res.modes if (m.width, m.height) == (w, h)), None)
        if mode is None:
            label = f"{w}x{h}"
            mode = randr.create_mode(root, {
                "id": 0, "width": w, "height": h, "dot_clock": 0, "h_sync_start": 0, "h_sync_end": 0, "h_total": 0,
                "h_skew": 0, "v_sync_start": 0, "v_sync_end": 0, "v_total": 0, "name_length": len(label), "flags": 0,
            }, label).mode
            randr.add_output_mode(conn, output, mode)
        randr.set_crtc_config(conn, crtc, res.config_timestamp, 0, 0, mode, randr.Rotate_0, [output])
        randr.set_screen_size(root, w, h, mm[0], mm[1])
        if centre_pointer:
            root.warp_pointer(w // 2, h // 2)
        got = root.get_geometry()  # a round trip: the errors of the calls above have come back by now
        if errors:
            raise DisplayError(f"the X server refused a {w}×{h} screen: {errors[0]}")
        if (got.width, got.height) != (w, h):
            raise DisplayError(f"the X server kept its screen at {got.width}×{got.height}")
    finally:
        conn.close()


def _mm(pixels: int, server_pixels: int, server_mm: int) -> int:
    """The millimetres Xvfb itself gives a screen of ``pixels`` at the server's resolution (its rounding:
    ``(px * 254 + dpi * 5) // (dpi * 10)``).  Toolkits size fonts from them (Xft takes its DPI from the
    height), so a screen set by RandR must measure exactly as one Xvfb started at that size: one millimetre
    off made a Tk calculator's digits a pixel taller and its committed reference pictures no longer match."""
    dpi = max(1, round(server_pixels * 25.4 / max(1, server_mm)))
    return max(1, (pixels * 254 + dpi * 5) // (dpi * 10))


def _read_display_number(fd: int, proc: subprocess.Popen[bytes]) -> int:
    deadline = time.monotonic() + XVFB_START_TIMEOUT_S
    data = b""
    while not data.endswith(b"\n"):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise DisplayError("Xvfb did not start within 10 s; check that the X server can run here (see its log).")
        ready, _, _ = select.select([fd], [], [], min(remaining, 0.2))
        if ready:
            chunk = os.read(fd, 64)
            if not chunk:
                break
            data += chunk
        elif proc.poll() is not None:
            break
    if not data.strip().isdigit():
        err = proc.stderr.read().decode(errors="replace")[-300:] if proc.poll() is not None and proc.stderr else ""
        raise DisplayError(f"Xvfb failed to start ({err.strip() or 'no display number'}); check the Xvfb installation.")
    if proc.stderr:
        proc.stderr.close()
    return int(data.strip())


def open_display(mode: str, size: tuple[int, int] = DEFAULT_SCREEN) -> XDisplay:
    """The display for a run: a fresh Xvfb (isolated) or $DISPLAY (desktop)."""
    if mode == ISOLATED:
        return start_xvfb(size)
    if mode == DESKTOP:
        name = os.environ.get("DISPLAY")
        if not name:
            raise DisplayError("--display desktop needs a graphical session ($DISPLAY is not set); use --display isolated.")
        return XDisplay(name=name, mode=DESKTOP, size=size)
    raise DisplayError(f"unknown display mode {mode!r}; use one of: {', '.join(DISPLAY_MODES)}.")
