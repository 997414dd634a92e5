"""The features reached from the main window: Validation, Settings (LLM keys), llm/script runs, model calls, Repair.

Keys live in a file-less in-memory keyring set for each test (never the
user's real keyring); QSettings go to a temporary INI file.
"""

from __future__ import annotations

import os

os.environ["QT_QPA_PLATFORM"] = "offscreen"

import json  # noqa: E402
import sys  # noqa: E402

import keyring  # noqa: E402
import keyring.backend  # noqa: E402
import keyring.errors  # noqa: E402
import pytest  # noqa: E402
from PIL import Image  # noqa: E402
from views_support import PROBE, ROOT, isolated_settings, window, make_synthetic_run, needs_xvfb  # noqa: E402,F401

from app.views.widgets.identity import identity  # noqa: E402

from PySide6.QtCore import QModelIndex, QSettings, Qt, QUrl  # noqa: E402
from PySide6.QtGui import QKeySequence, QPixmap, QTextDocument  # noqa: E402
from PySide6.QtWidgets import (  # noqa: E402
    QAbstractButton, QAbstractItemView, QApplication, QComboBox, QDialogButtonBox, QInputDialog, QLabel, QLineEdit,
    QPlainTextEdit, QProgressBar, QTextEdit, QWidget,
)

from app.engine.study import validation  # noqa: E402
from app.engine.errors import UserError  # noqa: E402
from app.engine.llm.config import resolve_settings  # noqa: E402
from app.engine.trace.store import TrajectoryStore  # noqa: E402
from app.views.repair import repair_menu  # noqa: E402
from app.views.labelling.annotation_view import AnnotationView  # noqa: E402
from app.views.labelling.agreement_view import AgreementView  # noqa: E402
from app.views.shell.main_window import MainWindow  # noqa: E402
from app.views.live.new_run_dialog import NewRunDialog  # noqa: E402
from app.views.labelling.new_set_dialog import NewSetDialog  # noqa: E402
from app.views.live.run_request import RunRequest  # noqa: E402
from app.views.settings.settings_dialog import SettingsDialog  # noqa: E402

from llm_servers import TEST_KEY, OpenAIServer, playbook  # noqa: E402
from memory_keyring import MemoryKeyring

APPS = ROOT / "benchmark" / "apps"
KEY_VARIABLES = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "PLAYCODER_API_KEY", "PLAYCODER_PROVIDER", "PLAYCODER_MODEL",
                 "PLAYCODER_BASE_URL", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL")
SECRET = "SECRET"
"""Every piece of tester text in the labelling database contains this word."""


@pytest.fixture
def ring(monkeypatch):
    """An empty in-memory keyring and an environment without provider keys or settings."""
    for name in KEY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    previous = keyring.get_keyring()
    memory = MemoryKeyring()
    keyring.set_keyring(memory)
    yield memory
    keyring.set_keyring(previous)


def missing_key_sentence(provider: str) -> str:
    with pytest.raises(UserError) as info:
        resolve_settings({"provider": provider}, env={}, keyring_lookup=lambda p: None)
    return str(info.value)


def ok_button(dialog) -> QAbstractButton:
    return dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)


# -- menus and shortcuts ----------------------------------------------------------------------------------
def test_menus_hold_the_new_commands_with_their_shortcuts(window):
    menus = {m.text().replace("&", ""): m.menu() for m in window.menuBar().actions()}
    assert list(menus) == ["File", "Edit", "Run", "View", "Validation", "Repair", "Help"]
    a = window.commands
    expected = {"Edit": [(a.settings, "Ctrl+,")],
                "Validation": [(a.new_validation_set, "Ctrl+Shift+N"), (a.annotate, "Ctrl+L"),
                               (a.agreement, "Ctrl+Shift+D")],
                "Repair": [(a.new_repair, "Ctrl+Shift+R"), (a.repair_sessions, "Ctrl+R"), (a.present_repair, ""),
                           (a.export_repair, "")]}  # F11 / Ctrl+E belong to the repair window
    for menu, entries in expected.items():
        actions = [x for x in menus[menu].actions() if not x.isSeparator()]
        assert actions == [action for action, _ in entries]
        for action, keys in entries:
            assert action.shortcut() == QKeySequence(keys) and action.isEnabled()
    shortcuts = [x.shortcut().toString() for x in window.actions() if not x.shortcut().isEmpty()]
    assert len(shortcuts) == len(set(shortcuts))  # no key does two things


def test_repair_shortcut_opens_the_repair_view_on_the_current_store(window, qtbot, tmp_path):
    assert window.open_database(tmp_path / "repair.db")
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=2000)
    qtbot.keyClick(window, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
    repair = window.repair.window
    assert repair is not None and repair.isVisible()
    assert type(repair.view).__name__ == "RepairView" and repair.view.database is window.database
    assert window.repair.open(window.database, "again") is repair  # one window, brought up again
    other = tmp_path / "other.db"
    assert window.open_database(other)
    assert repair.view.database is window.database and str(other) in repair.windowTitle()
    repair.close()
    assert window.repair.window is None


def test_a_missing_repair_module_leaves_the_window_working(qtbot, isolated_settings, monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "app.views.repair.repair_view", None)  # import raises ImportError
    assert repair_menu.repair_view_class() is None
    win = MainWindow()
    win.modal_messages = False
    qtbot.addWidget(win)
    assert win.open_database(tmp_path / "x.db")
    assert not win.commands.repair_sessions.isEnabled()
    assert "not available" in win.commands.repair_sessions.toolTip()
    win.repair.open(win.database, "t")
    assert win.messages == [repair_menu.UNAVAILABLE]
    win.close()


# -- settings: keys through the engine's keyring functions ----------------------------------------------------
def test_settings_dialog_saves_the_key_in_the_keyring_only(window, ring, isolated_settings, qtbot, tmp_path,
                                                           monkeypatch):
    assert window.open_database(tmp_path / "runs.db")
    shown = []
    monkeypatch.setattr(SettingsDialog, "exec", lambda self: shown.append(self) or 0)
    window.commands.settings.trigger()
    assert len(shown) == 1  # Edit › Settings… opens the dialog

    dialog = SettingsDialog(QSettings())
    qtbot.addWidget(dialog)
    assert dialog.options.provider() == "openai"
    assert dialog.key_edit.echoMode() == QLineEdit.EchoMode.Password
    assert dialog.key_status.text().startswith("missing") and not dialog.forget_button.isEnabled()
    assert dialog.check_label.text() == missing_key_sentence("openai")  # what `playcoder llm check` says

    dialog.options.model_edit.setText("gpt-test")
    qtbot.keyClicks(dialog.key_edit, TEST_KEY)
    dialog.buttons.button(QDialogButtonBox.StandardButton.Save).click()
    assert dialog.result() == 1 and dialog.key_edit.text() == ""
    assert ring.data == {("playcoder", "openai"): TEST_KEY}

    isolated_settings.sync()
    settings_file = isolated_settings.fileName()
    text = open(settings_file, encoding="utf-8").read()
    assert "gpt-test" in text and TEST_KEY not in text  # the model is remembered, the key is not
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert TEST_KEY.encode() not in path.read_bytes(), path

    again = SettingsDialog(QSettings())
    qtbot.addWidget(again)
    assert again.options.model_edit.text() == "gpt-test"
    assert again.key_status.text().startswith("saved in the system keyring") and again.forget_button.isEnabled()
    assert again.check_label.text().startswith("Ready: openai · gpt-test") and TEST_KEY not in again.check_label.text()
    again.forget_button.click()
    assert ring.data == {} and again.key_status.text().startswith("missing")
    assert "Removed the saved openai key" in again.error_label.text()

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-from-env-123")
    again.options.provider_combo.setCurrentIndex(again.options.provider_combo.findData("anthropic"))
    assert again.key_status.text() == "from the environment: ANTHROPIC_API_KEY"


def test_a_refusing_keyring_ends_in_the_engine_sentence(ring, isolated_settings, qtbot, monkeypatch):
    def refuse(service, username, password):
        raise keyring.errors.PasswordSetError("locked")

    monkeypatch.setattr(ring, "set_password", refuse)
    dialog = SettingsDialog(QSettings())
    qtbot.addWidget(dialog)
    dialog.key_edit.setText(TEST_KEY)
    dialog.accept()
    assert dialog.result() == 0 and dialog.error_label.isVisibleTo(dialog)
    assert dialog.error_label.text() == ("The system keyring refused the key (PasswordSetError); set OPENAI_API_KEY "
                                         "in the environment instead.")
    dialog.options.url_edit.setText("http://user:pw@127.0.0.1:9/v1")
    dialog.key_edit.clear()
    dialog.accept()
    assert dialog.result() == 0 and "Leave the user name and password out" in dialog.error_label.text()


# -- new run: llm and script testers ---------------------------------------------------------------------------
def test_new_run_with_llm_and_no_key_says_what_is_missing(ring, isolated_settings, qtbot):
    dialog = NewRunDialog(settings=QSettings())
    qtbot.addWidget(dialog)
    dialog.app_combo.setCurrentIndex(dialog.app_combo.findText("calculator"))
    assert ok_button(dialog).isEnabled() and not dialog.llm_box.isVisibleTo(dialog)
    dialog.set_tester("llm")
    assert dialog.llm_box.isVisibleTo(dialog)
    assert dialog.error_label.text() == missing_key_sentence("openai")
    assert not ok_button(dialog).isEnabled() and dialog.request() is None

    options = dialog.llm_options
    options.provider_combo.setCurrentIndex(options.provider_combo.findData("anthropic"))
    assert dialog.error_label.text() == missing_key_sentence("anthropic") and not ok_button(dialog).isEnabled()
    options.provider_combo.setCurrentIndex(options.provider_combo.findData("compatible"))
    assert dialog.error_label.text().startswith("The compatible provider needs a server address")
    options.url_edit.setText("http://127.0.0.1:11434/v1")
    assert dialog.error_label.text().startswith("The compatible provider needs a model name")
    options.model_edit.setText("llava")
    assert dialog.error_label.text() == "" and ok_button(dialog).isEnabled()
    request = dialog.request()
    assert request is not None and request.engine_environment() == {}  # a local server needs no key


def test_script_tester_is_offered_only_for_targets_with_a_script(isolated_settings, qtbot, tmp_path):
    dialog = NewRunDialog(settings=QSettings())
    qtbot.addWidget(dialog)
    dialog.app_combo.setCurrentIndex(dialog.app_combo.findText("calculator"))
    item = dialog.tester_combo.model().item(dialog.tester_combo.findData("script"))
    assert item.isEnabled()
    dialog.set_tester("script")
    request = dialog.request()
    assert request is not None and request.engine_arguments("x.db")[-4:] == ["--tester", "script", "--display",
                                                                             "isolated"]
    dialog.folder_radio.setChecked(True)
    dialog.folder_edit.setText(str(PROBE))  # a target without [[script]]
    assert not item.isEnabled()
    assert "no [[script]] section" in dialog.error_label.text() and not ok_button(dialog).isEnabled()


def test_llm_request_passes_provider_model_and_server_but_never_the_key(ring, isolated_settings, qtbot,
                                                                        monkeypatch):
    ring.set_password("playcoder", "openai", TEST_KEY)
    with OpenAIServer() as server:
        dialog = NewRunDialog(settings=QSettings())
        qtbot.addWidget(dialog)
        dialog.app_combo.setCurrentIndex(dialog.app_combo.findText("calculator"))
        dialog.set_tester("llm")
        dialog.llm_options.model_edit.setText("gpt-test")
        dialog.llm_options.url_edit.setText(server.base_url)
        assert ok_button(dialog).isEnabled(), dialog.error_label.text()
        assert dialog.llm_check.text().startswith("Ready: openai · gpt-test")
        request = dialog.request()
        dialog.llm_options.model_edit.clear()
        defaulted = dialog.request()
    assert defaulted is not None and defaulted.engine_arguments("x.db")[-4:-2] == ["--model", "gpt-4o"]
    assert request is not None
    args = request.engine_arguments("runs.db")
    i = args.index("--tester")
    assert args[i:i + 2] == ["--tester", "llm"]
    tail = args[args.index("--provider"):]
    assert tail == ["--provider", "openai", "--model", "gpt-test", "--base-url", server.base_url]
    assert all(TEST_KEY not in a for a in args)
    assert TEST_KEY not in repr(request)
    # The child gets the keyring's key in its environment; a key already in the environment is inherited.
    assert request.engine_environment() == {"OPENAI_API_KEY": TEST_KEY}
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env-key-456")
    assert request.engine_environment() == {}
    assert RunRequest("t").engine_arguments("x.db")[-4:] == ["--tester", "offline", "--display", "isolated"]


@needs_xvfb
def test_live_llm_run_uses_the_keyring_key_without_putting_it_on_the_command_line(
        window, ring, qtbot, tmp_path, monkeypatch):
    """The child cannot see this process's keyring: the key must reach it through its environment."""
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.null.Keyring")
    prices = tmp_path / "prices.toml"
    prices.write_text('[models."gpt-test"]\ninput = 1.0\noutput = 2.0\n')
    monkeypatch.setenv("PLAYCODER_PRICES", str(prices))
    ring.set_password("playcoder", "openai", TEST_KEY)
    db = tmp_path / "live.db"
    assert window.open_database(db)
    actions = ['{"thought": "type a letter", "action": "press", "key": "a"}',
               '{"thought": "done", "action": "finish", "verdict": "pass", "reason": "it works"}']
    with OpenAIServer() as server:
        server.responder = playbook(actions, usage=(321, 12))
        request = RunRequest(str(PROBE), tester="llm", max_steps=3, provider="openai", model="gpt-test",
                             base_url=server.base_url)
        live = window.start_run(request)
        assert live is not None
        arguments = live.bridge._proc.arguments()
        with qtbot.waitSignal(live.bridge.sig_process_ended, timeout=90_000):
            pass
        assert window.messages == [], window.messages
        assert server.requests and server.requests[-1].headers["authorization"] == f"Bearer {TEST_KEY}"
    assert all(TEST_KEY not in a for a in arguments) and "--base-url" in arguments
    run_id = live.run_id
    assert run_id is not None
    for path in tmp_path.glob("live.db*"):  # the database, its WAL, and its films (<db>.films/)
        for part in [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]:
            assert TEST_KEY.encode() not in part.read_bytes(), part
    window.open_run(run_id)
    window.run_view.go_to_row(0)
    text = window.run_view.details.toPlainText()
    assert "Model calls (1)" in text and "action decision" in text and "321 in / 12 out tokens" in text
    assert "$0.0003" in text
    meta = window.run_view.header.meta.text()
    assert "tokens" in meta and "$" in meta


# -- step details: model calls --------------------------------------------------------------------------------
def add_llm_calls(store: TrajectoryStore, run_id: int) -> tuple[int, int, str]:
    """Two calls at step 1 (one counted locally, with a picture) and a run-level one."""
    sha = store.put_image(Image.new("RGB", (64, 48), (200, 40, 40)))
    request = {"model": "gpt-test", "max_completion_tokens": 300, "messages": [
        {"role": "system", "content": "You are a meticulous GUI tester."},
        {"role": "user", "content": [{"type": "text", "text": "Action decision for step 1"},
                                     {"type": "image", "image": sha, "size": [64, 48], "detail": "auto"}]}]}
    base = {"run_id": run_id, "provider": "openai", "model": "gpt-test", "request": json.dumps(request), "at": 0.0}
    table = store.db.table("llm_calls")
    with store.transaction():
        first = table.insert(dict(base, step=1, phase="action_decision", response='{"action": "click", "x": 5}',
                                  tokens_in=321, tokens_out=12, tokens_estimated=0, latency_ms=850.4,
                                  cost=0.000345)).last_pk
        second = table.insert(dict(base, step=1, phase="action_decision", response="ok", tokens_in=90,
                                   tokens_out=3, tokens_estimated=1, latency_ms=120.0, cost=None)).last_pk
        table.insert(dict(base, step=None, phase="strategy", response="1. press a", tokens_in=500, tokens_out=40,
                          tokens_estimated=0, latency_ms=300.0, cost=0.0006))
    return int(first), int(second), sha


def test_step_details_show_the_steps_model_calls(window, tmp_path, qtbot):
    db = tmp_path / "llm.db"
    store = TrajectoryStore(db)
    run_id = make_synthetic_run(store, 3, tester="llm", distinct_frames=2)
    first, second, sha = add_llm_calls(store, run_id)
    store.close()
    assert window.open_database(db) and window.open_run(run_id)
    details = window.run_view.details
    window.run_view.go_to_row(0)
    assert "Model calls" not in details.toPlainText()
    window.run_view.go_to_row(1)
    text = details.toPlainText()
    assert "Model calls (2)" in text
    assert "action decision · gpt-test (openai) · 321 in / 12 out tokens · $0.0003 · 850 ms" in text
    assert "90 in / 3 out tokens estimated · cost unknown · 120 ms" in text
    assert "▸ request" in text and "meticulous GUI tester" not in text  # collapsed until opened
    details.anchorClicked.emit(QUrl(f"llm:request:{first}"))
    text = details.toPlainText()
    assert "▾ request" in text and "You are a meticulous GUI tester." in text and "Action decision for step 1" in text
    assert f"[image {sha[:12]} 64×48]" in text
    thumb = details.loadResource(int(QTextDocument.ResourceType.ImageResource.value), QUrl(f"frame:{sha}"))
    assert isinstance(thumb, QPixmap) and not thumb.isNull()
    details.toggle_call_text(second, "response")
    assert "▾ response" in details.toPlainText()
    window.run_view.go_to_row(2)
    window.run_view.go_to_row(1)
    assert "You are a meticulous GUI tester." in details.toPlainText()  # what was open stays open
    meta = window.run_view.header.meta.text()
    assert "966 tokens (some estimated)" in meta and "$0.0009+" in meta  # 321+12+90+3+500+40; one call unpriced


# -- validation -------------------------------------------------------------------------------------------------------
def record_run(store: TrajectoryStore, verdict: str) -> int:
    """A finished run whose tester texts (reason, rationale, finding, judgment) all contain SECRET."""
    run = store.create_run(target="flappy@SECRET-bug", tester="offline", bug="SECRET-bug")
    frame = store.put_image(Image.new("RGB", (40, 30), (30, 30, 220)))
    t0 = store.run(run)["started_at"]
    store.add_step(run, 0, {"action": {"action": "press", "key": "space"}, "outcome": "ok",
                            "rationale": f"{SECRET} rationale {verdict}", "frame_before": frame, "frame_after": frame,
                            "findings": ["stuck"], "started_at": t0 + 0.1, "ended_at": t0 + 0.5},
                   [{"step": 0, "kind": "stuck", "message": f"{SECRET} finding ({verdict})"}])
    store.add_logs(run, [("stdout", t0 + 0.2, "score 0"),  # a traceback names the bug variant's temporary copy
                         ("stderr", t0 + 0.3, 'File "/tmp/playcoder-flappy-SECRET-bug-x1/flappy/main.py", line 9')])
    store.finish_run(run, status="completed", verdict=verdict, reason=f"{SECRET} the tester says {verdict}")
    store.add_judgment(run, source="tester", author="tester", verdict=verdict, criterion="c1", note=f"{SECRET} c1")
    return run


@pytest.fixture
def labelling_db(tmp_path):
    path = tmp_path / "labels.db"
    store = TrajectoryStore(path)
    for i in range(5):
        record_run(store, "pass" if i < 3 else "fail")
    store.close()
    return path


def test_new_validation_set_from_the_dialog(window, labelling_db, monkeypatch):
    assert window.open_database(labelling_db)
    values = {"name": "first", "successes": 2, "failures": 2, "seed": 7}
    seen = []

    def fill_and_accept(dialog):
        seen.append(dialog.available_label.text())
        dialog.name_edit.setText(values["name"])
        dialog.successes_spin.setValue(values["successes"])
        dialog.failures_spin.setValue(values["failures"])
        dialog.seed_spin.setValue(values["seed"])
        dialog.accept()
        return dialog.result()

    monkeypatch.setattr(NewSetDialog, "exec", fill_and_accept)
    window.commands.new_validation_set.trigger()
    assert seen == ["Available: 3 completed runs the tester passed, 2 it failed."]
    vset = validation.get_set(window.model.store, "first")
    assert (vset.successes, vset.failures, vset.seed) == (2, 2, 7) and window.messages == []
    assert "Validation set 'first'" in window.statusBar().currentMessage()

    values.update(name="second", successes=10)
    window.commands.new_validation_set.trigger()
    assert window.messages == ["Only 3 runs have the tester verdict pass; at least 10 are needed — record more runs "
                               "or lower --successes."]
    assert [s.name for s in validation.list_sets(window.model.store)] == ["first"]


def visible_texts(widget: QWidget) -> list[str]:
    """Every string a visible widget under ``widget`` shows: texts, tooltips, titles, list and table rows."""
    out = [widget.windowTitle()]
    for w in [widget, *widget.findChildren(QWidget)]:
        if not w.isVisible():
            continue
        out += [w.toolTip(), w.windowTitle(), w.accessibleName()]
        if isinstance(w, (QLabel, QAbstractButton)):
            out.append(w.text())
        elif isinstance(w, QLineEdit):
            out += [w.text(), w.placeholderText()]
        elif isinstance(w, (QPlainTextEdit, QTextEdit)):
            out.append(w.toPlainText())
        elif isinstance(w, QComboBox):
            out += [w.itemText(i) for i in range(w.count())]
        elif isinstance(w, QProgressBar):
            out.append(w.text())
        elif isinstance(w, QAbstractItemView) and w.model() is not None:
            model, root = w.model(), QModelIndex()
            try:
                columns = model.columnCount(root)
            except TypeError:  # a list model: one column, its columnCount is private
                columns = 1
            for row in range(model.rowCount(root)):
                for col in range(columns):
                    out.append(str(model.data(model.index(row, col)) or ""))
            for col in range(columns):
                out.append(str(model.headerData(col, Qt.Orientation.Horizontal) or ""))
    return [t for t in out if t]


def test_annotation_opens_in_its_own_window_with_no_verdict_in_sight(window, labelling_db, qtbot, monkeypatch,
                                                                     isolated_settings):
    assert window.open_database(labelling_db)
    validation.sample_set(window.model.store, "blind", successes=3, failures=2, seed=1)
    window.open_run(1)  # the run view shows a verdict and findings before labelling starts
    assert any(SECRET in t for t in visible_texts(window))
    asked = []
    monkeypatch.setattr(QInputDialog, "getText", staticmethod(lambda *a, **k: asked.append(1) or ("alice", True)))

    window.commands.annotate.trigger()
    annotation = window.validation.annotation
    assert annotation is not None and annotation.isVisible() and annotation.isWindow()
    view = annotation.view
    assert isinstance(view, AnnotationView) and view.annotator == "alice" and view.vset.name == "blind"
    assert view.database is not window.database  # its own connection, closed with the window
    assert asked == [] and identity(isolated_settings) == "alice"  # the override name: one identity, not asked again

    # Nothing of the tester's judgement is visible anywhere while labelling.
    assert not window.browser.isVisible() and not window.run_view.isVisible()
    for action in window.commands.revealing():
        assert not action.isEnabled(), action.text()
    top_levels = [w for w in QApplication.topLevelWidgets() if w.isVisible()]
    assert annotation in top_levels and window in top_levels
    assert "playcoder-flappy-variant-x1" in view.log_text.toPlainText()
    for _ in range(5):
        for top in top_levels:
            for text in visible_texts(top):
                assert SECRET not in text, text
                assert "verdict" not in text.lower(), text
        qtbot.keyClick(view, Qt.Key.Key_1)  # label pass and move on
        qtbot.keyClick(view, Qt.Key.Key_Return)
    assert validation.progress(window.model.store, validation.get_set(window.model.store, "blind"), "alice")[0] == 5
    assert window.validation.open_dashboard() is None and "Close the labelling window" in window.messages[-1]

    window.commands.annotate.trigger()
    assert window.validation.annotation is annotation  # one labelling window at a time
    annotation.close()
    assert window.validation.annotation is None
    assert window.browser.isVisible() and window.run_view.isVisible()
    # Every command is back; Undo only where there is an override to undo (none in this run).
    undo = window.commands.undo_override
    assert [a.text() for a in window.commands.revealing() if not a.isEnabled() and a is not undo] == []
    assert not undo.isEnabled()

    window.commands.annotate.trigger()  # still never asked
    assert asked == [] and window.validation.annotation.view.annotator == "alice"
    window.validation.annotation.close()


def test_agreement_dashboard_opens_on_a_picked_set(window, labelling_db, monkeypatch, qtbot):
    assert window.open_database(labelling_db)
    window.commands.agreement.trigger()
    assert window.validation.dashboard is None and "no validation sets" in window.messages[-1]
    validation.sample_set(window.model.store, "a", successes=1, failures=1, seed=0)
    validation.sample_set(window.model.store, "b", successes=2, failures=1, seed=0)
    monkeypatch.setattr(QInputDialog, "getItem", staticmethod(lambda parent, title, label, items, *a: (items[0], True)))
    window.commands.agreement.trigger()
    dashboard = window.validation.dashboard
    assert dashboard is not None and isinstance(dashboard.view, AgreementView)
    assert dashboard.view.set_combo.currentText() == "a"
    qtbot.waitUntil(lambda: dashboard.view.report is not None, timeout=30000)  # computed off the GUI thread
    monkeypatch.setattr(QInputDialog, "getItem", staticmethod(lambda parent, title, label, items, *a: (items[1], True)))
    window.commands.agreement.trigger()
    assert window.validation.dashboard is dashboard and dashboard.view.set_combo.currentText() == "b"
    window.close()
    assert window.validation.dashboard is None
