"""Differential play's widget texts: the candidate's widgets read from inside against the reference runs'.

:class:`WidgetComparison` is the part of :class:`~app.engine.testers.differential.DifferentialTester`
that compares what pictures miss (a minus sign, an Entry's content) exactly, from inside the programs
(Tk, Qt: :mod:`app.engine.testers.widget_texts`).  What the reference runs disagree on, or change by
themselves, is widget noise and never compared; a difference is looked at again before it counts.
"""

from __future__ import annotations

import time

from app.engine.judge.compare import Divergence
from app.engine.play.observer import Frame
from app.engine.play.player import Player
from app.engine.testers.differential_screens import CATCH_UP_SAMPLE_S, NOISE_WATCH_S, UNREPRODUCIBLE_SHARE, \
    ScreenComparison
from app.engine.testers.widget_texts import Key, Shown, describe, differing, shown


class WidgetComparison(ScreenComparison):
    """The widgets' texts, enabled and visible states, compared after the pictures."""

    widget_noise: set[Key]
    widgets_compared: int


    @staticmethod
    def _widgets_of(player: Player | None) -> Shown | None:
        target = player.target if player is not None else None
        if target is None or not target.alive():
            return None
        widgets = target.inside.widgets()
        return shown(widgets) if widgets else None

    def _reference_widgets(self) -> list[Shown] | None:
        looks = [self._widgets_of(p) for p in self.players]
        return None if any(look is None for look in looks) else looks  # type: ignore[return-value]

    def _widget_self_check(self, *looks: list[Shown] | None) -> None:
        """What the two reference runs disagree on, or what either changed between two looks, is noise."""
        seen = [look for look in looks if look is not None]
        for look in seen:
            for a, b in zip(look, look[1:]):
                self.widget_noise |= differing(a, b)
        for earlier, later in zip(seen, seen[1:]):
            for a, b in zip(earlier, later):
                self.widget_noise |= differing(a, b)
        self._mask_noisy_widgets([s for look in seen for s in look])

    def _mask_noisy_widgets(self, looks: list[Shown]) -> None:
        """A widget whose text the reference runs disagree on is noise in the pictures too, wherever any look
        placed it: a label showing an unseeded token is drawn from the same text the self-check ignores.  On
        the engine's clock it does not change while the noise is watched, so the two runs' pixels alone
        would mask only the digits they happen to disagree on (each box is added as other noise is: never
        one over a quarter of the window)."""
        if self.noise is None or not self.widget_noise:
            return
        height, width = self.noise.shape
        boxes = {look[key][1] for key in self.widget_noise for look in looks if key in look}
        for box in boxes - {None}:
            assert box is not None
            x0, y0, x1, y1 = (max(0, box[0]), max(0, box[1]), min(width, box[2]), min(height, box[3]))
            if x1 > x0 and y1 > y0 and (x1 - x0) * (y1 - y0) <= UNREPRODUCIBLE_SHARE * width * height:
                self.noise[y0:y1, x0:x1] = True

    def _judge_widgets(self, step: int | None, frame: Frame) -> None:
        """Texts (and enabled/visible) of the candidate's widgets against the reference runs', exactly: a
        minus sign or an Entry's content is below any pixel threshold.  A difference is looked at twice."""
        refs = self._reference_widgets()
        candidate = self._widgets_of(self._candidate())
        if refs is None or candidate is None:
            return
        self._widget_self_check(refs)
        self.widgets_compared += 1
        if not differing(candidate, refs[0]) - self.widget_noise:
            return
        # A closer look, asked again until the difference is gone, for up to a quarter of NOISE_WATCH_S: a
        # timer showing the engine's time may not have ticked yet in one of them.
        end = time.monotonic() + NOISE_WATCH_S / 4
        while True:
            time.sleep(CATCH_UP_SAMPLE_S)
            again = self._reference_widgets()
            candidate_again = self._widgets_of(self._candidate())
            if again is None or candidate_again is None:
                return
            self._widget_self_check(again)
            left = [k for k in (differing(candidate, refs[0]) & differing(candidate_again, again[0]))
                    if k not in self.widget_noise]
            if not left:
                # All caught up: what changed between the looks is not noise, or a stopwatch's digits would
                # never be compared again.
                self.caught_up += 1
                return
            if time.monotonic() >= end:
                break
        self._widget_self_check(refs, again)  # a difference that stays: what changes by itself is noise
        left = [k for k in left if k not in self.widget_noise]
        if not left:
            return
        def place(k: Key) -> tuple[int, int]:  # the topmost, leftmost difference is named
            box = (refs[0].get(k) or candidate[k])[1]
            return (box[1], box[0]) if box else (1 << 30, 0)

        key = min(left, key=lambda k: (place(k), k))
        message, evidence = describe(key, candidate_again, again[0])
        box = (candidate_again.get(key) or again[0][key])[1] or (0, 0, 0, 0)
        self._diverge(step, frame, Divergence(box, 0, 0.0, self.ref_obs[0].frame, message))
        assert self.diverged is not None
        self.diverged.evidence.update(evidence)
