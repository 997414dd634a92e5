"""What the refiner sees: built from the program copy and the run's findings only.

Every bundled bug variant is repaired by the real LLM refiner over the real
openai SDK against a local chat-completions server, through the CLI's own
`materialise` and `build_loop`; every request body is recorded and searched
for the bug id and for the *distinctive* words of the bug's description
(words that are neither in the app's source nor common English, computed
here).  To keep it fast the plays are a stand-in that records a run in the
store the way a session does (a finding, a frame, a program log whose
traceback names the copy by absolute paths, including an old-style temporary
folder that carried the bug id), and a unit-test report is reused between
variants whose tested files are identical; the unit-test runs, the
diagnosis, the prompts and the model calls are real.  One variant per kind of evidence is also
repaired end to end through `python -m app repair` with real plays.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import re
import subprocess
import sys
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from app import pysyntax
from app.commands.repair import build_loop, materialise
from app.engine.play.display import ISOLATED
from app.engine.play.targetspec import BugInfo, list_apps, load_bugs
from app.engine.repair.loop import PlayOutcome, RepairLoop
from app.engine.repair.sandbox import Workspace
from app.engine.repair.tools import TestReport as UnitTestReport, UnitTestRunner
from app.engine.trace.store import TrajectoryStore

from suite import APPS, ROOT, needs_xvfb
from llm_servers import OpenAIServer, Recorded, Reply

WORD = re.compile(r"[a-z]{4,}")
COMMON_ENGLISH = frozenset("""
    about above after again against almost already also although always another anything appear appears area
    around asks away back because been before being below best better between both bottom call called calls
    came cannot change changed changes changing check checks click clicks close closes come comes continue
    continuing could count current does doing done down drawn during each either else empty ends enough even
    ever every everything exist extra first five four from gets give given goes going gone good half happened
    have having here high hold into itself just keep keeps kept know large last later least leaves leaving
    left less like line list long longer look looking looks lost lower made make makes many maps more most
    much must near neither never next none nothing number numbers once only onto open other others outside
    over part place placed point really reads right same says second seen should shown since single some
    something stay stays still stop stops such take takes than that their them then there these they thing
    third this those three through time times together took under unchanged until upon used uses using very
    want wait well were what when where which while whole whose will with without work works would wrong
    your instead returns return
""".split())
"""Function words and everyday words: not distinctive of any bug (the rest of a description is)."""


# -- distinctive words -----------------------------------------------------------------------------
def _words(text: str) -> set[str]:
    return set(WORD.findall(text.lower()))


def _source_words(folder: Path) -> set[str]:
    return _words(" ".join(p.read_text(encoding="utf-8", errors="ignore") for p in sorted(folder.rglob("*"))
                           if p.is_file() and "bugs" not in p.relative_to(folder).parts
                           and p.suffix in (".py", ".toml", ".md", ".txt")))


def _string_constants(path: Path) -> str:
    return " ".join(n.value for n in ast.walk(ast.parse(path.read_text()))
                    if isinstance(n, ast.Constant) and isinstance(n.value, str))


PROMPT_WORDS = _words(" ".join(p.read_text() for p in (ROOT / "resources" / "prompts").glob("repair_*.md")))
"""The fixed text of every repair prompt."""
ENGINE_WORDS = _words(" ".join(_string_constants(ROOT / "app" / "engine" / "repair" / name)
                               for name in ("diagnosis.py", "loop.py", "checks.py", "oracle_guard.py")))
"""The fixed text the engine writes a diagnosis, its notes and the gate's reasons with."""
FINDING = "the program printed a traceback and kept running"
EXCEPTION = "RuntimeError: something went wrong"
CRITERION_NOTE = "case 1, step 0: region [0, 0, 10, 10] did not change"
RUN_WORDS = _words(" ".join([FINDING, EXCEPTION, CRITERION_NOTE, "Traceback (most recent call last) started seed"]))
"""What the stand-in play recorded: the run's findings, which the refiner is meant to see."""


def distinctive_words(app: Path, bug: BugInfo, work: Path | None = None) -> set[str]:
    """Words of the bug's description and repro that are in neither the app's source nor common English."""
    known = _source_words(app) | (_source_words(work) if work is not None else set()) | COMMON_ENGLISH | PROMPT_WORDS \
        | ENGINE_WORDS | RUN_WORDS
    return _words(" ".join([bug.description, *bug.repro])) - known


def request_text(body: Any) -> str:
    """Every string of a request body except image data (which is base64, not words)."""
    if isinstance(body, dict):
        return "\n".join(request_text(v) for k, v in body.items() if k not in ("url", "data", "image_url"))
    if isinstance(body, list):
        return "\n".join(request_text(v) for v in body)
    return body if isinstance(body, str) else ""


def leaks(text: str, bug_id: str, distinctive: set[str]) -> list[str]:
    found = [bug_id] if bug_id.lower() in text.lower() else []
    return found + sorted(distinctive & _words(text))


VARIANTS = [(app, bug) for app in list_apps() for bug in load_bugs(app)]


def test_the_leak_detector_would_catch_a_description():
    """The check below has teeth: nearly every description has words that would give it away."""
    with_words = [bug.id for app, bug in VARIANTS if distinctive_words(app, bug)]
    assert len(VARIANTS) >= 50 and len(with_words) >= 0.6 * len(VARIANTS), (len(with_words), len(VARIANTS))
    app, bug = next((a, b) for a, b in VARIANTS if b.id == "equals-hangs")
    assert leaks(f"The program fails: {bug.description}", bug.id, distinctive_words(app, bug))
    assert leaks("The program \"calculator@equals-hangs\" fails", bug.id, set())


# -- the stand-in play ------------------------------------------------------------------------------------
def _first_function(source: str) -> tuple[int, str]:
    for node in ast.walk(pysyntax.parse(source)):  # beside repairs in other threads
        if isinstance(node, ast.FunctionDef):
            return node.lineno, node.name
    return 1, "<module>"


def stand_in_play(self: RepairLoop) -> PlayOutcome:
    """Record a failing run like a session would: a step with a frame, an exception finding, a log, a criterion."""
    store, root = self.store, self.workspace.root
    line, func = _first_function(self.workspace.read_text("main.py"))
    # A traceback as a program prints it, naming its copy by absolute paths — the repair copy, and an
    # old-style temporary folder whose name carried the label (what must never reach a prompt).
    label_dir = f"/tmp/playcoder-{self.config.target.replace('@', '-')}-x1/{root.name}"
    tb = ["Traceback (most recent call last):", f'  File "{root}/main.py", line {line}, in {func}',
          f'  File "{label_dir}/main.py", line {line}, in {func}', EXCEPTION]
    run = store.create_run(kind="test", target=root.name, target_path=str(root), tester="offline", seed=0,
                           max_steps=1)
    t0 = float(store.run(run)["started_at"])
    frame = store.put_image(Image.new("RGB", (64, 48), (20, 120, 200)))
    message = FINDING
    store.add_step(run, 0, {"action": {"action": "press", "key": "space"}, "outcome": "ok", "rationale": "explore",
                            "frame_before": frame, "frame_after": frame, "findings": ["exception"],
                            "started_at": t0 + 0.1, "ended_at": t0 + 0.4},
                   [{"step": 0, "kind": "exception", "message": message, "evidence": {"log": tb}}])
    store.add_logs(run, [("stdout", t0 + 0.05, f"{root.name} started seed=0")]
                   + [("stderr", t0 + 0.2, text) for text in tb])
    spec = tomllib.loads(self.workspace.read_text("playcoder.toml"))
    criterion = (spec.get("criteria") or [{"id": "works"}])[0]["id"]
    store.finish_run(run, status="completed", verdict="fail", reason=f"exception at step 0: {message}")
    store.add_judgment(run, source="tester", author="tester", verdict="fail", criterion=criterion,
                       note=CRITERION_NOTE)
    self.runs.append(run)
    return PlayOutcome([run], "fail", f"offline: fail — exception at step 0: {message}")


_REAL_TEST_RUN = UnitTestRunner.run
_TEST_REPORTS: dict[str, UnitTestReport] = {}


def reused_test_run(self: UnitTestRunner, workspace: Workspace, extra_args: Any = (), limits: Any = None) -> UnitTestReport:
    """The real unit-test run, reused between variants whose tested files are identical.

    The bundled apps' unit tests import the logic modules only, never ``main.py`` (benchmark/apps/README.md), so
    variants that differ only in ``main.py`` get the same report; it is still a real pytest run of that code.
    """
    key = hashlib.sha256("\0".join(f"{rel}\0{workspace.read_text(rel)}" for rel in workspace.files((".py",))
                                    if rel != "main.py").encode()).hexdigest()
    if key not in _TEST_REPORTS:
        _TEST_REPORTS[key] = _REAL_TEST_RUN(self, workspace, extra_args, limits)
    return _TEST_REPORTS[key]


def no_patch(rec: Recorded) -> Reply:
    if "Now write the patch" in rec.prompt():
        return Reply("I would rather not write a patch.", (300, 10))
    return Reply("The root cause is unclear from what I see.", (900, 20))


def repair_variant(server: OpenAIServer, index: int, app: Path, bug: BugInfo, tmp: Path) -> tuple[Path, str]:
    """One repair of ``app@bug`` exactly as `playcoder repair --refiner llm --max-iterations 1` builds it."""
    parent = tmp / f"v{index}"
    parent.mkdir()
    work, label = materialise(f"{app.name}@{bug.id}", parent)
    args = argparse.Namespace(reference=None, refiner="llm", provider="compatible", model=f"fixer-{index}",
                              base_url=server.base_url, max_iterations=1, tester="offline", max_steps=1, seed=0,
                              display=ISOLATED, json=True)
    store = TrajectoryStore(parent / "r.db")
    try:
        result = build_loop(args, store, work, label).run()
    finally:
        store.close()
    return work, f"{result.final_verdict}: {[c.outcome for c in result.cycles]}"


@pytest.mark.parametrize("app", list_apps(), ids=lambda p: p.name)
def test_no_prompt_of_any_variant_names_the_bug(app, tmp_path, monkeypatch):
    monkeypatch.setattr(RepairLoop, "play", stand_in_play)
    monkeypatch.setattr(UnitTestRunner, "run", reused_test_run)
    variants = [(i, bug) for i, (a, bug) in enumerate(VARIANTS) if a == app]
    with OpenAIServer() as server:
        server.responder = no_patch
        with ThreadPoolExecutor(max_workers=2) as pool:
            done = list(pool.map(lambda item: repair_variant(server, item[0], app, item[1], tmp_path), variants))
        requests = list(server.requests)
    for (index, bug), (work, outcome) in zip(variants, done):
        mine = [r for r in requests if r.body.get("model") == f"fixer-{index}"]
        # the diagnosis call and the patch call (a retried call under load is one more request to check)
        assert len(mine) >= 2 and any("Now write the patch" in r.prompt() for r in mine), (bug.id, outcome, len(mine))
        distinctive = distinctive_words(app, bug, work)
        for rec in mine:
            text = request_text(rec.body)
            assert not leaks(text, bug.id, distinctive), (bug.id, leaks(text, bug.id, distinctive))
            assert "/tmp/" not in text and "playcoder-" not in text, bug.id
        first = mine[0].prompt()
        assert f'The program "{app.name}" fails' in first and "something went wrong" in first
        assert f"at main.py:{_first_function((work / 'main.py').read_text())[0]}" in first


def recorded_words(db: Path, runs: list[int]) -> set[str]:
    """Every word the play runs recorded: reasons, findings with their evidence, logs, judgment notes."""
    store = TrajectoryStore(db)
    try:
        texts: list[str] = []
        for run in runs:
            row = store.run(run)
            texts += [str(row.get("reason") or ""), str(row.get("error") or "")]
            texts += [f"{f['message']} {json.dumps(f.get('evidence'))}" for f in store.findings(run)]
            texts += [str(r["text"]) for r in store.logs(run)]
            texts += [str(j.get("note") or "") for j in store.judgments(run)]
    finally:
        store.close()
    return _words(" ".join(texts))


# -- end to end: the real CLI, real plays ---------------------------------------------------------------
E2E_VARIANTS = ("calculator@wrong-subtraction", "tiles2048@crash-on-restart", "converter@swap-typo")
"""Failing unit tests; a crash with a traceback; a printed exception while the program runs."""


@needs_xvfb
@pytest.mark.parametrize("target", E2E_VARIANTS)
def test_cli_repair_requests_carry_no_bug_id(target, tmp_path):
    app_name, _, bug_id = target.partition("@")
    app = APPS / app_name
    bug = next(b for b in load_bugs(app) if b.id == bug_id)
    with OpenAIServer() as server:
        server.responder = no_patch
        proc = subprocess.run(
            [sys.executable, "-m", "app", "repair", target, "--refiner", "llm", "--provider", "compatible",
             "--model", "fixer", "--base-url", server.base_url, "--max-iterations", "1", "--max-steps", "12",
             "--json", "--db", str(tmp_path / "r.db"), "--out", str(tmp_path / "out")],
            capture_output=True, text=True, timeout=280, cwd=ROOT)
        requests = list(server.requests)
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert summary["target"] == target and len(requests) == 2, (summary, proc.stderr[-2000:])
    # The real runs' findings, logs and judgments are what the refiner is meant to see (a real traceback says
    # "AttributeError"); a distinctive word anywhere else in a request came from somewhere it must not.
    distinctive = distinctive_words(app, bug, tmp_path / "out") - recorded_words(tmp_path / "r.db", summary["runs"])
    for rec in requests:
        text = request_text(rec.body)
        assert not leaks(text, bug_id, distinctive), leaks(text, bug_id, distinctive)
        assert "/tmp/" not in text, re.findall(r"/tmp/\S+", text)[:3]
