"""The model-free explorer: the offline explorer's choices, plus what a tester of real programs does.

On top of :class:`~app.engine.testers.offline.OfflineExplorer` (least-tried
actions per screen, dialogs escaped, fields focused before typing):

- it presses every key the program's code reads (:mod:`.keys_from_code`), not
  only the toml's hints, and never one that quits unless ending is declared;
- it sees the widgets the toolkit knows when the program answers from inside
  (:mod:`app.engine.play.inside`): exact boxes, enabled state, menu shortcuts;
  the X tree and the image stay the fallback;
- it plays tester plans on forms and lists (:mod:`.forms`);
- it remembers what each click turned over and clicks alike pictures one after
  the other (:mod:`.pairs`: a memory game is won, not only begun);
- it keeps a Go-Explore archive of the cells it reached (:mod:`.archive`) and,
  when nothing new has come for a while, returns to a promising one by
  restarting the program and replaying that cell's inputs (:mod:`.returns`);
- in a real-time game on the frame gate it can choose (``survival=True``), at
  moving screens, inputs from a plan played ahead on warm scouts, the one after
  which the game lives longest (:mod:`.survival`, :mod:`.scout_pool`).
"""

from __future__ import annotations

import time
from collections import Counter, deque
from dataclasses import replace
from typing import Any

from app.engine.play.actions import Action, Click, Hotkey, Press, Tap, Wait
from app.engine.play.inside import InsideWidget
from app.engine.play.observer import Frame, Observation
from app.engine.judge.expectations import ocr_engine
from app.engine.play.targetspec import hinted_action, unknown_key
from app.engine.play.xwidgets import Widget
from app.engine.testers.base import Decision, TesterContext
from app.engine.testers.explore.archive import Archive, Step, cell_key, picture_key
from app.engine.testers.explore.forms import Plan, entry_plans, list_plans, shortcut_action, surface_plans
from app.engine.testers.explore.values import (CodeValues, calculation_plans, code_entry_values, form_plans,
                                               values_from_folder)
from app.engine.testers.explore.keys_from_code import ReadInputs, inputs_from_target
from app.engine.testers.explore.pairs import Pairs
from app.engine.testers.explore.returns import Returner
from app.engine.testers.explore.scouts import NOTHING
from app.engine.testers.explore.screen_words import MAX_READS as MAX_SCREEN_READS, read_screen
from app.engine.testers.explore.fork_scout import FORK_CHEAP_PLANS, FORK_EVALS, FORK_LOOK_BUDGET_S, ForkScouts
from app.engine.testers.explore.survival import SurvivalSearch, standing_still
from app.engine.testers.offline import BURST_TAPS, LIST_MIN_H, SURFACE_SHARE, OfflineExplorer, _View

MAX_READ_KEYS = 16
"""Keys read from the code pressed at most (a program that reads the whole keyboard types text instead)."""
RETURN_AFTER = 8
"""Steps without a new cell after which the explorer returns to an archived one."""
MAX_PREFIX = 16
"""Cells reached by longer prefixes are not returned to (the replay would cost more than it brings)."""
RETURN_BUDGET_SHARE = 4
SILENT_PRESSES = 2
"""A key pressed this often without changing anything is tried after a selection first (its plans go first)."""
PLAN_EVERY = 8
"""A tester plan (a value in an entry, a row deleted) starts after this many of the explorer's own steps:
plans are a few actions each, and the buttons must keep their turns (a calculator's '=' within 24 steps)."""
SURVIVAL_SHARE = 0.85
"""At most this share of the run's time goes to survival looks (a look may wait for a scout's restart)."""
OWN_EVERY = 8
"""Every this many steps of a moving game, the explorer's own input instead of survival's: a search that only
keeps the game alive never sends the inputs it would die of, and those are inputs a player sends too.  It waits
while a plan that meets what the game waits for is followed (:meth:`SurvivalSearch.keeps_promise`)."""
LET_GO_ALIVE = 0.35
"""A moving game the survival search kept alive this share of the run's budget (since the run began or its last
episode ended: about a third played well, a third for the game to end, a third to play its end) ..."""
LET_GO_STALE = 0.15
"""... while no new line of its code ran for this share, is let go: nothing is sent until the episode ends.  The
end of a game (its GAME OVER, a score saved, a name asked, the restart) is a state a player reaches too, and one
a search that only survives never reaches (Go-Explore's archive would hold it as a cell like any other)."""
LET_GO_MAX = 0.25
"""A game left alone this share of the budget without ending (its picture standing, the program restarting, or
new code running) does not end by itself: it is played on, and not let go again in this run."""
QUIT_WORDS = ("quit", "exit", "close")
"""Menu items named so are not used (their shortcuts end the program) unless ending is declared."""
INSIDE_WIDGET = {"entry": "entry", "text": "text", "list": "list"}
SURFACE_GRID = 3
"""A drawing surface that reads clicks is clicked at SURFACE_GRID × SURFACE_GRID points (its centre one of them)."""
CLICK_BUTTONS = frozenset({"left", "right", "middle", "double"})


class Explorer(OfflineExplorer):
    name = "offline"
    gated = False
    """Whether the session puts a pygame game on the frame gate.  Only with the survival search (its scout
    replays the game's inputs at the same frames): on the gate a game plays only the frames the engine
    grants, so what it does on its own between inputs (its animation, a late freeze, its pace) is not
    seen as a player sees it.  Off the gate, a return to a game's cell replays its inputs on the wall
    clock and is checked by the picture (:mod:`.returns`)."""

    def __init__(self, click_widgets: bool = True, second_clicks: bool = False, go_explore: bool = True,
                 survival: bool = False) -> None:
        """``survival``: look ahead on forked branches in moving games (:mod:`.fork_scout`).  Off by default for
        the offline tester: it puts the game on the frame gate, where its own pace is not seen."""
        super().__init__(click_widgets=click_widgets, second_clicks=second_clicks)
        self.go_explore, self.use_survival = go_explore, survival
        self.gated = survival
        self.reads = ReadInputs()
        self.screen_reads = 0
        self.texts_seen: set[str] = set()
        """Every widget text the program has shown this run (:meth:`_note_texts`)."""
        self.screen_tried: set[Action] = set()
        self.screen_items: set[str] = set()
        """Keys and menu-like lines read from screens (:meth:`_read_screen`), each tried once a run."""
        self.values = CodeValues()
        """Constants the program's code compares with and the formats it parses: values worth typing."""
        self.buttons: list[tuple[tuple[int, int, int, int], str]] = []
        """The enabled buttons the toolkit showed at the last look (box, text): what a selected row is acted on by."""
        self.surface_of: dict[Action, str] = {}
        """Grid clicks over a drawing surface: the surface each reaches (one control for the oracles)."""
        self.archive = Archive()
        self.returner = Returner()
        self.prefix: list[Step] = []
        """The inputs since the program's last start (what a return to here would replay)."""
        self.lines = 0
        """Lines of the program's own code first run at a step of this explorer (summed over starts)."""
        self.episode_lines = 0
        """Lines the current start of the program has run (what its Inside channel has been told of)."""
        self.plan: deque[tuple[Action, str]] = deque()
        self.plans_tried: set[str] = set()
        self.pairs = Pairs()
        self._chose_view = False
        """The last decision was the offline explorer's, on the view it looked at (its widgets are current)."""
        self.survival: SurvivalSearch | None = None
        self.scout: ForkScouts | None = None
        self.since_new = 0
        self.survival_tick = 0
        self.survival_s = 0.0
        self.began = time.monotonic()
        self._moved = 0
        """Steps the game moved in a row (a standing picture after three is an episode's end)."""
        self._last_change: tuple[int, int, int, int] | None = None
        self.since_plan = 0
        self._program: Any = None
        self._from_cell: str | None = None
        self._found = 0
        self._pending_step: Step | None = None
        self._here: str | None = None
        self.played = 0
        self.quitting: set[Action] = set()
        """Keys read from the code (or menu shortcuts) that end the program: pressed once, then no more."""
        self.in_play = False
        """This step is the explorer's own while the survival search keeps a moving game alive."""
        self.quit_used: set[Action] = set()
        self.pressed: Counter[Action] = Counter()
        """How often each key was pressed (``responses`` counts how often it changed the window)."""
        self.alive_since = 0.0
        """Where in the run's budget (:meth:`_spent`) the game last began an episode ..."""
        self.new_code_at = 0.0
        """... and last ran a line of its code new to the run."""
        self.standing = True
        """Did the picture stand still before the step being played (a menu, a GAME OVER)?"""
        self.let_go_at: float | None = None
        """Where the game was let go (:data:`LET_GO_ALIVE`), while it is; None while it is played."""
        self.let_go_failed = False

    # -- the program ---------------------------------------------------------------
    def _player(self) -> Any:
        return getattr(self.ctx, "player", None)

    def _target(self) -> Any:
        return getattr(self._player(), "target", None)

    def _inside(self) -> Any:
        inside = getattr(self._target(), "inside", None)
        return inside if inside is not None and getattr(inside, "available", False) else None

    def _frame_count(self) -> int:
        player = self._player()
        return int(getattr(player, "frames", 0)) if getattr(player, "lockstep", False) else 0

    def begin(self, ctx: TesterContext, first: Observation) -> None:
        super().begin(ctx, first)
        self.began = time.monotonic()
        if ctx.duration_s is not None:
            self.go_explore = False  # a soak: one program, never restarted for a return (TesterContext.duration_s)
        self.reads = inputs_from_target(ctx.spec.folder, ctx.spec.command, ctx.spec.requirements)
        self.values = values_from_folder(ctx.spec.folder)
        hinted = set(self.keys)
        for key in self.reads.keys[:MAX_READ_KEYS]:
            if key in self.reads.quits and not ctx.spec.exit_ok:
                continue
            if hinted and ctx.spec.kind == "app" and (len(key) == 1 or key == "space"):
                continue  # beside an app's hints, single characters only dilute them (typed words carry those)
            action = hinted_action(key)
            if action not in self.keys:
                self.keys.append(action)
            if key in self.reads.quits and action not in hinted:
                self.quitting.add(action)
        if self.burst is None and ctx.spec.kind == "game":
            lead = next((k for k in self.keys if isinstance(k, Press)), None)
            self.burst = Tap(lead.key, BURST_TAPS) if lead is not None else None
        self._program = self._target()
        self._poll_coverage()
        self.archive.visit(self._cell(first.frame), (), picture_key(first.frame))
        if self.use_survival and ctx.spec.kind == "game" and getattr(self._player(), "lockstep", False):
            self._new_search().scouts.warm([], 0)  # the scouts start while the game shows its first screen

    def restarted(self, obs: Observation) -> None:
        """The session restarted the program for a return: the prefix replays from here."""
        self.returner.restarted()
        self._new_start()

    def _new_start(self) -> None:
        self.prefix, self.episode_lines, self.plan = [], 0, deque()
        self.pairs = Pairs()
        self._program = self._target()
        self.pending_key, self.focused, self.again = None, None, None

    def wants_restart(self) -> bool:
        return self.returner.wants_restart()

    def close(self) -> None:
        if self.scout is not None:
            self.scout.close()
            self.scout = None

    # -- seeing ------------------------------------------------------------------------
    def _look(self, frame: Frame) -> _View:
        view = self._inside_view(frame)
        view = view if view is not None else super()._look(frame)
        return self._spread_on_surface(frame, view)

    def _spread_on_surface(self, frame: Frame, view: _View) -> _View:
        """A program that reads clicks and shows only a drawing surface (a turtle canvas, a game's one window)
        is clicked at a grid of points over it, not at its centre only: a board answers where it is clicked,
        and one point soon stops answering (a full column, a taken square) while others still would."""
        if not self.reads.buttons & CLICK_BUTTONS or view.fields or view.dialog is not None:
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
        inside = self._inside()
        if inside is None or self.ctx is None or getattr(inside, "toolkit", "") not in ("tk", "qt"):
            return None
        if self._dialog_open():
            return None
        found: list[InsideWidget] | None = inside.widgets()
        if not found:
            return None
        self._learn_shortcuts(found)
        self._note_texts(found)
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
            clicks.setdefault(self._click(widget), widget)
        self.buttons = [((w.x0, w.y0, w.x1, w.y1), t.text) for w, t in named if t.kind == "button"]
        return _View(widgets, fields, clicks, [])

    def _note_texts(self, widgets: list[InsideWidget]) -> None:
        """A text the program shows for the first time (a result, a label, a new row) is novelty, as a new
        line of code is: the cell it was reached from is credited and the explorer stays on."""
        texts = {w.text.strip() for w in widgets if w.visible and w.text and w.text.strip()}
        fresh = texts - self.texts_seen
        if fresh and self.texts_seen:
            self._found += len(fresh)
            self.since_new = 0
        self.texts_seen |= texts

    @staticmethod
    def _click(w: Widget) -> Action:
        return Click(*w.center)

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
            if action is not None and action not in self.keys and action not in self.quit_used:
                self.keys.append(action)
                if any(word in name for word in QUIT_WORDS):
                    self.quitting.add(action)

    def _words_read(self, fields: list[Widget]) -> bool:
        """No sample word where the program's code was read and reads no typed text, and no text field is in
        sight: a turtle game bound to four arrows answers no word, and the word is one more input it ignores."""
        known = bool(self.reads.keys or self.reads.buttons)
        return bool(fields) or self.reads.text or not known

    def _kind(self, action: Action, view: _View) -> str:
        widget = view.clicks.get(action)
        grid = ", a point of a grid over it (the program reads clicks)" if action in self.surface_of else ""
        if widget is not None and widget.source == "inside":
            return f"{widget.cls} (from inside the program){grid}"
        return super()._kind(action, view) + grid

    # -- deciding ----------------------------------------------------------------------
    def decide(self, step: int, obs: Observation) -> Decision:
        assert self.ctx is not None, "begin() first"
        if self._target() is not self._program and not self.returner.replaying:
            self._new_start()  # a declared end restarted the program: a new episode
            self._ended()
        self.in_play = False
        self.standing = obs.settled
        decision = self._replay() or self._next_in_plan() or self._pair() or self._survive(obs) or self._start_plan(obs)
        self._chose_view = decision is None
        if decision is None:
            decision = super().decide(step, obs)
            decision = self._spare_the_game(decision)
        else:
            self._last = None  # not the least-tried choice: its result is not attributed to one
        self._pending_step = (self._frame_count(), decision.action)
        surface = self.surface_of.get(decision.action)
        return decision if surface is None else replace(decision, control=surface)

    def _spare_the_game(self, decision: Decision) -> Decision:
        """The explorer's own step while a game is played on (the survival search lives): a key that starts the
        game over, once it was seen to, is kept for a GAME OVER (a moving game's screens are all new, so it
        would be tried again every few steps and lose what was reached); another key the game reads instead."""
        action = decision.action
        if not (self.in_play and isinstance(action, Press) and action.key in self.reads.restarts
                and self.pressed[action] and self.ctx is not None):
            return decision
        others = [k for k in self.keys if isinstance(k, Press) and k.key not in self.reads.restarts]
        if not others:
            return decision
        self._last = None  # not the least-tried choice
        return Decision(self.ctx.rng.choice(others), f"explore: a key the game reads, not {action.key} (it starts "
                                                     "the game over, and was tried: kept for when the game is over)")

    def _replay(self) -> Decision | None:
        returned = self.returner.next_input(self._player())
        if returned is None:
            return None
        action, i, n = returned
        cell = self.returner.pending.cell.key if self.returner.pending is not None else "?"
        return Decision(action, f"return to cell {cell}: replay input {i}/{n} after a restart (the same inputs "
                                "at the same frames reach the same state)")

    def _dialog_open(self) -> bool:
        """Another top-level window of the program is up (a dialog, a message box): the X tree tells."""
        windows = getattr(self.ctx, "windows", None)
        return windows is not None and any(t.kind != "main" for t in windows.toplevels())

    def _next_in_plan(self) -> Decision | None:
        if not self.plan:
            return None
        if self._dialog_open():
            # The plan's next inputs were meant for the main window: typed into a message box, a space would
            # press its button, and which of the letters after it reach the entry would depend on when the
            # focus came back.  The dialog's own controls come first.
            self.plan.clear()
            return None
        action, why = self.plan.popleft()
        return Decision(action, why)

    def _pair(self) -> Decision | None:
        """The other of two places whose clicks showed alike pictures (:mod:`.pairs`)."""
        chosen = self.pairs.next_click()
        if chosen is None:
            return None
        self.again = None  # the pair's other place, not the same card once more
        return Decision(chosen[0], chosen[1])

    def _card(self, action: Action, frame: Frame) -> Widget | None:
        """The widget a click turned over: the largest in sight around the point that is no drawing surface
        (a card, not the '?' drawn on it, which the image shows as a blob of its own)."""
        if not self._chose_view or self._view is None or not isinstance(action, Click):
            return None
        around = [w for w in self._view.widgets if w.contains(action.x, action.y)
                  and w.area < SURFACE_SHARE * frame.width * frame.height]
        return max(around, key=lambda w: w.area) if around else None

    def _survive(self, obs: Observation) -> Decision | None:
        """In a moving game on the frame gate: the input whose future lives longest."""
        assert self.ctx is not None
        player = self._player()
        if self.let_go_at is not None and obs.settled:
            self._ended()  # the game left alone came to rest: its end (the explorer plays it now)
        if (not self.use_survival or self.ctx.spec.kind != "game" or obs.settled
                or not getattr(player, "lockstep", False) or self.returner.pending is not None):
            return None
        let_go = self._let_go()
        if let_go is not None:
            return let_go
        self.survival_tick += 1
        if self.survival_tick % OWN_EVERY == 0 and self.survival is not None and self.survival.keeps_promise():
            self.survival_tick -= 1  # the own step waits until the plan that eats is played (it would end it)
        elif self.survival_tick % OWN_EVERY == 0 or self.survival_s > SURVIVAL_SHARE * (time.monotonic() - self.began):
            # The explorer's own input, from the state survival reached (Go-Explore's explore phase).
            self.in_play = self.survival is not None and self.survival.living
            return None
        t0 = time.monotonic()
        try:
            return self._look_ahead()
        except Exception as exc:  # an aid, never the run's end: the explorer plays on without it
            self.use_survival = False
            if self.scout is not None:
                self.scout.close()
            return Decision(Wait(0.0), f"survival search off for this run ({type(exc).__name__}: {exc}); "
                                       "the explorer chooses from here")
        finally:
            self.survival_s += time.monotonic() - t0

    def _spent(self) -> float:
        """The share of the run's budget spent: its wall-clock time under ``--duration``, else its steps."""
        duration = getattr(self.ctx, "duration_s", None)
        if duration:
            return (time.monotonic() - self.began) / duration
        return self.played / max(1, int(getattr(self.ctx, "max_steps", 0) or 0))

    def _ended(self) -> None:
        """An episode ended (a GAME OVER stands, or the program started again)."""
        self.alive_since = self._spent()
        self.let_go_at = None

    def _let_go(self) -> Decision | None:
        """Nothing sent while a game kept alive long without new code is let go to its end (:data:`LET_GO_ALIVE`)."""
        if self.let_go_at is None:
            if self.let_go_failed or self.survival is None or not self.survival.decisions:
                return None  # the search never played this game (or it did not end when let go)
            now = self._spent()
            if now - self.alive_since < LET_GO_ALIVE or now - self.new_code_at < LET_GO_STALE:
                return None
            self.let_go_at = now
        elif self.new_code_at > self.let_go_at:
            # New code ran while the game was left alone: its end (a GAME OVER drawn, a death handled), also
            # where the picture does not stand (clouds drifting behind the panel).  Played from here.
            self._ended()
            return None
        elif self._spent() - self.let_go_at >= LET_GO_MAX:
            self.let_go_at, self.let_go_failed = None, True  # it does not end by itself: played on
            return None
        return Decision(NOTHING, f"let go: the game was kept alive {self.let_go_at - self.alive_since:.0%} of the "
                                 "budget without new code; nothing is sent until this episode ends (the end of a "
                                 "game is played too)")

    def _look_ahead(self) -> Decision | None:
        assert self.ctx is not None
        survival = self.survival or self._new_search()
        chosen = survival.choose(self.prefix, self._frame_count())
        if chosen is None:
            return None  # no scout ready yet (they start in the background): the explorer's own choice
        action, why = chosen
        if self.scout is not None and not self.scout.gated:
            self.use_survival = False  # the scout is not on the gate: its future is not the game's
            return None
        if not survival.living:
            return None  # no key does better than nothing (a menu that wants a click): the explorer's own choice
        return Decision(action, why)

    def _new_search(self) -> SurvivalSearch:
        assert self.ctx is not None
        # Branches forked from a copy that follows the game: a look tries many plans for the cost of their frames.
        self.scout = ForkScouts(self.ctx.spec, self.ctx.seed)
        keys: list[Action] = [k for k in self.keys if isinstance(k, Press)]
        # A key that starts the game over is no plan to live on: every branch pressing it meets the start again,
        # and its first food or first pipe made "eating" look common to the branch distance.  The explorer's own
        # steps still press it (a GAME OVER waits for it).
        keys = [k for k in keys if isinstance(k, Press) and k.key not in self.reads.restarts] or keys
        held = frozenset(k for k in keys if isinstance(k, Press) and k.key in self.reads.held)
        self.survival = SurvivalSearch(self.scout, keys, self.ctx.rng, look_s=self._player().look_s(),
                                       hold_s=self.ctx.spec.timing.hold_ms / 1000, max_evals=FORK_EVALS,
                                       look_budget_s=FORK_LOOK_BUDGET_S, cheap_plans=FORK_CHEAP_PLANS,
                                       explore_plans=FORK_EVALS, held=held)
        return self.survival

    def _start_plan(self, obs: Observation) -> Decision | None:
        """Every few steps, a tester plan not tried yet on what is in sight (an entry, a list, a canvas)."""
        assert self.ctx is not None
        self.since_plan += 1
        if self.since_plan < PLAN_EVERY or self.ctx.spec.kind != "app":
            return None
        view = self._view if self._view is not None else self._look(obs.frame)
        if view.dialog is not None or self._dialog_open():
            return None  # the fields in sight are under the dialog (its grab): not typed into now
        plans: list[Plan] = []
        tall = [f for f in view.fields if f.cls == "list" or f.height >= LIST_MIN_H]
        entry = next(((f.x0, f.y0, f.x1, f.y1) for f in view.fields if f not in tall and f.cls != "text"), None)
        # A calculation and a whole form first: the values that matter, where coverage cannot tell them apart.
        plans += calculation_plans(self.buttons, self.reads)
        entries = [(f.x0, f.y0, f.x1, f.y1) for f in view.fields if f not in tall and f.cls != "text"]
        plans += form_plans(entries, self.buttons, self.values)
        extra = code_entry_values(self.values)
        for f in view.fields:
            box = (f.x0, f.y0, f.x1, f.y1)
            plans += list_plans(box, self.reads, self.buttons, entry) if f in tall else entry_plans(box, extra=extra)
        w, h = obs.frame.width, obs.frame.height
        plans += surface_plans((0, 0, w, h), self.reads)
        fresh = [p for p in plans if p.name not in self.plans_tried]
        if not fresh:
            return None
        # A key pressed again and again that never changed anything may act on a selection (Delete, Tick
        # off): the plans that select a row and then press it go first, the most pressed key first, as a
        # tester selects a row before Delete.
        fresh.sort(key=lambda p: -self.pressed[p.actions[-1]] if self._silent_key(p.actions[-1]) else 0)
        plan = fresh[0]
        self.plans_tried.add(plan.name)
        self.since_plan = 0
        n = len(plan.actions)
        for i, action in enumerate(plan.actions[1:], 2):
            self.plan.append((action, f"tester plan: {plan.name} (action {i}/{n})"))
        return Decision(plan.actions[0], f"tester plan: {plan.name} (action 1/{n})")

    def _restarted_by(self, action: Action) -> None:
        """A key the program reads to start again, pressed where the game stood (its GAME OVER, a menu), begins a
        new episode: it is kept alive from here.  Pressed while the game moves it starts nothing (a snake's
        Enter is read only on its menu), and the episode's count goes on: a search whose plans press Enter now
        and then would otherwise never let the game go."""
        if self.standing and isinstance(action, Press) and action.key in self.reads.restarts:
            self.alive_since = self._spent()

    def _silent_key(self, action: Action) -> bool:
        """A key pressed at least :data:`SILENT_PRESSES` times that never changed the window."""
        return isinstance(action, (Press, Hotkey)) and self.pressed[action] >= SILENT_PRESSES \
            and not self.responses[action]

    # -- what happened -------------------------------------------------------------------
    def observe(self, step: int, before: Frame, decision: Decision, after: Observation, outcome: str) -> None:
        super().observe(step, before, decision, after, outcome)
        self.played += 1
        if isinstance(decision.action, (Press, Hotkey)):
            self.pressed[decision.action] += 1
        self._restarted_by(decision.action)
        if decision.action in self.quitting:
            # Ending is declared fine, and once shows it works; pressed on every new screen it would end
            # episode after episode on the same picture, which reads as input that changes nothing.
            self.quitting.discard(decision.action)
            self.quit_used.add(decision.action)
            if decision.action in self.keys:
                self.keys.remove(decision.action)
        if self._pending_step is not None:
            self.prefix.append(self._pending_step)
            self._pending_step = None
        new_lines = self._poll_coverage()
        if new_lines:
            self.new_code_at = self._spent()
        self._note_standing(after)
        if self.first_state is not None and self.recent and self.recent[-1] == self.first_state:
            self.pairs = Pairs()  # back on the first screen (a new game): what the cards showed is gone
        if outcome == "ok":
            self.pairs.saw(decision.action, self._card(decision.action, before), before, after.frame)
        if self.returner.replaying:
            if self.returner.pending is not None and not self.returner.pending.steps:
                cell = self.returner.arrive(after.frame)
                self._from_cell, self._found, self.since_new = (cell.key if cell else None), 0, 0
                if cell is not None:
                    self.prefix = list(cell.prefix)
            return
        self._here = self._cell(after.frame)
        new_cell = self.archive.visit(self._here, tuple(self.prefix), picture_key(after.frame))
        if new_cell and after.settled and not self.buttons and not self.plan:
            self._read_screen(after.frame)
        found = int(new_cell) + new_lines
        self._found += found
        self.since_new = 0 if found else self.since_new + 1
        if self.go_explore and self.since_new >= RETURN_AFTER and not self.plan:
            self._return()

    def _read_screen(self, frame: Frame) -> None:
        """A still screen not seen before, with no widgets known from inside: the keys its words name and its
        menu-like lines become inputs, each tried once now (:mod:`.screen_words`)."""
        assert self.ctx is not None
        ocr = ocr_engine()
        if ocr is None or self.screen_reads >= MAX_SCREEN_READS:
            return
        self.screen_reads += 1
        try:
            found = read_screen(frame, ocr)
        except (RuntimeError, OSError, ValueError):  # tesseract failed: no more reading this run
            self.screen_reads = MAX_SCREEN_READS
            return
        for key in found.keys:
            if unknown_key(key) is not None or (key in self.reads.quits and not self.ctx.spec.exit_ok):
                continue
            action = hinted_action(key)
            if action not in self.screen_tried:
                self.screen_tried.add(action)
                self.plan.append((action, f"the screen names the key {key!r}: pressed where it is named"))
                if action not in self.keys:
                    self.keys.append(action)
        for text, box in found.items:
            click = Click((box[0] + box[2]) // 2, (box[1] + box[3]) // 2)
            if text.lower() not in self.screen_items and not any(w in text.lower() for w in QUIT_WORDS):
                self.screen_items.add(text.lower())
                self.plan.append((click, f"click {text!r}: a line the screen shows alone, like a menu item"))

    def _note_standing(self, after: Observation) -> None:
        """A game that moved and now stands (but for a glow): a GAME OVER panel; survival is worth it now."""
        standing = standing_still(after.changed_bbox, self._last_change, after.frame)
        self._last_change = after.changed_bbox
        if standing and self._moved >= 3:
            self._ended()
        self._moved = 0 if standing else self._moved + 1

    def _return(self) -> None:
        assert self.ctx is not None
        if self._from_cell is not None:
            self.archive.credit(self._from_cell, self._found)
        # A return replays its prefix as steps: at most a quarter of the steps left (a 40-step run must
        # not spend 20 on the way back).
        budget = min(MAX_PREFIX, (self.ctx.max_steps - self.played) // RETURN_BUDGET_SHARE)
        cell = self.archive.choose(self.ctx.rng, exclude=self._here, max_prefix=budget)
        if cell is None:
            self.since_new = 0
            return
        self.returner.ask(cell)
        self.since_new = 0

    def _cell(self, frame: Frame) -> str:
        return cell_key(frame, self.episode_lines if self._inside() is not None else None)

    def _poll_coverage(self) -> int:
        """New lines of the program's own code since the last step (0 without coverage).  Read from what
        the channel has been told (the run's own record asks at every step), not asked again: one more
        round trip a step would cost a Tk program a tenth of its steps."""
        inside = self._inside()
        if inside is None:
            return 0
        hit = int(inside.lines_hit())
        new = max(0, hit - self.episode_lines)
        self.episode_lines = hit
        self.lines += new
        return new


def explorer_summary(explorer: Explorer) -> dict[str, int]:
    """What the search did, for benchmarks: cells, returns, branches looked at."""
    s = explorer.survival
    return {"cells": len(explorer.archive), "returns": explorer.returner.done, "failed_returns": explorer.returner.failed,
            "lines": explorer.lines, "branches": s.branches if s else 0, "restarts": s.restarts if s else 0,
            "waits": sum(1 for _, a in explorer.prefix if isinstance(a, Wait))}
