"""RunBrowserView: the searchable, sortable list of runs on the left of the workbench.

The list follows the database by itself (:class:`RunListWatcher`, every read
on a connection of its own); :meth:`RunBrowserView.refresh` (F5) reads the
whole list at once on a fresh connection too, so no connection left inside
an old read transaction anywhere (the workbench's own included) can show the
list as it was.
"""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import QEvent, QItemSelection, QItemSelectionModel, QObject, QPoint, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView, QComboBox, QHBoxLayout, QHeaderView, QLabel, QLineEdit, QMenu, QTableView, QVBoxLayout,
    QWidget,
)

from app.views.browser.run_list_watcher import RunListRead, RunListWatcher
from app.views.browser.runs_model import COLUMN_OF, COLUMNS, RunsModel
from app.engine.rubric.record import REPLAY_KIND
from app.engine.trace.repair_plays import REPAIR_KIND, REPAIR_PLAY_KIND
from app.views.model.changes import Changes
from app.views.model.database import READ_ERRORS, Database
from app.views.model.workbench_model import WorkbenchModel
from app.views.browser.runs_proxy import NO_VERDICT, RunsProxyModel

log = logging.getLogger(__name__)

VERDICT_FILTERS: tuple[tuple[str, str | None], ...] = (
    ("All verdicts", None),
    ("Pass", "pass"),
    ("Fail", "fail"),
    ("Error", "error"),
    ("Uncertain", "uncertain"),
    ("No verdict", NO_VERDICT),
)
KIND_FILTERS: tuple[tuple[str, str | None], ...] = (
    ("All runs", None),
    ("Test runs", "test"),
    ("Repair sessions", REPAIR_KIND),
    ("Repair plays", REPAIR_PLAY_KIND),
    ("Recorder replays", REPLAY_KIND),
)
"""A repair's plays are runs of its buggy or patched copy, not of the app: they can be shown apart or hidden."""
COLUMN_SAMPLES = {"id": "9999", "bug": "wrong-subtr", "tester": "offline", "effective_verdict": "pass ✎",
                  "step_count": "1000", "status": "completed", "started_at": "2026-01-01 00:00"}
"""Typical cell texts: column widths are computed from these once, not measured over every row."""
SORT_ARROW_PX = 10
CELL_PADDING_PX = 12
DEFAULT_HIDDEN = frozenset({"tester", "started_at"})
"""Columns hidden until the user shows them (right-click the header); keeps the pane narrow."""


class RunBrowserView(QWidget):
    sig_run_selected = Signal(int)
    """Emitted with the run id when the user (or :meth:`select_run`) makes a run current."""
    sig_runs_changed = Signal(object)
    """Emitted with the set of run ids whose rows changed, appeared or went away at a re-read."""
    sig_run_activated = Signal(int, bool)
    """Emitted with (run id, by a click) when the user clicked a run or pressed Enter / double-clicked it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("RunBrowser")
        self._database: Database | None = None
        self.reads = 0
        """Whole-list reads done by :meth:`refresh` (F5, a run started or imported)."""
        self.model = RunsModel(self)
        self.proxy = RunsProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.watcher = RunListWatcher(self, baseline=lambda: (self.model.generation, self.model.known()))
        self.watcher.sig_runs_read.connect(self._on_watcher_runs_read)

        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Search target, tester, verdict…")
        self.search.setClearButtonEnabled(True)
        self.verdict_filter = QComboBox(self)
        for label, value in VERDICT_FILTERS:
            self.verdict_filter.addItem(label, value)
        self.kind_filter = QComboBox(self)
        self.kind_filter.setToolTip("Show all runs, or only test runs, repair sessions or a repair's plays")
        for label, value in KIND_FILTERS:
            self.kind_filter.addItem(label, value)

        self.table = QTableView(self)
        self.table.setModel(self.proxy)
        self.table.viewport().installEventFilter(self)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(COLUMN_OF["id"], Qt.SortOrder.DescendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setShowGrid(False)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(26)
        header = self.table.horizontalHeader()
        header.setHighlightSections(False)
        header.setStretchLastSection(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        metrics = self.table.fontMetrics()
        for key, sample in COLUMN_SAMPLES.items():
            heading = COLUMNS[COLUMN_OF[key]][1]
            width = max(metrics.horizontalAdvance(sample), metrics.horizontalAdvance(heading) + SORT_ARROW_PX)
            self.table.setColumnWidth(COLUMN_OF[key], width + CELL_PADDING_PX)
        header.setSectionResizeMode(COLUMN_OF["target"], QHeaderView.ResizeMode.Stretch)
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(self._on_header_menu_requested)
        self._hidden: set[str] = set(DEFAULT_HIDDEN)
        self._has_bugs = False
        self._apply_hidden_columns()

        self.count_label = QLabel(self)
        self.count_label.setObjectName("Muted")

        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.search, 1)
        top.addWidget(self.verdict_filter)
        top.addWidget(self.kind_filter)
        title = QLabel("Runs", self)
        title.setObjectName("PaneTitle")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 4, 6)
        layout.setSpacing(6)
        layout.addWidget(title)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.count_label)

        self.search.textChanged.connect(self._on_search_text_changed)
        self.verdict_filter.currentIndexChanged.connect(self._on_verdict_filter_changed)
        self.kind_filter.currentIndexChanged.connect(self._on_kind_filter_changed)
        self.table.clicked.connect(lambda index: self._on_table_activated(index, True))
        self.table.activated.connect(lambda index: self._on_table_activated(index, False))
        self.table.selectionModel().selectionChanged.connect(self._on_table_selection_changed)
        self.proxy.rowsInserted.connect(self._update_count)
        self.proxy.rowsRemoved.connect(self._update_count)
        self.proxy.modelReset.connect(self._update_count)
        self.proxy.layoutChanged.connect(self._update_count)

    # -- public API ------------------------------------------------------------
    def bind(self, model: WorkbenchModel) -> None:
        """Follow the workbench model: its database is the one listed, its run is the one selected, and work
        that changed runs makes the list read again; what the list finds changed by itself (another process,
        F5) and the run the user selects go to the model."""
        model.events.database.connect(self._on_model_database_changed)
        model.events.run_id.connect(self._on_model_run_id_changed)
        model.events.changed.connect(self._on_model_changed)
        self.sig_runs_changed.connect(lambda run_ids: model.apply(Changes(runs=frozenset(run_ids)), initiator=self))
        self.sig_run_selected.connect(model.select_run)
        if model.database is not None:
            self.set_database(model.database)

    def set_database(self, database: Database | None) -> None:
        """Show the runs of ``database`` and follow its file for changes made by any process; the search text
        and the filters start empty (those of another database would make this one look empty)."""
        self._database = database
        self.model.clear()
        self.search.clear()
        self.verdict_filter.setCurrentIndex(0)
        self.kind_filter.setCurrentIndex(0)
        self.watcher.watch(database.path if database is not None else None)  # first: a change during the read below is not missed
        self.refresh()

    def stop_watching(self) -> None:
        self.watcher.stop()

    def refresh(self) -> None:
        """Re-read the whole list now (one query, on a fresh connection); selection and scroll position are
        kept, and the watcher goes on from what this read saw."""
        if self._database is None:
            self.model.clear()
            return
        self.reads += 1
        try:
            rows, mark = self._read_all()
        except READ_ERRORS as exc:  # a writer holding the file too long: the watcher reads again
            log.warning("could not read the runs: %s", exc)
            self.watcher.forget()
            return
        self._apply_rows(rows)
        self.watcher.seed(mark)  # the watcher's next read asks only for what changed after this one

    def _read_all(self) -> tuple[list[dict[str, Any]], Any]:
        assert self._database is not None
        return self._database.fresh_run_list()

    def _apply_rows(self, rows: list[dict[str, Any]]) -> None:
        self._apply_changes(self.model.set_rows(rows), any(r.get("bug") for r in rows))

    def _apply_changes(self, changed: set[int], has_bugs: bool) -> None:
        if has_bugs != self._has_bugs:
            self._has_bugs = has_bugs
            self._apply_hidden_columns()
        self._update_count()
        if changed:
            self.sig_runs_changed.emit(changed)

    def select_run(self, run_id: int) -> bool:
        """Make ``run_id`` the current run (clearing filters that hide it); False if it is not there."""
        row = self.model.row_of(run_id)
        if row is None:
            return False
        proxy_index = self.proxy.mapFromSource(self.model.index(row, 0))
        if not proxy_index.isValid():
            self.search.clear()
            self.verdict_filter.setCurrentIndex(0)
            self.kind_filter.setCurrentIndex(0)
            proxy_index = self.proxy.mapFromSource(self.model.index(row, 0))
        self.table.selectionModel().setCurrentIndex(
            proxy_index,
            QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows,
        )
        self.table.scrollTo(proxy_index)
        return True

    def current_run_id(self) -> int | None:
        rows = self.table.selectionModel().selectedRows()
        return self.proxy.run_id_at(rows[0].row()) if rows else None

    def set_column_visible(self, key: str, visible: bool) -> None:
        (self._hidden.discard if visible else self._hidden.add)(key)
        self._apply_hidden_columns()

    def _apply_hidden_columns(self) -> None:
        for key, column in COLUMN_OF.items():
            hidden = key in self._hidden or (key == "bug" and not self._has_bugs)
            self.table.setColumnHidden(column, hidden)

    # -- holding the order under the pointer ------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """While the pointer is over the list, rows keep their places: runs that change (a bench writing)
        are not re-sorted and new ones join at the end; the order is made whole again when it leaves."""
        if watched is self.table.viewport():
            if event.type() == QEvent.Type.Enter:
                self.hold_order(True)
            elif event.type() == QEvent.Type.Leave:
                self.hold_order(False)
        return super().eventFilter(watched, event)

    def hold_order(self, hold: bool) -> None:
        """Hold (True) or release the order of the rows; releasing sorts them again."""
        if hold == (not self.proxy.dynamicSortFilter()):
            return
        self.proxy.setDynamicSortFilter(not hold)
        if not hold:
            self.proxy.invalidate()  # filters and order catch up with what changed meanwhile

    @property
    def order_held(self) -> bool:
        return not self.proxy.dynamicSortFilter()

    # -- handlers ----------------------------------------------------------------
    def _on_model_database_changed(self, database: Database | None) -> None:
        if database is not None:  # closing: the list goes with the window
            self.set_database(database)

    def _on_model_run_id_changed(self, run_id: int | None) -> None:
        if run_id is not None:
            self.select_run(run_id)

    def _on_model_changed(self, changes: Changes) -> None:
        """Work changed runs: read the list again (unless the news is the list's own)."""
        if changes.initiator is not self and (changes.verdict or changes.run_list or changes.runs):
            self.refresh()

    def _on_watcher_runs_read(self, read: RunListRead) -> None:
        if self._database is None:
            return
        if read.generation == self.model.generation:  # the usual case: apply only what changed
            has_bugs = read.has_bugs if read.complete else self._has_bugs or read.has_bugs
            self._apply_changes(self.model.apply_delta(read.delta), has_bugs)
        elif read.complete:  # the list changed meanwhile (F5): merge the whole read
            self._apply_rows(read.rows)
        else:  # a read of the changes against rows no longer shown: read everything again
            self.watcher.forget()
            self.watcher.read_now()

    def _on_header_menu_requested(self, pos: QPoint) -> None:
        menu = QMenu(self)
        for key, title in COLUMNS:
            if key == "id":
                continue
            action = menu.addAction(title)
            action.setCheckable(True)
            action.setChecked(key not in self._hidden)
            action.toggled.connect(lambda on, k=key: self.set_column_visible(k, on))
        menu.exec(self.table.horizontalHeader().mapToGlobal(pos))

    def _on_search_text_changed(self, text: str) -> None:
        self.proxy.set_search(text)

    def _on_verdict_filter_changed(self, _index: int) -> None:
        self.proxy.set_verdict(self.verdict_filter.currentData())

    def _on_kind_filter_changed(self, _index: int) -> None:
        self.proxy.set_kind(self.kind_filter.currentData())

    def _on_table_activated(self, index: Any, clicked: bool) -> None:
        run_id = self.proxy.run_id_at(index.row()) if index.isValid() else None
        if run_id is not None:
            self.sig_run_activated.emit(run_id, clicked)

    def run_row(self, run_id: int) -> dict[str, Any] | None:
        """The list's row of ``run_id`` (kind, repair link …) as last read; None when it is not listed."""
        row = self.model.row_of(run_id)
        return self.model.run_at(row) if row is not None else None

    def _on_table_selection_changed(self, selected: QItemSelection, _deselected: QItemSelection) -> None:
        indexes = selected.indexes()
        if indexes:
            run_id = self.proxy.run_id_at(indexes[0].row())
            if run_id is not None:
                self.sig_run_selected.emit(run_id)

    def _update_count(self, *_args: Any) -> None:
        shown, total = self.proxy.rowCount(), self.model.rowCount()
        self.count_label.setText(f"{total} runs" if shown == total else f"{shown} of {total} runs")
