"""VerdictView: the tester's verdict, per-criterion judgments, provenance and human overrides.

Judgments are append-only: an override is a new row and "undo" is another row
that cancels the newest override in force (:meth:`Database.undo_override`).
The effective verdict shown here is derived by the store, never stored.
An override needs intent: *Pass* / *Fail* open :class:`OverrideDialog`, which
shows what changes and records nothing without a reason; the name recorded
is the user's one identity (:mod:`app.views.widgets.identity`), shared with
labelling.
"""

from __future__ import annotations

import html
import time
from typing import Any

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView, QDialog, QFrame, QHBoxLayout, QHeaderView, QLabel, QPushButton, QScrollArea, QSplitter, QTreeWidget,
    QTreeWidgetItem, QVBoxLayout, QWidget,
)

from app.engine.trace.repair_plays import REPAIR_KIND
from app.views.model.run_offers import run_offers
from app.views.run.override_dialog import OverrideDialog
from app.views.widgets.identity import IDENTITY_KEY, ask_identity, identity, set_identity
from app.views.widgets.verdict_style import NO_VERDICT_COLOR, verdict_badge_html, verdict_color
from app.views.widgets.step_number import step_number

AUTHOR_KEY = IDENTITY_KEY
"""QSettings key of the name recorded with the user's overrides: the one identity."""
TIME_FORMAT = "%Y-%m-%d %H:%M:%S"
SHORT_TIME_FORMAT = "%m-%d %H:%M:%S"
REASON_CHARS = 110
"""The tester's reason is cut to this many characters (full text in the tooltip)."""


def _when(t: Any, fmt: str = TIME_FORMAT) -> str:
    return time.strftime(fmt, time.localtime(float(t))) if t else ""


class VerdictView(QWidget):
    sig_verdict_changed = Signal(int)
    """Emitted with the run id after an override or an undo was appended."""
    sig_changed = Signal(object)
    """Emitted with the :class:`~app.views.model.changes.Changes` an override or an undo made."""
    sig_undo_available = Signal(bool)
    """Emitted after every re-read: whether the run has a human override in force that Undo would cancel."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("VerdictView")
        self._database: Any = None
        self._run_id: int | None = None
        self._run: dict[str, Any] = {}
        self._model: Any = None

        self.badge = QLabel(self)
        self.badge.setTextFormat(Qt.TextFormat.RichText)
        self.provenance = QLabel(self)
        self.provenance.setObjectName("Muted")
        self.provenance.setWordWrap(True)
        self.tester_line = QLabel(self)
        self.tester_line.setWordWrap(True)
        self.tester_line.setTextFormat(Qt.TextFormat.RichText)
        self.tester_line.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.criteria = self._tree(("Criterion", "Verdict", "Note / evidence"))
        self.history = self._tree(("Judged at (newest first)", "Who", "Verdict", "Note"))

        self.pass_button = QPushButton("Pass…", self)
        self.pass_button.setObjectName("PassButton")
        self.pass_button.setToolTip("Override: the run passes (asks why, then appends your judgment)")
        self.fail_button = QPushButton("Fail…", self)
        self.fail_button.setObjectName("FailButton")
        self.fail_button.setToolTip("Override: the run fails (asks why, then appends your judgment)")
        self._pass_tip, self._fail_tip = self.pass_button.toolTip(), self.fail_button.toolTip()
        self.undo_button = QPushButton("Undo", self)
        self.undo_button.setToolTip("Append an undo for the newest human override (Ctrl+Z)")

        head = QHBoxLayout()
        head.addWidget(self.badge, 0, Qt.AlignmentFlag.AlignTop)
        head.addWidget(self.provenance, 1)
        self.buttons = QWidget(self)
        buttons = QHBoxLayout(self.buttons)
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(QLabel("Your verdict:", self))
        buttons.addWidget(self.pass_button)
        buttons.addWidget(self.fail_button)
        buttons.addStretch(1)
        buttons.addWidget(self.undo_button)
        left = QVBoxLayout()
        left.setContentsMargins(0, 0, 0, 0)
        left.addLayout(head)
        left.addWidget(self.tester_line)
        left.addStretch(1)
        left.addWidget(self.buttons)

        lists = QSplitter(Qt.Orientation.Vertical, self)
        lists.addWidget(self.criteria)
        lists.addWidget(self.history)
        lists.setChildrenCollapsible(False)

        # The tab can be short: the content scrolls instead of being squeezed (a wrapped reason cut in half,
        # the criteria drawn over the history's header).
        content = QWidget(self)
        layout = QHBoxLayout(content)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.setSpacing(12)
        layout.addLayout(left, 2)
        layout.addWidget(lists, 3)
        self.scroller = QScrollArea(self)
        self.scroller.setWidgetResizable(True)
        self.scroller.setFrameShape(QFrame.Shape.NoFrame)
        self.scroller.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroller.setWidget(content)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.scroller)

        self.pass_button.clicked.connect(self._on_pass_button_clicked)
        self.fail_button.clicked.connect(self._on_fail_button_clicked)
        self.undo_button.clicked.connect(self._on_undo_button_clicked)
        self.set_run(None, None)

    def _tree(self, headers: tuple[str, ...]) -> QTreeWidget:
        tree = QTreeWidget(self)
        tree.setHeaderLabels(list(headers))
        tree.setRootIsDecorated(False)
        tree.setUniformRowHeights(True)
        tree.setAlternatingRowColors(True)
        tree.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        tree.header().setStretchLastSection(True)
        tree.header().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        tree.setMinimumHeight(70)
        return tree

    # -- public API -------------------------------------------------------------------
    def set_run(self, database: Any, run_id: int | None) -> None:
        self._database = database
        self._run_id = run_id
        self.refresh()

    def bind(self, model: Any) -> None:
        """Follow the workbench model: its ``verdict`` and ``overrides`` events re-read the run shown when it is
        the model's run, so an override or undo made elsewhere (the labelling window, another process the
        model re-read) shows here at once, and Undo is enabled exactly while the model holds an override."""
        self._model = model
        model.events.verdict.connect(self._on_model_verdict_changed)
        model.events.overrides.connect(self._on_model_overrides_changed)

    def _follows_model(self) -> bool:
        return self._model is not None and self._run_id is not None and self._model.run_id == self._run_id

    def refresh(self) -> None:
        """Re-read the run's judgments and findings from the database."""
        db, run_id = self._database, self._run_id
        self.criteria.clear()
        self.history.clear()
        if db is None or run_id is None:
            self._run = {}
            self.badge.setText(verdict_badge_html(None, size="large"))
            self.provenance.setText("No run selected.")
            self.tester_line.setText("")
            self._set_override_enabled(False)
            return
        run = self._run = db.run(run_id)
        offers = run_offers(run)
        self.buttons.setVisible(offers.overridable)  # a repair's result is the repair's, not a verdict to override
        judgments = db.judgments(run_id)
        findings = db.findings(run_id)
        if self._follows_model():
            effective, undoable = self._model.verdict, bool(self._model.overrides)
        else:
            effective = db.effective_verdict(run_id, tester_verdict=run.get("verdict"))
            undoable = _undoable(judgments)
        self.badge.setText(verdict_badge_html(effective, size="large"))
        self.provenance.setText(self._provenance(db, run_id, run))
        reason = str(run.get("reason") or run.get("error") or "")
        short = reason if len(reason) <= REASON_CHARS else reason[: REASON_CHARS - 1].rstrip() + "…"
        tester = run.get("verdict")
        self.tester_line.setText(
            f"<b>Tester</b> ({html.escape(str(run.get('tester')))}) said "
            f"{verdict_badge_html(tester) if tester else '<i>nothing yet</i>'} · "
            f"<b>{len(findings)}</b> finding{'s' if len(findings) != 1 else ''}"
            f'<br><span style="color:{NO_VERDICT_COLOR}">{html.escape(short)}</span>'
        )
        self.tester_line.setToolTip(reason if short != reason else "")
        self._fill_criteria(db, run_id, judgments, findings)
        self._fill_history(judgments)
        self._set_override_enabled(offers.override, undo=undoable, why_not=offers.override_note)
        if run.get("kind") == REPAIR_KIND:
            self.provenance.setText("A repair session: its verdict is the repair's result (fixed or not). Its cycles, "
                                    "patches and plays are in the repair window.")

    def request_override(self, verdict: str) -> int | None:
        """*Pass…* / *Fail…*: confirm in :class:`OverrideDialog` (reason required, name asked only the first
        time), then append; None when the user cancelled."""
        if self._database is None or self._run_id is None:
            return None
        settings = QSettings()
        current = self._database.effective_verdict(self._run_id, tester_verdict=self._run.get("verdict"))
        dialog = OverrideDialog(verdict, current, self._run_id, name=identity(settings), parent=self)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        if dialog.asks_name:
            set_identity(settings, dialog.name())
        return self.override(verdict, dialog.reason())

    def override(self, verdict: str, note: str) -> int | None:
        """Append a human judgment with its reason; returns its id, or None without a reason or a name."""
        if self._database is None or self._run_id is None or not note.strip():
            return None
        author = self.author()
        if author is None:
            return None
        jid, changes = self._database.add_override(self._run_id, author=author, verdict=verdict, note=note.strip())
        self.refresh()
        self.sig_changed.emit(changes)
        self.sig_verdict_changed.emit(self._run_id)
        return int(jid)

    def undo(self) -> int | None:
        """Append an undo of the newest human override in force; None when there is none."""
        if self._database is None or self._run_id is None:
            return None
        author = self.author()
        if author is None:
            return None
        jid, changes = self._database.undo_override(self._run_id, author)
        if jid is not None:
            self.refresh()
            self.sig_changed.emit(changes)
            self.sig_verdict_changed.emit(self._run_id)
        return jid

    def author(self) -> str | None:
        """The user's one identity; asked once (and remembered) when none is set."""
        return ask_identity(self, QSettings())

    # -- rendering ------------------------------------------------------------------------
    @staticmethod
    def _provenance(db: Any, run_id: int, run: dict[str, Any]) -> str:
        active = db.active_judgments(run_id)
        humans = [r for r in active if r["source"] == "human"]
        if humans:
            h = humans[-1]
            return f"Human override by {h['author']} at {_when(h['at'])}" + (f" — “{h['note']}”" if h.get("note") else "")
        testers = [r for r in active if r["source"] == "tester"]
        if testers:
            return f"From the tester ({run.get('tester')}) at {_when(testers[-1]['at'])}"
        if run.get("status") == "running":
            return "The run is still going; the tester has not judged it yet."
        return "No verdict was recorded for this run."

    def _fill_criteria(self, db: Any, run_id: int, judgments: list[dict[str, Any]],
                       findings: list[dict[str, Any]]) -> None:
        criteria = list(dict.fromkeys(j["criterion"] for j in judgments if j.get("criterion") is not None))
        self.criteria.setVisible(bool(criteria))
        for cid in criteria:
            verdict = db.effective_verdict(run_id, criterion=cid)
            active = db.active_judgments(run_id, cid)
            note = str(active[-1].get("note") or "") if active else ""
            evidence = [f for f in findings if f.get("criterion") == cid]
            if evidence:
                note += ("; " if note else "") + "; ".join(f"step {step_number(f['step']) if f.get('step') is not None else '?'}: {f.get('message')}" for f in evidence)
            item = QTreeWidgetItem([cid, verdict or "—", note])
            item.setForeground(1, QBrush(verdict_color(verdict)))
            item.setToolTip(2, note)
            self.criteria.addTopLevelItem(item)

    def _fill_history(self, judgments: list[dict[str, Any]]) -> None:
        undone = {j["undoes"] for j in judgments if j.get("undoes") is not None}
        bold = QFont(self.font())
        bold.setBold(True)
        for j in reversed(judgments):
            who = f"{j['author']} ({j['source']})" if j["author"] != j["source"] else str(j["source"])
            verdict = j.get("verdict") or ("undo" if j.get("undoes") is not None else "—")
            scope = f" [{j['criterion']}]" if j.get("criterion") else ""
            item = QTreeWidgetItem([_when(j.get("at"), SHORT_TIME_FORMAT), who, verdict + scope, str(j.get("note") or "")])
            item.setToolTip(0, _when(j.get("at")))
            item.setToolTip(3, str(j.get("note") or ""))
            if j.get("verdict"):
                item.setForeground(2, QBrush(verdict_color(j["verdict"])))
            if j["id"] in undone:
                font = QFont(self.font())
                font.setStrikeOut(True)
                for col in range(4):
                    item.setFont(col, font)
                    item.setForeground(col, QBrush(QColor(NO_VERDICT_COLOR)))
            elif j["source"] == "human" and j.get("undoes") is None:
                item.setFont(2, bold)
            self.history.addTopLevelItem(item)

    def _set_override_enabled(self, enabled: bool, *, undo: bool = False, why_not: str = "") -> None:
        self.pass_button.setEnabled(enabled)
        self.fail_button.setEnabled(enabled)
        for button, tip in ((self.pass_button, self._pass_tip), (self.fail_button, self._fail_tip)):
            button.setToolTip(tip if enabled or not why_not else why_not)
        self.undo_button.setEnabled(enabled and undo)
        self.undo_button.setToolTip("Append an undo for the newest human override (Ctrl+Z)" if enabled and undo else
                                    "Nothing to undo: no human override of this run is in force")
        self.sig_undo_available.emit(enabled and undo)

    @property
    def can_undo(self) -> bool:
        return self.undo_button.isEnabled()

    # -- handlers -----------------------------------------------------------------------------
    def _on_pass_button_clicked(self) -> None:
        self.request_override("pass")

    def _on_fail_button_clicked(self) -> None:
        self.request_override("fail")

    def _on_undo_button_clicked(self) -> None:
        self.undo()

    def _on_model_verdict_changed(self, _verdict: Any) -> None:
        if self._follows_model():
            self.refresh()

    def _on_model_overrides_changed(self, _overrides: Any) -> None:
        if self._follows_model():
            self.refresh()


def _undoable(judgments: list[dict[str, Any]]) -> bool:
    """Is a human override of the whole run in force (the rule of :meth:`Database.undo_override`)?"""
    rows = [j for j in judgments if j.get("criterion") is None]
    undone = {j["undoes"] for j in rows if j.get("undoes") is not None}
    return any(j["source"] == "human" and j.get("undoes") is None and j["id"] not in undone for j in rows)
