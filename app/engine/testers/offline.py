"""The offline explorer: the embedded default tester, no network, no model.

It explores by state coverage: every distinct screen (perceptual hash) keeps a
count of the actions tried there, and the explorer takes the least-tried
action — the target's hinted keys (and combos such as ctrl+s) first, then clicks
on widgets.  It judges only what the generic oracles see (crash, exception,
freeze, no response, blank render); it cannot judge game logic and says so in
its verdict.

Widgets come from the X window tree when the toolkit has native child windows
(Tk, Motif, Xt: exact rectangles, also for buttons that share the window's grey)
and from the image otherwise (SDL/pygame, Qt).  When a typed character goes
nowhere while text fields are in sight, it clicks into one (an entry first)
before the next keys, so they reach a focused widget; key runs are capped and
the least-tried widgets come in between, so typing that makes every screen new
cannot starve the buttons.  A dialog of the target (another top-level window)
is explored for a few steps, then escaped: Escape, its own controls, then the
window manager's close (WM_DELETE_WINDOW); the action that opened it is backed
off from, and when stuck on few screens the explorer prefers actions that led
to less-visited screens.

It is split by idea: :mod:`offline_widgets` and :mod:`offline_fields` find widgets and text fields
in the image, :mod:`offline_memory` holds what the explorer remembers, :mod:`offline_dialogs` leaves
dialogs and :mod:`offline_ranking` ranks the actions on offer.  This module looks at each step,
assembles the actions on offer (keys, the burst of taps, the sample word, clicks) and learns from
what each did.  Names that other modules import from here are re-exported.
"""

from __future__ import annotations

import numpy as np

from app.engine.play.actions import Action, Click, Hotkey, Press, Tap, Type, Wait, action_to_call
from app.engine.play.observer import Frame, Observation
from app.engine.play.targetspec import hinted_action
from app.engine.play.xwidgets import Widget
from app.engine.judge.oracles import Finding
from app.engine.judge.verdict import Evidence, decide
from app.engine.testers.base import Decision, TesterContext, Verdict
from app.engine.testers.offline_dialogs import DialogEscape
from app.engine.testers.offline_fields import detect_fields, looks_like_field
from app.engine.testers.offline_memory import _View, state_hash
from app.engine.testers.offline_ranking import MAX_KEY_RUN, ActionRanking, _is_key
from app.engine.testers.offline_widgets import Box, _rect, detect_widgets, frame_background, glyph_like, parts_of

SAMPLE_WORD = "abc"
"""What the explorer types as a person would: into a text field in sight, or onto a screen that
answered nothing lately (a game's name form waits for letters, not for its play keys)."""
TYPE_AFTER_UNCHANGED = 3
"""Inputs in a row that changed nothing before the sample word is offered on a screen without text fields."""
BURST_TAPS = 6
"""Taps of a game's first hinted key in one step (about a second of play; see Tap)."""
DEAD_CLICKS = 5
"""Clicks that never changed anything over this many tries, while keys did, are no longer tried."""
MAX_PLACES = 256
TWICE_DEAD = 3
"""Second clicks (the same click again, at once) that changed nothing, while none ever did: the program
ignores a repeated click, and no more are spent on it (each costs a step a board game needs for its moves)."""
SURFACE_SHARE = 0.25
"""An X widget this large (share of the window) that is no text field is a drawing surface (a
canvas): the image detector looks inside it as well, as inside a menubar (a bar across the top
drawn in one window) and inside dialogs and popups without child windows (a posted menu)."""
LIST_MIN_H = 60
"""A text field at least this tall holds several lines (a list, an editor): each line is clicked on its own."""
BAR_RATIO = 4
SAME_AGAIN = "the same click again"


def _is_typing(action: Action) -> bool:
    """A key that types a character (or a word): it needs a text widget with the keyboard focus."""
    if isinstance(action, Type):
        return True
    return isinstance(action, Press) and (action.key == "space" or (len(action.key) == 1 and action.key.isprintable()))


def _overlap(a: Box, b: Box) -> int:
    return max(0, min(a[2], b[2]) - max(a[0], b[0])) * max(0, min(a[3], b[3]) - max(a[1], b[1]))


class OfflineExplorer(DialogEscape, ActionRanking):
    name = "offline"

    def begin(self, ctx: TesterContext, first: Observation) -> None:
        self.ctx = ctx
        self.keys = [hinted_action(k) for k in ctx.spec.keys]
        lead = next((k for k in self.keys if isinstance(k, Press)), None)
        self.burst = Tap(lead.key, BURST_TAPS) if lead is not None and ctx.spec.kind == "game" else None
        self.first_state = state_hash(first.frame)
        self.states.add(self.first_state)
        if int(np.ptp(first.frame.array()[::8, ::8, :3])) == 0:
            self.first_state = None  # a window not drawn yet: its first screen is not known

    # -- seeing ----------------------------------------------------------------------
    def _look(self, frame: Frame) -> _View:
        assert self.ctx is not None
        xw = self.ctx.widgets() if self.ctx.widgets is not None else []
        tops = self.ctx.windows.toplevels() if self.ctx.windows is not None else []
        main = next((t for t in tops if t.kind == "main"), None)
        others = [t for t in tops if t.kind != "main"]
        area = frame.width * frame.height
        regions: list[Widget] = []  # dialogs and popups without child windows (a posted menu, a Qt dialog)
        mx, my = (main.x, main.y) if main is not None else (0, 0)
        for t in others if main is not None else []:
            if not any(w.top == t.id for w in xw):
                x0, y0 = t.x - mx, t.y - my
                region = Widget(max(0, x0), max(0, y0), min(frame.width, x0 + t.width),
                                min(frame.height, y0 + t.height), top=t.id, source="window")
                if region.width > 0 and region.height > 0:
                    regions.append(region)
        if xw:
            fields = [w for w in xw if looks_like_field(frame, w, by_look=self.ctx.spec.kind == "app")]
            widgets = []
            for w in xw:
                surface = w.area >= SURFACE_SHARE * area
                menubar = w.y0 <= 2 and w.width >= 0.8 * frame.width and w.width >= BAR_RATIO * w.height
                if w in fields:
                    # A list or editor several lines tall: its lines are targets of their own.  A
                    # click on the middle of a list selects nothing, and keys such as Delete or
                    # Ctrl+D act on a selected row only.
                    parts = parts_of(frame, w, least=1) if w.height >= LIST_MIN_H else []
                    widgets.append(w)
                else:
                    parts = parts_of(frame, w) if surface or menubar else []
                    if surface or not parts:  # a canvas's own surface may matter; a menubar's empty middle does not
                        widgets.append(w)
                widgets += parts
        else:
            widgets = [Widget(*b, source="image") for b in detect_widgets(frame)]
            # Text fields seen only in an image are looked for in apps; in a game the bright
            # rectangles are tiles and cards, and its one window has the keyboard anyway.
            if self.ctx.spec.kind == "app":
                widgets += [Widget(*b, cls="field", source="image") for b in detect_fields(frame)]
            fields = [w for w in widgets if w.cls == "field"]
        if regions:  # what lies under a region is covered by it; the region's own parts take its place
            widgets = [w for w in widgets if not any(r.contains(*w.center) for r in regions)]
            fields = [f for f in fields if f in widgets]
            for region in regions:
                widgets += parts_of(frame, region) or [region]
        clicks: dict[Action, Widget] = {}
        for w in widgets:
            clicks.setdefault(self._place(w, area), w)
        detected = {a: w for a, w in clicks.items() if w.source == "image" and w.cls != "field"}
        bg = frame_background(frame) if detected else None  # once a frame, not once a blob
        glyphs = frozenset(a for a, w in detected.items() if glyph_like(frame, _rect(w), bg))
        return _View(widgets, fields, clicks, others, glyphs)

    def _place(self, w: Widget, area: int) -> Click:
        """Where to click a widget: an image-detected one (not a whole surface) where it was clicked before."""
        if w.source == "image" and w.area < SURFACE_SHARE * area:
            inside = [p for p in self.places if w.contains(p.x, p.y)]
            if inside:
                cx, cy = w.center
                return min(inside, key=lambda p: abs(p.x - cx) + abs(p.y - cy))
        return Click(*w.center)

    def _state(self, frame: Frame, view: _View) -> str:
        state = state_hash(frame)
        if view.dialog is not None:  # a dialog placed outside the captured region still changes the state
            state += f"+{view.dialog.kind}:{view.dialog.title}:{view.dialog.width}x{view.dialog.height}"
        return state

    # -- deciding ----------------------------------------------------------------------
    def decide(self, step: int, obs: Observation) -> Decision:
        assert self.ctx is not None, "begin() first"
        view = self._view = self._look(obs.frame)
        state = self._state(obs.frame, view)
        if self._last is not None:
            self.results[self._last] = state
        self.visits[state] += 1
        self._track_dialogs(step, view)
        escape = self._escape(step, view)
        self._escaping = escape is not None
        again, self.again = self.again, None
        if escape is None and again is not None:
            self.clicked_twice.add(again)
            self._second = again
            escape = Decision(again, SAME_AGAIN + ", at once: what answered once is clicked twice "
                                                  "(a toggle, a card turned twice, a form sent twice)")
        decision = escape or self._choose(state, view, moving=not obs.settled)
        self._last = (state, decision.action)
        self.tried[state][decision.action] += 1
        self.global_tries[decision.action] += 1
        return decision

    def forget_last(self) -> None:
        """Another chose the step just played (a scripted step): its result is not this explorer's."""
        self._last = None

    def _choose(self, state: str, view: _View, moving: bool = False) -> Decision:
        assert self.ctx is not None
        clicks: list[Action] = list(view.clicks) if self.click_widgets or not self.keys else []
        fields = view.fields
        keys: list[Action] = list(self.keys)
        if moving and self.burst is not None:
            # A real-time game is played by tapping: one key press a step keeps no bird in the air
            # and never reaches the top of the screen, where a game's own ceiling code runs.
            keys.append(self.burst)
        word = Type(SAMPLE_WORD)
        typed_in = fields and self.ctx.spec.kind == "app" and not self.responses[word] and self.global_tries[word] < 3
        if typed_in or (not moving and self.unchanged_run >= TYPE_AFTER_UNCHANGED and self._words_read(fields)):
            # People type words: a to-do list gets a task to tick, a name form its name.  Hinted keys
            # alone never add content (Enter on an empty entry adds nothing).  Once a word has landed
            # (or went nowhere three times: a calculator's read-only display) it is offered again
            # only where nothing else answers.
            keys.append(word)
        d = view.dialog
        if d is not None and not self.dialogs[d.id].escaped:  # explore the new dialog's own controls first
            in_dialog = [a for a in clicks if view.clicks[a].top == d.id]
            clicks = in_dialog or clicks
            fields = [f for f in fields if f.top == d.id]
            if d.kind == "popup" and in_dialog:
                keys = []  # a posted menu: choose an item
        if clicks and keys and d is None and self._clicks_dead():
            clicks = []  # a game played by keys only: its title's letters are no buttons
        if not clicks and not keys:
            w, h = self.ctx.window_size
            clicks = [Click(w * i // 4, h * j // 4) for i in (1, 2, 3) for j in (1, 2, 3)]
        pool: list[Action] = keys + clicks
        balance = ""
        if clicks and self.key_run >= MAX_KEY_RUN and self._balance_keys():
            # (the sample word takes its turn with the clicks: it fills a form, as a click does)
            pool, balance = [word] * (word in keys) + clicks, f"; a click after {self.key_run} keys in a row"
        stuck = self._stuck()
        if self.pending_key is not None and self.pending_key in pool:
            action, least, kind = self.pending_key, self._count(state, self.pending_key), "hinted key after the focus click"
        else:
            action, least = self._pick(state, pool, stuck)
            kind = self._kind(action, view)
        self.pending_key = None
        if _is_typing(action) and fields and self.need_focus:
            field = min(fields, key=lambda f: (
                self.focus_failed[_rect(f)], _rect(f) not in self.typing,
                not (f.width >= 2.5 * f.height and f.height <= 48), self.global_tries[Click(*f.center)], f.y0, f.x0))
            self.pending_key, self.focused, self.need_focus = action, _rect(field), False
            return Decision(Click(*field.center), f"focus: a typed key went nowhere; click into the text field at "
                                                  f"{_rect(field)} before sending {action_to_call(action)}, so the "
                                                  "keys reach a focused widget")
        if isinstance(action, Click) and action in view.clicks and view.clicks[action] in view.fields:
            self.focused = _rect(view.clicks[action])
        mode = "back off (stuck on few screens): prefer actions that led to less-visited screens; " if stuck else ""
        return Decision(action, f"explore: {mode}{kind}, tried {least}× on screen {state[:6]} "
                                f"({len(self.states)} distinct screens so far){balance}")

    def _words_read(self, fields: list[Widget]) -> bool:
        """Whether a typed word may be read where nothing else answers (a subclass that read the program's
        code knows better)."""
        return True

    def _clicks_dead(self) -> bool:
        """Clicks have never changed anything (over :data:`DEAD_CLICKS` tries) while keys have."""
        clicks = [a for a in self.global_tries if isinstance(a, Click)]
        return (sum(self.global_tries[a] for a in clicks) >= DEAD_CLICKS
                and not any(self.responses[a] for a in clicks)
                and any(self.responses[k] for k in self.keys))

    def _kind(self, action: Action, view: _View) -> str:
        if isinstance(action, Hotkey):
            return "hinted hotkey"
        if isinstance(action, Press):
            return "hinted key"
        if isinstance(action, Tap):
            return f"hinted key tapped {action.times}× (a real-time game is played by tapping)"
        if isinstance(action, Type):
            return "a sample word typed (text fields in sight, or nothing else answered lately)"
        widget = view.clicks.get(action)
        if widget is None:
            return "grid point"
        where = f" in the {view.dialog.kind}" if view.dialog is not None and widget.top == view.dialog.id else ""
        name = {"x": "X-tree widget", "window": "window"}.get(widget.source, "detected widget")
        return f"{'text field' if widget in view.fields else name}{where}"

    def observe(self, step: int, before: Frame, decision: Decision, after: Observation, outcome: str) -> None:
        raw = state_hash(after.frame)
        self.steps_since_new = 0 if raw not in self.states else self.steps_since_new + 1
        self.states.add(raw)
        self.recent.append(raw)
        action = decision.action
        changed = after.changed_bbox is not None and outcome == "ok"
        self.responses[action] += int(changed)
        if changed and _is_key(action):
            if self._leads_home(action, raw):
                self.answered.clear()
            else:
                self.answered.add(action)
        self.unchanged_run = 0 if changed else self.unchanged_run + 1
        # An input that never answered anywhere (a title's letter, a card already matched) is no sign that
        # the program stopped answering: only those that answered before count toward trying a reset.
        self.silent_run = 0 if changed else self.silent_run + int(self.responses[action] > 0)
        if self.second_clicks and type(action) is Click:
            self._second_click(decision, action, changed)
        if type(action) is Click and self._view is not None and action not in self.places \
                and len(self.places) < MAX_PLACES:
            widget = self._view.clicks.get(action)
            if widget is not None and widget.source == "image":
                self.places.append(action)
        if isinstance(action, Wait):
            return
        if not _is_key(action):
            self.key_run = 0
            return
        self.key_run += 1
        view, escaping, self._escaping = self._view, self._escaping, False
        if view is None or escaping:
            return
        if changed and after.changed_bbox is not None:
            self.typing.update(_rect(f) for f in view.fields if _overlap(_rect(f), after.changed_bbox) > 0)
        elif _is_typing(action) and view.fields:
            if self.focused is not None:  # the field clicked into did not take it: try another next time
                self.focus_failed[self.focused] += 1
            self.focused, self.need_focus = None, True


    def _second_click(self, decision: Decision, action: Click, changed: bool) -> None:
        """A click that answered is clicked once more at once, once per place; one that was such a second
        click counts toward giving them up (:data:`TWICE_DEAD`)."""
        second, self._second = self._second, None
        if second == action:
            self.twice_answered += int(changed)
            self.twice_dead += int(not changed)
            return
        if not changed or action in self.clicked_twice or (self.twice_dead >= TWICE_DEAD and not self.twice_answered):
            return
        widget = self._view.clicks.get(action) if self._view is not None else None
        frame_area = self.ctx.window_size[0] * self.ctx.window_size[1] if self.ctx is not None else 0
        if widget is not None and widget.area < SURFACE_SHARE * frame_area:
            # a widget's place, not its exact centre (a grid point over a whole surface is its own place)
            if any(w.contains(*widget.center) or widget.contains(*w.center) for w in self.twice_places):
                return
            self.twice_places.append(widget)
        self.again = action

    def verdict(self, findings: list[Finding], steps: int) -> Verdict:
        """The verdict rule over the oracles' findings; this tester judges no criteria by design."""
        criteria = {}
        if self.ctx is not None:
            criteria = {c.id: ("uncertain", "the offline tester does not judge game logic")
                        for c in self.ctx.spec.criteria}
        return decide(Evidence(findings, steps, judges_criteria=False, criteria=criteria,
                               scope=f"over {len(self.states)} distinct screens"))
