"""CycleDetailsView: what a repair cycle is made of — its trigger and diagnosis, its patch, its gate output.

Three tabs: *Trigger* (the findings and failed criteria of the play the cycle
started from, and the diagnosis), *Patch* (unified, or side by side, both
highlighted; :mod:`app.views.repair.diff_html`) and *Validation* (the gate's
output).  It only shows the texts it is given; the repair view reads them.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QCheckBox, QLabel, QPlainTextEdit, QTabWidget, QTextBrowser, QVBoxLayout, QWidget

from app.views.repair.diff_html import side_by_side_html, unified_html
from app.views.widgets.findings_view import FindingsView

TRIGGER_TAB, PATCH_TAB, VALIDATION_TAB = 0, 1, 2


class CycleDetailsView(QTabWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.findings = FindingsView(self)
        self.diagnosis = QPlainTextEdit(self)
        self.diagnosis.setReadOnly(True)
        self.diff_browser = QTextBrowser(self)
        self.side_by_side = QCheckBox("Side by side", self)
        self.side_by_side.toggled.connect(self._on_side_by_side_toggled)
        self.validation = QPlainTextEdit(self)
        self.validation.setReadOnly(True)
        self._diff = ("", ".py")
        trigger = QWidget(self)
        tl = QVBoxLayout(trigger)
        tl.addWidget(QLabel("Findings and failed criteria of the play this cycle started from:", trigger))
        tl.addWidget(self.findings, 1)
        tl.addWidget(QLabel("Diagnosis:", trigger))
        tl.addWidget(self.diagnosis, 2)
        self.addTab(trigger, "Trigger")
        patch = QWidget(self)
        pl = QVBoxLayout(patch)
        pl.addWidget(self.side_by_side)
        pl.addWidget(self.diff_browser, 1)
        self.addTab(patch, "Patch")
        self.addTab(self.validation, "Validation")

    def show_cycle(self, findings: list[dict[str, Any]], diagnosis: str, diff: str, path_hint: str,
                   validation: str) -> None:
        self.findings.set_findings(findings)
        self.diagnosis.setPlainText(diagnosis)
        self.set_diff(diff, path_hint)
        self.validation.setPlainText(validation)

    def set_diff(self, diff: str, path_hint: str = ".py") -> None:
        """Show ``diff``; ``path_hint`` (its first file) picks the highlighting of the side-by-side view."""
        self._diff = (diff, path_hint or ".py")
        self._render_diff()

    @property
    def diff(self) -> tuple[str, str]:
        """The patch shown and its path hint."""
        return self._diff

    def finding_lines(self) -> list[str]:
        return [self.findings.item(i).text() for i in range(self.findings.count())]

    def _render_diff(self) -> None:
        diff, hint = self._diff
        html = side_by_side_html(diff, hint) if self.side_by_side.isChecked() else unified_html(diff)
        self.diff_browser.setHtml(html)

    def _on_side_by_side_toggled(self, _checked: bool) -> None:
        self._render_diff()
