"""The repair-rate benchmark counts a fix only when it holds up: no swallowed exception, no deleted behaviour,
no mutation operator run backwards counted as a repair, in either half.  The behaviour check itself is differential play."""

from __future__ import annotations

import shutil
from pathlib import Path

from benchmark.repair_check import (INVERTING_TEMPLATES, buggy_sources, check_claimed_fix, source_diff, suppression,
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
                               "(traceback, candidate 1)", 10)
    assert result["outcome"] == "suppressed", result
    assert "only removes statements" in result["check"]
    assert "-            f.write(self.tasks)" in result["diff"] and "+            pass" in result["diff"]
    assert result["behaviour"] == [], "a suppressed fix is not played"


def test_swallowing_the_exception_is_suppression(tmp_path):
    swallowed = "            try:\n                f.write(self.tasks)\n            except Exception:\n                pass\n"
    out = repaired_copy(tmp_path, (BUGGY_WRITE, swallowed))
    result = check_claimed_fix("jotter@save-typeerror", JOTTER, out, "main.py:93 try-except: ignore", 10)
    assert result["outcome"] == "suppressed"
    assert "swallowed" in result["check"]


def test_a_fix_by_a_mutation_operator_run_backwards_is_a_template_inverse_in_either_half(tmp_path):
    out = repaired_copy(tmp_path, (BUGGY_WRITE, "            f.write(dump(self.tasks))\n"))
    result = check_claimed_fix("jotter@save-typeerror", JOTTER, out,
                               "main.py:93 while-to-if: the loop runs its body at most once (static, candidate 1)", 10)
    assert result["outcome"] == "template inverse" and result["template_inverse"]
    assert "counted apart" in result["check"] and result["behaviour"] == []


def test_a_real_repair_is_not_suppression_and_templates_are_read_from_descriptions():
    before = {"m.py": "def save(f, t):\n    f.write(t)\n    log('saved')\n"}
    assert suppression(before, {"m.py": "def save(f, t):\n    f.write(str(t))\n    log('saved')\n"}) == ""
    assert "removes" in suppression(before, {"m.py": "def save(f, t):\n    log('saved')\n"})
    assert source_diff(before, before) == ""
    assert template_of("main.py:94 while-to-if: the loop runs its body at most once (static, candidate 1)") \
        == "while-to-if"
    assert template_of("not fixed after 6 iterations") == ""
    assert {"while-to-if", "dead-method", "missing-present", "index-modulo"} <= set(INVERTING_TEMPLATES)
    assert not {"similar-name", "zero-guard", "guard-none", "try-except"} & set(INVERTING_TEMPLATES)
    assert all(len(why) > 20 for why in INVERTING_TEMPLATES.values())


def test_the_behaviour_check_plays_the_repaired_sources_on_a_fresh_copy_of_the_app(tmp_path):
    # What the repair's own plays wrote (a saved list) must not make the candidate start elsewhere.
    from benchmark.repair_check import candidate_folder

    out = repaired_copy(tmp_path, (BUGGY_WRITE, "            f.write(dump(self.tasks))\n"))
    (out / "todo.txt").write_text("[ ] written while the repair played\n")
    candidate = candidate_folder(out, JOTTER, tmp_path / "candidate")
    assert not (candidate / "todo.txt").exists() and not (candidate / "bugs").exists()
    assert "f.write(dump(self.tasks))" in (candidate / "main.py").read_text()
    assert (candidate / "playcoder.toml").read_text() == (JOTTER / "playcoder.toml").read_text()


def test_an_earlier_results_file_is_counted_again_with_template_inverses_apart(tmp_path):
    import json

    from benchmark import repair_rate

    def row(variant, split, outcome, template):
        return {"variant": variant, "split": split, "outcome": outcome, "fixed": outcome == "fixed",
                "detected": True, "claimed": True, "iterations": 1, "refused": 0, "seconds": 1.0,
                "same_as_reference": outcome == "fixed", "patch": "", "reason": "r", "template": template,
                "tuned_template": outcome == "tuned template"}
    rows = [row("a@1", "tuning", "fixed", "while-to-if"), row("a@2", "tuning", "fixed", "similar-name"),
            row("b@1", "held-out", "tuned template", "dead-method"), row("b@2", "held-out", "suppressed", "try-except")]
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"rows": rows, "refiner": "offline", "max_iterations": 6, "max_steps": 40,
                               "wall_seconds": 9.0, "measured_on": {"commit": "a" * 40, "dirty": False}}))
    new_json, new_md = tmp_path / "new.json", tmp_path / "new.md"
    assert repair_rate.main(["--rescore", str(old), "--json", str(new_json), "--md", str(new_md)]) == 0
    data = json.loads(new_json.read_text())
    assert [r["outcome"] for r in data["rows"]] == ["template inverse", "fixed", "template inverse", "suppressed"]
    tuning, held = data["by_split"]["tuning"], data["by_split"]["held-out"]
    assert (tuning["fixed"], tuning["template_inverse"], tuning["repair_rate"]) == (1, 1, 0.5)
    assert (held["fixed"], held["template_inverse"], held["suppressed"], held["repair_rate"]) == (0, 1, 1, 0.0)
    md = new_md.read_text()
    assert "| tuning | 2 | 50% | 2 | 1 | 1 | 0 | 0 |" in md and "counted at commit" in md
