"""The published figures: each read from one results file, rendered into the READMEs between markers.

A README block starts with ``<!-- figures: NAME -->`` and ends with
``<!-- end figures -->``; :data:`BLOCKS` says which figures each NAME holds.
:func:`render` fills every block of a README from benchmark/results;
:func:`check` lists every figure with its results file and commit and says
what is wrong: a block that differs from its results (edited by hand, or
results regenerated without rendering), a figure whose results file is
missing or does not hold it, and a number in the README's prose outside the
blocks (a figure in no results file).  ``python -m benchmark.regenerate
--check`` and ``--render`` run them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmark import scoring

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmark" / "results"
READMES = (ROOT / "README.md", ROOT / "benchmark" / "README.md")
BEGIN = re.compile(r"<!-- figures: ([a-z-]+) -->")
END = "<!-- end figures -->"
PROSE_FIGURE = re.compile(r"\b\d+(?:\.\d+)?\s?%|\b\d+\s?/\s?\d+\b(?![\w/.])"
                          r"|\b\d+(?:\.\d+)?\s?(?:ms|µs|fps|MB|GB|MiB|GiB)\b")
"""What counts as a measured figure in prose: a percentage, a fraction like 30/40, a time, a rate or a size."""
QUOTED: dict[str, tuple[str, ...]] = {
    "README.md": ("the paper's 100/100 study", "FN 16%, FP 5%", "95% Student-t intervals"),
}
"""Numbers the READMEs quote from elsewhere (the paper's own study, reproduced by tests), not measured here."""


@dataclass(frozen=True)
class Figure:
    key: str
    label: str
    results: str
    """The JSON file under benchmark/results it is read from."""
    value: Callable[[dict[str, Any]], str]


def _rate(hits: int, total: int) -> str:
    return f"{100 * hits / total:.0f}% ({hits}/{total})" if total else "none measured"


def _detect(key: str) -> Callable[[dict[str, Any]], str]:
    def value(data: dict[str, Any]) -> str:
        part = data["summary"][key]
        return _rate(int(part["hits"]), int(part["runs"]))
    return value


def _played_refs(data: dict[str, Any]) -> str:
    """Bundled reference runs of a ``bench detect`` file that passed and played (:mod:`benchmark.scoring`)."""
    refs = [r for r in data["runs"] if r.get("truth") == "pass"]
    by = [scoring.reference_category(r) for r in refs]
    return f"{_rate(by.count(scoring.PASS), len(refs))} pass and played; {by.count(scoring.NOT_PLAYED)} not played"


def _mutants(data: dict[str, Any]) -> str:
    s = data["summary"]["all"]
    return _rate(int(s["killed"]), int(s["reached"]))


def _not_reached(data: dict[str, Any]) -> str:
    s = data["summary"]["all"]
    return _rate(int(s["not reached"]), int(s["mutants"]))


def _survived(data: dict[str, Any]) -> str:
    s = data["summary"]["all"]
    return f"{s['survived']} survived, {s['timeout']} timeout, {s['error']} error, {s['equivalent']} equivalent"


def _references(data: dict[str, Any]) -> str:
    s = data["summary"]["all"]
    by = s["references_by"]
    return (f"{_rate(int(by['pass']), int(s['references']))} pass and played; {by['not played']} not played, "
            f"{by['fail (false positive)']} false positives")


def _refactorings(data: dict[str, Any]) -> str:
    runs = [r for r in data["runs"] if r["kind"] == "refactoring"]
    return f"{_rate(sum(r['verdict'] == 'pass' for r in runs), len(runs))} pass"


def _repair(data: dict[str, Any]) -> str:
    t = data["totals"]
    return _rate(int(t["fixed"]), int(t["variants"]))


def _repair_inverse(data: dict[str, Any]) -> str:
    t, by = data["totals"], data["by_split"]
    return (f"{t['template_inverse']} of {t['claimed_fixed']} claimed fixes (tuning {by['tuning']['template_inverse']}, "
            f"held-out {by['held-out']['template_inverse']})")


FIGURES: dict[str, Figure] = {f.key: f for f in (
    Figure("corpus-differential-recall", "corpus mutants: differential play, killed / reached (tune half)",
           "corpus-differential-mutants.json", _mutants),
    Figure("corpus-not-reached", "corpus mutants: not reached in any play",
           "corpus-differential-mutants.json", _not_reached),
    Figure("corpus-differential-rest", "corpus mutants under differential play: the rest",
           "corpus-differential-mutants.json", _survived),
    Figure("corpus-offline-recall", "corpus mutants: offline tester, killed / reached (tune half)",
           "corpus-offline-mutants.json", _mutants),
    Figure("corpus-refs-differential", "corpus references, differential play (9 programs first drawn as test, 3 seeds)",
           "corpus-differential-references-test.json", _references),
    Figure("corpus-refs-offline", "corpus references, offline tester (the same 9 programs, 3 seeds)",
           "corpus-offline-references-test.json", _references),
    Figure("corpus-refs-offline-tune", "corpus references, offline tester (19 tune programs, 3 seeds)",
           "corpus-offline-references-tune.json", _references),
    Figure("corpus-refactorings", "corpus refactorings under differential play (seed 0)",
           "corpus-refactorings.json", _refactorings),
    Figure("repair-rate", "bundled suite, offline refiner: repair rate, template inverses excluded (in-sample)",
           "repair-offline.json", _repair),
    Figure("repair-inverse", "bundled suite, offline refiner: claimed fixes by a template inverse",
           "repair-offline.json", _repair_inverse),
    Figure("detect-explore-only", "bundled suite, differential play without rubric (40 s): recall (in-sample)",
           "detect-differential-explore-only.json", _detect("recall")),
    Figure("detect-explore-only-refs", "bundled suite, differential play without rubric: references",
           "detect-differential-explore-only.json", _played_refs),
    Figure("detect-offline", "bundled suite, offline tester (40 steps): recall (in-sample)",
           "detect-offline.json", _detect("recall")),
    Figure("detect-script", "bundled suite, scripted rubric tester: recall (in-sample)",
           "detect-script.json", _detect("recall")),
    Figure("detect-differential-3seeds", "bundled suite, differential play with rubric, 3 seeds: recall (in-sample)",
           "detect-differential-3seeds.json", _detect("recall")),
    Figure("detect-logic-3seeds", "bundled suite, logic bugs, differential play, 3 seeds: recall (in-sample)",
           "detect-differential-logic-3seeds.json", _detect("recall")),
    Figure("refs-offline-5seeds", "bundled references, offline tester, 5 seeds",
           "detect-offline-references-5seeds.json", _played_refs),
    Figure("refs-script-5seeds", "bundled references, scripted rubric tester, 5 seeds: judged pass (its criteria "
           "are judged, not screens: the played rule does not apply)",
           "detect-script-references-5seeds.json", _detect("reference_pass_rate")),
    Figure("refs-differential-5seeds", "bundled references, differential play, 5 seeds",
           "detect-differential-references-5seeds.json", _played_refs),
    Figure("detect-generic-5seeds", "bundled suite, offline tester, generic bugs, 5 seeds: recall (in-sample)",
           "detect-offline-generic-5seeds.json", _detect("recall")),
)}

BLOCKS: dict[str, tuple[str, ...]] = {
    "headline": ("corpus-differential-recall", "corpus-not-reached", "corpus-offline-recall", "corpus-refs-differential",
                 "corpus-refs-offline", "corpus-refactorings", "repair-rate", "repair-inverse", "detect-explore-only",
                 "detect-explore-only-refs"),
    "benchmarks": tuple(FIGURES),
}


def _commit(data: dict[str, Any]) -> str:
    info = data.get("measured_on") or (data.get("summary") or {}).get("measured_on") or data.get("regenerated_on")
    sha = str((info or {}).get("commit", "?"))[:7]
    counted = data.get("counted_on")
    return f"{sha}, counted at {str(counted.get('commit', '?'))[:7]}" if isinstance(counted, dict) else sha


def read(fig: Figure) -> tuple[str, str]:
    """(value, commit) of a figure from its results file; raises LookupError with why when it cannot."""
    path = RESULTS / fig.results
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return fig.value(data), _commit(data)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise LookupError(f"{fig.key}: benchmark/results/{fig.results} does not hold it ({type(exc).__name__}: "
                          f"{exc})") from exc


def table(block: str) -> str:
    rows = ["| figure | value | results file | commit |", "| --- | --- | --- | --- |"]
    for key in BLOCKS[block]:
        fig = FIGURES[key]
        value, commit = read(fig)
        rows.append(f"| {fig.label} | {value} | `benchmark/results/{fig.results.removesuffix('.json')}.md` "
                    f"| {commit} |")
    return "\n".join(rows)


def render_text(text: str) -> str:
    """``text`` with every figures block filled from the results files."""
    def fill(m: re.Match[str]) -> str:
        return f"{m.group(1)}\n{table(m.group(2))}\n{END}"
    return re.sub(r"(<!-- figures: ([a-z-]+) -->)\n.*?\n?" + re.escape(END), fill, text, flags=re.DOTALL)


def prose_figures(name: str, text: str) -> list[str]:
    """Figures in ``text`` outside the blocks, code and the quoted numbers: lines naming a number no results
    file backs."""
    outside = re.sub(r"<!-- figures: [a-z-]+ -->.*?" + re.escape(END), "", text, flags=re.DOTALL)
    outside = re.sub(r"```.*?```", "", outside, flags=re.DOTALL)
    found = []
    for line in outside.splitlines():
        if line.startswith("    "):  # an indented code block (a command, its flags)
            continue
        for quoted in QUOTED.get(name, ()):
            line = line.replace(quoted, "")
        if PROSE_FIGURE.search(line):
            found.append(line.strip())
    return found


def check(readmes: tuple[Path, ...] = READMES) -> tuple[list[str], list[str]]:
    """(listing, problems): every figure with its results file and commit, and what is wrong."""
    listing: list[str] = []
    problems: list[str] = []
    for path in readmes:
        name = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name
        text = path.read_text(encoding="utf-8")
        blocks = BEGIN.findall(text)
        for block in blocks:
            if block not in BLOCKS:
                problems.append(f"{name}: no figures block named {block!r} (known: {', '.join(BLOCKS)})")
                continue
            for key in BLOCKS[block]:
                fig = FIGURES[key]
                try:
                    value, commit = read(fig)
                    listing.append(f"{name}: {fig.label}: {value} — benchmark/results/{fig.results} at {commit}")
                except LookupError as exc:
                    problems.append(f"{name}: {exc}")
        if not problems and blocks and render_text(text) != text:
            problems.append(f"{name}: a figures block differs from its results files; run "
                            "`python -m benchmark.regenerate --render` (never edit a block by hand)")
        problems += [f"{name}: a figure in no results file: {line!r}" for line in prose_figures(name, text)]
    return listing, problems
