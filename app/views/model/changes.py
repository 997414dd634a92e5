"""Changes: what a piece of work changed (Anki's ``OpChanges``), so exactly the views that show it refresh.

Every write and every long task returns one; :meth:`WorkbenchModel.apply
<app.views.model.workbench_model.WorkbenchModel.apply>` tells the views.  The
``initiator`` is the object whose work it was: a view that made the change
(or already read it, as the run list does) skips the news of its own work
instead of keeping an echo flag."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any


@dataclass(frozen=True)
class Changes:
    runs: frozenset[int] = field(default_factory=frozenset)
    """Runs whose row, steps or judgments changed."""
    run_list: bool = False
    """Runs were added or removed (the run list reads again)."""
    verdict: bool = False
    """A judgment was appended (an override, an undo, a promoted label): the runs' effective verdicts."""
    labels: bool = False
    """Validation labels or sets changed."""
    added: int | None = None
    """The run the work added (an import, a live run's start): the workbench shows it."""
    initiator: Any = field(default=None, compare=False)
    """Whose work it was (set by the model's ``apply``); that view has already shown it."""

    @property
    def empty(self) -> bool:
        return not (self.runs or self.run_list or self.verdict or self.labels or self.added is not None)

    def touches(self, run_id: int | None) -> bool:
        return run_id is not None and run_id in self.runs

    def beyond(self, known: Changes) -> Changes:
        """What of these changes ``known`` does not already say (the news in a report that follows it)."""
        return Changes(self.runs - known.runs, self.run_list and not known.run_list,
                       self.verdict and not known.verdict, self.labels and not known.labels,
                       self.added if self.added != known.added else None, self.initiator)

    def by(self, initiator: Any) -> Changes:
        return replace(self, initiator=initiator)

    def __or__(self, other: Changes) -> Changes:
        return Changes(self.runs | other.runs, self.run_list or other.run_list, self.verdict or other.verdict,
                       self.labels or other.labels, other.added if other.added is not None else self.added,
                       self.initiator)


NOTHING = Changes()


def run_changed(run_id: int | None, *, listed: bool = False) -> Changes:
    """A run's row, steps or findings changed (``listed``: and the run list must show it: it began or ended)."""
    return Changes(runs=frozenset({run_id}) if run_id is not None else frozenset(), run_list=listed)


def run_added(run_id: int) -> Changes:
    """A run was added (an import, a live run's start): the list reads again and the workbench shows it."""
    return Changes(runs=frozenset({run_id}), run_list=True, added=run_id)
