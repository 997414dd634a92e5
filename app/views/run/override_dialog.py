"""OverrideDialog: confirm a human verdict override — what changes, why (required), and who (asked once).

An override is a judgment that outranks the tester's, so it is never one
click: the dialog says which verdict replaces which, takes a reason (the
button stays disabled until there is one), and asks for the user's name only
when no identity is set yet (:mod:`app.views.widgets.identity`) — in a field
of its own, so a reason can never land in a name prompt.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFormLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from app.views.widgets.identity import default_name
from app.views.widgets.verdict_style import verdict_badge_html

RECORD = "Record override"


class OverrideDialog(QDialog):
    def __init__(self, verdict: str, current: str | None, run_id: int, *, name: str = "", reason: str = "",
                 parent: QWidget | None = None) -> None:
        """``name``: the user's identity ('' asks for it here); ``reason``: a reason typed beforehand."""
        super().__init__(parent)
        self.setWindowTitle(f"Override the verdict of run #{run_id}")
        self.setMinimumWidth(460)
        self.verdict = verdict
        self.summary = summary = QLabel(
            f"Run #{run_id} is {verdict_badge_html(current)} now; your override makes it {verdict_badge_html(verdict)}."
            "<br>It is appended to the run's judgments (Undo appends an undo; nothing is overwritten).", self)
        summary.setTextFormat(Qt.TextFormat.RichText)
        summary.setWordWrap(True)
        self.name_edit = QLineEdit(name or default_name(), self)
        self.name_edit.setPlaceholderText("your name, recorded with every override and label")
        self.reason_edit = QLineEdit(reason, self)
        self.reason_edit.setPlaceholderText("why: what you saw that the tester did not")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel,
                                        self)
        self.record_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.record_button.setText(RECORD)
        form = QFormLayout()
        self.asks_name = not name
        if self.asks_name:
            form.addRow("Your name", self.name_edit)
        else:  # known already: the field is in no layout, and would lie over the text at the dialog's corner
            self.name_edit.hide()
        form.addRow("Reason", self.reason_edit)
        layout = QVBoxLayout(self)
        layout.addWidget(summary)
        layout.addLayout(form)
        layout.addWidget(self.buttons)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.reason_edit.textChanged.connect(self._on_text_changed)
        self.name_edit.textChanged.connect(self._on_text_changed)
        self.reason_edit.setFocus()
        self._on_text_changed()

    def reason(self) -> str:
        return self.reason_edit.text().strip()

    def name(self) -> str:
        return self.name_edit.text().strip()

    def accept(self) -> None:
        if self.reason() and self.name():
            super().accept()

    def _on_text_changed(self, *_args: object) -> None:
        ready = bool(self.reason()) and bool(self.name())
        self.record_button.setEnabled(ready)
        self.record_button.setToolTip("" if ready else "Give a reason" + (" and your name" if self.asks_name else ""))
