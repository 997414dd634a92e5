"""Launch a target program on a display, keep its output, and find its window.

The window is found by process id, never by guessing: first ``_NET_WM_PID``
(set by SDL, Qt, GTK), then the X-Resource extension's client PID (works for
Tk, which sets no ``_NET_WM_PID``), and the configured title only as a last
resort.

The program runs in :mod:`~app.engine.play.sandbox`: inside its PID namespace
it writes its *namespace* PID (``2``) into ``_NET_WM_PID``, while X-Resource
reports the host PID (the X server sees the host side of the socket).
:func:`find_window` accepts both.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Callable

import psutil
from Xlib import X
from Xlib import display as xdisplay
from Xlib import error as xerror
from Xlib.ext import res as xres
from Xlib.xobject.drawable import Window

from app.engine.play import sandbox
from app.engine.play.display import XDisplay
from app.engine.errors import TargetError, UserError
from app.engine.play.gate import FrameGate
from app.engine.play.program_env import ProgramEnv, program_env
from app.engine.play.inside import Inside
from app.engine.play.target_log import MAX_LINE_BYTES, LogLine, TargetLog
from app.engine.play.targetspec import TargetSpec
from app.engine.play.web_gate import WebGate
from app.engine.play.web_inside import PageError
from app.engine.play.web_target import WebLaunch, web_launch
from app.engine.play.xconn import open_x

WINDOW_POLL_S = 0.05
STOP_GRACE_S = 2.0
SEEDING_DIR = Path(__file__).resolve().parent / "seeding"
"""First on a target's PYTHONPATH: its ``sitecustomize`` seeds ``random`` (and numpy) from PLAYCODER_SEED."""
PAUSE_EXPRESSION = "window.__playcoder ? window.__playcoder.pause() : null"
RESUME_EXPRESSION = "window.__playcoder ? window.__playcoder.resume() : null"
PAUSE_TIMEOUT_S = 1.0
"""How long a web page has to pause or resume its clock (a page whose main thread is busy just goes on)."""
EXIT_NOT_FOUND = 127
"""What a shell answers for a command it cannot find."""


def program_command(spec: TargetSpec) -> tuple[list[str], ProgramEnv | None]:
    """The command as started: ``python`` is the program's own environment (``requirements``) or the engine's
    interpreter; a relative path missing from the scratch copy (a ``.venv`` inside the folder is never copied)
    points into the source folder, which the sandbox then shows read-only."""
    own_env = program_env(spec.folder, spec.requirements) if spec.requirements else None
    python = own_env.python if own_env is not None else sys.executable
    command = [python if part in ("python", "python3") else part for part in spec.command]
    first = command[0]
    if "/" in first and not os.path.isabs(first) and not (spec.folder / first).exists() \
            and (spec.source / first).exists():
        command[0] = os.path.abspath(spec.source / first)
    return command, own_env


def target_environment(spec: TargetSpec, display: str, seed: int) -> dict[str, str]:
    """What a target gets on top of the sandbox's whitelist (PATH, locale, HOME, TMPDIR); secrets never pass."""
    env = dict(
        DISPLAY=display,
        PYTHONHASHSEED=str(seed),
        PLAYCODER_SEED=str(seed),
        PYTHONUNBUFFERED="1",
        PYTHONFAULTHANDLER="1",
        SDL_AUDIODRIVER="dummy",
        PYGAME_HIDE_SUPPORT_PROMPT="1",
    )
    env.update(spec.env)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SEEDING_DIR), spec.env.get("PYTHONPATH")]))
    return {k: v for k, v in env.items() if not sandbox.is_secret(k, v)}


@dataclass(frozen=True)
class WindowInfo:
    id: int
    x: int
    y: int
    width: int
    height: int
    method: str  # how it was found: net_wm_pid | xres | title


class TargetProcess:
    """A running target: its process, output lines and top-level window."""

    def __init__(self, spec: TargetSpec, display: XDisplay, seed: int = 0,
                 on_log: Callable[[LogLine], None] | None = None, gate: FrameGate | None = None) -> None:
        """``gate``: put a pygame game on this frame gate (differential play's lockstep)."""
        self.spec = spec
        self.gate = gate
        self.display = display
        self.seed = seed
        self._on_log = on_log
        self.log = TargetLog()
        """Its output as a bounded head and tail (a program printing without end costs a bounded amount)."""
        self._readers: list[threading.Thread] = []
        self.web: WebLaunch | None = web_launch(spec, seed, self._page_said) if spec.web is not None else None
        """A web page's launch (its URL and DevTools channel); None for any other program."""
        command, own_env = program_command(spec) if self.web is None else (self.web.command, None)
        env = target_environment(spec, display.name, seed)
        if own_env is not None and own_env.pythonpath:
            env["PYTHONPATH"] = os.pathsep.join([str(SEEDING_DIR), own_env.pythonpath, *env["PYTHONPATH"].split(
                os.pathsep)[1:]])
        if gate is not None:
            env.update(gate.env())
        self.inside: Inside = Inside(spec.folder, note=self._channel_note) if self.web is None else self.web.inside
        """The channel from inside the program (a Python program says hello on it, a web page answers through
        the DevTools protocol; others stay on pixels)."""
        env.update(self.inside.env())
        jail = sandbox.Jail(spec.folder, display=display.name, network=spec.network, env=env,
                            limits=sandbox.TARGET_LIMITS if self.web is None else sandbox.BROWSER_LIMITS,
                            read_only=(SEEDING_DIR, *((own_env.folder,) if own_env is not None else ()),
                                       *(self.web.read_only if self.web is not None else ())),
                            pass_fds=(*(gate.child_fds() if gate is not None else ()), *self.inside.child_fds()))
        try:
            self.sandboxed = sandbox.start(command, jail)
        except UserError as exc:
            if gate is not None:
                gate.close()
            self.inside.close()
            raise TargetError(f"could not start {' '.join(command)} in {spec.folder}: {str(exc).rstrip('.')}.") from exc
        finally:
            if gate is not None:
                gate.started()
            self.inside.started()
        self.proc = self.sandboxed.popen
        self.confined = self.sandboxed.confined
        """False when bubblewrap could not run here (said once on stderr): only limits contain the target."""
        self.started_at = time.time()
        assert self.proc.stdout is not None and self.proc.stderr is not None
        for name, stream in (("stdout", self.proc.stdout), ("stderr", self.proc.stderr)):
            thread = threading.Thread(target=self._read, args=(name, stream), daemon=True, name=f"target-{name}")
            thread.start()
            self._readers.append(thread)
        self._x: xdisplay.Display | None = None
        self.window: WindowInfo | None = None

    # -- output ------------------------------------------------------------
    def _channel_note(self, text: str) -> None:
        """What the program sent that broke its channel's limits (dropped), said once in its run's log."""
        self._page_said("stderr", f"playcoder: {text}")

    def _page_said(self, stream: str, text: str) -> None:
        """A web page's console and uncaught errors, kept with the program's output."""
        line = (stream, time.time(), text)
        self.log.append(line)
        if self._on_log is not None:
            self._on_log(line)

    def page_errors(self) -> list[PageError]:
        """A web page's uncaught errors since the last call (none for other programs)."""
        return self.web.inside.page_errors() if self.web is not None else []

    def _read(self, name: str, stream: IO[bytes]) -> None:
        for raw in iter(lambda: stream.readline(MAX_LINE_BYTES), b""):  # one line never costs more than this
            line = (name, time.time(), raw.decode("utf-8", errors="replace").rstrip("\n"))
            self.log.append(line)
            if self._on_log is not None:
                self._on_log(line)
        stream.close()

    def lines(self, since: int = 0) -> list[LogLine]:
        """Kept output lines from position ``since`` on (see :class:`~app.engine.play.target_log.TargetLog`)."""
        return self.log.lines(since)

    def read_since(self, since: int) -> tuple[list[LogLine], int]:
        """Kept output lines from position ``since`` on, and the position to read from next."""
        return self.log.read_since(since)

    def drain_output(self, timeout: float = 1.0) -> None:
        """After exit: wait until the reader threads have seen end-of-file."""
        for thread in self._readers:
            thread.join(timeout)

    # -- process -------------------------------------------------------------
    @property
    def pid(self) -> int:
        """The host PID of the program itself (a process-group leader, in its own session)."""
        return self.sandboxed.pid

    def signal_program(self, sig: int) -> None:
        """Stop (SIGSTOP) or continue (SIGCONT) the program while a tester thinks; a web page's clock is paused
        inside the page instead (its browser must keep answering, and its time must not jump on continuing)."""
        if self.web is not None and sig in (signal.SIGSTOP, signal.SIGCONT):
            self.web.inside.evaluate(PAUSE_EXPRESSION if sig == signal.SIGSTOP else RESUME_EXPRESSION, PAUSE_TIMEOUT_S)
            return
        self.sandboxed.signal_program(sig)

    def alive(self) -> bool:
        return self.sandboxed.poll() is None

    @property
    def returncode(self) -> int | None:
        """Like subprocess: negative for a program killed by a signal."""
        return self.sandboxed.poll()

    def cpu_percent(self, interval: float) -> float | None:
        """CPU use of the target and the processes it started over ``interval`` seconds (100 = one core busy)."""
        try:
            root = psutil.Process(self.pid)
            tree = [root, *root.children(recursive=True)]  # a browser's page runs in a child process
        except (psutil.Error, OSError):
            return None
        for proc in tree:
            try:
                proc.cpu_percent(None)
            except (psutil.Error, OSError):
                pass
        time.sleep(interval)
        total = None
        for proc in tree:
            try:
                total = (total or 0.0) + float(proc.cpu_percent(None))
            except (psutil.Error, OSError):
                continue
        return total

    def shutdown(self) -> int | None:
        if self.gate is not None:
            # Let go first: a game standing on its gate reads the polite close (SDL turns SIGTERM into a QUIT
            # event) only at its next frame, and would otherwise use up the whole grace before being killed.
            self.gate.release()
        code = self.sandboxed.stop(STOP_GRACE_S)
        if self.gate is not None:
            self.gate.close()
        self.inside.close()
        self.drain_output(1.0)
        if self._x is not None:
            try:
                self._x.close()
            except Exception:  # the display may already be gone
                pass
            self._x = None
        return code

    # -- window ----------------------------------------------------------------
    def xconn(self) -> xdisplay.Display:
        if self._x is None:
            try:
                self._x = open_x(self.display.name)
            except (xerror.DisplayError, xerror.DisplayConnectionError, OSError) as exc:
                raise TargetError(f"cannot connect to X display {self.display.name} ({exc}); check that it is running.") from exc
        return self._x

    def wait_for_window(self, timeout: float | None = None) -> WindowInfo:
        """Poll until the target maps a top-level window; raise if it exits or times out."""
        limit = timeout if timeout is not None else self.spec.startup_timeout
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            if not self.alive():
                self.drain_output()
                tail = " | ".join(t for _, _, t in self.lines()[-3:])
                if self.returncode == EXIT_NOT_FOUND and "not found" in tail:
                    raise TargetError(
                        f"the sandbox could not run {self.spec.command[0]!r} (exit code {EXIT_NOT_FOUND}: {tail}); "
                        "a program outside /usr, /opt and the program folder must be a venv's python or named by "
                        "its full path, or declare requirements in playcoder.toml and let the engine build one.")
                raise TargetError(
                    f"the target exited with code {self.returncode} before showing a window"
                    f"{': ' + tail if tail else ''}; run its command by hand to see why."
                )
            found = find_window(self.xconn(), self.sandboxed.root_pid, self.spec.window_title)
            if found is not None:
                if self.web is not None:  # the browser's window is up: load the page into it
                    held = isinstance(self.gate, WebGate)
                    if isinstance(self.gate, WebGate):
                        self.gate.attach(self.web.inside)
                    self.web.inside.open_page(self.web.url, max(1.0, deadline - time.monotonic()), held=held)
                self.window = found
                return found
            time.sleep(WINDOW_POLL_S)
        raise TargetError(
            f"the target showed no window within {limit:g} s; check that it opens a window on $DISPLAY "
            "or raise startup_timeout in playcoder.toml."
        )

    def refresh_geometry(self, before: Callable[[WindowInfo], object] | None = None) -> WindowInfo | None:
        """Re-read the window's position and size (it may move or resize).

        A window that is gone may have been re-created by the program (some toolkits replace
        the window to change its mode): the program's window is then looked for again.
        ``before(new)`` is called before the new geometry is the target's: a screen grown there holds the
        window before another thread (the film's poller) captures it where it is now.
        """
        if self.window is None:
            return None
        new: WindowInfo | None = None
        try:
            win = self.xconn().create_resource_object("window", self.window.id)
            new = _geometry(self.xconn(), win, self.window.method)
        except (xerror.XError, xerror.BadWindow):
            if self.alive():
                try:
                    new = find_window(self.xconn(), self.sandboxed.root_pid, self.spec.window_title)
                except (xerror.XError, xerror.BadWindow):
                    new = None
        if new is not None:
            if before is not None:
                before(new)
            self.window = new
        return self.window


def _pids_of(pid: int) -> set[int]:
    pids = {pid}
    try:
        pids.update(c.pid for c in psutil.Process(pid).children(recursive=True))
    except psutil.Error:
        pass
    return pids


def _geometry(conn: xdisplay.Display, win: Window, method: str) -> WindowInfo:
    geo = win.get_geometry()
    root = conn.screen().root
    pos = root.translate_coords(win, 0, 0)
    return WindowInfo(win.id, int(pos.x), int(pos.y), int(geo.width), int(geo.height), method)


def _candidates(conn: xdisplay.Display) -> list[tuple[Window, int]]:
    """Viewable windows down to depth 3 (a window manager reparents clients)."""
    out: list[tuple[Window, int]] = []
    stack: list[tuple[Window, int]] = [(conn.screen().root, 0)]
    while stack:
        win, depth = stack.pop()
        try:
            children = win.query_tree().children
        except xerror.XError:
            continue
        for child in children:
            try:
                attrs = child.get_attributes()
            except xerror.XError:
                continue
            if attrs.map_state != X.IsViewable:
                continue
            out.append((child, depth + 1))
            if depth + 1 < 3:
                stack.append((child, depth + 1))
    return out


def find_window(conn: xdisplay.Display, pid: int, title: str | None = None) -> WindowInfo | None:
    """The largest viewable window of ``pid`` (or its descendants), by the methods above.

    ``_NET_WM_PID`` may hold a host PID or, for a sandboxed program, its PID
    inside its namespace; a namespace PID (a small number any other sandbox
    may use too) counts only when X-Resource, if the server has it, confirms
    the window's client is one of ours.
    """
    pids = _pids_of(pid)
    inner = set(sandbox.namespace_pids(pids).values())
    viewable = _candidates(conn)
    net_wm_pid = conn.intern_atom("_NET_WM_PID")
    by_method: dict[str, list[Window]] = {"net_wm_pid": [], "xres": [], "title": []}
    has_res = conn.has_extension("X-Resource")
    for win, _depth in viewable:
        try:
            prop = win.get_full_property(net_wm_pid, X.AnyPropertyType)
            claimed = int(prop.value[0]) if prop is not None and len(prop.value) else None
            client = _xres_pid(conn, win.id) if has_res else None
            if claimed in pids or (claimed in inner and (client is None or client in pids)):
                by_method["net_wm_pid"].append(win)
                continue
            if client in pids:
                by_method["xres"].append(win)
                continue
            if title and title in (_title(conn, win) or ""):
                by_method["title"].append(win)
        except (xerror.XError, xerror.BadWindow):
            continue
    for method in ("net_wm_pid", "xres", "title"):
        wins = by_method[method]
        if title and method != "title":
            titled = [w for w in wins if title in (_title(conn, w) or "")]
            wins = titled or wins
        infos = []
        for win in wins:
            try:
                info = _geometry(conn, win, method)
            except xerror.XError:
                continue
            if info.width > 1 and info.height > 1:
                infos.append(info)
        if infos:
            return max(infos, key=lambda i: i.width * i.height)
    return None


def _xres_pid(conn: xdisplay.Display, xid: int) -> int | None:
    try:
        reply = conn.res_query_client_ids([{"client": xid, "mask": xres.LocalClientPIDMask}])
    except (xerror.XError, AttributeError):
        return None
    for ident in reply.ids:
        if ident.spec.mask & xres.LocalClientPIDMask and ident.value:
            return int(ident.value[0])
    return None


def _title(conn: xdisplay.Display, win: Window) -> str | None:
    try:
        net_name = win.get_full_property(conn.intern_atom("_NET_WM_NAME"), conn.intern_atom("UTF8_STRING"))
        if net_name is not None:
            value: Any = net_name.value
            return value.decode("utf-8", errors="replace") if isinstance(value, bytes) else str(value)
        name = win.get_wm_name()
        return str(name) if name else None
    except xerror.XError:
        return None
