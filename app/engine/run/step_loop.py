"""The step loop of one run, as one object: decide → act → look → judge → record, step after step.

:class:`~app.engine.run.session.Session` sets a run up (the program, its window,
the start-up watch) and closes it; between the two, :class:`StepLoop` plays
the steps.  It holds what one step leaves for the next — the last
observation, the oracles of the current episode, the episode endings seen —
and each part of a step is a method of its own:

* :meth:`StepLoop._decide`: a person's take-over, or the tester's decision
  (after the restart it asked for, when it returns to an archived state);
* :meth:`StepLoop._look`: the picture after the input, by the way the
  program is played (on the frame gate, for a time slice, or until settled);
* :meth:`StepLoop._judge`: the oracles' findings, the tester's, and whether
  an episode ended;
* the finished step is a :class:`StepRecord`, committed by the session in
  one transaction.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from app.engine.judge.covered import covered as is_covered
from app.engine.judge.episodes import EpisodeEndings
from app.engine.judge.oracles import Finding, GenericOracles
from app.engine.play.actions import ActionParseError, Finish, Wait, action_from_dict, action_to_call
from app.engine.play.clock import GameClock
from app.engine.play.observer import Frame, Observation
from app.engine.play.player import Player
from app.engine.play.targetspec import TargetSpec, hinted_action
from app.engine.testers.base import Decision, Tester, TesterContext

if TYPE_CHECKING:
    from app.engine.play.control import RunControl
    from app.engine.play.target import TargetProcess
    from app.engine.run.settings import RunSettings
    from app.engine.run.film import RunFilm


class Session(Protocol):
    """What the step loop asks of the run it plays (:class:`app.engine.run.session.Session`): its settings and
    count, and how it records, restarts and follows the program."""

    settings: RunSettings
    control: RunControl
    steps: int
    _film: RunFilm | None
    _captured: int

    def _settle_cap(self, spec: TargetSpec) -> float: ...

    def _record(self, finding: Finding) -> None: ...

    def _commit_step(self, step: StepRecord) -> None: ...

    def _flush_logs(self, target: TargetProcess, final: bool = True) -> None: ...

    def _follow_window(self, play: Player) -> None: ...

    def _restart_for_tester(self, tester: Tester, play: Player,
                            oracles: GenericOracles) -> tuple[GenericOracles, Observation]: ...

    def _new_episode(self, play: Player, finding: Finding) -> None: ...

    @staticmethod
    def _ends_episode(spec: TargetSpec, finding: Finding) -> bool: ...


@dataclass
class StepRecord:
    """One played step, as it is stored: who acted and how, the pictures around it, its timings, its findings."""

    actor: str
    """``tester`` or ``human`` (a take-over)."""
    decision: Decision
    outcome: str
    before: Frame
    after: Observation
    started: float
    """Wall-clock time the step began (seconds since the epoch)."""
    decide_ms: float
    act_ms: float
    findings: list[Finding]


@dataclass
class _Decided:
    actor: str
    decision: Decision
    started: float
    decide_ms: float


class StepLoop:
    """Plays one run's steps until ``max_steps``, the time budget, a fatal finding or the tester's Finish."""

    def __init__(self, session: Session, spec: TargetSpec, tester: Tester, play: Player, oracles: GenericOracles,
                 obs: Observation, clock: GameClock, slice_s: float, started_at: float) -> None:
        self.session = session
        self.spec = spec
        self.tester = tester
        self.play = play
        self.oracles = oracles
        self.obs = obs
        """The last observation: what the next decision sees."""
        self.clock = clock
        self.slice_s = slice_s
        self.started_at = started_at
        cfg = session.settings
        timing = spec.timing
        self.cap_static = session._settle_cap(spec)
        self.cap_animated = min(self.cap_static, timing.animated_cap_ms / 1000)
        self.react_s, self.quiet_s = timing.react_ms / 1000, timing.quiet_ms / 1000
        self.endings = EpisodeEndings()
        self.ctx = TesterContext(spec, cfg.seed, cfg.steps, random.Random(cfg.seed),
                                 (obs.frame.width, obs.frame.height), duration_s=cfg.duration_s, target=play)

    # -- the run ---------------------------------------------------------------------------
    def run(self) -> None:
        session, cfg = self.session, self.session.settings
        self.tester.begin(self.ctx, self.obs)
        for finding in self.tester.take_findings():
            session._record(finding)
            if finding.fatal:
                return
        while session.steps < cfg.steps:
            if cfg.duration_s is not None and time.monotonic() - self.started_at >= cfg.duration_s:
                return
            if not self.step():
                return

    def step(self) -> bool:
        """Play one step (or note a refused take-over); False when the run ends here."""
        session = self.session
        self.clock.stop()  # a game waits while the tester (or a paused human) thinks
        human = session.control.checkpoint()
        session._follow_window(self.play)
        decided = self._decide(human)
        if decided is None:
            return True
        self.clock.run()
        decision = decided.decision
        before = self._before(decision)
        call = action_to_call(decision.action)
        # An input another window of the program had (a dialog out of sight, or any open window for a
        # declared key) says nothing about whether the main window answers it (judge/covered.py).
        windows = self.ctx.windows
        covered = windows is not None and is_covered(call in self.oracles.declared_keys, windows.toplevels())
        assert self.play.executor is not None and self.play.target is not None
        state = self.play.target.inside.state
        result = self.play.executor.execute(decision.action)
        if isinstance(decision.action, Finish):
            session._commit_step(StepRecord(decided.actor, decision, result.outcome, before, self.obs,
                                            decided.started, decided.decide_ms, result.act_ms, []))
            return False
        after = self._look(before)
        findings, episode_end = self._judge(decision, call, covered, before, after, result.outcome)
        if result.outcome == "refused":
            findings.insert(0, Finding("refused", result.message, session.steps))
        session._commit_step(StepRecord(decided.actor, decision, result.outcome, before, after, decided.started,
                                        decided.decide_ms, result.act_ms, findings))
        if state and self.play.target.inside.state not in ("", state) and not isinstance(decision.action, Wait):
            self.oracles.note_state_changed(call)  # it changed the program's state (a mode picked), seen or not
        session._flush_logs(self.play.target, final=False)
        session.control.step_done()
        self.obs = after
        if episode_end is not None and not any(f.fatal for f in findings):
            return self._next_episode(episode_end)
        return not any(f.fatal for f in findings)

    # -- the parts of a step ----------------------------------------------------------------
    def _decide(self, human: dict | None) -> _Decided | None:
        """Who acts, and how; None when a person's input was refused (noted, not judged: the run goes on)."""
        session = self.session
        started = time.time()
        t0 = time.monotonic()
        if human is not None:
            declared = self.tester.abilities
            if not declared.takes_over:
                # differential play: the references would never get the person's input
                session._record(Finding("refused", f"a take-over action was refused ({declared.no_take_over}); "
                                        "the run goes on", session.steps))
                return None
            try:
                decision = Decision(action_from_dict(human), "human take-over")
            except ActionParseError as exc:
                # A person's input the engine cannot perform says nothing about the program.
                session._record(Finding("refused", f"a take-over action was refused ({exc}); the run goes on",
                                        session.steps))
                return None
            return _Decided("human", decision, started, (time.monotonic() - t0) * 1000.0)
        if self.tester.wants_restart():  # a tester returning to a cell it archived
            self.oracles, self.obs = session._restart_for_tester(self.tester, self.play, self.oracles)
        decision = self.tester.decide(session.steps, self.obs)
        return _Decided("tester", decision, started, (time.monotonic() - t0) * 1000.0)

    def _before(self, decision: Decision) -> Frame:
        """The picture the input's effect is compared with."""
        before = self.obs.frame
        if not self.oracles.animated and not isinstance(decision.action, (Finish, Wait)):
            # What changed while the tester thought changed by itself (a caret, a clock):
            # learn it, and compare the action's effect with the window as it is now.
            assert self.play.observer is not None
            now = self.play.observer.capture()
            if not now.same_as(before):
                self.oracles.note_idle(before, now)
                before = now
        return before

    def _look(self, before: Frame) -> Observation:
        """The window after the input, looked at the way this program is played."""
        play, observer = self.play, self.play.observer
        assert observer is not None
        if play.lockstep:
            # On the frame gate: the game plays its frames after the input and stands still.
            return play.look(before, play.look_s())
        if self.clock.enabled:
            # The game runs for its slice of time after the action, then is looked at.
            return observer.settle(before, cap_s=self.slice_s, quiet_s=2 * self.slice_s + 1, inside=False)
        cap = self.cap_animated if self.oracles.animated else self.cap_static
        return observer.settle(before, cap_s=cap, quiet_s=self.quiet_s, react_s=self.react_s,
                               moving_s=self.cap_animated)

    def _judge(self, decision: Decision, call: str, covered: bool, before: Frame, after: Observation,
               outcome: str) -> tuple[list[Finding], Finding | None]:
        """The step's findings (oracles, film, tester) and the declared episode end among them, if any."""
        session, spec = self.session, self.spec
        findings = self.oracles.check_step(session.steps, decision.action.name, before, after, action_key=call,
                                           covered=covered, control=decision.control)
        if not isinstance(decision.action, Wait):
            self.endings.note_input(call, before)
        self.endings.note_frame(before)
        self.endings.note_frame(after.frame)
        if session._film is not None:
            target = self.play.target
            findings += session._film.glitches(session.steps, target.inside.display_changed_at() if target else ())
        self.tester.observe(session.steps, before, decision, after, outcome)
        findings += self.tester.take_findings()
        episode_end = next((f for f in findings if session._ends_episode(spec, f)), None)
        if episode_end is not None:
            # One end, however many saw it (the oracles, and a tester that plays a reference beside).
            # Episodes that end alike say the inputs changed nothing, unless a reference played beside
            # says what the inputs should change (differential play: it ends alike there too).
            alike = self.endings.end(session.steps) if not self.tester.lockstep else []
            findings = [f for f in findings if not session._ends_episode(spec, f)] + alike
        return findings, episode_end

    def _next_episode(self, episode_end: Finding) -> bool:
        """The program ended as declared: start the next episode; False when its start-up watch ends the run."""
        session, play = self.session, self.play
        assert play.observer is not None
        session._captured += play.observer.captured
        session._new_episode(play, episode_end)
        self.oracles = episode_oracles(play, before=self.oracles)
        self.obs = play.settle(self.cap_static, self.quiet_s)
        for finding in self.oracles.check_start(self.obs):
            session._record(finding)
            if finding.fatal:
                return False
        return True


def episode_oracles(play: Player, before: GenericOracles | None = None) -> GenericOracles:
    """The generic oracles of one episode; what earlier episodes learnt about answers is kept."""
    assert play.target is not None and play.observer is not None
    spec = play.spec
    declared = tuple(action_to_call(hinted_action(k)) for k in spec.keys) if spec.kind == "app" else ()
    # The player's pause: on a frame gate, the oracles' waits are frames the program plays.
    oracles = GenericOracles(play.target, play.observer, sleep=play.pause, timing=spec.timing,
                             declared_keys=declared)
    if before is not None:
        oracles.answering, oracles.pressed_on = before.answering, before.pressed_on
        oracles.visible_answers, oracles.handled_inputs = before.visible_answers, before.handled_inputs
        oracles.declared_keys = before.declared_keys
        oracles.key_states = before.key_states
        oracles.key_states.restart()
    return oracles
