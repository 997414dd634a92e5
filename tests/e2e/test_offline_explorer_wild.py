"""The offline explorer on Tk programs written the ordinary way: grey buttons, white forms, modal
dialogs and hotkeys, each played for real under a private Xvfb."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from app.engine.errors import TargetError
from app.engine.play.targetspec import resolve_target, split_combo
from app.engine.run.session import RunConfig, Session
from app.engine.trace.store import TrajectoryStore

from suite import TARGETS, needs_xvfb


def play(target: Path | str, db_path: Path, steps: int, seed: int = 0,
         explorer: str = "new") -> tuple[dict, list[dict], list[str]]:
    store = TrajectoryStore(db_path)
    result = Session(RunConfig(str(target), max_steps=steps, seed=seed, tester_options={"explorer": explorer}),
                     store).run()
    assert result.status == "completed", result.error
    run = store.run(result.run_id)
    steps_rows = store.steps(result.run_id)
    logs = [row["text"] for row in store.logs(result.run_id)]
    store.close()
    return {"verdict": result.verdict, "reason": result.reason, "findings": result.findings, **run}, steps_rows, logs


def first(logs: list[str], text: str) -> int:
    return logs.index(text) if text in logs else -1


@pytest.mark.xvfb
@needs_xvfb
def test_a_grey_calculator_gets_its_equals_pressed(db_path):
    run, steps, logs = play(TARGETS / "calc_tk", db_path, steps=24)
    assert run["verdict"] == "pass", run["reason"]
    assert "pressed =" in logs, logs
    pressed = {t for t in logs if t.startswith("pressed ")}
    assert len(pressed) >= 15  # nearly every button within 24 steps: exact rectangles from the X tree
    exact = ("X-tree widget", "text field", "from inside the program", "tester plan")  # never an image's guess
    assert all(any(word in s["rationale"] for word in exact) for s in steps if s["action"]["action"] != "type")
    assert sum(s["action"]["action"] == "type" for s in steps) <= 3  # a read-only display takes no word


@pytest.mark.xvfb
@needs_xvfb
def test_keys_reach_the_entry_of_a_white_form_after_a_focus_click(db_path):
    # The explorer before its own focus click (the new one's tester plans click into the entry first).
    run, steps, logs = play(TARGETS / "listentry_tk", db_path, steps=12, explorer="old")
    assert run["verdict"] == "pass", run["reason"]
    assert not [f for f in run["findings"] if f.kind == "no-response"]
    focus = [s["idx"] for s in steps if s["rationale"].startswith("focus:")]
    assert focus and focus[0] <= 2, [s["rationale"] for s in steps]  # the first typed key went nowhere
    assert steps[focus[0]]["action"]["action"] == "click"
    keys = [s for s in steps[focus[0] + 1:] if s["action"]["action"] == "press"]
    answered = [s for s in keys if s["changed_bbox"]]
    assert keys and len(answered) >= len(keys) // 2, [(s["action"], s["changed_bbox"]) for s in keys]
    typed = [t for t in logs if t.startswith("entry ") and len(t) > len("entry ")]
    assert typed, logs  # the Entry got the keys
    assert any(t.startswith("added ") for t in logs) or len(typed) >= 2


@pytest.mark.xvfb
@needs_xvfb
@pytest.mark.parametrize("where", ["over", "offscreen"])
def test_a_modal_dialog_is_escaped_and_exploration_goes_on(where, db_path, tmp_path):
    folder = TARGETS / "modal_tk"
    if where == "offscreen":  # invisible in the frames: only the X tree knows it is there
        folder = tmp_path / "modal_tk"
        shutil.copytree(TARGETS / "modal_tk", folder)
        with (folder / "playcoder.toml").open("a") as spec:
            spec.write('[env]\nDIALOG_AT = "+900+700"\n')
    run, steps, logs = play(folder, db_path, steps=20)
    assert run["verdict"] == "pass", run["reason"]
    assert "dialog open" in logs and "dialog closed" in logs
    assert first(logs, "dialog closed") > first(logs, "dialog open")
    closing = [s["idx"] for s in steps if "WM_DELETE_WINDOW" in s["rationale"]]
    escapes = [s["idx"] for s in steps if s["rationale"].startswith("escape modal")]
    assert closing and escapes[0] < closing[0]  # Escape first, the window manager's close last
    assert steps[escapes[0]]["action"] == {"action": "press", "key": "escape"}
    seen_before = {s["frame_after"] for s in steps[: closing[0] + 1]}
    seen_after = {s["frame_after"] for s in steps[closing[0] + 1:]} - seen_before
    assert len(seen_after) >= 2, "exploration goes on past the dialog"
    assert logs.count("dialog open") <= 2, "the button that trapped the explorer is backed off from"


@pytest.mark.xvfb
@needs_xvfb
def test_hinted_hotkeys_are_used_and_typing_does_not_starve_the_buttons(db_path):
    run, steps, logs = play(TARGETS / "hotkeys_tk", db_path, steps=30)
    assert run["verdict"] == "pass", run["reason"]
    hotkeys = {tuple(s["action"]["keys"]) for s in steps if s["action"]["action"] == "hotkey"}
    assert hotkeys == {("ctrl", "n"), ("ctrl", "s")}
    assert "new by key" in logs and "save by key" in logs
    assert "new by button" in logs and "save by button" in logs, logs
    runs, longest, seen, capped = 0, 0, set(), False
    for s in steps:
        action = s["action"]
        is_key = action["action"] in ("press", "hotkey")
        if is_key:
            seen.add(action.get("key") or tuple(action["keys"]))
        if not capped:  # after a first pass over the six hinted keys, key runs are capped
            capped = len(seen) == 6
            continue
        runs = runs + 1 if is_key else 0
        longest = max(longest, runs)
    assert capped and longest <= 3


def test_key_combos_parse_and_unknown_ones_are_a_clear_sentence(tmp_path):
    assert split_combo("ctrl+n") == ("ctrl", "n")
    assert split_combo("ctrl+shift+F5") == ("ctrl", "shift", "F5")
    assert split_combo("+") == ("+",) and split_combo("ctrl++") == ("ctrl", "+")
    spec = resolve_target(str(TARGETS / "hotkeys_tk")).spec
    assert "ctrl+n" in spec.keys and "ctrl+s" in spec.keys
    (tmp_path / "main.py").write_text("print('never run')\n")
    for keys, bad in ((["ctrl+n", "ctrl+nope"], "'nope' is not a key name"),
                      (["ctrl+"], "one of its parts is empty")):
        (tmp_path / "playcoder.toml").write_text(f'name = "x"\ncommand = ["python", "main.py"]\nkeys = {keys!r}\n'
                                                 .replace("'", '"'))
        with pytest.raises(TargetError) as info:
            resolve_target(str(tmp_path))
        message = str(info.value)
        assert bad in message and '"keys"' in message and "ctrl+s" in message
        assert message.count("\n") == 0 and message.endswith(".")


@pytest.mark.xvfb
@needs_xvfb
def test_a_menubar_drawn_in_one_window_gets_its_menus_and_items_chosen(db_path):
    run, steps, logs = play(TARGETS / "menu_tk", db_path, steps=10)
    assert run["verdict"] == "pass", run["reason"]
    chosen = {t for t in logs if t.startswith("menu ")}
    assert len(chosen) >= 2, logs  # menus opened from the bar, items clicked in the posted menu
    assert any("in the popup" in s["rationale"] for s in steps)


def test_image_fields_are_found_where_no_window_tree_helps():
    import numpy as np

    from app.engine.play.observer import Frame
    from app.engine.testers.offline import detect_fields, looks_like_field
    from app.engine.play.xwidgets import Widget

    img = np.full((200, 300, 4), 0xD9, dtype=np.uint8)  # a grey window ...
    img[20:130, 40:260, :3] = 0xFF  # ... a white list ...
    img[150:176, 40:260, :3] = 0xFF  # ... and a white entry with some text in it
    img[156:170, 46:52, :3] = 0x20
    img[156:170, 56:60, :3] = 0x20
    frame = Frame(300, 200, img.tobytes(), 0.0)
    boxes = detect_fields(frame)
    assert (40, 20, 260, 130) in boxes and (40, 150, 260, 176) in boxes
    assert looks_like_field(frame, Widget(40, 150, 260, 176))
    assert not looks_like_field(frame, Widget(0, 0, 36, 36))  # the grey background is no field


def test_title_letters_are_glyphs_and_buttons_are_not():
    """A game's title drawn in big letters is no row of buttons: its blobs are mostly background."""
    import numpy as np

    from app.engine.play.observer import Frame
    from app.engine.testers.offline import glyph_like

    img = np.full((200, 300, 4), 0x20, dtype=np.uint8)  # a dark window ...
    img[20:60, 20:52, :3] = 0xF0  # ... a letter 'O' 32x40: a ring ...
    img[28:52, 28:44, :3] = 0x20
    img[120:170, 60:260, :3] = (0x48, 0x58, 0xA0)  # ... and a filled Play button with its label
    img[135:155, 140:180, :3] = 0xF0
    frame = Frame(300, 200, img.tobytes(), 0.0)
    assert glyph_like(frame, (20, 20, 52, 60))
    assert not glyph_like(frame, (60, 120, 260, 170))
