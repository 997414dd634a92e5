"""Changes: what a piece of work changed (Anki's ``OpChanges``), so exactly the views that show it refresh."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Changes:
    runs: frozenset[int] = field(default_factory=frozenset)
    """Runs whose row, steps or judgments changed."""
    run_list: bool = False
    """Runs were added or removed (the run list reads again)."""
    verdict: bool = False
    """A judgment was appended (an override, an undo, a promoted label): the runs' effective verdicts."""
    labels: bool = False
    """Validation labels changed."""
    added: int | None = None
    """The run the work added (an import), if one."""
    listed: bool = False
    """The run list has read these already (its own re-read found them): it need not read again."""

    @property
    def empty(self) -> bool:
        return not (self.runs or self.run_list or self.verdict or self.labels)

    def touches(self, run_id: int | None) -> bool:
        return run_id is not None and run_id in self.runs

    def __or__(self, other: Changes) -> Changes:
        return Changes(self.runs | other.runs, self.run_list or other.run_list, self.verdict or other.verdict,
                       self.labels or other.labels, other.added if other.added is not None else self.added,
                       self.listed and other.listed)


NOTHING = Changes()
