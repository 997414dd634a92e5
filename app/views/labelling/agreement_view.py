"""AgreementView: the validation dashboard — labelling progress, agreement statistics and a chart.

The numbers come from :func:`app.engine.study.agreement.compute_agreement` (the same
code as `playcoder validate stats`).  The bootstrap runs through the long-work
helper (:mod:`app.views.widgets.long_task`): off the GUI thread on a connection
of its own, with progress and *Cancel*; a newer Refresh cancels an older one.
This view is not blinded: it shows the tester against the humans, so open it
after labelling.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox, QFileDialog, QGridLayout, QGroupBox, QHBoxLayout, QHeaderView, QLabel, QPushButton, QTableView,
    QVBoxLayout, QWidget,
)

from app.engine.study import agreement
from app.engine.errors import UserError
from app.views.model.changes import Changes
from app.views.model.database import Database
from app.views.model.workbench_model import WorkbenchModel
from app.views.labelling.agreement_chart import AgreementChart
from app.views.labelling.agreement_model import ReportTableModel
from app.views.widgets.long_task import LongTask, TaskControl, run_long_task

RATES = ("fn_rate", "fp_rate")
SHORT_TITLES = {
    "alpha_humans": "α between annotators",
    "alpha_tester_human": "α tester vs humans",
    "tau_b": "τb tester vs humans",
    "fn_rate": "FN rate (tester pass, humans fail)",
    "fp_rate": "FP rate (tester fail, humans pass)",
}
"""Table captions; the full titles (agreement.STAT_TITLES) are the tooltips and the CLI's."""


def _fmt(value: float | None, key: str) -> str:
    if value is None:
        return "n/a"
    return f"{value:.1%}" if key in RATES else f"{value:.3f}"


class AgreementView(QWidget):
    """Pick a set, see who labelled how much and how well the tester agrees with the humans."""

    sig_report_computed = Signal(object)
    """A new AgreementReport was computed (the argument)."""

    def __init__(self, database: Database, *, set_name: str | None = None,
                 resamples: int = agreement.RESAMPLES, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.database = database
        self.resamples = resamples
        self.report: agreement.AgreementReport | None = None
        self.task: LongTask | None = None
        """The computation going on, if any."""
        self.setWindowTitle("Validation agreement")
        self._build()
        self.reload_sets(set_name)

    def _build(self) -> None:
        self.set_combo = QComboBox()
        self.refresh_button = QPushButton("Refresh")
        self.csv_button = QPushButton("Export CSV…")
        self.json_button = QPushButton("Export JSON…")
        top = QHBoxLayout()
        top.addWidget(QLabel("Set:"))
        top.addWidget(self.set_combo, 1)
        for b in (self.refresh_button, self.csv_button, self.json_button):
            top.addWidget(b)

        self.progress_model = ReportTableModel(["Annotator", "Labelled", "Pass", "Fail", "Unsure"], self)
        self.stats_model = ReportTableModel(["Statistic", "Value", "95% interval", "n"], self)
        self.confusion_model = ReportTableModel(["Human pass", "Human fail"], self, text_columns=0)
        self.progress_table = self._table(self.progress_model)
        self.stats_table = self._table(self.stats_model)
        self.confusion_table = self._table(self.confusion_model)
        self.confusion_table.verticalHeader().setVisible(True)
        self.excluded_label = QLabel()
        self.excluded_label.setWordWrap(True)
        self.chart = AgreementChart()
        self.status = QLabel()
        self.status.setWordWrap(True)

        grid = QGridLayout()
        grid.addWidget(self._box("Labelling progress", self.progress_table), 0, 0)
        grid.addWidget(self._box("Tester (rows) vs human majority (columns)", self.confusion_table, self.excluded_label), 0, 1)
        grid.addWidget(self._box("Agreement", self.stats_table), 1, 0)
        grid.addWidget(self._box("Chart (bars: value, whiskers: 95% bootstrap interval)", self.chart), 1, 1)
        grid.setColumnStretch(0, 1)
        grid.setColumnStretch(1, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(grid, 1)
        layout.addWidget(self.status)

        self.set_combo.currentTextChanged.connect(self._on_set_combo_changed)
        self.refresh_button.clicked.connect(self.refresh)
        self.csv_button.clicked.connect(self._on_csv_button_clicked)
        self.json_button.clicked.connect(self._on_json_button_clicked)

    @staticmethod
    def _table(model: ReportTableModel) -> QTableView:
        table = QTableView()
        table.setModel(model)
        table.verticalHeader().setVisible(False)
        table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        table.horizontalHeader().setStretchLastSection(True)
        return table

    @staticmethod
    def _box(title: str, *widgets: QWidget) -> QGroupBox:
        box = QGroupBox(title)
        inner = QVBoxLayout(box)
        for w in widgets:
            inner.addWidget(w)
        return box

    def follow(self, model: WorkbenchModel) -> Callable[[], None]:
        """Recompute when work changed labels or verdicts (a set drawn, a label promoted, an override), whoever
        did it; returns what ends the subscription (call it when the window closes)."""
        def on_changed(changes: Changes) -> None:
            if changes.labels or changes.verdict:
                self.reload_sets(self.set_combo.currentText() or None)

        model.events.changed.connect(on_changed)
        return lambda: model.events.changed.disconnect(on_changed)

    def reload_sets(self, wanted: str | None = None) -> None:
        names = [s.name for s in self.database.validation.sets()]
        self.set_combo.blockSignals(True)
        self.set_combo.clear()
        self.set_combo.addItems(names)
        self.set_combo.blockSignals(False)
        if not names:
            self.status.setText("There are no validation sets yet; draw one with `playcoder validate sample --name NAME`.")
            self.show_report(None)
            return
        choice = wanted if wanted in names else names[-1]
        self.set_combo.setCurrentText(choice)
        self.refresh()

    def _on_set_combo_changed(self, name: str) -> None:
        if name:
            self.refresh()

    def refresh(self) -> None:
        """Recompute the statistics of the selected set from the database, off the GUI thread."""
        name = self.set_combo.currentText()
        if not name:
            return
        if self.task is not None and self.task.running:
            self.task.sig_finished.disconnect(self._on_task_finished)
            self.task.cancel()
        db, resamples = self.database.path, self.resamples

        def compute(control: TaskControl) -> agreement.AgreementReport:
            assert db is not None
            vset, units = control.open_database(db, readonly=True).validation.agreement_units(name)
            return agreement.compute_agreement(
                units, resamples=resamples, seed=vset.seed, name=vset.name,
                progress=lambda done, total: control.progress(done, total, f"{done} of {total} bootstrap resamples"))

        self.status.setText(f"Computing the agreement of '{name}'…")
        self.task = run_long_task(compute, what="compute the agreement statistics",
                                  label="Computing the agreement statistics…", parent=self,
                                  on_finished=self._on_task_finished, on_failed=self._on_task_failed,
                                  on_cancelled=self._on_task_cancelled)

    def _on_task_finished(self, report: Any) -> None:
        self.show_report(report)
        self.status.setText(f"{report.units} runs; {report.resamples} bootstrap resamples (seed {report.seed}).")
        self.sig_report_computed.emit(report)

    def _on_task_failed(self, sentence: str) -> None:
        self.status.setText(sentence)

    def _on_task_cancelled(self) -> None:
        if self.task is None or not self.task.running:
            self.status.setText("Cancelled; Refresh computes the statistics again.")

    def show_report(self, report: agreement.AgreementReport | None) -> None:
        self.report = report
        self.chart.set_report(report)
        if report is None:
            for model in (self.progress_model, self.stats_model, self.confusion_model):
                model.set_rows([])
            self.excluded_label.setText("")
            return
        self.progress_model.set_rows(
            [[p.annotator, f"{p.labelled}/{p.total}", p.passes, p.fails, p.unsure] for p in report.annotators]
        )
        rows: list[list[object]] = []
        for key, est in report.statistics().items():
            interval = f"[{_fmt(est.low, key)}, {_fmt(est.high, key)}]" if est.low is not None else "n/a"
            rows.append([SHORT_TITLES[key], _fmt(est.value, key), interval, est.n])
        self.stats_model.set_rows(rows)
        self.stats_table.setToolTip("\n".join(agreement.STAT_TITLES.values()))
        c = report.confusion
        self.confusion_model.set_rows([[c["pass"]["pass"], c["pass"]["fail"]], [c["fail"]["pass"], c["fail"]["fail"]]],
                                      ["Tester pass", "Tester fail"])
        e = report.excluded
        self.excluded_label.setText(f"Left out of the tester comparison: {e['tied']} tied, "
                                    f"{e['unsure_only']} only unsure, {e['unlabelled']} unlabelled.")

    # -- export ------------------------------------------------------------------------------
    def export_csv(self, path: Path) -> None:
        if self.report is not None:
            agreement.write_report_csv(self.report, path)

    def export_json(self, path: Path) -> None:
        if self.report is None:
            return
        try:
            path.write_text(agreement.report_json(self.report), encoding="utf-8")
        except OSError as exc:
            self.status.setText(f"Cannot write {path} ({exc.strerror}); choose another file.")

    def _on_csv_button_clicked(self) -> None:
        name, _ = QFileDialog.getSaveFileName(self, "Export agreement as CSV", "agreement.csv", "CSV (*.csv)")
        if name:
            try:
                self.export_csv(Path(name))
            except UserError as exc:
                self.status.setText(str(exc))

    def _on_json_button_clicked(self) -> None:
        name, _ = QFileDialog.getSaveFileName(self, "Export agreement as JSON", "agreement.json", "JSON (*.json)")
        if name:
            self.export_json(Path(name))
