"""The run view's Code tab over a real SQLite file with recorded coverage: marks, source, summary, fallbacks."""

from __future__ import annotations

import shutil

import pytest
from views_support import make_synthetic_run  # noqa: F401  (sets QT_QPA_PLATFORM=offscreen)

from app.views.model.database import Database  # noqa: E402
from app.engine.play.inside import own_lines
from app.engine.play.targetspec import load_spec
from app.engine.trace.code_lines import BEFORE, LATER, NEVER, NEW, line_marks
from app.engine.trace.coverage import START_STEP
from app.engine.trace.store import TrajectoryStore
from app.views.run.code_view import MARK_STYLE
from app.views.run.run_view import CODE_TAB, RunView

from suite import TARGETS


@pytest.fixture
def covered_run(tmp_path):
    """A run of 4 steps over a copy of inside_tk whose coverage names real lines of its main.py."""
    folder = tmp_path / "inside_tk"
    shutil.copytree(TARGETS / "inside_tk", folder)
    total = sorted(own_lines(folder)["main.py"])
    store = TrajectoryStore(tmp_path / "runs.db")
    run = make_synthetic_run(store, 4)
    store.update_run(run, target_path=str(folder), target_rev=load_spec(folder).revision(), seen_through="inside")
    store.set_coverage_files(run, {"main.py": total})
    store.add_coverage(run, START_STEP, {"main.py": total[:5]})
    store.add_coverage(run, 1, {"main.py": total[5:8]})  # the step the test looks at
    store.add_coverage(run, 3, {"main.py": total[8:10]})
    yield store, run, folder, total
    store.close()


def test_marks_tell_each_lines_story():
    steps = {START_STEP: {"a.py": [1]}, 0: {"a.py": [2]}, 2: {"a.py": [3]}}
    assert line_marks(steps, (1, 2, 3, 4), "a.py", 0) == {1: BEFORE, 2: NEW, 3: LATER, 4: NEVER}


def test_code_tab_shows_the_steps_lines_in_highlighted_source(qtbot, qtmodeltester, covered_run):
    store, run, folder, total = covered_run
    view = RunView()
    qtbot.addWidget(view)
    view.resize(1100, 800)
    view.show()
    view.set_database(Database(store))
    view.open_run(run)
    view.tabs.setCurrentIndex(CODE_TAB)
    assert view.tabs.tabText(CODE_TAB) == "Code"
    view.go_to_step(1)
    code = view.code
    qtmodeltester.check(code.model)
    assert code.current_file == "main.py"
    assert code.model.index(0, 1).data() == f"10 / {len(total)} ({100 * 10 / len(total):.0f}%)"
    assert code.model.index(0, 2).data() == "+3"
    note = code.note.text()
    assert "<b>3</b> first at this step" in note and "only line numbers" not in note
    source = (folder / "main.py").read_text().splitlines()
    assert source[total[5] - 1].strip() in code.source.toPlainText()  # the source, not just numbers
    page = code.source.toHtml()
    new_colour = MARK_STYLE[NEW][0]
    text = code.source.toPlainText()
    assert text.count(MARK_STYLE[NEW][1]) == 3 and text.count(MARK_STYLE[LATER][1]) == 2  # 3 new here, 2 later
    assert new_colour in page
    assert 'color:#' in page.split(new_colour, 1)[1][:2000]  # pygments coloured the code

    view.go_to_step(2)  # nothing new at this step: step 1's lines are now "before"
    assert code.model.index(0, 2).data() == "—"
    assert MARK_STYLE[NEW][0] not in code.source.toHtml()
    qtmodeltester.check(code.model)

    store.add_coverage(run, 2, {"main.py": total[10:12]})  # the run recorded more (a live run): re-read
    view.reload_run()
    assert code.current_file == "main.py" and code.model.index(0, 2).data() == "+2"
    assert code.source.toPlainText().count(MARK_STYLE[NEW][1]) == 2


def test_a_changed_folder_shows_line_numbers_and_says_why(qtbot, covered_run):
    store, run, folder, total = covered_run
    (folder / "main.py").write_text((folder / "main.py").read_text() + "# edited after the run\n")
    view = RunView()
    qtbot.addWidget(view)
    view.show()
    view.set_database(Database(store))
    view.open_run(run)
    view.tabs.setCurrentIndex(CODE_TAB)
    view.go_to_step(1)
    assert "changed since the run" in view.code.note.text() and "only line numbers" in view.code.note.text()
    text = view.code.source.toPlainText()
    assert "import tkinter" not in text and str(total[5]) in text
    assert text.count(MARK_STYLE[NEW][1]) == 3 and MARK_STYLE[NEW][0] in view.code.source.toHtml()


def test_a_run_without_coverage_says_so(qtbot, tmp_path):
    store = TrajectoryStore(tmp_path / "runs.db")
    run = make_synthetic_run(store, 2)
    view = RunView()
    qtbot.addWidget(view)
    view.show()
    view.set_database(Database(store))
    view.open_run(run)
    view.tabs.setCurrentIndex(CODE_TAB)
    assert "recorded no line coverage" in view.code.note.text() and view.code.model.rowCount() == 0
    store.close()
