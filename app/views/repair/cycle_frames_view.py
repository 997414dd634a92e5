"""CycleFramesView: a cycle's play before the patch and its re-test after, side by side at the same step.

One slider moves both (a re-test shorter than the play before it shows its
last step, and says so).  *Play steps* (Space in the repair window) walks the
slider on its own, one step every :data:`REPLAY_STEP_MS`.  While a repair
runs, either side can show the play going on live instead
(:meth:`CycleFramesView.set_live`): the first play on the "before" side, a
re-test on the "after" side; the live frames come from the repair's capture.

A crash's failure step has a blank picture after it (the window was gone):
then the side shows the last live picture before it, and says so.
"""

from __future__ import annotations

from typing import Any


from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QImage
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QLabel, QPushButton, QSlider, QStackedWidget, QVBoxLayout,
                               QWidget)

from app.views.live.live_view import LiveView
from app.views.widgets.frame_view import FrameView
from app.views.widgets.step_number import step_number
from app.views.widgets.after_caption import is_blank

LIVE_LOOKBACK_STEPS = 10
"""How many steps back a blank picture (a dead window) looks for the last live one."""
REPLAY_STEP_MS = 700
"""How long each step shows while the steps play by themselves."""
BEFORE, AFTER = "before", "after"
_STORED, _LIVE = 0, 1


class CycleFramesView(QWidget):
    sig_step_shown = Signal(int)
    """Emitted with the step index after the stored frames of a step were shown."""
    sig_frames_changed = Signal()
    """Emitted whenever what the two sides show changed (a step, a live frame, live on or off)."""
    sig_replay_changed = Signal(bool)
    """Emitted with True when the steps start playing by themselves, False when they stop."""
    sig_live_frame_shown = Signal()
    """Emitted after a live frame was shown (the capture may send the next one)."""

    def __init__(self, database: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.database = database
        self._runs: tuple[int | None, int | None] = (None, None)
        self._notes = ("", "")
        self._waiting = ""
        self._live: str | None = None
        self.before_frame = FrameView("Before the patch", self)
        self.after_frame = FrameView("After the patch (re-test)", self)
        self.before_live = LiveView(self)
        self.after_live = LiveView(self)
        self._stacks: dict[str, QStackedWidget] = {}
        self.before_pick, self.after_pick = QComboBox(self), QComboBox(self)
        """Which play each side shows: every play of the cycle's program version, the failing ones first."""
        picks = QHBoxLayout()
        for pick in (self.before_pick, self.after_pick):
            pick.setToolTip("Every play of this version of the program, the failing ones first")
            pick.activated.connect(self._on_pick_activated)
            picks.addWidget(pick, 1)
        pair = QHBoxLayout()
        for side, stored, live in ((BEFORE, self.before_frame, self.before_live),
                                   (AFTER, self.after_frame, self.after_live)):
            stack = QStackedWidget(self)
            stack.addWidget(stored)
            stack.addWidget(live)
            self._stacks[side] = stack
            pair.addWidget(stack)
        self.step_slider = QSlider(Qt.Orientation.Horizontal, self)
        self.step_slider.setMinimum(0)
        self.step_slider.valueChanged.connect(self._on_step_slider_changed)
        self.step_label = QLabel("", self)
        self.play_button = QPushButton("▶ Play steps", self)
        self.play_button.setToolTip("Walk through the steps on their own (Space)")
        self.play_button.clicked.connect(self.toggle_replay)
        self._timer = QTimer(self)
        self._timer.setInterval(REPLAY_STEP_MS)
        self._timer.timeout.connect(self._on_timer_timeout)
        row = QHBoxLayout()
        row.addWidget(self.play_button)
        row.addWidget(self.step_slider, 1)
        row.addWidget(self.step_label)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(picks)
        layout.addLayout(pair, 1)
        layout.addLayout(row)

    # -- stored frames -----------------------------------------------------------------------------
    def set_database(self, database: Any) -> None:
        self.database = database
        self.show_runs(None, None, 0)

    def show_runs(self, before_run: int | None, after_run: int | None, step: int, *, waiting: str = "") -> None:
        """Show the two plays at ``step`` (clamped to the longer of them); ``waiting`` says why a missing
        "after" run is missing (a re-test still to come)."""
        self.stop_replay()
        self._runs = (self._fill_pick(self.before_pick, before_run), self._fill_pick(self.after_pick, after_run))
        self._waiting = waiting
        self._fit_slider(step)

    def _fit_slider(self, step: int) -> None:
        """The slider spans the longer of the two plays shown; then ``step`` (clamped) is shown."""
        counts = [self.database.step_count(r) for r in self._runs if r is not None and self.database is not None]
        last = max(counts) - 1 if counts and max(counts) > 0 else 0
        self.step_slider.blockSignals(True)
        self.step_slider.setMaximum(last)
        self.step_slider.setValue(min(step, last))
        self.step_slider.blockSignals(False)
        self.show_step(self.step_slider.value())

    def _fill_pick(self, pick: QComboBox, run_id: int | None) -> int | None:
        """List the plays beside ``run_id`` in ``pick`` and return the one to show first (a failing one)."""
        pick.blockSignals(True)
        pick.clear()
        runs = self.database.sibling_plays(run_id) if run_id is not None and self.database is not None else []
        for rid in runs:
            row = self.database.run(rid)
            pick.addItem(f"run {rid} · {row.get('tester') or '?'} · {row.get('verdict') or row.get('status')}", rid)
        pick.setVisible(len(runs) > 1)
        pick.blockSignals(False)
        return runs[0] if runs else run_id

    def _on_pick_activated(self, _index: int) -> None:
        self._runs = (self.before_pick.currentData() if self.before_pick.count() else self._runs[0],
                      self.after_pick.currentData() if self.after_pick.count() else self._runs[1])
        self._fit_slider(self.step_slider.value())

    def show_step(self, idx: int) -> None:
        self.step_label.setText(f"step {step_number(idx)}")
        notes = []
        sides = ((self.before_frame, self._runs[0], BEFORE), (self.after_frame, self._runs[1], AFTER))
        for view, run_id, label in sides:
            image, note = self._frame_at(run_id, idx)
            view.set_frame(image, subtitle=note, placeholder=self._placeholder(run_id, label))
            notes.append(note)
        self._notes = (notes[0], notes[1])
        self.sig_step_shown.emit(idx)
        self.sig_frames_changed.emit()

    def step(self) -> int:
        return self.step_slider.value()

    def step_count(self) -> int:
        return self.step_slider.maximum() + 1

    def next_step(self) -> None:
        self.step_slider.setValue(min(self.step_slider.maximum(), self.step_slider.value() + 1))

    def previous_step(self) -> None:
        self.step_slider.setValue(max(0, self.step_slider.value() - 1))

    def frame_pair(self) -> tuple[QImage | None, QImage | None]:
        """The two images shown now (a live side: its newest frame)."""
        return self._view(BEFORE).image(), self._view(AFTER).image()

    def captions(self) -> tuple[str, str]:
        """What each side shows, in words (``run 4, step 3`` or the live play's state)."""
        return tuple(self._view(side).state_text if self._live == side else note  # type: ignore[return-value]
                     for side, note in ((BEFORE, self._notes[0]), (AFTER, self._notes[1])))

    # -- replay ------------------------------------------------------------------------------------------
    @property
    def replaying(self) -> bool:
        return self._timer.isActive()

    def toggle_replay(self) -> None:
        if self.replaying:
            self.stop_replay()
            return
        if self.step_slider.maximum() == 0:
            return
        if self.step_slider.value() >= self.step_slider.maximum():
            self.step_slider.setValue(0)
        self._timer.start()
        self.play_button.setText("⏸ Pause steps")
        self.sig_replay_changed.emit(True)

    def stop_replay(self) -> None:
        if self._timer.isActive():
            self._timer.stop()
            self.play_button.setText("▶ Play steps")
            self.sig_replay_changed.emit(False)

    def _on_timer_timeout(self) -> None:
        if self.step_slider.value() >= self.step_slider.maximum():
            self.stop_replay()
            return
        self.next_step()

    # -- live ------------------------------------------------------------------------------------------------
    def set_live(self, side: str | None, text: str = "") -> None:
        """Show the play going on live on ``side`` (None: both sides show stored frames again)."""
        if side != self._live:
            if side is not None:
                self._view_live(side).set_frame(None, placeholder=text or "waiting for the program's window…")
            self._live = side
            for name, stack in self._stacks.items():
                stack.setCurrentIndex(_LIVE if name == side else _STORED)
            self.sig_frames_changed.emit()
        if side is not None and text:
            self._view_live(side).set_state_text(text)

    @property
    def live_side(self) -> str | None:
        return self._live

    def show_live_frame(self, image: QImage) -> None:
        if self._live is not None:
            self._view_live(self._live).show_frame(image)
            self.sig_frames_changed.emit()
        self.sig_live_frame_shown.emit()

    # -- helpers ------------------------------------------------------------------------------------------------
    def _view(self, side: str) -> Any:
        if self._live == side:
            return self._view_live(side)
        return self.before_frame if side == BEFORE else self.after_frame

    def _view_live(self, side: str) -> LiveView:
        return self.before_live if side == BEFORE else self.after_live

    def _placeholder(self, run_id: int | None, side: str) -> str:
        if run_id is None:
            return self._waiting if side == AFTER and self._waiting else f"no {side} run"
        return "no frame"

    def _on_step_slider_changed(self, value: int) -> None:
        self.show_step(value)

    def _frame_at(self, run_id: int | None, idx: int) -> tuple[QImage | None, str]:
        if run_id is None or self.database is None:
            return None, ""
        count = self.database.step_count(run_id)
        if count == 0:
            return None, f"run {run_id} has no steps"
        shown = min(idx, count - 1)
        step = self.database.step(run_id, shown)
        sha = step.get("frame_after") if step else None
        image = self._image(sha)
        if image is None:
            return None, f"run {run_id}: no frame at step {step_number(shown)}"
        note = f"run {run_id}, step {step_number(shown)}" + (f" (the run ended at step {count})" if shown != idx else "")
        if is_blank(image):
            live, where = self._last_live(run_id, shown, step)
            if live is not None:
                return live, f"{note} · the window was gone: the last live picture, {where}"
        return image, note

    def _image(self, sha: Any) -> QImage | None:
        frame = self.database.frame(sha) if sha and self.database is not None else None
        return QImage.fromData(frame.data) if frame is not None else None

    def _last_live(self, run_id: int, idx: int, step: dict[str, Any] | None) -> tuple[QImage | None, str]:
        """The newest picture that is not blank before the blank one after step ``idx``, and where it is from."""
        candidates = [(step.get("frame_before") if step else None, f"before step {step_number(idx)}")]
        for back in range(idx - 1, max(-1, idx - 1 - LIVE_LOOKBACK_STEPS), -1):
            earlier = self.database.step(run_id, back)
            candidates.append((earlier.get("frame_after") if earlier else None, f"after step {step_number(back)}"))
        for sha, where in candidates:
            image = self._image(sha)
            if image is not None and not is_blank(image):
                return image, where
        return None, ""

