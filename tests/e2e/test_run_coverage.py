"""Coverage recorded with a run: per step in SQLite, in the --json summary and in the HTML report."""

from __future__ import annotations

import json
import subprocess
import sys

from app.engine.play.inside import own_lines
from app.engine.trace.coverage import START_STEP, compact, expand
from app.engine.trace.report import render_html_report
from app.engine.trace.store import TrajectoryStore

from suite import ROOT, TARGETS, needs_xvfb


def test_lines_are_kept_as_ranges():
    assert compact([5, 1, 2, 3, 9, 10, 3]) == "1-3,5,9-10"
    assert expand("1-3,5,9-10") == [1, 2, 3, 5, 9, 10]
    assert compact([]) == "" and expand("") == [] and expand("4,x,7-8") == [4, 7, 8]


def test_store_keeps_each_steps_lines_and_the_runs_files(db_path):
    store = TrajectoryStore(db_path)
    run = store.create_run(target="t", tester="offline", display="isolated", seed=0)
    store.update_run(run, seen_through="inside")
    store.set_coverage_files(run, {"main.py": [1, 2, 3, 4, 5, 8], "lib/util.py": [1, 2]})
    store.add_coverage(run, START_STEP, {"main.py": [1, 2]})
    store.add_coverage(run, 0, {"main.py": [4, 5], "lib/util.py": [2]})
    assert store.step_coverage(run, 0) == {"lib/util.py": [2], "main.py": [4, 5]}
    assert store.step_coverage(run, 1) == {}
    assert store.coverage_by_step(run) == {START_STEP: 2, 0: 3}
    files = {f.file: f for f in store.run_coverage(run)}
    assert files["main.py"].hit == (1, 2, 4, 5) and files["main.py"].missed == (3, 8)
    page = render_html_report(store, run)
    assert "5</b> of 8 lines" in page and "<code>3,8</code>" in page and 'href="#step-0">#0</a> +3' in page


@needs_xvfb
def test_a_python_programs_run_records_its_coverage(db_path):
    proc = subprocess.run([sys.executable, "-m", "app", "test", str(TARGETS / "inside_tk"), "--max-steps", "4",
                           "--json", "--db", str(db_path)], capture_output=True, text=True, timeout=120, cwd=ROOT)
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    total = len(own_lines(TARGETS / "inside_tk")["main.py"])
    assert summary["coverage"]["total"] == total and 0 < summary["coverage"]["lines"] < total, summary
    store = TrajectoryStore(db_path)
    run = store.run(summary["run_id"])
    assert run["seen_through"] == "inside"
    start = store.step_coverage(run["id"], START_STEP)["main.py"]
    assert 1 in start and len(start) <= summary["coverage"]["lines"]
    assert sum(store.coverage_by_step(run["id"]).values()) == summary["coverage"]["lines"]
    assert "id=coverage" in render_html_report(store, run["id"])


def test_coverage_travels_in_a_trace_bundle(tmp_path):
    from app.engine.trace.bundle import export_bundle
    from app.engine.trace.bundle_import import import_bundle

    store = TrajectoryStore(tmp_path / "a.db")
    run = store.create_run(target="t", tester="offline", display="isolated", seed=0, seen_through="inside")
    store.set_coverage_files(run, {"main.py": [1, 2, 3]})
    store.add_coverage(run, START_STEP, {"main.py": [1, 3]})
    store.finish_run(run, status="completed", verdict="pass", reason="", error="")
    bundle = export_bundle(store, run, tmp_path / "run.zip")
    other = TrajectoryStore(tmp_path / "b.db")
    copy = import_bundle(other, bundle)
    assert other.run_coverage(copy) == store.run_coverage(run)
    assert other.step_coverage(copy, START_STEP) == {"main.py": [1, 3]}


class _Start:
    """One program start as RunCoverage sees it: what Inside.coverage hands the run's reader."""

    available = True

    def __init__(self, *deltas):
        from app.engine.play.inside import CoverageDelta

        self.deltas = [CoverageDelta(frozenset(("main.py", n) for n in d)) for d in deltas]

    def wait_hello(self, timeout_s):
        return True

    def lines_by_file(self):
        return {"main.py": frozenset(range(1, 11))}

    def coverage(self, timeout_s=0.5, reader=""):
        return self.deltas.pop(0) if self.deltas else None


def test_a_restarted_program_adds_only_what_is_new_to_the_run(db_path):
    from app.engine.run.coverage import RunCoverage

    store = TrajectoryStore(db_path)
    run = store.create_run(target="t", tester="offline", display="isolated", seed=0)
    cover = RunCoverage(store, run)
    first = _Start([1, 2, 3], [4, 99])  # 99: not a line of the program
    cover.started(first)
    cover.step(0, first)
    again = _Start([1, 2, 3, 5], [4, 6])  # its start-up once more, then a step
    cover.started(again)
    cover.step(1, again)
    assert store.coverage_by_step(run) == {START_STEP: 4, 0: 1, 1: 1}
    assert store.step_coverage(run, 1) == {"main.py": [6]}
    assert cover.summary() == {"lines": 6, "total": 10}
    assert store.run(run)["seen_through"] == "inside"
