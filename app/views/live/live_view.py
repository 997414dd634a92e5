"""LiveView: the target's display as it runs, and the surface for a human take-over.

While the run is paused, a click, drag, wheel turn or key press here becomes
one engine action in window-relative coordinates (the live image *is* the
target window) and is emitted as :attr:`LiveView.sig_action_requested`; the
run forwards it as an ``act {json}`` control line.  Keys go to the target, not
to the workbench's shortcuts, while this view has focus during a take-over.
"""

from __future__ import annotations

import math
import time
from collections import deque
from PySide6.QtCore import QEvent, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QImage, QKeyEvent, QMouseEvent, QPainter, QPaintEvent, QPen, QWheelEvent
from PySide6.QtWidgets import QWidget

from app.views.widgets.frame_view import FrameView
from app.views.live.key_names import key_action

DRAG_THRESHOLD_PX = 6
"""A press and release farther apart than this (in frame pixels) is a drag, not a click."""
TAKEOVER_COLOR = QColor("#ffab00")
FPS_WINDOW_S = 2.0


class LiveView(FrameView):
    sig_action_requested = Signal(dict)
    """Emitted with an engine action dict when the user acts on the paused target (take-over)."""
    sig_frame_shown = Signal()
    """Emitted after a new live frame was accepted; the capture may send the next one."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Live", parent)
        self.setObjectName("LiveView")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._takeover = False
        self._press: tuple[Qt.MouseButton, QPointF] | None = None
        self._stamps: deque[float] = deque()
        self._state = "waiting for the target window…"
        self.frames_shown = 0

    # -- content -----------------------------------------------------------------------
    def show_frame(self, image: QImage) -> None:
        now = time.monotonic()
        self._stamps.append(now)
        while self._stamps and now - self._stamps[0] > FPS_WINDOW_S:
            self._stamps.popleft()
        self.frames_shown += 1
        self.set_frame(image, subtitle=f"{self._state} · {self.fps():.0f} fps")
        self.sig_frame_shown.emit()

    def fps(self) -> float:
        if len(self._stamps) < 2:
            return 0.0
        span = self._stamps[-1] - self._stamps[0]
        return (len(self._stamps) - 1) / span if span > 0 else 0.0

    @property
    def state_text(self) -> str:
        """What the view says about the run (under its title): running, paused, and why when the engine paused it."""
        return self._state

    def set_state_text(self, text: str) -> None:
        self._state = text
        self.set_frame(self.image(), subtitle=text, placeholder=text)

    def set_takeover(self, enabled: bool) -> None:
        """Allow (paused run) or refuse (running, finished) human actions."""
        self._takeover = enabled
        self._press = None
        self.setCursor(Qt.CursorShape.CrossCursor if enabled else Qt.CursorShape.ArrowCursor)
        self.setToolTip("Paused: click, drag, scroll or type here to act on the target" if enabled else "")
        self.update()

    @property
    def takeover(self) -> bool:
        return self._takeover

    # -- painting ------------------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if not self._takeover:
            return
        p = QPainter(self)
        p.setPen(QPen(TAKEOVER_COLOR, 3))
        p.drawRect(QRectF(self.rect()).adjusted(1.5, 1.5, -1.5, -1.5))
        p.end()

    # -- take-over input ---------------------------------------------------------------------
    def event(self, event: QEvent) -> bool:
        if self._takeover and event.type() == QEvent.Type.ShortcutOverride:
            event.accept()  # the key goes to keyPressEvent (the target), not to a shortcut
            return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if not self._takeover:
            super().keyPressEvent(event)
            return
        action = key_action(event.key(), event.text(), event.modifiers())
        if action is not None and not event.isAutoRepeat():
            self.sig_action_requested.emit(action)
        event.accept()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if not self._takeover:
            super().mousePressEvent(event)
            return
        self.setFocus(Qt.FocusReason.MouseFocusReason)
        point = self._pixel_at(event.position())
        if point is not None and event.button() in (Qt.MouseButton.LeftButton, Qt.MouseButton.RightButton):
            self._press = (event.button(), point)
        event.accept()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if not self._takeover:
            super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if not self._takeover:
            super().mouseReleaseEvent(event)
            return
        press, self._press = self._press, None
        if press is None:
            return
        button, start = press
        end = self._pixel_at(event.position(), clamp=False) or start
        end = QPointF(min(max(0.0, end.x()), self._frame_w() - 1), min(max(0.0, end.y()), self._frame_h() - 1))
        x, y = int(start.x()), int(start.y())
        if button == Qt.MouseButton.RightButton:
            self.sig_action_requested.emit({"action": "right_click", "x": x, "y": y})
        elif (end - start).manhattanLength() > DRAG_THRESHOLD_PX:
            self.sig_action_requested.emit({"action": "drag", "x": x, "y": y, "x2": int(end.x()), "y2": int(end.y())})
        else:
            self.sig_action_requested.emit({"action": "click", "x": x, "y": y})
        event.accept()

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        if not self._takeover:
            super().mouseDoubleClickEvent(event)
            return
        self.mousePressEvent(event)  # the second click of a double click is a click of its own

    def wheelEvent(self, event: QWheelEvent) -> None:
        if not self._takeover:
            super().wheelEvent(event)
            return
        point = self._pixel_at(event.position())
        delta = event.angleDelta()
        if point is not None and (delta.x() or delta.y()):
            vertical = abs(delta.y()) >= abs(delta.x())
            amount = max(1, round(abs(delta.y() if vertical else delta.x()) / 120))
            direction = ("up" if delta.y() > 0 else "down") if vertical else ("left" if delta.x() > 0 else "right")
            self.sig_action_requested.emit(
                {"action": "scroll", "x": int(point.x()), "y": int(point.y()), "direction": direction, "amount": amount}
            )
        event.accept()

    def _pixel_at(self, pos: QPointF, *, clamp: bool = True) -> QPointF | None:
        """The frame pixel under the widget pixel at ``pos`` (its centre is what counts)."""
        point = self.widget_to_image(QPointF(pos.x() + 0.5, pos.y() + 0.5), clamp=clamp)
        return None if point is None else QPointF(math.floor(point.x()), math.floor(point.y()))

    def _frame_w(self) -> int:
        image = self.image()
        return image.width() if image is not None else 1

    def _frame_h(self) -> int:
        image = self.image()
        return image.height() if image is not None else 1

