"""The model interface the repair agents talk to, and its adapter onto :mod:`app.engine.llm`.

:class:`ChatModel` is deliberately small — a list of turns in, text and
token counts out — so the refiner and the developer do not depend on one
provider's request shape.  :class:`LLMChatModel` implements it with the
workbench's providers (official OpenAI / Anthropic SDKs, or any
OpenAI-compatible ``base_url``): every call is recorded in ``llm_calls``
with its phase, and pictures go into the record as the hash of a stored
frame, never as pixels.
"""

from __future__ import annotations

from dataclasses import dataclass
from string import Template
from typing import Any, Mapping, Protocol

from app.engine.errors import UserError
from app.engine.trace.store import TrajectoryStore
from app.paths import RESOURCES

PROMPTS_DIR = RESOURCES / "prompts"
DEFAULT_MAX_TOKENS = 4096


@dataclass(frozen=True)
class ChatTurn:
    role: str  # "user" | "assistant"
    text: str
    images: tuple[str, ...] = ()
    """sha256 of frames in the store, shown to the model with this turn"""


class ChatModel(Protocol):
    def complete(self, turns: list[ChatTurn], *, system: str = "", phase: str = "repair") -> tuple[str, int, int]:
        """The model's answer and (tokens in, tokens out).  Raises UserError when the call fails for good."""
        ...


def load_prompt(name: str, folder: Any = None) -> Template:
    path = (folder or PROMPTS_DIR) / f"{name}.md"
    try:
        return Template(path.read_text(encoding="utf-8").strip())
    except OSError:
        raise UserError(f"The prompt template {path} is missing; reinstall PlayCoder or restore the file.") from None


class LLMChatModel:
    """ChatModel over ``app.engine.llm.client.LLMClient`` (retries, recording, secret scrubbing)."""

    def __init__(self, client: Any, *, max_tokens: int = DEFAULT_MAX_TOKENS) -> None:
        self.client = client
        self.max_tokens = max_tokens
        self.store: TrajectoryStore | None = None

    def attach(self, store: TrajectoryStore, run_id: int) -> None:
        """Record every call on ``run_id`` (the repair session) in ``store``."""
        self.store = store
        self.client.attach(store, run_id, None)

    def complete(self, turns: list[ChatTurn], *, system: str = "", phase: str = "repair") -> tuple[str, int, int]:
        from app.engine.llm.messages import ChatRequest, ImagePart, Message

        messages = []
        for turn in turns:
            if turn.role == "assistant":
                messages.append(Message.assistant(turn.text))
                continue
            parts: list[Any] = [turn.text]
            for sha in turn.images:
                frame = self.store.frame(sha) if self.store is not None else None
                if frame is not None:
                    part = ImagePart(frame.image())
                    part.sha256 = sha  # already stored: the record points at it
                    parts.append(part)
            messages.append(Message.user(*parts))
        result = self.client.ask(phase, None, ChatRequest(system, messages, self.max_tokens))
        return result.text, int(result.tokens_in), int(result.tokens_out)


def make_chat_model(options: Mapping[str, Any]) -> LLMChatModel:
    """A ChatModel from --provider/--model/--base-url style options (the key comes from the environment)."""
    try:
        from app.engine.llm.client import LLMClient
        from app.engine.llm.config import resolve_settings
    except ImportError as exc:  # the providers package is optional at import time
        raise UserError(f"The LLM providers could not be loaded ({exc}); install the openai and anthropic "
                        "packages.") from None
    settings = resolve_settings({k: v for k, v in options.items() if v is not None})
    return LLMChatModel(LLMClient(settings))
