"""Set-of-marks for the LLM tester against the local protocol servers: marked picture, listed marks, click_mark."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from types import SimpleNamespace

from app.engine.llm.client import LLMClient
from app.engine.play.actions import Click, Press
from app.engine.play.control import RunControl
from app.engine.play.inside import InsideWidget
from app.engine.play.observer import Observation
from app.engine.play.targetspec import resolve_target
from app.engine.play.xwidgets import Widget
from app.engine.testers import base as tester_base
from app.engine.testers.llm import LLMTester
from app.engine.testers.marks import MARK_COLOR
from app.engine.trace.store import TrajectoryStore
from suite import ROOT, TARGETS, needs_xvfb
from llm_servers import TEST_KEY, OpenAIServer, Reply, playbook, settings_for, synthetic_frame

SIZE = (480, 560)  # the OpenAI picture is 438×512: marks are drawn and listed in picture pixels
WIDGETS = [
    InsideWidget("button", "Button", "Save", True, True, (40, 40, 160, 80), True),
    InsideWidget("button", "Button", "Undo", False, True, (200, 40, 280, 80), True),
    InsideWidget("entry", "Entry", "", True, True, (40, 100, 300, 130), False),
    InsideWidget("label", "Label", "Name:", True, True, (40, 140, 100, 160), False),
    InsideWidget("menuitem", "Menu.command", "Quit", True, False, None, True, ("File",)),
]


class _Inside:
    """The program's inside channel as the tester reads it (what a Tk program answered)."""

    available = True

    def __init__(self, widgets):
        self.found = widgets

    def widgets(self, timeout_s=0.5):
        return self.found


def _play(db_path, replies, *, inside=None, x_widgets=None, steps=1):
    store = TrajectoryStore(db_path)
    with OpenAIServer() as server:
        server.responder = playbook(replies)
        settings = settings_for(server, "openai", "gpt-test")
        tester = LLMTester(settings, LLMClient(settings))
        tester.attach(store, store.create_run(target="t", tester="llm"), RunControl())
        first = synthetic_frame(*SIZE, seed=0)
        ctx = tester_base.TesterContext(resolve_target("calculator").spec, 0, 6, random.Random(0), SIZE,
                                        widgets=x_widgets)
        ctx.player = SimpleNamespace(target=SimpleNamespace(inside=inside), lockstep=False, frames=0, gate=None)
        obs = Observation(first, True, 0.0, None, 1)
        tester.begin(ctx, obs)
        decisions = [tester.decide(step, obs) for step in range(steps)]
        requests = [r for r in server.requests if "Action decision" in r.prompt()]
    store.close()
    return decisions, requests, tester


def test_the_model_sees_numbered_marks_and_clicks_one(db_path):
    decisions, requests, tester = _play(db_path, ['{"thought": "save it", "action": "click_mark", "mark": 1}'],
                                        inside=_Inside(WIDGETS))
    prompt = requests[0].prompt()
    sx, sy = SIZE[0] / 438, SIZE[1] / 512
    box = ",".join(str(round(v)) for v in (40 / sx, 40 / sy, 160 / sx, 80 / sy))
    assert f"[1] button 'Save' at ({box})" in prompt
    assert "[2] button 'Undo' at" in prompt and "(disabled)" in prompt and "[3] entry at" in prompt
    assert "Name:" not in prompt and "Quit" not in prompt and "from inside the program" in prompt
    picture = requests[0].images()[-1].convert("RGB")
    assert picture.size == (438, 512)
    mid_y = round(60 / sy)
    assert picture.getpixel((round(40 / sx), mid_y)) == MARK_COLOR  # the left edge of mark 1
    assert picture.getpixel((round(160 / sx) - 1, mid_y)) == MARK_COLOR  # its right edge
    assert picture.getpixel((round(100 / sx), mid_y)) != MARK_COLOR  # the button's face stays the program's
    assert decisions[0].action == Click(100, 60)  # the centre of 'Save' in window pixels, exactly
    assert "save it" in decisions[0].rationale and "click_mark(1)" in decisions[0].rationale


def test_a_plain_click_mark_call_and_a_wrong_number_gets_a_reask(db_path):
    decisions, requests, _ = _play(db_path, ["click_mark(9)", "click_mark(2)"], inside=_Inside(WIDGETS))
    assert decisions[0].action == Click(240, 60)
    reask = requests[-1].prompt()
    assert "there is no mark 9 (marks: 1 to 3)" in reask


def test_x_tree_widgets_are_marked_when_the_program_does_not_answer(db_path):
    decisions, requests, _ = _play(db_path, ['{"action": "click_mark(1)"}'], inside=None,
                                   x_widgets=lambda: [Widget(10, 300, 110, 340)])
    prompt = requests[0].prompt()
    assert "[1] control at" in prompt and "from its X windows" in prompt
    assert decisions[0].action == Click(60, 320)


def test_without_known_controls_the_screenshot_and_prompt_are_unmarked(db_path):
    decisions, requests, _ = _play(db_path, ['{"action": "press", "key": "up"}'], inside=None)
    prompt = requests[0].prompt()
    assert "click_mark" not in prompt and "numbered" not in prompt
    picture = requests[0].images()[-1].convert("RGB")
    assert MARK_COLOR not in {picture.getpixel((x, y)) for x in range(0, 438, 7) for y in range(0, 512, 7)}
    assert decisions[0].action == Press("up")


@needs_xvfb
def test_a_real_tk_program_gets_marks_from_inside_and_click_mark_presses_its_button(tmp_path):
    """inside_tk's 'Press' button is placed at (20, 30)-(120, 70): the mark the model picks clicks (70, 50)."""
    base = playbook(['{"thought": "done", "action": "finish", "verdict": "pass", "reason": "it reacts"}'])
    seen: list[str] = []

    def respond(rec):
        prompt = rec.prompt()
        if "Action decision" in prompt and not seen:
            seen.append(prompt)
            number = re.search(r"\[(\d+)\] button 'Press' at", prompt).group(1)
            return Reply(json.dumps({"thought": "press it", "action": "click_mark", "mark": int(number)}))
        return base(rec)

    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
    env.update(OPENAI_API_KEY=TEST_KEY, PYTHON_KEYRING_BACKEND="keyring.backends.null.Keyring")
    db = tmp_path / "runs.db"
    with OpenAIServer() as server:
        server.responder = respond
        out = subprocess.run([sys.executable, "-m", "app", "test", str(TARGETS / "inside_tk"), "--tester", "llm",
                              "--provider", "openai", "--model", "gpt-test", "--base-url", server.base_url,
                              "--max-steps", "3", "--json", "--db", str(db)],
                             cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)
        decisions = [r for r in server.requests if "Action decision" in r.prompt()]
    assert out.returncode == 0, out.stderr
    assert "from inside the program" in seen[0] and "[" in seen[0] and "button 'Later' at" in seen[0]
    box = re.search(r"button 'Press' at \((\d+),(\d+),(\d+),(\d+)\)", seen[0]).groups()
    x0, y0, x1, y1 = map(int, box)
    picture = decisions[0].images()[-1].convert("RGB")
    assert picture.getpixel((x0, (y0 + y1) // 2)) == MARK_COLOR
    store = TrajectoryStore(db, readonly=True)
    run_id = json.loads(out.stdout.strip().splitlines()[-1])["run_id"]
    step = store.steps(run_id)[0]
    before, after = (store.frame(step[k]).image() for k in ("frame_before", "frame_after"))
    store.close()
    assert picture.size == before.size  # a small window is sent unscaled: picture pixels are window pixels
    assert step["action"] == {"action": "click", "x": (x0 + x1) // 2, "y": (y0 + y1) // 2}
    assert "click_mark" in step["rationale"] and x1 - x0 == 100  # the button's own box, the menu bar above it
    # the label under the buttons went from "ready" to "clicked 1": text now where there was background
    menu_bar = y0 - 30
    tail = (62, 140 + menu_bar, 100, 160 + menu_bar)
    assert len(before.crop(tail).getcolors(4096)) == 1 and len(after.crop(tail).getcolors(4096)) > 1
