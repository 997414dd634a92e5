"""PlayDeveloper: write a function of a program from a requirement, with a model.

Given a task (program folder, file, function signature, requirement text)
the model writes the function; the code is taken from its ```python block,
checked to define the requested function with the requested parameters,
put into the file (replacing an existing definition of that name, or
appended), and validated (syntax, compile, imports) before the write is
kept — through the same staging-copy application as a refiner's patch.
The program then goes to PlayTester and, when it fails, to PlayRefiner.
The model sees the task and the file, named relative to the program folder;
the program's oracles (unit tests, ``playcoder.toml``, reference pictures)
are not written.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from app import pysyntax
from app.engine.errors import UserError
from app.engine.repair.chat import ChatModel, ChatTurn, load_prompt
from app.engine.repair.oracle_guard import OracleGuard
from app.engine.repair.patching import apply_atomically
from app.engine.repair.sandbox import Workspace
from app.engine.repair.tools import ValidationReport, Validator

CODE_BLOCK = re.compile(r"```(?:python|py)?\s*\n(.*?)```", re.DOTALL)


class DeveloperError(UserError):
    """The model's code could not be used; the message says why."""


@dataclass(frozen=True)
class DevTask:
    folder: Path
    file: str
    signature: str
    """e.g. ``def apply(op, a, b):``"""
    requirement: str


@dataclass
class DevResult:
    file: str
    function: str
    code: str
    validation: ValidationReport
    tokens: int
    diff: str


class PlayDeveloper:
    def __init__(self, model: ChatModel, validator: Validator) -> None:
        self.model = model
        self.validator = validator
        self.prompt = load_prompt("developer")

    def develop(self, task: DevTask) -> DevResult:
        workspace = Workspace(task.folder)
        if OracleGuard.of(workspace).protects(workspace.relative(task.file)):
            raise DeveloperError(f"{task.file} is one of the program's oracles (unit tests, playcoder.toml, reference "
                                 "pictures, tests folders); PlayDeveloper writes program files only.")
        name, params = _parse_signature(task.signature)
        path = workspace.resolve(task.file)
        existing = path.read_text(encoding="utf-8") if path.is_file() else ""
        ask = self.prompt.substitute(folder=workspace.root.name, requirement=task.requirement, file=task.file,
                                     signature=task.signature.strip(), existing=existing or "# (new file)")
        answer, tin, tout = self.model.complete([ChatTurn("user", ask)], phase="develop")
        code = _extract_function(answer, name, params)
        new_text = _place(existing, code, name)
        applied, report = apply_atomically(workspace, {task.file: new_text},
                                           lambda ws: self.validator.validate(ws, [task.file]))
        if applied is None:
            bad = report.first_failure()
            raise DeveloperError(f"the model's code for {name}() does not pass the {bad.stage if bad else 'build'} "
                                 f"check: {(bad.output if bad else '').strip().splitlines()[-1:] or ['']}"[:300])
        return DevResult(task.file, name, code, report, tin + tout, applied.diff)


def _parse_signature(signature: str) -> tuple[str, list[str]]:
    text = signature.strip()
    if not text.endswith(":"):
        text += ":"
    try:
        fn = pysyntax.parse(text + "\n    pass\n").body[0]
    except SyntaxError:
        raise DeveloperError(f"{signature!r} is not a Python function signature; write it like 'def f(a, b):'.") \
            from None
    if not isinstance(fn, ast.FunctionDef):
        raise DeveloperError(f"{signature!r} is not a function signature; write it like 'def f(a, b):'.")
    return fn.name, [a.arg for a in fn.args.args]


def _extract_function(answer: str, name: str, params: list[str]) -> str:
    blocks = CODE_BLOCK.findall(answer) or [answer]
    for block in blocks:
        try:
            tree = pysyntax.parse(block)
        except SyntaxError:
            continue
        fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name), None)
        if fn is None:
            continue
        if [a.arg for a in fn.args.args] != params:
            raise DeveloperError(f"the model wrote {name}({', '.join(a.arg for a in fn.args.args)}) but the task "
                                 f"asks for {name}({', '.join(params)}).")
        return block.strip() + "\n"
    raise DeveloperError(f"the model's answer holds no valid Python definition of {name}(); nothing was written.")


def _place(existing: str, code: str, name: str) -> str:
    """``existing`` with the top-level ``def name`` replaced by ``code``, or ``code`` appended."""
    if existing.strip():
        try:
            tree = pysyntax.parse(existing)
        except SyntaxError:
            tree = None
        if tree is not None:
            for node in tree.body:
                if isinstance(node, ast.FunctionDef) and node.name == name:
                    lines = existing.splitlines(keepends=True)
                    start = min([d.lineno for d in node.decorator_list] + [node.lineno]) - 1
                    return "".join(lines[:start]) + code + "".join(lines[node.end_lineno or node.lineno:])
        return existing.rstrip("\n") + "\n\n\n" + code
    return code
