"""Which action the offline explorer takes next among those on offer: the least tried on this screen,
hinted keys first, ties broken by what answered before and where it led; resets (a restart key, a
Home button) wait until the screen stops answering, and when stuck on few screens what led
elsewhere comes first.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Callable

from app.engine.play.actions import Action, Hotkey, Press, Tap, Type
from app.engine.testers.offline_memory import ExplorerMemory

BUTTON_MIN_W = 24
BUTTON_MIN_H = 16
"""A detected widget at least this big is taken for a control (a button), smaller for a glyph."""
MAX_KEY_RUN = 3
"""In an app, once every hinted key has been pressed, at most this many key actions in a row while
something can be clicked: typing that makes every screen new must not starve the buttons (New,
Save, menus).  Games keep pressing their keys: that is how they are played."""
RESET_AFTER_UNCHANGED = 3
"""After this many inputs in a row that changed nothing (each having answered before), a known reset
(restart key, Home) is tried first."""
TRAP_WEIGHT = 3
"""An action that opened a dialog the explorer had to escape counts as tried this many times more."""


def _is_key(action: Action) -> bool:
    return isinstance(action, (Press, Hotkey, Tap, Type))


class ActionRanking(ExplorerMemory):
    """Ranks the actions on offer by what the explorer remembers of them."""

    def _balance_keys(self) -> bool:
        """Cap key runs: in apps, after a first pass over the hinted keys (see MAX_KEY_RUN)."""
        assert self.ctx is not None
        return self.ctx.spec.kind == "app" and all(self.global_tries[k] for k in self.keys)

    def _count(self, state: str, action: Action) -> int:
        """Tries of ``action`` on ``state``; one that opened a dialog the explorer had to escape counts more."""
        return self.tried[state][action] + TRAP_WEIGHT * self.traps[action]

    def _pick(self, state: str, pool: list[Action], stuck: bool) -> tuple[Action, int]:
        """The least-tried action (hinted keys first when untried); ties go to actions that responded before,
        were tried less overall and led to less-visited screens.  When stuck, the screen an action led to
        decides first."""
        assert self.ctx is not None
        counts = {a: self._count(state, a) for a in pool}

        def seen(a: Action) -> int:
            known = self.results.get((state, a))
            return self.visits[known] if known is not None else 0

        loop = set(self.recent) | {state}

        def leaves(a: Action) -> int:
            """0: known to lead to another screen; 1: not tried here; 2: known to stay on this one.
            When stuck, a screen of the loop itself counts as staying: a Quit button whose program
            restarts on the same title screen leads nowhere new, however often it is clicked."""
            known = self.results.get((state, a))
            if known is None:
                return 1
            return 2 if known == state or (stuck and known in loop) else 0

        def out_of_loop(a: Action) -> tuple[int, ...]:
            # Out of a loop of few screens: first what is known to lead elsewhere, least visited first.
            return (leaves(a), seen(a), counts[a], self.global_tries[a])

        rank: Callable[[Action], tuple[int, ...]] = out_of_loop
        if not stuck:
            pool, rank = self._fresh_ranking(state, pool, counts, seen)
        best = min(rank(a) for a in pool)
        action = self.ctx.rng.choice([a for a in pool if rank(a) == best])
        return action, counts[action]

    def _fresh_ranking(self, state: str, pool: list[Action], counts: dict[Action, int],
                       seen: Callable[[Action], int]) -> tuple[list[Action], Callable[[Action], tuple[int, ...]]]:
        """Not stuck: the least tried of the actions not known to stay on this screen, and how they rank."""
        assert self.ctx is not None
        least = min(counts.values())
        view_clicks = self._view.clicks if self._view is not None else {}
        glyphs = self._view.glyphs if self._view is not None else frozenset()
        # A reset waits while the screen answers; when the last few inputs changed nothing (a game's
        # final board that only its restart key leaves), it is what to try first.
        known_resets = self._resets(state)
        waiting = self.silent_run < RESET_AFTER_UNCHANGED
        resets, reset_now = (known_resets, set()) if waiting else (set(), known_resets)
        app = self.ctx.spec.kind == "app"
        # What is known to leave this screen unchanged is not tried again while something else
        # may still do something (a title screen: its play keys, then Enter).
        stay = [a for a in pool if self.results.get((state, a)) == state]
        if stay and len(stay) < len(pool):
            pool = [a for a in pool if a not in stay]
            least = min(counts[a] for a in pool)
        pool = [a for a in pool if counts[a] == least]
        keys_first: list[Action] = [a for a in pool if _is_key(a) and not isinstance(a, Type) and a not in resets]
        if keys_first and least == 0 and (self.key_run < MAX_KEY_RUN or not self._balance_keys()):
            pool = keys_first

        def rank(a: Action) -> tuple[int, ...]:
            # Widgets take turns (an '=' that shares the window's grey is reached soon); keys stay
            # a random walk, so sequences such as "operator, then Enter" come up.
            # A reset (an 'R' that always leads back to the same screen) waits until the new screen's
            # other inputs were tried: else two-step play (turn one card, then another) never happens.
            # A click that never did anything anywhere is probably no widget; keys are few and
            # answer on some screens only (P in the game, not on its menu), so they are never 'dead'.
            dead = int(not _is_key(a) and self.global_tries[a] >= 2 and self.responses[a] == 0)
            reset = int(a in resets)
            # In an app, a key that has not answered anywhere yet is tried first on each new screen:
            # one dead key (an Enter that adds nothing) shows only over many screens.
            unanswered = int(not (app and _is_key(a) and not isinstance(a, Type) and self.responses[a] == 0))
            # Button-sized widgets before glyph-sized blobs: a menu's Play button is found before
            # every letter of its high-score table has been clicked.
            widget = view_clicks.get(a)
            small = int(widget is not None and (widget.width < BUTTON_MIN_W or widget.height < BUTTON_MIN_H
                                                or a in glyphs))
            used = int(not app and _is_key(a) and a in self.answered)
            return (reset - int(a in reset_now), used, unanswered, dead, small,
                    0 if _is_key(a) else self.global_tries[a], seen(a))
        return pool, rank

    def _leads_home(self, action: Action, landed_on: str) -> bool:
        """Whether ``action``, which just led to ``landed_on``, is a reset: it led back to the first screen,
        or to this one screen from two screens."""
        landed = {result for (origin, a), result in self.results.items() if a == action and origin != result}
        origins = sum(1 for (origin, a), result in self.results.items() if a == action and origin != result)
        return landed_on == self.first_state or (origins >= 1 and landed == {landed_on})

    def _resets(self, state: str) -> set[Action]:
        """Actions that led to one and the same other screen from at least two screens (a restart key,
        a Home button): they go somewhere known, wherever they are tried."""
        landed: dict[Action, set[str]] = defaultdict(set)
        origins: Counter[Action] = Counter()
        for (origin, action), result in self.results.items():
            if origin != result:
                landed[action].add(result)
                origins[action] += 1
        resets = {a for a, results in landed.items() if origins[a] >= 2 and len(results) == 1 and state not in results}
        if self.first_state is not None and state != self.first_state:
            # A key that led back to the first screen (a game's restart key, New) resets at its first use:
            # pressed on every new screen it would undo every game before its end.
            resets |= {a for (origin, a), result in self.results.items()
                       if _is_key(a) and result == self.first_state and origin != result}
        return resets
