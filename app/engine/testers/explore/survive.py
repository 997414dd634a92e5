"""The survival strategy: in a moving game on the frame gate, the input whose future lives longest.

It plays plans ahead on forked branches of the game (:mod:`.fork_scout`, searched by :mod:`.survival`),
leaves every :data:`OWN_EVERY`-th step to the explorer's own choice, and lets a game it kept alive long
without new code go to its end (:data:`LET_GO_ALIVE`): the end of a game is a state a player reaches too.
"""

from __future__ import annotations

import time

from app.engine.play.actions import Action, Press, Wait
from app.engine.play.observer import Observation
from app.engine.testers.base import Decision
from app.engine.testers.explore.fork_scout import FORK_CHEAP_PLANS, FORK_EVALS, FORK_LOOK_BUDGET_S, ForkScouts
from app.engine.testers.explore.scouts import NOTHING
from app.engine.testers.explore.state import Explored
from app.engine.testers.explore.survival import SurvivalSearch, standing_still

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


class Survive:
    """Survival look-ahead for a moving game, with its own clock, scouts and episode bookkeeping."""

    def __init__(self, state: Explored, on: bool) -> None:
        self.state = state
        self.on = on
        """Still searching this run (off after the search failed, or when its scout is not on the gate)."""
        self.search: SurvivalSearch | None = None
        self.scout: ForkScouts | None = None
        self.tick = 0
        self.spent_s = 0.0
        self.moved = 0
        """Steps the game moved in a row (a standing picture after three is an episode's end)."""
        self.last_change: tuple[int, int, int, int] | None = None
        self.alive_since = 0.0
        """Where in the run's budget (:meth:`Explored.spent`) the game last began an episode ..."""
        self.new_code_at = 0.0
        """... and last ran a line of its code new to the run."""
        self.let_go_at: float | None = None
        """Where the game was let go (:data:`LET_GO_ALIVE`), while it is; None while it is played."""
        self.let_go_failed = False

    def warm(self) -> None:
        """The scouts start while the game shows its first screen."""
        s = self.state
        assert s.ctx is not None
        if self.on and s.ctx.spec.kind == "game" and s.lockstep():
            self.new_search().scouts.warm([], 0)

    def decide(self, obs: Observation) -> Decision | None:
        s = self.state
        assert s.ctx is not None
        if self.let_go_at is not None and obs.settled:
            self.ended()  # the game left alone came to rest: its end (the explorer plays it now)
        if not self.on or s.ctx.spec.kind != "game" or obs.settled or not s.lockstep() \
                or s.returner.pending is not None:
            return None
        let_go = self.let_go()
        if let_go is not None:
            return let_go
        self.tick += 1
        if self.tick % OWN_EVERY == 0 and self.search is not None and self.search.keeps_promise():
            self.tick -= 1  # the own step waits until the plan that eats is played (it would end it)
        elif self.tick % OWN_EVERY == 0 or self.spent_s > SURVIVAL_SHARE * (time.monotonic() - s.began):
            # The explorer's own input, from the state survival reached (Go-Explore's explore phase).
            s.in_play = self.search is not None and self.search.living
            return None
        t0 = time.monotonic()
        try:
            return self.look_ahead()
        except Exception as exc:  # an aid, never the run's end: the explorer plays on without it
            self.on = False
            if self.scout is not None:
                self.scout.close()
            return Decision(Wait(0.0), f"survival search off for this run ({type(exc).__name__}: {exc}); "
                                       "the explorer chooses from here")
        finally:
            self.spent_s += time.monotonic() - t0

    def ended(self) -> None:
        """An episode ended (a GAME OVER stands, or the program started again)."""
        self.alive_since = self.state.spent()
        self.let_go_at = None

    def let_go(self) -> Decision | None:
        """Nothing sent while a game kept alive long without new code is let go to its end (:data:`LET_GO_ALIVE`)."""
        s = self.state
        if self.let_go_at is None:
            if self.let_go_failed or self.search is None or not self.search.decisions:
                return None  # the search never played this game (or it did not end when let go)
            now = s.spent()
            if now - self.alive_since < LET_GO_ALIVE or now - self.new_code_at < LET_GO_STALE:
                return None
            self.let_go_at = now
        elif self.new_code_at > self.let_go_at:
            # New code ran while the game was left alone: its end (a GAME OVER drawn, a death handled), also
            # where the picture does not stand (clouds drifting behind the panel).  Played from here.
            self.ended()
            return None
        elif s.spent() - self.let_go_at >= LET_GO_MAX:
            self.let_go_at, self.let_go_failed = None, True  # it does not end by itself: played on
            return None
        return Decision(NOTHING, f"let go: the game was kept alive {self.let_go_at - self.alive_since:.0%} of the "
                                 "budget without new code; nothing is sent until this episode ends (the end of a "
                                 "game is played too)")

    def look_ahead(self) -> Decision | None:
        s = self.state
        search = self.search or self.new_search()
        chosen = search.choose(s.prefix, s.frame_count())
        if chosen is None:
            return None  # no scout ready yet (they start in the background): the explorer's own choice
        action, why = chosen
        if self.scout is not None and not self.scout.gated:
            self.on = False  # the scout is not on the gate: its future is not the game's
            return None
        if not search.living:
            return None  # no key does better than nothing (a menu that wants a click): the explorer's own choice
        return Decision(action, why)

    def new_search(self) -> SurvivalSearch:
        s = self.state
        assert s.ctx is not None
        player = s.player()
        assert player is not None
        # Branches forked from a copy that follows the game: a look tries many plans for the cost of their frames.
        self.scout = ForkScouts(s.ctx.spec, s.ctx.seed)
        keys: list[Action] = [k for k in s.keys if isinstance(k, Press)]
        # A key that starts the game over is no plan to live on: every branch pressing it meets the start again,
        # and its first food or first pipe made "eating" look common to the branch distance.  The explorer's own
        # steps still press it (a GAME OVER waits for it).
        keys = [k for k in keys if isinstance(k, Press) and k.key not in s.reads.restarts] or keys
        held = frozenset(k for k in keys if isinstance(k, Press) and k.key in s.reads.held)
        self.search = SurvivalSearch(self.scout, keys, s.ctx.rng, look_s=player.look_s(),
                                     hold_s=s.ctx.spec.timing.hold_ms / 1000, max_evals=FORK_EVALS,
                                     look_budget_s=FORK_LOOK_BUDGET_S, cheap_plans=FORK_CHEAP_PLANS,
                                     explore_plans=FORK_EVALS, held=held)
        return self.search

    def restarted_by(self, action: Action) -> None:
        """A key the program reads to start again, pressed where the game stood (its GAME OVER, a menu), begins a
        new episode: it is kept alive from here.  Pressed while the game moves it starts nothing (a snake's
        Enter is read only on its menu), and the episode's count goes on: a search whose plans press Enter now
        and then would otherwise never let the game go."""
        s = self.state
        if s.standing and isinstance(action, Press) and action.key in s.reads.restarts:
            self.alive_since = s.spent()

    def observed(self, after: Observation, new_lines: int) -> None:
        """After each step: new code run, a picture come to rest (a GAME OVER panel: an episode's end)."""
        if new_lines:
            self.new_code_at = self.state.spent()
        # A game that moved and now stands (but for a glow): survival is worth it now.
        standing = standing_still(after.changed_bbox, self.last_change, after.frame)
        self.last_change = after.changed_bbox
        if standing and self.moved >= 3:
            self.ended()
        self.moved = 0 if standing else self.moved + 1

    def close(self) -> None:
        if self.scout is not None:
            self.scout.close()
            self.scout = None


def survival_counts(survive: Survive) -> dict[str, int]:
    s = survive.search
    return {"branches": s.branches if s else 0, "restarts": s.restarts if s else 0}

