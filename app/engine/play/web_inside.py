"""Inside a web page: the DevTools protocol speaking the inside channel's messages.

:class:`WebInside` is an :class:`~app.engine.play.inside.Inside` whose questions are answered by the page's
browser instead of a Python program's seeding: ``idle`` and ``widgets`` by the probe the engine adds to every
document (``play/web_probe.js``), ``coverage`` by V8's precise coverage of the program's own scripts, mapped
to their lines.  Testers, settling and the oracles never ask which kind of program they play.

What only a page says comes as events: an uncaught exception or unhandled rejection (``Runtime.exception
Thrown``) is a :class:`PageError` the oracles turn into a ``crash`` finding naming its script and line, and
goes to the run's log with console errors and warnings (stderr) and other console output (stdout).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable
from urllib.parse import unquote, urlsplit

from app.engine.errors import TargetError
from app.engine.play.devtools import CallError, DevTools
from app.engine.play.inside import Inside
from app.engine.play.web_lines import covered_lines, text_lines

PROBE = Path(__file__).with_name("web_probe.js")
CHANCE = Path(__file__).with_name("web_random.js")
"""Seeds ``Math.random`` and ``crypto.getRandomValues`` from ``window.PLAYCODER_SEED`` in every document."""
CONSOLE_TEXT_MAX = 2000
"""The longest console message kept in the log (characters)."""
ERRORS_KEPT = 200
"""Uncaught errors remembered per page start (the same error again counts once anyway)."""
CRASHED = "the page's renderer process ended (out of memory, or killed); the window shows a crashed page"
IDLE_EXPRESSION = "window.__playcoder ? window.__playcoder.settled(false) : null"
QUICK_IDLE_EXPRESSION = "window.__playcoder ? window.__playcoder.settled(true) : null"
"""Idle at once when nothing stirred the page since the frame the last question waited for (a confirmation)."""
HOLD_SOURCE = "window.__playcoderHold = true;\n"
SEED_SOURCE = "window.PLAYCODER_SEED = {seed};\n"
"""The run's seed, for a page that seeds its own generator (``Math.random`` is seeded by the engine: CHANCE)."""
LOADED_EXPRESSION = "document.readyState === 'complete' && !!window.__playcoder"
LOAD_POLL_S = 0.05
STOP_S = 1.0
"""How long stopping a frozen page's script may take to be confirmed."""
WIDGETS_EXPRESSION = "window.__playcoder ? window.__playcoder.widgets() : null"

LogSink = Callable[[str, str], None]
"""Where the page's console goes: (stream, text), stream "stdout" or "stderr"."""


@dataclass(frozen=True)
class PageError:
    """An uncaught exception or unhandled rejection of the page."""

    message: str
    script: str
    """The script's path in the program folder (or its URL when it is not the program's own)."""
    line: int
    """1-based; 0 when the browser did not say."""
    column: int
    stack: tuple[str, ...] = ()
    crashed: bool = False
    """Not an exception: the page's renderer ended, and the page with it."""

    @property
    def where(self) -> str:
        return f"{self.script}:{self.line}" if self.line else self.script or "the page"


class WebInside(Inside):
    """The engine's end of one browser's DevTools pipe, as an inside channel."""

    def __init__(self, folder: Path | None, log: LogSink, seed: int = 0) -> None:
        """``seed``: the run's seed, given to the page as ``window.PLAYCODER_SEED`` before its scripts run."""
        self._init_state(folder)
        self.seed = seed
        self.devtools = DevTools()
        self._log = log
        self._session = ""
        self._origin = ""
        self._errors: list[PageError] = []
        self._errors_read = 0
        self._js_total: dict[str, set[int]] = {}
        self._frame = ""
        self._served: dict[str, str | None] = {}
        """Scripts the page's own server built (not in the folder on this side): their source, by URL."""

    # -- starting ------------------------------------------------------------------
    def env(self) -> dict[str, str]:
        return {}

    def child_fds(self) -> tuple[int, ...]:
        return self.devtools.child_fds()

    def started(self) -> None:
        self.devtools.started()

    def open_page(self, url: str, timeout_s: float, held: bool = False) -> None:
        """Attach to the browser's one page, add the probe, start coverage, then load ``url``: every script of
        the page runs with the probe in place (``held``: with its clock held, play/web_gate.py).  TargetError
        when the page cannot be opened."""
        end = time.monotonic() + timeout_s
        target = self._page_target(end)
        attached = self.devtools.call("Target.attachToTarget", {"targetId": target, "flatten": True},
                                      timeout_s=max(0.1, end - time.monotonic()))
        if not isinstance(attached, dict) or not isinstance(attached.get("sessionId"), str):
            raise TargetError("the browser did not let the engine attach to its page; run again, and if it "
                              "persists check that the chromium package works (chromium --version).")
        self._session = attached["sessionId"]
        self.devtools.on("Runtime.exceptionThrown", self._on_exception)
        self.devtools.on("Runtime.consoleAPICalled", self._on_console)
        self.devtools.on("Inspector.targetCrashed", self._on_crashed)
        for method, params in (("Runtime.enable", {}), ("Page.enable", {}), ("Inspector.enable", {}),
                               ("Page.addScriptToEvaluateOnNewDocument",
                                {"source": SEED_SOURCE.format(seed=int(self.seed)) + CHANCE.read_text("utf-8")
                                 + (HOLD_SOURCE if held else "") + PROBE.read_text("utf-8")}),
                               ("Profiler.enable", {}),
                               ("Profiler.startPreciseCoverage", {"callCount": True, "detailed": True})):
            self._call(method, params, end)
        parts = urlsplit(url)
        self._origin = f"{parts.scheme}://{parts.netloc}"
        navigated = self._call("Page.navigate", {"url": url}, end)
        self._frame = str(navigated.get("frameId") or "")
        if navigated.get("errorText"):
            raise TargetError(f"the page {url} did not load ({navigated['errorText']}); check that the page "
                              "exists and, for a server of the program's own, that it answers at that URL.")
        while not self._probed(end):
            if time.monotonic() >= end or self.devtools.closed:
                raise TargetError(f"the page {url} did not finish loading within {timeout_s:g} s; raise "
                                  "startup_timeout in playcoder.toml if it is slow to load.")
            time.sleep(LOAD_POLL_S)
        self.toolkit = "web"
        self.available = True
        self._take_coverage(max(0.5, end - time.monotonic()))  # the start-up's lines, and the scripts' lines

    def _probed(self, end: float) -> bool:
        """The page loaded with the engine's probe in it (the first load, before the probe, does not count)."""
        result = self.devtools.call("Runtime.evaluate", {"expression": LOADED_EXPRESSION, "returnByValue": True},
                                    session=self._session, timeout_s=max(0.1, min(1.0, end - time.monotonic())))
        return isinstance(result, dict) and result.get("result", {}).get("value") is True

    def _page_target(self, end: float) -> str:
        while time.monotonic() < end and not self.devtools.closed:
            found = self.devtools.call("Target.getTargets", timeout_s=max(0.1, end - time.monotonic()))
            if isinstance(found, dict):
                pages = [t for t in found.get("targetInfos", []) if isinstance(t, dict) and t.get("type") == "page"]
                if pages and isinstance(pages[0].get("targetId"), str):
                    return str(pages[0]["targetId"])
            time.sleep(0.05)
        raise TargetError("the browser showed no page to play; check that the chromium package works "
                          "(chromium --version) and raise startup_timeout in playcoder.toml if it is slow.")

    def _call(self, method: str, params: dict[str, Any], end: float) -> dict[str, Any]:
        result = self.devtools.call(method, params, session=self._session,
                                    timeout_s=max(0.1, end - time.monotonic()))
        if isinstance(result, CallError):
            raise TargetError(f"the browser refused {method} ({result.message}); check the chromium package.")
        if result is None:
            raise TargetError(f"the browser did not answer {method} in time; run again, or raise startup_timeout.")
        return result

    def close(self) -> None:
        self.devtools.close()
        with self._lock:
            self._closed = True
            self._lock.notify_all()

    def wait_hello(self, timeout_s: float) -> bool:
        return self.available

    def stop_frozen(self) -> None:
        """Stop the page's running script (``Runtime.terminateExecution``, answered while the main thread is
        busy): V8 gives coverage only between tasks, so a page spinning forever would lose the step's lines."""
        if self.available and not self._closed:
            self.devtools.call("Runtime.terminateExecution", session=self._session, timeout_s=STOP_S)

    def evaluate(self, expression: str, timeout_s: float) -> Any:
        """The value of ``expression`` in the page (a promise awaited); None when it threw, did not answer
        within ``timeout_s`` or the page is gone."""
        if not self.available or self._closed:
            return None
        result = self.devtools.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                         "awaitPromise": True}, session=self._session,
                                    timeout_s=timeout_s)
        if not isinstance(result, dict) or "exceptionDetails" in result:
            return None
        return result.get("result", {}).get("value")

    # -- what only a page says --------------------------------------------------------
    def page_errors(self) -> list[PageError]:
        """Uncaught errors since the last call."""
        with self._lock:
            fresh = self._errors[self._errors_read:]
            self._errors_read = len(self._errors)
        return fresh

    def _on_exception(self, params: dict[str, Any], session: str) -> None:
        details = params.get("exceptionDetails")
        if session != self._session or not isinstance(details, dict):
            return
        error = _page_error(details, self._script_path)
        with self._lock:
            if len(self._errors) < ERRORS_KEPT:
                self._errors.append(error)
        self._log("stderr", f"Uncaught error at {error.where}: {error.message}")
        for frame in error.stack:
            self._log("stderr", "    at " + frame)

    def _on_crashed(self, _params: dict[str, Any], session: str) -> None:
        """The page's renderer process ended (out of memory, killed): the page is gone though the window stays."""
        if session != self._session:
            return
        error = PageError(CRASHED, "the page", 0, 0, crashed=True)
        with self._lock:
            self._errors.append(error)
            self.available = False  # nothing answers from inside any more: settle from pixels
        self._log("stderr", f"{CRASHED}")

    def _on_console(self, params: dict[str, Any], session: str) -> None:
        if session != self._session:
            return
        kind = str(params.get("type", "log"))
        args = params.get("args")
        text = " ".join(_remote_text(a) for a in (args if isinstance(args, list) else []))[:CONSOLE_TEXT_MAX]
        stream = "stderr" if kind in ("error", "warning", "assert") else "stdout"
        self._log(stream, f"console.{kind}: {text}")

    def _script_path(self, url: str) -> str:
        """A script's path in the program folder when the page serves it from there, else its URL."""
        if self._origin and url.startswith(self._origin + "/"):
            path = unquote(urlsplit(url).path).lstrip("/")
            if self.folder is not None and path and (self.folder / path).is_file():
                return path
        return url

    # -- the channel's questions ----------------------------------------------------------
    def _ask(self, kind: str, timeout_s: float) -> dict[str, Any] | None:
        if not self.available or self._closed:
            return None
        if kind == "coverage":
            return self._take_coverage(timeout_s)
        expression = {"idle": IDLE_EXPRESSION, "idle-quick": QUICK_IDLE_EXPRESSION}.get(kind, WIDGETS_EXPRESSION)
        value = self.evaluate(expression, timeout_s)
        if kind == "widgets":
            return {"widgets": value} if isinstance(value, list) else None
        return value if isinstance(value, dict) else None

    def _idle_kind(self, quick: bool) -> str:
        return "idle-quick" if quick else "idle"

    def _take_coverage(self, timeout_s: float) -> dict[str, Any] | None:
        result = self.devtools.call("Profiler.takePreciseCoverage", session=self._session, timeout_s=timeout_s)
        if not isinstance(result, dict):
            return None
        hit: dict[str, list[int]] = {}
        for script in result.get("result", []):
            if not isinstance(script, dict):
                continue
            url = str(script.get("url", ""))
            path = self._script_path(url)
            if self.folder is None:
                continue
            if "://" in path:  # served from the page's origin but not a file of the folder here: built output
                path, lines = self._served_lines(url, script.get("functions", []), timeout_s)
            else:
                lines = covered_lines(self.folder / path, script.get("functions", [])) \
                    if path.endswith((".js", ".mjs")) else None
            if lines is None:
                continue
            ran, executable = lines
            with self._lock:
                self._js_total.setdefault(path, set()).update(executable)
                self._total = None
            hit[path] = sorted(ran)
        with self._lock:
            self._note_lines(hit, None)
        return {}

    def _served_lines(self, url: str, functions: Any, timeout_s: float) -> tuple[str, tuple[set[int], set[int]] | None]:
        """A script the program's server made (``dist/main.js`` built inside the sandbox, so not in the folder
        on this side), named by its URL path and mapped to lines of the source the browser ran."""
        path = unquote(urlsplit(url).path).lstrip("/")
        if not (self._origin and url.startswith(self._origin + "/")) or not path.endswith((".js", ".mjs")) \
                or "node_modules/" in path or path.startswith(("@", ".")):
            return path, None
        if url not in self._served:
            got = self.devtools.call("Page.getResourceContent", {"frameId": self._frame, "url": url},
                                     session=self._session, timeout_s=timeout_s)
            ok = isinstance(got, dict) and isinstance(got.get("content"), str) and not got.get("base64Encoded")
            self._served[url] = str(got["content"]) if ok and isinstance(got, dict) else None
        text = self._served[url]
        return path, text_lines(text, functions) if text is not None else None

    def _lines_by_file(self) -> dict[str, frozenset[int]]:
        """The program's own scripts the page ran, each with its executable lines."""
        return {path: frozenset(lines) for path, lines in self._js_total.items()}


def _page_error(details: dict[str, Any], script_path: Callable[[str], str]) -> PageError:
    raw = details.get("exception")
    exception: dict[str, Any] = raw if isinstance(raw, dict) else {}
    message = str(exception.get("description") or details.get("text") or "error").split("\n")[0][:500]
    if str(details.get("text", "")).startswith("Uncaught (in promise)") and "promise" not in message:
        message = "(in promise) " + message
    frames = (details.get("stackTrace") or {}).get("callFrames") or []
    url, line, column = str(details.get("url", "")), int(details.get("lineNumber", -1)) + 1, \
        int(details.get("columnNumber", -1)) + 1
    if frames and isinstance(frames[0], dict):
        url = str(frames[0].get("url") or url)
        line, column = int(frames[0].get("lineNumber", -1)) + 1, int(frames[0].get("columnNumber", -1)) + 1
    stack = tuple(f"{f.get('functionName') or '(anonymous)'} ({script_path(str(f.get('url', '')))}:"
                  f"{int(f.get('lineNumber', -1)) + 1})" for f in frames[:12] if isinstance(f, dict))
    return PageError(message, script_path(url), max(0, line), max(0, column), stack)


def _remote_text(arg: Any) -> str:
    if not isinstance(arg, dict):
        return ""
    if "value" in arg:
        return str(arg["value"])
    return str(arg.get("description") or arg.get("type", ""))
