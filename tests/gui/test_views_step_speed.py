"""Moving from step to step repaints what changed, not the whole run (benchmark/gui_speed.py's "next step").

The time axis paints its step ticks, activity band and finding marks once per run and size (a 10,000-step run
spent most of a step on them), and the frame panes paint every pixel, so the panes under them do not repaint
when a new frame comes."""

from __future__ import annotations

import pytest
from views_support import make_synthetic_run

from PySide6.QtCore import QEvent, QObject  # noqa: E402
from PySide6.QtGui import QImage  # noqa: E402

from app.engine.trace.store import TrajectoryStore  # noqa: E402
from app.views.model.database import Database  # noqa: E402
from app.views.run.run_view import RunView  # noqa: E402
from app.views.run.scrub_view import ScrubView  # noqa: E402


@pytest.fixture
def shown_run(qtbot, tmp_path):
    store = TrajectoryStore(tmp_path / "s.db")
    run_id = make_synthetic_run(store, 1200, distinct_frames=4)  # findings at steps 5 and 1002
    view = RunView()
    view.resize(1100, 800)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    view.set_database(Database(store))
    paints = view.after.paints
    view.open_run(run_id)
    qtbot.waitUntil(lambda: view.after.paints > paints, timeout=2000)
    yield view, store, run_id
    view.player.close()
    store.close()


def next_step_shown(qtbot, view: RunView) -> None:
    paints = view.after.paints
    view.next_step()
    qtbot.waitUntil(lambda: view.after.paints > paints, timeout=2000)


def fresh_rendering(scrub: ScrubView) -> QImage:
    """The time axis as a new view paints it (no kept marks), same run, size, selection and playhead."""
    other = ScrubView()
    other.resize(scrub.size())
    other.set_run(None, None, scrub.steps, list(scrub._findings), scrub._frames)
    other.t0, other.t1 = scrub.t0, scrub.t1
    other._selected, other.playhead = scrub._selected, scrub.playhead
    return other.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)


def test_stepping_does_not_repaint_the_time_axis_marks(shown_run, qtbot, monkeypatch):
    view, _, _ = shown_run
    view.scrub.repaint()
    computed = []
    real = ScrubView._tick_rows
    monkeypatch.setattr(ScrubView, "_tick_rows", lambda self: computed.append(1) or real(self))
    for _ in range(10):
        view.next_step()
        view.scrub.repaint()
    assert view.current_row() == 10
    assert computed == []  # the ticks of 1,200 steps were placed again on every step


def test_the_kept_time_axis_looks_as_a_fresh_one(shown_run, qtbot, tmp_path):
    view, store, _ = shown_run
    scrub = view.scrub
    view.go_to_row(500)
    scrub.repaint()
    assert scrub.grab().toImage().convertToFormat(QImage.Format.Format_RGB32) == fresh_rendering(scrub)
    scrub.resize(scrub.width() - 137, scrub.height())  # a new size places the ticks again
    view.go_to_row(1002)
    assert scrub.grab().toImage().convertToFormat(QImage.Format.Format_RGB32) == fresh_rendering(scrub)
    other = make_synthetic_run(store, 40, distinct_frames=2)  # a new run: its own ticks, not the last run's
    view.open_run(other)
    assert len(scrub.steps) == 40
    assert scrub.grab().toImage().convertToFormat(QImage.Format.Format_RGB32) == fresh_rendering(scrub)


class Paints(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.count += 1
        return False


def test_a_new_frame_repaints_the_frame_panes_only(shown_run, qtbot):
    view, _, _ = shown_run
    pair = view.before.parentWidget()  # the splitter holding the panes
    paints = Paints()
    pair.installEventFilter(paints)
    for _ in range(5):
        next_step_shown(qtbot, view)
    pair.removeEventFilter(paints)
    assert paints.count == 0
