"""EngineBridge against a real engine child process (`python -m app test … --events -`)."""

from __future__ import annotations

import sys

from views_support import PROBE, ROOT, needs_xvfb

from app.engine.play.events import RunFinished, RunStarted, StepRecorded, WindowFound  # noqa: E402
from app.engine.trace.store import TrajectoryStore  # noqa: E402
from app.views.engine_bridge import EngineBridge  # noqa: E402
from app.views.live.run_request import RunRequest  # noqa: E402


@needs_xvfb
def test_bridge_turns_engine_lines_into_typed_signals(qtbot, tmp_path):
    db = tmp_path / "bridge.db"
    bridge = EngineBridge()
    seen: dict[str, list] = {name: [] for name in (
        "run_started", "window_found", "step_recorded", "control_changed", "verdict_reached", "run_finished",
        "engine_failed")}
    for name, events in seen.items():
        getattr(bridge, f"sig_{name}").connect(events.append)
    with qtbot.waitSignal(bridge.sig_run_started, timeout=30_000) as started:
        bridge.start(RunRequest(str(PROBE), max_steps=3).engine_arguments(db))
    event = started.args[0]
    assert isinstance(event, RunStarted) and event.target == "probe_tk" and bridge.run_id == event.run_id
    with qtbot.waitSignal(bridge.sig_process_ended, timeout=60_000) as ended:
        pass
    assert ended.args == [0]
    window = seen["window_found"][0]
    assert isinstance(window, WindowFound) and (window.width, window.height) == (400, 300)
    assert window.display.startswith(":")
    assert [s.idx for s in seen["step_recorded"]] == [0, 1, 2]
    assert all(isinstance(s, StepRecorded) and "action" in s.action for s in seen["step_recorded"])
    finished = seen["run_finished"][0]
    assert isinstance(finished, RunFinished) and finished.status == "completed" and finished.steps == 3
    assert seen["verdict_reached"][0].verdict == finished.verdict
    assert seen["engine_failed"] == [] and not bridge.running
    store = TrajectoryStore(db)
    assert store.step_count(event.run_id) == 3
    store.close()


def test_bridge_reports_a_failed_start_in_one_sentence(qtbot, tmp_path):
    bridge = EngineBridge()
    failures: list[str] = []
    bridge.sig_engine_failed.connect(failures.append)
    missing = tmp_path / "no-such-target"
    with qtbot.waitSignal(bridge.sig_process_ended, timeout=30_000):
        bridge.start(RunRequest(str(missing), max_steps=2).engine_arguments(tmp_path / "x.db"))
    assert len(failures) == 1
    message = failures[0]
    assert "no-such-target" in message and "Traceback" not in message
    assert not message.startswith("playcoder:")


def test_bridge_ignores_noise_and_reports_a_crash(qtbot, tmp_path):
    script = (
        "import sys, json\n"
        "print('not json'); print('{\"event\": \"Nope\"}')\n"
        "print(json.dumps({'event': 'RunStarted', 'run_id': 7, 'target': 't', 'tester': 'offline',"
        " 'display': 'isolated', 'db': 'x', 'extra': 1}), flush=True)\n"
        "sys.stderr.write('some warning\\nfatal: the thing broke\\n'); sys.exit(3)\n"
    )
    bridge = EngineBridge()
    started: list[RunStarted] = []
    failures: list[str] = []
    bridge.sig_run_started.connect(started.append)
    bridge.sig_engine_failed.connect(failures.append)
    with qtbot.waitSignal(bridge.sig_process_ended, timeout=30_000) as ended:
        bridge.start(["-c", script], program=sys.executable, cwd=ROOT)
    assert ended.args == [3]
    assert [e.run_id for e in started] == [7]
    assert failures == ["Fatal: the thing broke"]
    assert bridge.stderr_lines()[-1] == "fatal: the thing broke"
    assert not bridge.send("pause")  # nothing to talk to any more
