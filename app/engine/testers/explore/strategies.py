"""How the explorer chooses: an ordered list of strategies, the first with a decision plays it.

Each strategy answers ``decide(obs) -> Decision | None`` and keeps the state it alone needs; what several
share is one :class:`~app.engine.testers.explore.state.Explored`.  The explorer's order
(:func:`app.engine.testers.explore.explorer.Explorer.policy`):

1. :class:`Replay` — after a restart for a return, the archived cell's inputs, at their frames;
2. :class:`FollowPlan` — the next input of a plan under way (a tester plan, keys a screen names);
3. :class:`Pair` — the other of two places whose clicks showed alike pictures (a memory game);
4. :class:`~app.engine.testers.explore.survive.Survive` — in a moving game on the frame gate, the input
   whose future lives longest (or nothing, to let a game kept alive long reach its end);
5. :class:`StartPlan` — every few steps, a tester plan not tried yet on what is in sight;
6. :class:`~app.engine.testers.explore.least_tried.LeastTried` — the least-tried input on this screen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from app.engine.play.observer import Observation
from app.engine.testers.base import Decision
from app.engine.testers.explore.archive import cell_key
from app.engine.testers.explore.forms import Plan, entry_plans, list_plans, surface_plans
from app.engine.testers.explore.pairs import Pairs
from app.engine.testers.explore.state import Explored
from app.engine.testers.explore.values import calculation_plans, code_entry_values, form_plans
from app.engine.testers.offline import LIST_MIN_H

if TYPE_CHECKING:
    from app.engine.play.observer import Frame
    from app.engine.testers.explore.least_tried import LeastTried

RETURN_AFTER = 8
"""Steps without a new cell after which the explorer returns to an archived one."""
MAX_PREFIX = 16
"""Cells reached by longer prefixes are not returned to (the replay would cost more than it brings)."""
RETURN_BUDGET_SHARE = 4
PLAN_EVERY = 8
"""A tester plan (a value in an entry, a row deleted) starts after this many of the explorer's own steps:
plans are a few actions each, and the buttons must keep their turns (a calculator's '=' within 24 steps)."""


class Strategy(Protocol):
    """One way of choosing the next input; None: the next strategy in the list chooses."""

    def decide(self, obs: Observation) -> Decision | None: ...


class Replay:
    """Go-Explore's return: restart the program and replay the inputs that reached an archived cell."""

    def __init__(self, state: Explored) -> None:
        self.state = state
        self.here: str | None = None
        self.from_cell: str | None = None
        self.episode_lines = 0
        """Lines the current start of the program has run (what its Inside channel has been told of)."""

    def decide(self, obs: Observation) -> Decision | None:
        s = self.state
        returned = s.returner.next_input(s.player())
        if returned is None:
            return None
        action, i, n = returned
        cell = s.returner.pending.cell.key if s.returner.pending is not None else "?"
        return Decision(action, f"return to cell {cell}: replay input {i}/{n} after a restart (the same inputs "
                                "at the same frames reach the same state)")

    def cell(self, frame: Frame) -> str:
        return cell_key(frame, self.episode_lines if self.state.inside() is not None else None)

    def arrived(self, frame: Frame) -> None:
        """The prefix is replayed: from here the cell's inputs are the prefix (unless the return failed)."""
        s = self.state
        cell = s.returner.arrive(frame)
        self.from_cell, s.found, s.since_new = (cell.key if cell else None), 0, 0
        if cell is not None:
            s.prefix = list(cell.prefix)

    def go_back(self) -> None:
        """Credit the cell returned to with what was found, and choose the next one to return to."""
        s = self.state
        assert s.ctx is not None
        if self.from_cell is not None:
            s.archive.credit(self.from_cell, s.found)
        # A return replays its prefix as steps: at most a quarter of the steps left (a 40-step run must
        # not spend 20 on the way back).
        budget = min(MAX_PREFIX, (s.ctx.max_steps - s.played) // RETURN_BUDGET_SHARE)
        cell = s.archive.choose(s.ctx.rng, exclude=self.here, max_prefix=budget)
        if cell is not None:
            s.returner.ask(cell)
        s.since_new = 0

    def poll_coverage(self) -> int:
        """New lines of the program's own code since the last step (0 without coverage).  Read from what
        the channel has been told (the run's own record asks at every step), not asked again: one more
        round trip a step would cost a Tk program a tenth of its steps."""
        inside = self.state.inside()
        if inside is None:
            return 0
        hit = int(inside.lines_hit())
        new = max(0, hit - self.episode_lines)
        self.episode_lines = hit
        return new


class FollowPlan:
    """The next input of a plan under way, while no dialog stands in its way."""

    def __init__(self, state: Explored) -> None:
        self.state = state

    def decide(self, obs: Observation) -> Decision | None:
        queue = self.state.queue
        if not queue:
            return None
        if self.state.dialog_open():
            # The plan's next inputs were meant for the main window: typed into a message box, a space would
            # press its button, and which of the letters after it reach the entry would depend on when the
            # focus came back.  The dialog's own controls come first.
            queue.clear()
            return None
        action, why = queue.popleft()
        return Decision(action, why)


class Pair:
    """The other of two places whose clicks showed alike pictures (:mod:`.pairs`)."""

    def __init__(self, least: LeastTried) -> None:
        self.least = least
        self.pairs = Pairs()

    def decide(self, obs: Observation) -> Decision | None:
        chosen = self.pairs.next_click()
        if chosen is None:
            return None
        self.least.again = None  # the pair's other place, not the same card once more
        return Decision(chosen[0], chosen[1])


class StartPlan:
    """Every few steps, a tester plan not tried yet on what is in sight (an entry, a list, a canvas)."""

    def __init__(self, state: Explored, least: LeastTried) -> None:
        self.state, self.least = state, least
        self.since_plan = 0
        self.plans_tried: set[str] = set()

    def decide(self, obs: Observation) -> Decision | None:
        s = self.state
        assert s.ctx is not None
        self.since_plan += 1
        if self.since_plan < PLAN_EVERY or s.ctx.spec.kind != "app":
            return None
        view = self.least.current_view(obs.frame)
        if view.dialog is not None or s.dialog_open():
            return None  # the fields in sight are under the dialog (its grab): not typed into now
        tall = [f for f in view.fields if f.cls == "list" or f.height >= LIST_MIN_H]
        entries = [(f.x0, f.y0, f.x1, f.y1) for f in view.fields if f not in tall and f.cls != "text"]
        # A calculation and a whole form first: the values that matter, where coverage cannot tell them apart.
        plans: list[Plan] = calculation_plans(s.buttons, s.reads) + form_plans(entries, s.buttons, s.values)
        extra = code_entry_values(s.values)
        entry = entries[0] if entries else None
        for f in view.fields:
            box = (f.x0, f.y0, f.x1, f.y1)
            plans += list_plans(box, s.reads, s.buttons, entry) if f in tall else entry_plans(box, extra=extra)
        plans += surface_plans((0, 0, obs.frame.width, obs.frame.height), s.reads)
        fresh = [p for p in plans if p.name not in self.plans_tried]
        if not fresh:
            return None
        # A key pressed again and again that never changed anything may act on a selection (Delete, Tick
        # off): the plans that select a row and then press it go first, the most pressed key first, as a
        # tester selects a row before Delete.
        fresh.sort(key=lambda p: -s.pressed[p.actions[-1]] if s.silent_key(p.actions[-1]) else 0)
        plan = fresh[0]
        self.plans_tried.add(plan.name)
        self.since_plan = 0
        n = len(plan.actions)
        for i, action in enumerate(plan.actions[1:], 2):
            s.queue.append((action, f"tester plan: {plan.name} (action {i}/{n})"))
        return Decision(plan.actions[0], f"tester plan: {plan.name} (action 1/{n})")
