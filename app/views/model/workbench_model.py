"""WorkbenchModel: the open database, the current run, its verdict and the live state — an event per field.

The main window owns one.  It opens and closes the database (views receive
the :class:`Database` through ``events.database``), knows which run is shown
and what the live run is doing, and applies :class:`Changes` that work
returns: ``events.changed`` carries them, so the run list re-reads only when
runs changed and the run view only when its run did.  Qt-free, so it can be
tested and driven without a display."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.views.model.changes import Changes
from app.views.model.database import READ_ERRORS, Database
from app.views.model.evented import EventedModel


class WorkbenchModel(EventedModel):
    FIELDS = ("database", "run_id", "run", "verdict", "overrides", "live_run_id", "live_state")
    EVENTS = ("changed",)

    def __init__(self) -> None:
        super().__init__()
        self.database: Database | None = None
        self.run_id: int | None = None
        """The run the run view shows."""
        self.run: dict[str, Any] | None = None
        """Its row, as last read."""
        self.verdict: str | None = None
        """Its effective verdict (the tester's unless a human override is in force)."""
        self.overrides: tuple[int, ...] = ()
        """Ids of the human overrides of the whole run in force."""
        self.live_run_id: int | None = None
        self.live_state: str | None = None
        """The live run's control state (running, paused, …); None when no run is live."""

    @property
    def path(self) -> Path | None:
        return self.database.path if self.database is not None else None

    @property
    def store(self) -> Any:
        """The engine store under the open database (for engine code and tests)."""
        return self.database.store if self.database is not None else None

    def open_database(self, path: Path) -> Database:
        """Open ``path`` (created when missing) and make it the workbench's; raises StoreError or OSError
        (the previous database stays open then)."""
        database = Database.open(path)
        old = self.database
        self.select_run(None)
        self.database = database
        if old is not None:
            old.close()
        return database

    def close_database(self) -> None:
        old = self.database
        self.select_run(None)
        self.database = None
        if old is not None:
            old.close()

    def select_run(self, run_id: int | None) -> None:
        """The run now shown; reads its row and verdict."""
        self.run_id = run_id
        self.reload_run()

    def reload_run(self) -> None:
        """Read the current run's row, effective verdict and overrides again."""
        db, run_id = self.database, self.run_id
        if db is None or run_id is None:
            self.run, self.verdict, self.overrides = None, None, ()
            return
        try:
            run = db.run(run_id)
            verdict = db.effective_verdict(run_id, tester_verdict=run.get("verdict"))
            active = db.active_judgments(run_id)
        except READ_ERRORS + (KeyError,):
            self.run, self.verdict, self.overrides = None, None, ()
            return
        self.run = run
        self.verdict = verdict
        self.overrides = tuple(int(j["id"]) for j in active if j.get("source") == "human")

    def apply(self, changes: Changes) -> None:
        """Work changed the database: re-read what of it the model holds, then tell the views."""
        if changes.empty:
            return
        if changes.touches(self.run_id) or (changes.verdict and not changes.runs):
            self.reload_run()
        self.events.changed.emit(changes)

    def set_live(self, run_id: int | None, state: str | None) -> None:
        self.live_run_id = run_id
        self.live_state = state
