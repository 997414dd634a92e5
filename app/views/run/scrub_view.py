"""ScrubView: the run as a time axis — the film's activity, steps as marks, findings, a playhead to drag.

As in Playwright's trace viewer, time runs left to right over the whole run:
each step is a tick at its start (its span shaded when it is the selected one),
each finding a red mark at its moment, and a light band shows how much the
window changed (the film's frames per pixel column).  Pressing or dragging
moves the playhead and emits :attr:`ScrubView.sig_time_scrubbed`; ← and → move
it one film frame.  The view paints from plain arrays given to it; it never
decodes a picture (that is :class:`~app.views.run.film_player.FilmPlayer`'s).
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QKeyEvent, QMouseEvent, QPainter, QPaintEvent, QPen, QPixmap, QPolygonF
from PySide6.QtWidgets import QSizePolicy, QWidget

from app.views.widgets.verdict_style import VERDICT_COLORS
from app.views.widgets.step_number import step_text

HEIGHT = 44
MARGIN = 8
BAND_TOP, BAND_HEIGHT = 16, 14
BACKGROUND = QColor("#f4f5f7")
ACTIVITY = QColor("#9bb8e8")
TICK = QColor("#5b6475")
SELECTED_SPAN = QColor(45, 108, 223, 40)
PLAYHEAD = QColor("#1d2330")
NO_FILM = "no film for this run"


class ScrubView(QWidget):
    sig_time_scrubbed = Signal(float)
    """Emitted with the wall time the user pressed, dragged or stepped the playhead to."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Scrub")
        self.setFixedHeight(HEIGHT)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMouseTracking(False)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent, True)  # paints every pixel
        self.t0 = 0.0
        self.t1 = 1.0
        self.playhead: float | None = None
        self._steps: list[tuple[int, float, float, bool]] = []
        self._findings: list[float] = []
        self._frames = np.zeros(0)
        self._selected: tuple[float, float] | None = None
        self._starts = np.zeros(0)
        self._bad = np.zeros(0, dtype=bool)
        self._marks: QPixmap | None = None
        """What moves only with the run or the size (activity band, ticks, findings), painted once and kept: moving
        from step to step repaints only the selected span and the playhead over it."""
        self._marks_key: tuple[int, int, float, str] | None = None
        self.setToolTip("The run's film: press or drag to see the window at any moment; ← → move one frame")

    # -- data ------------------------------------------------------------------------------------
    def set_run(self, start: float | None, end: float | None, steps: list[tuple[int, float, float, bool]],
                findings: list[float], frames: np.ndarray | None) -> None:
        """The run's span, its steps (idx, start, end, has findings), findings' moments and the film's frame times."""
        self._steps = steps
        self._findings = findings
        self._frames = frames if frames is not None else np.zeros(0)
        self._starts = np.fromiter((s[1] for s in steps), dtype=float, count=len(steps))
        self._bad = np.fromiter((bool(s[3]) for s in steps), dtype=bool, count=len(steps))
        self._marks = None
        # The axis spans what there is to see: the steps, the film and the findings.  The run's own start and end
        # count only without them: a differential run starts its two references before its first step, and that
        # wait would squeeze every step against the right edge.
        times = [s[1] for s in steps[:1]] + [s[2] for s in steps[-1:]] + list(findings)
        if self._frames.size:
            times += [float(self._frames[0]), float(self._frames[-1])]
        if not times:
            times = [t for t in (start, end) if t is not None]
        self.t0 = min(times) if times else 0.0
        self.t1 = max(max(times) if times else 1.0, self.t0 + 0.001)
        self.playhead = None
        self._selected = None
        self.update()

    @property
    def steps(self) -> list[tuple[int, float, float, bool]]:
        """The steps as marked: (idx, started_at, ended_at, has findings)."""
        return self._steps

    @property
    def has_film(self) -> bool:
        return bool(self._frames.size)

    def select_span(self, start: float | None, end: float | None) -> None:
        """Shade the selected step's span and put the playhead at its end (no signal)."""
        self._selected = (start, end) if start is not None and end is not None else None
        if end is not None:
            self.playhead = end
        self.update()

    def set_playhead(self, t: float | None) -> None:
        self.playhead = t
        self.update()

    # -- geometry --------------------------------------------------------------------------------------
    def x_of(self, t: float) -> float:
        width = max(1, self.width() - 2 * MARGIN)
        return MARGIN + (t - self.t0) / (self.t1 - self.t0) * width

    def t_of(self, x: float) -> float:
        width = max(1, self.width() - 2 * MARGIN)
        return self.t0 + min(max(0.0, (x - MARGIN) / width), 1.0) * (self.t1 - self.t0)

    def sizeHint(self) -> QSize:
        return QSize(600, HEIGHT)

    # -- painting -----------------------------------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.fillRect(self.rect(), BACKGROUND)
        if self._selected is not None:
            a, b = (self.x_of(t) for t in self._selected)
            p.fillRect(QRectF(a, 2, max(2.0, b - a), HEIGHT - 4), SELECTED_SPAN)
        p.drawPixmap(0, 0, self._marks_pixmap())
        if self.playhead is not None:
            small = p.font()
            small.setPointSizeF(max(6.5, small.pointSizeF() - 2))
            p.setFont(small)
            x = self.x_of(self.playhead)
            p.setPen(QPen(PLAYHEAD, 2))
            p.drawLine(QPointF(x, 2), QPointF(x, HEIGHT - 2))
            p.setPen(PLAYHEAD)
            label = f"t+{self.playhead - self.t0:.2f} s"
            right = x + 4 + p.fontMetrics().horizontalAdvance(label) > self.width()
            p.drawText(QPointF(x - 4 - p.fontMetrics().horizontalAdvance(label) if right else x + 4, HEIGHT - 4), label)
        p.end()

    def _marks_pixmap(self) -> QPixmap:
        """The activity band, step ticks and finding marks on a transparent pixmap, made again only when the run,
        the size or the font changed."""
        ratio = self.devicePixelRatioF()
        key = (self.width(), self.height(), ratio, self.font().key())
        if self._marks is not None and self._marks_key == key:
            return self._marks
        pixmap = QPixmap(max(1, round(self.width() * ratio)), max(1, round(self.height() * ratio)))
        pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(Qt.GlobalColor.transparent)
        p = QPainter(pixmap)
        p.setFont(self.font())
        self._paint_marks(p)
        p.end()
        self._marks, self._marks_key = pixmap, key
        return pixmap

    def _paint_marks(self, p: QPainter) -> None:
        band = QRectF(MARGIN, BAND_TOP, max(1, self.width() - 2 * MARGIN), BAND_HEIGHT)
        if self._frames.size:
            columns = max(1, int(band.width()))
            counts, _ = np.histogram(self._frames, bins=columns, range=(self.t0, self.t1))
            top = max(1, int(counts.max()))
            for col in np.flatnonzero(counts).tolist():
                h = max(2.0, BAND_HEIGHT * counts[col] / top)
                p.fillRect(QRectF(band.left() + col, band.bottom() - h, 1, h), ACTIVITY)
        else:
            p.setPen(TICK)
            p.drawText(band, Qt.AlignmentFlag.AlignCenter, NO_FILM)
        small = p.font()
        small.setPointSizeF(max(6.5, small.pointSizeF() - 2))
        p.setFont(small)
        tick, fail = QPen(TICK, 1), QPen(QColor(VERDICT_COLORS["fail"]), 1)
        last_label = -1e9
        for i in self._tick_rows():
            idx, start, _end, bad = self._steps[i]
            x = self.x_of(start)
            p.setPen(fail if bad else tick)
            p.drawLine(QPointF(x, BAND_TOP - 3), QPointF(x, BAND_TOP + BAND_HEIGHT + 3))
            if x - last_label > 26:
                p.drawText(QPointF(x + 2, BAND_TOP - 4), step_text(idx))
                last_label = x
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QColor(VERDICT_COLORS["fail"]))
        for t in self._findings:
            x = self.x_of(t)
            bottom = BAND_TOP + BAND_HEIGHT + 10
            p.drawPolygon(QPolygonF([QPointF(x, bottom - 7), QPointF(x - 4, bottom), QPointF(x + 4, bottom)]))

    def _tick_rows(self) -> list[int]:
        """The steps to draw a tick for: one a pixel column (a step with findings wins its column), so a
        10,000-step run does not draw 10,000 lines on every repaint."""
        if not self._steps:
            return []
        starts, bad = self._starts, self._bad
        width = max(1, self.width() - 2 * MARGIN)
        columns = (MARGIN + (starts - self.t0) / max(1e-9, self.t1 - self.t0) * width).astype(int)
        order = np.lexsort((~bad, columns))  # by column, steps with findings first
        first = np.ones(len(order), dtype=bool)
        first[1:] = columns[order][1:] != columns[order][:-1]
        return sorted(order[first].tolist())

    # -- input ---------------------------------------------------------------------------------------------
    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self._scrub_to(self.t_of(event.position().x()))

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if event.buttons() & Qt.MouseButton.LeftButton:
            self._scrub_to(self.t_of(event.position().x()))

    def keyPressEvent(self, event: QKeyEvent) -> None:
        step = {Qt.Key.Key_Left: -1, Qt.Key.Key_Right: 1}.get(Qt.Key(event.key()))
        if step is None or not self._frames.size:
            super().keyPressEvent(event)
            return
        at = self.playhead if self.playhead is not None else self.t0
        i = int(np.searchsorted(self._frames, at + 0.001, side="right")) - 1
        i = min(max(0, i + step), int(self._frames.size) - 1)
        self._scrub_to(float(self._frames[i]))

    def _scrub_to(self, t: float) -> None:
        self.playhead = t
        self.update()
        self.sig_time_scrubbed.emit(t)
