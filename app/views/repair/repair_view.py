"""RepairView: step through repair sessions cycle by cycle.

Left, the sessions (runs of kind ``repair``) with their cycles.  Right, for
the selected cycle: what triggered it (the findings of the run it started
from, and the diagnosis), the patch (unified or side by side, highlighted),
the validation output, and the play runs before and after the patch side by
side at the same step (one slider for both), opened at the step where the
failure shows (the first finding of the play the cycle started from).
Page Down / Page Up go to the next / previous cycle, for demos.  The view
follows the database (:meth:`RepairView.follow`): sessions and cycles written
by any process — a repair started from Repair › New repair…, or from the
command line — appear as they are recorded; F5 re-reads at once.  The view
only reads the store, through :mod:`app.engine.repair.records` and the
store's run/step/frame readers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QImage, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QCheckBox, QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QSlider, QSplitter, QTabWidget, QTextBrowser,
    QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget,
)

from app.engine.repair.records import CycleRecord, cycles, repair_sessions, trigger_findings
from app.views.repair.diff_html import side_by_side_html, unified_html
from app.views.widgets.change_probe import DatabaseChangeProbe
from app.views.widgets.findings_view import FindingsView
from app.views.widgets.frame_view import FrameView

CYCLE_ROLE = Qt.ItemDataRole.UserRole + 1
OUTCOME_TEXT = {"fixed": "fixed", "kept": "kept (progress)", "reverted": "reverted", "rejected": "rejected by the gate",
                "no-patch": "no patch", "error": "patch error", "refused": "refused (touched the oracles)",
                "uncertain": "not confirmed (testers uncertain)"}


class RepairView(QWidget):
    sig_cycle_selected = Signal(int)
    """Emitted with the patch row id when a cycle becomes current."""
    sig_stop_requested = Signal()
    """Emitted when the user asks to stop the repair running now (Stop repair)."""

    def __init__(self, store: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("RepairView")
        self.store = store
        self._cycles: list[CycleRecord] = []
        self._current: CycleRecord | None = None
        self._runs: tuple[int | None, int | None] = (None, None)
        self._signature: list[tuple[Any, ...]] | None = None
        self.probe = DatabaseChangeProbe(self)
        self.probe.sig_changed.connect(self.refresh)
        self.running_label = QLabel(self)
        self.running_label.setObjectName("LiveStatus")
        self.running_label.setWordWrap(True)
        self.stop_button = QPushButton("Stop repair", self)
        self.stop_button.setToolTip("End the running repair (its plays stop cleanly; recorded cycles stay)")
        self.stop_button.clicked.connect(self.sig_stop_requested)
        self.set_running(None)
        QShortcut(QKeySequence(Qt.Key.Key_F5), self, self.refresh_now)

        self.tree = QTreeWidget(self)
        self.tree.setHeaderLabels(["Repair sessions and cycles"])
        self.tree.currentItemChanged.connect(self._on_tree_current_changed)

        self.header = QLabel("Select a repair cycle.", self)
        self.header.setWordWrap(True)
        self.prev_button = QPushButton("◀ Previous cycle", self)
        self.next_button = QPushButton("Next cycle ▶", self)
        self.prev_button.setToolTip("Previous cycle (Page Up)")
        self.next_button.setToolTip("Next cycle (Page Down)")
        self.prev_button.clicked.connect(self.previous_cycle)
        self.next_button.clicked.connect(self.next_cycle)
        QShortcut(QKeySequence(Qt.Key.Key_PageDown), self, self.next_cycle)
        QShortcut(QKeySequence(Qt.Key.Key_PageUp), self, self.previous_cycle)

        self.findings = FindingsView(self)
        self.diagnosis = QPlainTextEdit(self)
        self.diagnosis.setReadOnly(True)
        self.diff_browser = QTextBrowser(self)
        self.side_by_side = QCheckBox("Side by side", self)
        self.side_by_side.toggled.connect(self._on_side_by_side_toggled)
        self.validation = QPlainTextEdit(self)
        self.validation.setReadOnly(True)

        self.before_frame = FrameView("Before the patch", self)
        self.after_frame = FrameView("After the patch (re-test)", self)
        self.step_slider = QSlider(Qt.Orientation.Horizontal, self)
        self.step_slider.setMinimum(0)
        self.step_slider.valueChanged.connect(self._on_step_slider_changed)
        self.step_label = QLabel("", self)

        tabs = QTabWidget(self)
        trigger = QWidget(self)
        tl = QVBoxLayout(trigger)
        tl.addWidget(QLabel("Findings and failed criteria of the play this cycle started from:", trigger))
        tl.addWidget(self.findings, 1)
        tl.addWidget(QLabel("Diagnosis:", trigger))
        tl.addWidget(self.diagnosis, 2)
        tabs.addTab(trigger, "Trigger")
        patch = QWidget(self)
        pl = QVBoxLayout(patch)
        pl.addWidget(self.side_by_side)
        pl.addWidget(self.diff_browser, 1)
        tabs.addTab(patch, "Patch")
        tabs.addTab(self.validation, "Validation")
        self.tabs = tabs

        frames = QWidget(self)
        fl = QVBoxLayout(frames)
        pair = QHBoxLayout()
        pair.addWidget(self.before_frame)
        pair.addWidget(self.after_frame)
        fl.addLayout(pair, 1)
        sl = QHBoxLayout()
        sl.addWidget(self.step_slider, 1)
        sl.addWidget(self.step_label)
        fl.addLayout(sl)

        right = QSplitter(Qt.Orientation.Vertical, self)
        right.addWidget(tabs)
        right.addWidget(frames)
        nav = QHBoxLayout()
        nav.addWidget(self.prev_button)
        nav.addWidget(self.header, 1)
        nav.addWidget(self.next_button)
        right_box = QWidget(self)
        rl = QVBoxLayout(right_box)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addLayout(nav)
        rl.addWidget(right, 1)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(self.tree)
        split.addWidget(right_box)
        split.setStretchFactor(1, 3)
        running = QHBoxLayout()
        running.addWidget(self.running_label, 1)
        running.addWidget(self.stop_button)
        layout = QVBoxLayout(self)
        layout.addLayout(running)
        layout.addWidget(split)
        self.reload()

    # -- content ---------------------------------------------------------------------
    def set_store(self, store: Any) -> None:
        self.store = store
        self.reload()
        if self.probe.path is not None:
            self.follow(getattr(store, "path", None))

    def follow(self, path: Path | None) -> None:
        """Follow the database file at ``path`` (None: stop): changes by any process appear by themselves."""
        self.probe.watch(path)

    def set_running(self, text: str | None) -> None:
        """Say what the repair running now is doing (None: no repair running; the Stop button hides)."""
        self.running_label.setVisible(bool(text))
        self.running_label.setText(text or "")
        self.stop_button.setVisible(text is not None)

    def refresh_now(self) -> None:
        """F5: re-read everything now, keeping the current cycle."""
        self._signature = None
        self.refresh()

    def refresh(self) -> None:
        """Re-read the sessions; the tree is rebuilt only when a session or a cycle changed (the current cycle
        stays current; the first cycle of a new database is selected)."""
        if self.store is None:
            return
        sessions = repair_sessions(self.store)
        signature = [(s.run_id, s.status, s.verdict, s.cycles) for s in sessions]
        if signature != self._signature:
            self.reload(keep=self._current.patch_id if self._current is not None else None)

    def reload(self, keep: int | None = None) -> None:
        """Re-read the sessions from the store and select the cycle of patch ``keep`` (else the first)."""
        self.tree.clear()
        self._cycles = []
        self._signature = None
        if self.store is None:
            return
        first: QTreeWidgetItem | None = None
        kept: QTreeWidgetItem | None = None
        sessions = repair_sessions(self.store)
        self._signature = [(s.run_id, s.status, s.verdict, s.cycles) for s in sessions]
        for session in sessions:
            state = {"pass": "fixed", "uncertain": "not confirmed"}.get(str(session.verdict), "not fixed") \
                if session.status == "completed" else session.status
            top = QTreeWidgetItem([f"#{session.run_id} {session.target} — {state} ({session.refiner}, "
                                   f"{session.cycles} cycle(s))"])
            top.setToolTip(0, session.reason)
            self.tree.addTopLevelItem(top)
            for rec in cycles(self.store, session.run_id):
                item = QTreeWidgetItem([f"iteration {rec.iteration} · {OUTCOME_TEXT.get(rec.outcome, rec.outcome)}"])
                item.setToolTip(0, rec.description)
                item.setData(0, CYCLE_ROLE, len(self._cycles))
                self._cycles.append(rec)
                top.addChild(item)
                first = first or item
                if keep is not None and rec.patch_id == keep:
                    kept = item
            top.setExpanded(True)
        self._current = None
        self._update_buttons()
        chosen = kept or first
        if chosen is not None:
            self.tree.setCurrentItem(chosen)

    def cycle_count(self) -> int:
        return len(self._cycles)

    def current_cycle(self) -> CycleRecord | None:
        return self._current

    def select_cycle(self, index: int) -> None:
        """Make the ``index``-th cycle (over all sessions, in list order) current."""
        if not 0 <= index < len(self._cycles):
            return
        for i in range(self.tree.topLevelItemCount()):
            top = self.tree.topLevelItem(i)
            for j in range(top.childCount() if top is not None else 0):
                child = top.child(j) if top is not None else None
                if child is not None and child.data(0, CYCLE_ROLE) == index:
                    self.tree.setCurrentItem(child)
                    return

    def next_cycle(self) -> None:
        self.select_cycle(self._index() + 1)

    def previous_cycle(self) -> None:
        self.select_cycle(max(0, self._index() - 1))

    def _index(self) -> int:
        return self._cycles.index(self._current) if self._current in self._cycles else -1

    def _update_buttons(self) -> None:
        i = self._index()
        self.prev_button.setEnabled(i > 0)
        self.next_button.setEnabled(0 <= i < len(self._cycles) - 1 or (i < 0 and bool(self._cycles)))

    # -- showing one cycle ---------------------------------------------------------------
    def _on_tree_current_changed(self, item: QTreeWidgetItem | None, _previous: Any) -> None:
        if item is None:
            return
        index = item.data(0, CYCLE_ROLE)
        if index is None:  # a session: show its first cycle
            first = item.child(0) if item.childCount() else None
            if first is not None:
                self.tree.setCurrentItem(first)
            return
        self._show(self._cycles[int(index)])

    def _show(self, rec: CycleRecord) -> None:
        self._current = rec
        verdict = f"re-test {rec.verdict}" if rec.verdict else "no re-test"
        self.header.setText(f"<b>Iteration {rec.iteration}</b> · {OUTCOME_TEXT.get(rec.outcome, rec.outcome)} · "
                            f"{verdict} · {rec.seconds:.1f} s · {rec.tokens} tokens<br>{rec.description}")
        trigger = trigger_findings(self.store, rec)
        self.findings.set_findings(trigger)
        self.diagnosis.setPlainText(rec.diagnosis)
        self._render_diff()
        self.validation.setPlainText(rec.validation or rec.error or "(no validation output)")
        self._runs = (rec.before_run, rec.retest_run)
        steps = [self.store.step_count(r) for r in self._runs if r is not None]
        last = max(steps) - 1 if steps and max(steps) > 0 else 0
        self.step_slider.blockSignals(True)
        self.step_slider.setMaximum(last)
        self.step_slider.setValue(min(self.failure_step(rec, trigger), last))
        self.step_slider.blockSignals(False)
        self._show_step(self.step_slider.value())
        self._update_buttons()
        if rec.patch_id is not None:
            self.sig_cycle_selected.emit(rec.patch_id)

    def failure_step(self, rec: CycleRecord, trigger: list[dict[str, Any]] | None = None) -> int:
        """The step where the failure shows: the first finding's step in the play the cycle started from;
        else (a failed criterion names no step) that play's last step."""
        findings = trigger if trigger is not None else trigger_findings(self.store, rec)
        steps = [int(f["step"]) for f in findings if f.get("step") is not None
                 and f.get("run_id") in (None, rec.before_run)]
        if steps:
            return min(steps)
        count = self.store.step_count(rec.before_run) if rec.before_run is not None else 0
        return max(0, count - 1)

    def _render_diff(self) -> None:
        rec = self._current
        diff = rec.diff if rec is not None else ""
        hint = rec.files[0] if rec is not None and rec.files else ".py"
        self.diff_browser.setHtml(side_by_side_html(diff, hint) if self.side_by_side.isChecked() else unified_html(diff))

    def _on_side_by_side_toggled(self, _checked: bool) -> None:
        self._render_diff()

    def _on_step_slider_changed(self, value: int) -> None:
        self._show_step(value)

    def _show_step(self, idx: int) -> None:
        self.step_label.setText(f"step {idx}")
        for view, run_id, label in ((self.before_frame, self._runs[0], "before"),
                                    (self.after_frame, self._runs[1], "after")):
            image, note = self._frame_at(run_id, idx)
            view.set_frame(image, subtitle=note, placeholder=f"no {label} run" if run_id is None else "no frame")

    def _frame_at(self, run_id: int | None, idx: int) -> tuple[QImage | None, str]:
        if run_id is None:
            return None, ""
        count = self.store.step_count(run_id)
        if count == 0:
            return None, f"run {run_id} has no steps"
        shown = min(idx, count - 1)
        step = self.store.step(run_id, shown)
        sha = step.get("frame_after") if step else None
        frame = self.store.frame(sha) if sha else None
        if frame is None:
            return None, f"run {run_id}: no frame at step {shown}"
        image = QImage.fromData(frame.data)
        note = f"run {run_id}, step {shown}" + (f" (the run ended at step {count - 1})" if shown != idx else "")
        return image, note

    def frame_pair(self) -> tuple[QImage | None, QImage | None]:
        """The two images shown now (for tests and for exporting a demo still)."""
        return self.before_frame.image(), self.after_frame.image()
