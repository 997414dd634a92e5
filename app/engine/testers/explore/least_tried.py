"""The last strategy: the offline explorer's least-tried input on this screen, seeing more than it does.

:class:`LeastTried` is :class:`~app.engine.testers.offline.OfflineExplorer` (screens by perceptual hash,
actions counted per screen, dialogs escaped, fields focused before typing) with the explorer's eyes: the
widgets the toolkit knows when the program answers from inside (exact boxes, enabled ones only, menu
shortcuts), a grid of clicks over a drawing surface that reads clicks, and every text shown noted as novelty.
"""

from __future__ import annotations

from dataclasses import replace

from app.engine.play.actions import Action, Click, Press
from app.engine.play.inside import InsideWidget
from app.engine.play.observer import Frame, Observation
from app.engine.play.xwidgets import Widget
from app.engine.testers.base import Decision
from app.engine.testers.explore.forms import shortcut_action
from app.engine.testers.explore.state import Explored
from app.engine.testers.offline import SURFACE_SHARE, OfflineExplorer, _View

QUIT_WORDS = ("quit", "exit", "close")
"""Menu items named so are not used (their shortcuts end the program) unless ending is declared."""
INSIDE_WIDGET = {"entry": "entry", "text": "text", "list": "list"}
SURFACE_GRID = 3
"""A drawing surface that reads clicks is clicked at SURFACE_GRID × SURFACE_GRID points (its centre one of them)."""
CLICK_BUTTONS = frozenset({"left", "right", "middle", "double"})


class LeastTried(OfflineExplorer):
    """The least-tried input, on what the toolkit, the X tree or the image shows."""

    def __init__(self, state: Explored, click_widgets: bool = True, second_clicks: bool = False) -> None:
        super().__init__(click_widgets=click_widgets, second_clicks=second_clicks)
        self.state = state
        self.texts_seen: set[str] = set()
        """Every widget text the program has shown this run (:meth:`note_texts`)."""
        self.surface_of: dict[Action, str] = {}
        """Grid clicks over a drawing surface: the surface each reaches (one control for the oracles)."""
        self.chose_view = False
        """The last decision was this strategy's, on the view it looked at (its widgets are current)."""

    def decide(self, step: int, obs: Observation) -> Decision:
        decision = super().decide(step, obs)
        self.chose_view = True
        return self._spare_the_game(decision)

    def current_view(self, frame: Frame) -> _View:
        """The view looked at last, or a look now."""
        return self._view if self._view is not None else self._look(frame)

    # -- seeing ------------------------------------------------------------------------
    def _look(self, frame: Frame) -> _View:
        view = self._inside_view(frame)
        view = view if view is not None else super()._look(frame)
        return self._spread_on_surface(frame, view)

    def _spread_on_surface(self, frame: Frame, view: _View) -> _View:
        """A program that reads clicks and shows only a drawing surface (a turtle canvas, a game's one window)
        is clicked at a grid of points over it, not at its centre only: a board answers where it is clicked,
        and one point soon stops answering (a full column, a taken square) while others still would."""
        if not self.state.reads.buttons & CLICK_BUTTONS or view.fields or view.dialog is not None:
            return view
        area = frame.width * frame.height
        surfaces = [w for w in view.widgets if w.area >= SURFACE_SHARE * area]
        controls = [w for w in view.widgets if w not in surfaces and "scrollbar" not in (w.cls or "").lower()]
        if any(not any(s.contains(*w.center) for s in surfaces) for w in controls):
            return view  # controls of their own beside the surface (a scrollbar is none): they are its inputs
        if not surfaces:
            if view.widgets:
                return view
            surfaces = [Widget(0, 0, frame.width, frame.height, source="window")]
        clicks = dict(view.clicks)
        for s in surfaces:
            for i in range(1, SURFACE_GRID + 1):
                for j in range(1, SURFACE_GRID + 1):
                    x = s.x0 + s.width * i // (SURFACE_GRID + 1)
                    y = s.y0 + s.height * j // (SURFACE_GRID + 1)
                    clicks.setdefault(Click(x, y), s)
                    self.surface_of.setdefault(Click(x, y), f"surface {s.x0},{s.y0},{s.x1},{s.y1}")
        return replace(view, clicks=clicks)

    def _inside_view(self, frame: Frame) -> _View | None:
        """The widgets the toolkit knows (exact boxes, enabled ones only); None without an answer, or while
        a dialog is open (the X tree tells which window holds which control)."""
        inside = self.state.inside()
        if inside is None or self.ctx is None or inside.toolkit not in ("tk", "qt"):
            return None
        if self.state.dialog_open():
            return None
        found: list[InsideWidget] | None = inside.widgets()
        if not found:
            return None
        self._learn_shortcuts(found)
        self.note_texts(found)
        widgets: list[Widget] = []
        fields: list[Widget] = []
        clicks: dict[Action, Widget] = {}
        named: list[tuple[Widget, InsideWidget]] = []
        for w in found:
            if not (w.visible and w.enabled and w.box is not None) or w.kind in ("menuitem", "label"):
                continue
            x0, y0, x1, y1 = max(0, w.box[0]), max(0, w.box[1]), min(frame.width, w.box[2]), min(frame.height, w.box[3])
            if x1 - x0 < 2 or y1 - y0 < 2:
                continue
            widget = Widget(x0, y0, x1, y1, cls=INSIDE_WIDGET.get(w.kind, w.cls or w.kind), source="inside")
            if w.kind == "other" and not w.has_command:
                continue
            widgets.append(widget)
            named.append((widget, w))
            if w.kind in INSIDE_WIDGET:
                fields.append(widget)
        for widget in widgets:
            clicks.setdefault(Click(*widget.center), widget)
        self.state.buttons = [((w.x0, w.y0, w.x1, w.y1), t.text) for w, t in named if t.kind == "button"]
        return _View(widgets, fields, clicks, [])

    def note_texts(self, widgets: list[InsideWidget]) -> None:
        """A text the program shows for the first time (a result, a label, a new row) is novelty, as a new
        line of code is: the cell it was reached from is credited and the explorer stays on."""
        texts = {w.text.strip() for w in widgets if w.visible and w.text and w.text.strip()}
        fresh = texts - self.texts_seen
        if fresh and self.texts_seen:
            self.state.found += len(fresh)
            self.state.since_new = 0
        self.texts_seen |= texts

    def _learn_shortcuts(self, widgets: list[InsideWidget]) -> None:
        """Keyboard shortcuts the menus show become keys to press (not those of Quit, unless declared)."""
        assert self.ctx is not None
        for w in widgets:
            if not w.shortcut or not w.enabled:
                continue
            name = " ".join((*w.menu_path, w.text)).lower()
            if any(word in name for word in QUIT_WORDS) and not self.ctx.spec.exit_ok:
                continue
            action = shortcut_action(w.shortcut)
            if action is not None and action not in self.keys and action not in self.state.quit_used:
                self.keys.append(action)
                if any(word in name for word in QUIT_WORDS):
                    self.state.quitting.add(action)

    def _words_read(self, fields: list[Widget]) -> bool:
        """No sample word where the program's code was read and reads no typed text, and no text field is in
        sight: a turtle game bound to four arrows answers no word, and the word is one more input it ignores."""
        reads = self.state.reads
        known = bool(reads.keys or reads.buttons)
        return bool(fields) or reads.text or not known

    def _kind(self, action: Action, view: _View) -> str:
        widget = view.clicks.get(action)
        grid = ", a point of a grid over it (the program reads clicks)" if action in self.surface_of else ""
        if widget is not None and widget.source == "inside":
            return f"{widget.cls} (from inside the program){grid}"
        return super()._kind(action, view) + grid

    # -- choosing ----------------------------------------------------------------------
    def _spare_the_game(self, decision: Decision) -> Decision:
        """The explorer's own step while a game is played on (the survival search lives): a key that starts the
        game over, once it was seen to, is kept for a GAME OVER (a moving game's screens are all new, so it
        would be tried again every few steps and lose what was reached); another key the game reads instead."""
        action, s = decision.action, self.state
        if not (s.in_play and isinstance(action, Press) and action.key in s.reads.restarts
                and s.pressed[action] and self.ctx is not None):
            return decision
        others = [k for k in self.keys if isinstance(k, Press) and k.key not in s.reads.restarts]
        if not others:
            return decision
        self._last = None  # not the least-tried choice
        return Decision(self.ctx.rng.choice(others), f"explore: a key the game reads, not {action.key} (it starts "
                                                     "the game over, and was tried: kept for when the game is over)")

    def card(self, action: Action, frame: Frame) -> Widget | None:
        """The widget a click turned over: the largest in sight around the point that is no drawing surface
        (a card, not the '?' drawn on it, which the image shows as a blob of its own)."""
        if not self.chose_view or self._view is None or not isinstance(action, Click):
            return None
        around = [w for w in self._view.widgets if w.contains(action.x, action.y)
                  and w.area < SURFACE_SHARE * frame.width * frame.height]
        return max(around, key=lambda w: w.area) if around else None
