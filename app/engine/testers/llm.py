"""The LLM PlayTester: the paper's Test Manager on a vision model.

Phases, each one recorded call (or a few) in ``llm_calls``:

1. ``gui_analysis`` — the first screenshot described for a tester;
2. ``strategy`` — a goal-driven plan for a game, a coverage-driven plan for
   an app, from the target's goal, keys and rubric criteria;
3. ``action_decision`` per step — the last three frames (older ones as small
   thumbnails), a close-up of the region the last action changed, the action
   history and the plan; the model answers with one action, read by the strict
   :class:`~app.engine.play.actions.ActionParser`.  When the program's controls
   are known the screenshot carries numbered marks and the model may answer
   ``click_mark(N)`` (:mod:`app.engine.testers.marks`); it may also answer
   ``return_to(N)``, a screen it reached before (:mod:`app.engine.testers.llm_returns`);
4. ``criterion_judgment`` per rubric criterion, then ``verdict`` — when the
   model finishes or the step budget ends.

Malformed model output gets one re-ask that quotes the parse error.  If the
second reply is also unusable, an ``error`` finding is recorded and the run
ends in verdict ``error`` (an :class:`LLMError`): a model that cannot state an
action tells us nothing about the program, so we neither count it as a
failure of the program nor play on with a guessed action.  Provider failures
after retries end the run the same way.

The tester supplies evidence — the oracles' findings, its criterion
judgments and the model's overall judgment (the verdict call, else its
finish) — and the rule of :mod:`app.engine.judge.verdict` gives the verdict:
a failing oracle finding or a criterion judged ``fail`` fails the run, and a
pass needs at least one criterion judged ``pass`` (or, for a target without
criteria, an overall ``pass``); with no criterion judged the run is
``uncertain``.  Judgment calls never end the run: a call that fails leaves
its criterion ``uncertain``.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, NoReturn, TypeVar

from app.engine.step_numbers import step_number, step_place
from app.engine.play.actions import VERDICTS, Action, ActionParser, Finish, Wait, action_to_call, find_json_object
from app.engine.play.control import RunControl
from app.engine.errors import RunStopped
from app.engine.llm.client import LLMClient, LLMError
from app.engine.llm.config import LLMSettings, resolve_settings
from app.engine.llm.messages import ChatRequest, ImagePart, Message
from app.engine.llm.prompts import Prompts
from app.engine.llm.shots import Shot, bbox_text, crop_part, to_picture, to_window
from app.engine.play.observer import BBox, Frame, Observation
from app.engine.judge.oracles import Finding
from app.engine.judge.verdict import Evidence, decide, is_answer
from app.engine.trace.store import TrajectoryStore
from app.engine.play.targetspec import Criterion
from app.engine.testers.base import Decision, TesterBase, TesterContext, Verdict
from app.engine.testers.llm_returns import LLMReturns, chosen_return, on_gate
from app.engine.testers.marks import Mark, chosen_mark, controls_marked, draw_marks

T = TypeVar("T")
MAX_TOKENS = {"gui_analysis": 500, "strategy": 500, "action_decision": 300, "criterion_judgment": 250,
              "verdict": 250}
FRAMES_KEPT = 3
"""Frames the model sees per decision, as the paper's tester keeps."""
HISTORY_LINES = 30
THOUGHTS_IN_HISTORY = 3
TRAJECTORY_LINES = 80
THOUGHT_CHARS = 240
PLAN_CHARS = 2500
_NOTE_FIELDS = ("observation", "explanation", "note", "plan", "expected")
REASK_EXAMPLES = {
    "action_decision": '{"thought": "...", "action": "click", "x": 120, "y": 80}',
    "criterion_judgment": '{"verdict": "uncertain", "evidence_step": null, "note": "..."}',
    "verdict": '{"verdict": "fail", "reason": "..."}',
}


class _Malformed(Exception):
    def __init__(self, error: str, replies: list[str]) -> None:
        super().__init__(error)
        self.replies = replies


@dataclass
class _Entry:
    step: int
    action: Action  # window coordinates
    outcome: str
    changed: BBox | None
    thought: str
    human: bool


class LLMTester(TesterBase):
    name = "llm"

    def __init__(self, settings: LLMSettings, client: LLMClient | None = None, prompts: Prompts | None = None) -> None:
        self.settings = settings
        self.client = client or LLMClient(settings)
        self.rules = self.client.provider.rules
        self.prompts = prompts or Prompts()
        self.parser = ActionParser()
        self.store: TrajectoryStore | None = None
        self.run_id: int | None = None
        self.ctx: TesterContext | None = None
        self.analysis = ""
        self.strategy = ""
        self.first: Shot | None = None
        self.last_frame: Frame | None = None
        self.shots: deque[Shot] = deque(maxlen=FRAMES_KEPT)
        self.history: list[_Entry] = []
        self.finished: Finish | None = None
        self.use_marks = True
        """Draw and list set-of-marks when the program's controls are known (off: the plain screenshot)."""
        self.returns = LLMReturns()
        """Screens reached, each with the inputs that reach it from the start: ``return_to(N)`` goes back."""
        self._frames_sent = 0

    @classmethod
    def from_options(cls, options: dict[str, Any]) -> LLMTester:
        return cls(resolve_settings(options))

    def attach(self, store: TrajectoryStore, run_id: int, control: RunControl | None = None) -> None:
        """Called by the session once the run row exists: record calls there, cancel with its control."""
        self.store, self.run_id = store, run_id
        self.client.attach(store, run_id, control)

    # -- phases 1 and 2 ---------------------------------------------------------
    def begin(self, ctx: TesterContext, first: Observation) -> None:
        self.ctx = ctx
        spec = ctx.spec
        self.first = Shot(first.frame, 0)
        self.last_frame = first.frame
        main = self.first.main(self.rules, self.settings.detail)
        text = self.prompts.render("gui_analysis", name=spec.name, kind_text=self._kind_text(),
                                   width=main.size[0], height=main.size[1], goal_line=self._goal_line())
        self.analysis = self._ask("gui_analysis", None, [text, main]).text.strip()[:PLAN_CHARS]
        criteria = "\n".join(f"- [{c.id}] {c.text}" for c in spec.criteria) or \
            "(none listed: judge by the goal and by what a user would expect)"
        strategy = self.prompts.render(
            "strategy_game" if spec.kind == "game" else "strategy_app", name=spec.name,
            goal=spec.goal or "(not given)", keys=", ".join(spec.keys) or "(not given)", criteria=criteria,
            analysis=self.analysis, max_steps=ctx.max_steps)
        self.strategy = self._ask("strategy", None, [strategy]).text.strip()[:PLAN_CHARS]

    # -- phase 3 ----------------------------------------------------------------
    def decide(self, step: int, obs: Observation) -> Decision:
        assert self.ctx is not None, "begin() first"
        self.shots.append(Shot(obs.frame, step))
        self.last_frame = obs.frame
        self._frames_sent = self._frames()
        self.returns.see(step, obs.frame, self._program())
        replay = self.returns.replay(obs.frame, on_gate(self.ctx.player))
        if replay is not None:  # returning to a screen: its inputs, one a step, no model call
            self._frames_sent = self._frames()
            return Decision(replay[0], replay[1], 0, 0)
        newest = self.shots[-1]
        sx, sy = newest.scale(self.rules, self.settings.detail)
        parts: list[str | ImagePart] = []
        legend: list[str] = []
        for shot in list(self.shots)[:-1]:
            parts += [f"Image {len(legend) + 1}:", shot.context(self.rules)]
            legend.append(f"{len(legend) + 1}) the window at step {shot.step} (small, older)")
        crop = crop_part(obs.frame, obs.changed_bbox, self.rules) if self.settings.crop and step else None
        if crop is not None:
            parts += [f"Image {len(legend) + 1}:", crop[0]]
            legend.append(f"{len(legend) + 1}) close-up of what the last action changed, at "
                          f"{bbox_text(crop[1], sx, sy).removeprefix('changed ')}")
        main = newest.main(self.rules, self.settings.detail)
        marks, source = controls_marked(self.ctx, obs.frame) if self.use_marks else ([], "")
        if marks:
            main = ImagePart(draw_marks(main.image, marks, sx, sy), main.detail)
        parts += [f"Image {len(legend) + 1}:", main]
        legend.append(f"{len(legend) + 1}) the newest screenshot, now, {main.size[0]}×{main.size[1]}"
                      + (f", with {len(marks)} numbered marks" if marks else ""))
        marks_text = "\n\n" + self.prompts.render(
            "marks", source=source, marks="\n".join(m.line(sx, sy) for m in marks)) if marks else ""
        screens = self.returns.listing(obs.frame)
        returns_text = "\n\n" + self.prompts.render("returns", screens=screens, news=self.returns.news) \
            if screens else ""
        self.returns.news = ""
        text = self.prompts.render(
            "action_decision", step=step, last_step=self.ctx.max_steps - 1, strategy=self.strategy,
            history=self._history_text(sx, sy), images="; ".join(legend) + ".", marks=marks_text,
            returns=returns_text, width=main.size[0], height=main.size[1])
        totals = [0, 0]
        try:
            action, thought, mark = self._ask_parsed("action_decision", step, [text, *parts],
                                                     lambda reply: self._parse_decision(reply, marks), totals)
        except _Malformed as bad:
            self._give_up(step, bad)
        window_action = mark.click() if mark is not None else to_window(action, sx, sy)
        if mark is not None:
            thought = f"{thought} [click_mark({mark.number}): {mark.line(1.0, 1.0)}]".strip()
        if isinstance(window_action, Finish):
            self.finished = window_action
        return Decision(window_action, thought or action_to_call(action), totals[0], totals[1])

    def observe(self, step: int, before: Frame, decision: Decision, after: Observation, outcome: str) -> None:
        self.last_frame = after.frame
        if not isinstance(decision.action, Finish):
            human = decision.rationale == "human take-over"
            self.returns.sent(self._frames() if human else self._frames_sent, decision.action)
        self.history.append(_Entry(step, decision.action, outcome, after.changed_bbox, decision.rationale,
                                   decision.rationale == "human take-over"))

    # -- phase 4 ----------------------------------------------------------------
    def verdict(self, findings: list[Finding], steps: int) -> Verdict:
        """Never raises: a failed or stopped judgment leaves criteria uncertain, the oracles still count."""
        criteria = self.ctx.spec.criteria if self.ctx is not None else ()
        judged: dict[str, tuple[str, str]] = {c.id: ("uncertain", "not judged") for c in criteria}
        overall: tuple[str, str] | None = None
        if self.ctx is None or not self.strategy:
            note = "not judged: the model never saw the program play"
            judged = {c.id: ("uncertain", note) for c in criteria}
        else:
            try:
                for c in criteria:
                    judged[c.id] = self._judge(c, findings)
                overall = self._overall(findings, judged)
            except RunStopped:
                pass
        if not is_answer(overall[0] if overall else None) and self.finished is not None \
                and is_answer(self.finished.verdict):
            overall = (self.finished.verdict, f"the model finished with: {self.finished.reason}")
        return decide(Evidence(findings, steps, judges_criteria=True, criteria=judged, overall=overall))

    def _judge(self, criterion: Criterion, findings: list[Finding]) -> tuple[str, str]:
        images, legend = self._evidence_images()
        text = self.prompts.render(
            "criterion_judgment", name=self._spec_name(), kind_text=self._kind_text(), goal_line=self._goal_line(),
            strategy=self.strategy, trajectory=self._trajectory_text(), oracles=self._oracle_text(findings),
            images=legend, criterion_id=criterion.id, criterion_text=criterion.text)
        try:
            verdict, step, note = self._ask_parsed("criterion_judgment", None, [text, *images], self._parse_judgment)
        except (LLMError, _Malformed) as exc:
            return ("uncertain", f"not judged: {exc}")
        return (verdict, f"{step_place(step)}: {note}" if step is not None else note)

    def _overall(self, findings: list[Finding], judged: dict[str, tuple[str, str]]) -> tuple[str, str] | None:
        images, legend = self._evidence_images(last_only=True)
        finish = (f"finish({self.finished.verdict}): {self.finished.reason}" if self.finished
                  else "you did not finish before the step budget ended")
        text = self.prompts.render(
            "verdict", name=self._spec_name(), kind_text=self._kind_text(), goal_line=self._goal_line(),
            trajectory=self._trajectory_text(), oracles=self._oracle_text(findings), finish=finish, images=legend,
            judgments="\n".join(f"- [{cid}] {v}: {note}" for cid, (v, note) in judged.items()) or "(no criteria)")
        try:
            verdict, _, reason = self._ask_parsed("verdict", None, [text, *images], self._parse_judgment)
        except (LLMError, _Malformed) as exc:
            return ("error", str(exc))
        return (verdict, reason)

    # -- calls and parsing --------------------------------------------------------
    def _ask(self, phase: str, step: int | None, parts: list[str | ImagePart],
             history: list[Message] | None = None) -> Any:
        system = self.prompts.render("system")
        messages = history if history else [Message.user(*parts)]
        return self.client.ask(phase, step, ChatRequest(system, messages, MAX_TOKENS[phase]))

    def _ask_parsed(self, phase: str, step: int | None, parts: list[str | ImagePart],
                    parse: Callable[[str], T], totals: list[int] | None = None) -> T:
        """Ask, parse; on a parse error ask once more quoting it; raise _Malformed after two bad replies."""
        first = Message.user(*parts)
        result = self._ask(phase, step, parts)
        replies = [result.text]
        self._count(totals, result.tokens_in, result.tokens_out)
        try:
            return parse(result.text)
        except ValueError as exc:  # ActionParseError, or a judgment that is not the JSON asked for
            reask = self.prompts.render("reask", error=str(exc).rstrip("."), example=REASK_EXAMPLES[phase])
            again = self._ask(phase, step, parts, [first, Message.assistant(result.text or "(empty)"),
                                                   Message.user(reask)])
            replies.append(again.text)
            self._count(totals, again.tokens_in, again.tokens_out)
            try:
                return parse(again.text)
            except ValueError as exc2:
                raise _Malformed(str(exc2), replies) from None

    @staticmethod
    def _count(totals: list[int] | None, tin: int, tout: int) -> None:
        if totals is not None:
            totals[0] += tin
            totals[1] += tout

    def _parse_decision(self, text: str, marks: list[Mark]) -> tuple[Action, str, Mark | None]:
        """The reply's action, thought and the mark it clicks (None: an action of the grammar)."""
        obj = find_json_object(text)
        screen = chosen_return(text, obj)
        if screen is not None:
            self.returns.ask(screen)
            said = " ".join(str(obj.get(k)) for k in ("thought", "rationale") if obj.get(k)) if obj else ""
            return Wait(0.0), f"{said} [return_to({screen}): the program restarts and replays its inputs]".strip(), None
        mark = chosen_mark(text, obj, marks) if marks else None
        if mark is None:
            action, thought = self._parse_action(text)
            return action, thought, None
        thought = " ".join(str(obj.get(k)) for k in ("thought", "rationale", "reasoning") if obj.get(k)) \
            if obj is not None else ""
        return mark.click(), thought.strip()[:1000], mark

    # -- returns (app.engine.testers.llm_returns) ------------------------------------
    def wants_restart(self) -> bool:
        """Asked by the session before each decision: restart the program for a return the model asked for."""
        return self.returns.wants_restart()

    def restarted(self, obs: Observation) -> None:
        """The session restarted the program: the return's inputs replay from here."""
        self.returns.restarted(self._program())

    def _program(self) -> Any:
        return self.ctx.player.target if self.ctx is not None and self.ctx.player is not None else None

    def _frames(self) -> int:
        gated = on_gate(self.ctx.player) if self.ctx is not None else None
        return gated.frames if gated is not None else 0

    def _parse_action(self, text: str) -> tuple[Action, str]:
        obj = find_json_object(text)
        if obj is None:
            return self.parser.parse(text), ""
        notes = [str(obj.pop(k)) for k in _NOTE_FIELDS if k in obj]
        thought = " ".join(notes + [str(obj.get(k)) for k in ("thought", "rationale", "reasoning") if obj.get(k)])
        if isinstance(obj.get("action"), dict):  # {"thought": ..., "action": {"action": "click", ...}}
            obj = {**obj.pop("action"), **{k: v for k, v in obj.items() if k != "action"}}
        return self.parser.from_mapping(obj), thought.strip()[:1000]

    @staticmethod
    def _parse_judgment(text: str) -> tuple[str, int | None, str]:
        obj = find_json_object(text)
        if obj is None:
            raise ValueError('no JSON object found; expected {"verdict": ..., ...}')
        verdict = str(obj.get("verdict", "")).strip().lower()
        verdict = {"passed": "pass", "failed": "fail", "unsure": "uncertain"}.get(verdict, verdict)
        if verdict not in VERDICTS:
            raise ValueError(f'"verdict" must be one of {", ".join(VERDICTS)}')
        step = obj.get("evidence_step")
        step = step if isinstance(step, int) and not isinstance(step, bool) else None
        note = obj.get("note") or obj.get("reason") or ""
        return verdict, step, str(note)[:1000]

    def _give_up(self, step: int, bad: _Malformed) -> NoReturn:
        message = (f"the model gave no usable action at step {step_number(step)}: both its reply and its answer to the "
                   f"re-ask were malformed (last problem: {bad})")
        if self.store is not None and self.run_id is not None:
            finding = Finding("error", message, step, {"replies": [r[:2000] for r in bad.replies]})
            self.store.add_finding(self.run_id, finding.row())
        raise LLMError(f"The LLM tester stopped: {message}; try another model with --model.", "malformed")

    # -- text for the prompts -----------------------------------------------------
    def _spec_name(self) -> str:
        return self.ctx.spec.name if self.ctx is not None else "the program"

    def _kind_text(self) -> str:
        return "game" if self.ctx is not None and self.ctx.spec.kind == "game" else "desktop application"

    def _goal_line(self) -> str:
        goal = self.ctx.spec.goal if self.ctx is not None else ""
        return f"What it is for: {goal}" if goal else ""

    def _history_text(self, sx: float, sy: float) -> str:
        lines = []
        recent = self.history[-HISTORY_LINES:]
        for i, e in enumerate(recent):
            who = " (by the human operator)" if e.human else ""
            line = f"step {e.step}{who}: {action_to_call(to_picture(e.action, sx, sy))} -> " + (
                e.outcome if e.outcome in ("refused", "finish") else bbox_text(e.changed, sx, sy))
            if i >= len(recent) - THOUGHTS_IN_HISTORY and e.thought and not e.human:
                line += f"; thought: {e.thought[:THOUGHT_CHARS]}"
            lines.append(line)
        return "\n".join(lines) or "(none yet: this is the first action)"

    def _trajectory_text(self) -> str:
        shot = self.shots[-1] if self.shots else self.first
        sx, sy = shot.scale(self.rules, self.settings.detail) if shot is not None else (1.0, 1.0)
        lines = [f"step {e.step}{' (human)' if e.human else ''}: {action_to_call(to_picture(e.action, sx, sy))} "
                 f"-> {e.outcome if e.outcome != 'ok' else bbox_text(e.changed, sx, sy)}; "
                 f"thought: {e.thought[:THOUGHT_CHARS]}" for e in self.history[-TRAJECTORY_LINES:]]
        return "\n".join(lines) or "(no actions were taken)"

    @staticmethod
    def _oracle_text(findings: list[Finding]) -> str:
        return "\n".join(f"- step {f.step}: [{f.kind}] {f.message}" for f in findings) or "none fired"

    def _evidence_images(self, last_only: bool = False) -> tuple[list[str | ImagePart], str]:
        parts: list[str | ImagePart] = []
        legend: list[str] = []
        if self.first is not None and not last_only:
            parts += ["Image 1:", self.first.context(self.rules)]
            legend.append("1) the window at the start (small)")
        if self.last_frame is not None:
            last = self.shots[-1] if self.shots and self.shots[-1].frame is self.last_frame \
                else Shot(self.last_frame, len(self.history))
            parts += [f"Image {len(legend) + 1}:", last.main(self.rules, self.settings.detail)]
            legend.append(f"{len(legend) + 1}) the window at the end")
        return parts, "; ".join(legend) + "."
