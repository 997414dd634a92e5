"""Blinded human validation of the tester: frozen sample sets, per-annotator order, labels, promotion.

A validation set freezes a seeded random draw of completed play runs with at
least one step (never a repair session's row) by the tester's own verdict (``runs.verdict``: 'pass' counts as a success, 'fail' as a
failure; an 'uncertain' run is no answer to validate and is never drawn),
like the paper's 100 successes + 100 failures.  Each annotator sees
the items in an order derived from the set seed and their name with sha256, so
the order is stable across machines and Python versions (``hash()`` is not).

Annotations are *labels*, not verdicts: one row per item and annotator, which a
relabel replaces.  They never touch a run's effective verdict unless their
author promotes one, which appends an ordinary human judgment (judgments stay
append-only) and records its id in ``annotations.promoted_judgment``.

Everything an annotator may see goes through :func:`blinded_run`, which leaves
out the tester's verdict, reason, findings, rationale and judgments.
Labels travel as CSV (annotator, run_id, label, note); an import is checked
whole and written in one transaction, or refused with the bad line numbers.
"""

from __future__ import annotations

import csv
import hashlib
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.engine.play.actions import ActionParseError, action_from_dict, action_to_call
from app.engine.errors import UserError
from app.engine.trace.store import TrajectoryStore

SUCCESS = "pass"
"""The tester verdict sampled as a success."""
FAILURE = "fail"
"""The tester verdict sampled as a failure."""
NO_ANSWER = "uncertain"
"""A completed run whose tester judged nothing: not a success nor a failure, so never sampled (only counted)."""
LABELS = ("pass", "fail", "unsure")
"""What an annotator may say about a run; 'unsure' counts as a missing value in the statistics."""
PROMOTABLE = ("pass", "fail")
MAX_ANNOTATOR_CHARS = 80
LABEL_COLUMNS = ("annotator", "run_id", "label", "note")
"""The label CSV header, in this order on export; any order (extra columns ignored) on import."""
MAX_LISTED_ERRORS = 10
"""How many bad lines a refused import names before "and N more"."""
MAX_SEED = 2**63 - 1
"""Seeds are stored in an SQLite INTEGER column."""


@dataclass(frozen=True)
class ValidationSet:
    id: int
    name: str
    seed: int
    successes: int
    failures: int
    created_at: float

    @property
    def size(self) -> int:
        return self.successes + self.failures


@dataclass(frozen=True)
class BlindItem:
    """One item as an annotator sees it: no tester verdict."""

    item_id: int
    run_id: int


@dataclass(frozen=True)
class Label:
    run_id: int
    annotator: str
    label: str
    note: str
    at: float
    promoted_judgment: int | None
    seconds: float | None = None
    """Time the annotator spent on the item, summed over visits (None: not measured, e.g. imported)."""


@dataclass(frozen=True)
class Filters:
    """Which runs a set may draw from, besides the tester's verdict: one tester, one target kind (``game`` /
    ``app``), one target (its name, any bug variant); None: any."""

    tester: str | None = None
    kind: str | None = None
    target: str | None = None


@dataclass(frozen=True)
class Unit:
    """One item with the tester's verdict and every annotator's label, for the statistics."""

    run_id: int
    tester: str
    labels: dict[str, str]


# -- sets -----------------------------------------------------------------------
def _row_to_set(row: Any) -> ValidationSet:
    return ValidationSet(int(row[0]), str(row[1]), int(row[2]), int(row[3]), int(row[4]), float(row[5]))


def get_set(store: TrajectoryStore, name: str) -> ValidationSet:
    row = store.validation.set_named(name)
    if row is None:
        raise UserError(f"There is no validation set named '{name}'; list the sets with `playcoder validate list`.")
    return _row_to_set(row)


def list_sets(store: TrajectoryStore) -> list[ValidationSet]:
    return [_row_to_set(r) for r in store.validation.sets()]


def annotators(store: TrajectoryStore, vset: ValidationSet) -> list[str]:
    return store.validation.annotators(vset.id)


def _candidates(store: TrajectoryStore, verdict: str, filters: Filters) -> list[int]:
    return store.validation.candidates(verdict, filters.tester, filters.kind, filters.target)


def candidate_counts(store: TrajectoryStore, tester: str | None = None, *, kind: str | None = None,
                     target: str | None = None) -> dict[str, int]:
    """How many runs :func:`sample_set` could draw from, by tester verdict: ``{"pass": n, "fail": m}``,
    plus ``"uncertain"``: completed runs the tester gave no answer on, which a set never samples."""
    filters = Filters(tester, kind, target)
    return {v: len(_candidates(store, v, filters)) for v in (SUCCESS, FAILURE, NO_ANSWER)}


def candidate_choices(store: TrajectoryStore) -> dict[str, list[str]]:
    """What the filters can choose among: ``{"tester": [...], "kind": [...], "target": [...]}`` over the
    runs a set may draw (target names without their bug variant)."""
    rows = store.validation.candidate_facets()
    return {"tester": sorted({str(r[0]) for r in rows if r[0]}), "kind": sorted({str(r[1]) for r in rows if r[1]}),
            "target": sorted({str(r[2]).partition("@")[0] for r in rows if r[2]})}


def _too_few(found: int, needed: int, verdict: str, option: str) -> UserError:
    runs = "run has" if found == 1 else "runs have"
    return UserError(
        f"Only {found} {runs} the tester verdict {verdict}; at least {needed} are needed — "
        f"record more runs or lower {option}."
    )


def sample_set(
    store: TrajectoryStore, name: str, *, successes: int, failures: int, seed: int, tester: str | None = None,
    kind: str | None = None, target: str | None = None,
) -> ValidationSet:
    """Draw the runs without replacement with ``random.Random(seed)`` and freeze them as set ``name``.

    Candidates are completed play runs with steps (of ``tester``, targets of ``kind``, ``target``: any when
    None) ordered by id, so the same database, filters and seed give the same set.  Items are inserted in shuffled order, so item ids do not
    reveal which group an item came from.
    """
    name = name.strip()
    if not name:
        raise UserError("The validation set needs a name; pass --name.")
    if successes < 0 or failures < 0 or successes + failures == 0:
        raise UserError("--successes and --failures must be zero or more and not both zero.")
    if not 0 <= seed <= MAX_SEED:
        raise UserError(f"--seed must be between 0 and {MAX_SEED}.")
    if store.validation.set_named(name) is not None:
        raise UserError(f"A validation set named '{name}' already exists; choose another --name.")
    filters = Filters(tester, kind, target)
    good = _candidates(store, SUCCESS, filters)
    bad = _candidates(store, FAILURE, filters)
    if len(good) < successes:
        raise _too_few(len(good), successes, SUCCESS, "--successes")
    if len(bad) < failures:
        raise _too_few(len(bad), failures, FAILURE, "--failures")
    rng = random.Random(seed)
    drawn = [(run, SUCCESS) for run in rng.sample(good, successes)] + [(run, FAILURE) for run in rng.sample(bad, failures)]
    rng.shuffle(drawn)
    if not store.validation.create_set(name, seed, successes, failures, drawn):
        raise UserError(f"A validation set named '{name}' already exists; choose another --name.")
    return get_set(store, name)


# -- annotators and their order ------------------------------------------------------
def check_annotator(name: str) -> str:
    """The annotator name, stripped; refuses empty, over-long or multi-line names."""
    clean = name.strip()
    if not clean or len(clean) > MAX_ANNOTATOR_CHARS or any(c in clean for c in "\r\n\t"):
        raise UserError(
            f"The annotator name must be 1 to {MAX_ANNOTATOR_CHARS} characters on one line; pass another --annotator."
        )
    return clean


def order_seed(set_seed: int, annotator: str) -> int:
    """A 64-bit seed from the set seed and the annotator name, stable everywhere (sha256, not hash())."""
    digest = hashlib.sha256(f"{set_seed}\x00{annotator}".encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


def annotator_order(store: TrajectoryStore, vset: ValidationSet, annotator: str) -> list[BlindItem]:
    """The set's items in this annotator's own shuffled order."""
    items = [BlindItem(item, run) for item, run in store.validation.items(vset.id)]
    random.Random(order_seed(vset.seed, check_annotator(annotator))).shuffle(items)
    return items


def resume_index(order: list[BlindItem], labels: dict[int, Label]) -> int:
    """Where an annotator picks up: the first item in their order they have not labelled (0 when all are)."""
    for i, item in enumerate(order):
        if item.run_id not in labels:
            return i
    return 0


# -- labels ---------------------------------------------------------------------------
def labels_of(store: TrajectoryStore, vset: ValidationSet, annotator: str) -> dict[int, Label]:
    """This annotator's labels by run id (and nobody else's)."""
    rows = store.validation.labels_of(vset.id, annotator)
    return {int(r[0]): Label(int(r[0]), str(r[1]), str(r[2]), str(r[3] or ""), float(r[4]), r[5],
                             None if r[6] is None else float(r[6])) for r in rows}


def item_id(store: TrajectoryStore, vset: ValidationSet, run_id: int) -> int:
    item = store.validation.item_of(vset.id, run_id)
    if item is None:
        raise UserError(f"Run {run_id} is not in validation set '{vset.name}'; pick a run of that set.")
    return item


def check_label(label: str) -> str:
    if label not in LABELS:
        raise UserError(f"The label '{label}' is not pass, fail or unsure; use one of those.")
    return label


def upsert_label(store: TrajectoryStore, item: int, annotator: str, label: str, note: str,
                 seconds: float | None = None) -> None:
    """Write one label; callers that write many wrap this in one transaction."""
    store.validation.upsert_label(item, annotator, label, note, seconds)


def set_label(
    store: TrajectoryStore, vset: ValidationSet, annotator: str, run_id: int, label: str, note: str = "",
    seconds: float | None = None,
) -> Label:
    """Save (or replace) this annotator's label for one run of the set, immediately; ``seconds`` (time spent
    on the item since it was last measured) adds to the label's time."""
    annotator = check_annotator(annotator)
    check_label(label)
    item = item_id(store, vset, run_id)
    with store.transaction():
        upsert_label(store, item, annotator, label, note.strip(), seconds)
    return labels_of(store, vset, annotator)[run_id]


def add_time(store: TrajectoryStore, vset: ValidationSet, annotator: str, run_id: int, seconds: float) -> bool:
    """Add time spent on an item to this annotator's label of it; False (nothing written) when not labelled."""
    item = item_id(store, vset, run_id)
    return store.validation.add_seconds(item, annotator, seconds)


def progress(store: TrajectoryStore, vset: ValidationSet, annotator: str) -> tuple[int, int]:
    """(labelled, total) for one annotator."""
    return store.validation.progress(vset.id, annotator)


def units(store: TrajectoryStore, vset: ValidationSet) -> list[Unit]:
    """Every item with the tester's frozen verdict and all labels, ordered by run id (for the statistics only)."""
    rows = store.validation.verdicts(vset.id)
    labels: dict[int, dict[str, str]] = {item: {} for item, _, _ in rows}
    for item, annotator, label in store.validation.all_labels(vset.id):
        labels[item][annotator] = label
    return [Unit(run, verdict, labels[item]) for item, run, verdict in rows]


# -- labels as CSV -----------------------------------------------------------------------
@dataclass(frozen=True)
class ImportSummary:
    labels: int
    new: int
    replaced: int
    annotators: int


def export_labels(store: TrajectoryStore, vset: ValidationSet, path: Path) -> int:
    """Write every label of the set (no tester verdicts); returns the number of rows."""
    rows = store.validation.label_table(vset.id)
    try:
        with open(path, "w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            writer.writerow(LABEL_COLUMNS)
            writer.writerows(rows)
    except OSError as exc:
        raise UserError(f"Cannot write {path} ({exc.strerror}); choose another file with -o.") from exc
    return len(rows)


def _read_csv(path: Path) -> list[tuple[int, list[str]]]:
    """(line number, fields) per record; the line number is where the record ends."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            reader = csv.reader(fh)
            return [(reader.line_num, row) for row in reader]
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise UserError(f"Cannot read {path} as a UTF-8 CSV file ({exc}); check the path and the file.") from exc


def import_labels(store: TrajectoryStore, vset: ValidationSet, path: Path) -> ImportSummary:
    """Check every row, then write them all in one transaction; any bad row refuses the whole file."""
    records = _read_csv(path)
    if not records:
        raise UserError(f"{path} is empty; it needs the header {','.join(LABEL_COLUMNS)} and one row per label.")
    header = [h.strip().lower() for h in records[0][1]]
    missing = [c for c in LABEL_COLUMNS[:3] if c not in header]
    if missing:
        raise UserError(
            f"{path} has no column {', '.join(missing)}; its first line must be {','.join(LABEL_COLUMNS)}."
        )
    col = {name: header.index(name) for name in LABEL_COLUMNS if name in header}
    items = {run: item for item, run in store.validation.items(vset.id)}
    errors: list[str] = []
    seen: dict[tuple[str, int], int] = {}
    pending: list[tuple[int, str, str, str]] = []
    for line, row in records[1:]:
        if not any(field.strip() for field in row):
            continue
        if len(row) != len(header):
            errors.append(f"line {line}: {len(row)} fields where the header has {len(header)}")
            continue
        problem = _check_row(row, col, items, vset.name, line, seen)
        if isinstance(problem, str):
            errors.append(problem)
        else:
            pending.append(problem)
    if errors:
        more = len(errors) - MAX_LISTED_ERRORS
        listed = "; ".join(errors[:MAX_LISTED_ERRORS]) + (f"; and {more} more" if more > 0 else "")
        raise UserError(f"Nothing was imported from {path}: {listed} — fix these lines and import again.")
    existing = {(item, annotator) for item, annotator, _ in store.validation.all_labels(vset.id)}
    with store.transaction():
        for item, annotator, label, note in pending:
            upsert_label(store, item, annotator, label, note)
    replaced = sum(1 for item, annotator, _, _ in pending if (item, annotator) in existing)
    names = {annotator for _, annotator, _, _ in pending}
    return ImportSummary(len(pending), len(pending) - replaced, replaced, len(names))


def _check_row(
    row: list[str], col: dict[str, int], items: dict[int, int], set_name: str, line: int,
    seen: dict[tuple[str, int], int],
) -> tuple[int, str, str, str] | str:
    """The row as (item id, annotator, label, note), or the sentence saying what is wrong with it."""
    annotator = row[col["annotator"]].strip()
    if not annotator or len(annotator) > MAX_ANNOTATOR_CHARS or any(c in annotator for c in "\r\n\t"):
        return f"line {line}: the annotator name must be 1 to {MAX_ANNOTATOR_CHARS} characters on one line"
    raw_run = row[col["run_id"]].strip()
    try:
        run_id = int(raw_run)
    except ValueError:
        return f"line {line}: run_id '{raw_run}' is not a run number"
    if run_id not in items:
        return f"line {line}: run {run_id} is not in set '{set_name}'"
    label = row[col["label"]].strip().lower()
    if label not in LABELS:
        return f"line {line}: label '{row[col['label']].strip()}' is not pass, fail or unsure"
    first = seen.setdefault((annotator, run_id), line)
    if first != line:
        return f"line {line}: {annotator} already labelled run {run_id} on line {first}"
    note = row[col["note"]].strip() if "note" in col else ""
    return items[run_id], annotator, label, note


# -- promotion -------------------------------------------------------------------------
def promote(store: TrajectoryStore, vset: ValidationSet, annotator: str, run_id: int) -> int:
    """Turn this annotator's label into a human judgment on the run; returns the judgment id.

    Only the label's author can promote it, only pass/fail can be promoted, and
    a label is promoted once (relabel it to promote a different answer).
    """
    annotator = check_annotator(annotator)
    item = item_id(store, vset, run_id)
    label = labels_of(store, vset, annotator).get(run_id)
    if label is None:
        raise UserError(f"{annotator} has not labelled run {run_id} in set '{vset.name}'; label it before promoting.")
    if label.label not in PROMOTABLE:
        raise UserError(
            f"An 'unsure' label cannot be promoted; relabel run {run_id} as pass or fail first if you are sure."
        )
    if label.promoted_judgment is not None:
        raise UserError(
            f"{annotator}'s label for run {run_id} is already promoted (judgment {label.promoted_judgment}); "
            "relabel it to promote a different answer."
        )
    note = f"promoted from validation set {vset.name}" + (f": {label.note}" if label.note else "")
    with store.transaction():
        judgment = store.add_judgment(run_id, source="human", author=annotator, verdict=label.label, note=note)
        store.validation.mark_promoted(item, annotator, judgment)
    return judgment


# -- what an annotator may see -------------------------------------------------------------
@dataclass(frozen=True)
class BlindedStep:
    idx: int
    caption: str
    frame_before: str | None
    frame_after: str | None
    started_at: float
    action: dict[str, Any] | None = None
    """The action as played, for the marker drawn on "before" (a finish keeps only its name)."""
    changed_bbox: list[int] | None = None
    """The region that changed, highlighted on "after"."""


@dataclass(frozen=True)
class BlindedRun:
    """A run without its verdict, reason, findings, rationale or judgments."""

    run_id: int
    target: str
    steps: list[BlindedStep]
    logs: list[tuple[str, float, str]]


def blinded_caption(action: Any) -> str:
    """The action in call form; a finish shows no verdict or reason."""
    if not isinstance(action, dict):
        return "?"
    name = str(action.get("action", "?"))
    if name == "finish":
        return "finish()"
    try:
        return action_to_call(action_from_dict(action))
    except ActionParseError:
        return f"{name}(…)"


def blinded_run(store: TrajectoryStore, run_id: int) -> BlindedRun:
    run = store.run(run_id)
    t0 = float(run["started_at"])
    steps = [
        BlindedStep(int(s["idx"]), blinded_caption(s["action"]), s["frame_before"], s["frame_after"],
                    float(s["started_at"]) - t0, _blinded_action(s["action"]),
                    list(s["changed_bbox"]) if isinstance(s.get("changed_bbox"), list) else None)
        for s in store.steps(run_id)
    ]
    # A target label is "name@bug"; the injected bug would hint at the answer.  Its id also shows in the
    # logs, in the path of the variant's temporary copy (tracebacks), so it is hidden there too.
    target, _, bug = str(run["target"]).partition("@")
    bug = bug or str(run.get("bug") or "")
    logs = [(str(r["stream"]), float(r["t"]) - t0, _hide(str(r["text"]), bug)) for r in store.logs(run_id)]
    return BlindedRun(run_id, target, steps, logs)


def _blinded_action(action: Any) -> dict[str, Any] | None:
    """The action for drawing; a finish (which carries the tester's verdict and reason) keeps only its name."""
    if not isinstance(action, dict):
        return None
    return {"action": "finish"} if action.get("action") == "finish" else dict(action)


BUG_PLACEHOLDER = "variant"
"""What a bug variant's id becomes in the blinded logs."""


def _hide(text: str, bug: str) -> str:
    return text.replace(bug, BUG_PLACEHOLDER) if bug else text
