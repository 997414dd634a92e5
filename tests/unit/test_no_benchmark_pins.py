"""CI does not pin the benchmark's bugs as regression targets.

Whether a tester catches a bundled bug (benchmark/apps, benchmark/wild) is an accuracy figure that a
command measures and reports; a test that asserts it turns the benchmark into a tuning set.  Tests play
their own variants instead (tests/targets/*/bugs).  This test fails when a test file names a benchmark
bug, as ``APP@BUG`` or as an f-string ``APP@{...}``.

``NOT_YET_MOVED`` lists the files that still do, each with why: it may only shrink.  A file listed
there that no longer names a benchmark bug fails too, so the list stays exact.
"""

from __future__ import annotations

import re
from pathlib import Path

from app.engine.play.targetspec import load_bugs

from suite import ROOT

SUITES = (ROOT / "benchmark" / "apps", ROOT / "benchmark" / "wild")
TESTS = ROOT / "tests"

NOT_YET_MOVED: dict[str, str] = {
    # The benchmark's own machinery: these read the suite's bugs.toml/patches as data, no tester verdict.
    "test_long_runs.py": "bench detect's planning of the suite's long-run bugs (no play, no verdict)",
    "test_bench_explore_only.py": "bench detect's planning and child command line (no play, no verdict)",
    "test_target_x.py": "the APP@BUG resolver on a bundled app (patch applied, label; no verdict)",
    "test_ray_executor.py": "the Ray executor's task shipping of a bundled variant; its verdict table is pinned",
    "test_repair_check.py": "the repair checks (suppression, behaviour) against a bundled bug's patch",
    "test_repair_blind.py": "what the refiner is shown of bundled variants (no bug id leaks)",
    # Labels of synthetic runs in the workbench's views: nothing is played.
    "test_views_labelling_task.py": "a synthetic run's label",
    "test_views_models.py": "a synthetic run's label",
    "test_views_main_window.py": "a repair request's label",
    "test_views_repair_live.py": "a repair request's label",
    "test_views_repair_plays.py": "a synthetic repair's label",
    "test_views_repair_report.py": "a synthetic repair's label",
    "test_views_repair_watch.py": "a synthetic repair's label",
    "test_views_small_fixes.py": "a synthetic run's label",
    # Still pinned: to move to the tests' own variants.
    "test_cli_demo.py": "the demo command plays a bundled variant",
}


def benchmark_bugs() -> dict[str, set[str]]:
    """Every bundled app's bug ids, read from its bugs.toml."""
    return {app.name: {b.id for b in load_bugs(app)} for suite in SUITES for app in sorted(suite.iterdir())
            if (app / "bugs" / "bugs.toml").is_file()}


def pins(text: str, bugs: dict[str, set[str]]) -> set[str]:
    """The benchmark bugs a test file's text names: ``APP@BUG`` literally, or ``APP@{`` (an f-string over bugs)."""
    found = set()
    for m in re.finditer(r"\b([a-z0-9_]+)@(\{|[a-z0-9][a-z0-9-]*)", text):
        app, bug = m.group(1), m.group(2)
        if app in bugs and (bug == "{" or bug in bugs[app]):
            found.add(f"{app}@{bug}")
    return found


def test_the_pattern_finds_literal_and_formatted_names_only():
    bugs = {"calculator": {"wrong-subtraction"}}
    assert pins('run("calculator@wrong-subtraction")', bugs) == {"calculator@wrong-subtraction"}
    assert pins('run(f"calculator@{bug}")', bugs) == {"calculator@{"}
    assert pins('run("calculator@no-such-bug"), f"{TARGETS}/calc_tk@op-crash", "ann@example.org"', bugs) == set()


def test_no_test_file_names_a_benchmark_bug():
    bugs = benchmark_bugs()
    assert len(bugs) >= 16, "the bundled suites were not found"
    named = {p.name: pins(p.read_text(encoding="utf-8", errors="replace"), bugs)
             for p in sorted(TESTS.rglob("*.py")) if p.name != Path(__file__).name}
    pinned = {name: sorted(found) for name, found in named.items() if found and name not in NOT_YET_MOVED}
    assert not pinned, (f"these tests name benchmark bugs (play a variant of tests/targets instead; the benchmark's "
                        f"recall is measured by `playcoder bench detect`, not asserted): {pinned}")
    stale = sorted(name for name in NOT_YET_MOVED if not named.get(name))
    assert not stale, f"no longer naming a benchmark bug: remove from NOT_YET_MOVED: {stale}"
