"""A repair session as one self-contained HTML file that opens in any browser without the app.

For each cycle: its outcome and re-test verdict, what triggered it (the
findings and failed criteria of the play it started from), the diagnosis,
the patch highlighted by pygments, the gate's output, the re-test's own
findings, and the frames of the play before and of the re-test after the
patch at the same step — the step where the failure shows
(:func:`~app.engine.repair.records.failure_step`), as the repair view opens
it.  Each distinct frame is embedded once (a CSS class holding a data URI):
reverted cycles start from the same play and would otherwise repeat it.
Everything from the database goes through :func:`html.escape` or pygments;
nothing is loaded from the network, and no secret is in the database to leak.

The work reports progress per cycle through ``progress(done, total, text)``;
the workbench passes its long-work control there, which also cancels.
"""

from __future__ import annotations

import base64
import html
import io
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, cast

from PIL import Image
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import DiffLexer

from app import __version__
from app.engine.step_numbers import FIRST_STEP
from app.engine.errors import UserError
from app.engine.repair.confirm import session_outcome
from app.engine.repair.records import (
    REPAIR_KIND, CycleRecord, RepairSession, cycles, failure_step, repair_sessions, trigger_findings,
)
from app.engine.trace.atomic_file import atomic_path
from app.engine.trace.store import TrajectoryStore

Progress = Callable[[int, int, str], None]

MAX_FRAME_WIDTH = 560
"""Frames wider than this are downscaled before they are embedded (two sit side by side)."""
JPEG_QUALITY = 82
DIFF_STYLE = "friendly"
"""The pygments style of the patch (a light one, like the workbench's diff)."""
TEXT_CHARS = 20_000
"""Longest diagnosis or gate output shown; the database keeps all of it."""
OUTCOME_TEXT = {"fixed": "fixed", "kept": "kept (progress)", "reverted": "reverted", "rejected": "rejected by the gate",
                "no-patch": "no patch", "error": "patch error", "refused": "refused (touched the oracles)",
                "uncertain": "not confirmed (testers uncertain)",
                "not fixed": "not fixed (failed on another seed)",
                "crash suppressed": "crash suppressed (still crashes on another seed)"}
"""How each cycle outcome reads (the repair view says the same)."""
STATE_CLASS = {"fixed": "ok", "not fixed": "bad", "crash suppressed": "bad", "not confirmed": "unsure"}
LIVE_LOOKBACK_STEPS = 10
"""How many steps back a blank picture (a dead window) looks for the last live one (as the repair window)."""


class RepairReportError(UserError):
    """The repair report could not be written."""


def write_repair_report(store: TrajectoryStore, session_run: int, path: str | Path,
                        progress: Progress | None = None) -> Path:
    """Render repair session ``session_run`` to ``path`` (replaced atomically) and return the path."""
    path = Path(path)
    text = render_repair_report(store, session_run, progress)
    with atomic_path(path, RepairReportError) as tmp, open(tmp, "x", encoding="utf-8") as fh:
        fh.write(text)
    return path


def render_repair_report(store: TrajectoryStore, session_run: int, progress: Progress | None = None) -> str:
    """The report as one HTML string (see the module docstring)."""
    session = _session(store, session_run)
    records = cycles(store, session_run)
    frames = _Frames(store)
    total = len(records)
    say = progress or (lambda done, total, text: None)
    parts = []
    for i, rec in enumerate(records):
        say(i, total, f"cycle {rec.iteration} of {total}")
        parts.append(_cycle_html(store, rec, frames))
    say(total, total, "writing the file")
    diff_css = HtmlFormatter(style=DIFF_STYLE, cssclass="hl").get_style_defs(".hl")
    title = f"PlayCoder repair {session_run}: {session.target}"
    body = "\n".join([
        _header_html(store, session, records),
        _summary_html(records),
        "\n".join(parts) or "<p class=muted>This session recorded no cycle.</p>",
        f"<footer>Written by PlayCoder {_e(__version__)} on {_e(_when(datetime.now().timestamp()))}.</footer>",
    ])
    return ("<!doctype html>\n<html lang=en><head><meta charset=utf-8>"
            '<meta name=viewport content="width=device-width, initial-scale=1">'
            f"<title>{_e(title)}</title>\n<style>{_CSS}\n{diff_css}\n{frames.css()}</style></head>\n"
            f"<body>\n<main>\n{body}\n</main>\n</body></html>\n")


def _session(store: TrajectoryStore, session_run: int) -> RepairSession:
    run = store.run(session_run)  # no such run: the store's own sentence
    if run.get("kind") != REPAIR_KIND:
        raise UserError(f"Run {session_run} is a play run, not a repair session; give the id of a repair session "
                        "(`playcoder runs` lists them with kind repair).")
    return next(s for s in repair_sessions(store) if s.run_id == session_run)


# -- parts ---------------------------------------------------------------------------------------
def _header_html(store: TrajectoryStore, session: RepairSession, records: list[CycleRecord]) -> str:
    run = store.run(session.run_id)
    state = _state(session)
    css = STATE_CLASS.get(state, "other")
    seconds = sum(r.seconds for r in records)
    tokens = sum(r.tokens for r in records)
    first = records[0] if records else None
    first_play = ""
    if first is not None and first.before_run is not None:
        before = store.run(first.before_run)
        first_play = (f"<dt>First play</dt><dd>run {first.before_run}: {_verdict(before.get('verdict'))} "
                      f"{_e(before.get('reason') or '')}</dd>")
    return (f'<header><h1>Repair of {_e(session.target)} <span class="state s-{css}">{_e(state)}'
            f"</span></h1><dl>"
            f"<dt>Session</dt><dd>run {session.run_id} · {_e(session.refiner or '?')} refiner · tester "
            f"{_e(run.get('tester') or '?')} · {_plural(len(records), 'cycle')}</dd>"
            f"<dt>Outcome</dt><dd>{_e(session.reason or session.status)}</dd>{first_play}"
            f"<dt>Started</dt><dd>{_e(_when(session.started_at))} · cycles took {seconds:.1f} s, "
            f"{tokens} tokens</dd></dl></header>")


def _summary_html(records: list[CycleRecord]) -> str:
    if not records:
        return ""
    rows = "".join(
        f'<tr><td><a href="#cycle-{r.iteration}">{r.iteration}</a></td><td>{_e(_outcome(r.outcome))}</td>'
        f"<td>{_verdict(r.verdict) if r.verdict else '<span class=muted>no re-test</span>'}</td>"
        f"<td>{_e(r.description)}</td></tr>" for r in records)
    return ("<h2>Cycles</h2><table class=cycles><tr><th>#</th><th>Outcome</th><th>Re-test</th><th>Patch</th></tr>"
            f"{rows}</table>")


def _cycle_html(store: TrajectoryStore, rec: CycleRecord, frames: _Frames) -> str:
    trigger = trigger_findings(store, rec)
    step = failure_step(store, rec, trigger)
    retest = [f for run in (rec.retest_runs or ([rec.retest_run] if rec.retest_run else []))
              for f in store.findings(run)]
    verdict = _verdict(rec.verdict) if rec.verdict else "<span class=muted>no re-test</span>"
    files = ", ".join(rec.files) or "—"
    return (f'<section class=cycle id="cycle-{rec.iteration}">'
            f"<h2>Iteration {rec.iteration} <span class=outcome>{_e(_outcome(rec.outcome))}</span> {verdict}</h2>"
            f"<p class=desc>{_e(rec.description)}</p>"
            f"<p class=muted>{rec.seconds:.1f} s · {rec.tokens} tokens · files: {_e(files)}"
            f"{' · ' + _e(rec.error) if rec.error and rec.outcome != 'fixed' else ''}</p>"
            f"{_frames_html(store, rec, step, frames)}"
            "<h3>What triggered it</h3>" + _findings_html(trigger)
            + f"<h3>Diagnosis</h3><pre class=text>{_e(_clip(rec.diagnosis))}</pre>"
            f"<h3>Patch</h3>{_diff_html(rec.diff)}"
            f"<details><summary>Gate output</summary><pre class=text>{_e(_clip(rec.validation or rec.error))}"
            "</pre></details>"
            + (f"<h3>Re-test findings</h3>{_findings_html(retest)}" if rec.retest_run is not None else "")
            + "</section>")


def _frames_html(store: TrajectoryStore, rec: CycleRecord, step: int, frames: _Frames) -> str:
    cells = []
    for label, run_id in (("Before the patch", rec.before_run), ("After the patch (re-test)", rec.retest_run)):
        if run_id is None:
            cells.append(f"<figure><div class=noframe>no {label.split()[0].lower()} run</div>"
                         f"<figcaption>{_e(label)}</figcaption></figure>")
            continue
        count = store.step_count(run_id)
        shown = min(step, count - 1)
        row = store.step(run_id, shown) if count else None
        sha = row.get("frame_after") if row else None
        note = (f"run {run_id}, step {_number(shown)}" + (f" (the run ended at step {count})" if shown != step else "")
                if count else f"run {run_id} has no steps")
        if sha and _blank(store, sha):  # a crash: the window was gone; show what was last seen of it
            live, where = _last_live(store, run_id, shown, row)
            if live is not None:
                sha, note = live, f"{note} · the window was gone: the last live picture, {where}"
        cells.append(f"<figure>{frames.figure(sha)}<figcaption><b>{_e(label)}</b> · {_e(note)}</figcaption></figure>")
    return f'<div class=pair title="Both at step {_number(step)}, where the failure shows">{"".join(cells)}</div>'


def _number(idx: int) -> int:
    return int(idx) + FIRST_STEP


def _blank(store: TrajectoryStore, sha: str) -> bool:
    """One colour all over: what a capture of a window that is gone shows (black, or the bare screen)."""
    frame = store.frame(sha)
    if frame is None:
        return False
    bands = cast("tuple[tuple[int, int], ...]", frame.image().convert("RGB").getextrema())
    return all(lo == hi for lo, hi in bands)


def _last_live(store: TrajectoryStore, run_id: int, idx: int, row: dict[str, Any] | None) -> tuple[str | None, str]:
    """The newest frame that is not blank before the blank one after step ``idx``, and where it is from."""
    candidates = [(row.get("frame_before") if row else None, f"before step {_number(idx)}")]
    for back in range(idx - 1, max(-1, idx - 1 - LIVE_LOOKBACK_STEPS), -1):
        earlier = store.step(run_id, back)
        candidates.append((earlier.get("frame_after") if earlier else None, f"after step {_number(back)}"))
    for sha, where in candidates:
        if sha and store.frame(sha) is not None and not _blank(store, sha):
            return str(sha), where
    return None, ""


def _findings_html(findings: list[dict[str, Any]]) -> str:
    if not findings:
        return "<p class=muted>No findings.</p>"
    items = []
    for f in findings:
        where = f"step {_number(f['step'])}" if f.get("step") is not None else "whole run"
        name = f.get("criterion") or f.get("kind") or "finding"
        items.append(f"<li><span class=kind>{_e(name)}</span> <span class=muted>run {_e(f.get('run_id', ''))}, "
                     f"{_e(where)}</span> {_e(f.get('message') or '')}</li>")
    return f"<ul class=findings>{''.join(items)}</ul>"


def _diff_html(diff: str) -> str:
    if not diff.strip():
        return "<p class=muted>No patch in this cycle.</p>"
    return highlight(diff, DiffLexer(), HtmlFormatter(style=DIFF_STYLE, cssclass="hl"))


# -- helpers ----------------------------------------------------------------------------------------
class _Frames:
    """Each distinct frame once, as a CSS class with a data URI (downscaled when wide)."""

    def __init__(self, store: TrajectoryStore) -> None:
        self.store = store
        self._rules: dict[str, str] = {}
        self._sizes: dict[str, tuple[int, int]] = {}

    def figure(self, sha: str | None) -> str:
        if not sha or not self._load(sha):
            return "<div class=noframe>no frame</div>"
        w, h = self._sizes[sha]
        return f'<div class="frame f{sha[:16]}" style="aspect-ratio:{w}/{h}"></div>'

    def _load(self, sha: str) -> bool:
        if sha in self._sizes:
            return True
        frame = self.store.frame(sha)
        if frame is None:
            return False
        data, mime = frame.data, f"image/{(frame.format or 'png').lower()}"
        if frame.width > MAX_FRAME_WIDTH:
            image = frame.image().convert("RGB")
            image = image.resize((MAX_FRAME_WIDTH, max(1, round(frame.height * MAX_FRAME_WIDTH / frame.width))),
                                 Image.Resampling.LANCZOS)
            buf = io.BytesIO()
            image.save(buf, "JPEG", quality=JPEG_QUALITY)
            data, mime = buf.getvalue(), "image/jpeg"
        self._sizes[sha] = (frame.width, frame.height)
        uri = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
        self._rules[sha] = f".f{sha[:16]}{{background-image:url({uri})}}"
        return True

    def css(self) -> str:
        return "\n".join(self._rules.values())


def _state(session: RepairSession) -> str:
    if session.status != "completed":
        return session.status
    return session_outcome(session.verdict == "pass", session.verdict, session.reason)


def _outcome(outcome: str) -> str:
    return OUTCOME_TEXT.get(outcome, outcome or "?")


def _verdict(verdict: Any) -> str:
    v = str(verdict or "none")
    return f'<span class="verdict v-{_e(v)}">{_e(v)}</span>'


def _clip(text: str) -> str:
    return text if len(text) <= TEXT_CHARS else text[:TEXT_CHARS] + f"\n… ({len(text) - TEXT_CHARS} more characters)"


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value))


def _when(t: Any) -> str:
    return datetime.fromtimestamp(float(t), timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC") if t else "—"


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


_CSS = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;background:#f6f7f9;margin:0}
main{max-width:1180px;margin:0 auto;padding:20px 24px 40px}
h1{font-size:24px;margin:0 0 8px}h2{font-size:19px;margin:0 0 6px}h3{font-size:15px;margin:16px 0 4px}
header dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:0}
header dt{color:#59636e}header dd{margin:0}
.muted{color:#6e7781}
.state{font-size:15px;padding:2px 10px;border-radius:12px;vertical-align:middle;background:#eaeef2}
.s-ok{background:#d2f4d3;color:#116329}.s-bad{background:#ffe0de;color:#a0111f}.s-unsure{background:#fff3c4}
.verdict{display:inline-block;font-size:13px;padding:1px 8px;border-radius:10px;background:#eaeef2}
.v-pass{background:#d2f4d3;color:#116329}.v-fail{background:#ffe0de;color:#a0111f}
.v-uncertain{background:#fff3c4;color:#7a5300}.v-error{background:#e7e7ff;color:#3a3a9a}
.outcome{font-weight:normal;color:#59636e;font-size:15px}
table.cycles{border-collapse:collapse;margin:6px 0 18px;background:#fff}
table.cycles td,table.cycles th{border:1px solid #d0d7de;padding:4px 8px;text-align:left;vertical-align:top}
section.cycle{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:14px 18px;margin:16px 0}
.desc{font-weight:600;margin:2px 0}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:12px;margin:10px 0}
figure{margin:0}figcaption{font-size:13px;color:#59636e;margin-top:3px}
.frame{width:100%;background-size:contain;background-repeat:no-repeat;background-color:#24262b;border-radius:4px}
.noframe{background:#24262b;color:#9aa0a6;padding:40px;text-align:center;border-radius:4px}
ul.findings{margin:4px 0;padding-left:20px}.kind{font-weight:600}
pre.text{white-space:pre-wrap;background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;padding:8px;
 font-size:13px;max-height:420px;overflow:auto}
.hl{background:#f8f8f8;border:1px solid #d0d7de;border-radius:6px;overflow:auto}
.hl pre{margin:0;padding:8px;font-size:13px;line-height:1.35}
footer{margin-top:24px;color:#6e7781;font-size:13px}
"""
