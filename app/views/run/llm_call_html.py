"""HTML for a step's model calls in the step details pane.

Each ``llm_calls`` row (one per attempt, see :mod:`app.engine.llm.client`)
becomes a line with its phase, model, tokens in/out ("estimated" when the
provider sent no usage and the engine counted), cost and latency, followed by
collapsed request and response texts.  A request is stored as the provider's
wire JSON with every picture replaced by ``{"type": "image", "image": SHA256}``
(:meth:`app.engine.llm.providers.Provider.record_image`), so a picture shows as
its frame hash and, when the view can load it, as a thumbnail
(``<img src="frame:SHA">``).  The links ``llm:request:ID`` and
``llm:response:ID`` open and close a text; the view keeps which are open.
"""

from __future__ import annotations

import html
import json
from typing import Any, Iterable

from app.views.widgets.verdict_style import NO_VERDICT_COLOR, VERDICT_COLORS

LINK_SCHEME = "llm"
FRAME_SCHEME = "frame"
HASH_CHARS = 12
"""How much of a frame hash is shown (the full hash is the thumbnail's tooltip)."""
PREVIEW_CHARS = 140
"""A collapsed response shows this many characters."""
THUMB_WIDTH = 96
SECTIONS = ("request", "response")

Expanded = set[tuple[int, str]]
"""Open texts: (llm_calls row id, "request" or "response")."""


def link_target(url: str) -> tuple[int, str] | None:
    """``llm:request:12`` -> (12, "request"); None for any other link."""
    scheme, _, rest = url.partition(":")
    section, _, number = rest.partition(":")
    if scheme != LINK_SCHEME or section not in SECTIONS or not number.isdigit():
        return None
    return int(number), section


def calls_html(calls: Iterable[dict[str, Any]], expanded: Expanded, *, thumbnails: bool = True) -> str:
    """The "Model calls" section for ``calls`` (empty string when there are none)."""
    rows = list(calls)
    if not rows:
        return ""
    parts = ['<p style="margin-top:8px; margin-bottom:2px"><b>Model calls</b> '
             f'<span style="color:{NO_VERDICT_COLOR}">({len(rows)})</span></p>']
    for call in rows:
        parts.append(_call_html(call, expanded, thumbnails))
    return "".join(parts)


def _call_html(call: dict[str, Any], expanded: Expanded, thumbnails: bool) -> str:
    call_id = int(call.get("id") or 0)
    phase = str(call.get("phase") or "call").replace("_", " ")
    model = html.escape(str(call.get("model") or "?"))
    provider = html.escape(str(call.get("provider") or ""))
    facts = [f"<b>{html.escape(phase)}</b>", f"<code>{model}</code>" + (f" ({provider})" if provider else "")]
    tin, tout = call.get("tokens_in"), call.get("tokens_out")
    if tin is not None or tout is not None:
        estimated = " <i>estimated</i>" if call.get("tokens_estimated") else ""
        facts.append(f"{tin or 0} in / {tout or 0} out tokens{estimated}")
    facts.append(cost_text(call.get("cost")))
    if call.get("latency_ms") is not None:
        facts.append(f"{float(call['latency_ms']):.0f} ms")
    line = " · ".join(facts)
    error = call.get("error")
    if error:
        line += f'<br><span style="color:{VERDICT_COLORS["fail"]}">{html.escape(str(error))}</span>'
    out = [f'<p style="margin-top:6px; margin-bottom:0">{line}</p>']
    request = call.get("request")
    if request:
        out.append(_section(call_id, "request", expanded, _request_html(str(request), thumbnails)))
    response = call.get("response")
    if response is not None:
        text = str(response)
        preview = html.escape(text[:PREVIEW_CHARS] + ("…" if len(text) > PREVIEW_CHARS else ""))
        out.append(_section(call_id, "response", expanded, _pre(html.escape(text)), preview))
    return "".join(out)


def cost_text(cost: Any) -> str:
    """``$0.0123``; "cost unknown" when the model has no price in prices.toml."""
    if cost is None:
        return "cost unknown"
    value = float(cost)
    return f"${value:.4f}" if value < 1 else f"${value:.2f}"


def _section(call_id: int, section: str, expanded: Expanded, body: str, preview: str = "") -> str:
    is_open = (call_id, section) in expanded
    arrow = "▾" if is_open else "▸"
    link = f'<a href="{LINK_SCHEME}:{section}:{call_id}">{arrow} {section}</a>'
    if not is_open:
        tail = f' <span style="color:{NO_VERDICT_COLOR}">{preview}</span>' if preview else ""
        return f'<p style="margin:0 0 0 12px">{link}{tail}</p>'
    return f'<p style="margin:0 0 0 12px">{link}</p><div style="margin-left:24px">{body}</div>'


def _pre(text: str) -> str:
    return f'<pre style="margin-top:0; margin-bottom:4px; font-size:9pt; white-space:pre-wrap">{text}</pre>'


def _request_html(raw: str, thumbnails: bool) -> str:
    """The request as role-headed texts and pictures; the raw text when it is not wire JSON."""
    try:
        wire = json.loads(raw)
    except ValueError:
        return _pre(html.escape(raw))
    if not isinstance(wire, dict) or not isinstance(wire.get("messages"), list):
        return _pre(html.escape(raw))
    out: list[str] = []
    if isinstance(wire.get("system"), str):  # Anthropic keeps the system prompt apart
        out.append(_role("system") + _pre(html.escape(wire["system"])))
    for message in wire["messages"]:
        if not isinstance(message, dict):
            continue
        out.append(_role(str(message.get("role") or "?")))
        content = message.get("content")
        if isinstance(content, str):
            out.append(_pre(html.escape(content)))
            continue
        for part in content if isinstance(content, list) else []:
            if not isinstance(part, dict):
                continue
            if part.get("type") == "text":
                out.append(_pre(html.escape(str(part.get("text") or ""))))
            elif part.get("type") == "image":
                out.append(_image_html(part, thumbnails))
    return "".join(out)


def _role(role: str) -> str:
    return f'<p style="margin:2px 0 0 0; color:{NO_VERDICT_COLOR}"><b>{html.escape(role)}</b></p>'


def _image_html(part: dict[str, Any], thumbnails: bool) -> str:
    sha = str(part.get("image") or "")
    size = part.get("size")
    dims = f" {size[0]}×{size[1]}" if isinstance(size, list) and len(size) == 2 else ""
    label = f'<code>[image {html.escape(sha[:HASH_CHARS]) or "?"}{dims}]</code>'
    if thumbnails and sha:
        label = (f'<img src="{FRAME_SCHEME}:{html.escape(sha)}" width="{THUMB_WIDTH}" title="{html.escape(sha)}"> '
                 + label)
    return f'<p style="margin:2px 0 4px 0">{label}</p>'
