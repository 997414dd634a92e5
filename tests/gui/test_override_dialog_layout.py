"""The override dialog: no field lies over its first sentence, whether it asks for the name or knows it."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect
from PySide6.QtWidgets import QLineEdit

from app.views.run.override_dialog import OverrideDialog


def _rect(dialog, widget) -> QRect:
    return QRect(widget.mapTo(dialog, widget.rect().topLeft()), widget.size())


@pytest.mark.parametrize("name", ["", "Tireless Annotator"])
def test_no_field_covers_the_summary(qtbot, name):
    dialog = OverrideDialog("pass", "fail", 7, name=name)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    summary = _rect(dialog, dialog.summary)
    assert dialog.summary.height() >= dialog.summary.heightForWidth(dialog.summary.width())
    shown = [e for e in dialog.findChildren(QLineEdit) if e.isVisible()]
    assert dialog.reason_edit in shown and (dialog.name_edit in shown) == (not name)
    for edit in shown:
        assert not _rect(dialog, edit).intersects(summary), edit.placeholderText()
    assert dialog.name() == (name or dialog.name_edit.text().strip())
