"""TaskInstructionsView: what the tested program should do — its goal and criteria — beside a blinded run.

An annotator judges a run against the task, as the tester did, so the
labelling window shows the target's ``goal`` and ``[[criteria]]`` from its
``playcoder.toml`` (the same for the program and every bug variant of it, so
nothing of the answer shows).  A target folder that is gone says so in one
line; the labelling goes on.
"""

from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QScrollArea, QWidget

from app.engine.errors import TargetError
from app.engine.play.targetspec import load_spec

MAX_HEIGHT_PX = 130
"""The instructions take at most this much height; longer ones scroll."""


def instructions_html(folder: str | None) -> str:
    """The goal and criteria of the target in ``folder`` as HTML, or one sentence saying why there are none."""
    if not folder:
        return "<i>This run does not name its target folder, so its task cannot be shown.</i>"
    try:
        spec = load_spec(Path(folder))
    except (TargetError, OSError) as exc:
        return f"<i>The task of this run cannot be shown: {html.escape(str(exc))}</i>"
    parts = [f"<b>Goal:</b> {html.escape(spec.goal)}" if spec.goal else "<b>Goal:</b> <i>none given</i>"]
    if spec.criteria:
        items = "".join(f"<li><b>{html.escape(c.id)}</b>: {html.escape(c.text)}</li>" for c in spec.criteria)
        parts.append(f"<b>Criteria</b> (what a passing run shows):<ul style='margin:0'>{items}</ul>")
    else:
        parts.append("<b>Criteria:</b> <i>none declared; judge the goal</i>")
    return "<br>".join(parts)


class TaskInstructionsView(QScrollArea):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("TaskInstructions")
        self.setWidgetResizable(True)
        self.setMaximumHeight(MAX_HEIGHT_PX)
        self.text = QLabel(self)
        self.text.setTextFormat(Qt.TextFormat.RichText)
        self.text.setWordWrap(True)
        self.text.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setWidget(self.text)
        self._cache: dict[str | None, str] = {}

    def show_target(self, folder: str | None) -> None:
        """Show the task of the target played from ``folder`` (read once per folder)."""
        if folder not in self._cache:
            self._cache[folder] = instructions_html(folder)
        self.text.setText(self._cache[folder])

    def clear(self) -> None:
        self.text.setText("")
