"""PresentationView: a repair shown to an audience — full screen, large type, driven by keys alone.

It shows what the repair window shows for the current cycle (the window
stays the one source of truth: :meth:`RepairView.shown`, its frames), laid
out for a projector: the cycle's title and patch summary on top, the frames
before and after the patch at the same step in the middle, the patch and
what triggered it below.  A cycle in progress shows its play live.

Keys: Page Down / Page Up next / previous cycle, Space plays and pauses the
steps (on a cycle in progress: pauses and resumes the repair), ← / → one
step, Home / End first / last step, Esc leaves.  Nothing inside takes the
keyboard focus, so no key is ever eaten by a child widget; the mouse is not
needed for anything.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QRegularExpression, Qt, Signal
from PySide6.QtGui import QCloseEvent, QFont, QKeyEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QScrollArea, QSplitter, QTextBrowser, QVBoxLayout, QWidget

from app.views.repair.diff_html import side_by_side_html, unified_html
from app.views.widgets.frame_view import FrameView
from app.views.widgets.step_number import step_number

TYPE_SCALE = 1.8
"""Type in the presentation is this many times the workbench's."""
TITLE_SCALE, NOTE_SCALE, STATUS_SCALE = 1.3, 0.9, 0.75
"""The title, the trigger notes and the key line, relative to the presentation's type."""
DIFF_POINTS = 14
"""Point size of the patch (before the screen's scaling)."""
KEYS_HINT = "PgDn / PgUp cycles · Space play / pause · ← / → steps · ↑ / ↓ scroll the notes · Esc leaves"


class PresentationView(QWidget):
    sig_closed = Signal()
    """Emitted once when the presentation ended (Esc or closed)."""

    def __init__(self, source: Any) -> None:
        """``source``: the RepairView presented (it keeps the data; this view only shows it larger)."""
        super().__init__(None, Qt.WindowType.Window)
        self.setObjectName("RepairPresentation")
        self.setWindowTitle("Repair — presentation")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        self.source = source
        self._closed = False
        self._diff_key: tuple[str, str] | None = None
        points = max(8.0, source.font().pointSizeF()) * TYPE_SCALE
        font = QFont(self.font())
        font.setPointSizeF(points)
        self.setFont(font)
        # the workbench's style sheet sets every widget's type: this one's own sheet wins over it
        self.setStyleSheet(
            f"#RepairPresentation {{ background: #15171b; }} "
            "#RepairPresentation QScrollArea, #RepairPresentation QScrollArea > QWidget > QWidget "
            "{ background: transparent; } "
            f"#RepairPresentation QLabel {{ color: #e8eaed; font-size: {points:.0f}pt; }} "
            f"#RepairPresentation QLabel#PresentTitle {{ font-size: {points * TITLE_SCALE:.0f}pt; }} "
            f"#RepairPresentation QLabel#PresentNote {{ font-size: {points * NOTE_SCALE:.0f}pt; }} "
            f"#RepairPresentation QLabel#PresentStatus {{ font-size: {points * STATUS_SCALE:.0f}pt; }}")
        self.title = QLabel(self)
        self.title.setObjectName("PresentTitle")
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.title.setWordWrap(True)
        self.description = QLabel(self)
        self.description.setWordWrap(True)
        self.description.setObjectName("PresentDescription")
        self.before = FrameView("Before the patch", self)
        self.after = FrameView("After the patch (re-test)", self)
        for frame in (self.before, self.after):
            frame.setFont(source.font())  # the frame's title bar has room for the usual type only
        self.diff = QTextBrowser(self)
        self.diff.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.trigger = QLabel(self)
        self.trigger.setObjectName("PresentNote")
        self.trigger.setWordWrap(True)
        self.trigger.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        # The notes can be longer than their pane: they scroll (wheel, ↑ / ↓) instead of being cut off.
        self.trigger_scroll = QScrollArea(self)
        self.trigger_scroll.setWidgetResizable(True)
        self.trigger_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.trigger_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.trigger_scroll.setWidget(self.trigger)
        self.trigger_scroll.viewport().setAutoFillBackground(False)
        self.trigger.setAutoFillBackground(False)
        self.status = QLabel(self)
        self.status.setObjectName("PresentStatus")
        for widget in (self, self.title, self.description, self.before, self.after, self.diff, self.trigger,
                       self.trigger_scroll, self.trigger_scroll.verticalScrollBar(), self.status):
            widget.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        pair = QWidget(self)
        pl = QHBoxLayout(pair)
        pl.setContentsMargins(0, 0, 0, 0)
        pl.addWidget(self.before)
        pl.addWidget(self.after)
        lower = QWidget(self)
        ll = QHBoxLayout(lower)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(self.diff, 2)
        ll.addWidget(self.trigger_scroll, 1)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(pair)
        split.addWidget(lower)
        split.setStretchFactor(0, 5)
        split.setStretchFactor(1, 4)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 16, 24, 12)
        layout.addWidget(self.title)
        layout.addWidget(self.description)
        layout.addWidget(split, 1)
        layout.addWidget(self.status)
        source.sig_shown_changed.connect(self.sync)
        source.frames.sig_replay_changed.connect(self._on_replay_changed)

    # -- lifecycle ----------------------------------------------------------------------------------
    def start(self) -> None:
        """Show full screen on the repair window's screen, with the keyboard."""
        screen = self.source.screen()
        if screen is not None:
            self.setGeometry(screen.geometry())
        self.showFullScreen()
        self.raise_()
        self.activateWindow()
        self.setFocus(Qt.FocusReason.ActiveWindowFocusReason)
        self.sync()

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self._closed:
            self._closed = True
            try:
                self.source.sig_shown_changed.disconnect(self.sync)
                self.source.frames.sig_replay_changed.disconnect(self._on_replay_changed)
            except (RuntimeError, TypeError):  # the source went first
                pass
            self.sig_closed.emit()
        super().closeEvent(event)

    # -- keys -------------------------------------------------------------------------------------------------
    def _scroll_notes(self, direction: int) -> None:
        bar = self.trigger_scroll.verticalScrollBar()
        bar.setValue(bar.value() + direction * max(bar.pageStep() // 2, 1))

    def keyPressEvent(self, event: QKeyEvent) -> None:
        frames = self.source.frames
        actions = {
            Qt.Key.Key_PageDown: self.source.next_cycle, Qt.Key.Key_PageUp: self.source.previous_cycle,
            Qt.Key.Key_Space: self.source.play_or_pause, Qt.Key.Key_Right: frames.next_step,
            Qt.Key.Key_Left: frames.previous_step, Qt.Key.Key_Escape: self.close,
            Qt.Key.Key_Down: lambda: self._scroll_notes(1), Qt.Key.Key_Up: lambda: self._scroll_notes(-1),
            Qt.Key.Key_Home: lambda: frames.step_slider.setValue(0),
            Qt.Key.Key_End: lambda: frames.step_slider.setValue(frames.step_slider.maximum()),
        }
        action = actions.get(Qt.Key(event.key()))
        if action is None:
            super().keyPressEvent(event)
            return
        if not event.isAutoRepeat() or event.key() in (Qt.Key.Key_Left, Qt.Key.Key_Right):
            action()
        event.accept()

    # -- content ------------------------------------------------------------------------------------------------
    def sync(self) -> None:
        """Show what the repair window shows now."""
        if self._closed:
            return
        shown = self.source.shown()
        self.title.setText(shown.title)
        self.description.setText(shown.description)
        before, after = self.source.frames.frame_pair()
        captions = self.source.frames.captions()
        self.before.set_frame(before, subtitle=captions[0], placeholder=captions[0] or "no frame")
        self.after.set_frame(after, subtitle=captions[1], placeholder=captions[1] or "no frame")
        if (shown.diff, shown.diff_hint) != self._diff_key:
            self._diff_key = (shown.diff, shown.diff_hint)
            self.diff.setHtml(_larger(side_by_side_html(shown.diff, shown.diff_hint)
                                      if self.source.side_by_side.isChecked() else unified_html(shown.diff)))
            self._show_first_change()
        trigger = "<b>What triggered it</b><br>" + ("<br>".join(_escape(f) for f in shown.findings[:6])
                                                    or "no findings yet")
        first = next((line for line in shown.diagnosis.splitlines() if line.strip()), "")
        if first:
            trigger += f"<br><br><b>Diagnosis</b><br>{_escape(first[:400])}"
        self.trigger.setText(trigger)
        self._say_status()

    def _show_first_change(self) -> None:
        """Scroll the patch so that its first changed line shows (the context above it matters less)."""
        found = self.diff.document().find(QRegularExpression(r"^[-+](?![-+]{2} )"))
        if found.isNull():
            return
        self.diff.verticalScrollBar().setValue(self.diff.verticalScrollBar().maximum())
        found.clearSelection()
        self.diff.setTextCursor(found)
        self.diff.ensureCursorVisible()

    def _say_status(self) -> None:
        frames = self.source.frames
        where = "live" if self.source.showing_progress() else f"step {step_number(frames.step())} / {frames.step_count()}"
        playing = "▶ playing" if frames.replaying else "⏸"
        self.status.setText(f"{where} · {playing}    <span style='color:#9aa0a6'>{KEYS_HINT}</span>")

    def _on_replay_changed(self, _playing: bool) -> None:
        self._say_status()


def _larger(html: str) -> str:
    """The patch in presentation type, long lines wrapped (nothing to scroll sideways with keys alone)."""
    return html.replace("font-size: 10pt;", f"font-size: {DIFF_POINTS}pt; white-space: pre-wrap;")


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
