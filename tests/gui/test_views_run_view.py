"""The run view over a real recorded run: navigation, details, findings, verdict overrides, replay."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image
from views_support import isolated_settings, make_synthetic_run, needs_xvfb, probe_db, probe_db_template  # noqa: F401

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtGui import QColor, QImage  # noqa: E402
from PySide6.QtWidgets import QInputDialog  # noqa: E402

from app.views.model.database import Database  # noqa: E402
from app.engine.trace.difference import DIFF_COLOR  # noqa: E402
from app.engine.trace.store import TrajectoryStore  # noqa: E402
from app.views.run.replay_controller import MAX_DELAY_S, MIN_DELAY_S, ReplayController  # noqa: E402
from app.views.run.run_view import FINDINGS_TAB, RunView  # noqa: E402
from app.views.run.steps_model import BADGE_ROLE, StepsModel  # noqa: E402
from app.views.widgets.verdict_style import VERDICT_COLORS  # noqa: E402
from app.views.run.override_dialog import OverrideDialog  # noqa: E402
from app.views.run.verdict_view import AUTHOR_KEY, VerdictView  # noqa: E402
from app.views.widgets.identity import identity  # noqa: E402


@pytest.fixture
def run_view(qtbot):
    view = RunView()
    view.resize(1100, 800)
    qtbot.addWidget(view)
    view.show()
    return view


@needs_xvfb
def test_run_view_shows_a_real_run(run_view, probe_db, qtbot):
    store = TrajectoryStore(probe_db)
    run_id = store.runs()[0]["id"]
    run_view.set_database(Database(store))
    with qtbot.waitSignal(run_view.sig_step_changed, timeout=2000) as blocker:
        run_view.open_run(run_id)
    assert blocker.args == [0]
    assert run_view.before.image() is not None and run_view.after.image() is not None
    assert run_view.before.image().width() == 400  # full resolution, the probe window is 400x300
    assert "Run #" in run_view.header.title.text() and "PASS" in run_view.header.title.text()
    assert "Step #1" in run_view.details.toPlainText()  # idx 0, numbered from 1
    assert "probe started" in run_view.details.toPlainText()  # the target's log around the step

    run_view.next_step()
    assert run_view.current_row() == 1
    run_view.last_step()
    assert run_view.current_row() == 5
    run_view.next_step()  # clamps at the end
    assert run_view.current_row() == 5
    run_view.first_step()
    assert run_view.current_row() == 0
    run_view.previous_step()
    assert run_view.current_row() == 0
    assert run_view.film.selectionModel() is run_view.timeline.selectionModel()
    store.close()


def test_findings_jump_to_their_step(run_view, qtbot, tmp_path):
    store = TrajectoryStore(tmp_path / "f.db")
    run_id = make_synthetic_run(store, 1200, distinct_frames=4)  # findings at steps 5 and 1002
    run_view.set_database(Database(store))
    run_view.open_run(run_id)
    assert run_view.tabs.tabText(FINDINGS_TAB) == "Findings (2)"
    item = run_view.findings.item(1)
    assert item.text().startswith("step 1003 · exception")  # idx 1002
    with qtbot.waitSignal(run_view.sig_step_changed, timeout=2000) as blocker:
        run_view.findings.itemClicked.emit(item)
    assert blocker.args == [1002]
    assert "boom at 1002" in run_view.details.toPlainText()
    store.close()


def test_verdict_override_and_undo_append_judgments(qtbot, tmp_path, isolated_settings, monkeypatch):
    store = TrajectoryStore(tmp_path / "v.db")
    run_id = make_synthetic_run(store, 3, verdict="fail", distinct_frames=2)
    store.add_judgment(run_id, source="tester", author="tester", verdict="pass", criterion="score", note="score rose")
    view = VerdictView()
    qtbot.addWidget(view)
    view.set_run(Database(store), run_id)
    assert "FAIL" in view.badge.text()
    assert view.criteria.topLevelItemCount() == 1 and view.criteria.topLevelItem(0).text(2) == "score rose"
    before = len(store.judgments(run_id))

    shown = []

    def confirm(dialog, reason):
        def exec_(self):
            shown.append(self)
            assert self.verdict == "pass" and not self.record_button.isEnabled()  # no reason, no override
            self.reason_edit.setText(reason)
            if reason:
                assert self.record_button.isEnabled()
                self.record_button.click()
                return OverrideDialog.DialogCode.Accepted
            return OverrideDialog.DialogCode.Rejected
        return exec_

    monkeypatch.setattr(OverrideDialog, "exec", confirm(OverrideDialog, ""))
    view.pass_button.click()  # one click never records: the dialog asks why, and was cancelled
    assert len(store.judgments(run_id)) == before and len(shown) == 1
    assert not shown[0].asks_name  # the identity is known: no name field, no name prompt
    monkeypatch.setattr(OverrideDialog, "exec", confirm(OverrideDialog, "the game over screen is correct"))
    with qtbot.waitSignal(view.sig_verdict_changed, timeout=1000):
        view.pass_button.click()
    rows = store.judgments(run_id)
    assert len(rows) == before + 1
    assert rows[-1]["source"] == "human" and rows[-1]["author"] == "alice" and rows[-1]["verdict"] == "pass"
    assert rows[-1]["note"] == "the game over screen is correct"
    assert store.effective_verdict(run_id) == "pass"
    assert "PASS" in view.badge.text() and "alice" in view.provenance.text()

    view.override("fail", note="no, it is wrong")
    assert store.effective_verdict(run_id) == "fail" and len(store.judgments(run_id)) == before + 2
    with qtbot.waitSignal(view.sig_verdict_changed, timeout=1000):
        view.undo_button.click()
    assert store.effective_verdict(run_id) == "pass"  # the earlier override is in force again
    view.undo()
    assert store.effective_verdict(run_id) == "fail"  # back to the tester's verdict
    assert view.undo() is None  # nothing left to undo; nothing appended
    rows = store.judgments(run_id)
    assert len(rows) == before + 4  # two overrides, two undos: nothing overwritten
    assert [r["undoes"] is not None for r in rows[-4:]] == [False, False, True, True]
    assert view.history.topLevelItemCount() == len(rows)
    assert view.history.topLevelItem(0).font(0).strikeOut() is False  # newest row: the last undo
    store.close()


def test_author_is_asked_once_and_remembered(qtbot, tmp_path, isolated_settings, monkeypatch):
    isolated_settings.remove(AUTHOR_KEY)
    isolated_settings.remove("verdicts/author")  # the name an older workbench kept
    asked = []

    def fake_get_text(*args, **kwargs):
        asked.append(args)
        return "bob", True

    monkeypatch.setattr(QInputDialog, "getText", staticmethod(fake_get_text))
    store = TrajectoryStore(tmp_path / "a.db")
    run_id = make_synthetic_run(store, 2, distinct_frames=1)
    view = VerdictView()
    qtbot.addWidget(view)
    view.set_run(Database(store), run_id)
    assert view.override("fail", "") is None and not asked  # no reason: nothing recorded, nobody asked
    view.override("fail", "crashes on the second level")
    view.override("pass", "the crash was the target's test mode")
    assert len(asked) == 1
    assert [r["author"] for r in store.judgments(run_id) if r["source"] == "human"] == ["bob", "bob"]

    # With no identity yet, the override dialog asks for the name in a field of its own, beside the reason.
    isolated_settings.remove(AUTHOR_KEY)
    dialog = OverrideDialog("fail", "pass", run_id, name=identity(isolated_settings))
    qtbot.addWidget(dialog)
    assert dialog.asks_name and dialog.reason_edit is not dialog.name_edit
    dialog.name_edit.setText("")
    dialog.reason_edit.setText("typed reason")
    assert not dialog.record_button.isEnabled() and dialog.name() == ""  # the reason never went into the name
    dialog.name_edit.setText("carol")
    assert dialog.record_button.isEnabled()
    store.close()


def test_one_identity_from_settings_serves_overrides_and_labels(qtbot, tmp_path, isolated_settings, monkeypatch):
    from PySide6.QtCore import QSettings

    from app.views.settings.settings_dialog import SettingsDialog

    isolated_settings.remove("verdicts/author")
    monkeypatch.setattr(QInputDialog, "getText", staticmethod(lambda *a, **k: pytest.fail("asked for a name")))
    dialog = SettingsDialog(QSettings())
    qtbot.addWidget(dialog)
    dialog.name_edit.setText("dana")
    dialog.accept()
    assert identity(QSettings()) == "dana"
    store = TrajectoryStore(tmp_path / "i.db")
    run_id = make_synthetic_run(store, 2, distinct_frames=1)
    view = VerdictView()
    qtbot.addWidget(view)
    view.set_run(Database(store), run_id)
    view.override("fail", "wrong score")
    assert store.judgments(run_id)[-1]["author"] == "dana"

    from app.views.labelling.annotation_view import AnnotationView

    annotation = AnnotationView(Database(store), None, settings=QSettings())
    qtbot.addWidget(annotation)
    assert annotation.annotator == "dana"
    store.close()


def test_replay_uses_recorded_timing_clamped_and_scaled(qtbot, tmp_path):
    store = TrajectoryStore(tmp_path / "r.db")
    run_id = make_synthetic_run(store, 6, distinct_frames=2)  # steps 0.2 s apart
    with store.transaction():
        store.conn.execute("UPDATE steps SET started_at = started_at + 10 WHERE run_id = ? AND idx >= 3", [run_id])
    model = StepsModel()
    model.set_run(Database(store), run_id)
    replay = ReplayController(model)
    assert replay.delay_s(0) == pytest.approx(0.2)
    assert replay.delay_s(2) == MAX_DELAY_S  # a 10 s gap is clamped
    replay.set_speed(4.0)
    assert replay.delay_s(0) == pytest.approx(0.05)
    assert replay.delay_s(2) == MAX_DELAY_S / 4
    with store.transaction():
        store.conn.execute("UPDATE steps SET started_at = 0 WHERE run_id = ?", [run_id])
    model.set_run(Database(store), run_id)
    replay.set_speed(1.0)
    assert replay.delay_s(0) == MIN_DELAY_S

    reached: list[int] = []
    replay.sig_row_reached.connect(reached.append)
    replay.set_speed(4.0)
    with qtbot.waitSignal(replay.sig_playing_changed, timeout=3000, check_params_cb=lambda p: p is False):
        replay.play(0)
    assert reached == [1, 2, 3, 4, 5]
    store.close()


def test_replay_drives_the_run_view(run_view, qtbot, tmp_path):
    store = TrajectoryStore(tmp_path / "rv.db")
    run_id = make_synthetic_run(store, 4, distinct_frames=2)
    with store.transaction():
        store.conn.execute("UPDATE steps SET started_at = idx * 0.01 WHERE run_id = ?", [run_id])
    run_view.set_database(Database(store))
    run_view.open_run(run_id)
    run_view.go_to_row(1)
    with qtbot.waitSignal(run_view.replay.sig_playing_changed, timeout=3000, check_params_cb=lambda p: not p):
        run_view.replay.toggle(run_view.current_row())
    assert run_view.current_row() == 3
    assert run_view.timeline.currentIndex().data(Qt.ItemDataRole.DisplayRole).startswith("#4")
    store.close()


# -- a differential run: candidate | reference | difference ------------------------------------------------
DIFF_SIZE = (160, 100)
BACKGROUND = (20, 30, 50)


def _picture(*boxes: tuple[int, int, int, int, tuple[int, int, int]]) -> Image.Image:
    image = Image.new("RGB", DIFF_SIZE, BACKGROUND)
    for x0, y0, x1, y1, color in boxes:
        image.paste(color, (x0, y0, x1, y1))
    return image


def _rgb(image) -> np.ndarray:
    """A QImage as an H×W×3 RGB array."""
    rgb = image.convertToFormat(QImage.Format.Format_RGB888)
    w, h, line = rgb.width(), rgb.height(), rgb.bytesPerLine()
    return np.frombuffer(rgb.constBits(), np.uint8, count=line * h).reshape(h, line)[:, :w * 3].reshape(h, w, 3).copy()


def _red_region(image) -> np.ndarray:
    return np.all(_rgb(image) == DIFF_COLOR, axis=2)


def _region(x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
    mask = np.zeros((DIFF_SIZE[1], DIFF_SIZE[0]), dtype=bool)
    mask[y0:y1, x0:x1] = True
    return mask


def test_a_differential_run_shows_candidate_reference_and_difference(run_view, qtbot, tmp_path):
    """Three labelled panes follow the keyboard; the difference marks exactly the pixels that differ."""
    store = TrajectoryStore(tmp_path / "d.db")
    run_id = store.create_run(target="calculator", bug="wrong-subtraction", tester="differential", seed=2,
                              window_width=DIFF_SIZE[0], window_height=DIFF_SIZE[1])
    digit = (240, 240, 240)
    pictures = {  # (candidate after the step, the reference after it, where they differ)
        0: (_picture(), _picture(), None),
        1: (_picture((20, 10, 50, 40, digit)), _picture((20, 10, 50, 40, digit)), None),
        2: (_picture((20, 10, 50, 40, digit), (90, 60, 130, 90, digit)), _picture((20, 10, 50, 40, digit)),
            (90, 60, 130, 90)),
    }
    shas = {}
    for idx, (candidate, reference, _) in pictures.items():
        shas[idx] = (store.put_image(candidate), store.put_image(reference))
        diverged = [{"step": idx, "kind": "diverged", "message": "the candidate shows what the reference does not",
                     "evidence": {"bbox": [90, 60, 130, 90]}}] if idx == 2 else []
        store.add_step(run_id, idx, {"action": {"action": "click", "x": 30 + idx, "y": 20}, "outcome": "ok",
                                     "frame_before": shas[idx - 1][0] if idx else shas[0][0],
                                     "frame_after": shas[idx][0], "findings": ["diverged"] if diverged else None,
                                     "started_at": 1.0 + idx, "ended_at": 1.5 + idx}, diverged)
        store.set_step_reference(run_id, idx, shas[idx][1])
    store.finish_run(run_id, status="completed", verdict="fail", reason="diverged")
    plain = make_synthetic_run(store, 3, distinct_frames=2)

    run_view.set_database(Database(store))
    run_view.open_run(run_id)
    assert run_view.before.isHidden() and run_view.reference.isVisible() and run_view.difference.isVisible()
    assert [v.title() for v in (run_view.after, run_view.reference, run_view.difference)] == \
        ["Candidate", "Reference", "Difference"]
    run_view.timeline.setFocus()
    for idx, (candidate, reference, differs) in pictures.items():
        if idx:
            qtbot.keyClick(run_view.timeline, Qt.Key.Key_Down)  # the keyboard moves all three panes
        assert run_view.current_row() == idx
        assert np.array_equal(_rgb(run_view.after.image()), np.asarray(candidate))
        assert np.array_equal(_rgb(run_view.reference.image()), np.asarray(reference))
        qtbot.waitUntil(lambda: run_view.difference.image() is not None, timeout=3000)
        red = _red_region(run_view.difference.image())
        assert np.array_equal(red, _region(*differs) if differs else np.zeros_like(red)), f"step {idx}"
        assert not (_rgb(run_view.difference.image()) == _rgb(run_view.after.image())).all()  # greyed

    badge, color = run_view.model.index(2, 0).data(BADGE_ROLE)  # the divergence is marked like any failure
    assert badge == "diverged" and color == QColor(VERDICT_COLORS["fail"])
    made = run_view.differences.computed
    qtbot.keyClick(run_view.timeline, Qt.Key.Key_Up)
    assert run_view.difference.image() is not None and run_view.differences.computed == made  # kept

    run_view.open_run(plain)  # a run without reference frames looks as before
    assert run_view.before.isVisible() and run_view.reference.isHidden() and run_view.difference.isHidden()
    assert run_view.after.title() == "After" and run_view.before.image() is not None
    run_view.differences.wait_idle()
    store.close()
