"""Window frames as the pictures a provider is sent: newest frame, context thumbnails, change close-ups.

A :class:`Shot` prepares each picture of one frame at most once, so the
frame that is "newest" at step k and "context" at steps k+1 and k+2 is
scaled and PNG-encoded once per role.  The newest frame's scale maps the
model's coordinates back to window pixels.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.engine.play.actions import Action, Click, DoubleClick, Drag, RightClick, Scroll
from app.engine.llm.images import ImageRules, scaled
from app.engine.llm.messages import ImagePart
from app.engine.play.observer import BBox, Frame

CROP_MAX_FRACTION = 0.25
"""Send a close-up of the changed region only when it covers less than this part of the window."""
CROP_MIN_PX = 12
CROP_PAD_PX = 8


@dataclass(eq=False)
class Shot:
    frame: Frame
    step: int
    _main: ImagePart | None = None
    _context: ImagePart | None = None

    def main(self, rules: ImageRules, detail: str) -> ImagePart:
        """The frame as the newest screenshot (high detail unless the user chose low)."""
        if self._main is None:
            src = self.frame.image()
            if detail == "low":
                size, detail = rules.context_size(src.size)
            else:
                size = rules.main_size(src.size)
                detail = "high" if rules.family == "openai" else "auto"
            unscaled = size == src.size
            self._main = ImagePart(scaled(src, size), detail, self.frame.bgrx if unscaled else None)
        return self._main

    def context(self, rules: ImageRules) -> ImagePart:
        """The frame as a small context picture (an older frame of the last three)."""
        if self._context is None:
            size, detail = rules.context_size((self.frame.width, self.frame.height))
            main = self._main
            if main is not None and main.size == size:  # same picture, other detail: reuse its PNG and hash
                self._context = ImagePart(main.image, detail, main.source_bgrx, main._b64, main.sha256)
            else:
                src = self.frame.image()
                self._context = ImagePart(scaled(src, size), detail, self.frame.bgrx if size == src.size else None)
        return self._context

    def scale(self, rules: ImageRules, detail: str) -> tuple[float, float]:
        """Window pixels per pixel of the main picture, along x and y."""
        w, h = self.main(rules, detail).size
        return (self.frame.width / w, self.frame.height / h)


def crop_part(frame: Frame, bbox: BBox | None, rules: ImageRules) -> tuple[ImagePart, BBox] | None:
    """A close-up of the region an action changed, when it is small enough to be worth its tokens."""
    if bbox is None:
        return None
    x0, y0, x1, y1 = bbox
    w, h = x1 - x0, y1 - y0
    if w < CROP_MIN_PX or h < CROP_MIN_PX or w * h >= CROP_MAX_FRACTION * frame.width * frame.height:
        return None
    box = (max(0, x0 - CROP_PAD_PX), max(0, y0 - CROP_PAD_PX),
           min(frame.width, x1 + CROP_PAD_PX), min(frame.height, y1 + CROP_PAD_PX))
    detail = rules.crop_detail((box[2] - box[0], box[3] - box[1]))
    if detail is None:
        return None
    return ImagePart(frame.image().crop(box), detail), box


def to_window(action: Action, sx: float, sy: float) -> Action:
    """An action in picture coordinates moved to window coordinates."""
    return _rescale(action, sx, sy)


def to_picture(action: Action, sx: float, sy: float) -> Action:
    """An action in window coordinates as the model sees it in the picture."""
    return _rescale(action, 1.0 / sx, 1.0 / sy)


def _rescale(action: Action, sx: float, sy: float) -> Action:
    if isinstance(action, (Click, DoubleClick, RightClick)):
        return type(action)(round(action.x * sx), round(action.y * sy))
    if isinstance(action, Drag):
        return Drag(round(action.x * sx), round(action.y * sy), round(action.x2 * sx), round(action.y2 * sy))
    if isinstance(action, Scroll):
        return Scroll(round(action.x * sx), round(action.y * sy), action.direction, action.amount)
    return action


def bbox_text(bbox: BBox | None, sx: float, sy: float) -> str:
    if bbox is None:
        return "no visible change"
    x0, y0, x1, y1 = bbox
    return f"changed ({round(x0 / sx)},{round(y0 / sy)})-({round(x1 / sx)},{round(y1 / sy)})"
