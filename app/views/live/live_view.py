"""LiveView: the target's display as it runs, and the surface for a human take-over.

Take-over is an explicit mode, never a side effect of where the focus is.  It
can be entered only while the run is paused (:meth:`set_takeover_allowed`), by
clicking the picture or by :data:`TAKEOVER_SHORTCUT` (the workbench's "Take
over" action); it shows an orange frame and a banner that says how to leave.
In the mode a click, drag, wheel turn or key press becomes one engine action in
window-relative coordinates (the live image *is* the target window), emitted as
:attr:`LiveView.sig_action_requested`; the run forwards it as an ``act {json}``
control line.  Only :data:`TAKEOVER_SHORTCUT` is never forwarded: it leaves the
mode.  Out of the mode every key belongs to the workbench, so Space, N and Esc
pause, step and stop the run even while this view has the focus.  Resuming,
stopping or a new run leave the mode.
"""

from __future__ import annotations

import math
import time
from collections import deque
from typing import Any

from PySide6.QtCore import QEvent, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import (
    QColor, QImage, QKeyEvent, QKeySequence, QMouseEvent, QPainter, QPaintEvent, QPen, QResizeEvent, QTransform,
    QWheelEvent,
)
from PySide6.QtWidgets import QLabel, QWidget

from app.views.widgets.frame_view import FrameView
from app.views.live.key_names import key_action

DRAG_THRESHOLD_PX = 6
"""A press and release farther apart than this (in frame pixels) is a drag, not a click."""
TAKEOVER_COLOR = QColor("#ffab00")
FPS_WINDOW_S = 2.0
TAKEOVER_SHORTCUT = QKeySequence("Ctrl+T")
"""Enters and leaves take-over mode; the one key combination never sent to the target."""
TAKEOVER_BANNER = ("TAKE-OVER — your clicks and keys go to the target · "
                   f"{TAKEOVER_SHORTCUT.toString(QKeySequence.SequenceFormat.NativeText)} gives the keys back")
TAKEOVER_STATE = "paused — taken over"
"""What the view's subtitle says in take-over mode (the banner says how to leave)."""


class LiveView(FrameView):
    sig_action_requested = Signal(dict)
    """Emitted with an engine action dict when the user acts on the paused target (take-over)."""
    sig_frame_shown = Signal()
    """Emitted after a new live frame was accepted; the capture may send the next one."""
    sig_takeover_changed = Signal(bool)
    """Emitted when take-over mode was entered (True) or left (False)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Live", parent)
        self.setObjectName("LiveView")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._allowed = False
        self._takeover = False
        self.banner = QLabel(TAKEOVER_BANNER, self)
        self.banner.setObjectName("TakeoverBanner")
        self.banner.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.banner.setStyleSheet(f"background: {TAKEOVER_COLOR.name()}; color: black; font-weight: 600; padding: 3px;")
        self.banner.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.banner.hide()
        self._press: tuple[Qt.MouseButton, QPointF, QTransform] | None = None
        """The button pressed, the frame pixel under it and how the picture lay then (entering take-over moves it
        below the banner: the release is measured on the same picture as the press)."""
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
        self.set_frame(image, subtitle=f"{self._shown_state()} · {self.fps():.0f} fps")
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
        self.set_frame(self.image(), subtitle=self._shown_state(), placeholder=text)

    def _shown_state(self) -> str:
        return TAKEOVER_STATE if self._takeover else self._state

    def set_takeover_allowed(self, allowed: bool) -> None:
        """Allow (paused run) or refuse (running, finished) take-over; refusing leaves the mode."""
        self._allowed = allowed
        if not allowed:
            self.set_takeover(False)
        self._update_cursor()

    @property
    def takeover_allowed(self) -> bool:
        return self._allowed

    def set_takeover(self, on: bool) -> bool:
        """Enter (only while allowed) or leave take-over mode; returns whether the mode is on."""
        on = on and self._allowed
        if on == self._takeover:
            return on
        self._takeover = on
        self._press = None
        self.banner.setVisible(on)
        self.set_frame(self.image(), subtitle=self._shown_state(), placeholder=self._state)
        if on:
            self.setFocus(Qt.FocusReason.OtherFocusReason)
        self._update_cursor()
        self.update()
        self.sig_takeover_changed.emit(on)
        return on

    @property
    def takeover(self) -> bool:
        """True while in take-over mode: clicks and keys here go to the target."""
        return self._takeover

    def _update_cursor(self) -> None:
        self.setCursor(Qt.CursorShape.CrossCursor if self._allowed else Qt.CursorShape.ArrowCursor)
        tip = ("Take-over: click, drag, scroll or type here to act on the target" if self._takeover else
               "Paused: click the picture to take over" if self._allowed else "")
        self.setToolTip(tip)

    def set_frame(self, image: QImage | None, **shown: Any) -> None:
        super().set_frame(image, **shown)
        self._place_banner()

    def _title_height(self) -> float:
        """In take-over the banner is a line of the title block: the picture starts below it, never under it."""
        under = super()._title_height()
        return under + self.banner.sizeHint().height() if self._takeover else under

    def _place_banner(self) -> None:
        """The banner sits under the pane's title and subtitle lines."""
        self.banner.setGeometry(0, int(super()._title_height()), self.width(), self.banner.sizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._place_banner()

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
        if self._takeover and event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent) \
                and not _is_takeover_key(event):
            event.accept()  # the key goes to keyPressEvent (the target), not to a shortcut
            return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if not self._takeover:
            super().keyPressEvent(event)
            return
        if _is_takeover_key(event):  # no "Take over" action took it (a view on its own): leave here
            self.set_takeover(False)
            event.accept()
            return
        action = key_action(event.key(), event.text(), event.modifiers())
        if action is not None and not event.isAutoRepeat():
            self.sig_action_requested.emit(action)
        event.accept()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        transform = self.image_transform()
        if not self._takeover and not (self._allowed and self.set_takeover(True)):
            super().mousePressEvent(event)
            return
        self.setFocus(Qt.FocusReason.MouseFocusReason)
        point = self._pixel_at(event.position(), transform=transform)
        if point is not None and event.button() in (Qt.MouseButton.LeftButton, Qt.MouseButton.RightButton):
            self._press = (event.button(), point, transform)
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
        button, start, transform = press
        end = self._pixel_at(event.position(), clamp=False, transform=transform) or start
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

    def _pixel_at(self, pos: QPointF, *, clamp: bool = True, transform: QTransform | None = None) -> QPointF | None:
        """The frame pixel under the widget pixel at ``pos`` (its centre is what counts), the picture lying as
        ``transform`` says (None: as it lies now)."""
        centre = QPointF(pos.x() + 0.5, pos.y() + 0.5)
        if transform is None:
            point = self.widget_to_image(centre, clamp=clamp)
        else:
            inverse, ok = transform.inverted()
            point = inverse.map(centre) if ok and self.image() is not None else None
            if point is not None and clamp and not (0 <= point.x() < self._frame_w() and 0 <= point.y() < self._frame_h()):
                point = None
        return None if point is None else QPointF(math.floor(point.x()), math.floor(point.y()))

    def _frame_w(self) -> int:
        image = self.image()
        return image.width() if image is not None else 1

    def _frame_h(self) -> int:
        image = self.image()
        return image.height() if image is not None else 1



def _is_takeover_key(event: QKeyEvent) -> bool:
    return QKeySequence(event.keyCombination()).matches(TAKEOVER_SHORTCUT) == QKeySequence.SequenceMatch.ExactMatch
