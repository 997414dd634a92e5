"""Verdict and status colours, shared by every view that shows a verdict."""

from __future__ import annotations

import html

from PySide6.QtGui import QColor

VERDICT_COLORS: dict[str, str] = {
    "pass": "#2e7d32",
    "fail": "#c62828",
    "error": "#6b6f76",
    "uncertain": "#b26a00",
}
"""Pass green, fail red, error grey, uncertain amber."""
NO_VERDICT_COLOR = "#8a8f98"
OUTCOME_COLORS: dict[str, str] = {
    "ok": "#2e7d32",
    "refused": "#b26a00",
    "error": "#c62828",
}
STATUS_COLORS: dict[str, str] = {
    "running": "#1565c0",
    "paused": "#b26a00",
    "completed": "#3c4043",
    "stopped": "#b26a00",
    "error": "#c62828",
}


def verdict_color(verdict: str | None) -> QColor:
    return QColor(VERDICT_COLORS.get(verdict or "", NO_VERDICT_COLOR))


def outcome_color(outcome: str | None) -> QColor:
    return QColor(OUTCOME_COLORS.get(outcome or "", VERDICT_COLORS["error"]))


def status_color(status: str | None) -> QColor:
    return QColor(STATUS_COLORS.get(status or "", NO_VERDICT_COLOR))


def badge_html(text: str, color: str, *, size: str = "normal") -> str:
    """A coloured upper-case badge for rich-text labels (Qt rich text has no padding on spans)."""
    weight = "font-size:15pt;" if size == "large" else ""
    return (
        f'<span style="background-color:{color}; color:white; font-weight:600; {weight}">'
        f"&nbsp;{html.escape(text.upper())}&nbsp;</span>"
    )


def verdict_badge_html(verdict: str | None, *, size: str = "normal") -> str:
    return badge_html(verdict or "no verdict", VERDICT_COLORS.get(verdict or "", NO_VERDICT_COLOR), size=size)
