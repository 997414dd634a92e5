"""StepDetailsView: what the tester thought, how long each phase took, its model calls, findings and target log.

Model calls (the LLM tester's ``llm_calls`` rows of the step) are rendered by
:mod:`app.views.run.llm_call_html`; their request and response texts open and
close in place, and the pictures of a request load as thumbnails through the
run view's frame cache.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import QUrl
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QTextBrowser, QWidget

from app.views.widgets.frame_cache import FrameCache
from app.views.run.llm_call_html import FRAME_SCHEME, Expanded, calls_html, link_target
from app.views.run.steps_model import action_caption, step_badge
from app.views.widgets.verdict_style import NO_VERDICT_COLOR, VERDICT_COLORS
from app.views.widgets.step_number import step_text

LOG_BEFORE_S = 2.0
"""Target log lines shown from this long before a step started to the step's end — never later: a line
written after the step ended belongs to a later step (a traceback there is not this step's)."""
MAX_LOG_LINES = 200
Row = dict[str, Any]


def _ms(value: Any) -> str:
    return "—" if value is None else f"{float(value):.0f} ms"


class StepDetailsView(QTextBrowser):
    def __init__(self, parent: QWidget | None = None, *, frames: FrameCache | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("StepDetails")
        self.setOpenLinks(False)
        self.frames = frames
        """Where request pictures come from (None: show their hashes only)."""
        self.expanded: Expanded = set()
        """Which model-call texts are open; kept while moving between steps."""
        self._shown: tuple[Row, list[Row], list[Row], list[Row]] | None = None
        """The step, findings, logs and calls on show, kept to re-render when a call text opens or closes."""
        self.anchorClicked.connect(self._on_anchor_clicked)
        self.show_step(None)

    def show_step(self, step: dict[str, Any] | None, findings: list[dict[str, Any]] | None = None,
                  logs: list[dict[str, Any]] | None = None, *, calls: list[dict[str, Any]] | None = None,
                  empty: str = "Select a step to see its details.") -> None:
        """Render ``step`` with its ``findings``, the target ``logs`` around it and its model ``calls`` (optional)."""
        if step is None:
            self._shown = None
            self.setHtml(f'<p style="color:{NO_VERDICT_COLOR}">{html.escape(empty)}</p>')
            return
        self._shown = (step, findings or [], logs or [], calls or [])
        self._render()

    def toggle_call_text(self, call_id: int, section: str) -> None:
        """Open or close the request or response text of one model call."""
        key = (call_id, section)
        self.expanded.symmetric_difference_update({key})
        if self._shown is not None:
            scroll = self.verticalScrollBar().value()
            self._render()
            self.verticalScrollBar().setValue(scroll)

    def _render(self) -> None:
        assert self._shown is not None
        step, findings, logs, calls = self._shown
        self.setHtml(self.render_html(step, findings, logs, calls, self.expanded, thumbnails=self.frames is not None))

    def loadResource(self, kind: int, name: QUrl | str) -> Any:
        """Request pictures (``frame:SHA``) come from the frame cache as thumbnails."""
        url = QUrl(name)
        if url.scheme() == FRAME_SCHEME and kind == int(QTextDocument.ResourceType.ImageResource.value):
            thumb = self.frames.thumbnail(url.path()) if self.frames is not None else None
            if thumb is not None:
                return thumb
        return super().loadResource(kind, name)

    def _on_anchor_clicked(self, url: QUrl) -> None:
        target = link_target(url.toString())
        if target is not None:
            self.toggle_call_text(*target)

    @staticmethod
    def render_html(step: dict[str, Any], findings: list[dict[str, Any]], logs: list[dict[str, Any]],
                    calls: list[dict[str, Any]] | None = None, expanded: Expanded | None = None, *,
                    thumbnails: bool = False) -> str:
        outcome = str(step.get("outcome") or "")
        kinds = list(step.get("findings") or []) + [str(f.get("kind")) for f in findings]
        badge, badge_color = step_badge(step, kinds)
        color = badge_color.name()
        if badge != outcome:
            badge += f" (action {outcome or 'not done'})"
        caption = html.escape(action_caption(step.get("action")))
        actor = str(step.get("actor") or "tester")
        parts = [
            f'<p style="margin:0"><b style="font-size:12pt">Step {step_text(step.get("idx"))}</b>'
            f'&nbsp;&nbsp;<code style="font-size:11pt">{caption}</code>'
            f'&nbsp;&nbsp;<span style="color:{color}; font-weight:600">{html.escape(badge)}</span>'
            f'&nbsp;&nbsp;<span style="color:{NO_VERDICT_COLOR}">by {html.escape(actor)}</span></p>'
        ]
        rationale = step.get("rationale")
        if rationale:
            parts.append(f'<p style="margin-top:6px">{html.escape(str(rationale))}</p>')
        settled = step.get("settled")
        settle_note = "" if settled is None else (" (settled)" if settled else " (capped — still moving)")
        cells = [("settle", _ms(step.get("settle_ms")) + settle_note), ("decide", _ms(step.get("decide_ms"))),
                 ("act", _ms(step.get("act_ms")))]
        if step.get("busy_ms") is not None:  # of the settle time, the program's and the engine's
            cells[1:1] = [("program busy", _ms(step.get("busy_ms"))), ("engine waited", _ms(step.get("waited_ms")))]
        if step.get("tokens_in") is not None or step.get("tokens_out") is not None:
            cells.append(("tokens", f"{step.get('tokens_in') or 0} in / {step.get('tokens_out') or 0} out"))
        bbox = step.get("changed_bbox")
        if isinstance(bbox, (list, tuple)) and len(bbox) == 4:
            x0, y0, x1, y1 = bbox
            cells.append(("changed", f"{x1 - x0}×{y1 - y0} at ({x0}, {y0})"))
        else:
            cells.append(("changed", "no visible change"))
        row = "".join(
            f'<td style="padding-right:16px"><span style="color:{NO_VERDICT_COLOR}">{k}</span>&nbsp;{html.escape(v)}</td>'
            for k, v in cells
        )
        parts.append(f'<table cellspacing="0" style="margin-top:4px"><tr>{row}</tr></table>')
        if findings:
            items = "".join(
                f'<li><b style="color:{VERDICT_COLORS["fail"]}">{html.escape(str(f.get("kind")))}</b>'
                + (f' [{html.escape(str(f["criterion"]))}]' if f.get("criterion") else "")
                + f' {html.escape(str(f.get("message")))}</li>'
                for f in findings
            )
            parts.append(f'<p style="margin-top:8px; margin-bottom:0"><b>Findings</b></p><ul style="margin-top:2px">{items}</ul>')
        parts.append(calls_html(calls or [], expanded or set(), thumbnails=thumbnails))
        parts.append(StepDetailsView._logs_html(step, logs))
        return "".join(parts)

    @staticmethod
    def _logs_html(step: dict[str, Any], logs: list[dict[str, Any]]) -> str:
        title = f'<p style="margin-top:8px; margin-bottom:2px"><b>Target log</b> <span style="color:{NO_VERDICT_COLOR}">' \
                f"(from {LOG_BEFORE_S:g} s before the step to its end)</span></p>"
        if not logs:
            return title + f'<p style="color:{NO_VERDICT_COLOR}; margin-top:0">no output</p>'
        start = float(step.get("started_at") or 0.0)
        lines = []
        for entry in logs[-MAX_LOG_LINES:]:
            dt = float(entry.get("t") or 0.0) - start
            stream = str(entry.get("stream") or "")
            color = VERDICT_COLORS["fail"] if stream == "stderr" else "#3c4043"
            lines.append(
                f'<span style="color:{NO_VERDICT_COLOR}">{dt:+6.2f}s</span> '
                f'<span style="color:{color}">{html.escape(str(entry.get("text") or ""))}</span>'
            )
        return title + '<pre style="margin-top:0; font-size:9pt">' + "\n".join(lines) + "</pre>"
