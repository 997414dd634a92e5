"""AgreementChart: bars with 95% interval whiskers for the agreement statistics, drawn with QPainter.

QtCharts is not part of PySide6-Essentials, and five bars do not need it.
"α tester" and "τb tester" compare the tester with the human majority.
Rates (FN, FP) and agreement coefficients (alpha, tau-b) share one axis from
min(0, lowest interval end) to 1; an undefined statistic gets an empty slot
marked "n/a" rather than a misleading zero-height bar.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from app.engine.study.agreement import AgreementReport

BARS = (
    ("alpha_humans", "α humans", "agreement"),
    ("alpha_tester_human", "α tester", "agreement"),
    ("tau_b", "τb tester", "agreement"),
    ("fn_rate", "FN rate", "rate"),
    ("fp_rate", "FP rate", "rate"),
)
COLORS = {"agreement": QColor(70, 120, 190), "rate": QColor(220, 130, 50)}
GRID = (0.0, 0.25, 0.5, 0.75, 1.0)
MARGIN = (48.0, 24.0, 16.0, 40.0)
"""Left, top, right, bottom padding in pixels (axis labels, values, bar names)."""


@dataclass(frozen=True)
class Bar:
    key: str
    title: str
    kind: str
    value: float | None
    low: float | None
    high: float | None


class AgreementChart(QWidget):
    """Paints the report's statistics; set_report() replaces them."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._bars: list[Bar] = []
        self.setMinimumSize(360, 220)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def set_report(self, report: AgreementReport | None) -> None:
        self._bars = []
        if report is not None:
            stats = report.statistics()
            self._bars = [Bar(key, title, kind, stats[key].value, stats[key].low, stats[key].high)
                          for key, title, kind in BARS]
        self.setToolTip("\n".join(self._describe(b) for b in self._bars))
        self.update()

    def bars(self) -> list[Bar]:
        return list(self._bars)

    def axis_range(self) -> tuple[float, float]:
        lows = [v for b in self._bars for v in (b.value, b.low) if v is not None]
        return (min([0.0, *lows]), 1.0)

    @staticmethod
    def _describe(bar: Bar) -> str:
        if bar.value is None:
            return f"{bar.title}: n/a"
        if bar.kind == "rate":
            text = f"{bar.title}: {bar.value:.1%}"
            return text + (f" [{bar.low:.1%}, {bar.high:.1%}]" if bar.low is not None and bar.high is not None else "")
        text = f"{bar.title}: {bar.value:.3f}"
        return text + (f" [{bar.low:.3f}, {bar.high:.3f}]" if bar.low is not None and bar.high is not None else "")

    def paintEvent(self, event: Any) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.fillRect(self.rect(), self.palette().base())
        left, top, right, bottom = MARGIN
        plot = QRectF(left, top, max(1.0, self.width() - left - right), max(1.0, self.height() - top - bottom))
        lo, hi = self.axis_range()
        span = hi - lo or 1.0

        def y_of(v: float) -> float:
            return plot.bottom() - (max(lo, min(hi, v)) - lo) / span * plot.height()

        text_pen = QPen(self.palette().text().color())
        grid_pen = QPen(QColor(160, 160, 160, 120))
        for g in sorted({*GRID, lo}):
            if lo <= g <= hi:
                painter.setPen(grid_pen)
                painter.drawLine(QPointF(plot.left(), y_of(g)), QPointF(plot.right(), y_of(g)))
                painter.setPen(text_pen)
                painter.drawText(QRectF(0, y_of(g) - 8, left - 6, 16),
                                 int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), f"{g:.2f}")
        if not self._bars:
            painter.setPen(text_pen)
            painter.drawText(plot, int(Qt.AlignmentFlag.AlignCenter), "no statistics yet")
            return
        slot = plot.width() / len(self._bars)
        zero = y_of(0.0)
        for i, bar in enumerate(self._bars):
            x0 = plot.left() + i * slot
            painter.setPen(text_pen)
            painter.drawText(QRectF(x0, plot.bottom() + 4, slot, bottom - 4),
                             int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap),
                             bar.title)
            if bar.value is None:
                painter.drawText(QRectF(x0, plot.top(), slot, plot.height()), int(Qt.AlignmentFlag.AlignCenter), "n/a")
                continue
            width = slot * 0.5
            rect = QRectF(x0 + (slot - width) / 2, min(zero, y_of(bar.value)), width, abs(zero - y_of(bar.value)))
            painter.fillRect(rect, COLORS[bar.kind])
            mid = x0 + slot / 2
            if bar.low is not None and bar.high is not None:
                painter.setPen(QPen(self.palette().text().color(), 1.5))
                painter.drawLine(QPointF(mid, y_of(bar.low)), QPointF(mid, y_of(bar.high)))
                for end in (bar.low, bar.high):
                    painter.drawLine(QPointF(mid - width / 4, y_of(end)), QPointF(mid + width / 4, y_of(end)))
            label = f"{bar.value:.0%}" if bar.kind == "rate" else f"{bar.value:.2f}"
            top_y = min(y_of(bar.value), y_of(bar.high) if bar.high is not None else y_of(bar.value))
            painter.setPen(text_pen)
            painter.drawText(QRectF(x0, top_y - 18, slot, 16), int(Qt.AlignmentFlag.AlignCenter), label)
