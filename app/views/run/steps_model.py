"""StepsModel: the steps of one run, fetched lazily in chunks, with thumbnails.

A run can hold tens of thousands of steps, so rows arrive through Qt's
``canFetchMore``/``fetchMore`` protocol, :data:`FETCH_CHUNK` at a time, as a
view scrolls.  During a live run the workbench tells the model how many steps
exist now (:meth:`StepsModel.set_available`); when every earlier row was
already loaded the new ones are appended at once so the timeline follows.
The same model feeds the text timeline and the film strip: ``DecorationRole``
is the "after" frame's thumbnail, decoded on first request by a
:class:`~app.views.widgets.frame_cache.FrameCache`.
"""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor

from app.engine.judge.oracles import FAILING_KINDS
from app.engine.play.actions import ActionParseError, action_from_dict, action_to_call
from app.views.widgets.frame_cache import FrameCache
from app.views.widgets.verdict_style import VERDICT_COLORS, outcome_color
from app.views.widgets.step_number import step_text

FETCH_CHUNK = 200
STEP_ROLE = Qt.ItemDataRole.UserRole + 1
"""The step's row dict (as ``store.steps`` returns it)."""
CAPTION_ROLE = Qt.ItemDataRole.UserRole + 2
"""The action in call form, e.g. ``click(120, 80)``."""
IDX_ROLE = Qt.ItemDataRole.UserRole + 3
BADGE_ROLE = Qt.ItemDataRole.UserRole + 4
"""``(text, QColor)`` of the step's badge: see :func:`step_badge`."""

AnyIndex = QModelIndex | QPersistentModelIndex


def action_caption(action: Any) -> str:
    """``click(120, 80)`` for a stored action dict; the raw JSON when it does not parse."""
    if not isinstance(action, dict):
        return str(action)
    try:
        return action_to_call(action_from_dict(action))
    except ActionParseError:
        return json.dumps(action, separators=(",", ":"))


def step_badge(step: dict[str, Any], kinds: list[str]) -> tuple[str, QColor]:
    """What a step's badge says: the kind of the first failing finding raised at it (a crash step is badged
    ``crash``, not ``ok``), else how its action went (``ok``, ``refused``, ``error``)."""
    failing = next((k for k in kinds if k in FAILING_KINDS), None)
    if failing is not None:
        return failing, QColor(VERDICT_COLORS["fail"])
    outcome = str(step.get("outcome") or "")
    return outcome, outcome_color(outcome)


class StepsModel(QAbstractListModel):
    def __init__(self, parent: Any = None, *, frames: FrameCache | None = None) -> None:
        super().__init__(parent)
        self._database: Any = None
        self._run_id: int | None = None
        self._rows: list[dict[str, Any]] = []
        self._available = 0
        self._kinds: dict[int, list[str]] = {}
        self.frames = frames

    # -- run selection -----------------------------------------------------------
    def set_run(self, database: Any, run_id: int | None) -> None:
        """Show ``run_id`` (None: nothing); only the step count is read now, rows come lazily."""
        self.beginResetModel()
        self._database = database
        self._run_id = run_id
        self._rows = []
        self._kinds = {}
        self._available = database.step_count(run_id) if database is not None and run_id is not None else 0
        self.endResetModel()

    def set_findings(self, findings: list[dict[str, Any]]) -> None:
        """The run's findings (``store.findings``): a finding recorded apart from its step still marks the step."""
        kinds: dict[int, list[str]] = {}
        for f in findings:
            if f.get("step") is not None:
                kinds.setdefault(int(f["step"]), []).append(str(f.get("kind")))
        if kinds != self._kinds:
            self._kinds = kinds
            if self._rows:
                self.dataChanged.emit(self.index(0, 0), self.index(len(self._rows) - 1, 0))

    def kinds_of(self, step: dict[str, Any]) -> list[str]:
        """Finding kinds raised at ``step``: those committed with it and those recorded on their own."""
        own = step.get("findings") or []
        extra = self._kinds.get(int(step["idx"]), [])
        return list(own) + [k for k in extra if k not in own]

    @property
    def run_id(self) -> int | None:
        return self._run_id

    @property
    def available(self) -> int:
        """Steps the run has in the database (loaded or not)."""
        return self._available

    def set_available(self, count: int) -> None:
        """A live run recorded more steps; rows are appended now if the model was fully loaded."""
        if self._run_id is None or count <= self._available:
            return
        was_complete = len(self._rows) == self._available
        self._available = count
        if was_complete:
            self.fetchMore(QModelIndex())

    def ensure_loaded(self, row: int) -> bool:
        """Fetch chunks until ``row`` exists; False when the run has no such row."""
        while row >= len(self._rows) and self.canFetchMore(QModelIndex()):
            before = len(self._rows)
            self.fetchMore(QModelIndex())
            if len(self._rows) == before:
                break
        return 0 <= row < len(self._rows)

    def step_at(self, row: int) -> dict[str, Any] | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def row_of_idx(self, idx: int) -> int | None:
        """Row of step number ``idx``; steps are numbered 0..n-1, so it is ``idx`` unless rows are missing."""
        if self.ensure_loaded(idx) and self._rows[idx]["idx"] == idx:
            return idx
        for row, step in enumerate(self._rows):
            if step["idx"] == idx:
                return row
        return None

    # -- lazy fetch ----------------------------------------------------------------
    def canFetchMore(self, parent: AnyIndex) -> bool:
        return not parent.isValid() and len(self._rows) < self._available

    def fetchMore(self, parent: AnyIndex) -> None:
        if parent.isValid() or self._database is None or self._run_id is None:
            return
        want = min(FETCH_CHUNK, self._available - len(self._rows))
        if want <= 0:
            return
        rows = self._database.steps(self._run_id, len(self._rows), want)
        if not rows:
            self._available = len(self._rows)  # fewer rows than announced (not committed yet)
            return
        first = len(self._rows)
        self.beginInsertRows(QModelIndex(), first, first + len(rows) - 1)
        self._rows.extend(rows)
        self.endInsertRows()

    # -- Qt model API ----------------------------------------------------------------
    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        step = self._rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return f"{step_text(step['idx'])} {self.caption_of(step)} {step_badge(step, self.kinds_of(step))[0]}".rstrip()
        if role == CAPTION_ROLE:
            return self.caption_of(step)
        if role == Qt.ItemDataRole.DecorationRole:
            return self.frames.thumbnail(step.get("frame_after")) if self.frames is not None else None
        if role == STEP_ROLE:
            return step
        if role == IDX_ROLE:
            return int(step["idx"])
        if role == BADGE_ROLE:
            return step_badge(step, self.kinds_of(step))
        if role == Qt.ItemDataRole.ForegroundRole:
            text, color = step_badge(step, self.kinds_of(step))
            return None if text == "ok" else color
        if role == Qt.ItemDataRole.ToolTipRole:
            return step.get("rationale") or None
        return None

    @staticmethod
    def caption_of(step: dict[str, Any]) -> str:
        """The step's action in call form, computed once per loaded row."""
        caption = step.get("_caption")
        if caption is None:
            caption = step["_caption"] = action_caption(step.get("action"))
        return str(caption)
