"""The offline PlayRefiner: search-based repair over mutation templates, no model, no network.

It sees only the program copy, its unit tests and the play runs (never a
benchmark's bug metadata or patches), and never mutates the program's oracles
(unit tests, ``playcoder.toml``, reference pictures, tests folders).

Its templates and fix patterns may be improved against the *tuning* half of
the bundled bugs only (:mod:`app.engine.bench.split`); the *held-out* half
measures them.  Candidates come from
:mod:`~app.engine.repair.mutations`, ranked by where the failure points
(:mod:`~app.engine.repair.localize`):

* a traceback (crash or printed exception): its frames, deepest first, with
  templates chosen by the exception type;
* failing unit tests: Ochiai-ranked lines from per-test coverage;
* a failure without a location (freeze, no response, blank): program-level
  fix patterns first, then each template over the statically ranked lines
  (template-major order, since no line is much likelier than another).

Each candidate goes through the gate (build, then unit tests) in a
throwaway copy; the first that passes is proposed for a re-test by the
PlayTester.  Candidates are never proposed twice.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from dataclasses import dataclass
from typing import Iterable, Iterator

from app import pysyntax
from app.engine.repair.checks import Gate
from app.engine.repair.diagnosis import Diagnosis
from app.engine.repair.localize import (
    Location, merge, spectrum_locations, static_locations, tested_modules, traceback_locations,
)
from app.engine.repair.mutations import Mutation, Mutator, referenced_names
from app.engine.repair.oracle_guard import OracleGuard
from app.engine.repair.proposal import Proposal
from app.engine.repair.sandbox import Executor, Limits, Workspace
from app.engine.repair.tools import TestReport, UnitTestRunner, Validator
from app.engine.trace.store import TrajectoryStore

EXPRESSION_TEMPLATES = ("swap-operands", "compare-flip", "arith-flip", "boolop-flip", "bool-const", "negate",
                        "off-by-one", "assign-aug", "similar-name")
BY_EXCEPTION = {
    "IndexError": ("index-modulo", "index-clamp", "off-by-one"),
    "KeyError": ("similar-name",),
    "ZeroDivisionError": ("zero-guard", "swap-operands"),
    "AttributeError": ("similar-name", "guard-none"),
    "TypeError": ("guard-none", "swap-operands"),
    "NameError": ("similar-name",),
    "UnboundLocalError": ("similar-name",),
}
CRASH_TAIL = ("guard-none", "try-except", "delete")
BY_KIND = {
    "freeze": ("while-to-if", "insert-break", "negate", "compare-flip", "off-by-one", "delete"),
    "no-response": ("similar-name", "compare-flip", "negate", "bool-const", "delete"),
    "blank": ("similar-name", "bool-const", "negate", "delete"),
}
GENERIC_KIND = ("similar-name", "compare-flip", "negate", "bool-const", "off-by-one", "delete")
MAX_LOCATIONS = 30
MAX_CANDIDATES = 200
SEARCH_BUDGET_S = 120.0
MAX_LOG = 25
DIR_LIMITS = Limits(wall_s=20.0, cpu_s=20)
CANDIDATE_TEST_FACTOR = 4.0
MIN_CANDIDATE_TEST_S = 10.0
"""A mutant's unit tests get 4x the time the unmutated tests took (at least 10 s): mutants that loop
forever are common and must not eat the search budget."""


@dataclass(frozen=True)
class Candidate:
    mutation: Mutation
    source: str  # traceback | tests | pattern | static


class OfflineRefiner:
    name = "offline"

    def __init__(self, executor: Executor, validator: Validator, tests: UnitTestRunner, *,
                 max_candidates: int = MAX_CANDIDATES, budget_s: float = SEARCH_BUDGET_S) -> None:
        self.executor = executor
        self.validator = validator
        self.tests = tests
        self.max_candidates = max_candidates
        self.budget_s = budget_s
        self.tried: set[str] = set()
        self._dirs: dict[str, list[str]] = {}
        self._workspace: Workspace | None = None

    # -- the search ----------------------------------------------------------------
    def propose(self, diag: Diagnosis, workspace: Workspace, iteration: int, baseline: TestReport | None) -> Proposal:
        self._workspace = workspace
        started = time.monotonic()
        log: list[str] = []
        checked = 0
        wall = max(MIN_CANDIDATE_TEST_S, CANDIDATE_TEST_FACTOR * (baseline.seconds if baseline is not None else 0.0))
        limits = Limits(wall_s=wall, cpu_s=int(wall) + 1)
        guard = OracleGuard.of(workspace)
        with self.executor.copy_of(workspace) as staging:
            for cand in self.candidates(diag, workspace):
                m = cand.mutation
                key = _key(m)
                if key in self.tried:
                    continue
                if checked >= self.max_candidates or time.monotonic() - started > self.budget_s:
                    log.append(f"stopped after {checked} candidates ({time.monotonic() - started:.0f} s)")
                    return Proposal({}, "the search budget ran out", error=log[-1], log=log[-MAX_LOG:])
                self.tried.add(key)
                checked += 1
                original = staging.read_text(m.path)
                staging.write_text(m.path, m.new_source)
                gate = Gate(self.validator, self.tests, baseline, files=[m.path], limits=limits, guard=guard,
                            require_improvement=cand.source == "tests" or (diag.tests_failed and not diag.tester_failed))
                result = gate(staging)
                staging.write_text(m.path, original)
                if result.ok:
                    log.append(f"{m.description}: {result.reason}")
                    return Proposal({m.path: m.new_source}, f"{m.description} ({cand.source}, candidate {checked})",
                                    result, log=log[-MAX_LOG:])
                log.append(f"{m.description}: {result.reason}")
        return Proposal({}, "no candidate passed the build and unit-test gate",
                        error=f"none of the {checked} new candidates passed the build and unit-test gate",
                        log=log[-MAX_LOG:], exhausted=True)

    def begin(self, store: TrajectoryStore, session_run: int) -> None:
        """No model calls to record."""

    def rejected(self, proposal: Proposal, why: str) -> None:
        """Nothing to undo: a proposed candidate is already in ``tried`` and will not come back."""

    # -- candidates ----------------------------------------------------------------
    def candidates(self, diag: Diagnosis, workspace: Workspace) -> Iterator[Candidate]:
        self._workspace = workspace
        guard = OracleGuard.of(workspace)
        program = [f for f in workspace.files((".py",)) if not guard.protects(f)]
        mutators: dict[str, Mutator | None] = {}

        def mutator(path: str) -> Mutator | None:
            if guard.protects(path):
                return None  # the oracles are read-only: never a candidate
            if path not in mutators:
                try:
                    mutators[path] = Mutator(path, workspace.read_text(path), self.module_names)
                except (OSError, SyntaxError, UnicodeDecodeError):
                    mutators[path] = None
            return mutators[path]

        if diag.tester_failed and diag.frames:
            templates = BY_EXCEPTION.get(diag.exception, ()) + EXPRESSION_TEMPLATES + CRASH_TAIL
            yield from self._location_major(traceback_locations(diag.frames), templates, mutator, "traceback")
        if diag.tests_failed:
            locs = merge(traceback_locations(diag.test_frames), spectrum_locations(self.executor, workspace))
            yield from self._location_major(locs, EXPRESSION_TEMPLATES + ("delete",), mutator, "tests")
        if diag.tester_failed and not diag.frames:
            kind = diag.primary_kind
            used: dict[str, set[str]] = {}
            for path in workspace.files((".py",)):
                try:
                    used[path] = referenced_names(pysyntax.parse(workspace.read_text(path)), workspace.read_text(path))
                except (SyntaxError, UnicodeDecodeError):
                    used[path] = set()
            for path in program:
                mut = mutator(path)
                if mut is None:
                    continue
                patterns: Iterable[Mutation] = ()
                if kind == "no-response":
                    patterns = mut.dead_method_calls(set().union(*(v for k, v in used.items() if k != path)))
                elif kind == "blank":
                    patterns = mut.missing_present()
                yield from (Candidate(m, "pattern") for m in patterns)
            tested = tested_modules(workspace) if not diag.tests_failed else set()
            locs = static_locations(workspace, kind, program, diag.criterion_words(), tested)[:MAX_LOCATIONS]
            for template in BY_KIND.get(kind, GENERIC_KIND):
                for loc in locs:
                    mut = mutator(loc.path)
                    if mut is not None:
                        yield from (Candidate(m, "static") for m in mut.at_line(loc.line, (template,)))

    def _location_major(self, locs: list[Location], templates: tuple[str, ...], mutator: object,
                        source: str) -> Iterator[Candidate]:
        for loc in locs[:MAX_LOCATIONS]:
            mut = mutator(loc.path)  # type: ignore[operator]
            if mut is not None:
                yield from (Candidate(m, source) for m in mut.at_line(loc.line, templates))

    def module_names(self, module: str) -> list[str]:
        """The public names of an installed module, looked up once in the sandbox."""
        if module not in self._dirs:
            names: list[str] = []
            if self._workspace is not None and module.replace(".", "").replace("_", "").isalnum():
                code = f"import importlib, json; print(json.dumps(dir(importlib.import_module({module!r}))))"
                res = self.executor.run_in_copy(self._workspace, [sys.executable, "-c", code], limits=DIR_LIMITS,
                                                env={"PYGAME_HIDE_SUPPORT_PROMPT": "1"})
                lines = res.stdout.strip().splitlines()
                if res.ok and lines:
                    try:
                        names = [n for n in json.loads(lines[-1]) if not n.startswith("_")]
                    except ValueError:
                        names = []
            self._dirs[module] = names
        return self._dirs[module]


def _key(m: Mutation) -> str:
    return m.path + ":" + hashlib.sha256(m.new_source.encode()).hexdigest()
