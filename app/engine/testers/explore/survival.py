"""Survival search: in a real-time game on the frame gate, inputs after which the game lives on.

A random walk crashes the snake into the first wall and lets the bird fall;
the states where most of a game's code runs (food eaten, pipes passed, bricks
broken) lie behind surviving.  On the frame gate a game is replayed exactly
(:mod:`.returns`), so the future of a choice can be looked at before it is
made: on a *scout*, a copy of the program (:mod:`.scouts`), a short *plan* (one input or nothing per
step of the explorer) is played after the inputs played so far, for a horizon of frames.  No model:
only the program, played ahead.

A plan covers the whole horizon, so one look decides several steps: the game
follows a plan that lived through the horizon until half of it is used, and
looks again at every step while the last look saw it die within the horizon.
Plans are tried in a fixed order (the rest of the current plan, nothing at
all, one key at one step, then random plans) until one lives through the
horizon or the budget of a look is spent; the best wins: lived longest, then
ran new code of the program, then ran code few branches ran (rare lines), then
came nearer to making an equality test of the program's state hold that
seldom holds (a branch distance: the snake's head to its food), then showed
new pictures.  A branch is dead when the program ended or its picture
stood still (but for a glow) three looks running: a GAME OVER panel, a menu, a
ball waiting on its paddle.

Where plans are played decides what a look costs: forked branches of one copy
that follows the game (:mod:`.fork_scout`, the explorer's) cost a plan's frames,
several side by side; one X scout (:class:`~.scouts.OneScout`) costs a restart and a
replay for every plan it cannot reach.
"""

from __future__ import annotations

import dataclasses
import math
import random
import time
from collections import Counter
from dataclasses import dataclass

from app.engine.play.actions import Action, Press, Wait
from app.engine.play.observer import BBox, Frame
from app.engine.testers.explore.archive import Step
from app.engine.testers.explore.scouts import NOTHING, NearSite, OneScout, Timeline, Scout, Scouts, full_inputs

HORIZON_S = 2.0
"""How far ahead a plan is played (game time)."""
MAX_STEPS = 12
"""At most this many steps in a plan."""
MAX_EVALS = 6
"""Plans played per look at most (each may cost a scout's restart) ..."""
LOOK_BUDGET_S = 4.0
"""... and no new plan after this much wall time in one look (a busy machine restarts a scout slowly)."""
CHEAP_PLANS = 2
"""Plans played at a look after one lived, when a warm scout can play them (new code may win)..."""
EXPLORE_PLANS = 4
"""... and every :data:`EXPLORE_EVERY` looks, or after a look that saw nothing new."""
EXPLORE_EVERY = 4
LOOK_S = 0.25
HOLD_S = 0.1
"""Default game time of one explorer step (its look, and a key's hold), until the game's own steps are seen."""
MAX_ALTERNATIVES = 6
SMALL_CHANGE = 0.05
NEAR_PX = 4
"""A change within this share of the window, where the last one was (give or take a few pixels), is an
animation of a standing screen, not play."""
LOOK_EVERY_S = 0.1
"""A plan's branch is looked at this often (game time): a death is seen within a few looks."""
STAND_S = 0.4
"""A branch that stood still this long is dead (game over, a menu, a ball waiting on its paddle) ..."""
MEMORY_S = 1.2
"""... where standing still is: what moved had moved within this time (a blink, a bob, a glow) ..."""
RARE_SHARE = 0.2
"""A line at most this share of the branches ran is rare: a branch that runs rare lines does what plans seldom
do (the code behind eating, scoring, breaking a brick), which lines new to the program no longer tell once
each has run.  (Rare-branch targeting, as FairFuzz does for a fuzzer.)"""
RARE_AFTER = 8
"""Branches counted before a line can be rare."""
SELDOM_SHARE = 0.5
"""An equality test of the program's state that held in at most this share of the branches that evaluated it is
one the game waits for (a head on its food).  Wider than :data:`RARE_SHARE`: where the food lies near, most plans
eat it, and over a run a snake's ``head == food`` held in about a third of the branches (its lines were no longer
rare, and the distance, held to the same share, steered nothing)."""
APPROACH_PLANS = 12
"""Plans with a turn timed to meet a seldom-true equality test, at most, per look."""
DELAY_FRAMES = 1
"""How many frames later a turn timed to meet such a test may come than a step's start (see
:meth:`SurvivalSearch._delay`)."""
@dataclass(frozen=True)
class Branch:
    action: Action
    """The plan's first input (what the game is sent now)."""
    lived: int
    """Looks over the horizon the game lived through (the program running, the picture still moving)."""
    lines: int
    pictures: int
    plan: tuple[tuple[int, Action], ...] = ()
    looks: int = 0
    died_after: int = 0
    """Frames after the plan's start the branch was last seen alive."""
    rare: int = 0
    """Lines it ran that few branches ran (a snake eating, a pipe passed), where a branch tells."""
    near: tuple[tuple[NearSite, tuple[float, float]], ...] = ()
    """The least and the last distance of each equality test of the program's state in the branch (forked
    scouts)."""
    close: float = 0.0
    """How near it came to the equality tests that seldom hold (a snake's head to its food): see
    :meth:`SurvivalSearch._closeness`."""

    @property
    def score(self) -> tuple[bool, int, int, int, float, int]:
        """Plans that lived to their horizon tie on life (a plan whose last step ends later has a look more, and
        lived through it); the others by how long they lived."""
        return (self.lives, 0 if self.lives else self.lived, self.lines, self.rare, self.close, self.pictures)

    @property
    def lives(self) -> bool:
        return self.lived >= self.looks


class SurvivalSearch:
    """Chooses the next inputs of a gated game by playing plans ahead on scouts."""

    def __init__(self, scouts: Scouts | Scout, alternatives: list[Action], rng: random.Random,
                 horizon_s: float = HORIZON_S, look_s: float = LOOK_S, hold_s: float = HOLD_S,
                 max_evals: int = MAX_EVALS, explore_every: int = EXPLORE_EVERY,
                 look_budget_s: float = LOOK_BUDGET_S, cheap_plans: int = CHEAP_PLANS,
                 explore_plans: int = EXPLORE_PLANS, held: frozenset[Action] = frozenset()) -> None:
        """``held``: alternatives the program reads while they are held down (a paddle's arrows), played also
        step after step (:meth:`_holds`)."""
        self.scouts = scouts if isinstance(scouts, Scouts) else OneScout(scouts)
        self.rng = rng
        self.alternatives = [*[a for a in alternatives if not isinstance(a, Wait)][:MAX_ALTERNATIVES - 1], NOTHING]
        self.held = held
        self.horizon_s, self.look_s, self.hold_s = horizon_s, look_s, hold_s
        self.max_evals, self.explore_every, self.look_budget_s = max_evals, explore_every, look_budget_s
        self.cheap_plans, self.explore_plans = cheap_plans, explore_plans
        self.lines_seen: set[tuple[str, int]] = set()
        self.ran_by: Counter[tuple[str, int]] = Counter()
        """How many branches that lived ran each line (forked scouts say)."""
        self.ran_branches = 0
        self.near_tested: Counter[NearSite] = Counter()
        """How many branches evaluated each equality test of the program's state ..."""
        self.near_held: Counter[NearSite] = Counter()
        """... in how many of them it held ..."""
        self.near_far: dict[NearSite, float] = {}
        """... and the largest distance they left it at (each test's scale)."""
        self.seen: set[bytes] = set()
        self.plan: Timeline = []
        """The rest of the plan being followed (its first step is the next decision's)."""
        self.plan_base: list[Step] = []
        """The game's inputs the plan starts from."""
        self.replan_below = 0
        self.step_frames: dict[str, int] = {}
        """Frames the game played after a step, by the kind of its input (learnt from the game's own steps)."""
        self.decisions = 0
        self.looks = 0
        self.branches = 0
        self.last: list[Branch] = []
        self.living = True
        """Did the last look find a plan that lives through the horizon, or half of it, or longer than doing
        nothing?  (Else the explorer chooses: a menu where no key does better wants a click.)"""
        self.stale = False
        """The last look's best plan showed nothing new: the next one plays a few more plans."""
        self.promising = False
        """The plan being followed makes a seldom-true test hold or runs rare lines on its way (the snake eats):
        the explorer's own step waits until it is played (:meth:`keeps_promise`)."""

    @property
    def restarts(self) -> int:
        return self.scouts.restarts

    def choose(self, prefix: list[Step], frame: int) -> tuple[Action, str] | None:
        """The input to send at gate frame ``frame`` after the game's inputs ``prefix``, and why; None when no
        scout was ready to look (they warm meanwhile)."""
        self.decisions += 1
        self._learn(prefix, frame)
        inputs = _inputs(prefix)
        same = bool(self.plan) and inputs == self.plan_base
        if same and self.plan[0][0] == frame and len(self.plan) > self.replan_below:
            return self._follow(inputs, "survival: the plan looked at before lives on "
                                        f"({len(self.plan)} steps of it left)")
        # A step may last other frames than the plan counted (a key's step is learnt from the steps played, and a
        # step of the explorer's own, or a pause at another frame rate, teaches another count): the rest of the
        # plan, scheduled from here, is still looked at first rather than dropped (a snake a turn away from its
        # food lost the turn that would have eaten it).
        best = self._look(inputs, frame, same)
        if best is None:
            self.plan, self.living = [], False
            self.scouts.warm(inputs, frame)
            return None
        self.promising = best.lives and (best.close >= 1.0 or best.rare > 0)
        idle = [b.lived for b in self.last if all(a == NOTHING for _, a in b.plan)]
        self.living = best.lives or 2 * best.lived >= best.looks or bool(idle) and best.lived > idle[0]
        self.plan = list(best.plan)
        # A plan that lived is followed until half of it is left (its end is no margin: a bird alive at the
        # horizon may be past saving); one that died is looked at again at the next step.
        self.replan_below = max(1, len(self.plan) // 2) if best.lives else len(self.plan)
        why = "; ".join(f"{_plan_name(b.plan)}: lived {b.lived}/{b.looks}, {b.lines} new lines, "
                        + (f"{b.rare} rare lines, " if b.rare else "")
                        + (f"{self._closeness(b):.2f} near a seldom-true test, " if self._closeness(b) else "") + f"{b.pictures} new pictures"
                        for b in self.last)
        action, _ = self._follow(inputs, "")
        ahead = full_inputs(self.plan_base, self.plan)
        # The other scouts replay meanwhile to where the next look plays from (the step where the plan is left
        # or, for one that died, the next step): the look's mends play there without a restart, and the plan's
        # rest on the scout that played it.
        at = self.plan[max(0, len(self.plan) - self.replan_below)][0] if self.plan else frame
        self.scouts.warm(ahead, at)
        return action, f"survival: plans played {self.horizon_s:g} s ahead on a scout ({why})"

    def keeps_promise(self) -> bool:
        """A plan that reaches what the game waits for is being followed (its steps are left)."""
        return self.promising and bool(self.plan)

    def _follow(self, inputs: list[Step], why: str) -> tuple[Action, str]:
        at, action = self.plan.pop(0)
        self.plan_base = inputs + ([(at, action)] if not isinstance(action, Wait) else [])
        return action, why

    def _learn(self, prefix: list[Step], frame: int) -> None:
        """The frames the game played after its last step (a step of nothing, or of a key, lasts its own time)."""
        if prefix:
            at, action = prefix[-1]
            played = frame - at
            fps = self.scouts.fps() or 60
            if 0 < played <= 4 * fps:
                self.step_frames[_kind(action)] = played

    def _frames_after(self, action: Action) -> int:
        fps = self.scouts.fps() or 60
        known = self.step_frames.get(_kind(action))
        if known is not None:
            return known
        if isinstance(action, Wait) and action != NOTHING:
            return self._frames_after(NOTHING) + DELAY_FRAMES
        hold = 0.0 if action == NOTHING else self.hold_s
        return max(1, round((self.look_s + hold) * fps))

    def _schedule(self, actions: list[Action], frame: int, end: int | None = None) -> Timeline:
        """(frame, input) per step; steps that would start at or after ``end`` are left off (a key's step
        lasts longer than one of nothing: the plan ends within a step of the horizon)."""
        plan: Timeline = []
        for action in actions:
            if plan and end is not None and frame >= end:
                break
            plan.append((frame, action))
            frame += self._frames_after(action)
        return plan

    def _plan_end(self, plan: Timeline) -> int:
        """The frame the game stands at after the plan's last step."""
        at, action = plan[-1]
        return at + self._frames_after(action)

    def _length(self, frame: int) -> tuple[int, int]:
        """Steps of a plan and the frame its horizon ends at."""
        end = frame + max(1, round(self.horizon_s * (self.scouts.fps() or 60)))
        steps = max(1, min(MAX_STEPS, math.ceil((end - frame) / self._frames_after(NOTHING))))
        return steps, end

    def _look(self, inputs: list[Step], frame: int, valid_plan: bool) -> Branch | None:
        """Play plans until one lives through the horizon (then a few more a warm scout can play, for new
        code and pictures); while none lives, the next plan mends the best so far: a key pressed at a step
        just before it died."""
        self.looks += 1
        steps, end = self._length(frame)
        keys = [a for a in self.alternatives if a != NOTHING]
        self.rng.shuffle(keys)
        first: list[list[Action]] = [[NOTHING] * steps]
        holds = self._holds([k for k in keys if k in self.held], steps)
        if valid_plan:
            first.insert(0, ([a for _, a in self.plan] + [NOTHING] * steps)[:steps])
        novel = [[k] + [NOTHING] * (steps - 1) for k in keys]
        novel += [self._wander(keys, steps) for _ in range(self.explore_plans)] if keys else []
        explore = (self.explore_every > 0 and self.looks % self.explore_every == 0) or self.stale
        branches: list[Branch] = []
        tried: set[tuple[Action, ...]] = set()
        t0 = time.monotonic()
        width = max(1, self.scouts.parallel)
        while len(branches) < self.max_evals and (not branches or time.monotonic() - t0 < self.look_budget_s):
            best = self._best(branches)
            if best is not None and best.lives:
                if len(branches) >= (self.explore_plans if explore else self.cheap_plans):
                    break
                pool = novel
            else:
                # A key just before the death first (the least change), then keys held, then the other mends.
                mends = self._mends(best, keys) if best is not None else []
                pool = first + mends[:2 * len(keys)] + holds + mends[2 * len(keys):]
            batch: list[list[Action]] = []
            for actions in pool:  # as many plans as the scouts play at once (a forked branch each)
                if len(batch) >= min(width, self.max_evals - len(branches)):
                    break
                if tuple(actions) not in tried:
                    tried.add(tuple(actions))
                    batch.append(actions)
            if not batch:
                break
            plans = [self._schedule(actions, frame, end) for actions in batch]
            if best is not None and best.lives and not all(self.scouts.ready(full_inputs(inputs, p)) for p in plans):
                break  # (a restart costs seconds: once a plan lives, only plans a warm scout can play)
            played = self._play(inputs, plans, end)
            if not played:
                break  # no scout ready: the game does not wait for one
            branches.extend(played)
        self._approach(inputs, frame, end, branches, tried, keys, t0)
        self.last = branches
        if not branches:
            return None
        best = self._best(branches)
        assert best is not None
        self.stale = best.lines == 0 and best.rare == 0 and best.pictures == 0
        return best

    def _approach(self, inputs: list[Step], frame: int, end: int, branches: list[Branch],
                  tried: set[tuple[Action, ...]], keys: list[Action], t0: float) -> None:
        """While the best living plan came near a seldom-true equality test without making it hold (the snake
        passes its food a row away), the same plan with a key at one later step: a turn timed to meet it.
        Played on warm scouts only, until one comes nearer, :data:`APPROACH_PLANS` are played, or the look's
        time is spent (the first plans of a look turn at once or at random steps, which seldom meets it)."""
        best = self._best(branches)
        if best is None or not best.lives or not keys or not self._wanting(best):
            return
        actions = [a for _, a in best.plan]
        steps = range(1, max(2, (len(actions) + 1) // 2 + 1))
        later = [[key if i == j else a for i, a in enumerate(actions)]
                 for j in steps for key in keys if actions[j:j + 1] != [key]]
        # A step lasts several frames (a snake moves a cell a frame and turns only where a step starts): a turn a
        # frame later (the plan's own, or another key), through a longer step of nothing before it, reaches the
        # cells in between.
        delay = self._delay()
        later += [[delay if i == j - 1 else key if i == j else a for i, a in enumerate(actions)]
                  for j in steps if j < len(actions) and actions[j - 1] == NOTHING for key in keys]
        self.rng.shuffle(later)
        pool = [a for a in later if tuple(a) not in tried][:APPROACH_PLANS]
        width = max(1, self.scouts.parallel)
        while pool and time.monotonic() - t0 < self.look_budget_s:
            batch, pool = pool[:width], pool[width:]
            plans = [self._schedule(a, frame, end) for a in batch]
            if not all(self.scouts.ready(full_inputs(inputs, p)) for p in plans):
                return
            tried.update(tuple(a) for a in batch)
            played = self._play(inputs, plans, end)
            if not played:
                return
            branches.extend(played)
            if any(self._closeness(b) > self._closeness(best) for b in played if b.lives):
                return

    def _delay(self) -> Wait:
        """A step of nothing :data:`DELAY_FRAMES` frames longer than :data:`NOTHING`'s (whose wait plays one frame):
        the turn after it comes that much later."""
        fps = self.scouts.fps() or 60
        return Wait(round((1 + DELAY_FRAMES) / fps, 6))

    def _wanting(self, branch: Branch) -> bool:
        """Did the branch evaluate a seldom-true equality test without making it hold?"""
        return any(least > 0 and self._seldom(site) for site, (least, _) in branch.near)

    def _seldom(self, site: NearSite) -> bool:
        """An equality test that held in at most :data:`SELDOM_SHARE` of the branches that evaluated it."""
        return self.near_held[site] <= SELDOM_SHARE * self.near_tested[site]

    @staticmethod
    def _holds(keys: list[Action], steps: int) -> list[list[Action]]:
        """Each key read while held pressed step after step, through the plan and through its first half: a
        paddle or a ship moved far (it moves a little each frame the key is down).  One key a plan cannot take
        a paddle to a ball across the screen, and mends add one key a plan."""
        if steps < 2:
            return []  # (one step: the plans with one key already hold it)
        return [[key] * n + [NOTHING] * (steps - n) for n in sorted({steps, max(2, steps // 2)}, reverse=True)
                for key in keys]

    def _wander(self, keys: list[Action], steps: int) -> list[Action]:
        """A random plan: two keys at two steps of its first half (a turn, then another: food off the row)."""
        actions = [NOTHING] * steps
        for j in self.rng.sample(range(max(1, steps // 2)), min(2, max(1, steps // 2))):
            actions[j] = self.rng.choice(keys)
        return actions

    def _mends(self, best: Branch, keys: list[Action]) -> list[list[Action]]:
        """The best plan with one step changed to a key, the steps just before its death first."""
        actions = [a for _, a in best.plan]
        died = best.plan[0][0] + best.died_after
        at = max([j for j, (f, _) in enumerate(best.plan) if f <= died], default=0)
        order = [at - 1, at - 2, at, at - 3, *range(at - 4, -1, -1), *range(at + 1, len(actions))]
        out: list[list[Action]] = []
        for j in order:
            if 0 <= j < len(actions):
                for key in keys:
                    if actions[j] != key:
                        out.append([key if i == j else a for i, a in enumerate(actions)])
        return out

    def _play(self, inputs: list[Step], plans: list[Timeline], end: int) -> list[Branch]:
        """Play ``plans`` after ``inputs`` on scouts, looking every :data:`LOOK_EVERY_S` up to the horizon (the
        branches up to the first no scout was ready for)."""
        fps = self.scouts.fps() or 60
        every = max(1, round(LOOK_EVERY_S * fps))
        stand, memory = max(2, math.ceil(STAND_S * fps / every)), math.ceil(MEMORY_S * fps / every)
        marks: list[list[int]] = []
        for plan in plans:
            last = max(end, self._plan_end(plan))  # the scout stands where the game will after the plan's last step
            # (no look within half a look's time of the last one: a frame apart, a moving game looks still)
            marks.append(list(range(plan[0][0] + every, last - every // 2, every)) + [last])
        branches: list[Branch] = []
        for plan, looks, played in zip(plans, marks, self.scouts.play_many(inputs, list(zip(plans, marks)),
                                                                           stand, memory)):
            if played is None:
                break
            self.branches += 1
            self.lines_seen |= played.replayed
            pictures = 0
            for thumb in played.pictures:
                if thumb not in self.seen:
                    self.seen.add(thumb)
                    pictures += 1
            lines = played.lines - self.lines_seen
            self.lines_seen |= lines
            branches.append(Branch(plan[0][1], played.lived, len(lines), pictures, tuple(plan), len(looks),
                                   played.lived * every, self._rare(played.ran), tuple(played.near.items())))
            self._count_near(played.near)
        return branches

    def _best(self, branches: list[Branch]) -> Branch | None:
        """The best of a look's branches (the first among equals), each scored with its closeness now."""
        scored = [dataclasses.replace(b, close=self._closeness(b)) for b in branches]
        if not scored:
            return None
        at = max(range(len(scored)), key=lambda i: (scored[i].score, -i))
        branches[at] = scored[at]
        return scored[at]

    def _count_near(self, near: dict[NearSite, tuple[float, float]]) -> None:
        for site, (least, last) in near.items():
            self.near_tested[site] += 1
            self.near_held[site] += least == 0
            self.near_far[site] = max(self.near_far.get(site, 0.0), last)

    def _closeness(self, branch: Branch) -> float:
        """How near the branch came to the equality tests that hold in at most :data:`SELDOM_SHARE` of the
        branches that evaluated them (search-based testing's branch distance, each test scaled by the
        largest distance seen): a snake's head to its food, where lines and pictures cannot tell a turn toward
        the food from a turn away.  Half is the least distance (did it hold, or nearly, on the way), half the
        last (a plan is followed only in part and looked at again: one that leaves the head near the food is
        the better start; by the least alone, a snake passing its food a row away on every plan would never
        be told to stay near it).  A test the branch never evaluated adds nothing."""
        total = 0.0
        for site, (least, last) in branch.near:
            if not self._seldom(site):
                continue  # holds often: nothing the game waits for
            if least == 0:
                total += 1.0
                continue
            far = self.near_far.get(site, 0.0)
            if far > 0:
                total += 1.0 - (least + last) / (2 * far)
        return round(total, 6)

    def _rare(self, ran: set[tuple[str, int]]) -> int:
        """Lines of ``ran`` that at most :data:`RARE_SHARE` of the branches before ran (none before
        :data:`RARE_AFTER` branches: early, every line is rare); then ``ran`` is counted."""
        if not ran:
            return 0
        n = self.ran_branches
        rare = sum(1 for line in ran if self.ran_by[line] <= RARE_SHARE * n) if n >= RARE_AFTER else 0
        self.ran_by.update(ran)
        self.ran_branches += 1
        return rare


def standing_still(change: BBox | None, before: BBox | None, frame: Frame) -> bool:
    """Nothing moved between two looks, or only a small region that also changed before (a glowing
    food, a blinking caret on a GAME OVER panel): the game is not being played on."""
    if change is None:
        return True
    if before is None:
        return False
    x0, y0, x1, y1 = change
    small = (x1 - x0) * (y1 - y0) <= SMALL_CHANGE * frame.width * frame.height
    inside = before[0] - NEAR_PX <= x0 and before[1] - NEAR_PX <= y0 and x1 <= before[2] + NEAR_PX \
        and y1 <= before[3] + NEAR_PX
    return small and inside


def _inputs(prefix: list[Step]) -> list[Step]:
    """The inputs of a prefix that reach the program (a wait sends nothing)."""
    return [(at, a) for at, a in prefix if not isinstance(a, Wait)]


def _name(action: Action) -> str:
    if action == NOTHING:
        return "nothing"
    return action.key if isinstance(action, Press) else action.name


def _kind(action: Action) -> str:
    if isinstance(action, Wait):
        return "nothing" if action == NOTHING else "delay"
    return type(action).__name__


def _plan_name(plan: tuple[tuple[int, Action], ...]) -> str:
    """A plan in short: its inputs by step ('.' for nothing)."""
    return " ".join("." if a == NOTHING else _name(a) for _, a in plan) or "-"
