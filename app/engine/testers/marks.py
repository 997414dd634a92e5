"""Set-of-marks for the LLM tester: the program's controls as numbered boxes on the screenshot it is sent.

A vision model names a place by pixels and often misses a small button by a
few; when the engine knows the controls (from inside the program,
:mod:`app.engine.play.inside`, or from the X window tree,
:mod:`app.engine.play.xwidgets`) it draws each as a numbered box on the newest
screenshot, lists them in the prompt (``[3] button 'Save' at (x0,y0,x1,y1)``,
picture pixels) and lets the model answer ``click_mark(3)``.  The mark
becomes a click at the centre of the control's box in window pixels, so no
rounding of the model's coordinates can miss it.  The action grammar
(:mod:`app.engine.play.actions`) is unchanged: a mark is resolved here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable

from PIL import Image, ImageDraw, ImageFont

from app.engine.play.actions import Click
from app.engine.play.inside import InsideWidget
from app.engine.play.observer import Frame
from app.engine.play.xwidgets import Widget
from app.engine.testers.base import TesterContext

MAX_MARKS = 40
"""At most this many marks (the biggest controls first): more crowd the picture and the prompt."""
MIN_SIDE_PX = 4
"""A control smaller than this along either side gets no mark (nothing a person would aim at)."""
UNMARKED_KINDS = frozenset({"menuitem", "label"})
"""Menu items are not on screen until their menu opens; labels are not controls."""
MARK_COLOR = (255, 0, 255)
"""Magenta: rare in GUIs, so the boxes read as marks and not as the program's own drawing."""
LABEL_TEXT_COLOR = (255, 255, 255)
OUTLINE_PX = 2
LABEL_FONT_PX = 12
TEXT_CHARS = 40
_CALL = re.compile(r"click_mark\s*\(\s*(\d+)\s*\)", re.IGNORECASE)

Box = tuple[int, int, int, int]


@dataclass(frozen=True)
class Mark:
    """One numbered control: ``box`` in window pixels (x0, y0 inclusive; x1, y1 exclusive)."""

    number: int
    kind: str
    text: str
    box: Box
    enabled: bool = True

    def click(self) -> Click:
        """A click at the centre of the control, in window pixels."""
        x0, y0, x1, y1 = self.box
        return Click((x0 + x1) // 2, (y0 + y1) // 2)

    def line(self, sx: float, sy: float) -> str:
        """The prompt's line for the mark, its box in picture pixels (window pixels / (sx, sy))."""
        x0, y0, x1, y1 = self.box
        text = f" '{self.text[:TEXT_CHARS]}'" if self.text else ""
        state = "" if self.enabled else " (disabled)"
        return (f"[{self.number}] {self.kind}{text} at ({round(x0 / sx)},{round(y0 / sy)},"
                f"{round(x1 / sx)},{round(y1 / sy)}){state}")


def _clip(box: Iterable[int], size: tuple[int, int]) -> Box | None:
    x0, y0, x1, y1 = box
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(size[0], x1), min(size[1], y1)
    return (x0, y0, x1, y1) if x1 - x0 >= MIN_SIDE_PX and y1 - y0 >= MIN_SIDE_PX else None


def _numbered(found: list[tuple[str, str, Box, bool]]) -> list[Mark]:
    """Keep the biggest MAX_MARKS, then number them in reading order (top to bottom, left to right)."""
    seen: set[Box] = set()
    unique = [f for f in found if not (f[2] in seen or seen.add(f[2]))]  # type: ignore[func-returns-value]
    kept = sorted(unique, key=lambda f: -(f[2][2] - f[2][0]) * (f[2][3] - f[2][1]))[:MAX_MARKS]
    kept.sort(key=lambda f: (f[2][1], f[2][0]))
    return [Mark(i, kind, text, box, enabled) for i, (kind, text, box, enabled) in enumerate(kept, 1)]


def marks_from_inside(widgets: list[InsideWidget], size: tuple[int, int]) -> list[Mark]:
    """Marks for the visible controls the toolkit reports (menu bar cascades included, menu items not)."""
    found = []
    for w in widgets:
        if not w.visible or w.box is None or w.kind in UNMARKED_KINDS or (w.kind == "other" and not w.has_command):
            continue
        box = _clip(w.box, size)
        if box is not None:
            found.append((w.kind, " ".join(w.text.split()), box, w.enabled))
    return _numbered(found)


def marks_from_x(widgets: list[Widget], size: tuple[int, int]) -> list[Mark]:
    """Marks for the child windows of the X tree (no text: the X tree does not know it)."""
    found = []
    for w in widgets:
        box = _clip((w.x0, w.y0, w.x1, w.y1), size)
        if box is not None:
            found.append(((w.cls or "control").lower(), "", box, True))
    return _numbered(found)


def controls_marked(ctx: TesterContext, frame: Frame) -> tuple[list[Mark], str]:
    """The controls to mark on ``frame`` and where they were read: from inside the program when it answers,
    else the X window tree; none for a program drawn into one window, or while a dialog is open (boxes read
    from the program would not match the screenshot of its main window)."""
    if ctx.windows is not None and any(t.kind != "main" for t in ctx.windows.toplevels()):
        return [], ""
    size = (frame.width, frame.height)
    target = ctx.player.target if ctx.player is not None else None
    inside = target.inside if target is not None else None
    if inside is not None and inside.available:
        found = inside.widgets()
        if found:
            return marks_from_inside(found, size), "from inside the program"
    if ctx.widgets is not None:
        return marks_from_x(ctx.widgets(), size), "from its X windows"
    return [], ""


def draw_marks(picture: Image.Image, marks: list[Mark], sx: float, sy: float) -> Image.Image:
    """A copy of ``picture`` (the scaled screenshot) with each mark's box outlined and numbered."""
    out = picture.convert("RGB")
    draw = ImageDraw.Draw(out)
    font = ImageFont.load_default(LABEL_FONT_PX)
    for mark in marks:
        x0, y0, x1, y1 = (round(mark.box[0] / sx), round(mark.box[1] / sy),
                          round(mark.box[2] / sx) - 1, round(mark.box[3] / sy) - 1)
        draw.rectangle((x0, y0, x1, y1), outline=MARK_COLOR, width=OUTLINE_PX)
        label = str(mark.number)
        left, top, right, bottom = draw.textbbox((0, 0), label, font=font)
        w, h = right - left + 2 * OUTLINE_PX, bottom - top + 2 * OUTLINE_PX
        draw.rectangle((x0, y0, x0 + w, y0 + h), fill=MARK_COLOR)
        draw.text((x0 + OUTLINE_PX - left, y0 + OUTLINE_PX - top), label, fill=LABEL_TEXT_COLOR, font=font)
    return out


def chosen_mark(text: str, obj: dict[str, Any] | None, marks: list[Mark]) -> Mark | None:
    """The mark a reply asks to click (``click_mark(N)``, or JSON ``"action": "click_mark", "mark": N``);
    None when the reply is another action.  A number no mark has is a ValueError (the re-ask quotes it)."""
    number: Any = None
    if obj is not None:
        action = obj.get("action")
        if isinstance(action, str):
            call = _CALL.fullmatch(action.strip())
            if call:
                number = call.group(1)
            elif action.strip().lower() == "click_mark":
                number = next((obj[k] for k in ("mark", "number", "n", "id") if k in obj), None)
                if number is None:
                    raise ValueError('"click_mark" needs "mark": the number of a mark on the screenshot')
    else:
        call = _CALL.search(text)
        number = call.group(1) if call else None
    if number is None:
        return None
    try:
        wanted = int(number)
    except (TypeError, ValueError):
        raise ValueError(f'"mark" must be the number of a mark, not {number!r}') from None
    for mark in marks:
        if mark.number == wanted:
            return mark
    span = f"1 to {len(marks)}" if marks else "none on this screenshot"
    raise ValueError(f"there is no mark {wanted} (marks: {span})")
