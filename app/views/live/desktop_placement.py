"""Put the target beside the workbench on the user's desktop, so both can be seen.

:func:`plan_placement` is plain arithmetic on rectangles (x, y, width, height),
tested without a screen; :func:`place_beside` applies a plan to a real
workbench window and target window.  The target is moved, not resized (its
size is what the run's coordinates refer to); the workbench moves or narrows
only when the target does not fit beside it as it is.  A screen too small for
both says so in one sentence instead.  What the workbench looked like before
(:class:`WindowState`) is put back when the run ends.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QRect
from PySide6.QtWidgets import QWidget

from app.engine.play.desktop import move_window, outer_rect

Rect = tuple[int, int, int, int]

WORKBENCH_MIN_WIDTH = 640
"""The workbench is never made narrower than this to make room for a target."""


@dataclass(frozen=True)
class Placement:
    """Where things go: ``workbench`` (frame rectangle) and ``target`` (frame top-left), None = stays."""

    workbench: Rect | None
    target: tuple[int, int] | None
    message: str = ""


def _overlap(a: Rect, b: Rect) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def _inside(a: Rect, screen: Rect) -> bool:
    return (a[0] >= screen[0] and a[1] >= screen[1] and a[0] + a[2] <= screen[0] + screen[2]
            and a[1] + a[3] <= screen[1] + screen[3])


def plan_placement(screen: Rect, workbench: Rect, target: Rect) -> Placement:
    """Where the workbench and the target (both frame rectangles) go on ``screen`` (its free area).

    In order: leave both where they are when neither covers the other; put the target to
    the right of the workbench, else to its left; else narrow the workbench (to no less than
    :data:`WORKBENCH_MIN_WIDTH`) against the screen's left edge and put the target to its
    right; else say that the screen is too small.
    """
    sx, sy, sw, sh = screen
    wx, wy, ww, wh = workbench
    tw, th = target[2], target[3]
    if not _overlap(workbench, target) and _inside(workbench, screen) and _inside(target, screen):
        return Placement(None, None)

    def top_for(y: int) -> int:
        return max(sy, min(y, sy + sh - th))

    if wx + ww + tw <= sx + sw:
        return Placement(None, (wx + ww, top_for(wy)))
    if wx - tw >= sx:
        return Placement(None, (wx - tw, top_for(wy)))
    if sw - tw >= WORKBENCH_MIN_WIDTH:
        new_y = max(sy, wy)
        bench = (sx, new_y, min(ww, sw - tw), min(wh, sy + sh - new_y))
        return Placement(bench, (sx + bench[2], top_for(new_y)))
    return Placement(None, None, f"The screen has no room for the workbench beside the {tw}×{th} target window; "
                                 "it may cover part of the workbench (the run still records only the target's "
                                 "own pixels).")


@dataclass(frozen=True)
class WindowState:
    """A top-level window's normal geometry and whether it was maximized, to put it back later."""

    geometry: Rect
    maximized: bool

    @classmethod
    def of(cls, window: QWidget) -> WindowState:
        normal = window.normalGeometry() if window.isMaximized() else window.geometry()
        return cls(_rect(normal), window.isMaximized())

    def restore(self, window: QWidget) -> None:
        """Put ``window`` back as it was (the desktop run that moved or narrowed it is over)."""
        x, y, w, h = self.geometry
        if self.maximized:
            window.setGeometry(x, y, w, h)
            window.showMaximized()
            return
        window.setGeometry(x, y, w, h)


def _rect(r: QRect) -> Rect:
    return r.x(), r.y(), r.width(), r.height()


def place_beside(workbench: QWidget, display: str, window_id: int) -> str:
    """Move the target (or the workbench) so both are visible; returns a sentence for the user, or ''."""
    target = outer_rect(display, window_id)
    screen = workbench.screen()
    if target is None or screen is None:
        return ""
    frame = workbench.frameGeometry()
    plan = plan_placement(_rect(screen.availableGeometry()), _rect(frame), target)
    if plan.workbench is not None:
        if workbench.isMaximized() or workbench.isFullScreen():
            workbench.showNormal()
        x, y, w, h = plan.workbench
        dw, dh = frame.width() - workbench.width(), frame.height() - workbench.height()
        workbench.move(x, y)
        workbench.resize(max(1, w - dw), max(1, h - dh))
    if plan.target is not None and not move_window(display, window_id, *plan.target):
        return "The target window could not be moved beside the workbench; move it by hand if it covers it."
    if plan.message:
        return plan.message
    if plan.target is not None:
        return "The target window was placed beside the workbench."
    return ""
