"""The model-free explorer: the offline explorer's choices, plus what a tester of real programs does.

It is state plus an ordered list of strategies (:mod:`.strategies`: how it chooses, in one place);
the last, :class:`~.least_tried.LeastTried`, is the offline explorer's least-tried input per screen
(dialogs escaped, fields focused before typing).  On top of that:

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
  moving screens, inputs from a plan played ahead on forked branches, the one after
  which the game lives longest (:mod:`.survive`, :mod:`.survival`, :mod:`.fork_scout`).
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import replace

from app.engine.play.actions import Action, Click, Hotkey, Press, Tap, Wait
from app.engine.play.observer import Frame, Observation
from app.engine.judge.expectations import ocr_engine
from app.engine.judge.oracles import Finding
from app.engine.play.targetspec import hinted_action, unknown_key
from app.engine.testers.base import Decision, TesterBase, TesterContext, Verdict
from app.engine.testers.explore.archive import Step, picture_key
from app.engine.testers.explore.keys_from_code import inputs_from_target
from app.engine.testers.explore.least_tried import QUIT_WORDS, LeastTried
from app.engine.testers.explore.pairs import Pairs
from app.engine.testers.explore.screen_words import MAX_READS as MAX_SCREEN_READS, read_screen
from app.engine.testers.explore.state import Explored
from app.engine.testers.explore.strategies import (PLAN_EVERY, RETURN_AFTER, FollowPlan, Pair, Replay, StartPlan,
                                                   Strategy)
from app.engine.testers.explore.survive import Survive
from app.engine.testers.explore.values import values_from_folder
from app.engine.testers.offline import BURST_TAPS

MAX_READ_KEYS = 16
"""Keys read from the code pressed at most (a program that reads the whole keyboard types text instead)."""

__all__ = ["Explorer", "PLAN_EVERY", "RETURN_AFTER", "explorer_summary"]


class Explorer(TesterBase):
    """The explorer: :attr:`state` shared by the strategies of :attr:`policy`, tried in order each step."""

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
        self.go_explore = go_explore
        self.gated = survival
        self.state = Explored()
        self.least = LeastTried(self.state, click_widgets=click_widgets, second_clicks=second_clicks)
        self.state.responses = self.least.responses
        self.replay = Replay(self.state)
        self.follow = FollowPlan(self.state)
        self.pair = Pair(self.least)
        self.survive = Survive(self.state, survival)
        self.start_plan = StartPlan(self.state, self.least)
        self.policy: list[Strategy] = [self.replay, self.follow, self.pair, self.survive, self.start_plan]
        """How the explorer chooses, in order; when none decides, :attr:`least` does (the least-tried input)."""
        self.screen_reads = 0
        self.screen_tried: set[Action] = set()
        self.screen_items: set[str] = set()
        """Keys and menu-like lines read from screens (:meth:`_read_screen`), each tried once a run."""
        self.screens_read: set[str] = set()
        self.lines = 0
        """Lines of the program's own code first run at a step of this explorer (summed over starts)."""
        self._program: object = None
        self._pending_step: Step | None = None

    def begin(self, ctx: TesterContext, first: Observation) -> None:
        s = self.state
        s.ctx = ctx
        self.least.begin(ctx, first)
        s.keys = self.least.keys
        s.began = time.monotonic()
        if ctx.duration_s is not None:
            self.go_explore = False  # a soak: one program, never restarted for a return (TesterContext.duration_s)
        s.reads = inputs_from_target(ctx.spec.folder, ctx.spec.command, ctx.spec.requirements)
        s.values = values_from_folder(ctx.spec.folder)
        self._add_read_keys(ctx)
        self._program = s.target()
        self.lines += self.replay.poll_coverage()
        s.archive.visit(self.replay.cell(first.frame), (), picture_key(first.frame))
        self.survive.warm()

    def _add_read_keys(self, ctx: TesterContext) -> None:
        """The keys the program's code reads join the hinted ones (not a quit key, unless ending is declared)."""
        s, least = self.state, self.least
        hinted = set(s.keys)
        for key in s.reads.keys[:MAX_READ_KEYS]:
            if key in s.reads.quits and not ctx.spec.exit_ok:
                continue
            if hinted and ctx.spec.kind == "app" and (len(key) == 1 or key == "space"):
                continue  # beside an app's hints, single characters only dilute them (typed words carry those)
            action = hinted_action(key)
            if action not in s.keys:
                s.keys.append(action)
            if key in s.reads.quits and action not in hinted:
                s.quitting.add(action)
        if least.burst is None and ctx.spec.kind == "game":
            lead = next((k for k in s.keys if isinstance(k, Press)), None)
            least.burst = Tap(lead.key, BURST_TAPS) if lead is not None else None

    def restarted(self, obs: Observation) -> None:
        """The session restarted the program for a return: the prefix replays from here."""
        self.state.returner.restarted()
        self._new_start()

    def _new_start(self) -> None:
        s = self.state
        s.prefix, s.queue = [], deque()
        self.replay.episode_lines = 0
        self.pair.pairs = Pairs()
        self._program = s.target()
        self.least.pending_key, self.least.focused, self.least.again = None, None, None

    def wants_restart(self) -> bool:
        return self.state.returner.wants_restart()

    def close(self) -> None:
        self.survive.close()

    def forget_last(self) -> None:
        """Another chose the step just played (a scripted step): its result is not this explorer's."""
        self.least.forget_last()

    def verdict(self, findings: list[Finding], steps: int) -> Verdict:
        return self.least.verdict(findings, steps)

    # -- deciding ----------------------------------------------------------------------
    def decide(self, step: int, obs: Observation) -> Decision:
        s = self.state
        assert s.ctx is not None, "begin() first"
        if s.target() is not self._program and not s.returner.replaying:
            self._new_start()  # a declared end restarted the program: a new episode
            self.survive.ended()
        s.in_play = False
        s.standing = obs.settled
        decision = next((d for d in (strategy.decide(obs) for strategy in self.policy) if d is not None), None)
        if decision is None:
            decision = self.least.decide(step, obs)
        else:
            self.least.chose_view = False
            self.least.forget_last()  # not the least-tried choice: its result is not attributed to one
        self._pending_step = (s.frame_count(), decision.action)
        surface = self.least.surface_of.get(decision.action)
        return decision if surface is None else replace(decision, control=surface)

    # -- what happened -------------------------------------------------------------------
    def observe(self, step: int, before: Frame, decision: Decision, after: Observation, outcome: str) -> None:
        s = self.state
        self.least.observe(step, before, decision, after, outcome)
        s.played += 1
        if isinstance(decision.action, (Press, Hotkey)):
            s.pressed[decision.action] += 1
        self.survive.restarted_by(decision.action)
        self._quit_once(decision.action)
        if self._pending_step is not None:
            s.prefix.append(self._pending_step)
            self._pending_step = None
        new_lines = self.replay.poll_coverage()
        self.lines += new_lines
        self.survive.observed(after, new_lines)
        least = self.least
        if least.first_state is not None and least.recent and least.recent[-1] == least.first_state:
            self.pair.pairs = Pairs()  # back on the first screen (a new game): what the cards showed is gone
        if outcome == "ok":
            self.pair.pairs.saw(decision.action, least.card(decision.action, before), before, after.frame)
        if s.returner.replaying:
            if s.returner.pending is not None and not s.returner.pending.steps:
                self.replay.arrived(after.frame)
            return
        here = self.replay.here = self.replay.cell(after.frame)
        new_cell = s.archive.visit(here, tuple(s.prefix), picture_key(after.frame))
        if here not in self.screens_read and after.settled and not s.buttons and not s.queue \
                and s.ctx is not None and s.ctx.spec.kind == "game":  # a game drawn in pixels names its keys
            self.screens_read.add(here)  # each screen once, the first one too (a title that names its keys)
            self._read_screen(after.frame)
        found = int(new_cell) + new_lines
        s.found += found
        s.since_new = 0 if found else s.since_new + 1
        if self.go_explore and s.since_new >= RETURN_AFTER and not s.queue:
            self.replay.go_back()

    def _quit_once(self, action: Action) -> None:
        """Ending is declared fine, and once shows it works; pressed on every new screen it would end episode
        after episode on the same picture, which reads as input that changes nothing."""
        s = self.state
        if action in s.quitting:
            s.quitting.discard(action)
            s.quit_used.add(action)
            if action in s.keys:
                s.keys.remove(action)

    def _read_screen(self, frame: Frame) -> None:
        """A still screen not read before, with no widgets known from inside: the keys its words name and its
        menu-like lines become inputs, each tried once now (:mod:`.screen_words`)."""
        s = self.state
        assert s.ctx is not None
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
            if unknown_key(key) is not None or (key in s.reads.quits and not s.ctx.spec.exit_ok):
                continue
            action = hinted_action(key)
            if action not in self.screen_tried:
                self.screen_tried.add(action)
                s.queue.append((action, f"the screen names the key {key!r}: pressed where it is named"))
                if action not in s.keys:
                    s.keys.append(action)
        for text, box in found.items:
            click = Click((box[0] + box[2]) // 2, (box[1] + box[3]) // 2)
            if text.lower() not in self.screen_items and not any(w in text.lower() for w in QUIT_WORDS):
                self.screen_items.add(text.lower())
                s.queue.append((click, f"click {text!r}: a line the screen shows alone, like a menu item"))


def explorer_summary(explorer: Explorer) -> dict[str, int]:
    """What the search did, for benchmarks: cells, returns, branches looked at."""
    s, search = explorer.state, explorer.survive.search
    return {"cells": len(s.archive), "returns": s.returner.done, "failed_returns": s.returner.failed,
            "lines": explorer.lines, "branches": search.branches if search else 0,
            "restarts": search.restarts if search else 0,
            "waits": sum(1 for _, a in s.prefix if isinstance(a, Wait))}
