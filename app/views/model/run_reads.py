"""RunReads: the reads of one run a view shows beside its steps — log lines, model calls and usage, reference
frames, the film — each tolerant of a busy or older database.

Qt-free, handed out by the workbench model (``model.reads``).  A read that
fails with one of :data:`~app.views.model.database.READ_ERRORS` (a writer
holding the file, a database from before a table) is logged and answered
with nothing, since a view must not fail a paint over it."""

from __future__ import annotations

import logging
from typing import Any

from app.engine.trace.film_reader import FilmReader
from app.views.model.database import READ_ERRORS, Database

log = logging.getLogger(__name__)

StepTimes = list[tuple[int, float, float, bool]]


class RunReads:
    def __init__(self, database: Database | None) -> None:
        self.database = database

    def logs(self, run_id: int | None, t0: float, t1: float) -> list[dict[str, Any]]:
        """The target's log lines from ``t0`` to ``t1``."""
        if self.database is None or run_id is None:
            return []
        try:
            return list(self.database.store.logs(run_id, t0, t1))
        except READ_ERRORS as exc:
            log.warning("could not read the target log: %s", exc)
            return []

    def llm_calls(self, run_id: int | None, step: int) -> list[dict[str, Any]]:
        if self.database is None or run_id is None:
            return []
        try:
            return list(self.database.store.llm_calls(run_id, step))
        except READ_ERRORS as exc:
            log.warning("could not read the model calls: %s", exc)
            return []

    def llm_usage(self, run_id: int | None) -> dict[str, Any] | None:
        """The run's model usage; None when it made no call."""
        if self.database is None or run_id is None:
            return None
        try:
            usage: dict[str, Any] = self.database.store.llm_usage(run_id)
        except READ_ERRORS as exc:
            log.warning("could not read the model usage: %s", exc)
            return None
        return usage if usage["calls"] else None

    def has_reference_frames(self, run_id: int | None) -> bool:
        if self.database is None or run_id is None:
            return False
        try:
            return bool(self.database.store.has_reference_frames(run_id))
        except READ_ERRORS as exc:  # a database from before reference frames, opened read-only
            log.warning("could not look for reference frames: %s", exc)
            return False

    def reference_frame(self, run_id: int | None, step: int) -> str | None:
        """The reference frame of a step, read again (a row read just before it was written learns it now)."""
        if self.database is None or run_id is None:
            return None
        try:
            fresh = self.database.step(run_id, step)
        except READ_ERRORS as exc:
            log.warning("could not re-read step %s: %s", step, exc)
            return None
        ref = fresh.get("frame_reference") if fresh else None
        return ref if isinstance(ref, str) and ref else None

    def film(self, run_id: int | None) -> tuple[FilmReader | None, StepTimes]:
        """The run's film index and its steps' times for the time axis (a few hundred kB for a long run)."""
        if self.database is None or run_id is None:
            return None, []
        try:
            store = self.database.store
            return FilmReader.open(store, run_id), store.step_times(run_id)
        except READ_ERRORS as exc:  # an older database without films, or a writer holding the file
            log.warning("could not read the film of run %s: %s", run_id, exc)
            return None, []

    def coverage(self, run_id: int | None) -> tuple[list[Any], dict[int, dict[str, list[int]]]]:
        """The run's covered files and, per step, the lines it reached first (nothing: no coverage recorded)."""
        if self.database is None or run_id is None:
            return [], {}
        store = self.database.store
        files = store.run_coverage(run_id)
        return files, (store.coverage_steps(run_id) if files else {})
