"""Leaving the target's dialogs and popups (other top-level windows): a new one is explored for a
few steps, then escaped: Escape, its own controls, then the window manager's close
(WM_DELETE_WINDOW).  The action that opened it counts as a trap (see :mod:`offline_ranking`).
"""

from __future__ import annotations

from app.engine.play.actions import Click, Press, Wait
from app.engine.testers.base import Decision
from app.engine.testers.offline_memory import ExplorerMemory, _DialogState, _View

DIALOG_PATIENCE = 3
"""Steps spent exploring a newly opened dialog (its own controls) before escaping it."""
DIALOG_CLICKS = 2
"""After Escape, clicks on a dialog's own controls before asking it to close as a window manager would."""
CLOSE_WAIT_S = 0.2


class DialogEscape(ExplorerMemory):
    """Tracks which dialogs are open and decides when and how to leave the topmost one."""

    def _track_dialogs(self, step: int, view: _View) -> None:
        open_ids = {t.id for t in view.others}
        for gone in set(self.dialogs) - open_ids:
            del self.dialogs[gone]
            self.focused = None  # the keyboard focus went back to the main window
        if view.dialog is not None and view.dialog.id not in self.dialogs:
            self.dialogs[view.dialog.id] = _DialogState(step, self._last[1] if self._last is not None else None)
            self.focused = None
            self.pending_key = None

    def _escape(self, step: int, view: _View) -> Decision | None:
        """Leave a dialog or popup that stays open: Escape, its own controls, then a window manager's close."""
        d = view.dialog
        if d is None:
            return None
        ds = self.dialogs[d.id]
        age = step - ds.since
        reach = [w for w in view.widgets if w.top == d.id]
        what = f"{d.kind} {d.title!r}" if d.title else f"{d.kind} window 0x{d.id:x}"
        if age < DIALOG_PATIENCE and reach and not self._stuck():
            return None  # explore it first: _choose keeps to its controls
        if not ds.escaped:
            ds.escaped = True
            self.pending_key = None
            if ds.opener is not None:
                self.traps[ds.opener] += 1
            return Decision(Press("escape"), f"escape modal: the {what} has been open for {age} steps; "
                                             "Escape first (keys go to the dialog)")
        if ds.clicks < DIALOG_CLICKS and reach:
            buttons = [w for w in reach if w not in view.fields] or reach
            target = min(buttons, key=lambda w: (self.global_tries[Click(*w.center)], w.y0, w.x0))
            ds.clicks += 1
            return Decision(Click(*target.center),
                            f"escape modal: Escape left the {what} open; click one of its own controls "
                            f"({ds.clicks}/{DIALOG_CLICKS}: OK, Cancel or Close are usually there)")
        if not ds.close_sent and d.kind == "dialog" and self.ctx is not None and self.ctx.windows is not None:
            ds.close_sent = True
            if self.ctx.windows.close(d.id):
                return Decision(Wait(CLOSE_WAIT_S),
                                f"escape modal: the {what} is still open; the explorer asked it to close the way "
                                "a window manager's close button does (WM_DELETE_WINDOW) and waits for it")
        return None  # back off: _choose prefers actions that led to less-visited screens
