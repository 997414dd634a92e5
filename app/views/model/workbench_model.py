"""WorkbenchModel: the open database, the run shown, its verdict and the live state — an event per field.

The one broadcast of the workbench (napari's ``EventedModel``, Anki's
``OpChanges``): views subscribe to the fields they show and to ``changed``;
the engine bridge, the commands and long tasks write here.  A field set to
the value it holds emits nothing, and :meth:`WorkbenchModel.apply` tells the
views only what is news: a report that arrives while a change is being told
(the run list re-reading the runs that change named) is passed on only for
what it adds, and every change names its initiator, so the view whose work it
was skips it.  Qt-free, so it can be tested and driven without a display."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.views.model.changes import Changes
from app.views.model.database import READ_ERRORS, Database
from app.views.model.evented import EventedModel
from app.views.model.run_reads import RunReads


class WorkbenchModel(EventedModel):
    FIELDS = ("database", "run_id", "run", "verdict", "overrides", "live_run_id", "live_state")
    EVENTS = ("changed",)

    def __init__(self) -> None:
        super().__init__()
        self.database: Database | None = None
        self.run_id: int | None = None
        """The run the workbench shows (the run list's selection, the run view's run)."""
        self.run: dict[str, Any] | None = None
        """Its row, as last read."""
        self.verdict: str | None = None
        """Its effective verdict (the tester's unless a human override is in force)."""
        self.overrides: tuple[int, ...] = ()
        """Ids of the human overrides of the whole run in force."""
        self.live_run_id: int | None = None
        self.live_state: str | None = None
        """The live run's control state (running, paused, …); None when no run is live."""
        self._telling: Changes | None = None
        """The changes being told to the views right now (a report inside them adds only its news)."""

    @property
    def path(self) -> Path | None:
        return self.database.path if self.database is not None else None

    @property
    def store(self) -> Any:
        """The engine store under the open database (for engine code and tests; views never use it)."""
        return self.database.store if self.database is not None else None

    @property
    def reads(self) -> RunReads:
        """The reads of a run beside its steps (logs, model calls, film, reference frames), on the open database."""
        return RunReads(self.database)

    def open_database(self, path: Path) -> Database:
        """Open ``path`` (created when missing) and make it the workbench's; raises StoreError or OSError
        (the previous database stays open then)."""
        database = Database.open(path)
        old = self.database
        self.use_database(database)
        if old is not None:
            old.close()
        return database

    def use_database(self, database: Database | None) -> None:
        """Make ``database`` the workbench's (its opener closes it; a view alone is handed one by a test)."""
        self.select_run(None)
        self.database = database

    def close_database(self) -> None:
        old = self.database
        self.use_database(None)
        if old is not None:
            old.close()

    def select_run(self, run_id: int | None) -> None:
        """The run now shown: its verdict, overrides and row are read first, so a view told of ``run_id`` finds
        them in place (and one told of ``run``, its verdict)."""
        run, verdict, overrides = self._read(run_id)
        self.verdict, self.overrides, self.run = verdict, overrides, run
        self.run_id = run_id

    def reload_run(self) -> None:
        """Read the current run's row, effective verdict and overrides again (each field tells only a change)."""
        run, self.verdict, self.overrides = self._read(self.run_id)
        self.run = run

    def _read(self, run_id: int | None) -> tuple[dict[str, Any] | None, str | None, tuple[int, ...]]:
        db = self.database
        if db is None or run_id is None:
            return None, None, ()
        try:
            run = db.run(run_id)
            verdict = db.effective_verdict(run_id, tester_verdict=run.get("verdict"))
            active = db.active_judgments(run_id)
        except READ_ERRORS + (KeyError,):
            return None, None, ()
        return run, verdict, tuple(int(j["id"]) for j in active if j.get("source") == "human")

    def apply(self, changes: Changes, initiator: Any = None) -> None:
        """Work changed the database: re-read what of it the model holds, then tell the views (``initiator``:
        whose work it was; that view skips the news).  A run it added becomes the run shown."""
        if self._telling is not None:
            changes = changes.beyond(self._telling)
        if changes.empty:
            return
        changes = changes.by(initiator)
        outer = self._telling
        self._telling = changes if outer is None else outer | changes
        try:
            if changes.touches(self.run_id) or (changes.verdict and not changes.runs):
                self.reload_run()
            self.events.changed.emit(changes)
        finally:
            self._telling = outer
        if changes.added is not None:
            self.select_run(changes.added)

    def set_live(self, run_id: int | None, state: str | None) -> None:
        self.live_run_id = run_id
        self.live_state = state
