"""Qt models of the workbench: runs table + filter proxy, lazily fetched steps."""

from __future__ import annotations

import time

from views_support import make_synthetic_run

from PySide6.QtCore import QModelIndex, Qt  # noqa: E402
from PySide6.QtGui import QPixmap  # noqa: E402

from app.views.model.database import Database  # noqa: E402
from app.engine.trace.store import TrajectoryStore  # noqa: E402
from app.views.widgets.frame_cache import FrameCache  # noqa: E402
from app.views.browser.run_browser_view import RunBrowserView  # noqa: E402
from app.views.browser.runs_model import COLUMN_OF, SORT_ROLE, RunsModel  # noqa: E402
from app.views.browser.runs_proxy import NO_VERDICT, RunsProxyModel  # noqa: E402
from app.views.run.steps_model import CAPTION_ROLE, FETCH_CHUNK, STEP_ROLE, StepsModel  # noqa: E402


def _store_with_runs(tmp_path):
    store = TrajectoryStore(tmp_path / "runs.db")
    ids = {
        "flappy-pass": make_synthetic_run(store, 5, target="flappy", verdict="pass", distinct_frames=3),
        "calc-fail": make_synthetic_run(store, 4, target="calculator@wrong-subtraction", verdict="fail",
                                        distinct_frames=3),
        "calc-error": make_synthetic_run(store, 3, target="calculator", verdict="error", tester="llm",
                                         distinct_frames=3),
        "running": make_synthetic_run(store, 2, target="tiles2048", verdict=None, status="running",
                                      distinct_frames=3),
    }
    return store, ids


def test_runs_model_passes_modeltester_and_merges_by_id(qtmodeltester, tmp_path):
    store, ids = _store_with_runs(tmp_path)
    model = RunsModel()
    model.set_rows(store.runs())
    qtmodeltester.check(model)
    assert model.rowCount() == 4
    row = model.row_of(ids["calc-fail"])
    assert model.index(row, COLUMN_OF["effective_verdict"]).data() == "fail"
    assert model.index(row, COLUMN_OF["step_count"]).data() == "4"
    assert model.index(row, COLUMN_OF["step_count"]).data(SORT_ROLE) == 4.0
    assert model.index(model.row_of(ids["running"]), COLUMN_OF["effective_verdict"]).data() == "…"

    # A human override shows with a mark and a tooltip; the merge keeps row identity.
    store.add_judgment(ids["calc-fail"], source="human", author="bob", verdict="pass", note="actually fine")
    inserted: list[int] = []
    model.rowsInserted.connect(lambda *_: inserted.append(1))
    model.set_rows(store.runs())
    assert not inserted and model.row_of(ids["calc-fail"]) == row
    cell = model.index(row, COLUMN_OF["effective_verdict"])
    assert cell.data() == "pass ✎"
    assert "tester said fail" in cell.data(Qt.ItemDataRole.ToolTipRole)

    new_id = make_synthetic_run(store, 1, target="new", distinct_frames=1)
    model.set_rows(store.runs())
    assert model.rowCount() == 5 and model.row_of(new_id) is not None
    qtmodeltester.check(model)
    store.close()


def test_runs_proxy_sorts_searches_and_filters_by_verdict(qtmodeltester, tmp_path):
    store, ids = _store_with_runs(tmp_path)
    model = RunsModel()
    model.set_rows(store.runs())
    proxy = RunsProxyModel()
    proxy.setSourceModel(model)
    qtmodeltester.check(proxy)
    proxy.sort(COLUMN_OF["step_count"], Qt.SortOrder.AscendingOrder)
    steps = [int(proxy.index(r, COLUMN_OF["step_count"]).data()) for r in range(proxy.rowCount())]
    assert steps == sorted(steps)

    proxy.set_search("calculator")
    assert {proxy.run_id_at(r) for r in range(proxy.rowCount())} == {ids["calc-fail"], ids["calc-error"]}
    proxy.set_search("CALC llm")  # every word must match, any case; tester is searched too
    assert [proxy.run_id_at(r) for r in range(proxy.rowCount())] == [ids["calc-error"]]
    proxy.set_search("fail")  # verdicts are searched
    assert [proxy.run_id_at(r) for r in range(proxy.rowCount())] == [ids["calc-fail"]]
    proxy.set_search("")
    proxy.set_verdict("pass")
    assert [proxy.run_id_at(r) for r in range(proxy.rowCount())] == [ids["flappy-pass"]]
    proxy.set_verdict(NO_VERDICT)
    assert [proxy.run_id_at(r) for r in range(proxy.rowCount())] == [ids["running"]]
    proxy.set_verdict(None)
    assert proxy.rowCount() == 4
    qtmodeltester.check(proxy)
    store.close()


def test_run_browser_selects_runs_and_clears_hiding_filters(qtbot, tmp_path):
    store, ids = _store_with_runs(tmp_path)
    view = RunBrowserView()
    qtbot.addWidget(view)
    view.set_database(Database(store))
    assert view.count_label.text() == "4 runs"
    view.verdict_filter.setCurrentIndex(view.verdict_filter.findData("fail"))
    assert view.count_label.text() == "1 of 4 runs"
    with qtbot.waitSignal(view.sig_run_selected, timeout=1000) as blocker:
        assert view.select_run(ids["flappy-pass"])  # hidden by the filter: the filter is cleared
    assert blocker.args == [ids["flappy-pass"]]
    assert view.current_run_id() == ids["flappy-pass"]
    assert view.verdict_filter.currentIndex() == 0
    view.search.setText("tiles")
    assert view.proxy.rowCount() == 1
    assert not view.select_run(12345)
    store.close()


def test_steps_model_passes_modeltester(qtmodeltester, tmp_path):
    store = TrajectoryStore(tmp_path / "steps.db")
    run_id = make_synthetic_run(store, 450, distinct_frames=5)
    frames = FrameCache(store)
    model = StepsModel(frames=frames)
    model.set_run(Database(store), run_id)
    qtmodeltester.check(model)
    assert model.rowCount() > 0
    index = model.index(0, 0)
    assert index.data().startswith("#1 click(120, 80)")  # steps are numbered from 1 for people
    assert isinstance(index.data(Qt.ItemDataRole.DecorationRole), QPixmap)
    store.close()


def test_steps_model_fetches_a_10000_step_run_lazily(qtbot, tmp_path):
    store = TrajectoryStore(tmp_path / "big.db")
    run_id = make_synthetic_run(store, 10_000)
    calls: list[tuple[int, int]] = []
    real_steps = store.steps

    def counting_steps(rid, offset=0, limit=-1):
        calls.append((offset, limit))
        return real_steps(rid, offset, limit)

    store.steps = counting_steps  # type: ignore[method-assign]
    model = StepsModel(frames=FrameCache(store))
    t0 = time.perf_counter()
    model.set_run(Database(store), run_id)
    assert model.rowCount() == 0 and model.available == 10_000 and calls == []
    assert model.canFetchMore(QModelIndex())
    model.fetchMore(QModelIndex())
    opened = time.perf_counter() - t0
    assert model.rowCount() == FETCH_CHUNK and calls == [(0, FETCH_CHUNK)]
    assert opened < 1.0
    assert model.index(FETCH_CHUNK - 1, 0).data(STEP_ROLE)["idx"] == FETCH_CHUNK - 1

    assert model.ensure_loaded(1234)
    assert model.rowCount() == 1400 and len(calls) == 7
    assert model.index(1234, 0).data(CAPTION_ROLE) == "double_click(300, 200)"  # 1234 % 9 == 1
    assert model.row_of_idx(9999) == 9999 and model.rowCount() == 10_000
    assert not model.canFetchMore(QModelIndex())
    # Thumbnails are decoded lazily and cached by frame hash: 40 distinct frames at most.
    for row in range(0, 10_000, 97):
        model.index(row, 0).data(Qt.ItemDataRole.DecorationRole)
    assert model.frames is not None and model.frames.decodes <= 40
    store.close()


def test_steps_model_follows_a_growing_run(qtbot, tmp_path):
    store = TrajectoryStore(tmp_path / "live.db")
    run_id = make_synthetic_run(store, 3, status="running", distinct_frames=2)
    model = StepsModel()
    model.set_run(Database(store), run_id)
    model.fetchMore(QModelIndex())
    assert model.rowCount() == 3
    sha = store.steps(run_id)[0]["frame_after"]
    for i in (3, 4):
        store.add_step(run_id, i, {"action": {"action": "press", "key": "a"}, "outcome": "ok", "frame_before": sha,
                                   "frame_after": sha, "started_at": time.time(), "ended_at": time.time()})
    with qtbot.waitSignal(model.rowsInserted, timeout=1000):
        model.set_available(5)
    assert model.rowCount() == 5 and model.step_at(4)["idx"] == 4
    model.set_available(5)  # no change: nothing happens
    assert model.rowCount() == 5
    store.close()
