"""Scale window frames to each provider's image rules and count their image tokens.

The published rules (OpenAI vision guide, Anthropic vision docs):

* OpenAI ``detail="high"``: the image is fitted inside 2048×2048, then scaled
  so its short side is at most 768; it costs 170 tokens per 512×512 tile
  plus 85.  ``detail="low"`` costs 85 tokens whatever the size (the model sees
  at most 512×512).  ``"auto"``, the default, is counted as ``"high"``: that
  is what it picks for screenshots.
* Anthropic: the long side is at most 1568 and an image is at most about
  1600 tokens; an image costs about ``width × height / 750`` tokens.

We never send pixels a provider would throw away, and for OpenAI we shrink
the newest frame a little further when that saves whole tiles (a 480×560
window drawn at 439×512 fits one tile instead of two).  Older frames go as
small context thumbnails.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PIL import Image

OPENAI_MAX_SIDE = 2048
OPENAI_SHORT_SIDE = 768
OPENAI_TILE = 512
OPENAI_TILE_TOKENS = 170
OPENAI_BASE_TOKENS = 85
OPENAI_LOW_SIDE = 512
ANTHROPIC_MAX_SIDE = 1568
ANTHROPIC_PIXELS_PER_TOKEN = 750
ANTHROPIC_MAX_TOKENS = 1600
MIN_TILE_SCALE = 0.8
"""Shrink the newest frame to save OpenAI tiles only down to this scale (text stays legible)."""
CONTEXT_LONG_SIDE = 384
"""Long side of the thumbnails of older frames for providers without a detail switch."""
CROP_MAX_SIDE = 512
"""A changed-region crop is sent only when it fits this box (it is meant to be a close-up)."""
RESAMPLE = Image.Resampling.BICUBIC

Size = tuple[int, int]


def _fit(size: Size, scale: float) -> Size:
    w, h = size
    if scale >= 1.0:
        return (w, h)
    return (max(1, math.floor(w * scale + 1e-6)), max(1, math.floor(h * scale + 1e-6)))


def openai_high_size(size: Size) -> Size:
    """The size OpenAI actually looks at for ``detail="high"``."""
    w, h = size
    fitted = _fit((w, h), OPENAI_MAX_SIDE / max(w, h))
    return _fit(fitted, OPENAI_SHORT_SIDE / min(fitted))


def openai_tiles(size: Size) -> int:
    w, h = openai_high_size(size)
    return math.ceil(w / OPENAI_TILE) * math.ceil(h / OPENAI_TILE)


def openai_image_tokens(size: Size, detail: str = "auto") -> int:
    if detail == "low":
        return OPENAI_BASE_TOKENS
    return OPENAI_TILE_TOKENS * openai_tiles(size) + OPENAI_BASE_TOKENS


def anthropic_size(size: Size) -> Size:
    """The size Anthropic actually looks at (long side ≤ 1568, about ≤ 1600 tokens)."""
    w, h = size
    scale = min(ANTHROPIC_MAX_SIDE / max(w, h),
                math.sqrt(ANTHROPIC_MAX_TOKENS * ANTHROPIC_PIXELS_PER_TOKEN / (w * h)))
    return _fit((w, h), scale)


def anthropic_image_tokens(size: Size) -> int:
    w, h = anthropic_size(size)
    return math.ceil(w * h / ANTHROPIC_PIXELS_PER_TOKEN)


@dataclass(frozen=True)
class ImageRules:
    """How one provider family is sent images and charges for them."""

    family: str  # "openai" | "anthropic"

    def tokens(self, size: Size, detail: str = "auto") -> int:
        if self.family == "anthropic":
            return anthropic_image_tokens(size)
        return openai_image_tokens(size, detail)

    def main_size(self, size: Size) -> Size:
        """Size for the newest frame: the provider's own limits, then fewer OpenAI tiles if cheap."""
        if self.family == "anthropic":
            return anthropic_size(size)
        w, h = openai_high_size(size)
        tx, ty = math.ceil(w / OPENAI_TILE), math.ceil(h / OPENAI_TILE)
        best: tuple[int, float] = (tx * ty, 1.0)
        for nx in range(1, tx + 1):
            for ny in range(1, ty + 1):
                scale = min(nx * OPENAI_TILE / w, ny * OPENAI_TILE / h, 1.0)
                if scale >= MIN_TILE_SCALE and (nx * ny, -scale) < (best[0], -best[1]):
                    best = (nx * ny, scale)
        return _fit((w, h), best[1])

    def context_size(self, size: Size) -> tuple[Size, str]:
        """Size and detail for an older frame kept as context."""
        if self.family == "anthropic":
            return _fit(size, CONTEXT_LONG_SIDE / max(size)), "auto"
        return _fit(size, OPENAI_LOW_SIDE / max(size)), "low"

    def crop_detail(self, size: Size) -> str | None:
        """Detail for a changed-region close-up, or None when it is too big to be worth sending."""
        if max(size) > CROP_MAX_SIDE:
            return None
        return "auto" if self.family == "anthropic" else "low"


OPENAI_RULES = ImageRules("openai")
ANTHROPIC_RULES = ImageRules("anthropic")


def scaled(image: Image.Image, size: Size) -> Image.Image:
    """``image`` at ``size`` (the same object when no scaling is needed)."""
    if image.size == tuple(size):
        return image
    return image.resize(size, RESAMPLE)
