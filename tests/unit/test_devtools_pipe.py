"""The DevTools pipe client against a browser stand-in on the other end of its pipes: answers, events, an
oversize message dropped, a browser that is gone answering None at once."""

from __future__ import annotations

import json
import os
import threading
import time

from app.engine.play.devtools import MAX_MESSAGE, CallError, DevTools


class FakeBrowser:
    """Reads NUL-ended commands on its read end and answers with ``answer(command)`` on its write end."""

    def __init__(self, tools: DevTools, answer) -> None:
        self.read_fd, self.write_fd = (os.dup(fd) for fd in tools.child_fds())
        tools.started()
        self.answer = answer
        self.seen: list[dict] = []
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def send(self, data: bytes) -> None:
        os.write(self.write_fd, data)

    def _run(self) -> None:
        buf = b""
        while chunk := os.read(self.read_fd, 65536):
            buf += chunk
            while b"\0" in buf:
                raw, buf = buf.split(b"\0", 1)
                command = json.loads(raw)
                self.seen.append(command)
                for reply in self.answer(command):
                    self.send(json.dumps(reply).encode() + b"\0")

    def gone(self) -> None:
        os.close(self.write_fd)
        os.close(self.read_fd)


def test_a_call_gets_its_result_and_events_reach_their_handler():
    tools = DevTools()
    events = []
    tools.on("Runtime.consoleAPICalled", lambda params, session: events.append((params["type"], session)))

    def answer(command):
        yield {"method": "Runtime.consoleAPICalled", "params": {"type": "log"}, "sessionId": "S1"}
        if command["method"] == "Broken.method":
            yield {"id": command["id"], "error": {"message": "no such method"}}
        else:
            yield {"id": command["id"], "result": {"echo": command["params"]}, "sessionId": command.get("sessionId")}

    browser = FakeBrowser(tools, answer)
    try:
        assert tools.call("Runtime.evaluate", {"expression": "1"}, session="S1") == {"echo": {"expression": "1"}}
        assert browser.seen[0]["sessionId"] == "S1"
        failed = tools.call("Broken.method")
        assert isinstance(failed, CallError) and failed.message == "no such method"
        assert events[:2] == [("log", "S1"), ("log", "S1")]
    finally:
        browser.gone()
        tools.close()


def test_an_oversize_message_is_dropped_and_the_next_one_still_read():
    tools = DevTools()
    browser = FakeBrowser(tools, lambda command: [{"id": command["id"], "result": {"ok": True}}])
    try:
        browser_thread = threading.Thread(target=browser.send, args=(b"x" * (MAX_MESSAGE + 70000) + b"\0",),
                                          daemon=True)
        browser_thread.start()
        browser_thread.join(30)
        assert tools.call("Target.getTargets", timeout_s=10) == {"ok": True}
        assert tools.dropped == 1
    finally:
        browser.gone()
        tools.close()


def test_a_silent_browser_times_out_and_a_gone_one_answers_none_at_once():
    tools = DevTools()
    browser = FakeBrowser(tools, lambda command: [])
    started = time.monotonic()
    assert tools.call("Runtime.evaluate", timeout_s=0.3) is None
    assert 0.25 <= time.monotonic() - started < 2
    browser.gone()
    deadline = time.monotonic() + 5
    while not tools.closed and time.monotonic() < deadline:
        time.sleep(0.01)
    started = time.monotonic()
    assert tools.call("Runtime.evaluate", timeout_s=5) is None
    assert time.monotonic() - started < 0.5
    tools.close()
