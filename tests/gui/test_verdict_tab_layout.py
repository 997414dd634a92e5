"""The verdict tab in the run view's short tab area: the tester's reason is shown whole (not cut in half) and
the criteria table never lies over the history; what does not fit scrolls."""

from __future__ import annotations

from PySide6.QtCore import QRect
from PySide6.QtWidgets import QApplication, QTreeWidgetItem
from views_support import make_synthetic_run

from app.engine.trace.store import TrajectoryStore
from app.views.model.database import Database
from app.views.run.run_view import VERDICT_TAB, RunView

REASON = ("crash at step 4: the program raised ZeroDivisionError in compute() after the key r was pressed, "
          "and its window closed")


def _in(view, widget) -> QRect:
    return QRect(widget.mapTo(view, widget.rect().topLeft()), widget.size())


def test_reason_whole_and_criteria_apart_from_history(qtbot, tmp_path):
    store = TrajectoryStore(tmp_path / "v.db")
    run_id = make_synthetic_run(store, 5, verdict="fail")
    store.update_run(run_id, reason=REASON)
    view = RunView()
    view.resize(1280, 800)
    qtbot.addWidget(view)
    view.show()
    view.set_database(Database(store))
    view.open_run(run_id)
    view.tabs.setCurrentIndex(VERDICT_TAB)
    verdict = view.verdict
    verdict.criteria.addTopLevelItem(QTreeWidgetItem(["goal reached", "fail", "the display shows 53"]))
    verdict.criteria.setVisible(True)
    for _ in range(5):
        QApplication.processEvents()
    assert verdict.height() < 200  # the tab area is short, as in the workbench
    line = verdict.tester_line
    assert line.height() >= line.heightForWidth(line.width())  # every wrapped line of the reason is shown
    criteria, history = _in(verdict, verdict.criteria), _in(verdict, verdict.history)
    assert not criteria.intersects(history), (criteria, history)
    assert criteria.height() >= verdict.criteria.minimumHeight() and history.height() >= verdict.history.minimumHeight()
    store.close()
