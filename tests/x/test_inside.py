"""The inside channel on real programs under Xvfb: widget trees (Tk, PySide6), coverage, idle, and its limits."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from app.engine.play.actions import Click
from app.engine.play.executor import make_executor
from app.engine.play.inside import Inside, InsideWidget, own_lines
from app.engine.play.target import TargetProcess
from app.engine.play.targetspec import load_spec
from app.engine.play.xwidgets import widget_rects

from suite import TARGETS, needs_xvfb

pytestmark = needs_xvfb
HELLO_S = 10.0


def _until(probe, timeout=5.0, every=0.05):
    """Poll ``probe`` until it returns something truthy (or ``timeout``): the value, else None."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = probe()
        if value:
            return value
        time.sleep(every)
    return None


def _line_of(folder: Path, text: str) -> int:
    lines = (folder / "main.py").read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)


def _played(xvfb, folder: Path):
    target = TargetProcess(load_spec(folder), xvfb)
    win = target.wait_for_window()

    def geometry():
        w = target.window
        return (w.x, w.y, w.width, w.height)

    return target, make_executor(xvfb.name, True, win.id, geometry, xvfb.size)


def _one(widgets: list[InsideWidget], **match) -> InsideWidget:
    found = [w for w in widgets if all(getattr(w, k) == v for k, v in match.items())]
    assert len(found) == 1, (match, widgets)
    return found[0]


def _centre(box):
    return (box[0] + box[2]) // 2, (box[1] + box[3]) // 2


@pytest.fixture
def tk_app(xvfb):
    target, executor = _played(xvfb, TARGETS / "inside_tk")
    yield target, executor
    executor.close()
    target.shutdown()


def test_tk_widgets_boxes_menus_and_the_coverage_of_a_click(tk_app):
    target, executor = tk_app
    inside = target.inside
    assert inside.wait_hello(HELLO_S) and inside.toolkit == "tk" and inside.source == "inside"
    widgets = _until(lambda: inside.widgets())
    press = _one(widgets, kind="button", text="Press")
    entry = _one(widgets, kind="entry")
    assert entry.text == "hello" and entry.enabled and entry.visible
    assert press.has_command and press.enabled
    # Tk widgets are X windows: their rectangles in the X tree are where the toolkit says they are.
    win = target.window
    rects = {(w.x0, w.y0, w.x1, w.y1) for w in widget_rects(target.xconn(), win.id, (win.x, win.y))}
    assert press.box in rects and entry.box in rects
    new = _one(widgets, kind="menuitem", text="New")
    assert new.menu_path == ("File", "New") and new.shortcut == "Ctrl+N" and new.has_command
    assert not _one(widgets, kind="menuitem", text="Quit").enabled
    assert _one(widgets, kind="canvas").has_command  # an item of it is bound (tag_bind)
    assert inside.coverage() is not None  # what start-up ran
    executor.execute(Click(*_centre(press.box)))
    handler = _line_of(TARGETS / "inside_tk", "clicks[0] += 1")
    seen: set[tuple[str, int]] = set()

    def ran_handler():
        delta = inside.coverage()
        seen.update(delta.lines if delta is not None else ())
        return ("main.py", handler) in seen

    assert _until(ran_handler)
    assert ("main.py", handler + 1) in seen
    assert _one(inside.widgets(), kind="label").text == "clicked 1"
    assert inside.lines_total() == len(own_lines(TARGETS / "inside_tk")["main.py"])
    assert 0 < inside.lines_hit() < inside.lines_total()  # on_new never ran
    # The menu bar's entry is where a click opens the menu: its items then have boxes on the screen.
    executor.execute(Click(*_centre(_one(widgets, kind="menu", text="File").box)))
    posted = _until(lambda: _one(inside.widgets() or [], kind="menuitem", text="New").box)
    executor.execute(Click(*_centre(posted)))
    assert _until(lambda: _one(inside.widgets() or [], kind="label").text == "new")


def test_tk_idle_reports_a_one_shot_timer_and_knows_a_blink_repeats(tk_app):
    target, executor = tk_app
    inside = target.inside
    assert inside.wait_hello(HELLO_S)
    # The 500 ms blink reschedules itself: once it has fired, it is known to repeat and holds nothing.
    blink = _until(lambda: (lambda r: r if r is not None and r.repeating else None)(inside.idle(1.0)))
    assert blink.idle and 0 <= blink.next_timer_ms <= 500
    later = _one(_until(lambda: inside.widgets()), kind="button", text="Later")
    executor.execute(Click(*_centre(later.box)))
    shot = _until(lambda: (lambda r: r if r is not None and not r.repeating else None)(inside.idle(1.0)), every=0)
    assert shot.idle and 0 <= shot.next_timer_ms <= 150
    assert _until(lambda: _one(inside.widgets() or [], kind="label").text == "later")
    after = _until(lambda: (lambda r: r if r is not None and r.repeating else None)(inside.idle(1.0)))
    assert after.next_timer_ms <= 500


def test_qt_widgets_boxes_actions_and_coverage(xvfb):
    target, executor = _played(xvfb, TARGETS / "inside_qt")
    try:
        inside = target.inside
        assert inside.wait_hello(HELLO_S) and inside.toolkit == "qt"
        widgets = _until(lambda: inside.widgets())
        press = _one(widgets, kind="button", text="Press")
        entry = _one(widgets, kind="entry")
        assert entry.text == "type here" and press.has_command and not entry.has_command
        board = _one(widgets, cls="Board")  # drawn and clicked by the program's own subclass
        assert board.kind == "canvas" and board.has_command
        top = _one(widgets, cls="QMenuBar").box[3]
        assert press.box == (20, top + 20, 120, top + 60)  # setGeometry(20, 20, 100, 40) below the menu bar
        new = _one(widgets, kind="menuitem", text="New")
        assert new.menu_path == ("File", "New") and new.shortcut == "Ctrl+N" and not new.visible
        inside.coverage()
        executor.execute(Click(*_centre(press.box)))
        handler = _line_of(TARGETS / "inside_qt", 'label.setText("clicked")')
        seen: set[tuple[str, int]] = set()

        def ran_handler():
            delta = inside.coverage()
            seen.update(delta.lines if delta is not None else ())
            return ("main.py", handler) in seen

        assert _until(ran_handler)
        assert _one(inside.widgets(), kind="label").text == "clicked"
        executor.execute(Click(*_centre(_one(widgets, kind="menu", text="File").box)))
        posted = _until(lambda: _one(inside.widgets() or [], kind="menuitem", text="New").box)
        executor.execute(Click(*_centre(posted)))
        assert _until(lambda: _one(inside.widgets() or [], kind="label").text == "new")
        report = _until(lambda: inside.idle(1.0))
        assert report.idle and report.repeating and report.next_timer_ms <= 500
    finally:
        executor.close()
        target.shutdown()


def _folder(tmp_path: Path, command: str, main: str) -> Path:
    folder = tmp_path / "prog"
    folder.mkdir()
    (folder / "playcoder.toml").write_text(f'name = "prog"\ncommand = {command}\n')
    (folder / "main.py").write_text(main)
    return folder


def test_a_program_that_is_not_python_stays_on_pixels(xvfb, tmp_path):
    folder = _folder(tmp_path, '["sh", "-c", "sleep 3"]', "")
    target = TargetProcess(load_spec(folder), xvfb)
    try:
        assert not target.inside.wait_hello(1.0)
        inside = target.inside
        assert (inside.available, inside.source, inside.toolkit) == (False, "pixels", "")
        assert inside.widgets() is None and inside.idle(0.2) is None and inside.coverage() is None
    finally:
        target.shutdown()


DEAF = '''
import json, os, time
req, evt = (int(x) for x in os.environ["PLAYCODER_INSIDE"].split(","))
os.write(evt, b"x" * (1 << 21) + b"\\n")   # far too long: dropped
os.write(evt, b"not json\\n")
for bad in ({"v": 1, "type": "coverage", "files": [1, 2]}, {"v": 1, "type": "reply", "id": [1], "files": {}},
            {"v": 2, "type": "hello"}, {"v": 1, "type": "coverage", "files": {"other.py": [1], "main.py": [2, 999]}}):
    os.write(evt, json.dumps(bad).encode() + b"\\n")
os.write(evt, json.dumps({"v": 1, "type": "hello", "toolkit": "tk", "python": "?"}).encode() + b"\\n")
time.sleep(60)                             # never reads a request
'''


def test_a_program_that_never_answers_does_not_hold_the_engine(xvfb, tmp_path):
    folder = _folder(tmp_path, '["python", "-S", "main.py"]', DEAF)  # -S: no sitecustomize, a bare channel
    target = TargetProcess(load_spec(folder), xvfb)
    try:
        inside = target.inside
        assert inside.wait_hello(HELLO_S) and inside.toolkit == "tk"
        assert inside.dropped == 3  # too long, not JSON, another version
        assert inside.lines_hit() == 1  # of its own files' lines only: main.py line 2
        assert inside.widgets(timeout_s=0.2) is None and inside.idle(0.2) is None
        # Its request pipe fills up: the engine's writes fail at once instead of blocking.
        for _ in range(2000):
            assert inside.idle(0.0) is None
    finally:
        target.shutdown()
    assert inside.coverage().lines == {("main.py", 2)}  # what it sent, given once even after its end
    assert inside.coverage() is None


BUSY_TK = '''
import time, tkinter as tk
root = tk.Tk()
root.geometry("120x80+0+0")
tk.Button(root, text="Stuck").pack()
root.after(300, lambda: time.sleep(60))   # the Tk thread never comes back
root.mainloop()
'''


def test_a_frozen_gui_thread_answers_nothing_but_coverage_still_comes(xvfb, tmp_path):
    folder = _folder(tmp_path, '["python", "main.py"]', BUSY_TK)
    target = TargetProcess(load_spec(folder), xvfb)
    try:
        target.wait_for_window()
        inside = target.inside
        assert inside.wait_hello(HELLO_S) and inside.toolkit == "tk"
        time.sleep(0.6)
        assert inside.widgets(timeout_s=0.3) is None and inside.idle(0.3) is None
        delta = inside.coverage(timeout_s=2.0)
        assert delta is not None and ("main.py", 6) in delta.lines
    finally:
        target.shutdown()


def test_own_lines_leave_tests_and_packages_out(tmp_path):
    (tmp_path / "game.py").write_text("x = 1\n\ndef f():\n    return x\n")
    for sub in ("tests", ".venv", "lib/site-packages"):
        (tmp_path / sub).mkdir(parents=True)
        (tmp_path / sub / "mod.py").write_text("y = 2\n")
    (tmp_path / "broken.py").write_text("def (:\n")
    (tmp_path / "test_game.py").write_text("z = 3\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "part.py").write_text("a = 1\nb = 2\n")
    lines = own_lines(tmp_path)
    assert lines == {"game.py": frozenset({1, 3, 4}), "pkg/part.py": frozenset({1, 2})}
    inside = Inside(tmp_path)
    try:
        assert inside.lines_total() == 5 and inside.lines_hit() == 0 and not inside.available
    finally:
        inside.close()


def test_many_new_lines_come_in_several_messages(xvfb, tmp_path):
    many = 25000  # more line numbers than one message carries (the program splits them)
    folder = _folder(tmp_path, '["python", "main.py"]', "".join(f"v{i} = {i}\n" for i in range(many))
                     + "import time\ntime.sleep(60)\n")
    target = TargetProcess(load_spec(folder), xvfb)
    try:
        inside = target.inside
        assert inside.wait_hello(HELLO_S)
        seen: set[tuple[str, int]] = set()

        def all_lines():
            delta = inside.coverage(timeout_s=2.0)
            seen.update(delta.lines if delta is not None else ())
            return len(seen) >= many

        assert _until(all_lines, timeout=20)
        assert inside.dropped == 0 and inside.lines_hit() == inside.lines_total() == many + 2  # + import, sleep
    finally:
        target.shutdown()


TRACED = '''
class A:
    def m(self, v):
        if v > 3:
            return v
        for i in range(3):
            v += i
        else:
            v -= 1
        try:
            1 / 0
        except ZeroDivisionError:
            pass
        finally:
            v += 0
        return [i for i in range(2)], (lambda q: q)(v)


def gen():
    yield 1


def run():
    A().m(1), A().m(5), list(gen())
'''
TRACER = '''
import json, sys
sys.path.insert(0, sys.argv[1])
import _playcoder_inside as inside
tracer = inside.Tracer(".")
tracer.start()
import traced
traced.run()
traced.run()
sys.settrace(None)
left = {code.co_name: sorted(unseen) for code, rel, unseen in tracer.codes.values() if unseen}
print(json.dumps({"left": left, "lines": {f: sorted(v) for f, v in tracer.take().items()}}))
'''


def test_the_tracer_sees_every_line_the_engine_counts_and_then_stops(tmp_path):
    """Each code object is traced until all its lines ran, and the engine's count is the tracer's."""
    import json
    import subprocess
    import sys

    from app.engine.play.target import SEEDING_DIR

    (tmp_path / "traced.py").write_text(TRACED)
    (tmp_path / "trace_it.py").write_text(TRACER)
    out = subprocess.run([sys.executable, "trace_it.py", str(SEEDING_DIR)], cwd=tmp_path, capture_output=True,
                         text=True, timeout=60, check=True).stdout
    report = json.loads(out)
    assert report["left"] == {}, report["left"]  # every code object seen whole: none traced any more
    assert report["lines"]["traced.py"] == sorted(own_lines(tmp_path)["traced.py"])


MODE_TK = """import tkinter as tk
root = tk.Tk()
root.geometry("200x120+0+0")
mode = {"shape": "line", "tool": print}
canvas = tk.Canvas(root, bg="white")
canvas.pack(fill="both", expand=True)
root.bind("<KeyPress-c>", lambda e: mode.update(shape="circle"))  # picks a mode: nothing is drawn
root.bind("<KeyPress-t>", lambda e: mode.update(tool=len))  # which function is held is state too
root.bind("<Key>", lambda e: None, add="+")  # every key reaches a handler that does nothing
canvas.focus_set()
root.mainloop()
"""


def test_a_tk_program_says_when_an_input_changed_its_state(xvfb, tmp_path):
    """Its idle answers carry a digest of what its main module's globals reach: a key that picks a mode changes
    it though nothing is drawn; a key whose handler does nothing leaves it."""
    from app.engine.play.actions import Press

    folder = _folder(tmp_path, '["python", "main.py"]', MODE_TK)
    target, executor = _played(xvfb, folder)
    try:
        inside = target.inside
        assert inside.wait_hello(HELLO_S) and _until(lambda: inside.idle(1.0))
        first = inside.state
        assert first
        executor.execute(Press("x"))
        assert _until(lambda: inside.idle(1.0)) and inside.state == first
        executor.execute(Press("c"))
        assert _until(lambda: inside.idle(1.0) and inside.state != first)
        second = inside.state
        executor.execute(Press("t"))
        assert _until(lambda: inside.idle(1.0) and inside.state not in (first, second))
    finally:
        executor.close()
        target.shutdown()


def test_an_installed_module_run_with_python_m_is_the_programs_own_code(xvfb, tmp_path):
    """A program played as an installed module (``python -m game.play``, outside its folder): its module's file
    is counted and covered under its module path, and nothing else of the package is."""
    folder = tmp_path / "prog"
    lib = folder / "venv" / "lib" / "site-packages"  # (the sandbox hides /tmp but shows the folder at its place)
    (lib / "game").mkdir(parents=True)
    (lib / "game" / "__init__.py").write_text("PACKAGE = 1\n")
    (lib / "game" / "other.py").write_text("a = 1\nb = 2\n")
    (lib / "game" / "play.py").write_text("import time\nx = 1\nif x:\n    y = 2\nelse:\n    y = 3\ntime.sleep(30)\n")
    (folder / "playcoder.toml").write_text(f'name = "prog"\ncommand = ["python", "-m", "game.play"]\n'
                                           f'env = {{ PYTHONPATH = "{lib}" }}\n')
    target = TargetProcess(load_spec(folder), xvfb)
    try:
        inside = target.inside
        assert inside.wait_hello(HELLO_S)
        assert inside.lines_by_file() == {"game/play.py": frozenset({1, 2, 3, 4, 6, 7})}
        assert _until(lambda: inside.lines_hit() == 5, timeout=10)  # all but the else branch
    finally:
        target.shutdown()
