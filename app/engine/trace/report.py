"""One run as a single self-contained HTML file that opens in any browser without the app.

Each distinct frame is embedded once, as a CSS class holding a base64 data URI,
and every step refers to it by class, so a run that revisits a screen does not
grow the file.  Actions are drawn as an SVG overlay in frame coordinates (the
``viewBox`` is the stored frame's size), so they stay in place however the
browser scales the picture.  A differential run's steps show candidate |
reference | difference (:mod:`app.engine.trace.difference`), each difference
picture embedded once too.  All text from the database goes through
:func:`html.escape`; the file loads nothing from the network.
"""

from __future__ import annotations

import base64
import html
import io
import json
from bisect import bisect_left
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from app import __version__
from app.engine.step_numbers import step_number, step_place
from app.engine.play.actions import ActionParseError, action_from_dict, action_to_call
from app.engine.trace.atomic_file import atomic_path
from app.engine.trace.difference import picture_difference
from app.engine.trace.report_coverage import coverage_html
from app.engine.trace.report_clips import ClipMaker
from app.engine.errors import UserError
from app.engine.trace.store import TrajectoryStore

MAX_FRAME_WIDTH = 800
"""Frames wider than this are downscaled (to this width) before they are embedded."""
JPEG_QUALITY = 80
"""Quality of downscaled frames; frames that fit are embedded as their stored PNG."""
EVIDENCE_CHARS = 2000
"""Longest finding evidence shown; the bundle keeps all of it."""
POINTER = "#e5484d"
CHANGED = "#f5a524"
OVERLAY_REF_WIDTH = 500
"""About how wide a frame shows beside its twin; overlays on wider frames grow to stay visible."""
SCROLL_ARROW = 36
"""Length of the scroll arrow, in frame pixels."""
_SCROLL_VECTORS = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}
BBOX_PAD = 2
"""Frame pixels between the changed region and its outline, so the outline does not cover the change."""


class ReportError(UserError):
    """The report file could not be written."""


def write_html_report(store: TrajectoryStore, run_id: int, path: str | Path) -> Path:
    """Render run ``run_id`` to ``path`` (replaced atomically) and return the path."""
    path = Path(path)
    text = render_html_report(store, run_id)
    with atomic_path(path, ReportError) as tmp, open(tmp, "x", encoding="utf-8") as fh:
        fh.write(text)
    return path


def render_html_report(store: TrajectoryStore, run_id: int) -> str:
    """The report as one HTML string (see the module docstring)."""
    run = store.run(run_id)
    steps = store.steps(run_id)
    frames = _FrameSheet(store)
    step_logs, before_logs, after_logs = _bucket_logs(store.logs(run_id), steps)
    findings = store.findings(run_id)
    clips = ClipMaker(store, run, steps)
    step_idxs = {s["idx"] for s in steps}
    t0 = float(run["started_at"])
    timeline = [_log_block("Before the first step", before_logs, t0)] if before_logs else []
    by_step: dict[Any, list[dict[str, Any]]] = {}
    for finding in findings:
        by_step.setdefault(finding.get("step"), []).append(finding)
    for step, lines in zip(steps, step_logs):
        timeline.append(_step_html(step, by_step.get(step["idx"], []), lines, frames, t0))
    if after_logs:
        timeline.append(_log_block("After the last step", after_logs, t0))
    title = f"PlayCoder run {run_id}: {run['target']}"
    try:
        findings_html = _findings_html(findings, step_idxs, clips)
    finally:
        clips.close()
    body = "\n".join([
        _header_html(store, run, len(steps)),
        _judgments_html(store, run),
        findings_html,
        coverage_html(store, run),
        _strip_html(steps),
        '<h2 id="timeline">Timeline</h2>',
        "\n".join(timeline) or "<p class=muted>No steps were recorded.</p>",
        f"<footer>Written by PlayCoder {_e(__version__)} on {_e(_when(datetime.now().timestamp()))}. "
        "Keys: ← / → (or k / j) move between steps; click a picture to enlarge.</footer>",
    ])
    return (
        "<!doctype html>\n<html lang=en><head><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width, initial-scale=1">'
        f"<title>{_e(title)}</title>\n<style>{_CSS}\n{frames.css()}</style></head>\n<body>\n"
        '<svg width="0" height="0" style="position:absolute"><defs><marker id="arrow" viewBox="0 0 10 10" refX="8" '
        'refY="5" markerWidth="5" markerHeight="5" orient="auto-start-reverse">'
        f'<path d="M0 0L10 5L0 10z" fill="{POINTER}"/></marker></defs></svg>\n'
        f"<main>\n{body}\n</main>\n<script>{_JS}</script>\n</body></html>\n"
    )


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value))


def _when(t: Any) -> str:
    if t is None:
        return "—"
    return datetime.fromtimestamp(float(t), timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _verdict_badge(verdict: Any) -> str:
    v = str(verdict or "none")
    return f'<span class="verdict v-{_e(v)}">{_e(v)}</span>'


# -- header, judgments, findings ------------------------------------------------------
def _header_html(store: TrajectoryStore, run: dict[str, Any], step_count: int) -> str:
    effective = store.effective_verdict(run["id"], tester_verdict=run["verdict"])
    duration = f"{run['ended_at'] - run['started_at']:.1f} s" if run.get("ended_at") else "—"
    llm = store.conn.execute("SELECT count(*), sum(tokens_in), sum(tokens_out) FROM llm_calls WHERE run_id = ?",
                             [run["id"]]).fetchone()
    window = f"{run['window_width']}×{run['window_height']}" if run.get("window_width") else None
    limit = f" of at most {run['max_steps']}" if run.get("max_steps") else ""
    fields = [
        ("Target", run["target"]), ("Bug", run.get("bug")), ("Tester", run["tester"]),
        ("Seed", run.get("seed")), ("Status", run["status"]), ("Steps", f"{step_count}{limit}"),
        ("Started", _when(run["started_at"])), ("Ended", _when(run.get("ended_at"))), ("Duration", duration),
        ("Display", run.get("display")), ("Window", window),
        ("Revision", run.get("target_rev")), ("Target path", run.get("target_path")),
    ]
    if llm and llm[0]:
        fields.append(("LLM calls", f"{llm[0]} ({llm[1] or 0} tokens in, {llm[2] or 0} out)"))
    meta = "".join(f"<div><dt>{_e(k)}</dt><dd>{_e('—' if v in (None, '') else v)}</dd></div>" for k, v in fields)
    error = f'<p class="error"><b>Error:</b> {_e(run["error"])}</p>' if run.get("error") else ""
    return (
        f"<header><h1>{_e(run['target'])} <small>run {run['id']}</small> {_verdict_badge(effective)}</h1>\n"
        f"<p class=provenance>{_provenance(store, run)}</p>\n"
        f'<p class=reason><b>Reason:</b> {_e(run.get("reason") or "—")}</p>{error}\n'
        f"<dl class=meta>{meta}</dl></header>"
    )


def _provenance(store: TrajectoryStore, run: dict[str, Any], criterion: str | None = None) -> str:
    """Who decided the verdict in force: the latest human override, else the tester."""
    active = store.active_judgments(run["id"], criterion)
    humans = [j for j in active if j["source"] == "human"]
    testers = [j for j in active if j["source"] == "tester"]
    if humans:
        j = humans[-1]
        said = f"; the tester said {_e(testers[-1]['verdict'])}" if testers else ""
        note = f": “{_e(j['note'])}”" if j.get("note") else ""
        return f"Overridden by {_e(j['author'])} (human) on {_e(_when(j['at']))}{note}{said}."
    if testers:
        return "Verdict of the tester, not overridden."
    return "No judgment recorded; this is the run's own verdict." if run.get("verdict") else "No verdict."


def _judgments_html(store: TrajectoryStore, run: dict[str, Any]) -> str:
    rows = store.judgments(run["id"])
    if not rows:
        return "<h2>Judgments</h2><p class=muted>No judgments recorded.</p>"
    criteria: list[str | None] = []
    for j in rows:
        if j["criterion"] not in criteria:
            criteria.append(j["criterion"])
    table = []
    for c in criteria:
        tester_default = run["verdict"] if c is None else None
        verdict = store.effective_verdict(run["id"], c, tester_verdict=tester_default)
        active = store.active_judgments(run["id"], c)
        note = active[-1]["note"] if active else ""
        table.append(f"<tr><td>{_e(c or 'overall')}</td><td>{_verdict_badge(verdict)}</td>"
                     f"<td>{_provenance(store, run, c)}</td><td>{_e(note)}</td></tr>")
    history = "".join(
        f"<tr><td>#{j['id']}</td><td>{_e(_when(j['at']))}</td><td>{_e(j['source'])}: {_e(j['author'])}</td>"
        f"<td>{_e(j['criterion'] or 'overall')}</td><td>{_verdict_badge(j['verdict']) if j['undoes'] is None else ''}"
        f"{'undoes #' + _e(j['undoes']) if j['undoes'] is not None else ''}</td><td>{_e(j['note'])}</td></tr>"
        for j in rows
    )
    return (
        "<h2>Judgments</h2><table><thead><tr><th>Criterion</th><th>Verdict</th><th>Provenance</th><th>Note</th>"
        f"</tr></thead><tbody>{''.join(table)}</tbody></table>\n"
        f"<details><summary>History ({_plural(len(rows), 'judgment')}, append-only)</summary><table><thead><tr><th>Id</th>"
        "<th>At</th><th>By</th><th>Criterion</th><th>Verdict</th><th>Note</th></tr></thead>"
        f"<tbody>{history}</tbody></table></details>"
    )


def _findings_html(findings: list[dict[str, Any]], step_idxs: set[int], clips: ClipMaker) -> str:
    if not findings:
        return "<h2>Findings</h2><p class=muted>No findings.</p>"
    items = []
    for f in findings:
        step = f.get("step")
        where = (f'<a href="#step-{int(step)}">{step_place(step)}</a>' if step in step_idxs
                 else _e(step_place(step, "whole run")))
        crit = f" <span class=muted>({_e(f['criterion'])})</span>" if f.get("criterion") else ""
        items.append(f"<li><span class=\"kind k-{_e(f['kind'])}\">{_e(f['kind'])}</span> {where}: "
                     f"{_e(f['message'])}{crit}{_evidence(f.get('evidence'))}{clips.html(f)}</li>")
    return f"<h2>Findings ({len(findings)})</h2><ol class=findings>{''.join(items)}</ol>"


def _evidence(evidence: Any) -> str:
    if evidence in (None, "", {}, []):
        return ""
    text = evidence if isinstance(evidence, str) else json.dumps(evidence, indent=1, ensure_ascii=False)
    if len(text) > EVIDENCE_CHARS:
        text = text[:EVIDENCE_CHARS] + " …"
    return f"<details><summary>evidence</summary><pre>{_e(text)}</pre></details>"


def _strip_html(steps: list[dict[str, Any]]) -> str:
    cells = []
    for s in steps:
        cls = "bad" if s.get("findings") else "refused" if s["outcome"] == "refused" else (
            "same" if not s.get("changed_bbox") else "ok")
        cells.append(f'<a class="{cls}" href="#step-{s["idx"]}" title="{step_place(s["idx"])}: {_e(_caption(s))}">'
                     f'{step_number(s["idx"])}</a>')
    return f"<nav class=strip aria-label=steps><span>Steps</span>{''.join(cells)}</nav>" if cells else ""


# -- timeline ---------------------------------------------------------------------------
def _caption(step: dict[str, Any]) -> str:
    data = step.get("action")
    if isinstance(data, dict):
        try:
            return action_to_call(action_from_dict(data))
        except ActionParseError:
            pass  # written by an older or newer PlayCoder: show it as stored
    return data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)


def _step_html(step: dict[str, Any], findings: list[dict[str, Any]], logs: list[dict[str, Any]],
               frames: _FrameSheet, t0: float) -> str:
    idx = int(step["idx"])
    stored = step.get("action")
    action: dict[str, Any] = stored if isinstance(stored, dict) else {}
    timing = [f"t+{float(step['started_at']) - t0:.2f} s"]
    for key, label in (("decide_ms", "decide"), ("act_ms", "act"), ("settle_ms", "settle"),
                       ("busy_ms", "program busy"), ("waited_ms", "engine waited")):
        if step.get(key) is not None:
            timing.append(f"{label} {float(step[key]):.0f} ms")
    if step.get("settled") == 0:
        timing.append("did not settle")
    if step.get("tokens_in") or step.get("tokens_out"):
        timing.append(f"{step.get('tokens_in') or 0}/{step.get('tokens_out') or 0} tokens")
    badges = "".join(f'<span class="kind k-{_e(f["kind"])}">{_e(f["kind"])}</span>' for f in findings)
    items = "".join(f"<li><span class=\"kind k-{_e(f['kind'])}\">{_e(f['kind'])}</span> {_e(f['message'])}"
                    f"{_evidence(f.get('evidence'))}</li>" for f in findings)
    unit = max(1.0, frames.width(step.get("frame_before")) / OVERLAY_REF_WIDTH)
    before = frames.figure(step.get("frame_before"), "before", _action_svg(action, unit), _key_badge(action, step))
    after = frames.figure(step.get("frame_after"), "after", _bbox_svg(step.get("changed_bbox")), "")
    changed = "no visible change" if not step.get("changed_bbox") else "changed region outlined"
    reference = _reference_html(step, frames)
    return (
        f'<section class=step id="step-{idx}"><h3><a href="#step-{idx}">#{step_number(idx)}</a> <code>{_e(_caption(step))}</code> '
        f'<span class=actor>{_e(step.get("actor"))}</span> <span class="outcome o-{_e(step["outcome"])}">'
        f'{_e(step["outcome"])}</span> {badges}</h3>\n'
        f"<p class=rationale>{_e(step.get('rationale') or '')}</p>\n"
        f"<p class=timing>{_e(' · '.join(timing))} · {changed}</p>\n"
        f"<div class=pair>{before}{after}</div>\n{reference}"
        + "".join(_divergence_html(f, frames) for f in findings if f.get("kind") == "diverged")
        + "".join(_glitch_html(f, frames) for f in findings if f.get("kind") == "glitch") +
        f"{'<ul class=findings>' + items + '</ul>' if items else ''}{_log_pre(logs, t0)}</section>"
    )


def _reference_html(step: dict[str, Any], frames: _FrameSheet) -> str:
    """Differential play's every step: candidate (the step's after) | reference | difference; "" without one."""
    ref = step.get("frame_reference")
    cand = step.get("frame_after")
    if not ref or not cand:
        return ""
    return (f"<div class=triple>{frames.figure(cand, 'candidate', '', '')}{frames.figure(ref, 'reference', '', '')}"
            f"{frames.difference(cand, ref, '')}</div>\n")


def _divergence_html(finding: dict[str, Any], frames: _FrameSheet) -> str:
    """Differential play's evidence: candidate | reference | difference (differing pixels in red)."""
    ev = finding.get("evidence")
    if not isinstance(ev, dict) or not ev.get("candidate_frame") or not ev.get("reference_frame"):
        return ""
    bbox = _bbox_svg(ev.get("bbox"))
    cand = frames.figure(ev["candidate_frame"], "candidate", bbox, "")
    ref = frames.figure(ev["reference_frame"], "reference", bbox, "")
    diff = frames.difference(ev["candidate_frame"], ev["reference_frame"], bbox)
    return f"<div class=triple>{cand}{ref}{diff}</div>\n"


def _glitch_html(finding: dict[str, Any], frames: _FrameSheet) -> str:
    """The flash's evidence: the picture before it | the flash (its changed region outlined)."""
    ev = finding.get("evidence")
    if not isinstance(ev, dict) or not ev.get("frame_before") or not ev.get("frame_flash"):
        return ""
    bbox = _bbox_svg(ev.get("bbox"))
    before = frames.figure(ev["frame_before"], "before the flash", "", "")
    flash = frames.figure(ev["frame_flash"], f"the flash ({float(ev.get('seconds') or 0) * 1000:.0f} ms)", bbox, "")
    return f"<div class=pair>{before}{flash}</div>\n"


def _action_svg(action: dict[str, Any], unit: float) -> str:
    """The action in frame pixels; ``unit`` frame pixels make about one screen pixel in the report."""
    name = action.get("action")
    try:
        x, y = float(action["x"]), float(action["y"])
    except (KeyError, TypeError, ValueError):
        return ""
    ring = f'stroke="{POINTER}" stroke-width="3" vector-effect="non-scaling-stroke"'

    def circle(r: float, fill: str = "none", extra: str = "") -> str:
        return f'<circle cx="{x}" cy="{y}" r="{r * unit:g}" fill="{fill}" {ring}{extra}/>'

    if name in ("drag", "scroll"):
        if name == "drag":
            try:
                x2, y2 = float(action["x2"]), float(action["y2"])
            except (KeyError, TypeError, ValueError):
                return ""
        else:
            dx, dy = _SCROLL_VECTORS.get(str(action.get("direction")), (0, 1))
            x2, y2 = x + SCROLL_ARROW * unit * dx, y + SCROLL_ARROW * unit * dy
        return (f'{circle(8)}<line x1="{x}" y1="{y}" x2="{x2:g}" y2="{y2:g}" {ring} '
                'marker-end="url(#arrow)"/>')
    dot = f'<circle cx="{x}" cy="{y}" r="{2.5 * unit:g}" fill="{POINTER}"/>'
    extra = circle(7) if name == "double_click" else ""
    dash = ' stroke-dasharray="4,3"' if name == "right_click" else ""
    return f"{circle(13, 'rgba(229,72,77,.18)', dash)}{extra}{dot}"


def _key_badge(action: dict[str, Any], step: dict[str, Any]) -> str:
    """Keyboard and timing actions have no position: label the picture instead."""
    if action.get("action") in ("type", "press", "hotkey", "wait", "finish"):
        return f"<span class=keycap>{_e(_caption(step))}</span>"
    return ""


def _bbox_svg(bbox: Any) -> str:
    if not isinstance(bbox, list) or len(bbox) != 4:
        return ""
    x0, y0, x1, y1 = (float(v) for v in bbox)
    x0, y0, x1, y1 = x0 - BBOX_PAD, y0 - BBOX_PAD, x1 + BBOX_PAD, y1 + BBOX_PAD
    return (f'<rect x="{x0}" y="{y0}" width="{x1 - x0}" height="{y1 - y0}" fill="none" '
            f'stroke="{CHANGED}" stroke-width="2" stroke-dasharray="6,3" vector-effect="non-scaling-stroke"/>')


def _bucket_logs(logs: list[dict[str, Any]], steps: list[dict[str, Any]]
                 ) -> tuple[list[list[dict[str, Any]]], list[dict[str, Any]], list[dict[str, Any]]]:
    """A step owns the lines from its start until the next step starts; the last step until its end."""
    starts = [float(s["started_at"]) for s in steps]
    per_step: list[list[dict[str, Any]]] = [[] for _ in steps]
    before: list[dict[str, Any]] = []
    after: list[dict[str, Any]] = []
    last_end = float(steps[-1]["ended_at"]) if steps else float("-inf")
    for line in logs:
        t = float(line["t"])
        i = bisect_left(starts, t + 1e-9) - 1 if steps else -1
        if i < 0:
            before.append(line)
        elif i == len(steps) - 1 and t > last_end:
            after.append(line)
        else:
            per_step[i].append(line)
    return per_step, before, after


def _log_pre(lines: list[dict[str, Any]], t0: float) -> str:
    if not lines:
        return ""
    body = "\n".join(
        f'<span class="{"err" if line["stream"] == "stderr" else "out"}"><span class=t>+{float(line["t"]) - t0:.2f}'
        f"</span> {_e(line['text'])}</span>" for line in lines
    )
    return f"<details class=logs open><summary>Target log ({_plural(len(lines), 'line')})</summary><pre>{body}</pre></details>"


def _log_block(title: str, lines: list[dict[str, Any]], t0: float) -> str:
    return f"<section class=aside><h3>{_e(title)}</h3>{_log_pre(lines, t0)}</section>"


# -- frames -------------------------------------------------------------------------------
class _FrameSheet:
    """Embeds each distinct frame once as a CSS class; figures refer to it by name."""

    def __init__(self, store: TrajectoryStore) -> None:
        self.store = store
        self.rules: dict[str, str] = {}
        self.sizes: dict[str, tuple[int, int]] = {}
        self.differences: dict[str, tuple[int, int]] = {}
        """Difference pictures embedded so far (``diff`` + both addresses' heads) and their sizes."""

    def width(self, sha: str | None) -> int:
        """The stored width of a frame (0 when there is none), embedding it on first use."""
        size = self._load(sha) if sha else None
        return size[0] if size else 0

    def figure(self, sha: str | None, label: str, overlay: str, badge: str) -> str:
        size = self._load(sha) if sha else None
        if sha is None or size is None:
            return f"<figure><figcaption>{_e(label)}</figcaption><div class=noframe>no frame</div></figure>"
        w, h = size
        shown = min(w, MAX_FRAME_WIDTH)
        return (
            f'<figure style="max-width:{shown}px"><figcaption>{_e(label)}</figcaption>'
            f'<div class="frame f{sha[:16]}" style="aspect-ratio:{w}/{h}" role=img aria-label="{_e(label)} frame">'
            f'<svg viewBox="0 0 {w} {h}" preserveAspectRatio="none">{overlay}</svg>{badge}</div></figure>'
        )

    def difference(self, a: str, b: str, overlay: str) -> str:
        """A figure of frame ``a`` greyed, with the pixels that differ from ``b`` in red
        (:mod:`app.engine.trace.difference`); each pair is computed and embedded once."""
        key = f"diff{a[:8]}{b[:8]}"
        if key not in self.differences:
            fa, fb = self.store.frame(a), self.store.frame(b)
            found = picture_difference(np.asarray(fa.image()), np.asarray(fb.image())) \
                if fa is not None and fb is not None else None
            if found is None:
                return "<figure><figcaption>difference</figcaption><div class=noframe>sizes differ</div></figure>"
            image = Image.fromarray(found.picture, "RGB")
            buf = io.BytesIO()
            image.save(buf, format="PNG")
            uri = f"data:image/png;base64,{base64.b64encode(buf.getvalue()).decode('ascii')}"
            self.rules[key] = f'.f{key}{{background-image:url("{uri}")}}'
            self.differences[key] = image.size
        w, h = self.differences[key]
        return (f'<figure style="max-width:{min(w, MAX_FRAME_WIDTH)}px"><figcaption>difference</figcaption>'
                f'<div class="frame f{key}" style="aspect-ratio:{w}/{h}" role=img aria-label="difference frame">'
                f'<svg viewBox="0 0 {w} {h}" preserveAspectRatio="none">{overlay}</svg></div></figure>')

    def _load(self, sha: str) -> tuple[int, int] | None:
        if sha in self.sizes:
            return self.sizes[sha]
        frame = self.store.frame(sha)
        if frame is None:
            return None
        if frame.width <= MAX_FRAME_WIDTH and frame.format == "png":
            mime, data = "image/png", frame.data
        else:
            image = frame.image()
            if image.width > MAX_FRAME_WIDTH:
                height = max(1, round(image.height * MAX_FRAME_WIDTH / image.width))
                image = image.resize((MAX_FRAME_WIDTH, height), Image.Resampling.LANCZOS)
            buf = io.BytesIO()
            image.save(buf, format="JPEG", quality=JPEG_QUALITY)
            mime, data = "image/jpeg", buf.getvalue()
        uri = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
        self.rules[sha] = f'.f{sha[:16]}{{background-image:url("{uri}")}}'
        self.sizes[sha] = (frame.width, frame.height)
        return self.sizes[sha]

    def css(self) -> str:
        return "\n".join(self.rules.values())


_CSS = """
:root{--fg:#1d2330;--muted:#6b7385;--line:#e3e6ec;--bg:#f7f8fa;--card:#fff;--accent:#2d6cdf}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:1240px;margin:0 auto;padding:20px 24px 60px}
h1{font-size:26px;margin:0 0 6px}h1 small{color:var(--muted);font-weight:400;font-size:16px}
h2{font-size:19px;margin:28px 0 10px;border-bottom:1px solid var(--line);padding-bottom:4px}
h3{font-size:16px;margin:0 0 4px;display:flex;gap:8px;align-items:center;flex-wrap:wrap}
a{color:var(--accent);text-decoration:none}a:hover{text-decoration:underline}
code,pre{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,monospace;font-size:13px}
header{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:16px 20px}
.meta{display:grid;grid-template-columns:repeat(auto-fill,minmax(200px,1fr));gap:6px 18px;margin:12px 0 0}
.meta dt{font-size:12px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}.meta dd{margin:0;overflow-wrap:anywhere}
.reason,.provenance{margin:4px 0}.error{color:#b42318}.muted{color:var(--muted)}
.verdict{display:inline-block;padding:1px 10px;border-radius:999px;font-size:14px;font-weight:600;text-transform:uppercase;vertical-align:middle;background:#e9ebf0;color:#444}
.v-pass{background:#dcf5e3;color:#146c2e}.v-fail{background:#fde2e1;color:#b42318}.v-uncertain{background:#fff1d6;color:#8a5a00}
table{border-collapse:collapse;width:100%;background:var(--card);border:1px solid var(--line);border-radius:8px}
th,td{text-align:left;padding:6px 10px;border-bottom:1px solid var(--line);vertical-align:top;font-size:14px}
th{font-size:12px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
details{margin:8px 0}summary{cursor:pointer;color:var(--muted)}
.triple{display:grid;grid-template-columns:repeat(3,1fr);gap:10px;margin:8px 0}.triple.zoom{grid-template-columns:1fr}
.triple.zoom figure{max-width:100%!important}
.findings{padding-left:22px}.findings li{margin:4px 0}
.clip{margin:6px 0 10px;max-width:380px}.clip img{display:block;max-width:100%;border:1px solid var(--line);border-radius:4px}
.clip figcaption{text-transform:none;letter-spacing:0}
.kind{display:inline-block;padding:0 7px;border-radius:4px;font-size:12px;font-weight:600;background:#fde2e1;color:#b42318}
.k-refused{background:#fff1d6;color:#8a5a00}
.strip{display:flex;flex-wrap:wrap;gap:3px;margin:18px 0 0;align-items:center}.strip span{font-size:12px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em;margin-right:6px}
.strip a{min-width:30px;text-align:center;padding:2px 4px;border-radius:4px;font-size:12px;background:#dde7fa;color:#1d3f8f}
.strip a.same{background:#eceef2;color:var(--muted)}.strip a.bad{background:#f8c9c6;color:#8c1d13}.strip a.refused{background:#ffe3a8}
.step,.aside{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:12px 16px;margin:14px 0;scroll-margin-top:10px}
.step:target{outline:2px solid var(--accent)}
.step h3 code{background:#eef1f6;padding:1px 6px;border-radius:4px}
.actor{color:var(--muted);font-size:13px;font-weight:400}
.outcome{font-size:12px;padding:0 7px;border-radius:4px;background:#dcf5e3;color:#146c2e}.o-refused{background:#fff1d6;color:#8a5a00}
.rationale{margin:2px 0;font-style:italic}.timing{margin:2px 0 8px;color:var(--muted);font-size:13px}
.pair{display:flex;gap:14px;align-items:flex-start}.pair.zoom{flex-direction:column}
.pair.zoom figure{max-width:100%!important}
figure{margin:0;flex:1 1 0;min-width:0}figcaption{font-size:12px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
.frame{position:relative;width:100%;background-size:100% 100%;border:1px solid var(--line);border-radius:4px;cursor:zoom-in}
.frame svg{position:absolute;inset:0;width:100%;height:100%;overflow:visible;filter:drop-shadow(0 0 1px #fff) drop-shadow(0 0 1px #fff)}
.keycap{position:absolute;left:6px;top:6px;background:rgba(20,24,33,.82);color:#fff;font:12px ui-monospace,monospace;padding:2px 7px;border-radius:4px}
.noframe{padding:30px;text-align:center;color:var(--muted);border:1px dashed var(--line)}
.logs pre{background:#f2f4f7;padding:8px 10px;border-radius:6px;margin:4px 0 0;white-space:pre-wrap;overflow-wrap:anywhere;max-height:260px;overflow:auto}
.logs .t{color:var(--muted)}.logs .err{color:#b42318}
footer{margin-top:30px;color:var(--muted);font-size:13px}
"""

_JS = """
(function(){
  var steps = Array.prototype.slice.call(document.querySelectorAll('section.step'));
  var last = -1;  // where the keys last went: the final steps may never reach the top of the window
  function current(){
    var at = -1;
    for (var i = 0; i < steps.length; i++) { if (steps[i].getBoundingClientRect().top <= 40) at = i; }
    return at;
  }
  document.addEventListener('keydown', function(e){
    if (e.altKey || e.ctrlKey || e.metaKey || !steps.length) return;
    var d = (e.key === 'ArrowRight' || e.key === 'j') ? 1 : (e.key === 'ArrowLeft' || e.key === 'k') ? -1 : 0;
    if (!d) return;
    e.preventDefault();
    var atBottom = window.innerHeight + window.scrollY >= document.body.scrollHeight - 2;
    var from = (atBottom && last >= 0) ? last : current();
    var i = last = Math.max(0, Math.min(steps.length - 1, from + d));
    steps[i].scrollIntoView({block: 'start'});
    history.replaceState(null, '', '#' + steps[i].id);
  });
  document.querySelectorAll('.frame').forEach(function(f){
    f.addEventListener('click', function(){ f.closest('.pair, .triple').classList.toggle('zoom'); });
  });
})();
"""
