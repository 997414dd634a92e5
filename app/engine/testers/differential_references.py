"""The two reference runs of differential play: started, stepped and followed beside the candidate.

:class:`ReferenceRuns` is the part of :class:`~app.engine.testers.differential.DifferentialTester`
that owns the reference programs: which program is the reference, starting both runs
(and the paced check, :mod:`app.engine.testers.paced`) on a thread while the session
starts the candidate, sending each input to both, keeping what they print on stderr,
and, on the frame gate, bringing every program to the same frame count before a look.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable

from app.engine.errors import UserError
from app.engine.judge.oracles import Finding
from app.engine.play.actions import Action
from app.engine.play.display import ISOLATED, XDisplay, open_display
from app.engine.play.observer import Frame, Observation
from app.engine.play.player import Player
from app.engine.play.targetspec import ResolvedTarget, TargetSpec, resolve_target
from app.engine.testers.base import TesterContext
from app.engine.testers.paced import PacedCheck
from app.engine.trace.store import TrajectoryStore, frame_digest

CONFIRM_SAMPLE_S = 0.05
"""Between two looks at a program watched with no input (and at windows still taking their size)."""
EPISODE_END_S = 3.0
"""When the reference ends by design, how long the candidate has to end too."""
MAX_REFERENCE_ERRORS = 10_000
"""At most this many distinct stderr lines of the reference are kept (a program that logs without end)."""
START_SIZE_S = 3.0
"""At start, how long windows still taking their size (off the gate) have to agree on one before comparing."""


class ReferenceRuns:
    """The reference programs' side of a differential run (its state is set up by the tester's ``__init__``)."""

    reference_arg: str | None
    paced: bool
    paced_note: str
    ctx: TesterContext | None
    resolved: ResolvedTarget | None
    displays: list[XDisplay]
    players: list[Player]
    pool: ThreadPoolExecutor
    _starter: ThreadPoolExecutor
    _starting: Future[None] | None
    _cancelled: bool
    paced_frames: list[Frame]
    ref_obs: list[Observation]
    findings: list[Finding]
    store: TrajectoryStore | None
    lockstep_frame: int
    reference_errors: set[str]

    def _reference_target(self, spec: TargetSpec) -> str:
        if self.reference_arg:
            return self.reference_arg
        if spec.bug:
            return str(spec.source)  # the unpatched folder of a bundled variant
        raise UserError("--tester differential needs --reference REF_DIR: the program to compare the candidate "
                        "with (for APP@BUG it is APP itself).")

    def prepare(self, spec: TargetSpec, seed: int) -> None:
        """Called by the session before it starts the candidate: the reference runs and the paced check's
        programs start meanwhile, on a thread of their own (:meth:`begin` waits for them).  Starting a program
        is mostly waiting for its window, so the five start side by side."""
        if self._starting is not None:
            return
        self.resolved = resolve_target(self._reference_target(spec))
        self._starting = self._starter.submit(self._start_references, spec, self.resolved.spec, seed)

    def _start_references(self, spec: TargetSpec, ref_spec: TargetSpec, seed: int) -> None:
        """Both reference runs, started and settled on their gates, and the paced check made.  The paced check's
        programs start with the references; its watches begin once the references stand on their gates, so no
        program starting beside them takes the machine from the programs it watches."""
        references_ready = threading.Event()

        def watch_when_ready() -> bool:
            references_ready.wait()
            return not self._cancelled

        paced = ThreadPoolExecutor(max_workers=1, thread_name_prefix="paced-check") if self.paced else None
        check = paced.submit(self._paced_check, spec, ref_spec, seed, watch_when_ready) if paced is not None else None
        try:
            for _ in range(2):
                display = open_display(ISOLATED, ref_spec.size)
                self.displays.append(display)
                self.players.append(Player(ref_spec, display, seed, time.sleep, gated=True, steps_clock=True))
            starts = [self.pool.submit(p.start) for p in self.players]
            for f in starts:
                f.result()
            cap, quiet = ref_spec.timing.settle_cap_ms / 1000, ref_spec.timing.quiet_ms / 1000
            self.ref_obs = [f.result() for f in [self.pool.submit(p.settle, cap, quiet) for p in self.players]]
        except Exception:
            self._cancelled = True
            raise
        finally:
            references_ready.set()
            if check is not None and paced is not None:
                check.result()  # its programs are stopped when it returns (it never raises)
                paced.shutdown()


    def _paced_check(self, spec: TargetSpec, ref_spec: TargetSpec, seed: int, ready: Callable[[], bool]) -> None:
        """What lockstep hides: the candidate's pace (and still pictures off the pinned clock) against the
        reference's, before the lockstep run; a difference is a ``paced`` finding (the run goes on).
        ``ready``: waited for between starting the check's programs and watching them (False: not watched).
        Runs on a thread of its own while the session starts the candidate: its evidence frames are named
        by their hash here and stored by :meth:`begin` (the session writes the store meanwhile)."""

        def put(frame: Frame) -> str:
            self.paced_frames.append(frame)
            return frame_digest(frame.width, frame.height, frame.bgrx)

        check = PacedCheck(spec, ref_spec, seed, put if self.store is not None else None)
        finding = check.run(ready)
        self.paced_note = check.note
        if check.paces is not None and finding is None and not check.note:
            c, r = check.paces
            self.paced_note = (f"off the frame gate and the pinned clocks, the same pace as the reference "
                               f"({c.pictures_per_s:.0f} vs {r.pictures_per_s:.0f} pictures/s, "
                               f"{100 * c.motion_per_s:.1f}% vs {100 * r.motion_per_s:.1f}% of the window/s)")
        if finding is not None:
            self.findings.append(finding)

    def _store_paced_frames(self) -> None:
        """The paced check's evidence frames, stored under the hashes its finding names."""
        frames, self.paced_frames = self.paced_frames, []
        if self.store is not None and frames:
            with self.store.transaction():
                for frame in frames:
                    self.store.put_frame(frame.width, frame.height, frame.bgrx)

    def _fresh_start(self, first: Observation) -> Observation:
        """The candidate's first look was taken before the references started (seconds ago): off the gate, look
        again, and give a window still taking its size at start (a Tk window mapped small, then grown) up to
        START_SIZE_S until the candidate's and both references' windows have one size; a size that still
        differs then is compared (and reported) as before."""
        candidate = self._candidate()
        if candidate is None or candidate.observer is None or self._in_lockstep():
            return first
        deadline = time.monotonic() + START_SIZE_S
        while True:
            for player in [candidate, *self.players]:
                follow_window(player)
            frame = candidate.observer.capture()
            refs = [p.observer.capture() for p in self.players if p.observer is not None]
            sizes = {(f.width, f.height) for f in [frame, *refs]}
            if len(sizes) == 1 or time.monotonic() >= deadline:
                break
            time.sleep(CONFIRM_SAMPLE_S * 2)
        if len(refs) == len(self.ref_obs):
            self.ref_obs = [dataclasses.replace(o, frame=f) for o, f in zip(self.ref_obs, refs)]
        return dataclasses.replace(first, frame=frame)


    def _note_reference_errors(self) -> None:
        """Keep what the reference runs printed on stderr (before they stop or restart)."""
        for player in self.players:
            if len(self.reference_errors) < MAX_REFERENCE_ERRORS:
                self.reference_errors.update(stderr_lines(player))


    def _play_reference(self, action: Action) -> list[Observation]:
        """Send the action to both reference runs at once and settle each."""
        threads: list[threading.Thread] = []
        results: list[Observation | None] = [None] * len(self.players)

        def run(i: int) -> None:
            player = self.players[i]
            follow_window(player)
            obs = player.act(action, self.ref_obs[i])
            if follow_window(player) and player.observer is not None:
                obs = dataclasses.replace(obs, frame=player.observer.capture())  # resized by the input
            results[i] = obs

        for i in range(len(self.players)):
            threads.append(threading.Thread(target=run, args=(i,), daemon=True))
            threads[-1].start()
        for t in threads:
            t.join()
        return [r for r in results if r is not None]


    def _sync(self) -> None:
        """Before an input: programs on the gate stand at the same frame (a restarted candidate's
        oracles let it play frames at its start)."""
        if self._in_lockstep():
            self._catch_up()

    def _references(self) -> list[Frame]:
        frames: list[Frame] = []
        for player in self.players:
            if player.observer is not None:
                frames.extend(player.observer.frames)
        return frames

    def _candidate(self) -> Player | None:
        player = self.ctx.player if self.ctx is not None else None
        return player if isinstance(player, Player) else None

    def _in_lockstep(self) -> bool:
        candidate = self._candidate()
        return candidate is not None and candidate.lockstep and all(p.lockstep for p in self.players)

    def _catch_up(self) -> None:
        """Every program on the gate plays up to the same frame count (the candidate's oracles may have
        let it play more)."""
        candidate = self._candidate()
        assert candidate is not None
        everyone = [candidate, *self.players]
        self.lockstep_frame = max(p.frames for p in everyone)
        behind = [p for p in everyone if p.frames < self.lockstep_frame]
        jobs = [self.pool.submit(p.catch_up, self.lockstep_frame) for p in behind[1:]]  # side by side
        if behind:
            behind[0].catch_up(self.lockstep_frame)
        for job in jobs:
            job.result()

    def _same_frame(self) -> tuple[Frame, list[Frame]]:
        """All at the same frame, each looked at once, standing still: the candidate's and the references'."""
        self._catch_up()
        candidate = self._candidate()
        assert candidate is not None and candidate.observer is not None
        refs = [p.observer.capture() for p in self.players if p.observer is not None]
        return candidate.observer.capture(), refs



def follow_window(player: Player) -> bool:
    """Re-read a reference's window as the session does the candidate's (a window resized or moved is
    captured where it is now, and its screen grows to hold a window grown past it); True when it changed."""
    target = player.target
    if target is None or player.lockstep:
        return False
    old = target.window
    try:
        # grown past its screen: the screen follows, before the new geometry is captured
        new = target.refresh_geometry(before=player.display.hold)
    except Exception:  # a window going away: the run finds out from the process
        return False
    return new is not None and new != old


def stderr_lines(player: Player) -> list[str]:
    """What a player's program printed on stderr so far, one stripped non-empty line each."""
    if player.target is None:
        return []
    return [text.strip() for stream, _, text in player.target.lines() if stream == "stderr" and text.strip()]


def wait_ended(players: list[Player]) -> None:
    """Wait (at most EPISODE_END_S) until each player's program has ended: programs that end at the same
    input do not end at the same instant."""
    deadline = time.monotonic() + EPISODE_END_S
    while any(p.target is not None and p.target.alive() for p in players) and time.monotonic() < deadline:
        time.sleep(0.05)
