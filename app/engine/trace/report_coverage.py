"""The HTML report's coverage section: the lines of the program's own files the run reached.

Per file: lines reached of the executable ones and the lines never reached
(as ranges, so a reader opens the file at them); then which steps reached new
code.  A run that saw the program only through its pixels (not Python) says
so; a run recorded before coverage existed gets no section.
"""

from __future__ import annotations

import html
from typing import Any

from app.engine.trace.coverage import START_STEP, compact
from app.engine.trace.store import TrajectoryStore

MISSED_SHOWN = 400
"""Characters of a file's not-reached ranges shown before the rest is summarised."""


def coverage_html(store: TrajectoryStore, run: dict[str, Any]) -> str:
    through = run.get("seen_through")
    if not through:
        return ""
    files = store.run_coverage(int(run["id"]))
    if through != "inside" or not files:
        return ("<h2 id=coverage>Coverage</h2><p class=muted>No line coverage: the program was seen through its "
                "pixels only (it is not a Python program, or it did not run the engine's seeding).</p>")
    hit = sum(len(f.hit) for f in files)
    total = sum(len(f.total) for f in files)
    rows = []
    for f in files:
        missed = compact(f.missed)
        shown = missed if len(missed) <= MISSED_SHOWN else missed[:MISSED_SHOWN].rsplit(",", 1)[0] + ", …"
        rows.append(f"<tr><td><code>{_e(f.file)}</code></td><td>{len(f.hit)} / {len(f.total)}</td>"
                    f"<td>{_percent(len(f.hit), len(f.total))}</td><td><code>{_e(shown) or '—'}</code></td></tr>")
    steps = store.coverage_by_step(int(run["id"]))
    reached = [("start-up" if step == START_STEP else f'<a href="#step-{step}">#{step}</a>') + f" +{count}"
               for step, count in sorted(steps.items())]
    return (
        f"<h2 id=coverage>Coverage</h2><p>The run executed <b>{hit}</b> of {total} lines "
        f"({_percent(hit, total)}) of the program's own .py files.</p>"
        "<table><thead><tr><th>File</th><th>Lines reached</th><th>%</th><th>Lines not reached</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
        f"<p class=muted>New lines by step: {', '.join(reached) or 'none'}</p>"
    )


def _percent(part: int, whole: int) -> str:
    return f"{100.0 * part / whole:.0f}%" if whole else "—"


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)
