"""AnnotationView: keyboard labelling, resume, annotator name, promotion and blindness (pytest-qt, offscreen)."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import re  # noqa: E402

import pytest  # noqa: E402
from PIL import Image  # noqa: E402
from PySide6.QtCore import QSettings, Qt  # noqa: E402
from PySide6.QtWidgets import (  # noqa: E402
    QAbstractButton, QAbstractItemView, QComboBox, QLabel, QLineEdit, QPlainTextEdit, QProgressBar, QWidget,
)

from app.views.model.database import Database  # noqa: E402
from app.engine.study import validation  # noqa: E402
from app.engine.trace.store import TrajectoryStore  # noqa: E402
from app.views.labelling import annotation_view  # noqa: E402
from app.views.labelling.annotation_model import STEP_ROLE, StepListModel  # noqa: E402
from app.views.labelling.annotation_view import SETTINGS_KEY, AnnotationView  # noqa: E402

SECRET = "SECRET"
"""Every piece of tester or other-annotator text in these runs contains this word."""


def record_run(store: TrajectoryStore, verdict: str) -> int:
    """A run with two steps, frames, a finish action carrying the verdict, findings, logs and judgments."""
    run = store.create_run(target="flappy@SECRET-bug", tester="offline", bug="SECRET-bug")
    red = store.put_image(Image.new("RGB", (40, 30), (220, 30, 30)))
    blue = store.put_image(Image.new("RGB", (40, 30), (30, 30, 220)))
    t0 = store.run(run)["started_at"]
    store.add_step(run, 0, {"action": {"action": "press", "key": "space"}, "outcome": "ok",
                            "rationale": f"{SECRET} rationale {verdict}", "frame_before": red, "frame_after": blue,
                            "findings": ["stuck"], "started_at": t0 + 0.1, "ended_at": t0 + 0.5},
                   [{"step": 0, "kind": "stuck", "message": f"{SECRET} finding: screen frozen ({verdict})"}])
    store.add_step(run, 1, {"action": {"action": "finish", "verdict": verdict, "reason": f"{SECRET} {verdict} reason"},
                            "outcome": "finish", "started_at": t0 + 0.6, "ended_at": t0 + 0.7})
    store.add_logs(run, [("stdout", t0 + 0.2, "score 0"), ("stderr", t0 + 0.3, "warning: slow frame")])
    store.finish_run(run, status="completed", verdict=verdict, reason=f"{SECRET} the tester says {verdict}")
    store.add_judgment(run, source="tester", author="tester", verdict=verdict, criterion="c1", note=f"{SECRET} c1")
    return run


@pytest.fixture
def store(db_path):
    s = TrajectoryStore(db_path)
    for i in range(8):
        record_run(s, "pass" if i % 2 == 0 else "fail")
    validation.sample_set(s, "s", successes=4, failures=4, seed=3)
    yield s
    s.close()


@pytest.fixture
def settings(tmp_path):
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


def make_view(qtbot, store, settings, annotator="alice") -> AnnotationView:
    view = AnnotationView(Database(store), annotator, set_name="s", settings=settings)
    qtbot.addWidget(view)
    view.resize(900, 600)
    view.show()
    return view


def saved(store, annotator="alice") -> dict[int, validation.Label]:
    return validation.labels_of(store, validation.get_set(store, "s"), annotator)


def test_step_model_passes_the_model_tester(qtmodeltester, store):
    model = StepListModel()
    run = validation.units(store, validation.get_set(store, "s"))[0].run_id
    model.set_steps(validation.blinded_run(store, run).steps)
    qtmodeltester.check(model)
    assert model.rowCount() == 2
    assert model.data(model.index(1, 0)) == "  2  finish()"
    assert model.data(model.index(0, 0), STEP_ROLE).caption == 'press("space")'
    model.set_steps([])
    qtmodeltester.check(model)


def test_keyboard_labelling_saves_at_once_and_navigates(qtbot, store, settings):
    view = make_view(qtbot, store, settings)
    vset = validation.get_set(store, "s")
    order = [i.run_id for i in validation.annotator_order(store, vset, "alice")]
    assert view.current_run() == order[0]
    qtbot.keyClick(view, Qt.Key.Key_1)
    assert saved(store)[order[0]].label == "pass"
    assert view.current_label.text() == "Your label: pass"
    qtbot.keyClick(view, Qt.Key.Key_Return)
    assert view.current_run() == order[1]
    qtbot.keyClick(view.steps_view, Qt.Key.Key_2)  # keys work while the step list has the focus
    qtbot.keyClick(view.steps_view, Qt.Key.Key_Enter)
    qtbot.keyClick(view, Qt.Key.Key_3)
    assert {r: lab.label for r, lab in saved(store).items()} == {order[0]: "pass", order[1]: "fail", order[2]: "unsure"}
    assert view.progress_bar.value() == 3 and view.progress_bar.maximum() == 8
    qtbot.keyClick(view, Qt.Key.Key_Backspace)
    assert view.current_run() == order[1] and view.current_label.text() == "Your label: fail"
    qtbot.keyClick(view, Qt.Key.Key_1)  # relabel replaces
    assert saved(store)[order[1]].label == "pass"
    assert store.conn.execute("SELECT count(*) FROM annotations").fetchone()[0] == 3
    # typing a note: digits go into the note, Enter saves it and moves on, Esc gives the keys back
    view.note_edit.setFocus()
    qtbot.keyClicks(view.note_edit, "2 bugs")
    assert saved(store)[order[1]].label == "pass"
    qtbot.keyClick(view.note_edit, Qt.Key.Key_Return)
    assert saved(store)[order[1]].note == "2 bugs"
    assert view.current_run() == order[2]
    assert view.note_edit.text() == ""
    # labels never become verdicts on their own
    assert all(store.effective_verdict(r) == store.run(r)["verdict"] for r in order)


def test_note_typed_first_is_saved_with_the_label(qtbot, store, settings):
    view = make_view(qtbot, store, settings)
    run = view.current_run()
    view.note_edit.setText("no sound at all")
    qtbot.keyClick(view.note_edit, Qt.Key.Key_Return)  # not labelled yet: stays
    assert view.current_run() == run and "Label this run first" in view.status.text()
    qtbot.keyClick(view.note_edit, Qt.Key.Key_Escape)
    qtbot.keyClick(view, Qt.Key.Key_2)
    assert saved(store)[run].note == "no sound at all"


def test_resume_at_first_unlabelled_and_show_frames_and_logs(qtbot, store, settings):
    vset = validation.get_set(store, "s")
    order = [i.run_id for i in validation.annotator_order(store, vset, "bob")]
    for run in order[:3]:
        validation.set_label(store, vset, "bob", run, "pass")
    view = make_view(qtbot, store, settings, annotator="bob")
    assert view.position == 3 and view.current_run() == order[3]
    assert view.progress_bar.value() == 3
    assert view.before.image() is not None and view.after.image() is not None
    image = view.before.image()
    assert image.pixelColor(image.width() // 2, image.height() // 2).red() > 200
    view.steps_view.setCurrentIndex(view.steps_model.index(1, 0))  # finish step: no frames
    assert view.before.image() is None
    assert "warning: slow frame" in view.log_text.toPlainText()


def test_annotator_name_is_asked_once_and_remembered(qtbot, store, settings, monkeypatch):
    asked: list[int] = []

    def ask(parent):
        asked.append(1)
        return "carol"

    monkeypatch.setattr(annotation_view, "ask_annotator_name", ask)
    first = AnnotationView(Database(store), None, set_name="s", settings=settings)
    qtbot.addWidget(first)
    assert first.annotator == "carol" and settings.value(SETTINGS_KEY) == "carol"
    second = AnnotationView(Database(store), None, set_name="s", settings=settings)
    qtbot.addWidget(second)
    assert second.annotator == "carol" and len(asked) == 1
    qtbot.keyClick(second, Qt.Key.Key_2)
    assert list(saved(store, "carol").values())[0].label == "fail"


def test_cancelled_name_leaves_the_view_disabled(qtbot, store, settings, monkeypatch):
    monkeypatch.setattr(annotation_view, "ask_annotator_name", lambda parent: None)
    view = AnnotationView(Database(store), None, set_name="s", settings=settings)
    qtbot.addWidget(view)
    assert view.annotator is None and not view.pass_button.isEnabled()
    qtbot.keyClick(view, Qt.Key.Key_1)
    assert store.conn.execute("SELECT count(*) FROM annotations").fetchone()[0] == 0


def test_promote_button_appends_a_judgment_only_when_clicked(qtbot, store, settings):
    view = make_view(qtbot, store, settings)
    run = view.current_run()
    tester = store.run(run)["verdict"]
    other = "fail" if tester == "pass" else "pass"
    assert not view.promote_button.isEnabled()
    qtbot.keyClick(view, Qt.Key.Key_3)
    assert not view.promote_button.isEnabled()  # unsure cannot be promoted
    qtbot.keyClick(view, Qt.Key.Key_1 if other == "pass" else Qt.Key.Key_2)
    assert store.effective_verdict(run) == tester
    assert view.promote_button.isEnabled()
    with qtbot.waitSignal(view.sig_promoted) as blocker:
        qtbot.mouseClick(view.promote_button, Qt.MouseButton.LeftButton)
    judgment = blocker.args[1]
    assert store.effective_verdict(run) == other
    assert saved(store)[run].promoted_judgment == judgment
    assert not view.promote_button.isEnabled()
    assert f"promoted to judgment {judgment}" in view.current_label.text()


def visible_text(view: AnnotationView) -> list[str]:
    """Every string the view shows: widget texts, tooltips, list rows, combo items, titles."""
    out = [view.windowTitle()]
    for w in [view, *view.findChildren(QWidget)]:
        out += [w.toolTip(), w.windowTitle(), w.accessibleName(), w.accessibleDescription()]
        if isinstance(w, (QLabel, QAbstractButton)):
            out.append(w.text())
        elif isinstance(w, QLineEdit):
            out += [w.text(), w.placeholderText()]
        elif isinstance(w, QPlainTextEdit):
            out += [w.toPlainText(), w.placeholderText()]
        elif isinstance(w, QComboBox):
            out += [w.itemText(i) for i in range(w.count())]
        elif isinstance(w, QProgressBar):
            out.append(w.text())
        elif isinstance(w, QAbstractItemView) and w.model() is not None:
            model = w.model()
            for row in range(model.rowCount()):
                for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
                    out.append(str(model.data(model.index(row, 0), role) or ""))
    return [t for t in out if t]


def test_annotation_mode_is_blind(qtbot, store, settings):
    vset = validation.get_set(store, "s")
    for unit in validation.units(store, vset):  # another annotator and a human override, both with text
        validation.set_label(store, vset, "bob", unit.run_id, unit.tester, f"{SECRET} bob thinks {unit.tester}")
        store.add_judgment(unit.run_id, source="human", author="lead", verdict=unit.tester, note=f"{SECRET} override")
    tester = {u.run_id: u.tester for u in validation.units(store, vset)}
    view = make_view(qtbot, store, settings)
    pages: dict[str, set[str]] = {"pass": set(), "fail": set()}
    for _ in range(len(tester)):
        run = view.current_run()
        texts = visible_text(view)
        for text in texts:
            assert SECRET not in text, text
            assert "verdict" not in text.lower() and "tester" not in text.lower(), text
            assert "bob" not in text, text
        assert view.current_label.text() == "Your label: not labelled yet"
        # what the annotator sees does not depend on the tester's verdict (runs differ only in it)
        page = "\n".join(re.sub(r"\brun \d+\b", "run N", t) for t in texts)
        page = re.sub(r"Item \d+ of", "Item K of", page)
        pages[tester[run]].add(page)
        qtbot.keyClick(view, Qt.Key.Key_Return)
    assert len(pages["pass"]) == 1 and pages["pass"] == pages["fail"]
