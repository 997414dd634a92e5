"""Differential play: the candidate and its reference get the same seed and the same inputs.

The reference is played twice, on private displays of its own, beside the
candidate.  Each step's action is chosen once and sent to all three programs:
first the steps of the reference's ``[[script]]`` cases that apply to the
seed (their expectations are not needed; none with ``--no-script``), then by
exploring the first reference (the model-free explorer's choices,
:mod:`app.engine.testers.explore`: keys read from the code, widgets from
inside, tester plans);
their settled frames are compared (:mod:`app.engine.judge.compare`).  What
the two reference runs disagree on, and what the reference changes by
itself, is *noise* and never counts.  The first behavioural difference that
survives a closer look (the reference watched for a second, nearest frame)
ends the run with a ``diverged`` finding holding both frames and the region.
Every step also records the first reference run's frame beside the
candidate's (the step's ``frame_reference``), so the workbench and the report
show a run as candidate | reference | difference at every step.
A reference that cannot reproduce itself makes the run ``uncertain``, never a
candidate bug.

Games play in lockstep (:mod:`app.engine.play.gate`): a pygame game, the
candidate and both reference runs, is held on a frame gate, each input is
sent while all three stand still, and before each comparison every program
plays up to the same frame count.  Their pictures are then of the same frame
of the same game, so a moving game is compared at every step like a settled
window, and the reference runs must agree pixel for pixel.  A program that is
not on the gate (Tk, Qt, a game that paces itself otherwise) is compared when
settled, as before.

For ``APP@BUG`` the reference is the bundled APP itself (the unpatched
folder); otherwise ``--reference REF_DIR``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable

import numpy as np

from app.engine.errors import UserError
from app.engine.judge.compare import (Divergence, box_mask, changed_text, compare, difference_mask, grow,
                                      significant)
from app.engine.judge.oracles import FAILING_KINDS, Finding
from app.engine.judge.verdict import FAIL, PASS, UNCERTAIN, Evidence, Verdict, decide
from app.engine.play.actions import Action, Finish, Wait
from app.engine.play.control import RunControl
from app.engine.play.display import ISOLATED, XDisplay, open_display
from app.engine.play.gate import GATE_ENDED
from app.engine.play.observer import Frame, Observation
from app.engine.play.player import Player, stop_programs
from app.engine.play.targetspec import ResolvedTarget, TargetSpec, resolve_target
from app.engine.testers.base import Decision, TesterContext
from app.engine.testers.explore.explorer import Explorer
from app.engine.testers.offline import OfflineExplorer
from app.engine.testers.paced import PacedCheck
from app.engine.testers.widget_texts import Key, Shown, describe, differing, shown
from app.engine.trace.store import TrajectoryStore, frame_digest

NOISE_WATCH_S = 1.0
"""The reference is watched this long at start, and again before a divergence is called."""
CONFIRM_SAMPLE_S = 0.05
CATCH_UP_SAMPLE_S = 0.02
"""Between two looks at programs catching up with the engine's time (a Qt timer of 30 ms has ticked by then)."""
CATCH_UP_S = 0.3
"""On a difference, how long the three programs are looked at again side by side before the watch: enough
for a Qt or Tk timer to show the engine's latest time in each (a tick at most a few tenths apart)."""
UNREPRODUCIBLE_SHARE = 0.25
"""Two reference runs that differ over this share of the window do not reproduce each other."""
CLOCK_STEP_S = 0.5
"""How far the programs' Python clocks move on at each step (the same for all three, whatever the wall clock)."""
EPISODE_END_S = 3.0
"""When the reference ends by design, how long the candidate has to end too."""
MAX_REFERENCE_ERRORS = 10_000
"""At most this many distinct stderr lines of the reference are kept (a program that logs without end)."""
MAX_IGNORED_SHARE = 0.5
START_SIZE_S = 3.0
"""At start, how long windows still taking their size (off the gate) have to agree on one before comparing."""
"""A screen whose noise (grown) covers more than this share of the window is not compared."""


class DifferentialTester:
    name = "differential"
    lockstep = True
    """The session puts the candidate on a frame gate (a game is then played in lockstep with the references)."""

    def __init__(self, reference: str | None = None, script: bool = True, explorer: str = "new",
                 paced: bool = True) -> None:
        """``script``: play the reference's ``[[script]]`` steps first (``--no-script``: explore only);
        ``explorer``: "old" explores as before issue 23 (for comparisons); ``paced``: first watch both
        programs off the frame gate and off the pinned clocks (:mod:`app.engine.testers.paced`)."""
        self.reference_arg = reference
        self.script = script
        self.paced = paced
        self.paced_note = ""
        self.ctx: TesterContext | None = None
        # No returns and no survival search here: both restart the program, and the references would
        # have to restart with it.  Keys read from the code, widgets from inside and tester plans remain.
        self.explorer = (OfflineExplorer(second_clicks=True) if explorer == "old"
                         else Explorer(second_clicks=True, go_explore=False, survival=False))
        self.resolved: ResolvedTarget | None = None
        self.displays: list[XDisplay] = []
        self.players: list[Player] = []
        self.pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="reference")
        self._starter = ThreadPoolExecutor(max_workers=1, thread_name_prefix="reference-start")
        self._starting: Future[None] | None = None
        """The references' start (and the paced check), begun by :meth:`prepare`."""
        self._cancelled = False
        """The run ended before :meth:`begin`: the paced check is not watched."""
        self.paced_frames: list[Frame] = []
        self.ref_obs: list[Observation] = []
        self.noise: np.ndarray | None = None
        self.declared: np.ndarray | None = None
        self.pending: Future[list[Observation]] | None = None
        self.findings: list[Finding] = []
        self.diverged: Finding | None = None
        self.unreproducible = ""
        self.compared = 0
        self.animating = 0
        self.masked = 0
        self.caught_up = 0
        """Differences (of pictures or widget texts) gone at a second look side by side (a program had not yet
        shown the engine's time)."""
        self.scripted: deque[tuple[Action, str]] = deque()
        """The steps of the reference's ``[[script]]`` cases for this seed, played before exploring."""
        self.store: TrajectoryStore | None = None
        self.run_id: int | None = None
        self.reference_frames: dict[int, Frame] = {}
        """The first reference run's frame after each step not yet recorded: the session commits a step
        after :meth:`observe`, so the frame waits here for :meth:`step_recorded`."""
        self._lock = threading.Lock()
        self.lockstep_frame = 0
        """The frame count all programs stood at when last compared on the frame gate."""
        self.lockstep_compared = 0
        self.episodes = 1
        """Episodes of the reference: a declared end (exit_ok, code 0) starts the next one, as for the candidate."""
        self.reference_errors: set[str] = set()
        self.gates_noted: set[int] = set()
        """Frame gates whose let-go reason was noted (one ``gate`` note per program start)."""
        self.widget_noise: set[Key] = set()
        """Widgets whose text or state the reference runs disagree on, or change by themselves: never compared."""
        self.widgets_compared = 0
        """Steps whose widget texts were compared from inside (Tk, Qt: all three programs answered)."""
        self.agreed: set[int] = set()
        """Steps whose screen was compared with the reference's after the same inputs and agreed."""
        """The lines the reference runs printed on stderr: an exception the candidate prints and the reference
        printed too is shared, not the candidate's failure (the reference is what is right)."""

    def attach(self, store: TrajectoryStore, run_id: int, control: RunControl | None = None) -> None:
        """Called by the session once the run row exists: evidence frames go to its store."""
        self.store, self.run_id = store, run_id

    # -- the reference ---------------------------------------------------------
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
                self.players.append(Player(ref_spec, display, seed, time.sleep, gated=True))
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

    def begin(self, ctx: TesterContext, first: Observation) -> None:
        self.ctx = ctx
        self.prepare(ctx.spec, ctx.seed)  # a session that did not prepare: started now
        assert self._starting is not None and self.resolved is not None
        try:
            self._starting.result()
        except Exception:
            self.close()
            raise
        self._store_paced_frames()
        ref_spec = self.resolved.spec
        first = self._fresh_start(first)
        shape = (first.frame.height, first.frame.width)
        self.declared = box_mask(shape, ctx.spec.nondeterministic) if ctx.spec.nondeterministic else None
        self.noise = np.zeros(shape, dtype=bool)
        before = self._reference_widgets()
        self._learn_noise(NOISE_WATCH_S)
        self._widget_self_check(before, self._reference_widgets())
        self._judge(None, first)
        explorer_ctx = TesterContext(ref_spec, ctx.seed, ctx.max_steps, ctx.rng,
                                     (self.ref_obs[0].frame.width, self.ref_obs[0].frame.height),
                                     target=self.players[0])
        self.explorer.begin(explorer_ctx, self.ref_obs[0])
        cases = [c for c in ref_spec.script if c.applies_to(ctx.seed)] if self.script else []
        for n, case in enumerate(cases, 1):
            for i, action in enumerate(case.steps, 1):
                self.scripted.append((action, f"step {i}/{len(case.steps)} of scripted case {n} ({case.label})"))

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
        if check.paces is not None and finding is None:
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
                _follow_window(player)
            frame = candidate.observer.capture()
            refs = [p.observer.capture() for p in self.players if p.observer is not None]
            sizes = {(f.width, f.height) for f in [frame, *refs]}
            if len(sizes) == 1 or time.monotonic() >= deadline:
                break
            time.sleep(CONFIRM_SAMPLE_S * 2)
        if len(refs) == len(self.ref_obs):
            self.ref_obs = [dataclasses.replace(o, frame=f) for o, f in zip(self.ref_obs, refs)]
        return dataclasses.replace(first, frame=frame)

    def _learn_noise(self, seconds: float) -> None:
        """What the reference changes by itself, and where its two runs differ, is noise.  On the frame gate
        nothing changes by itself (every program stands still between frames it is granted), so only the two
        runs are compared; what changes from frame to frame is compared at the same frame at every step."""
        masks = [np.zeros_like(self.noise) if self.noise is not None else None for _ in self.players]
        jobs = []
        for player, mask in zip(self.players if not self._in_lockstep() else [], masks):
            assert player.observer is not None
            jobs.append(self.pool.submit(player.observer.motion, seconds, time.sleep, mask))
        for job in jobs:
            job.result()
        for mask in masks:
            self._add_noise(mask)
        a, b = self.players[0].observer, self.players[1].observer
        assert a is not None and b is not None
        self._self_check(a.capture(), b.capture())

    def _add_noise(self, mask: np.ndarray | None) -> None:
        """Add what changed by itself.  A change over a quarter of the window is a new scene (the
        program still drawing its first screen, a level that ends), not noise: masked, it would
        hide every later difference and the run would pass having compared nothing."""
        if mask is not None and self.noise is not None and mask.shape == self.noise.shape:
            if mask.mean() <= UNREPRODUCIBLE_SHARE:
                self.noise |= mask

    def _self_check(self, a: Frame, b: Frame) -> None:
        """Two runs of the reference, same seed, same inputs: what differs is noise — unless it is everything."""
        mask = difference_mask(a, b)
        if mask is None:
            self.unreproducible = "the reference opened windows of different sizes in two runs with the same seed"
            return
        count, _ = significant(mask & ~self._ignored(mask.shape))
        if count / mask.size > UNREPRODUCIBLE_SHARE:
            self.unreproducible = (f"the reference does not reproduce itself: two runs with the same seed and inputs "
                                   f"differ over {100 * count / mask.size:.0f}% of the window")
        self._add_noise(mask)

    def _note_reference_errors(self) -> None:
        """Keep what the reference runs printed on stderr (before they stop or restart)."""
        for player in self.players:
            if len(self.reference_errors) < MAX_REFERENCE_ERRORS:
                self.reference_errors.update(_stderr_lines(player))

    def _shared(self, finding: Finding) -> bool:
        """A generic finding the reference shows too, after the same inputs: an exception whose last line
        the reference printed; a no-response where every screen of its inputs agreed with the reference's
        (the reference did not answer those inputs either: a game over, a full board)."""
        if finding.kind == "no-response" and finding.step is not None and self.ctx is not None:
            first = max(0, finding.step - self.ctx.spec.timing.no_response_tries + 1)
            return all(s in self.agreed for s in range(first, finding.step + 1))
        log = finding.evidence.get("log") if finding.kind == "exception" else None
        return isinstance(log, list) and bool(log) and str(log[-1]).strip() in self.reference_errors

    def _ignored(self, shape: tuple[int, int]) -> np.ndarray:
        ignored = grow(self.noise) if self.noise is not None and self.noise.shape == shape else np.zeros(shape, bool)
        if self.declared is not None and self.declared.shape == shape:
            ignored = ignored | self.declared
        return ignored

    # -- each step ---------------------------------------------------------------
    def decide(self, step: int, obs: Observation) -> Decision:
        assert self.ctx is not None, "begin() first"
        if self.diverged is not None or self.unreproducible:
            if self.ref_obs:  # a finish sends no input: the reference still shows what it showed
                self.reference_frames[step] = self.ref_obs[0].frame
            return Decision(Finish(FAIL if self.diverged else UNCERTAIN),
                            "differential: " + (self.diverged.message if self.diverged else self.unreproducible))
        if self.scripted:
            # A rubric's steps reach the states its author cared about (a won game, a long sum);
            # the expectations are not needed: the reference shows what is right.
            action, where = self.scripted.popleft()
            self.explorer.forget_last()
            choice = Decision(action, f"the reference's {where}")
        else:
            choice = self.explorer.decide(step, self.ref_obs[0])
        self._sync()
        # Every program's clock moves on by the same step before the input: a stopwatch started here
        # shows the same time in all three.
        seconds = CLOCK_STEP_S + (choice.action.seconds if isinstance(choice.action, Wait) else 0.0)
        for player in [self._candidate(), *self.players]:
            if player is not None:
                player.advance_clock(seconds)
        self.pending = self.pool.submit(self._play_reference, choice.action)
        return Decision(choice.action, f"differential ({len(self.players)} reference runs): {choice.rationale}")

    def _play_reference(self, action: Action) -> list[Observation]:
        """Send the action to both reference runs at once and settle each."""
        threads: list[threading.Thread] = []
        results: list[Observation | None] = [None] * len(self.players)

        def run(i: int) -> None:
            player = self.players[i]
            _follow_window(player)
            obs = player.act(action, self.ref_obs[i])
            if _follow_window(player) and player.observer is not None:
                obs = dataclasses.replace(obs, frame=player.observer.capture())  # resized by the input
            results[i] = obs

        for i in range(len(self.players)):
            threads.append(threading.Thread(target=run, args=(i,), daemon=True))
            threads[-1].start()
        for t in threads:
            t.join()
        return [r for r in results if r is not None]

    def observe(self, step: int, before: Frame, decision: Decision, after: Observation, outcome: str) -> None:
        if self.pending is None:
            return
        ref_before = self.ref_obs[0].frame
        self.ref_obs = self.pending.result()
        self.pending = None
        self.reference_frames[step] = self.ref_obs[0].frame
        self._note_reference_errors()
        self.explorer.observe(step, ref_before, decision, self.ref_obs[0], outcome)
        candidate = self._candidate()
        if candidate is not None and candidate.target is not None and not candidate.target.alive():
            # The candidate ended at this input: the references may be on their way out too.
            _wait_ended(self.players)
        if any(p.target is None or not p.target.alive() for p in self.players):
            self._reference_ended(step)
            return
        if not self._in_lockstep():  # in lockstep the check is made at the common frame
            self._self_check(self.ref_obs[0].frame, self.ref_obs[1].frame)
        self._judge(step, after)

    def _reference_ended(self, step: int) -> None:
        """The reference ended after this input.  Where its end is declared (``exit_ok``, code 0) it is an
        episode's end: the candidate must end too, and all start again (as the session restarts the
        candidate); any other end cannot be compared past."""
        assert self.resolved is not None
        # Both runs of the reference end at the same input; the second may still be on its way out.
        _wait_ended(self.players)
        self._note_reference_errors()
        codes = [p.target.returncode if p.target is not None else None for p in self.players]
        if not (self.resolved.spec.exit_ok and all(c == 0 for c in codes)):
            said = [line for p in self.players for line in _stderr_lines(p)]
            how = f"exit code {', '.join(str(c) for c in codes)}" + (f"; it printed: {said[-1][:200]}" if said else "")
            self.unreproducible = f"the reference program ended during the run ({how}); the rest cannot be compared"
            return
        candidate = self._candidate()
        target = candidate.target if candidate is not None else None
        if candidate is not None:
            _wait_ended([candidate])
        if target is not None and target.alive():
            assert candidate is not None and candidate.observer is not None
            self._diverge(step, candidate.observer.capture(), Divergence(
                (0, 0, 0, 0), 0, 0.0, self.ref_obs[0].frame,
                "the reference program ended after this input (exit code 0, a declared end); the candidate "
                f"was still running {EPISODE_END_S:.0f} s later"))
            return
        ref_spec = self.resolved.spec
        cap, quiet = ref_spec.timing.settle_cap_ms / 1000, ref_spec.timing.quiet_ms / 1000
        for player in self.players:
            player.stop()
        for f in [self.pool.submit(p.start) for p in self.players]:
            f.result()
        self.ref_obs = [f.result() for f in [self.pool.submit(p.settle, cap, quiet) for p in self.players]]
        self.episodes += 1
        self.reference_frames[step] = self.ref_obs[0].frame
        if target is not None and target.returncode == 0:
            # The candidate's end may have come after the session's own look at this step: say it, so
            # that the candidate starts its next episode now, with the references.
            self.findings.append(Finding("exit", "the program exited by itself with code 0, where its reference "
                                                 "ended too", step, {"code": 0}, fatal=True))

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
        player = getattr(self.ctx, "player", None)
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

    def _judge(self, step: int | None, observed: Observation) -> None:
        """The pictures first, then (when all three can be seen inside) the widgets' texts and states."""
        if self.unreproducible or self.diverged is not None:
            return
        self._judge_pixels(step, observed)
        if self.diverged is None and not self.unreproducible and (
                self._in_lockstep() or (observed.settled and all(o.settled for o in self.ref_obs))):
            self._judge_widgets(step, observed.frame)

    # -- widget texts, from inside -------------------------------------------------------
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

    def _judge_pixels(self, step: int | None, observed: Observation) -> None:
        if self.unreproducible or self.diverged is not None:
            return
        if self._in_lockstep():
            self._judge_lockstep(step)
            return
        if not observed.settled or not all(o.settled for o in self.ref_obs):
            # A moving window runs on the wall clock: three programs started at different
            # moments show different moments of it.  Only settled screens are compared.
            self.animating += 1
            return
        candidate = observed.frame
        shape = (candidate.height, candidate.width)
        ignored = self._ignored(shape)
        if ignored.mean() > MAX_IGNORED_SHARE:
            self.masked += 1  # what changes by itself covers most of the window: nothing left to compare
            return
        self.compared += 1
        found = compare(candidate, self._references(), ignored) or self._text_differs(candidate, ignored)
        if found is None:
            self._agreed(step)
            return
        # A closer look before calling it.  First side by side: the programs' Python clocks stand still
        # between steps, but a Qt or Tk timer shows the engine's latest time only at its next tick (on the
        # wall clock), which one program may not have had when it was looked at.
        if self._look_again(step, shape):
            return
        # Then a caret or a wall clock may just have been in another phase.  Watch both programs, learn
        # what each changes by itself, and look for any pair of frames that agree.
        observers = [p.observer for p in self.players[:1]]
        candidate_observer = getattr(getattr(self.ctx, "player", None), "observer", None)
        watched = [self.pool.submit(self._watch, o, NOISE_WATCH_S) for o in observers if o is not None]
        own = self._watch(candidate_observer, NOISE_WATCH_S) if candidate_observer is not None else [candidate]
        watched_frames = [w.result() for w in watched]
        seen = self._references() + [f for frames in watched_frames for f in frames]
        now = [frames[-1] for frames in watched_frames if frames]  # the text is read against what they show now
        ignored = self._ignored(shape)  # again: the closer look learnt more noise
        best = None
        for frame in [candidate, *own]:
            found = compare(frame, seen, ignored) or self._text_differs(frame, ignored, now or None)
            if found is None:
                self._agreed(step)
                return
            if best is None or found.pixels < best.pixels:
                best = found
        assert best is not None
        self._diverge(step, candidate, best)

    def _judge_lockstep(self, step: int | None) -> None:
        """Same frame, same inputs: the two reference runs must agree, and the candidate with them."""
        candidate, refs = self._same_frame()
        # The explorer goes on from the reference as it stands now; the step shows that frame.
        self.ref_obs = [dataclasses.replace(o, frame=f) for o, f in zip(self.ref_obs, refs)]
        if step is not None and refs:
            self.reference_frames[step] = refs[0]
        if len(refs) == 2:
            self._self_check(*refs)
            if self.unreproducible:
                self.unreproducible += f" (on the frame gate, at frame {self.lockstep_frame})"
                return
        shape = (candidate.height, candidate.width)
        ignored = self._ignored(shape)
        if ignored.mean() > MAX_IGNORED_SHARE:
            self.masked += 1
            return
        self.compared += 1
        self.lockstep_compared += 1
        found = compare(candidate, refs, ignored) or self._text_differs(candidate, ignored)
        if found is not None:
            self._diverge(step, candidate, found)
        else:
            self._agreed(step)

    def _agreed(self, step: int | None) -> None:
        if step is not None:
            self.agreed.add(step)

    def _look_again(self, step: int | None, shape: tuple[int, int]) -> bool:
        """Look at the candidate and both reference runs again, side by side, every :data:`CATCH_UP_SAMPLE_S`
        for up to :data:`CATCH_UP_S`: do they agree now (then the step agreed, the references' frames are
        these, and nothing is learnt as noise)?  Only the wall clock moved in between: a program that had
        not yet shown the engine's time has caught up."""
        candidate = self._candidate()
        observers = [p.observer for p in self.players if p.observer is not None]
        if candidate is None or candidate.observer is None or len(observers) < len(self.players):
            return False
        end = time.monotonic() + CATCH_UP_S
        while time.monotonic() < end:
            time.sleep(CATCH_UP_SAMPLE_S)
            jobs = [self.pool.submit(o.capture) for o in observers]
            mine = candidate.observer.capture()
            refs = [j.result() for j in jobs]
            if (mine.height, mine.width) != shape:
                return False
            ignored = self._ignored(shape)
            if compare(mine, refs, ignored) is None and self._text_differs(mine, ignored, refs) is None:
                self.ref_obs = [dataclasses.replace(o, frame=f) for o, f in zip(self.ref_obs, refs)]
                if step is not None:
                    self.reference_frames[step] = refs[0]
                self._agreed(step)
                self.caught_up += 1
                return True
        return False

    def _text_differs(self, frame: Frame, ignored: np.ndarray,
                      refs: list[Frame] | None = None) -> Divergence | None:
        """Small text (one-pixel strokes) that reads differently from what every reference run shows now
        (``refs``: their pictures taken now; by default those of the step's look)."""
        found = None
        for ref in refs if refs is not None else [obs.frame for obs in self.ref_obs]:
            found = changed_text(frame, ref, ignored)
            if found is None:
                return None
        return found

    def _watch(self, observer: Any, seconds: float) -> list[Frame]:
        """Frames of one program over ``seconds`` with no input; what changes is added to the noise."""
        frames: list[Frame] = []
        end = time.monotonic() + seconds
        prev = observer.capture()
        while time.monotonic() < end:
            time.sleep(CONFIRM_SAMPLE_S)
            cur = observer.capture()
            if not cur.same_as(prev):
                mask = difference_mask(prev, cur)
                with self._lock:
                    self._add_noise(mask)
                frames.append(cur)
            prev = cur
        frames.append(prev)
        return frames

    def _diverge(self, step: int | None, candidate: Frame, found: Divergence) -> None:
        evidence: dict[str, Any] = {"bbox": list(found.bbox), "pixels": found.pixels, "share": round(found.share, 4)}
        if self.store is not None:
            ref = found.reference
            evidence["reference_frame"] = self.store.put_frame(ref.width, ref.height, ref.bgrx)
            evidence["candidate_frame"] = self.store.put_frame(candidate.width, candidate.height, candidate.bgrx)
        what = found.reason or (f"{found.pixels} pixels in [{', '.join(map(str, found.bbox))}] differ from what "
                                "the reference shows after the same inputs")
        finding = Finding("diverged", what, step, evidence, fatal=True)
        self.diverged = finding
        self.findings.append(finding)

    def step_recorded(self, step: int) -> None:
        """Called by the session once step ``step`` is committed: its row gets the reference's frame."""
        frame = self.reference_frames.pop(step, None)
        if frame is None or self.store is None or self.run_id is None:
            return
        with self.store.transaction():
            sha = self.store.put_frame(frame.width, frame.height, frame.bgrx)
            self.store.set_step_reference(self.run_id, step, sha)

    def take_findings(self) -> list[Finding]:
        """Findings raised since the last call (the session records them with the step), with a ``gate`` note
        for each program the frame gate let go of (why lockstep ended for it: the run then compares it on
        the wall clock, and a person reading the run must know)."""
        self._note_gates_lost()
        out, self.findings = self.findings, []
        return out

    def _note_gates_lost(self) -> None:
        candidate = getattr(self.ctx, "player", None) if self.ctx is not None else None
        named = [("the candidate", candidate), *((f"reference run {i + 1}", p) for i, p in enumerate(self.players))]
        for who, player in named:
            gate = getattr(player, "gate", None)
            if gate is None or not gate.lost or gate.lost == GATE_ENDED or id(gate) in self.gates_noted:
                continue
            self.gates_noted.add(id(gate))
            self.findings.append(Finding("gate", f"{who} left the frame gate: {gate.lost}", None,
                                         {"program": who, "reason": gate.lost}))

    # -- verdict -------------------------------------------------------------------
    def verdict(self, findings: list[Finding], steps: int) -> Verdict:
        overall: tuple[str, str] | None
        shared = [f for f in findings if self._shared(f)]
        findings = [f for f in findings if f not in shared]
        if any(f.kind in FAILING_KINDS for f in findings) or self.diverged is not None:
            overall = None  # the finding says it
        elif self.unreproducible:
            overall = (UNCERTAIN, self.unreproducible)
        elif self.compared == 0:
            why = (f"the window was moving at all {self.animating} steps (only settled screens are compared)"
                   if self.animating else
                   f"what the reference changes by itself covered most of the window at all {self.masked} steps"
                   if self.masked else "no step was played")
            overall = (UNCERTAIN, "nothing was compared with the reference: " + why)
        else:
            moving = (f"; {self.lockstep_compared} of them in lockstep on the frame gate (same frame, up to frame "
                      f"{self.lockstep_frame})") if self.lockstep_compared else ""
            moving += f"; {self.animating} moving screens not compared" if self.animating else ""
            moving += f"; {self.masked} screens mostly self-changing, not compared" if self.masked else ""
            moving += (f"; {self.caught_up} agreed at a second look side by side (a program had not yet shown "
                       "the engine's time)") if self.caught_up else ""
            moving += f"; {self.paced_note}" if self.paced_note else ""
            if self.widgets_compared:
                moving += (f"; widget texts compared from inside at {self.widgets_compared} steps"
                           + (f" ({len(self.widget_noise)} widgets the reference runs disagree on not compared)"
                              if self.widget_noise else ""))
            overall = (PASS, f"behaved as the reference did: {self.compared} settled screens compared after the "
                             f"same inputs over {steps} steps, no behavioural difference "
                             f"(what two reference runs disagree on is not compared){moving}")
            if shared:
                overall = (PASS, overall[1] + f"; {len(shared)} finding{'' if len(shared) == 1 else 's'} the "
                           f"reference shows too after the same inputs (shared, not the candidate's): "
                           f"{shared[0].kind}: {shared[0].message}")
        extra = [self.diverged] if self.diverged is not None and self.diverged not in findings else []
        return decide(Evidence(list(findings) + extra, steps, judges_criteria=False, overall=overall))

    def close(self) -> None:
        """Stop the reference programs and their displays (the session calls this at the end of a run)."""
        close_explorer = getattr(self.explorer, "close", None)
        if close_explorer is not None:
            close_explorer()
        starting, self._starting = self._starting, None
        if starting is not None:  # the run ended before (or while) the references started: let them finish
            self._cancelled = True
            with contextlib.suppress(Exception):
                starting.result()
            self._starter.shutdown(wait=False)
        with self._lock:
            try:
                self._note_reference_errors()
            except Exception:  # a dead display or pipe: the findings judged so far stand
                pass
            stop_programs(self.players, self.displays, self.pending, self.resolved)
            self.pending, self.players, self.displays, self.resolved = None, [], [], None
            self.pool.shutdown(wait=False)


def _follow_window(player: Player) -> bool:
    """Re-read a reference's window as the session does the candidate's (a window resized or moved is
    captured where it is now); True when it changed."""
    target = player.target
    if target is None or player.lockstep:
        return False
    old = target.window
    try:
        new = target.refresh_geometry()
    except Exception:  # a window going away: the run finds out from the process
        return False
    return new is not None and new != old


def _stderr_lines(player: Player) -> list[str]:
    """What a player's program printed on stderr so far, one stripped non-empty line each."""
    if player.target is None:
        return []
    return [text.strip() for stream, _, text in player.target.lines() if stream == "stderr" and text.strip()]


def _wait_ended(players: list[Player]) -> None:
    """Wait (at most EPISODE_END_S) until each player's program has ended: programs that end at the same
    input do not end at the same instant."""
    deadline = time.monotonic() + EPISODE_END_S
    while any(p.target is not None and p.target.alive() for p in players) and time.monotonic() < deadline:
        time.sleep(0.05)
