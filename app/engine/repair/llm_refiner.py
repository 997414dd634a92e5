"""The LLM PlayRefiner: the paper's five phases with a model.

1. diagnosis — the findings, the frames of the failing steps (as images;
   recorded by hash), the unit-test failures and code context gathered with
   the tools (:class:`ContextSearchTool`, :class:`FileReadTool`) go to the
   model, which explains the root cause;
2. patch generation — the model answers with SEARCH/REPLACE blocks or a
   unified diff (minimal edits), parsed by :mod:`~app.engine.repair.patching`;
3. atomic application, 4. build and runtime validation, 5. behavioural
   re-test — done by the loop (:mod:`~app.engine.repair.loop`) exactly as
   for the offline refiner: staging copy, gate, swap, PlayTester run.

The model sees the program copy (named by its folder) and the diagnosis,
nothing else: no target label, bug id or bug metadata reaches a prompt.

A malformed answer is no crash: the proposal carries the error, the loop
records it with the cycle and tells the model about it next iteration.
"""

from __future__ import annotations

import re

from app.engine.errors import UserError
from app.engine.repair.chat import ChatModel, ChatTurn, load_prompt
from app.engine.repair.diagnosis import Diagnosis
from app.engine.repair.patching import PatchError, extract_edits
from app.engine.repair.proposal import Proposal
from app.engine.repair.sandbox import PROGRAM_SUFFIXES, Workspace
from app.engine.repair.tools import ContextSearchTool, FileReadTool, TestReport
from app.engine.trace.store import TrajectoryStore

MAX_CONTEXT_CHARS = 24000
"""Below this the whole program (tests excluded) is shown; above, windows around the locations."""
WINDOW_LINES = 25
MAX_IMAGES = 2
IDENTIFIER = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]{3,})\b")


class LLMRefiner:
    name = "llm"

    def __init__(self, model: ChatModel, *, max_iterations: int = 6, max_context_chars: int = MAX_CONTEXT_CHARS) -> None:
        self.model = model
        self.max_iterations = max_iterations
        self.max_context_chars = max_context_chars
        self.system = load_prompt("repair_system").template
        self.diagnosis_prompt = load_prompt("repair_diagnosis")
        self.patch_prompt = load_prompt("repair_patch").template

    def begin(self, store: TrajectoryStore, session_run: int) -> None:
        attach = getattr(self.model, "attach", None)
        if callable(attach):
            attach(store, session_run)

    def propose(self, diag: Diagnosis, workspace: Workspace, iteration: int, baseline: TestReport | None) -> Proposal:
        ask = self.diagnosis_prompt.substitute(
            iteration=iteration, max_iterations=self.max_iterations, program=workspace.root.name,
            diagnosis=diag.text(), context=self.code_context(diag, workspace))
        images = tuple(diag.frame_hashes()[-MAX_IMAGES:])
        first = ChatTurn("user", ask, images)
        tokens = 0
        try:
            analysis, tin, tout = self.model.complete([first], system=self.system, phase="repair_diagnosis")
            tokens += tin + tout
            answer, tin, tout = self.model.complete(
                [first, ChatTurn("assistant", analysis), ChatTurn("user", self.patch_prompt)],
                system=self.system, phase="repair_patch")
            tokens += tin + tout
        except UserError as exc:
            return Proposal({}, "the model call failed", tokens=tokens, error=str(exc))
        try:
            edits = extract_edits(answer, workspace)
        except PatchError as exc:
            return Proposal({}, "the model's patch could not be used", tokens=tokens,
                            error=f"malformed patch from the model: {exc}", analysis=analysis,
                            log=[answer[:2000]])
        changed = {rel: text for rel, text in edits.items()
                   if not workspace.resolve(rel).is_file() or workspace.read_text(rel) != text}
        if not changed:
            return Proposal({}, "the model's patch changes nothing", tokens=tokens,
                            error="the model's patch leaves every file as it was", analysis=analysis)
        summary = _first_sentence(analysis)
        return Proposal(changed, f"model patch to {', '.join(sorted(changed))}: {summary}", tokens=tokens,
                        analysis=analysis)

    def rejected(self, proposal: Proposal, why: str) -> None:
        """The loop puts the reason into the next diagnosis (``Diagnosis.notes``); nothing to keep here."""

    # -- context from the tools ---------------------------------------------------------
    def code_context(self, diag: Diagnosis, workspace: Workspace) -> str:
        reader = FileReadTool(workspace)
        program = [f for f in workspace.files(PROGRAM_SUFFIXES) if not f.split("/")[-1].startswith("test_")]
        total = sum(len(workspace.read_text(f)) for f in program)
        if total <= self.max_context_chars:
            return "\n\n".join(f"### {f}\n```{_fence(f)}\n{reader.read(f, 1, 10**6)}\n```" for f in program)
        spots = [(fr.path, fr.line) for fr in diag.frames + diag.test_frames]
        words = set(IDENTIFIER.findall(diag.exception_message + " " + " ".join(f.message for f in diag.findings)))
        search = ContextSearchTool(workspace)
        for word in sorted(words)[:8]:
            spots.extend((h.path, h.line) for h in search.search(rf"\b{re.escape(word)}\b", max_hits=3))
        out, used = [], 0
        for path, line in dict.fromkeys(spots):
            chunk = f"### {path} (around line {line})\n```{_fence(path)}\n" \
                    f"{reader.read(path, line - WINDOW_LINES, line + WINDOW_LINES)}\n```"
            if used + len(chunk) > self.max_context_chars:
                break
            out.append(chunk)
            used += len(chunk)
        if not out:
            out = [f"### {f}\n```{_fence(f)}\n{reader.read(f, 1, 120)}\n```" for f in program[:3]]
        return "\n\n".join(out)


def _first_sentence(text: str) -> str:
    flat = " ".join(text.split())
    m = re.match(r"(.{10,200}?[.!?])(\s|$)", flat)
    return m.group(1) if m else flat[:200]


FENCES = {".py": "python", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "jsx",
          ".ts": "typescript", ".tsx": "tsx", ".html": "html", ".css": "css"}


def _fence(path: str) -> str:
    """The code fence's language for a file shown to the model."""
    return FENCES.get("." + path.rsplit(".", 1)[-1] if "." in path else "", "")
