"""The reference program played beside a scripted run, for ``similar_to_reference`` expectations.

A rubric that says "at this step the window looks like the reference's" needs no committed
picture: the reference program runs on a private display of its own with the run's seed and
gets every scripted step the candidate gets; its settled frame after a step is what the
candidate's is compared with, on the same machine, with the same fonts.
"""

from __future__ import annotations

import time
from concurrent.futures import Future, ThreadPoolExecutor

from app.engine.errors import UserError
from app.engine.play.actions import Action
from app.engine.play.display import ISOLATED, XDisplay, open_display
from app.engine.play.observer import Frame, Observation
from app.engine.play.player import Player, stop_programs
from app.engine.play.targetspec import ResolvedTarget, TargetSpec, resolve_target


class LiveReference:
    """One run of the reference program, stepped by hand: :meth:`send` an action, :meth:`frame` after it."""

    def __init__(self, reference: str, seed: int) -> None:
        self.reference = reference
        self.seed = seed
        self.resolved: ResolvedTarget | None = None
        self.display: XDisplay | None = None
        self.player: Player | None = None
        self.obs: Observation | None = None
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="live-reference")
        self.pending: Future[Observation] | None = None

    @classmethod
    def for_target(cls, spec: TargetSpec, seed: int, reference: str | None) -> "LiveReference":
        """The reference of ``spec``: ``reference`` if given, else the known-good program
        (:func:`app.engine.judge.refs.reference_program`: the unpatched app of a variant, the
        bundled app a copy was made from)."""
        from app.engine.judge.refs import reference_program

        folder = reference or reference_program(spec)
        if folder is None:
            raise UserError(f"{spec.name}'s [[script]] compares with its reference program "
                            "(similar_to_reference), but none is known for it: pass --reference REF_DIR.")
        return cls(str(folder), seed)

    def start(self) -> None:
        try:
            self.resolved = resolve_target(self.reference)
            spec = self.resolved.spec
            self.display = open_display(ISOLATED, spec.size)
            self.player = Player(spec, self.display, self.seed, time.sleep)
            self.player.start()
            timing = spec.timing
            self.obs = self.player.settle(timing.settle_cap_ms / 1000, timing.quiet_ms / 1000)
        except Exception:
            self.close()
            raise

    def send(self, action: Action) -> None:
        """Play ``action`` on the reference, in the background (the candidate plays it meanwhile)."""
        assert self.player is not None and self.obs is not None, "start() first"
        self.wait()
        player, before = self.player, self.obs
        self.pending = self.pool.submit(player.act, action, before)

    def wait(self) -> None:
        if self.pending is not None:
            pending, self.pending = self.pending, None
            self.obs = pending.result()

    def frame(self) -> Frame | None:
        """The reference's settled frame after the last action sent."""
        self.wait()
        return self.obs.frame if self.obs is not None else None

    def close(self) -> None:
        players, displays = [self.player] if self.player else [], [self.display] if self.display else []
        stop_programs(players, displays, self.pending, self.resolved)
        self.pending = self.player = self.display = self.resolved = None
        self.pool.shutdown(wait=False)
