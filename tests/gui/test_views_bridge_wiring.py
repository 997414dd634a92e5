"""One place wires bridge signals to their handlers (a live run, a repair and the main window each
listed the same connects): every handler named after the convention is connected, and nothing else."""

from __future__ import annotations

from views_support import PROBE, isolated_settings  # noqa: F401

from app.views.engine_bridge import BRIDGE_SIGNALS, EngineBridge, connect_handlers  # noqa: E402
from app.views.live.live_run import LiveRun  # noqa: E402
from app.views.live.run_request import RunRequest  # noqa: E402
from app.views.repair.repair_run import RepairRun  # noqa: E402
from app.views.shell.main_window import MainWindow  # noqa: E402


def test_each_owner_gets_exactly_its_handlers(qtbot, tmp_path, isolated_settings):
    assert {"run_started", "window_found", "window_moved", "step_recorded", "process_ended"} <= set(BRIDGE_SIGNALS)
    live = LiveRun(RunRequest(str(PROBE)), tmp_path / "w.db")
    assert set(live.connected) == {"run_started", "window_found", "window_moved", "control_changed", "run_finished",
                                   "process_ended"}
    repair = RepairRun()
    assert set(repair.connected) == {"repair_event_received", "run_started", "window_found", "window_moved",
                                     "step_recorded", "run_finished", "control_changed", "process_ended"}
    win = MainWindow()
    qtbot.addWidget(win)
    assert set(connect_handlers(EngineBridge(), win.live_controls, prefix="_on_live_")) == {
        "run_started", "step_recorded", "finding_raised", "run_finished", "engine_failed", "process_ended"}


def test_a_connected_handler_receives_the_event(qtbot, tmp_path):
    class Owner:
        def __init__(self) -> None:
            self.seen: list[object] = []

        def _on_bridge_line_printed(self, line: str) -> None:
            self.seen.append(line)

    bridge, owner = EngineBridge(), Owner()
    assert connect_handlers(bridge, owner) == ["line_printed"]
    bridge.sig_line_printed.emit("hello")
    assert owner.seen == ["hello"]
