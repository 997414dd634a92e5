"""Differential play compares widget texts from inside (Tk, Qt): a minus sign or an Entry's content is below any
pixel threshold, and what the two reference runs disagree on is masked as pictures are."""

from __future__ import annotations

import random
import shutil

import numpy as np
import pytest

from app.engine.play.inside import InsideWidget
from app.engine.testers.differential import DifferentialTester
from app.engine.testers.widget_texts import describe, differing, shown

from suite import TARGETS, needs_xvfb
from test_differential import run_cli

TARGET = TARGETS / "signcalc_tk"


def widget(cls: str, text: str, box=None, kind: str = "label", enabled: bool = True) -> InsideWidget:
    return InsideWidget(kind, cls, text, enabled, box is not None, box, False)


def test_widgets_are_matched_by_class_and_place_whatever_order_the_toolkit_lists_them_in():
    widgets = [widget("QLabel", "a", (0, 40, 10, 50)), widget("QLabel", "b", (0, 0, 10, 10)),
               widget("QLabel", "hidden x"), widget("QLabel", "hidden y"), widget("QLineEdit", "-6", (0, 20, 50, 30))]
    shuffled = list(widgets)
    random.Random(3).shuffle(shuffled)
    assert shown(widgets) == shown(shuffled)
    assert shown(widgets)[("label", "QLabel", (), 0)][0] == ("b", True, True)  # the topmost first


def test_a_text_a_state_and_a_missing_widget_each_differ_and_are_named():
    ref = shown([widget("Entry", "-6", (6, 6, 234, 30), "entry"), widget("Button", "=", (0, 90, 60, 110), "button")])
    cand = shown([widget("Entry", "6", (6, 6, 234, 30), "entry"),
                  widget("Button", "=", (0, 90, 60, 110), "button", enabled=False),
                  widget("Label", "extra", (0, 40, 30, 50))])
    keys = differing(cand, ref)
    assert len(keys) == 3
    entry = ("entry", "Entry", (), 0)
    message, evidence = describe(entry, cand, ref)
    assert message == "widget Entry #1 (entry) shows '6' where the reference shows '-6' after the same inputs " \
                      "(seen from inside)"
    assert evidence["candidate"]["text"] == "6" and evidence["reference"]["text"] == "-6"
    assert "disabled where the reference's is enabled" in describe(("button", "Button", (), 0), cand, ref)[0]
    assert "shown by the candidate only" in describe(("label", "Label", (), 0), cand, ref)[0]


def test_what_the_reference_runs_disagree_on_or_change_by_themselves_is_noise():
    tester = DifferentialTester()
    token = ("label", "Label", (), 0)
    a = shown([widget("Label", "token 1", (0, 0, 9, 9)), widget("Entry", "12", (0, 20, 9, 29), "entry")])
    b = shown([widget("Label", "token 2", (0, 0, 9, 9)), widget("Entry", "12", (0, 20, 9, 29), "entry")])
    tester._widget_self_check([a, a], [b, a])  # the first run changed between two looks
    assert tester.widget_noise == {token}
    tester.widget_noise.clear()
    tester._widget_self_check([a, b])  # the two runs disagree at the same step
    assert tester.widget_noise == {token}


@needs_xvfb
@pytest.mark.slow
def test_a_dropped_minus_sign_in_an_entry_is_found_from_inside(tmp_path, db_path):
    """3 - 9 shows '6' in the candidate's Entry (focused, its caret blinking), '-6' in the reference's."""
    candidate = tmp_path / "candidate"
    shutil.copytree(TARGET, candidate)
    main = candidate / "main.py"
    main.write_text(main.read_text().replace("show(str(value))", "show(str(value).lstrip('-'))"))
    code, summary, err = run_cli(str(candidate), "--reference", str(TARGET), "--max-steps", "6", "--seed", "0",
                                 db=db_path)
    assert code == 0, err
    assert summary["verdict"] == "fail", summary
    assert [f["kind"] for f in summary["findings"]] == ["diverged"], summary
    assert "widget Entry #1 (entry) shows '6' where the reference shows '-6'" in summary["reason"], summary


@needs_xvfb
@pytest.mark.slow
def test_a_copy_with_an_unseeded_token_label_passes_its_text_masked(tmp_path, db_path):
    copy = tmp_path / "copy"
    shutil.copytree(TARGET, copy)
    code, summary, err = run_cli(str(copy), "--reference", str(TARGET), "--max-steps", "6", "--seed", "0",
                                 db=db_path)
    assert code == 0, err
    assert summary["verdict"] == "pass", summary
    assert "widget texts compared from inside at" in summary["reason"], summary
    assert "widgets the reference runs disagree on not compared" in summary["reason"], summary


def test_a_widget_the_reference_runs_disagree_on_is_masked_in_the_pictures_too():
    """On the engine's clock an unseeded token does not change while the noise is watched: the two runs'
    pixels would mask only the digits they happen to disagree on, the candidate's other digits would differ."""
    tester = DifferentialTester()
    tester.noise = np.zeros((230, 240), dtype=bool)
    a = shown([widget("Label", "token 12345", (84, 40, 156, 60)), widget("Entry", "12", (6, 6, 234, 30), "entry")])
    b = shown([widget("Label", "token 12399", (84, 40, 156, 60)), widget("Entry", "12", (6, 6, 234, 30), "entry")])
    tester._widget_self_check([a, b])
    assert tester.noise[40:60, 84:156].all()
    assert tester.noise.sum() == 20 * 72  # the Entry both runs agree on is still compared
    huge = shown([widget("Canvas", "x", (0, 0, 240, 230))])
    tester._widget_self_check([huge, shown([widget("Canvas", "y", (0, 0, 240, 230))])])
    assert tester.noise.sum() == 20 * 72  # never a box over a quarter of the window
