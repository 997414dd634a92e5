"""ValidationSets: the blinded validation sets of an open database — draw, label, promote, read agreement.

Handed out as ``database.validation``; each method is the engine's
(:mod:`app.engine.study.validation`) on this connection.  Writes that change
what other views show return :class:`~app.views.model.changes.Changes`."""

from __future__ import annotations

from typing import Any

from app.engine.study import validation
from app.engine.trace.store import TrajectoryStore
from app.views.model.changes import Changes


class ValidationSets:
    def __init__(self, store: TrajectoryStore) -> None:
        self._store = store

    def sets(self) -> list[validation.ValidationSet]:
        return validation.list_sets(self._store)

    def get(self, name: str) -> validation.ValidationSet:
        return validation.get_set(self._store, name)

    def candidate_choices(self) -> dict[str, list[str]]:
        return validation.candidate_choices(self._store)

    def candidate_counts(self, **filters: Any) -> dict[str, int]:
        return validation.candidate_counts(self._store, **filters)

    def sample(self, name: str, **options: Any) -> tuple[validation.ValidationSet, Changes]:
        """Draw a new set; it and what changed (the sets and their labels)."""
        return validation.sample_set(self._store, name, **options), Changes(labels=True)

    def annotator_order(self, vset: validation.ValidationSet, annotator: str) -> list[validation.BlindItem]:
        return validation.annotator_order(self._store, vset, annotator)

    def labels_of(self, vset: validation.ValidationSet, annotator: str) -> dict[int, validation.Label]:
        return validation.labels_of(self._store, vset, annotator)

    def blinded_run(self, run_id: int) -> validation.BlindedRun:
        return validation.blinded_run(self._store, run_id)

    def set_label(self, vset: validation.ValidationSet, annotator: str, run_id: int, label: str, note: str,
                  seconds: float | None) -> Any:
        return validation.set_label(self._store, vset, annotator, run_id, label, note, seconds)

    def promote(self, vset: validation.ValidationSet, annotator: str, run_id: int) -> tuple[int, Changes]:
        """Turn a label into a human judgment of the run; its id and what changed."""
        judgment = validation.promote(self._store, vset, annotator, run_id)
        return judgment, Changes(runs=frozenset({run_id}), verdict=True, labels=True)

    def add_time(self, vset: validation.ValidationSet, annotator: str, run_id: int, seconds: float) -> bool:
        return validation.add_time(self._store, vset, annotator, run_id, seconds)

    def agreement_units(self, name: str) -> tuple[validation.ValidationSet, list[Any]]:
        vset = validation.get_set(self._store, name)
        return vset, validation.units(self._store, vset)
