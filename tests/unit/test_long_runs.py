"""Long-run bugs (``long = true`` in bugs.toml): skipped by `bench detect` by default, played for their duration
with ``--long``.  Planning, the child's command line and the bugs.toml fields only; nothing is played here
(tests/x/test_long_runs_x.py plays the late crash)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from app import cli
from app.commands import bench as bench_cmd
from app.engine.bench import detect, jobs, ray_tasks
from app.engine.errors import TargetError
from app.engine.play.targetspec import BugInfo, app_folder, list_apps, load_bugs

NEW_BUGS = {("snake", "late-crash"): ("crash", 150.0), ("tiles2048", "autosave-flash"): ("glitch", 60.0)}
"""The long-run variants and their (type, declared duration)."""


def _targets(planned: list[detect.DetectJob]) -> dict[str, float | None]:
    return {j.target: j.duration_s for j in planned}


def test_long_bugs_are_skipped_by_default_and_played_for_their_duration_with_the_flag():
    apps = detect.select_apps("snake,tiles2048,brickout")
    short = detect.plan(apps, 1, 0, False)
    long = detect.plan(apps, 1, 0, False, long=True)

    assert not any(j.bug is not None and j.bug.long for j in short)
    assert all(j.duration_s is None for j in short), "without --long every run is bounded by --max-steps"
    assert {f"{app}@{bug}" for app, bug in NEW_BUGS} <= set(detect.skipped_long(apps))

    played = _targets(long)
    for (app, bug), (_, seconds) in NEW_BUGS.items():
        assert played[f"{app}@{bug}"] == seconds
        assert played[app] == seconds, "the reference is played as long as its app's longest bug"
    assert played["brickout"] is None and played["brickout@substeps-at-60fps"] is None  # no long bug there
    # --long adds the long variants and changes nothing else.
    assert set(played) - set(_targets(short)) == {f"{a}@{b}" for a, b in NEW_BUGS}
    assert [j.target for j in short] == [j.target for j in long if not (j.bug is not None and j.bug.long)]


def test_types_and_long_together():
    apps = detect.select_apps("snake,tiles2048")
    types = detect.select_types("glitch")
    assert [j.target for j in detect.plan(apps, 1, 0, False, types)] == ["snake", "tiles2048"]
    assert detect.skipped_long(apps, types) == ["tiles2048@autosave-flash"]
    planned = detect.plan(apps, 2, 5, True, types, long=True)
    # The references of apps with long bugs are played as long as their longest, whatever --types selects.
    assert [(j.target, j.seed, j.duration_s) for j in planned] == [
        ("snake", 5, 150.0), ("tiles2048", 5, 60.0), ("tiles2048@autosave-flash", 5, 60.0),
        ("snake", 6, 150.0), ("tiles2048", 6, 60.0), ("tiles2048@autosave-flash", 6, 60.0)]
    only_refs = detect.plan(apps, 1, 0, False, detect.select_types("reference"), long=True)
    assert _targets(only_refs) == {"snake": 150.0, "tiles2048": 60.0}


def test_a_long_run_child_gets_duration_instead_of_max_steps(monkeypatch, tmp_path):
    seen: list[list[str]] = []

    def spawn(cmd: list[str], **kw: object) -> None:
        seen.append(cmd)
        return None  # as if the bench had been interrupted: nothing starts

    monkeypatch.setattr(jobs.children, "spawn", spawn)
    jobs.run_child("snake@late-crash", tester="offline", max_steps=40, seed=0, db=tmp_path / "x.db",
                   duration_s=150.0)
    jobs.run_child("snake", tester="offline", max_steps=40, seed=0, db=tmp_path / "x.db")
    long_cmd, short_cmd = seen
    assert long_cmd[long_cmd.index("--duration") + 1] == "150" and "--max-steps" not in long_cmd
    assert short_cmd[short_cmd.index("--max-steps") + 1] == "40" and "--duration" not in short_cmd


def test_the_duration_travels_with_a_ray_task():
    task = ray_tasks.portable(ray_tasks.PlayTask("snake@late-crash", "offline", 40, 0, duration_s=150.0))
    assert task.target == "snake@late-crash" and task.duration_s == 150.0


def test_markdown_says_what_happened_to_the_long_bugs():
    row = detect.DetectRow("snake", "snake@late-crash", "late-crash", "crash", "hard", "fail", "fail", 0, 0, 230,
                           125.0, None, "crash at step 229", "", "tuning", 150.0)
    s = detect.summarize([row], tester="offline", max_steps=40, wall_seconds=130.0, parallel=1)
    assert "| snake@late-crash (150 s) |" in detect.markdown({**s, "long_runs": True})
    skipped = detect.markdown({**s, "long_runs": False, "skipped_long": ["tiles2048@autosave-flash"]})
    assert "1 long-run bug variant(s) not played" in skipped and "tiles2048@autosave-flash" in skipped


def test_bench_detect_takes_long():
    parser = cli.build_parser()
    assert bench_cmd.register in cli._EXTRA_COMMANDS
    args = parser.parse_args(["bench", "detect", "--long", "--apps", "snake", "--types", "crash"])
    assert isinstance(args, argparse.Namespace) and args.long and args.types == "crash"
    assert parser.parse_args(["bench", "detect"]).long is False


def test_every_bundled_long_bug_declares_how_long_to_play_it():
    long_bugs = [(folder.name, bug) for folder in list_apps() for bug in load_bugs(folder) if bug.long]
    assert {(app, bug.id) for app, bug in long_bugs} >= set(NEW_BUGS)
    for app, bug in long_bugs:
        assert bug.duration_s is not None and 0 < bug.duration_s <= 600, (app, bug.id)
        assert bug.expected_finding, "a long-run bug is one a generic oracle sees, given the time"
    for (app, bug_id), (type_, seconds) in NEW_BUGS.items():
        bug = next(b for b in load_bugs(app_folder(app)) if b.id == bug_id)
        assert (bug.type, bug.duration_s, bug.expected_finding) == (type_, seconds, type_)
    physics = next(b for b in load_bugs(app_folder("brickout")) if b.id == "substeps-at-60fps")
    assert not physics.long and physics.expected_finding == "crash"


@pytest.mark.parametrize("entry, problem", [
    ('long = true', 'needs "duration_s"'),
    ('duration_s = 60', "applies only to a long-run bug"),
    ('long = "yes"\nduration_s = 60', '"long" must be true or false'),
    ('long = true\nduration_s = 0', '"duration_s" must be a number of seconds'),
    ('long = true\nduration_s = "2 min"', '"duration_s" must be a number of seconds'),
])
def test_bad_long_run_fields_are_one_sentence(tmp_path: Path, entry: str, problem: str):
    (tmp_path / "bugs").mkdir()
    (tmp_path / "bugs" / "bugs.toml").write_text(
        f'[[bug]]\nid = "slow"\ntype = "crash"\ndifficulty = "easy"\ndescription = "d"\nrepro = ["r"]\n'
        f'expected_finding = "crash"\n{entry}\n', encoding="utf-8")
    with pytest.raises(TargetError, match=problem) as err:
        load_bugs(tmp_path)
    assert "bug 'slow'" in str(err.value) and str(err.value).endswith("fix the file.")


def test_an_ordinary_bug_is_not_long(tmp_path: Path):
    (tmp_path / "bugs").mkdir()
    (tmp_path / "bugs" / "bugs.toml").write_text(
        '[[bug]]\nid = "x"\ntype = "crash"\ndifficulty = "easy"\ndescription = "d"\nrepro = ["r"]\n'
        'expected_finding = "crash"\nlong = false\n', encoding="utf-8")
    assert load_bugs(tmp_path) == [BugInfo("x", "crash", "easy", "d", ("r",), "crash")]
