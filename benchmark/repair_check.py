"""What a claimed fix must also be, in the repair-rate benchmark: a repair, not a silenced symptom.

``playcoder repair`` says *fixed* when the unit tests pass and the testers
pass.  That is what the refiner could see.  The benchmark then checks, with
what the refiner never sees (the unmodified program):

- **behaviour**: the repaired program is played by differential play against
  the bundled app itself (``--tester differential --reference APP``) on
  :data:`BEHAVIOUR_SEEDS`; every run must pass.  A claimed fix that diverges
  from the reference, or whose check cannot answer, is not a fix.
- **no suppression**: a patch that adds an exception handler doing nothing
  (``except ...: pass``) or that only removes statements (the failing write
  deleted) silences the symptom; it is not a fix, whatever the runs say.
- **not a mutation operator undone**: :data:`INVERTING_TEMPLATES` are the
  offline refiner's templates that are the exact inverse of a mutation
  operator (the classic ones of mutation-testing tools, and the edits the
  bundled bugs were built with), each with why.  A fix made by one of them
  says how the bugs were made, not how well the refiner repairs: it is its
  own outcome, *template inverse*, in both halves, and never in the repair
  rate.

Every claimed fix's diff (the buggy variant against the repaired copy) goes
into the results.
"""

from __future__ import annotations

import ast
import difflib
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from app import pysyntax
from app.engine.bench import children
from app.engine.play.targetspec import resolve_target

ROOT = Path(__file__).resolve().parents[1]
BEHAVIOUR_SEEDS = (0, 1, 2)
BEHAVIOUR_TIMEOUT_S = 600
INVERTING_TEMPLATES = {
    "while-to-if": "undoes an `if` turned into a `while`, how the bundled freeze bugs were built",
    "dead-method": "undoes a statement deleted (RemoveStatement): calls again a method whose only call was removed",
    "missing-present": "undoes a statement deleted (RemoveStatement): inserts the removed pygame.display.flip()",
    "index-modulo": "undoes a `% len(...)` removed from an index, how a bundled crash bug was built",
    "swap-operands": "undoes operands swapped (SwapArguments / mutmut's operand swap)",
    "compare-flip": "undoes a comparison replaced (ReplaceComparisonOperator)",
    "arith-flip": "undoes an arithmetic operator replaced (ReplaceBinaryOperator)",
    "off-by-one": "undoes a constant moved by one (NumberReplacer)",
    "boolop-flip": "undoes `and` and `or` swapped (ReplaceAndWithOr)",
    "bool-const": "undoes True and False swapped (ReplaceTrueWithFalse)",
    "assign-aug": "undoes an augmented assignment turned plain or back (mutmut's `+=` -> `=`)",
}
"""Templates whose fix is a mutation operator run backwards, with why; the rest (similar-name, zero-guard,
guard-none, index-clamp, insert-break, try-except) add or rename, and are judged by the checks."""
TEMPLATE_INVERSE = "template inverse"
TEMPLATE = re.compile(r":\d+ ([a-z][a-z-]*):")


def template_of(description: str) -> str:
    """The refiner template named in a patch description (``main.py:94 while-to-if: …``), or ''."""
    found = TEMPLATE.search(description or "")
    return found.group(1) if found else ""


def _sources(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): p.read_text(encoding="utf-8", errors="replace")
            for p in sorted(folder.rglob("*.py"))
            if "bugs" not in p.relative_to(folder).parts and "__pycache__" not in p.parts}


def buggy_sources(variant: str) -> dict[str, str]:
    """The Python files of ``APP@BUG`` as the repair started from them (a scratch copy, patch applied)."""
    resolved = resolve_target(variant)
    try:
        return _sources(resolved.spec.folder)
    finally:
        resolved.cleanup()


def source_diff(before: dict[str, str], after: dict[str, str]) -> str:
    out: list[str] = []
    for name in sorted(set(before) | set(after)):
        a, b = before.get(name, ""), after.get(name, "")
        if a != b:
            out.extend(difflib.unified_diff(a.splitlines(True), b.splitlines(True), f"a/{name}", f"b/{name}"))
    return "".join(out)


def _silent_handlers(tree: ast.AST) -> int:
    def silent(body: list[ast.stmt]) -> bool:
        return all(isinstance(s, (ast.Pass, ast.Continue)) or
                   (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)) for s in body)
    return sum(isinstance(n, ast.ExceptHandler) and silent(n.body) for n in ast.walk(tree))


def _statements(tree: ast.AST) -> Counter[str]:
    return Counter(ast.dump(n) for n in ast.walk(tree)
                   if isinstance(n, ast.stmt) and not isinstance(n, (ast.Pass, ast.FunctionDef, ast.ClassDef,
                                                                     ast.AsyncFunctionDef, ast.If, ast.For,
                                                                     ast.While, ast.With, ast.Try)))


def suppression(before: dict[str, str], after: dict[str, str]) -> str:
    """Why the patch silences the symptom rather than repairing it, or '' when it does not."""
    for name in sorted(set(before) & set(after)):
        if before[name] == after[name]:
            continue
        try:
            a, b = pysyntax.parse(before[name]), pysyntax.parse(after[name])
        except SyntaxError:
            continue
        if _silent_handlers(b) > _silent_handlers(a):
            return f"{name}: the patch adds an exception handler that does nothing (the exception is swallowed)"
        sa, sb = _statements(a), _statements(b)
        if sum(sb.values()) < sum(sa.values()) and not (sb - sa):
            return f"{name}: the patch only removes statements (the failing behaviour is deleted, not repaired)"
    return ""


def candidate_folder(repaired: Path, app: Path, out: Path) -> Path:
    """The app's folder (without ``bugs/``) with the repaired Python sources laid over it: files the repair's
    plays wrote (a saved list, a high-score table) must not make the candidate start elsewhere."""
    shutil.copytree(app, out, ignore=shutil.ignore_patterns("bugs", "__pycache__", "*.pyc"))
    for name, text in _sources(repaired).items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text(text, encoding="utf-8")
    return out


def behaves_like_reference(repaired: Path, app: Path, max_steps: int) -> list[dict[str, Any]]:
    """Differential play of the repaired sources against the bundled app, one run per seed."""
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="playcoder-fix-check-") as tmp:
        candidate = candidate_folder(repaired, app, Path(tmp) / "candidate")
        for seed in BEHAVIOUR_SEEDS:
            runs.append(_play_against(candidate, app, seed, max_steps, Path(tmp) / "behaviour.db"))
            if runs[-1]["verdict"] != "pass":
                break  # one divergence is enough: the fix does not behave as the reference
    return runs


def _play_against(candidate: Path, app: Path, seed: int, max_steps: int, db: Path) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "app", "test", str(candidate), "--tester", "differential", "--reference",
           str(app), "--seed", str(seed), "--max-steps", str(max_steps), "--json", "--db", str(db)]
    proc = children.spawn(cmd, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc is None:
        return {"seed": seed, "verdict": "error", "reason": "interrupted"}
    try:
        out, err = proc.communicate(timeout=BEHAVIOUR_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        children.stop_all([proc])
        out, err = "", f"the check took longer than {BEHAVIOUR_TIMEOUT_S} s"
    finally:
        children.forget(proc)
    lines = [ln for ln in out.splitlines() if ln.startswith("{")]
    try:
        data = json.loads(lines[-1]) if lines else {}
    except ValueError:
        data = {}
    return {"seed": seed, "verdict": data.get("verdict", "error"),
            "reason": str(data.get("reason") or err.strip()[-200:])}


def check_claimed_fix(variant: str, app: Path, repaired: Path, patch: str, max_steps: int) -> dict[str, Any]:
    """Outcome and evidence for a fix the repair claimed: ``fixed``, or why it is not."""
    after = _sources(repaired) if repaired.is_dir() else {}
    before = buggy_sources(variant)
    diff = source_diff(before, after)
    template = template_of(patch)
    found: dict[str, Any] = {"diff": diff, "template": template, "template_inverse": template in INVERTING_TEMPLATES,
                             "behaviour": []}
    why = suppression(before, after)
    if why:
        return {**found, "outcome": "suppressed", "check": why}
    if template in INVERTING_TEMPLATES:
        return {**found, "outcome": TEMPLATE_INVERSE,
                "check": f"made by {template}, which {INVERTING_TEMPLATES[template]}: counted apart, not a repair"}
    found["behaviour"] = behaves_like_reference(repaired, app, max_steps)
    bad = next((r for r in found["behaviour"] if r["verdict"] != "pass"), None)
    if bad is not None:
        return {**found, "outcome": "diverges",
                "check": f"differential play against the reference, seed {bad['seed']}: {bad['verdict']}: "
                         f"{bad['reason']}"}
    return {**found, "outcome": "fixed",
            "check": f"behaves as the reference under differential play, seeds {', '.join(map(str, BEHAVIOUR_SEEDS))}"}
