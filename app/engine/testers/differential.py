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

The tester is built from three parts, one module each: the reference runs
(:mod:`~app.engine.testers.differential_references`), the pictures and their
noise (:mod:`~app.engine.testers.differential_screens`) and the widget texts
(:mod:`~app.engine.testers.differential_widgets`); this module holds the
step (decide, observe), the episode's end and the verdict.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

from app.engine.judge.compare import Divergence, box_mask
from app.engine.judge.oracles import FAILING_KINDS, Finding
from app.engine.judge.verdict import FAIL, PASS, UNCERTAIN, Evidence, Verdict, decide
from app.engine.play.actions import Action, Finish, Wait
from app.engine.play.control import RunControl
from app.engine.play.display import XDisplay
from app.engine.play.gate import GATE_ENDED
from app.engine.play.observer import Frame, Observation
from app.engine.play.player import Player, stop_programs
from app.engine.play.targetspec import ResolvedTarget
from app.engine.testers.base import Decision, TesterBase, TesterContext
from app.engine.testers.differential_references import EPISODE_END_S, follow_window, stderr_lines, wait_ended
from app.engine.testers.differential_screens import NOISE_WATCH_S
from app.engine.testers.differential_widgets import WidgetComparison
from app.engine.testers.explore.explorer import Explorer
from app.engine.testers.offline import OfflineExplorer
from app.engine.testers.widget_texts import Key
from app.engine.trace.store import TrajectoryStore

CLOCK_STEP_S = 0.5
"""How far the programs' Python clocks move on at each step (the same for all three, whatever the wall clock)."""


class DifferentialTester(WidgetComparison, TesterBase):
    name = "differential"
    lockstep = True
    """The session puts the candidate on a frame gate (a game is then played in lockstep with the references)."""

    def __init__(self, reference: str | None = None, script: bool = True, explorer: str = "new",
                 paced: bool = True, survival: bool = True) -> None:
        """``script``: play the reference's ``[[script]]`` steps first (``--no-script``: explore only);
        ``explorer``: "old" plays the image-and-X-tree explorer alone (to compare with); ``paced``: first watch both
        programs off the frame gate and off the pinned clocks (:mod:`app.engine.testers.paced`)."""
        self.reference_arg = reference
        self.script = script
        self.paced = paced
        self.paced_note = ""
        self.ctx: TesterContext | None = None
        # No returns here: a return restarts the program, and the references would have to restart with it.
        # The survival search (``survival``) plays a game ahead on branches of a private copy that follows the
        # candidate, so it restarts nothing: the references replay the inputs it chose.
        self.explorer = (OfflineExplorer(second_clicks=True) if explorer == "old"
                         else Explorer(second_clicks=True, go_explore=False, survival=survival))
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
        self._counts_at_zero()
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

    def _counts_at_zero(self) -> None:
        """What the comparison counts over the run (for its summary), from nothing."""
        self.compared = 0
        self.animating = 0
        self.masked = 0
        self.caught_up = 0
        """Differences (of pictures or widget texts) gone at a second look side by side (a program had not yet
        shown the engine's time)."""

    def attach(self, store: TrajectoryStore, run_id: int, control: RunControl | None = None) -> None:
        """Called by the session once the run row exists: evidence frames go to its store."""
        self.store, self.run_id = store, run_id


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
                                     duration_s=ctx.duration_s, target=self.players[0])
        self.explorer.begin(explorer_ctx, self.ref_obs[0])
        cases = [c for c in ref_spec.script if c.applies_to(ctx.seed)] if self.script else []
        for n, case in enumerate(cases, 1):
            for i, action in enumerate(case.steps, 1):
                self.scripted.append((action, f"step {i}/{len(case.steps)} of scripted case {n} ({case.label})"))


    def _shared(self, finding: Finding) -> bool:
        """A generic finding the reference shows too, after the same inputs: an exception whose last line
        the reference printed; a no-response where every screen of its inputs agreed with the reference's
        (the reference did not answer those inputs either: a game over, a full board)."""
        if finding.kind == "no-response" and finding.step is not None and self.ctx is not None:
            first = max(0, finding.step - self.ctx.spec.timing.no_response_tries + 1)
            return all(s in self.agreed for s in range(first, finding.step + 1))
        log = finding.evidence.get("log") if finding.kind == "exception" else None
        return isinstance(log, list) and bool(log) and str(log[-1]).strip() in self.reference_errors


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
            wait_ended(self.players)
        if any(p.target is None or not p.target.alive() for p in self.players):
            self._reference_ended(step)
            return
        if not self._in_lockstep():  # in lockstep the check is made at the common frame
            self._self_check(self.ref_obs[0].frame, self.ref_obs[1].frame)
        if candidate is not None and follow_window(candidate) and candidate.observer is not None:
            # Resized during the step (a Tk timer the step's clock made due), as the references are followed
            # after theirs: its window is looked at where and as large as it is now.
            after = dataclasses.replace(after, frame=candidate.observer.capture())
        self._judge(step, after)

    def _reference_ended(self, step: int) -> None:
        """The reference ended after this input.  Where its end is declared (``exit_ok``, code 0) it is an
        episode's end: the candidate must end too, and all start again (as the session restarts the
        candidate); any other end cannot be compared past."""
        assert self.resolved is not None
        # Both runs of the reference end at the same input; the second may still be on its way out.
        wait_ended(self.players)
        self._note_reference_errors()
        codes = [p.target.returncode if p.target is not None else None for p in self.players]
        if not (self.resolved.spec.exit_ok and all(c == 0 for c in codes)):
            said = [line for p in self.players for line in stderr_lines(p)]
            how = f"exit code {', '.join(str(c) for c in codes)}" + (f"; it printed: {said[-1][:200]}" if said else "")
            self.unreproducible = f"the reference program ended during the run ({how}); the rest cannot be compared"
            return
        candidate = self._candidate()
        target = candidate.target if candidate is not None else None
        if candidate is not None:
            wait_ended([candidate])
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


    def _judge(self, step: int | None, observed: Observation) -> None:
        """The pictures first, then (when all three can be seen inside) the widgets' texts and states."""
        if self.unreproducible or self.diverged is not None:
            return
        self._judge_pixels(step, observed)
        if self.diverged is None and not self.unreproducible and (
                self._in_lockstep() or (observed.settled and all(o.settled for o in self.ref_obs))):
            self._judge_widgets(step, observed.frame)


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
        candidate = self.ctx.player if self.ctx is not None else None
        named = [("the candidate", candidate), *((f"reference run {i + 1}", p) for i, p in enumerate(self.players))]
        for who, player in named:
            gate = player.gate if player is not None else None
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
        self.explorer.close()
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
