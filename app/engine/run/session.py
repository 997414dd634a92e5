"""The run loop: observe → decide → act → record → judge, with RunControl checkpoints.

The same loop runs headless (CLI), in tests (synchronously) and live (as a
child process of the workbench, streaming events).  Every step is committed
before the next action; target and display are shut down on every exit path.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import time
from dataclasses import dataclass, replace
from typing import Any, Callable

from app.engine.step_numbers import step_number
from app.engine.play.actions import action_to_dict
from app.engine.play.control import RunControl
from app.engine.play.display import DEFAULT_SCREEN, ISOLATED, XDisplay, open_display
from app.engine.errors import RunStopped, TargetError, UserError
from app.engine.play.events import (
    ControlChanged, EventBus, FindingRaised, RunFinished, RunStarted, StepRecorded, VerdictReached, WindowFound,
    WindowMoved,
)
from app.engine.play.observer import Observation
from app.engine.play.clock import GameClock
from app.engine.play.player import Player
from app.engine.run.faults import close_quietly, describe_fault
from app.engine.run.coverage import RunCoverage
from app.engine.run.film import RunFilm
from app.engine.run.step_loop import StepLoop, StepRecord, episode_oracles
from app.engine.trace.film import FILM_FPS
from app.engine.judge.oracles import Finding, GenericOracles
from app.engine.trace.store import TrajectoryStore
from app.engine.play.target import TargetProcess
from app.engine.play.scriptlint import say_once, target_warnings
from app.engine.play.targetspec import SPEC_FILE, ResolvedTarget, TargetSpec, resolve_target
from app.engine.run.settings import RunSettings, public_options, resolve, user_table
from app.engine.testers.registry import make_tester
from app.engine.testers.base import Tester, Verdict



SLICE_MS = {"game": 150, "app": 300}
"""With the clock stopped: how long a target runs after each action, by its kind."""


class RunConfig:
    """What to play and the caller's layer of its settings (:mod:`app.engine.run.settings`).

    ``given`` holds only what the caller set (the command line's options, a dialog's
    choices, a repair's): the session puts it over the user config and the target's
    ``[run]`` table.  ``settings`` is the caller's layer over the built-in defaults,
    checked here, so a bad value ends before anything starts."""

    def __init__(self, target: str, settings: RunSettings | None = None, *, in_place: bool = False,
                 kind: str = "test", **given: Any) -> None:
        self.target = target
        self.in_place = in_place
        self.kind = kind
        """The run's kind in the store: ``test``, or another that keeps it out of what counts as a test run
        (a recorder's replay of a case)."""
        """Play the target folder itself instead of a scratch copy (a program that saves state changes it)."""
        layer = {f.name: getattr(settings, f.name) for f in dataclasses.fields(settings)} if settings else {}
        self.given: dict[str, Any] = {**layer, **{k: v for k, v in given.items() if v is not None}}
        self.settings = resolve(self.given)

    def __repr__(self) -> str:
        return f"RunConfig({self.target!r}, in_place={self.in_place}, given={self.given!r})"


@dataclass
class RunResult:
    run_id: int | None
    status: str  # completed | stopped | error
    verdict: str
    reason: str
    steps: int
    findings: list[Finding]
    error: str = ""
    window: tuple[int, int] | None = None
    """The target window's size in pixels (what rubric coordinates refer to)."""
    episodes: int = 1
    duration_s: float = 0.0
    captured_frames: int = 0
    film_frames: int = 0
    coverage: dict[str, Any] | None = None
    """``{"lines": H, "total": N}``: lines of the program's own .py files the run executed (a Python program)."""

    def summary(self, db: str) -> dict[str, Any]:
        return {
            "run_id": self.run_id, "verdict": self.verdict, "status": self.status, "steps": self.steps,
            "reason": self.reason, "window": list(self.window) if self.window else None, "episodes": self.episodes,
            "duration_s": round(self.duration_s, 2), "captured_frames": self.captured_frames,
            "film_frames": self.film_frames, "coverage": self.coverage,
            "findings": [{"kind": f.kind, "step": None if f.step is None else step_number(f.step), "idx": f.step,
                          "message": f.message} for f in self.findings],
            "error": self.error, "db": db,
        }


def _rounded(ms: float | None) -> float | None:
    return None if ms is None else round(ms, 2)


class Session:
    def __init__(self, config: RunConfig, store: TrajectoryStore, *, bus: EventBus | None = None,
                 control: RunControl | None = None, tester: Tester | None = None) -> None:
        self.config = config
        self.store = store
        self.bus = bus or EventBus()
        self.control = control or RunControl()
        self.tester = tester
        self.settings: RunSettings = config.settings
        """The run's settings: the caller's until the target is read, then resolved with its and the user's."""
        self.run_id: int | None = None
        self.findings: list[Finding] = []
        self.steps = 0
        self.episodes = 1
        self.window: tuple[int, int] | None = None
        self._play: Player | None = None
        self._played_s = 0.0
        self._captured = 0
        self._screen_grew = False
        """The window grew past its private screen and the screen followed it (said once, as a ``screen`` note)."""
        self._film: RunFilm | None = None
        self._coverage: RunCoverage | None = None
        self.control.on_change(self._on_control_changed)

    def _on_control_changed(self, state: str) -> None:
        if self.run_id is not None:
            self.bus.publish(ControlChanged(self.run_id, state, self.control.reason if state == "paused" else ""))

    # -- entry point -----------------------------------------------------------
    def run(self) -> RunResult:
        """Play the target; never raises for user errors (they end the run as 'error')."""
        self._resolved: ResolvedTarget | None = None
        self._display: XDisplay | None = None
        self._play = None
        status, error = "error", ""
        try:
            self._play_it()
            status = "completed"
        except _EndRun:
            status = "completed"
        except RunStopped:
            status = "stopped"
        except UserError as exc:
            error = str(exc)
        except KeyboardInterrupt:
            status, error = "stopped", "interrupted"
        except Exception as exc:  # an engine bug, unless the display died or the disk filled: say which
            error = describe_fault(exc, self._display, self.store.path, self._play) \
                or f"internal error: {type(exc).__name__}: {exc}"
        finally:
            problems = self._close_all()
        status, error, interrupted = self._after_close(problems, status, error)
        result = self._finish(status, error)
        if interrupted or error == "interrupted":  # closed; now whoever called (a command, a repair) stops too
            raise RunInterrupted(result)
        return result

    def _play_it(self) -> None:
        """Resolve the target and the settings, record the run, start the display and the program, play."""
        cfg = self.config
        self._resolved = resolve_target(cfg.target, in_place=cfg.in_place)
        spec = self._resolved.spec
        user, user_file = user_table()
        s = self.settings = resolve(cfg.given, spec.run, str(spec.source / SPEC_FILE), user, user_file)
        tester = self.tester = self.tester or make_tester(s.tester, s.tester_options)
        self.run_id = self._create_run(spec)
        self._film = RunFilm(self.store, self.run_id, self._film_fps(), spec.timing)
        self._coverage = RunCoverage(self.store, self.run_id)
        tester.attach(self.store, self.run_id, self.control)  # testers that record (LLM calls) or cancel (retries)
        self.bus.publish(RunStarted(self.run_id, spec.label, s.tester, s.display, str(self.store.path)))
        tester.prepare(spec, s.seed)  # a tester with programs of its own starts them meanwhile
        # The private screen is the declared size: a full-screen program gets exactly `size`.
        screen = spec.size if s.display == ISOLATED else DEFAULT_SCREEN
        display = self._display = open_display(s.display, screen)
        # A tester that plays other programs beside the candidate in lockstep (differential play)
        # puts the candidate on a frame gate too.
        play = self._play = Player(spec, display, s.seed, self.control.sleep, hold=self.control.hold,
                                   gated=tester.lockstep or tester.gated or (spec.frame_gate and tester.from_first_frame),
                                   steps_clock=tester.lockstep)
        self._start_target(play)
        self._loop(spec, tester, play)

    def _create_run(self, spec: TargetSpec) -> int:
        """The run's row, with its resolved settings and what the target declares in its config."""
        s = self.settings
        warnings = target_warnings(spec)  # rubric traps and saved state: said once, kept with the run
        say_once(warnings)
        return self.store.create_run(
            target=spec.label, target_path=str(spec.source), bug=spec.bug, target_rev=spec.revision(),
            kind=self.config.kind, tester=s.tester, display=s.display, seed=s.seed, max_steps=s.steps, engine_pid=os.getpid(),
            config={"settle_cap_s": self._settle_cap(spec), "tester_options": public_options(s.tester_options),
                    "kind": spec.kind, "timing": spec.timing.as_dict(), "exit_ok": spec.exit_ok, "warnings": warnings,
                    "in_place": self.config.in_place, "freeze_while_thinking": self._freezes(spec),
                    "slice_ms": self._slice_ms(spec), "duration_s": s.duration_s, "film_fps": self._film_fps(),
                    "settings": s.recorded()},
        )

    def _close_all(self) -> list[BaseException | None]:
        """Close the film, the tester, the program, the display and the scratch copy; what each raised."""
        # Every step runs even if one before it failed (an X server that is gone, a full disk, a second Ctrl-C).
        steps: list[Callable[[], None]] = []
        if self._film is not None:
            steps.append(self._close_film)
        if self.tester is not None:
            steps.append(self.tester.close)  # testers that run programs of their own stop them
        if self._play is not None:
            steps.append(functools.partial(self._play.close, self._flush_logs))
        if self._display is not None:
            steps.append(self._display.close)
        if self._resolved is not None:
            steps.append(self._resolved.cleanup)
        return [close_quietly(step) for step in steps]

    def _after_close(self, problems: list[BaseException | None], status: str,
                     error: str) -> tuple[str, str, bool]:
        """The run's status and error once what closing raised is counted, and whether it was interrupted."""
        interrupted = False
        for problem in problems:
            if isinstance(problem, KeyboardInterrupt) and status == "completed":
                status, error = "stopped", "interrupted"
            if isinstance(problem, KeyboardInterrupt):
                interrupted = True
            elif isinstance(problem, Exception) and status == "completed":  # e.g. the last logs hit a full disk
                status = "error"
                error = str(problem) if isinstance(problem, UserError) else describe_fault(
                    problem, self._display, self.store.path) or f"internal error: {type(problem).__name__}: {problem}"
        return status, error, interrupted

    def _finish(self, status: str, error: str) -> RunResult:
        verdict_obj: Verdict | None = None
        seen = status == "completed" or (status == "stopped" and (self.steps > 0 or bool(self.findings)))
        if seen and self.run_id is not None:  # a stopped run is judged on what was seen, and says so
            tester = self.tester
            try:
                verdict_obj = tester.verdict(self.findings, self.steps) if tester is not None else None
            except (RunStopped, UserError):  # a tester that cannot judge after a stop: the findings still count
                if status != "stopped":
                    raise
            if verdict_obj is not None and status == "stopped":
                verdict_obj = replace(verdict_obj, reason=f"{verdict_obj.reason} (run stopped after "
                                                          f"{self.steps} step{'' if self.steps == 1 else 's'})")
        if verdict_obj is None:
            verdict, reason = ("error", error) if status == "error" else ("error", "the run was stopped before a verdict")
            if status == "stopped" and self.findings:
                verdict, reason = "fail", f"{self.findings[0].kind}: {self.findings[0].message} (run stopped)"
        else:
            verdict, reason = verdict_obj.verdict, verdict_obj.reason
        if self.run_id is not None:
            self.store.finish_run(self.run_id, status=status, verdict=None if status == "stopped" and verdict == "error"
                                  else verdict, reason=reason, error=error)
            if verdict_obj is not None:
                for cid, (cverdict, note) in verdict_obj.criteria.items():
                    self.store.add_judgment(self.run_id, source="tester", author="tester", verdict=cverdict,
                                            note=note, criterion=cid)
            self.bus.publish(VerdictReached(self.run_id, verdict, reason))
            self.bus.publish(RunFinished(self.run_id, status, verdict, self.steps, error))
        return RunResult(self.run_id, status, verdict, reason, self.steps, list(self.findings), error,
                         self.window, self.episodes, self._played_s, self._captured,
                         self._film.frames if self._film is not None else 0,
                         coverage=self._coverage.summary() if self._coverage is not None else None)

    # -- the program, started and restarted ---------------------------------------
    def _settle_cap(self, spec: TargetSpec) -> float:
        cap = self.settings.settle_cap_s
        return cap if cap is not None else spec.timing.settle_cap_ms / 1000

    def _freezes(self, spec: TargetSpec) -> bool:
        """Is the clock stopped while the tester thinks? By default for a model playing a game."""
        if self.settings.freeze_while_thinking is not None:
            return self.settings.freeze_while_thinking
        return self.tester is not None and self.tester.abilities.freezes_on_games and spec.kind == "game"

    def _film_fps(self) -> int:
        return self.settings.film_fps if self.settings.film_fps is not None else FILM_FPS

    def _close_film(self) -> None:
        """Stop filming; flashes seen after the last step are recorded (without a step)."""
        assert self._film is not None
        self._film.close()
        target = self._play.target if self._play is not None else None
        for finding in self._film.glitches(None, target.inside.display_changed_at() if target is not None else ()):
            self._record(finding)

    def _slice_ms(self, spec: TargetSpec) -> int:
        return self.settings.slice_ms if self.settings.slice_ms is not None else SLICE_MS[spec.kind]

    def _start_target(self, play: Player) -> None:
        """Start the program and find its window; a program that dies first is a crash (run ends)."""
        assert self.run_id is not None
        try:
            win = play.start()
        except TargetError as exc:
            if play.target is None or play.target.alive():
                raise
            # A program that dies before its window appears is a crash, not a usage error.
            self._record(Finding("crash", str(exc).rstrip("."), self.steps if self.episodes > 1 else None,
                                 {"log": [t for _, _, t in play.target.lines()[-12:]]}, fatal=True))
            raise _EndRun() from exc
        screen = play.display.size
        # A window past its screen's right or bottom edge (larger than the declared size, or placed near an
        # edge) gets the screen grown to hold it, as a window that grows while it is played does, within the
        # framebuffer's room; only one that does not fit even then ends the run.
        if play.display.isolated and (win.x + win.width > screen[0] or win.y + win.height > screen[1]):
            need = (max(win.width, win.x + win.width), max(win.height, win.y + win.height))
            if not play.display.hold(win):
                raise TargetError(
                    f"the program opened a {win.width}×{win.height} window at {win.x},{win.y}, which does not fit "
                    f"its {screen[0]}×{screen[1]} screen even grown; set size = [{need[0]}, {need[1]}] in its "
                    "playcoder.toml.")
            self._note_screen_grew(
                play, f"the program opened a {win.width}×{win.height} window at ({win.x}, {win.y}), past its "
                      f"{screen[0]}×{screen[1]} screen", None,
                f"to hold it (size = [{need[0]}, {need[1]}] in its playcoder.toml would start it so)")
        self.window = (win.width, win.height)
        self.store.update_run(self.run_id, window_width=win.width, window_height=win.height)
        if self._coverage is not None and play.target is not None:
            self._coverage.started(play.target.inside)
        self._note_settle(play)
        if self._film is not None:
            self._film.attach(play.observer)
        self.bus.publish(WindowFound(self.run_id, play.display.name, win.id, win.width, win.height, win.method,
                                     win.x, win.y))

    def _note_settle(self, play: Player) -> None:
        """Say in the run's config how its steps are settled: "inside" (the loop says idle), "pixels", "gate"."""
        assert self.run_id is not None
        config = json.loads(self.store.run(self.run_id).get("config") or "{}")
        if config.get("settle") != play.settle_source:
            config["settle"] = play.settle_source
            self.store.update_run(self.run_id, config=json.dumps(config))

    def _follow_window(self, play: Player) -> None:
        """Re-read the window; say when it moved, was resized, or was re-created by the program."""
        assert self.run_id is not None and play.target is not None
        old = play.target.window
        grown = play.display.size
        held: list[bool] = []
        new = play.target.refresh_geometry(before=lambda w: held.append(play.display.hold(w)))
        if new is None or new == old:
            return
        if any(held) and not self._screen_grew:
            self._note_screen_grew(play, f"the program's window grew to {new.width}×{new.height} at ({new.x}, "
                                         f"{new.y}), past its {grown[0]}×{grown[1]} screen", self.steps,
                                   "to follow it")
        if old is None or new.id != old.id:
            self.bus.publish(WindowFound(self.run_id, play.display.name, new.id, new.width, new.height, new.method,
                                         new.x, new.y))
        else:
            self.bus.publish(WindowMoved(self.run_id, new.id, new.x, new.y, new.width, new.height))

    def _note_screen_grew(self, play: Player, said: str, step: int | None, tail: str) -> None:
        """Say once that the screen grew to hold the window (a window that keeps growing would say it every step)."""
        self._screen_grew = True
        w, h = play.display.size
        self._record(Finding("screen", f"{said}; the screen grew to {w}×{h} {tail}", step))

    def _new_episode(self, play: Player, finding: Finding) -> None:
        """A declared end (exit_ok, code 0): record it, restart the program, keep playing."""
        self._record(Finding("episode", f"episode {self.episodes} ended: the program exited with code 0 "
                                        "(exit_ok is declared); restarted it", finding.step,
                             {"episode": self.episodes, "code": 0}))
        play.stop(self._flush_logs)
        self.episodes += 1
        self._start_target(play)

    def _restart_for_tester(self, tester: Tester, play: Player,
                            oracles: GenericOracles) -> tuple[GenericOracles, Observation]:
        """Restart the program because the tester asked to (it returns to a state it reached before by
        replaying that state's inputs from the start, :mod:`app.engine.testers.explore.returns`).
        Recorded as a ``restart`` note; the new process gets fresh oracles that keep what was learnt."""
        self._record(Finding("restart", "the tester restarted the program to return to a state it reached "
                                        "before (it replays the inputs that led there)", self.steps))
        if play.observer is not None:
            self._captured += play.observer.captured
        if play.gate is not None:
            play.gate.release()  # a game standing on its gate would read the polite close only at its next frame
        play.stop(self._flush_logs)
        self._start_target(play)
        timing = play.spec.timing
        ended, oracles = oracles, episode_oracles(play, before=oracles)
        oracles.carry_silence(ended)
        obs = play.settle(self._settle_cap(play.spec), timing.quiet_ms / 1000)
        for finding in _check_start(tester, play, oracles, obs):
            self._record(finding)
        tester.restarted(obs)
        return oracles, obs

    # -- the loop ----------------------------------------------------------------
    def _loop(self, spec: TargetSpec, tester: Tester, play: Player) -> None:
        timing = spec.timing
        cap_static = self._settle_cap(spec)
        quiet_s = timing.quiet_ms / 1000
        oracles = episode_oracles(play)
        obs = play.settle(cap_static, quiet_s)
        for finding in _check_start(tester, play, oracles, obs):
            if self._ends_episode(spec, finding):
                self._new_episode(play, finding)
                oracles = episode_oracles(play)
                obs = play.settle(cap_static, quiet_s)
                oracles.check_start(obs)
                break
            self._record(finding)
            if finding.fatal:
                return
        freeze = self._freezes(spec)
        slice_s = self._slice_ms(spec) / 1000
        clock = GameClock(_Signals(play), freeze)
        started_at = time.monotonic()
        try:
            StepLoop(self, spec, tester, play, oracles, obs, clock, slice_s, started_at).run()
        finally:
            clock.close()
            self._played_s = time.monotonic() - started_at
            self._captured += play.observer.captured if play.observer is not None else 0

    @staticmethod
    def _ends_episode(spec: TargetSpec, finding: Finding) -> bool:
        return spec.exit_ok and finding.kind == "exit" and finding.evidence.get("code") == 0

    def _commit_step(self, step: StepRecord) -> None:
        """Store a played step (its pictures, findings and coverage) in one transaction, then tell listeners."""
        decision, after, findings = step.decision, step.after, step.findings
        assert self.run_id is not None
        idx = self.steps
        if self._film is not None:
            findings = [self._film.stamp(f) for f in findings]
        lines = self._coverage.lines(self._play.target.inside if self._play is not None and self._play.target
                                     is not None else None) if self._coverage is not None else {}
        with self.store.transaction():
            h_before = self.store.put_frame(step.before.width, step.before.height, step.before.bgrx)
            h_after = self.store.put_frame(after.frame.width, after.frame.height, after.frame.bgrx)
            self.store.add_step(self.run_id, idx, {
                "actor": step.actor, "action": action_to_dict(decision.action), "outcome": step.outcome,
                "rationale": decision.rationale, "frame_before": h_before, "frame_after": h_after,
                "changed_bbox": list(after.changed_bbox) if after.changed_bbox else None,
                "settle_ms": round(after.settle_ms, 2), "settled": int(after.settled),
                "busy_ms": _rounded(after.busy_ms), "waited_ms": _rounded(after.waited_ms),
                "decide_ms": round(step.decide_ms, 2), "act_ms": round(step.act_ms, 2),
                "tokens_in": decision.tokens_in, "tokens_out": decision.tokens_out,
                "findings": [f.kind for f in findings] or None,
                "started_at": step.started, "ended_at": time.time(),
            }, [f.row() for f in findings])
            if self._coverage is not None:
                self._coverage.record(idx, lines)
        self.steps += 1
        self.findings.extend(findings)
        if self.tester is not None:
            self.tester.step_recorded(idx)  # testers that add to the row (a reference frame)
        self.bus.publish(StepRecorded(self.run_id, idx, action_to_dict(decision.action), step.outcome, h_after,
                                      after.changed_bbox, after.settle_ms))
        for f in findings:
            self.bus.publish(FindingRaised(self.run_id, f.step, f.kind, f.message))

    def _record(self, finding: Finding) -> None:
        if self._film is not None:
            finding = self._film.stamp(finding)
        if self.run_id is not None:
            self.store.add_finding(self.run_id, finding.row())
            self.bus.publish(FindingRaised(self.run_id, finding.step, finding.kind, finding.message))
        self.findings.append(finding)

    def _flush_logs(self, target: TargetProcess, final: bool = True) -> None:
        """Store the program's output: during the run only its head, at its end the rest (a note of what was
        dropped and the tail), so a program printing without end adds a bounded amount to the database."""
        if self.run_id is None:
            return
        self.store.add_logs(self.run_id, target.log.unsaved(final))


class _EndRun(Exception):
    """Internal: the run ended early with its findings recorded (e.g. crashed at start)."""


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM ended the run; it was closed as stopped (``result``) and the caller should stop too."""

    def __init__(self, result: RunResult) -> None:
        super().__init__()
        self.result = result



def _check_start(tester: Tester, play: Player, oracles: GenericOracles, obs: Observation) -> list[Finding]:
    """The oracles' start-up watch.  A tester that plays from the first frame (the script tester: a scripted key
    must land at the frame the case means) keeps a gated game standing still meanwhile: the watch plays no frames
    (a snake must not reach the wall before the first key)."""
    if not (tester.from_first_frame and play.lockstep):
        return oracles.check_start(obs)
    oracles.sleep = play.sleep
    try:
        return oracles.check_start(obs)
    finally:
        oracles.sleep = play.pause


class _Signals:
    """The current program of a player, for the clock (it changes when an episode restarts it)."""

    def __init__(self, play: Player) -> None:
        self.play = play

    def signal_program(self, sig: int) -> None:
        if self.play.target is not None:
            self.play.target.signal_program(sig)
