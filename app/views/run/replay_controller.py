"""ReplayController: plays a recorded timeline with its recorded rhythm.

The delay before moving from step *i* to *i+1* is the difference of their
``started_at`` times, clamped to [:data:`MIN_DELAY_S`, :data:`MAX_DELAY_S`] and
divided by the speed, so a long think or a long idle never stalls a replay and
a burst of fast actions is still visible.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from app.views.run.steps_model import StepsModel

SPEEDS: tuple[float, ...] = (0.5, 1.0, 2.0, 4.0)
DEFAULT_SPEED = 1.0
MIN_DELAY_S = 0.05
MAX_DELAY_S = 3.0


class ReplayController(QObject):
    sig_row_reached = Signal(int)
    """Emitted with the row the replay moved to; the run view selects it."""
    sig_playing_changed = Signal(bool)
    """Emitted when the replay starts (True) or stops (False)."""

    def __init__(self, model: StepsModel, parent: Any = None) -> None:
        super().__init__(parent)
        self.model = model
        self.speed = DEFAULT_SPEED
        self._row = 0
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._on_timer_timeout)
        model.modelReset.connect(self._on_model_reset)

    @property
    def playing(self) -> bool:
        return self._timer.isActive()

    @property
    def row(self) -> int:
        return self._row

    def set_speed(self, speed: float) -> None:
        if speed <= 0:
            raise ValueError("speed must be positive")
        self.speed = speed

    def sync(self, row: int) -> None:
        """The user moved to ``row``; a running replay continues from there."""
        self._row = max(0, row)

    def play(self, from_row: int | None = None) -> None:
        if from_row is not None:
            self._row = max(0, from_row)
        if self.model.available == 0:
            return
        if self._row >= self.model.available - 1:
            self._row = 0  # at the end: start over
            self.sig_row_reached.emit(0)
        was_playing = self.playing
        self._schedule()
        if not was_playing:
            self.sig_playing_changed.emit(True)

    def pause(self) -> None:
        if self.playing:
            self._timer.stop()
            self.sig_playing_changed.emit(False)

    def toggle(self, current_row: int | None = None) -> None:
        if self.playing:
            self.pause()
        else:
            self.play(current_row)

    def delay_s(self, row: int) -> float:
        """Seconds to wait on ``row`` before showing ``row + 1`` at the current speed."""
        self.model.ensure_loaded(row + 1)
        a, b = self.model.step_at(row), self.model.step_at(row + 1)
        gap = MIN_DELAY_S
        if a is not None and b is not None and a.get("started_at") and b.get("started_at"):
            gap = float(b["started_at"]) - float(a["started_at"])
        return min(MAX_DELAY_S, max(MIN_DELAY_S, gap)) / self.speed

    def _schedule(self) -> None:
        self._timer.start(max(1, round(self.delay_s(self._row) * 1000)))

    def _on_timer_timeout(self) -> None:
        nxt = self._row + 1
        if not self.model.ensure_loaded(nxt):
            self.sig_playing_changed.emit(False)
            return
        self._row = nxt
        self.sig_row_reached.emit(nxt)
        if nxt >= self.model.available - 1:
            self.sig_playing_changed.emit(False)
            return
        self._schedule()

    def _on_model_reset(self) -> None:
        self.pause()
        self._row = 0
