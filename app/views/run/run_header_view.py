"""RunHeaderView: the open run's title, facts and effective-verdict badge, plus the Frames/Live switch."""

from __future__ import annotations

import html
import time
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QButtonGroup, QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from app.engine.trace.repair_plays import REPAIR_KIND, variant_text
from app.views.run.llm_call_html import cost_text
from app.views.widgets.verdict_style import badge_html, status_color, verdict_badge_html

FRAMES_PAGE, LIVE_PAGE = 0, 1


class RunHeaderView(QWidget):
    sig_page_requested = Signal(int)
    """Emitted with FRAMES_PAGE or LIVE_PAGE when the user flips the Frames/Live switch."""
    sig_repair_requested = Signal(int, int)
    """Emitted with (repair session run id, iteration or -1) when the user asks to see the run's repair."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("RunHeader")
        self.title = QLabel(self)
        self.title.setObjectName("RunTitle")
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.meta = QLabel(self)
        self.meta.setObjectName("Muted")
        self.meta.setTextFormat(Qt.TextFormat.RichText)
        self.meta.setWordWrap(True)  # a long line of facts wraps; it must not widen the run view past the run list
        self.frames_button = QToolButton(self)
        self.frames_button.setText("Step frames")
        self.live_button = QToolButton(self)
        self.live_button.setText("Live")
        group = QButtonGroup(self)
        group.setExclusive(True)
        for i, button in enumerate((self.frames_button, self.live_button)):
            button.setCheckable(True)
            button.setObjectName("Segment")
            group.addButton(button, i)
        self.frames_button.setChecked(True)
        group.idClicked.connect(self._on_switch_clicked)
        self.repair_button = QToolButton(self)
        self.repair_button.setObjectName("RepairLink")
        self.repair_button.clicked.connect(self._on_repair_button_clicked)
        self._repair: tuple[int, int] | None = None
        """(session, iteration or -1) of the run shown when it is a repair session or one of its plays."""
        self.live_state: str | None = None
        """The live run's control state (running, paused, stopping) while the shown run is the live one."""
        self.set_live_available(False)

        text = QVBoxLayout()
        text.setSpacing(1)
        text.addWidget(self.title)
        text.addWidget(self.meta)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.addLayout(text, 1)
        layout.addWidget(self.repair_button)
        layout.addWidget(self.frames_button)
        layout.addWidget(self.live_button)
        self.show_run(None, None)

    def show_run(self, run: dict[str, Any] | None, effective: str | None, *, steps: int = 0,
                 usage: dict[str, Any] | None = None, repair: tuple[int, int] | None = None) -> None:
        """Show ``run`` (None: nothing); ``usage`` is the store's ``llm_usage`` totals for an LLM run;
        ``repair`` the (session, iteration) of a repair's play."""
        session = run is not None and run.get("kind") == REPAIR_KIND
        self._repair = (int(run["id"]), -1) if session and run is not None else repair
        self.repair_button.setVisible(self._repair is not None)
        if self._repair is not None:
            self.repair_button.setText(f"Open repair #{self._repair[0]}…")
            self.repair_button.setToolTip("Show this repair's cycles, patches and plays in the repair window")
        if run is None:
            self.title.setText("<b>No run selected</b>")
            self.meta.setText("Choose a run on the left, or start one with File › New run… (Ctrl+N).")
            return
        target = html.escape(str(run.get("target") or ""))
        if effective is None and run.get("status") == "running":
            state = self.live_state if self.live_state in ("paused", "stopping") else "running"
            badge = badge_html(state, status_color(state).name())
        else:
            badge = verdict_badge_html(effective)
        self.title.setText(
            f'<span style="font-size:13pt; font-weight:600">Run #{run["id"]} · {target}</span>'
            f"&nbsp;&nbsp;{badge}"
        )
        started = run.get("started_at")
        ended = run.get("ended_at")
        duration = f"{float(ended) - float(started):.1f} s" if started and ended else "in progress"
        status = str(run.get("status") or "")
        facts = [
            f"tester <b>{html.escape(str(run.get('tester')))}</b>",
            f"display {html.escape(str(run.get('display') or '—'))}",
            f"seed {run.get('seed')}",
            f"{steps} steps",
            duration,
            time.strftime("%Y-%m-%d %H:%M", time.localtime(float(started))) if started else "",
            f'<span style="color:{status_color(status).name()}">{html.escape(status)}</span>',
        ]
        if status == "stopped" and run.get("verdict"):
            facts[-1] += " (verdict of the steps seen before the stop)"
        if run.get("window_width"):
            facts.insert(2, f"window {run['window_width']}×{run['window_height']}")
        if usage:
            facts.insert(-2, _usage_text(usage))
        if session:
            facts.insert(0, "<b>repair session</b>")
        elif repair is not None:
            facts.insert(0, f"<b>play of repair #{repair[0]}: {html.escape(variant_text(repair[1]))}</b>")
        self.meta.setText(" · ".join(f for f in facts if f))
        self.meta.setToolTip(_usage_tip(usage) if usage else "")

    def set_live_available(self, available: bool) -> None:
        self.frames_button.setVisible(available)
        self.live_button.setVisible(available)

    def set_page(self, page: int) -> None:
        (self.live_button if page == LIVE_PAGE else self.frames_button).setChecked(True)

    def _on_repair_button_clicked(self) -> None:
        if self._repair is not None:
            self.sig_repair_requested.emit(*self._repair)

    def _on_switch_clicked(self, page: int) -> None:
        self.sig_page_requested.emit(page)


def _usage_text(usage: dict[str, Any]) -> str:
    """``12,345 tokens · $0.0123`` for the header line."""
    tokens = int(usage.get("tokens_in") or 0) + int(usage.get("tokens_out") or 0)
    estimated = " (some estimated)" if usage.get("estimated") else ""
    cost = cost_text(usage.get("cost")) if usage.get("priced") else "cost unknown"
    if usage.get("priced") and usage["priced"] < usage.get("calls", 0):
        cost += "+"
    return f"{tokens:,} tokens{estimated} · {cost}"


def _usage_tip(usage: dict[str, Any]) -> str:
    return (f"{usage.get('calls', 0)} model calls: {int(usage.get('tokens_in') or 0):,} tokens in, "
            f"{int(usage.get('tokens_out') or 0):,} out; {usage.get('estimated', 0)} counted locally because the "
            f"provider sent no usage; {usage.get('priced', 0)} with a known price.")
