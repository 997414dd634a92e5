"""Mutation scores by the book, and whether a reference run played, decided without the tester being scored.

A mutant's category follows Stryker's (https://stryker-mutator.io/docs/mutation-testing-elements/mutant-states-and-metrics/):

- **not reached**: the mutated line ran in no play of that mutant (the probe's
  stdout line, :mod:`benchmark.mutants`): coverage decides, never a verdict.
  A mutant that never ran cannot have been seen.
- **timeout**: the run outlived its budget (the benchmark stopped it).
- **error**: the run ended in ``error`` for another reason.
- **killed**: the line ran and the tester said ``fail``.
- **survived**: the line ran and the tester did not say ``fail`` (``pass``, or
  ``uncertain``: an answer that does not kill the mutant).
- **equivalent**: listed one by one, each with the reason, in
  ``benchmark/corpus/equivalent.toml`` (read by a person from the mutated
  source, never from a tester's verdicts); left out of every denominator.

Recall is killed / (all - not reached - equivalent); the not-reached share
(not reached / all) is reported beside it.  Timeouts and errors stay in the
denominator: a run that gave no answer did not kill its mutant.

A reference run (ground truth *pass*) **passes** only if it played: at least
:data:`MIN_SCREENS` settled screens judged (differential play: compared with
the reference; the offline tester: distinct settled screens) over at least
:data:`MIN_STEPS` steps.  A ``pass`` with less is **not played**, its own
column.  A ``fail`` is a false positive however short the run.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
EQUIVALENT_LIST = ROOT / "benchmark" / "corpus" / "equivalent.toml"
KILLED, SURVIVED, NOT_REACHED, TIMEOUT, ERROR, EQUIVALENT = (
    "killed", "survived", "not reached", "timeout", "error", "equivalent")
MUTANT_CATEGORIES = (KILLED, SURVIVED, NOT_REACHED, TIMEOUT, ERROR, EQUIVALENT)
PASS, NOT_PLAYED, FALSE_POSITIVE, UNCERTAIN = "pass", "not played", "fail (false positive)", "uncertain"
REFERENCE_CATEGORIES = (PASS, NOT_PLAYED, FALSE_POSITIVE, UNCERTAIN, ERROR)
MIN_SCREENS = 5
"""Settled screens a reference run must have judged before its ``pass`` counts."""
MIN_STEPS = 10
"""Steps a reference run must have played before its ``pass`` counts."""
TIMED_OUT = "took longer than"
"""What corpus_bench's reason says when it stopped a run at its budget."""
_COMPARED = re.compile(r"(\d+) settled screens? compared")
_DISTINCT = re.compile(r"over (\d+) distinct screens?")
_STEPS = re.compile(r"(?:over|in) (\d+) steps?")


def load_equivalent(path: Path = EQUIVALENT_LIST) -> dict[str, str]:
    """Mutant id -> why it is equivalent, from the committed list (every entry must give a reason)."""
    if not path.is_file():
        return {}
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    out: dict[str, str] = {}
    for entry in data.get("equivalent", []):
        mid, why = str(entry.get("mutant", "")).strip(), str(entry.get("reason", "")).strip()
        if not mid or not why:
            raise SystemExit(f"{path}: every [[equivalent]] entry needs a mutant id and a reason; fix the entry "
                             f"{entry!r}.")
        out[mid] = why
    return out


def reached_anywhere(rows: Iterable[Mapping[str, Any]]) -> set[str]:
    """Mutant ids whose line ran in at least one play (any tester, any seed): coverage, not a verdict."""
    return {str(r["mutant"]) for r in rows if r.get("kind") == "mutant" and r.get("reached")}


def mutant_category(row: Mapping[str, Any], reached: set[str], equivalent: Mapping[str, str]) -> str:
    """The Stryker category of one mutant run (see the module docstring)."""
    mid = str(row.get("mutant", ""))
    if mid in equivalent:
        return EQUIVALENT
    if mid not in reached:
        return NOT_REACHED
    verdict = str(row.get("verdict", ""))
    if verdict == "error":
        return TIMEOUT if TIMED_OUT in str(row.get("reason", "")) else ERROR
    return KILLED if verdict == "fail" else SURVIVED


def screens_and_steps(row: Mapping[str, Any]) -> tuple[int, int]:
    """Settled screens judged and steps played by a run, from its row (or its verdict's reason)."""
    reason = str(row.get("reason", ""))
    screens = row.get("screens")
    if screens is None:
        found = _COMPARED.search(reason) or _DISTINCT.search(reason)
        screens = int(found.group(1)) if found else 0
    steps = row.get("steps")
    if steps is None:
        found = _STEPS.search(reason)
        steps = int(found.group(1)) if found else 0
    return int(screens), int(steps)


def reference_category(row: Mapping[str, Any]) -> str:
    """pass (and played), not played, fail (false positive), uncertain or error for one reference run."""
    verdict = str(row.get("verdict", ""))
    if verdict == "fail":
        return FALSE_POSITIVE
    if verdict == "pass":
        screens, steps = screens_and_steps(row)
        return PASS if screens >= MIN_SCREENS and steps >= MIN_STEPS else NOT_PLAYED
    return UNCERTAIN if verdict == "uncertain" else ERROR


def score(rows: list[Mapping[str, Any]], equivalent: Mapping[str, str],
          covered: set[str] | frozenset[str] = frozenset()) -> dict[str, Any]:
    """Counts per category for the mutant and reference runs of ``rows``, with recall over reached mutants;
    ``covered`` adds mutants whose line ran in plays outside ``rows`` (another tester's)."""
    reached = reached_anywhere(rows) | covered
    mutants = [r for r in rows if r.get("kind") == "mutant"]
    refs = [r for r in rows if r.get("kind") == "reference"]
    counts = {c: 0 for c in MUTANT_CATEGORIES}
    for r in mutants:
        counts[mutant_category(r, reached, equivalent)] += 1
    judged = len(mutants) - counts[NOT_REACHED] - counts[EQUIVALENT]
    refc = {c: 0 for c in REFERENCE_CATEGORIES}
    for r in refs:
        refc[reference_category(r)] += 1
    return {"mutants": len(mutants), **counts, "reached": judged,
            "recall": round(counts[KILLED] / judged, 4) if judged else None,
            "not_reached_share": round(counts[NOT_REACHED] / len(mutants), 4) if mutants else None,
            "references": len(refs), "references_by": refc}


def rate(hits: int, total: int) -> str:
    """``91% (30/33)`` or an em dash for nothing counted."""
    return f"{100 * hits / total:.0f}% ({hits}/{total})" if total else "—"


def mutant_line(name: str, s: Mapping[str, Any]) -> str:
    """One Markdown row of a mutant table (see :data:`MUTANT_HEADER`)."""
    share = rate(s[NOT_REACHED], s["mutants"])
    return (f"| {name} | {s['mutants']} | {s[KILLED]} | {s[SURVIVED]} | {s[NOT_REACHED]} | {s[TIMEOUT]} | {s[ERROR]} "
            f"| {s[EQUIVALENT]} | {rate(s[KILLED], s['reached'])} | {share} |")


MUTANT_HEADER = ("| group | mutants | killed | survived | not reached | timeout | error | equivalent "
                 "| recall (killed / reached) | not reached share |\n"
                 "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")


def reference_line(name: str, s: Mapping[str, Any]) -> str:
    """One Markdown row of a reference table (see :data:`REFERENCE_HEADER`)."""
    by = s["references_by"]
    return (f"| {name} | {s['references']} | {rate(by[PASS], s['references'])} | {by[NOT_PLAYED]} "
            f"| {by[FALSE_POSITIVE]} | {by[UNCERTAIN]} | {by[ERROR]} |")


REFERENCE_HEADER = ("| group | reference runs | pass (played) | not played | fail (false positive) | uncertain "
                    "| error |\n| --- | --- | --- | --- | --- | --- | --- |")
