"""AgreementView and its chart: the dashboard shows the same numbers as `validate stats`."""

from __future__ import annotations

import json
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402

from app.views.model.database import Database  # noqa: E402
from app.engine.study import agreement
from app.engine.study import validation  # noqa: E402
from app.engine.trace.store import TrajectoryStore  # noqa: E402
from app.views.labelling.agreement_chart import COLORS, AgreementChart  # noqa: E402
from app.views.labelling.agreement_model import ReportTableModel  # noqa: E402
from app.views.labelling.agreement_view import SHORT_TITLES, AgreementView  # noqa: E402


@pytest.fixture
def store(db_path):
    """40 runs, a 20/20 set, two annotators; the tester is wrong on 4 successes and 2 failures."""
    s = TrajectoryStore(db_path)
    for i in range(40):
        run = s.create_run(target="t", tester="offline")
        s.add_step(run, 0, {"action": {"action": "wait", "seconds": 0.1}, "outcome": "ok", "started_at": 1.0,
                            "ended_at": 1.1})  # only runs with steps are drawn
        s.finish_run(run, status="completed", verdict="pass" if i < 20 else "fail")
    vset = validation.sample_set(s, "s", successes=20, failures=20, seed=1)
    units = validation.units(s, vset)
    good = [u.run_id for u in units if u.tester == "pass"]
    bad = [u.run_id for u in units if u.tester == "fail"]
    for run in good:
        label = "fail" if run in good[:4] else "pass"
        validation.set_label(s, vset, "ann", run, label)
        validation.set_label(s, vset, "bo", run, label)
    for run in bad:
        label = "pass" if run in bad[:2] else "fail"
        validation.set_label(s, vset, "ann", run, label)
        validation.set_label(s, vset, "bo", run, "unsure" if run == bad[-1] else label)
    yield s
    s.close()


def test_table_model_passes_the_model_tester(qtmodeltester):
    model = ReportTableModel(["A", "B", "C"])
    qtmodeltester.check(model)
    model.set_rows([["x", 1, 2.5], ["y"]], ["r1", "r2"])
    qtmodeltester.check(model)
    assert model.data(model.index(1, 2)) == ""
    assert model.headerData(1, Qt.Orientation.Vertical) == "r2"


def test_dashboard_shows_the_report(qtbot, store, tmp_path, qtmodeltester):
    view = AgreementView(Database(store), set_name="s", resamples=200)
    qtbot.addWidget(view)
    with qtbot.waitSignal(view.sig_report_computed, timeout=30000):  # computed off the GUI thread
        view.resize(1000, 700)
        view.show()
    report = view.report
    assert report is not None
    expected = agreement.compute_agreement(validation.units(store, validation.get_set(store, "s")),
                                           resamples=200, seed=1, name="s")
    assert report == expected
    assert report.fn_rate.value == pytest.approx(0.2) and report.fp_rate.value == pytest.approx(0.1)
    for model in (view.progress_model, view.stats_model, view.confusion_model):
        qtmodeltester.check(model)
    cells = [[view.confusion_model.data(view.confusion_model.index(r, c)) for c in range(2)] for r in range(2)]
    assert cells == [["16", "4"], ["2", "18"]]
    rows = {view.stats_model.data(view.stats_model.index(r, 0)): view.stats_model.data(view.stats_model.index(r, 1))
            for r in range(view.stats_model.rowCount())}
    assert rows[SHORT_TITLES["fn_rate"]] == "20.0%"
    assert view.progress_model.data(view.progress_model.index(1, 1)) == "40/40"
    assert view.progress_model.data(view.progress_model.index(1, 4)) == "1"
    bars = {b.key: b for b in view.chart.bars()}
    assert bars["fp_rate"].value == pytest.approx(0.1) and bars["fp_rate"].high == report.fp_rate.high
    assert "FN rate: 20.0%" in view.chart.toolTip()
    view.export_csv(tmp_path / "a.csv")
    view.export_json(tmp_path / "a.json")
    assert json.loads((tmp_path / "a.json").read_text())["fn_rate"]["value"] == pytest.approx(0.2)
    assert (tmp_path / "a.csv").read_text().startswith("section,name")
    vset = validation.get_set(store, "s")
    validation.set_label(store, vset, "cy", validation.units(store, vset)[0].run_id, "pass")
    with qtbot.waitSignal(view.sig_report_computed, timeout=30000):
        qtbot.mouseClick(view.refresh_button, Qt.MouseButton.LeftButton)
    assert view.progress_model.rowCount() == 3


def test_chart_paints_bars_and_whiskers(qtbot, store):
    chart = AgreementChart()
    qtbot.addWidget(chart)
    chart.resize(500, 300)
    empty = chart.grab().toImage()
    assert empty.width() == 500
    report = agreement.compute_agreement(validation.units(store, validation.get_set(store, "s")), resamples=100)
    chart.set_report(report)
    image = chart.grab().toImage()
    colors = {image.pixelColor(x, y).rgb() for x in range(0, image.width(), 3) for y in range(0, image.height(), 3)}
    assert COLORS["rate"].rgb() in colors and COLORS["agreement"].rgb() in colors
    assert chart.axis_range()[1] == 1.0
    chart.set_report(None)
    assert chart.bars() == []


def test_empty_database_says_what_to_do(qtbot, tmp_path):
    store = TrajectoryStore(tmp_path / "empty.db")
    view = AgreementView(Database(store), resamples=10)
    qtbot.addWidget(view)
    assert "validate sample" in view.status.text() and view.report is None
    store.close()
