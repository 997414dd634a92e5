"""Image token math from the providers' published rules, and the sizes we send."""

from __future__ import annotations

import pytest
from PIL import Image

from app.engine.llm.images import (
    ANTHROPIC_RULES, OPENAI_RULES, anthropic_image_tokens, anthropic_size, openai_high_size, openai_image_tokens,
    openai_tiles, scaled,
)


@pytest.mark.parametrize("size, seen, tokens", [
    ((1024, 1024), (768, 768), 765),     # OpenAI's own example: 4 tiles
    ((2048, 4096), (768, 1536), 1105),   # fit 2048 → 1024×2048, short side 768 → 768×1536: 6 tiles
    ((512, 512), (512, 512), 255),       # one tile, never upscaled
    ((1280, 800), (1228, 768), 1105),    # a whole 1280×800 screen: 3×2 tiles
    ((480, 560), (480, 560), 425),       # 1×2 tiles
    ((100, 30), (100, 30), 255),
])
def test_openai_high_detail(size, seen, tokens):
    assert openai_high_size(size) == seen
    assert openai_image_tokens(size, "high") == tokens
    assert openai_image_tokens(size, "auto") == tokens  # auto is counted as high for screenshots
    assert openai_image_tokens(size, "low") == 85


@pytest.mark.parametrize("size, seen, tokens", [
    ((1000, 1000), (1000, 1000), 1334),  # ceil(1e6 / 750)
    ((1092, 1092), (1092, 1092), 1590),  # Anthropic's table: 1:1 at ~1590 tokens
    ((3000, 1000), (1568, 522), 1092),   # long side capped at 1568
    ((2000, 2000), (1095, 1095), 1599),  # about 1600 tokens at most
    ((480, 560), (480, 560), 359),
    ((1280, 800), (1280, 800), 1366),
])
def test_anthropic(size, seen, tokens):
    assert anthropic_size(size) == seen
    assert anthropic_image_tokens(size) == tokens
    assert ANTHROPIC_RULES.tokens(size) == tokens


def test_main_frame_saves_openai_tiles_within_the_legibility_limit():
    assert OPENAI_RULES.main_size((480, 560)) == (438, 512)   # 2 tiles → 1 at 0.91 scale
    assert OPENAI_RULES.main_size((400, 600)) == (341, 512)   # 0.85 scale
    assert OPENAI_RULES.main_size((320, 420)) == (320, 420)   # already one tile
    assert OPENAI_RULES.main_size((1280, 800)) == (1024, 640)  # 6 tiles → 4 at 0.83 scale
    assert OPENAI_RULES.main_size((400, 1000)) == (400, 1000)  # saving a tile would need 0.51: keep
    for size in [(480, 560), (400, 600), (320, 420), (640, 480), (1280, 800), (800, 600)]:
        main = OPENAI_RULES.main_size(size)
        assert main[0] >= 0.8 * openai_high_size(size)[0] - 1
        assert openai_tiles(main) <= openai_tiles(size)


def test_context_and_crop_sizes():
    assert OPENAI_RULES.context_size((480, 560)) == ((438, 512), "low")
    assert ANTHROPIC_RULES.context_size((480, 560)) == ((329, 384), "auto")
    assert OPENAI_RULES.crop_detail((100, 60)) == "low"
    assert OPENAI_RULES.crop_detail((600, 60)) is None
    assert ANTHROPIC_RULES.crop_detail((100, 60)) == "auto"


def test_window_content_costs_at_most_a_third_of_the_whole_screen():
    screen = (1280, 800)
    for size in [(480, 560), (400, 600), (320, 420)]:
        openai = OPENAI_RULES.tokens(OPENAI_RULES.main_size(size), "high")
        assert openai * 3 <= openai_image_tokens(screen, "auto")
        anthropic = ANTHROPIC_RULES.tokens(ANTHROPIC_RULES.main_size(size))
        assert anthropic * 3 <= anthropic_image_tokens(screen)


def test_scaled_keeps_the_same_image_when_no_scaling_is_needed():
    img = Image.new("RGB", (40, 30))
    assert scaled(img, (40, 30)) is img
    assert scaled(img, (20, 15)).size == (20, 15)
