"""The workbench model as the one broadcast, without Qt: the run shown and its row have subscribers that find the
model consistent when told, a field set to the value it holds tells nobody, every change names its initiator,
and a report that arrives while a change is being told is passed on only for what it adds (no echo)."""

from __future__ import annotations

from app.engine.trace.store import TrajectoryStore
from app.views.model.changes import Changes, run_added, run_changed
from app.views.model.workbench_model import WorkbenchModel


def _run(store: TrajectoryStore, verdict: str) -> int:
    run_id = store.create_run(target="calculator", tester="offline", display="isolated", seed=0, max_steps=1)
    store.finish_run(run_id, status="completed", verdict=verdict, reason="r")
    return run_id


def test_a_view_told_of_the_run_shown_finds_its_row_and_verdict_in_place(tmp_path):
    db = tmp_path / "w.db"
    writer = TrajectoryStore(db)
    first, second = _run(writer, "fail"), _run(writer, "pass")
    model = WorkbenchModel()
    model.open_database(db)
    told: list[tuple[str, object, object]] = []
    model.events.run_id.connect(lambda run_id: told.append(("run_id", run_id, (model.run or {}).get("id"))))
    model.events.run.connect(lambda run: told.append(("run", (run or {}).get("id"), model.verdict)))

    model.select_run(first)
    assert told[-1] == ("run_id", first, first)  # the row is read before the run shown is told
    assert ("run", first, "fail") in told
    told.clear()
    model.select_run(first)
    model.reload_run()  # nothing changed in the file: no field is told
    assert told == []

    writer.finish_run(first, status="completed", verdict="pass", reason="again")
    model.apply(run_changed(first))
    assert [t[0] for t in told] == ["run"] and model.run["reason"] == "again"
    model.select_run(second)
    assert told[-1] == ("run_id", second, second)
    model.close_database()
    writer.close()


def test_a_report_inside_a_change_adds_only_its_news_and_names_whose_it_is(tmp_path):
    db = tmp_path / "e.db"
    writer = TrajectoryStore(db)
    first, second = _run(writer, "fail"), _run(writer, "pass")
    model = WorkbenchModel()
    model.open_database(db)
    the_list, the_view = object(), object()
    told: list[Changes] = []

    def run_list(changes: Changes) -> None:  # as the run list: re-read, and report every row it found changed
        told.append(changes)
        if changes.initiator is not the_list:
            model.apply(Changes(runs=frozenset({first, second})), initiator=the_list)

    model.events.changed.connect(run_list)
    model.apply(Changes(runs=frozenset({first}), verdict=True), initiator=the_view)
    assert [c.initiator for c in told] == [the_view, the_list]
    assert told[0] == Changes(runs=frozenset({first}), verdict=True)
    assert told[1] == Changes(runs=frozenset({second}))  # the first run was news already: only the second is
    told.clear()
    model.apply(Changes(runs=frozenset({first})), initiator=the_list)  # its own report, outside any change
    assert len(told) == 1 and told[0].initiator is the_list  # told once; the list skips its own
    model.apply(Changes())
    assert len(told) == 1  # nothing changed: nobody is told
    model.close_database()
    writer.close()


def test_a_run_work_added_becomes_the_run_shown(tmp_path):
    db = tmp_path / "a.db"
    writer = TrajectoryStore(db)
    model = WorkbenchModel()
    model.open_database(db)
    added = _run(writer, "pass")
    seen: list[object] = []
    model.events.changed.connect(lambda changes: seen.append(("changed", changes.run_list)))
    model.events.run_id.connect(lambda run_id: seen.append(("run_id", run_id)))
    model.apply(run_added(added), initiator="an import")
    assert seen == [("changed", True), ("run_id", added)]  # the list reads first, then shows it
    assert model.run is not None and model.run["id"] == added and model.verdict == "pass"
    assert Changes(runs=frozenset({1, 2}), verdict=True).beyond(Changes(runs=frozenset({1}))) == \
        Changes(runs=frozenset({2}), verdict=True)
    model.close_database()
    writer.close()
