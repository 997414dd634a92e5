"""FindingsView: every finding of the run; clicking one jumps to its step."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QAbstractItemView, QListWidget, QListWidgetItem, QWidget

from app.engine.judge.oracles import FAILING_KINDS
from app.views.widgets.verdict_style import NO_VERDICT_COLOR, VERDICT_COLORS
from app.views.widgets.step_number import step_number

STEP_ROLE = Qt.ItemDataRole.UserRole + 1


class FindingsView(QListWidget):
    sig_step_requested = Signal(int)
    """Emitted with a step index when the user activates a finding tied to a step."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Findings")
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setWordWrap(True)
        self.setUniformItemSizes(False)
        self.itemClicked.connect(self._on_item_activated)
        self.itemActivated.connect(self._on_item_activated)
        self.set_findings([])

    def set_findings(self, findings: list[dict[str, Any]]) -> None:
        self.clear()
        if not findings:
            item = QListWidgetItem("No findings: no oracle fired in this run.")
            item.setFlags(Qt.ItemFlag.NoItemFlags)
            item.setForeground(QBrush(QColor(NO_VERDICT_COLOR)))
            self.addItem(item)
            return
        for f in findings:
            step = f.get("step")
            where = f"step {step_number(step)}" if step is not None else "run"
            criterion = f" [{f['criterion']}]" if f.get("criterion") else ""
            item = QListWidgetItem(f"{where} · {f.get('kind')}{criterion}: {f.get('message')}")
            item.setData(STEP_ROLE, step)
            item.setToolTip("Click to show this step" if step is not None else "Not tied to a step")
            if f.get("kind") in FAILING_KINDS:
                item.setForeground(QBrush(QColor(VERDICT_COLORS["fail"])))
            elif step is None:
                item.setForeground(QBrush(QColor(NO_VERDICT_COLOR)))
            self.addItem(item)

    def finding_count(self) -> int:
        return sum(1 for i in range(self.count()) if self.item(i).flags() != Qt.ItemFlag.NoItemFlags)

    def _on_item_activated(self, item: QListWidgetItem) -> None:
        step = item.data(STEP_ROLE)
        if step is not None:
            self.sig_step_requested.emit(int(step))

