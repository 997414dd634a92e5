"""Widgets and top-level windows from the X window tree, on real Tk and pygame programs under Xvfb."""

from __future__ import annotations

import time

import pytest

from app.engine.play.actions import Click
from app.engine.play.executor import make_executor
from app.engine.play.target import TargetProcess
from app.engine.play.targetspec import load_spec
from app.engine.play.xwidgets import TargetWindows

from suite import TARGETS, needs_xvfb

pytestmark = [pytest.mark.xvfb, needs_xvfb]
CALC_LABELS = set("0123456789.+-*/=") | {"C"}


def _wait_for(target: TargetProcess, text: str, timeout: float = 3.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(t == text for _, _, t in target.lines()):
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def launch(xvfb):
    started: list[TargetProcess] = []

    def start(name: str) -> tuple[TargetProcess, TargetWindows]:
        target = TargetProcess(load_spec(TARGETS / name), xvfb)
        started.append(target)
        target.wait_for_window()
        time.sleep(0.4)  # let Tk lay out and map its children
        target.refresh_geometry()
        return target, TargetWindows(target)

    yield start
    for target in started:
        target.shutdown()


def test_every_grey_calculator_button_is_a_widget_and_can_be_pressed(launch, xvfb):
    target, windows = launch("calc_tk")
    win = target.window
    assert win is not None
    widgets = windows.widgets()
    assert all(w.source == "x" and w.window and w.top for w in widgets)
    assert all(0 <= w.x0 < w.x1 <= win.width and 0 <= w.y0 < w.y1 <= win.height for w in widgets)
    assert not any(w.width >= win.width - 2 and w.height >= win.height - 2 for w in widgets), "wrappers are skipped"
    assert len(widgets) == len(CALC_LABELS) + 1  # 17 buttons and the display entry, nothing else
    executor = make_executor(xvfb.name, True, win.id, lambda: (win.x, win.y, win.width, win.height), xvfb.size)
    try:
        for w in widgets:
            assert executor.execute(Click(*w.center)).outcome == "ok"
            time.sleep(0.05)
    finally:
        executor.close()
    assert _wait_for(target, "pressed =")
    pressed = {t.removeprefix("pressed ") for _, _, t in target.lines() if t.startswith("pressed ")}
    assert pressed == CALC_LABELS  # the image detector never found '=', '-' or '.'


def test_white_list_and_entry_are_leaves(launch):
    target, windows = launch("listentry_tk")
    win = target.window
    assert win is not None
    widgets = windows.widgets()
    assert len(widgets) == 2
    listbox, entry = sorted(widgets, key=lambda w: w.y0)
    assert listbox.height > 5 * entry.height and listbox.width == entry.width == win.width
    assert entry.y1 == win.height and entry.height < 40
    assert [t.kind for t in windows.toplevels()] == ["main"] and windows.others() == []


def test_a_modal_toplevel_is_seen_and_closed_like_a_window_manager_would(launch, xvfb):
    target, windows = launch("modal_tk")
    win = target.window
    assert win is not None
    main_widgets = windows.widgets()
    assert len(main_widgets) == 4  # the score label and three buttons
    opener = max(main_widgets, key=lambda w: w.y0)  # "Leaderboard", packed last
    executor = make_executor(xvfb.name, True, win.id, lambda: (win.x, win.y, win.width, win.height), xvfb.size)
    try:
        executor.execute(Click(*opener.center))
    finally:
        executor.close()
    assert _wait_for(target, "dialog open")
    time.sleep(0.3)
    others = windows.others()
    assert [(t.kind, t.title, t.can_close) for t in others] == [("dialog", "Leaderboard", True)]
    dialog = others[0]
    tops = windows.toplevels()
    assert [t.kind for t in tops] == ["main", "dialog"]  # stacking order: the dialog is on top
    widgets = windows.widgets()
    in_dialog = [w for w in widgets if w.top == dialog.id]
    assert len(in_dialog) == 3  # label, list, button
    for w in widgets:  # nothing the dialog covers is offered as clickable
        if w.top != dialog.id:
            cx, cy = w.center
            assert not (dialog.x - win.x <= cx < dialog.x - win.x + dialog.width
                        and dialog.y - win.y <= cy < dialog.y - win.y + dialog.height)
    assert windows.close(tops[0].id) is False  # the main window is never closed
    assert windows.close(dialog.id) is True
    assert _wait_for(target, "dialog closed")
    time.sleep(0.2)
    assert windows.others() == []
    assert target.alive()


def test_pygame_draws_into_one_window_so_the_tree_has_no_widgets(launch):
    target, windows = launch("anim_pg")
    assert target.window is not None
    assert windows.widgets() == []
    assert [t.kind for t in windows.toplevels()] == ["main"]
