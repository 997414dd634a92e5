"""Provider-neutral chat requests and results.

A request is built once by the Test Manager and rendered twice by a
provider: for the wire (images as base64 PNG) and for the ``llm_calls``
record (images as ``{"image": "<sha256>"}`` of the stored frame, never
inline pixels).  An :class:`ImagePart` encodes its PNG at most once, so a
frame sent again as context in the next step costs nothing to prepare.
"""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass, field
from typing import Any, Union

from PIL import Image

PNG_COMPRESS_LEVEL = 1
"""Fast PNG for the upload; the bytes go to a provider, not to disk."""
CHARS_PER_TOKEN = 4
"""Rough text-token estimate when a provider reports no usage."""


@dataclass(frozen=True)
class TextPart:
    text: str


@dataclass(eq=False)
class ImagePart:
    """One picture in a message, already at the size it is sent.

    ``source_bgrx`` is the raw window frame when ``image`` is that frame
    unscaled; recording then reuses the frame's content address, so the
    request points at the very frame the step stored.
    """

    image: Image.Image
    detail: str = "auto"
    source_bgrx: bytes | None = None
    _b64: str | None = field(default=None, repr=False)
    sha256: str | None = field(default=None, repr=False)

    @property
    def size(self) -> tuple[int, int]:
        return (self.image.width, self.image.height)

    def png_b64(self) -> str:
        if self._b64 is None:
            buf = io.BytesIO()
            self.image.save(buf, format="PNG", compress_level=PNG_COMPRESS_LEVEL)
            self._b64 = base64.b64encode(buf.getvalue()).decode("ascii")
        return self._b64


Part = Union[TextPart, ImagePart]


@dataclass(frozen=True)
class Message:
    role: str  # "user" | "assistant"
    parts: tuple[Part, ...]

    @staticmethod
    def user(*parts: Part | str) -> Message:
        return Message("user", tuple(TextPart(p) if isinstance(p, str) else p for p in parts))

    @staticmethod
    def assistant(text: str) -> Message:
        return Message("assistant", (TextPart(text),))


@dataclass
class ChatRequest:
    system: str
    messages: list[Message]
    max_tokens: int

    def images(self) -> list[ImagePart]:
        return [p for m in self.messages for p in m.parts if isinstance(p, ImagePart)]

    def text_chars(self) -> int:
        return len(self.system) + sum(len(p.text) for m in self.messages for p in m.parts if isinstance(p, TextPart))


@dataclass(frozen=True)
class ChatResult:
    """One answered call.  ``estimated`` means the provider sent no usage and we counted."""

    text: str
    tokens_in: int
    tokens_out: int
    estimated: bool
    latency_ms: float
    raw: dict[str, Any] = field(default_factory=dict, repr=False)


def estimate_text_tokens(chars: int) -> int:
    return (chars + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN
