"""The run loop: observe → decide → act → record → judge, with RunControl checkpoints.

The same loop runs headless (CLI), in tests (synchronously) and live (as a
child process of the workbench, streaming events).  Every step is committed
before the next action; target and display are shut down on every exit path.
"""

from __future__ import annotations

import os
import random
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from app.engine.play.actions import ActionParseError, Finish, action_from_dict, action_to_dict
from app.engine.play.control import RunControl
from app.engine.play.display import DEFAULT_SCREEN, ISOLATED, XDisplay, open_display
from app.engine.errors import RunStopped, TargetError, UserError
from app.engine.play.events import (
    ControlChanged, EventBus, FindingRaised, RunFinished, RunStarted, StepRecorded, VerdictReached, WindowFound,
)
from app.engine.play.executor import ActionExecutor, make_executor
from app.engine.play.observer import SETTLE_CAP_S, Observation, VisualObserver
from app.engine.judge.oracles import Finding, GenericOracles
from app.engine.trace.store import TrajectoryStore
from app.engine.play.target import TargetProcess
from app.engine.play.targetspec import ResolvedTarget, resolve_target
from app.engine.testers import make_tester
from app.engine.testers.base import Decision, Tester, TesterContext, Verdict

ANIMATED_SETTLE_CAP_S = 0.25
"""For a window that animates on its own, 'settled' never comes: look after this long."""


@dataclass
class RunConfig:
    target: str
    tester: str = "offline"
    display: str = ISOLATED
    max_steps: int = 30
    seed: int = 0
    settle_cap_s: float = SETTLE_CAP_S
    tester_options: dict[str, Any] = field(default_factory=dict)


@dataclass
class RunResult:
    run_id: int | None
    status: str  # completed | stopped | error
    verdict: str
    reason: str
    steps: int
    findings: list[Finding]
    error: str = ""

    def summary(self, db: str) -> dict[str, Any]:
        return {
            "run_id": self.run_id, "verdict": self.verdict, "status": self.status, "steps": self.steps,
            "reason": self.reason,
            "findings": [{"kind": f.kind, "step": f.step, "message": f.message} for f in self.findings],
            "error": self.error, "db": db,
        }


class Session:
    def __init__(self, config: RunConfig, store: TrajectoryStore, *, bus: EventBus | None = None,
                 control: RunControl | None = None, tester: Tester | None = None) -> None:
        self.config = config
        self.store = store
        self.bus = bus or EventBus()
        self.control = control or RunControl()
        self.tester = tester
        self.run_id: int | None = None
        self.findings: list[Finding] = []
        self.steps = 0
        self._log_flushed = 0
        self.control.on_change(self._on_control_changed)

    def _on_control_changed(self, state: str) -> None:
        if self.run_id is not None:
            self.bus.publish(ControlChanged(self.run_id, state))

    # -- entry point -----------------------------------------------------------
    def run(self) -> RunResult:
        """Play the target; never raises for user errors (they end the run as 'error')."""
        cfg = self.config
        resolved: ResolvedTarget | None = None
        display: XDisplay | None = None
        target: TargetProcess | None = None
        observer: VisualObserver | None = None
        executor: ActionExecutor | None = None
        status, error = "error", ""
        try:
            resolved = resolve_target(cfg.target)
            spec = resolved.spec
            tester = self.tester = self.tester or make_tester(cfg.tester, cfg.tester_options)
            self.run_id = self.store.create_run(
                target=spec.label, target_path=str(spec.source), bug=spec.bug, target_rev=spec.revision(),
                tester=cfg.tester, display=cfg.display, seed=cfg.seed, max_steps=cfg.max_steps,
                engine_pid=os.getpid(),
                config={"settle_cap_s": cfg.settle_cap_s, "tester_options": _public_options(cfg.tester_options), "kind": spec.kind},
            )
            attach = getattr(tester, "attach", None)  # testers that record (LLM calls) or cancel (retries)
            if attach is not None:
                attach(self.store, self.run_id, self.control)
            self.bus.publish(RunStarted(self.run_id, spec.label, cfg.tester, cfg.display, str(self.store.path)))
            screen = (max(DEFAULT_SCREEN[0], spec.size[0] + 64), max(DEFAULT_SCREEN[1], spec.size[1] + 64))
            display = open_display(cfg.display, screen)
            target = TargetProcess(spec, display, cfg.seed)
            try:
                win = target.wait_for_window()
            except TargetError as exc:
                if target.alive():
                    raise
                # A program that dies before its window appears is a crash, not a usage error.
                self._record(Finding("crash", str(exc).rstrip("."), None,
                                     {"log": [t for _, _, t in target.lines()[-12:]]}, fatal=True))
                raise _EndRun() from exc
            self.store.update_run(self.run_id, window_width=win.width, window_height=win.height)
            self.bus.publish(WindowFound(self.run_id, display.name, win.id, win.width, win.height, win.method, win.x, win.y))

            def geometry() -> tuple[int, int, int, int]:
                w = target.window if target is not None and target.window is not None else win
                return (w.x, w.y, w.width, w.height)

            observer = VisualObserver(display.name, geometry)
            executor = make_executor(display.name, display.isolated, win.id, geometry, display.size,
                                     sleep=self.control.sleep)
            self._loop(spec, tester, target, observer, executor)
            status = "completed"
        except _EndRun:
            status = "completed"
        except RunStopped:
            status = "stopped"
        except UserError as exc:
            error = str(exc)
        except KeyboardInterrupt:
            status, error = "stopped", "interrupted"
        except Exception as exc:  # an engine bug: keep the run readable and say so
            error = f"internal error: {type(exc).__name__}: {exc}"
        finally:
            if executor is not None:
                executor.close()
            if observer is not None:
                observer.close()
            if target is not None:
                target.shutdown()
                self._flush_logs(target)
            if display is not None:
                display.close()
            if resolved is not None:
                resolved.cleanup()
        return self._finish(status, error)

    def _finish(self, status: str, error: str) -> RunResult:
        verdict_obj: Verdict | None = None
        if status == "completed" and self.run_id is not None:
            tester = self.tester
            verdict_obj = tester.verdict(self.findings, self.steps) if tester is not None else None
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
        return RunResult(self.run_id, status, verdict, reason, self.steps, list(self.findings), error)

    # -- the loop ----------------------------------------------------------------
    def _loop(self, spec: Any, tester: Tester, target: TargetProcess, observer: VisualObserver,
              executor: ActionExecutor) -> None:
        cfg = self.config
        oracles = GenericOracles(target, observer, sleep=self.control.sleep)
        obs = observer.settle(cap_s=cfg.settle_cap_s)
        for finding in oracles.check_start(obs):
            self._record(finding)
            if finding.fatal:
                return
        cap = ANIMATED_SETTLE_CAP_S if oracles.animated else cfg.settle_cap_s
        rng = random.Random(cfg.seed)
        tester.begin(TesterContext(spec, cfg.seed, cfg.max_steps, rng, (obs.frame.width, obs.frame.height)), obs)
        while self.steps < cfg.max_steps:
            human = self.control.checkpoint()
            target.refresh_geometry()
            before = obs.frame
            started = time.time()
            t0 = time.monotonic()
            if human is not None:
                try:
                    decision = Decision(action_from_dict(human), "human take-over")
                except ActionParseError as exc:
                    self._record(Finding("error", f"a take-over action was refused: {exc}", self.steps))
                    continue
                actor = "human"
            else:
                decision = tester.decide(self.steps, obs)
                actor = "tester"
            decide_ms = (time.monotonic() - t0) * 1000.0
            result = executor.execute(decision.action)
            if isinstance(decision.action, Finish):
                self._commit_step(actor, decision, result.outcome, before, obs, started, decide_ms, result.act_ms, [])
                return
            after = observer.settle(before, cap_s=cap)
            findings = oracles.check_step(self.steps, decision.action.name, before, after)
            tester.observe(self.steps, before, decision, after, result.outcome)
            if result.outcome == "refused":
                findings.insert(0, Finding("refused", result.message, self.steps))
            self._commit_step(actor, decision, result.outcome, before, after, started, decide_ms, result.act_ms, findings)
            self._flush_logs(target)
            self.control.step_done()
            obs = after
            if oracles.animated and cap != ANIMATED_SETTLE_CAP_S:
                cap = ANIMATED_SETTLE_CAP_S
            if any(f.fatal for f in findings):
                return

    def _commit_step(self, actor: str, decision: Decision, outcome: str, before: Any, after: Observation,
                     started: float, decide_ms: float, act_ms: float, findings: list[Finding]) -> None:
        assert self.run_id is not None
        idx = self.steps
        with self.store.transaction():
            h_before = self.store.put_frame(before.width, before.height, before.bgrx)
            h_after = self.store.put_frame(after.frame.width, after.frame.height, after.frame.bgrx)
            self.store.add_step(self.run_id, idx, {
                "actor": actor, "action": action_to_dict(decision.action), "outcome": outcome,
                "rationale": decision.rationale, "frame_before": h_before, "frame_after": h_after,
                "changed_bbox": list(after.changed_bbox) if after.changed_bbox else None,
                "settle_ms": round(after.settle_ms, 2), "settled": int(after.settled),
                "decide_ms": round(decide_ms, 2), "act_ms": round(act_ms, 2),
                "tokens_in": decision.tokens_in, "tokens_out": decision.tokens_out,
                "findings": [f.kind for f in findings] or None,
                "started_at": started, "ended_at": time.time(),
            }, [f.row() for f in findings])
        self.steps += 1
        self.findings.extend(findings)
        self.bus.publish(StepRecorded(self.run_id, idx, action_to_dict(decision.action), outcome, h_after,
                                      after.changed_bbox, after.settle_ms))
        for f in findings:
            self.bus.publish(FindingRaised(self.run_id, f.step, f.kind, f.message))

    def _record(self, finding: Finding) -> None:
        if self.run_id is not None:
            self.store.add_finding(self.run_id, finding.row())
            self.bus.publish(FindingRaised(self.run_id, finding.step, finding.kind, finding.message))
        self.findings.append(finding)

    def _flush_logs(self, target: TargetProcess) -> None:
        if self.run_id is None:
            return
        lines = target.lines(self._log_flushed)
        self._log_flushed += len(lines)
        self.store.add_logs(self.run_id, lines)


def _public_options(options: dict[str, Any]) -> dict[str, Any]:
    """Tester options as stored with the run: no secrets, no credentials inside URLs."""
    out: dict[str, Any] = {}
    for key, value in options.items():
        if any(word in key.lower() for word in ("key", "secret", "password", "token")) and "max" not in key.lower():
            continue
        if isinstance(value, str) and "://" in value:
            parts = urlsplit(value)
            if parts.username or parts.password:
                host = parts.hostname or ""
                value = urlunsplit((parts.scheme, host + (f":{parts.port}" if parts.port else ""), parts.path,
                                    parts.query, parts.fragment))
        out[key] = value
    return out


class _EndRun(Exception):
    """Internal: the run ended early with its findings recorded (e.g. crashed at start)."""
