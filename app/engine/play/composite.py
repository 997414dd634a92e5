"""WindowPixels: a window's own contents through the X Composite extension, whatever covers it.

A rectangle of the screen (what mss captures) holds whatever is on top there:
on a shared desktop that may be the workbench, a terminal or a notification.
Composite keeps each *redirected* window's contents in an off-screen pixmap of
its own; :meth:`WindowPixels.grab` redirects the window once (automatic mode:
the server still paints it on screen as before), names that pixmap and reads
it.  The pixmap is named afresh for every capture because a window gets a new
one whenever it is mapped or resized.

The image comes back in the window's own depth and the server's byte order;
:func:`to_bgrx` turns it into the BGRX bytes of an mss frame (the fourth byte
is always 0, so frames from either source compare byte for byte).

Errors never leak as X error messages on stderr: every request without a reply
carries an error catcher, and a window that cannot be read (unmapped,
destroyed, an unsupported depth) raises :class:`WindowUnreadable`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from Xlib import X
from Xlib import display as xdisplay
from Xlib import error as xerror
from Xlib.ext import composite

MIN_VERSION = (0, 2)
"""NameWindowPixmap came with Composite 0.2."""
ALL_PLANES = 0xFFFFFFFF

_XErrors = (xerror.XError, xerror.ConnectionClosedError)


class WindowUnreadable(Exception):
    """The window's own pixels cannot be read now; the message says why (for a log, not a frame)."""


@dataclass(frozen=True)
class WindowImage:
    """A window's contents, window-relative, as BGRX bytes (row-major, 4 bytes a pixel)."""

    width: int
    height: int
    bgrx: bytes

    def array(self) -> np.ndarray:
        return np.frombuffer(self.bgrx, dtype=np.uint8).reshape(self.height, self.width, 4)


def composite_version(conn: xdisplay.Display) -> tuple[int, int] | None:
    """The server's Composite version, or None when the extension is missing."""
    try:
        if not conn.has_extension(composite.extname):
            return None
        reply = conn.composite_query_version()
    except (*_XErrors, AttributeError):
        return None
    return int(reply.major_version), int(reply.minor_version)


def to_bgrx(data: bytes, width: int, height: int, depth: int, bits_per_pixel: int, scanline_pad: int,
            msb_first: bool = False) -> bytes:
    """ZPixmap bytes of one image → BGRX, 4 bytes a pixel with the fourth byte 0.

    Handles what X servers hand out for TrueColor windows: 24 and 32 bits deep in 32-bit
    pixels (the alpha of a 32-bit ARGB window is dropped), 15 and 16 bits deep in 16-bit
    pixels; either byte order.  Raises :class:`WindowUnreadable` for anything else.
    """
    stride = (width * bits_per_pixel + scanline_pad - 1) // scanline_pad * scanline_pad // 8
    if len(data) < stride * height:
        raise WindowUnreadable(f"the server sent {len(data)} bytes for a {width}×{height} image")
    rows = np.frombuffer(data, dtype=np.uint8, count=stride * height).reshape(height, stride)
    if bits_per_pixel == 32 and depth in (24, 32):
        if not msb_first and stride == width * 4:  # the usual case, in one pass
            return (np.frombuffer(data, dtype="<u4", count=width * height) & 0x00FFFFFF).tobytes()
        px = rows[:, : width * 4].reshape(height, width, 4)
        if msb_first:
            px = px[:, :, ::-1]
        out = px.copy()
        out[:, :, 3] = 0
        return out.tobytes()
    if bits_per_pixel == 16 and depth in (15, 16):
        raw = rows[:, : width * 2].reshape(height, width, 2).astype(np.uint16)
        value = (raw[:, :, 0] << 8) | raw[:, :, 1] if msb_first else raw[:, :, 0] | (raw[:, :, 1] << 8)
        green_bits = 6 if depth == 16 else 5
        red_shift = 5 + green_bits
        blue = value & 0x1F
        green = (value >> 5) & ((1 << green_bits) - 1)
        red = (value >> red_shift) & 0x1F
        out = np.zeros((height, width, 4), dtype=np.uint8)
        out[:, :, 0] = (blue * 255 + 15) // 31
        out[:, :, 1] = (green * 255 + ((1 << green_bits) - 1) // 2) // ((1 << green_bits) - 1)
        out[:, :, 2] = (red * 255 + 15) // 31
        return out.tobytes()
    raise WindowUnreadable(f"windows {depth} bits deep ({bits_per_pixel} bits a pixel) cannot be read")


class WindowPixels:
    """Reads windows' own contents on one X connection (needs Composite 0.2 or newer)."""

    def __init__(self, conn: xdisplay.Display) -> None:
        self.conn = conn
        version = composite_version(conn)
        self.available = version is not None and version >= MIN_VERSION
        """False when the server has no usable Composite: only rectangles of the screen can be read."""
        self._redirected: set[int] = set()
        info = conn.display.info
        self._formats = {int(f.depth): (int(f.bits_per_pixel), int(f.scanline_pad)) for f in info.pixmap_formats}
        self._msb_first = int(info.image_byte_order) == X.MSBFirst

    def grab(self, window_id: int) -> WindowImage:
        """The window's contents now (its border left out), however it is covered or placed.

        Raises :class:`WindowUnreadable` when the window is not viewable (unmapped, minimised),
        gone, or of a depth :func:`to_bgrx` cannot convert.
        """
        if not self.available:
            raise WindowUnreadable("the X server has no Composite extension")
        win = self.conn.create_resource_object("window", window_id)
        try:
            if window_id not in self._redirected:
                # Automatic: the server keeps painting the window on screen.  A BadAccess here means
                # a compositing manager redirected it manually: its pixmap can be named all the same.
                win.composite_redirect_window(composite.RedirectAutomatic, onerror=xerror.CatchError())
                self._redirected.add(window_id)
            geo = win.get_geometry()
            catcher = xerror.CatchError()
            pixmap = win.composite_name_window_pixmap(onerror=catcher)
            try:
                border = int(geo.border_width)
                reply = pixmap.get_image(border, border, int(geo.width), int(geo.height), X.ZPixmap, ALL_PLANES)
            finally:
                pixmap.free(onerror=xerror.CatchError())
        except _XErrors as exc:
            self._redirected.discard(window_id)  # redirected again next time (a new window may reuse the id)
            raise WindowUnreadable(f"window 0x{window_id:x} is not viewable or gone ({type(exc).__name__})") from exc
        depth = int(reply.depth)
        if depth not in self._formats:
            raise WindowUnreadable(f"no pixel format for depth {depth}")
        bpp, pad = self._formats[depth]
        width, height = int(geo.width), int(geo.height)
        return WindowImage(width, height, to_bgrx(reply.data, width, height, depth, bpp, pad, self._msb_first))

    def forget(self, window_id: int) -> None:
        """Stop redirecting a window read before (no-op for one never read or already gone)."""
        if window_id in self._redirected:
            self._redirected.discard(window_id)
            try:
                win = self.conn.create_resource_object("window", window_id)
                win.composite_unredirect_window(composite.RedirectAutomatic, onerror=xerror.CatchError())
                self.conn.flush()
            except _XErrors:
                pass

    def close(self) -> None:
        """Undo the redirections (the server also does when the connection closes)."""
        for window_id in list(self._redirected):
            self.forget(window_id)
