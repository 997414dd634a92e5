"""The `text` expectation reads short, small text: digits at 12-16 px in the fonts setup installs.

Screen text is far smaller than what tesseract is trained on; a plain read of
'15' gave '155 0' and of '42' gave '42000, ¢,¢2C~S'.  Each picture
here is drawn with PIL the way a widget shows it (padding around one line, dark
on light and light on dark) and must read right — and a different number must
not.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from app.engine.judge import expectations
from app.engine.judge.expectations import ExpectationChecker
from app.engine.play.observer import Frame
from app.engine.play.scriptspec import Expectation

pytestmark = pytest.mark.skipif(expectations.ocr_engine() is None, reason="needs tesseract and pytesseract")

FAMILIES = ("DejaVu Sans", "Liberation Sans", "Noto Sans", "FreeSans")
"""Families installer/setup.sh installs (fonts-dejavu, fonts-liberation2, fonts-noto-core, fonts-freefont-ttf)."""
TEXTS = ("15", "42", "-5", "3.14")
SIZES = (12, 14, 16)
DARK_ON_LIGHT = ((32, 32, 32), (236, 236, 236))
LIGHT_ON_DARK = ((244, 247, 251), (18, 38, 58))   # the calculator's display colours


def font_file(family: str) -> Path | None:
    """The installed file of ``family`` (None when fontconfig substitutes another family)."""
    if shutil.which("fc-match") is None:
        return None
    out = subprocess.run(["fc-match", "--format", "%{family[0]}|%{file}", family], capture_output=True, text=True,
                         timeout=20).stdout
    found, _, path = out.partition("|")
    return Path(path) if found == family and path.endswith((".ttf", ".otf")) else None


def picture(text: str, font: Path, px: int, colours: tuple[tuple[int, int, int], tuple[int, int, int]]) -> Frame:
    """One line of text with widget-like padding, as a window frame."""
    fg, bg = colours
    f = ImageFont.truetype(str(font), px)
    left, top, right, bottom = f.getbbox(text)
    w, h = right - left + 24, bottom - top + 14
    img = Image.new("RGB", (w, h), bg)
    ImageDraw.Draw(img).text((12 - left, 7 - top), text, font=f, fill=fg)
    bgrx = np.zeros((h, w, 4), np.uint8)
    bgrx[:, :, :3] = np.asarray(img)[:, :, ::-1]
    return Frame(w, h, bgrx.tobytes(), time.time())


def read(frame: Frame, contains: str) -> expectations.Measurement:
    exp = Expectation(0, "text", {"region": [0, 0, frame.width, frame.height], "contains": contains})
    return ExpectationChecker(Path(".")).check(exp, None, frame)


@pytest.mark.parametrize("family", FAMILIES)
def test_small_numbers_read_right(family):
    font = font_file(family)
    if font is None:
        pytest.skip(f"{family} is not installed (installer/setup.sh installs it)")
    wrong = []
    for text in TEXTS:
        for px in SIZES:
            for colours in (DARK_ON_LIGHT, LIGHT_ON_DARK):
                res = read(picture(text, font, px, colours), text)
                if res.verdict != "pass":
                    wrong.append(f"{text!r} at {px} px {'dark' if colours is DARK_ON_LIGHT else 'light'}: {res.note}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("shown, expected", [("15", "42"), ("5", "-5"), ("314", "3.14"), ("42", "24")])
def test_another_number_does_not_read_as_the_expected_one(shown, expected):
    font = font_file("DejaVu Sans")
    if font is None:
        pytest.skip("DejaVu Sans is not installed")
    for px in SIZES:
        res = read(picture(shown, font, px, LIGHT_ON_DARK), expected)
        assert res.verdict == "fail", (shown, px, res.note)
        assert "5 ways" in res.note  # every view was tried before failing (the last two: the text cut out)


def test_a_one_colour_region_reads_nothing():
    blank = Image.new("RGB", (60, 24), (18, 38, 58))
    bgrx = np.zeros((24, 60, 4), np.uint8)
    bgrx[:, :, :3] = np.asarray(blank)[:, :, ::-1]
    res = read(Frame(60, 24, bgrx.tobytes(), time.time()), "0")
    assert res.verdict == "fail" and "one colour" in res.note


def test_the_numeric_view_uses_a_digit_whitelist():
    region = np.asarray(Image.new("RGB", (40, 20), (255, 255, 255)))
    region = region.copy()
    region[5:15, 10:12] = 0
    configs = [cfg for _, _, cfg in expectations.ocr_views(region, numeric=True)]
    assert all("--psm 7" in c or "--psm 10" in c for c in configs)  # one line; the cut-out text also as one character
    assert any("tessedit_char_whitelist=0123456789.-" in c for c in configs)
    assert not any("whitelist" in c for _, _, c in expectations.ocr_views(region, numeric=False))
    assert expectations.NUMERIC_RE.match("-5") and expectations.NUMERIC_RE.match("3.14")
    assert not expectations.NUMERIC_RE.match("SCORE 8")
