"""Local servers speaking the OpenAI chat-completions and Anthropic messages wire protocols.

For tests and benchmarks with the real SDKs and no network: an
``http.server`` on 127.0.0.1 in a daemon thread.  Each test scripts replies
(:meth:`ScriptedServer.push`) or installs a responder; every request is
recorded with its JSON body, headers and the time the server spent on it.
"""

from __future__ import annotations

import base64
import io
import json
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

from PIL import Image


@dataclass
class Reply:
    """One scripted answer: a model text (wrapped in the protocol's body) or a raw HTTP answer."""

    text: str | None = None
    usage: tuple[int, int] | None = (100, 20)
    status: int = 200
    body: bytes | dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    server_ms: float = 0.0

    def texts(self) -> list[str]:
        out = []
        for m in self.body.get("messages", []):
            content = m.get("content")
            if isinstance(content, str):
                out.append(content)
            else:
                out += [p.get("text", "") for p in content if p.get("type") == "text"]
        return out

    def prompt(self) -> str:
        return "\n".join(self.texts())

    def images(self) -> list[Image.Image]:
        """Every image part of the request, decoded (OpenAI data URLs or Anthropic base64 sources)."""
        found = []
        for m in self.body.get("messages", []):
            content = m.get("content")
            if isinstance(content, str):
                continue
            for p in content:
                data = None
                if p.get("type") == "image_url":
                    data = p["image_url"]["url"].split(",", 1)[1]
                elif p.get("type") == "image":
                    data = p["source"]["data"]
                if data is not None:
                    found.append(Image.open(io.BytesIO(base64.b64decode(data))))
        return found


class ScriptedServer:
    """Base class; subclasses define ``path`` and how a text becomes a protocol body."""

    path = "/"

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self.queue: list[Reply] = []
        self.responder: Callable[[Recorded], Reply] | None = None
        self._lock = threading.Lock()
        self._closing = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self) -> None:
                super().setup()
                # Headers and body go out in two writes; without this, Nagle + delayed ACK add ~40 ms.
                self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def do_POST(self) -> None:  # noqa: N802 (http.server naming)
                t0 = time.perf_counter()
                length = int(self.headers.get("content-length", 0))
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                rec = Recorded(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                with server._lock:
                    server.requests.append(rec)
                reply = server._next(rec)
                if reply.delay and server._closing.wait(reply.delay):
                    return
                if self.path != server.path:
                    reply = Reply(status=404, body={"error": {"message": f"no route {self.path}"}})
                payload = server._payload(reply, body)
                rec.server_ms = (time.perf_counter() - t0) * 1000.0
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="llm-test-server", daemon=True)

    # -- lifecycle -------------------------------------------------------------
    def __enter__(self) -> ScriptedServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._closing.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)

    @property
    def port(self) -> int:
        return int(self.httpd.server_address[1])

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # -- scripting -------------------------------------------------------------
    def push(self, *replies: Reply | str) -> None:
        with self._lock:
            self.queue += [Reply(r) if isinstance(r, str) else r for r in replies]

    def _next(self, rec: Recorded) -> Reply:
        with self._lock:
            if self.queue:
                return self.queue.pop(0)
        if self.responder is not None:
            return self.responder(rec)
        return Reply("ok")

    def _payload(self, reply: Reply, request: dict[str, Any]) -> bytes:
        if isinstance(reply.body, bytes):
            return reply.body
        if isinstance(reply.body, dict):
            return json.dumps(reply.body).encode()
        return json.dumps(self.wrap(reply.text or "", reply.usage, str(request.get("model", "m")))).encode()

    @property
    def base_url(self) -> str:
        raise NotImplementedError

    def wrap(self, text: str, usage: tuple[int, int] | None, model: str) -> dict[str, Any]:
        raise NotImplementedError


class OpenAIServer(ScriptedServer):
    path = "/v1/chat/completions"

    @property
    def base_url(self) -> str:
        return self.root + "/v1"

    def wrap(self, text: str, usage: tuple[int, int] | None, model: str) -> dict[str, Any]:
        body: dict[str, Any] = {
            "id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion", "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        }
        if usage is not None:
            body["usage"] = {"prompt_tokens": usage[0], "completion_tokens": usage[1],
                             "total_tokens": usage[0] + usage[1]}
        return body


class AnthropicServer(ScriptedServer):
    path = "/v1/messages"

    @property
    def base_url(self) -> str:
        return self.root

    def wrap(self, text: str, usage: tuple[int, int] | None, model: str) -> dict[str, Any]:
        body: dict[str, Any] = {
            "id": f"msg_{len(self.requests)}", "type": "message", "role": "assistant", "model": model,
            "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "stop_sequence": None,
        }
        if usage is not None:
            body["usage"] = {"input_tokens": usage[0], "output_tokens": usage[1]}
        return body


def playbook(actions: list[str], *, verdict: str = "pass", usage: tuple[int, int] = (100, 20)) -> Callable[[Recorded], Reply]:
    """A responder that plays a whole run: analysis, plan, the given actions in turn, judgments, verdict."""
    state = {"i": 0}

    def respond(rec: Recorded) -> Reply:
        prompt = rec.prompt()
        if "Action decision" in prompt:
            action = actions[min(state["i"], len(actions) - 1)]
            state["i"] += 1
            return Reply(action, usage)
        if "Criterion judgment" in prompt:
            return Reply(json.dumps({"verdict": verdict, "evidence_step": 0, "note": "seen at step 0"}), usage)
        if "Overall verdict" in prompt:
            return Reply(json.dumps({"verdict": verdict, "reason": "it reacted to every input (step 0)"}), usage)
        if "GUI analysis" in prompt:
            return Reply("A dark canvas with the word 'ready' in the middle; keys and clicks are logged.", usage)
        return Reply("1. Press a. 2. Click the middle. 3. Press enter. 4. Finish.", usage)

    return respond


def synthetic_frame(width: int, height: int, seed: int = 0) -> Any:
    """A window-like frame (flat background, a few coloured boxes) without any X server."""
    import numpy as np

    from app.engine.play.observer import Frame

    rng = np.random.default_rng(seed)
    pixels = np.zeros((height, width, 4), np.uint8)
    pixels[:, :, :3] = (64, 48, 32)
    for _ in range(6):
        x, y = int(rng.integers(0, width - 40)), int(rng.integers(0, height - 40))
        pixels[y:y + 36, x:x + 36, :3] = rng.integers(0, 255, 3)
    return Frame(width, height, pixels.tobytes(), time.time())


def settings_for(server: ScriptedServer, provider: str = "openai", model: str = "gpt-test", **options: Any) -> Any:
    """LLMSettings pointing at a local server, with a fake key and the keyring left alone."""
    from app.engine.llm.config import resolve_settings

    env = {"OPENAI_API_KEY": TEST_KEY, "ANTHROPIC_API_KEY": TEST_KEY}
    return resolve_settings({"provider": provider, "model": model, "base_url": server.base_url, **options},
                            env=env, keyring_lookup=lambda p: None)


TEST_KEY = "sk-test-SECRET123"
