"""Inputs a screen names: "Press L for Leaderboard", "SPACE to restart", a menu's "Controls".

A game drawn in pixels tells its player what to press and where to click in words, and a person reads
them.  On a still screen the explorer has not seen before, the window's text is read (OCR) and becomes
candidate inputs: the keys the text names, and the short lines that stand alone like menu items, each
clicked at its box.  Reading costs a few tenths of a second, so only a few screens a run are read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from PIL import Image, ImageOps

from app.engine.play.observer import Frame

MAX_READS = 6
"""Screens read per run (OCR of a window takes 0.2-0.5 s on two cores)."""
MIN_CONFIDENCE = 60
"""Tesseract's word confidence (0-100) below which a word is not taken as read."""
MAX_ITEM_WORDS = 3
MIN_ITEM_LETTERS = 3
SCALE = 2
"""Small game fonts read better twice as large."""

_KEY = r"([a-z0-9]|space(?:bar)?|enter|return|esc(?:ape)?|tab|backspace|f\d{1,2}|up|down|left|right)"
_PRESS = re.compile(r"\b(?:press|hit|tap|push)\s+(?:the\s+)?[\[(<'\"]?" + _KEY + r"[\])>'\"]?(?:\s+key)?\b", re.I)
_LETTER_FOR = re.compile(r"(?<![A-Za-z0-9])[\[(]?([A-Z0-9]|SPACE|ENTER|ESC)[\])]?\s*(?:[-:=]\s*|\s+(?:to|for)\s+)[A-Za-z]")
_ALIASES = {"spacebar": "space", "return": "enter", "esc": "escape"}


def keys_named(text: str) -> list[str]:
    """Engine key names the text tells a player to press, in order of appearance."""
    found: list[tuple[int, str]] = []
    for pattern in (_PRESS, _LETTER_FOR):
        for m in pattern.finditer(text):
            key = m.group(1).lower()
            found.append((m.start(), _ALIASES.get(key, key)))
    out: list[str] = []
    for _, key in sorted(found):
        if key not in out:
            out.append(key)
    return out


@dataclass
class ScreenInputs:
    """What one screen's words offer: keys it names, and short stand-alone lines (menu items) with boxes."""

    keys: list[str] = field(default_factory=list)
    items: list[tuple[str, tuple[int, int, int, int]]] = field(default_factory=list)


def read_screen(frame: Frame, ocr: Any) -> ScreenInputs:
    """The keys named and the menu-like lines of one window picture (``ocr``: the pytesseract module)."""
    image = ImageOps.autocontrast(frame.image().convert("L"))
    image = image.resize((image.width * SCALE, image.height * SCALE), Image.Resampling.LANCZOS)
    data = ocr.image_to_data(image, output_type=ocr.Output.DICT, config="--psm 11")
    lines: dict[tuple[int, int, int], list[tuple[str, tuple[int, int, int, int]]]] = {}
    for i, word in enumerate(data["text"]):
        word = str(word).strip()
        if not word or float(data["conf"][i]) < MIN_CONFIDENCE:
            continue
        box = (data["left"][i] // SCALE, data["top"][i] // SCALE, (data["left"][i] + data["width"][i]) // SCALE,
               (data["top"][i] + data["height"][i]) // SCALE)
        lines.setdefault((data["block_num"][i], data["par_num"][i], data["line_num"][i]), []).append((word, box))
    found = ScreenInputs()
    texts = []
    for words in lines.values():
        text = " ".join(w for w, _ in words)
        texts.append(text)
        letters = [w for w, _ in words if w.isalpha()]
        if len(words) <= MAX_ITEM_WORDS and letters and len(letters) == len(words) \
                and sum(len(w) for w in letters) >= MIN_ITEM_LETTERS and not keys_named(text):
            boxes = [b for _, b in words]
            found.items.append((text, (min(b[0] for b in boxes), min(b[1] for b in boxes),
                                       max(b[2] for b in boxes), max(b[3] for b in boxes))))
    found.keys = keys_named("\n".join(texts))
    return found
