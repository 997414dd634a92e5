"""EngineBridge: the engine as a child process, its JSON-lines events as Qt signals.

The workbench never runs the engine in its own process: it starts
``python -m app test … --events -`` with QProcess, reads one event per stdout
line (:func:`app.engine.play.events.event_from_json`) and re-emits it as a typed
signal on the GUI thread; control lines (pause, resume, step, stop,
``act {json}``) go to the child's stdin.  Closing stdin also stops the engine,
so a workbench that dies never leaves a run going; the engine in turn takes
its Xvfb and target down with it.

Failure reporting is "one clear message": an engine that ends a run with an
error reports it in ``RunFinished.error``; only when the process fails without
a ``RunFinished`` (bad arguments, a crash, a kill) does the bridge emit
:attr:`EngineBridge.sig_engine_failed` with the last line of its stderr.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections import deque
from pathlib import Path
from typing import Any, Mapping

from PySide6.QtCore import QObject, QProcess, QProcessEnvironment, QTimer, Signal

from app.engine.play.events import (
    ControlChanged, FindingRaised, RunFinished, RunStarted, StepRecorded, VerdictReached, WindowFound, WindowMoved,
    event_from_json,
)
from app.engine.repair.events import repair_event_from_json
from app.paths import ROOT

log = logging.getLogger(__name__)

STOP_GRACE_MS = 3000
"""After "stop", the engine gets this long to shut its target and display down before it is killed."""
STDERR_KEEP_LINES = 200
CLI_PREFIX = "playcoder: "


class EngineBridge(QObject):
    sig_run_started = Signal(object)
    """Emitted with :class:`~app.engine.play.events.RunStarted` when the engine created the run row."""
    sig_window_found = Signal(object)
    """Emitted with :class:`~app.engine.play.events.WindowFound` once the target's window is on its display."""
    sig_window_moved = Signal(object)
    """Emitted with :class:`~app.engine.play.events.WindowMoved` when the target's window moved or was resized."""
    sig_step_recorded = Signal(object)
    """Emitted with :class:`~app.engine.play.events.StepRecorded` after a step was committed to the database."""
    sig_finding_raised = Signal(object)
    """Emitted with :class:`~app.engine.play.events.FindingRaised` for every finding."""
    sig_control_changed = Signal(object)
    """Emitted with :class:`~app.engine.play.events.ControlChanged` when the engine paused, resumed, stepped or stops."""
    sig_verdict_reached = Signal(object)
    """Emitted with :class:`~app.engine.play.events.VerdictReached` when the tester judged the run."""
    sig_run_finished = Signal(object)
    """Emitted with :class:`~app.engine.play.events.RunFinished` when the run ended (completed, stopped or error)."""
    sig_engine_failed = Signal(str)
    """Emitted with one sentence when the engine process failed without finishing its run."""
    sig_process_ended = Signal(int)
    """Emitted with the exit code once the engine process is gone (always last)."""
    sig_repair_event_received = Signal(object)
    """Emitted with an event of :mod:`app.engine.repair.events` (``playcoder repair … --events -``)."""
    sig_line_printed = Signal(str)
    """Emitted with a stdout line that is not an event (a command's progress, e.g. ``playcoder repair``)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._proc = QProcess(self)
        self._proc.readyReadStandardOutput.connect(self._on_process_stdout)
        self._proc.readyReadStandardError.connect(self._on_process_stderr)
        self._proc.finished.connect(self._on_process_finished)
        self._proc.errorOccurred.connect(self._on_process_error)
        self._stderr: deque[str] = deque(maxlen=STDERR_KEEP_LINES)
        self._stderr_partial = ""
        self._finished_event: RunFinished | None = None
        self._stopping = False
        self._failed_reported = False
        self._kill_timer = QTimer(self)
        self._kill_timer.setSingleShot(True)
        self._kill_timer.timeout.connect(self._on_kill_timer_timeout)
        self.run_id: int | None = None
        self._signals: dict[type, Any] = {
            RunStarted: self.sig_run_started, WindowFound: self.sig_window_found, WindowMoved: self.sig_window_moved,
            StepRecorded: self.sig_step_recorded, FindingRaised: self.sig_finding_raised,
            ControlChanged: self.sig_control_changed, VerdictReached: self.sig_verdict_reached,
            RunFinished: self.sig_run_finished,
        }

    # -- process ---------------------------------------------------------------------
    def start(self, arguments: list[str], *, program: str | None = None, cwd: Path | None = None,
              extra_env: Mapping[str, str] | None = None) -> None:
        """Start ``program arguments`` (default: this Python) with stdin open for control lines.

        ``extra_env`` is added to the child's environment only (secrets such as
        an API key go there, never into ``arguments``, which any user can list).
        """
        env = QProcessEnvironment.systemEnvironment()
        for name, value in (extra_env or {}).items():
            env.insert(name, value)
        path = env.value("PYTHONPATH", "")
        env.insert("PYTHONPATH", str(ROOT) + (os.pathsep + path if path else ""))
        env.insert("PYTHONUNBUFFERED", "1")
        if not env.contains("SDL_AUDIODRIVER"):
            env.insert("SDL_AUDIODRIVER", "dummy")
        self._proc.setProcessEnvironment(env)
        self._proc.setWorkingDirectory(str(cwd or ROOT))
        self._stderr.clear()
        self._finished_event = None
        self._stopping = False
        self._failed_reported = False
        self._proc.start(program or sys.executable, arguments)

    @property
    def running(self) -> bool:
        return self._proc.state() != QProcess.ProcessState.NotRunning

    def pid(self) -> int:
        return int(self._proc.processId())

    def stderr_lines(self) -> list[str]:
        return list(self._stderr)

    # -- control ------------------------------------------------------------------------
    def send(self, line: str) -> bool:
        """Write one control line to the engine; False when it is not running."""
        if self._proc.state() != QProcess.ProcessState.Running:
            return False
        self._proc.write((line.strip() + "\n").encode("utf-8"))
        return True

    def pause(self) -> bool:
        return self.send("pause")

    def resume(self) -> bool:
        return self.send("resume")

    def step(self) -> bool:
        return self.send("step")

    def act(self, action: dict[str, Any]) -> bool:
        """Queue a human take-over action (performed at the engine's next checkpoint)."""
        return self.send("act " + json.dumps(action, separators=(",", ":")))

    def stop(self, grace_ms: int = STOP_GRACE_MS) -> None:
        """Ask the engine to stop; kill it if it is still there after ``grace_ms`` (does not block)."""
        if not self.running:
            return
        self._stopping = True
        self.send("stop")
        if not self._kill_timer.isActive():
            self._kill_timer.start(grace_ms)

    def terminate(self, grace_ms: int = STOP_GRACE_MS) -> None:
        """SIGTERM, for a command that takes no control lines (it ends like Ctrl-C, cleaning up); killed if
        it is still there after ``grace_ms`` (does not block)."""
        if not self.running:
            return
        self._stopping = True
        self._proc.terminate()
        if not self._kill_timer.isActive():
            self._kill_timer.start(grace_ms)

    def shutdown(self, grace_ms: int = STOP_GRACE_MS, *, terminate: bool = False) -> None:
        """Stop and wait (blocking, at most ``grace_ms`` + 1 s): for closing the window.  ``terminate``: with
        SIGTERM, for a command that takes no control lines."""
        if not self.running:
            return
        self._stopping = True
        if terminate:
            self._proc.terminate()
        else:
            self.send("stop")
        self._proc.closeWriteChannel()
        if not self._proc.waitForFinished(grace_ms):
            self._proc.kill()
            self._proc.waitForFinished(1000)

    # -- handlers -------------------------------------------------------------------------
    def _on_process_stdout(self) -> None:
        while self._proc.canReadLine():
            self._dispatch(bytes(self._proc.readLine().data()).decode("utf-8", "replace"))

    def _dispatch(self, line: str) -> None:
        text = line.strip()
        if not text:
            return
        try:
            event = event_from_json(text)
        except (ValueError, TypeError):
            try:
                repair_event = repair_event_from_json(text)
            except (ValueError, TypeError):
                log.debug("engine stdout (not an event): %s", text[:200])
                self.sig_line_printed.emit(text)
            else:
                self.sig_repair_event_received.emit(repair_event)
            return
        if isinstance(event, RunStarted):
            self.run_id = event.run_id
        if isinstance(event, RunFinished):
            self._finished_event = event
        signal = self._signals.get(type(event))
        if signal is not None:
            signal.emit(event)

    def _on_process_stderr(self) -> None:
        data = self._stderr_partial + bytes(self._proc.readAllStandardError().data()).decode("utf-8", "replace")
        *lines, self._stderr_partial = data.split("\n")
        for line in lines:
            if line.strip():
                self._stderr.append(line.rstrip())
                log.debug("engine stderr: %s", line.rstrip())

    def _on_process_finished(self, exit_code: int, exit_status: QProcess.ExitStatus) -> None:
        self._kill_timer.stop()
        rest = bytes(self._proc.readAllStandardOutput().data()).decode("utf-8", "replace")
        for line in rest.splitlines():
            self._dispatch(line)
        self._on_process_stderr()
        if self._stderr_partial.strip():
            self._stderr.append(self._stderr_partial.rstrip())
            self._stderr_partial = ""
        crashed = exit_status == QProcess.ExitStatus.CrashExit
        if self._finished_event is None and (exit_code != 0 or crashed) and not self._stopping:
            self._report_failure(self._failure_message(exit_code, crashed))
        self.sig_process_ended.emit(-1 if crashed else exit_code)

    def _on_process_error(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart:
            self._report_failure(f"The engine could not be started ({self._proc.errorString()}); "
                                 "check that Python and PlayCoder are installed.")
            self.sig_process_ended.emit(-1)

    def _on_kill_timer_timeout(self) -> None:
        if self.running:
            log.warning("the engine did not stop within %d ms; killing it", STOP_GRACE_MS)
            self._proc.kill()

    # -- messages -----------------------------------------------------------------------------
    def _report_failure(self, message: str) -> None:
        if not self._failed_reported:
            self._failed_reported = True
            self.sig_engine_failed.emit(message)

    def _failure_message(self, exit_code: int, crashed: bool) -> str:
        last = next((line for line in reversed(self._stderr) if line.strip()), "")
        if last.startswith(CLI_PREFIX):
            last = last[len(CLI_PREFIX):]
        if last and not crashed:
            return last[0].upper() + last[1:]
        if crashed:
            return "The engine process crashed" + (f" ({last})" if last else "") + "; the run stays readable up to its last step."
        return f"The engine exited with code {exit_code} without finishing the run."


STARTING, RUNNING, PAUSED, STOPPING, FINISHED = "starting", "running", "paused", "stopping", "finished"
"""The states of a run the workbench drives through an :class:`EngineBridge` (live runs, repairs)."""
ENGINE_STATES = {"running": RUNNING, "paused": PAUSED, "stepping": PAUSED, "stopping": STOPPING}
"""The engine's control states (``ControlChanged.state``) as those states."""


BRIDGE_SIGNALS: tuple[str, ...] = tuple(name[len("sig_"):] for name in vars(EngineBridge) if name.startswith("sig_"))
"""The events an :class:`EngineBridge` emits, by name (``run_started`` for ``sig_run_started`` …)."""


def connect_handlers(bridge: EngineBridge, owner: object, prefix: str = "_on_bridge_") -> list[str]:
    """Connect every ``bridge.sig_<event>`` to ``owner.<prefix><event>`` where the owner has that handler.

    The one place where bridge signals meet their handlers: a live run, a repair and the main window
    name their handlers after the convention (``_on_<source>_<event>``) instead of each listing the
    same ``connect`` calls.  Returns the events connected (a test checks each owner's list)."""
    connected: list[str] = []
    for event in BRIDGE_SIGNALS:
        handler = getattr(owner, prefix + event, None)
        if callable(handler):
            getattr(bridge, f"sig_{event}").connect(handler)
            connected.append(event)
    return connected


class BridgeControls:
    """Pause, resume and the live capture of a run driven through ``self.bridge``, by its ``self.state``.

    Shared by live runs and repairs; its handlers are connected by :func:`connect_handlers`."""

    bridge: EngineBridge
    state: str
    capture: Any

    def pause(self) -> None:
        self.bridge.pause()

    def resume(self) -> None:
        self.bridge.resume()

    def toggle_pause(self) -> None:
        if self.state == PAUSED:
            self.resume()
        elif self.state in (RUNNING, STARTING):
            self.pause()

    def _on_bridge_window_moved(self, event: WindowMoved) -> None:
        if self.capture is not None:
            self.capture.set_region((event.x, event.y, event.width, event.height))

    def _stop_capture(self) -> None:
        """Stop following the target's window (``self.capture``, a LiveCapture), if it is followed."""
        capture, self.capture = self.capture, None
        if capture is not None:
            capture.stop()
            capture.deleteLater()
