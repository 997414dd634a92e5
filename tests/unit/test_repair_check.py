"""The repair-rate benchmark counts a fix only when it holds up: no swallowed exception, no deleted behaviour,
no tuned template in the held-out half (issue 25).  The behaviour check itself is differential play."""

from __future__ import annotations

import shutil
from pathlib import Path

from benchmark.repair_check import (TUNED_TEMPLATES, buggy_sources, check_claimed_fix, source_diff, suppression,
                                    template_of)

from suite import ROOT

JOTTER = ROOT / "benchmark" / "wild" / "jotter"
BUGGY_WRITE = "            f.write(self.tasks)\n"


def repaired_copy(tmp_path: Path, edit: tuple[str, str]) -> Path:
    """The buggy jotter@save-typeerror as a repair would leave it, with one edit made."""
    out = tmp_path / "variant-000"
    shutil.copytree(JOTTER, out, ignore=shutil.ignore_patterns("bugs", "__pycache__"))
    for name, text in buggy_sources("jotter@save-typeerror").items():
        (out / name).write_text(text)
    main = out / "main.py"
    assert edit[0] in main.read_text()
    main.write_text(main.read_text().replace(edit[0], edit[1], 1))
    return out


def test_deleting_the_failing_write_is_suppression_with_its_diff(tmp_path):
    out = repaired_copy(tmp_path, (BUGGY_WRITE, "            pass\n"))
    result = check_claimed_fix("jotter@save-typeerror", JOTTER, out, "main.py:93 delete: drop the statement "
                               "(traceback, candidate 1)", False, 10)
    assert result["outcome"] == "suppressed", result
    assert "only removes statements" in result["check"]
    assert "-            f.write(self.tasks)" in result["diff"] and "+            pass" in result["diff"]
    assert result["behaviour"] == [], "a suppressed fix is not played"


def test_swallowing_the_exception_is_suppression(tmp_path):
    swallowed = "            try:\n                f.write(self.tasks)\n            except Exception:\n                pass\n"
    out = repaired_copy(tmp_path, (BUGGY_WRITE, swallowed))
    result = check_claimed_fix("jotter@save-typeerror", JOTTER, out, "main.py:93 try-except: ignore", False, 10)
    assert result["outcome"] == "suppressed"
    assert "swallowed" in result["check"]


def test_a_tuned_template_does_not_count_in_the_held_out_half(tmp_path):
    out = repaired_copy(tmp_path, (BUGGY_WRITE, "            f.write(dump(self.tasks))\n"))
    result = check_claimed_fix("jotter@save-typeerror", JOTTER, out,
                               "main.py:93 while-to-if: the loop runs its body at most once (static, candidate 1)",
                               True, 10)
    assert result["outcome"] == "tuned template" and result["tuned_template"]


def test_a_real_repair_is_not_suppression_and_templates_are_read_from_descriptions():
    before = {"m.py": "def save(f, t):\n    f.write(t)\n    log('saved')\n"}
    assert suppression(before, {"m.py": "def save(f, t):\n    f.write(str(t))\n    log('saved')\n"}) == ""
    assert "removes" in suppression(before, {"m.py": "def save(f, t):\n    log('saved')\n"})
    assert source_diff(before, before) == ""
    assert template_of("main.py:94 while-to-if: the loop runs its body at most once (static, candidate 1)") \
        == "while-to-if"
    assert template_of("not fixed after 6 iterations") == ""
    assert set(TUNED_TEMPLATES) == {"while-to-if", "dead-method"}


def test_the_behaviour_check_plays_the_repaired_sources_on_a_fresh_copy_of_the_app(tmp_path):
    # What the repair's own plays wrote (a saved list) must not make the candidate start elsewhere.
    from benchmark.repair_check import candidate_folder

    out = repaired_copy(tmp_path, (BUGGY_WRITE, "            f.write(dump(self.tasks))\n"))
    (out / "todo.txt").write_text("[ ] written while the repair played\n")
    candidate = candidate_folder(out, JOTTER, tmp_path / "candidate")
    assert not (candidate / "todo.txt").exists() and not (candidate / "bugs").exists()
    assert "f.write(dump(self.tasks))" in (candidate / "main.py").read_text()
    assert (candidate / "playcoder.toml").read_text() == (JOTTER / "playcoder.toml").read_text()
