"""Visual expectations of scripted rubric cases, measured on captured frames with numpy.

Each check returns a :class:`Measurement`: pass / fail / uncertain, the value
it measured (JSON-ready, kept as evidence) and a sentence saying what was
compared.  'uncertain' means the check could not be made (no frame before the
step, a region outside the window, a missing reference picture, no OCR
engine), never that the program looked doubtful.

Kinds (fields in :data:`app.engine.play.scriptspec.KIND_FIELDS`):

- ``region_changed``: some pixel of ``region`` differs from the frame before the step.
- ``pixel``: the pixel ``at`` is within ``tolerance`` (max channel difference)
  of ``colour``; or, with ``region``, at least ``min_share`` of its pixels are.
- ``similar``: structural similarity (SSIM, 7x7 windows, over detailed windows, mean over R, G, B) of
  ``region`` to the same region of the reference PNG is at least ``threshold``.
- ``differs``: the opposite of ``similar``: the SSIM is *below* ``threshold`` (the region does not
  show what the reference picture shows, e.g. a watch that does not read 00:00).
- ``similar_to_reference``: ``similar`` against the live reference program's frame after the same
  step (:mod:`app.engine.testers.live_reference`), so no picture is committed or recorded.
- ``not_similar_colours``: the WCAG contrast ratio between the two dominant
  colours of ``region`` is at least ``min_contrast`` (catches white-on-white text).
- ``text``: OCR of ``region`` contains ``contains``: one line, upscaled, read up to three ways
  (:func:`ocr_views`; digits only for a number); needs pytesseract and tesseract.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageOps
from scipy import ndimage

from app.engine.judge.refs import ReferenceResolver
from app.engine.play.observer import Frame
from app.engine.play.scriptspec import Expectation

DEFAULT_TOLERANCE = 24
"""Max per-channel difference for a pixel to count as the expected colour."""
DEFAULT_MIN_SHARE = 0.01
DEFAULT_THRESHOLD = 0.95
"""SSIM of identical pictures is 1.0; a changed glyph in a tight region drops it well below this."""
DEFAULT_MIN_CONTRAST = 3.0
"""WCAG's minimum for large text."""
SSIM_WINDOW = 7
FLAT_VARIANCE = 4.0
"""Windows whose summed variance is below this (both sides flat) do not count in the SSIM mean."""
QUANT_SHIFT = 4
"""Colours are binned to 16 levels per channel to find the dominant ones."""
DISTINCT_COLOUR = 40
"""Two bins whose mean colours differ by less than this (max channel) count as one colour."""
MIN_COLOUR_SHARE = 0.02
"""A second colour must cover this share of the region to count (anti-aliasing noise does not)."""
OCR_SCALE = 3
"""Upscaling of the first OCR view (LANCZOS)."""
OCR_WIDE = (5, 4)
"""The second view is stretched more across than down: it separates glyphs such as '-' and '5'."""
OCR_BINARY_SCALE = 4
OCR_BORDER = 16
"""Background added around the upscaled text: tesseract misreads glyphs that touch the picture's edge."""
OCR_MIN_RANGE = 16
"""A region whose grey levels span less than this shows no text."""
OCR_DIGITS = "0123456789.-"
NUMERIC_RE = re.compile(r"^[-+]?[0-9][0-9.,]*$|^[-+]?\.[0-9]+$")
"""Expected text that is a number gets a digits-only view."""

RGB = np.ndarray


@dataclass(frozen=True)
class Measurement:
    verdict: str  # pass | fail | uncertain
    measured: Any
    note: str


def rgb(frame: Frame) -> RGB:
    """H x W x 3 uint8 RGB view of a BGRX frame."""
    return frame.array()[:, :, 2::-1]


def crop(arr: RGB, region: list[int] | None) -> RGB | None:
    """The region clipped to the picture; None when nothing of it is inside."""
    if region is None:
        return arr
    h, w = arr.shape[:2]
    x0, y0, x1, y1 = max(0, region[0]), max(0, region[1]), min(w, region[2]), min(h, region[3])
    if x0 >= x1 or y0 >= y1:
        return None
    return arr[y0:y1, x0:x1]


def hex_colour(c: Any) -> str:
    return "#%02x%02x%02x" % tuple(int(round(float(v))) for v in c[:3])


def parse_colour(text: str) -> np.ndarray:
    return np.array([int(text[i:i + 2], 16) for i in (1, 3, 5)], dtype=np.int16)


# -- measures ------------------------------------------------------------------
def ssim(a: RGB, b: RGB) -> float:
    """Structural similarity of two equal-size RGB pictures (1.0 = identical), mean over R, G, B.

    The SSIM map is averaged over the windows where either picture has detail
    (local variance above :data:`FLAT_VARIANCE`): flat background on both
    sides would otherwise drown a changed glyph (a '-6' for a '6' scores 0.97
    over a whole display but far lower over its detailed windows).
    """
    if a.shape != b.shape:
        raise ValueError("pictures differ in size")
    win = max(1, min(SSIM_WINDOW, a.shape[0], a.shape[1]))
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    scores = []
    for ch in range(a.shape[2]):
        x = a[:, :, ch].astype(np.float64)
        y = b[:, :, ch].astype(np.float64)
        mx, my = ndimage.uniform_filter(x, win), ndimage.uniform_filter(y, win)
        sxx = ndimage.uniform_filter(x * x, win) - mx * mx
        syy = ndimage.uniform_filter(y * y, win) - my * my
        sxy = ndimage.uniform_filter(x * y, win) - mx * my
        s = ((2 * mx * my + c1) * (2 * sxy + c2)) / ((mx * mx + my * my + c1) * (sxx + syy + c2))
        detail = (sxx + syy) > FLAT_VARIANCE
        scores.append(float(s[detail].mean()) if detail.any() else float(s.mean()))
    return float(np.mean(scores))


def relative_luminance(colour: Any) -> float:
    """WCAG 2 relative luminance of an sRGB colour (0..255 per channel)."""
    c = np.asarray(colour[:3], dtype=np.float64) / 255.0
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return float(0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2])


def contrast_ratio(a: Any, b: Any) -> float:
    la, lb = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def dominant_colours(arr: RGB) -> list[tuple[np.ndarray, float]]:
    """Up to two (mean colour, share) pairs: the commonest colour and the commonest clearly different one."""
    flat = arr.reshape(-1, 3).astype(np.int64)
    q = flat >> QUANT_SHIFT
    keys = (q[:, 0] << 8) | (q[:, 1] << 4) | q[:, 2]
    counts = np.bincount(keys, minlength=4096)
    order = np.argsort(counts)[::-1]
    total = float(len(keys))
    out: list[tuple[np.ndarray, float]] = []
    for key in order:
        if counts[key] == 0 or len(out) == 2:
            break
        share = counts[key] / total
        if out and share < MIN_COLOUR_SHARE:
            break
        mean = flat[keys == key].mean(axis=0)
        if out and np.abs(mean - out[0][0]).max() < DISTINCT_COLOUR:
            continue
        out.append((mean, float(share)))
    return out


# -- evaluation ------------------------------------------------------------------
class ExpectationChecker:
    """Evaluates expectations for one target folder (reference pictures are loaded once).

    ``refs`` resolves a ``reference`` to the local store's picture or the committed one
    (:mod:`app.engine.judge.refs`); without it the committed file in ``folder`` is used.
    """

    def __init__(self, folder: Path, refs: ReferenceResolver | None = None) -> None:
        self.folder = folder
        self.refs = refs
        self._refs: dict[str, tuple[RGB | None, str]] = {}

    def check(self, exp: Expectation, before: Frame | None, after: Frame,
              reference: Frame | None = None) -> Measurement:
        """``reference``: the live reference program's frame after the same step (``similar_to_reference``)."""
        if exp.kind == "similar_to_reference":
            return self._similar_to_reference(exp.params, after, reference)
        method = getattr(self, "_" + exp.kind)
        result: Measurement = method(exp.params, before, after)
        return result

    def _similar_to_reference(self, p: dict[str, Any], after: Frame, reference: Frame | None) -> Measurement:
        if reference is None:
            return Measurement("uncertain", None, "the reference program's frame after this step is not known")
        region = p.get("region")
        if (reference.width, reference.height) != (after.width, after.height):
            return Measurement("fail", {"size": [reference.width, reference.height]},
                               f"the window is {after.width}x{after.height}, the reference program's "
                               f"{reference.width}x{reference.height}")
        return _ssim_measure(crop(rgb(after), region), crop(rgb(reference), region), p,
                             "the reference program's frame after the same steps", "played live beside this run")

    def reference_path(self, exp: Expectation) -> Path:
        return self.folder / str(exp.params["reference"])

    def _region_changed(self, p: dict[str, Any], before: Frame | None, after: Frame) -> Measurement:
        if before is None:
            return Measurement("uncertain", None, "there is no frame before the step to compare with")
        if (before.width, before.height) != (after.width, after.height):
            return Measurement("pass", {"resized": True}, "the window changed size")
        a, b = crop(rgb(before), p.get("region")), crop(rgb(after), p.get("region"))
        if a is None or b is None:
            return Measurement("uncertain", None, f"the region lies outside the {after.width}x{after.height} window")
        diff = np.abs(a.astype(np.int16) - b.astype(np.int16)).max(axis=2) > 0
        share = float(diff.mean())
        where = f"region {p.get('region') or 'whole window'}"
        if share > 0:
            return Measurement("pass", {"changed_share": round(share, 4)}, f"{share:.1%} of {where} changed")
        return Measurement("fail", {"changed_share": 0.0}, f"nothing in {where} changed")

    def _pixel(self, p: dict[str, Any], before: Frame | None, after: Frame) -> Measurement:
        want = parse_colour(p["colour"])
        tol = p.get("tolerance", DEFAULT_TOLERANCE)
        arr = rgb(after)
        if "at" in p:
            x, y = p["at"]
            if not (0 <= x < after.width and 0 <= y < after.height):
                return Measurement("uncertain", None, f"({x}, {y}) lies outside the {after.width}x{after.height} window")
            got = arr[y, x].astype(np.int16)
            dist = int(np.abs(got - want).max())
            ok = dist <= tol
            return Measurement("pass" if ok else "fail", hex_colour(got),
                               f"pixel ({x}, {y}) is {hex_colour(got)}, expected {p['colour']} ±{tol:g}")
        region = crop(arr, p["region"])
        if region is None:
            return Measurement("uncertain", None, f"the region lies outside the {after.width}x{after.height} window")
        share = float((np.abs(region.astype(np.int16) - want).max(axis=2) <= tol).mean())
        need = p.get("min_share", DEFAULT_MIN_SHARE)
        return Measurement("pass" if share >= need else "fail", round(share, 4),
                           f"{share:.1%} of region {p['region']} is {p['colour']} ±{tol:g} (need {need:.1%})")

    def _load_reference(self, name: str) -> tuple[RGB | None, str]:
        """The picture and a phrase saying which one it is (local or committed)."""
        if name not in self._refs:
            if self.refs is not None:
                found = self.refs.resolve(name)
                path, origin = found.path, found.detail
            else:
                path, origin = self.folder / name, "committed reference"
            ok = path is not None and path.is_file()
            self._refs[name] = (np.asarray(Image.open(path).convert("RGB")) if ok and path else None, origin)
        return self._refs[name]

    def _differs(self, p: dict[str, Any], before: Frame | None, after: Frame) -> Measurement:
        m = self._similar(p, before, after)
        if m.verdict == "uncertain":
            return m
        need = p.get("threshold", DEFAULT_THRESHOLD)
        return Measurement("pass" if m.measured < need else "fail", m.measured,
                           m.note.replace(f"(need {need:g};", f"(need below {need:g};", 1))

    def _similar(self, p: dict[str, Any], before: Frame | None, after: Frame) -> Measurement:
        ref, origin = self._load_reference(p["reference"])
        if ref is None:
            return Measurement("uncertain", None, f"the reference picture {p['reference']} is missing; "
                                                  "record it on this machine with `playcoder refs record TARGET` "
                                                  "(bundled apps: `python -m benchmark.record_refs`)")
        region = p.get("region")
        frame = rgb(after)
        if ref.shape[:2] == frame.shape[:2]:
            a, b = crop(frame, region), crop(ref, region)
        elif region is not None and ref.shape[:2] == (region[3] - region[1], region[2] - region[0]):
            a, b = crop(frame, region), ref
        else:
            return Measurement("uncertain", None, f"the window is {after.width}x{after.height} but the reference "
                                                  f"{p['reference']} is {ref.shape[1]}x{ref.shape[0]}")
        return _ssim_measure(a, b, p, str(p["reference"]), origin)

    def _not_similar_colours(self, p: dict[str, Any], before: Frame | None, after: Frame) -> Measurement:
        region = crop(rgb(after), p["region"])
        if region is None:
            return Measurement("uncertain", None, f"the region lies outside the {after.width}x{after.height} window")
        need = p.get("min_contrast", DEFAULT_MIN_CONTRAST)
        colours = dominant_colours(region)
        if len(colours) < 2:
            only = hex_colour(colours[0][0]) if colours else "?"
            return Measurement("fail", {"colours": [only], "contrast": 1.0},
                               f"region {p['region']} shows one colour ({only}): any text in it is invisible")
        (c1, s1), (c2, s2) = colours
        ratio = contrast_ratio(c1, c2)
        measured = {"colours": [hex_colour(c1), hex_colour(c2)], "shares": [round(s1, 3), round(s2, 3)],
                    "contrast": round(ratio, 2)}
        return Measurement("pass" if ratio >= need else "fail", measured,
                           f"contrast {ratio:.2f}:1 between {hex_colour(c1)} and {hex_colour(c2)} in region "
                           f"{p['region']} (need {need:g}:1)")

    def _text(self, p: dict[str, Any], before: Frame | None, after: Frame) -> Measurement:
        ocr = ocr_engine()
        if ocr is None:
            return Measurement("uncertain", None, "OCR is not available (install tesseract and pytesseract "
                                                  "to check text)")
        region = crop(rgb(after), p["region"])
        if region is None:
            return Measurement("uncertain", None, f"the region lies outside the {after.width}x{after.height} window")
        want = " ".join(p["contains"].split())
        reads = read_text(region, want, ocr)
        hit = next(((way, text) for way, text in reads if want.lower() in text.lower()), None)
        if hit is not None:
            return Measurement("pass", hit[1], f"OCR of region {p['region']} reads {hit[1]!r} ({hit[0]}); "
                                               f"expected it to contain {want!r}")
        shown = " / ".join(repr(t) for _, t in reads) or "nothing (the region shows one colour)"
        return Measurement("fail", reads[0][1] if reads else "",
                           f"OCR of region {p['region']} reads {shown}"
                           f"{f' ({len(reads)} ways)' if len(reads) > 1 else ''}; expected it to contain {want!r}")


def _ssim_measure(a: RGB | None, b: RGB | None, p: dict[str, Any], against: str, origin: str) -> Measurement:
    """SSIM of a region against a picture of it: pass at ``threshold`` or more."""
    if a is None or b is None or a.shape != b.shape:
        return Measurement("uncertain", None, "the region lies outside the window")
    score = ssim(a, b)
    need = p.get("threshold", DEFAULT_THRESHOLD)
    return Measurement("pass" if score >= need else "fail", round(score, 4),
                       f"SSIM {score:.3f} of region {p.get('region') or 'whole window'} to {against} "
                       f"(need {need:g}; {origin})")


def dark_on_light(region: RGB) -> np.ndarray:
    """Grey levels of a region with the text dark on a light background, stretched to 0..255.

    The background is the colour along the region's edge: when it is darker than
    the Otsu threshold between the two tones, the picture is inverted (light
    digits on a dark display read like print).
    """
    from skimage.filters import threshold_otsu

    g = np.asarray(Image.fromarray(np.ascontiguousarray(region)).convert("L"), dtype=np.float64)
    lo, hi = float(g.min()), float(g.max())
    if hi - lo < OCR_MIN_RANGE:
        return np.full_like(g, 255.0)
    edge = np.concatenate([g[0], g[-1], g[:, 0], g[:, -1]])
    if np.median(edge) < threshold_otsu(g):
        g, lo, hi = 255.0 - g, 255.0 - hi, 255.0 - lo
    return (g - lo) * (255.0 / (hi - lo))


OCR_GLYPH_PX = 40
"""The height the cut-out text is scaled to (tesseract reads best near 30-40 px glyphs, up or down)."""


def ocr_views(region: RGB, numeric: bool) -> list[tuple[str, Image.Image, str]]:
    """The pictures tesseract reads for a short line of text, best first: (how, picture, tesseract options).

    Small screen text is far below the ~30 px glyph height tesseract is trained on,
    so every view upscales with LANCZOS and adds a border of background; every view
    reads one line (``--psm 7``).  Measured on 12-16 px digits in DejaVu, Liberation,
    Noto and FreeSans (tests/unit/test_ocr_digits.py): the grey ×3 view alone reads 94% of
    them, the three together 97%; a binarised view with a digit whitelist reads fewer
    on its own but catches some the others miss.
    """
    from skimage.filters import threshold_otsu

    g = dark_on_light(region)
    base = Image.fromarray(g.astype(np.uint8))
    h, w = g.shape

    def framed(img: Image.Image) -> Image.Image:
        return ImageOps.expand(img, border=OCR_BORDER, fill=255)

    grey = base.resize((w * OCR_SCALE, h * OCR_SCALE), Image.Resampling.LANCZOS)
    wide = base.resize((w * OCR_WIDE[0], h * OCR_WIDE[1]), Image.Resampling.LANCZOS)
    big = np.asarray(base.resize((w * OCR_BINARY_SCALE, h * OCR_BINARY_SCALE), Image.Resampling.LANCZOS),
                     dtype=np.float64)
    cut = threshold_otsu(big) if big.max() > big.min() else 128.0
    binary = Image.fromarray(np.where(big < cut, 0, 255).astype(np.uint8))
    digits = f" -c tessedit_char_whitelist={OCR_DIGITS}" if numeric else ""
    views = [(f"grey ×{OCR_SCALE}", framed(grey), "--psm 7"),
             (f"grey ×{OCR_WIDE[0]}:{OCR_WIDE[1]}", framed(wide), "--psm 7"),
             (f"Otsu ×{OCR_BINARY_SCALE}" + (", digits only" if numeric else ""), framed(binary), "--psm 7" + digits)]
    ink = _ink_box(g)
    if ink is not None:  # last: the text cut out of a box drawn loosely around it, at tesseract's glyph height
        x0, y0, x1, y1 = ink
        glyphs = base.crop((x0, y0, x1, y1))
        scale = max(1.0, OCR_GLYPH_PX / max(1, y1 - y0))
        glyphs = glyphs.resize((max(1, round((x1 - x0) * scale)), max(1, round((y1 - y0) * scale))),
                               Image.Resampling.LANCZOS)
        views += [("the text cut out", framed(glyphs), "--psm 7" + digits),
                  ("the text cut out, one character", framed(glyphs), "--psm 10" + digits)]
    return views


def _ink_box(g: np.ndarray) -> tuple[int, int, int, int] | None:
    """The box around the dark (text) pixels of a dark-on-light picture; None when there are none."""
    from skimage.filters import threshold_otsu

    if g.max() == g.min():
        return None
    ys, xs = np.nonzero(g < threshold_otsu(g))
    if not len(xs):
        return None
    return int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1


def read_text(region: RGB, want: str, ocr: Any) -> list[tuple[str, str]]:
    """(how, text) for each view read until one contains ``want``; empty for a one-colour region."""
    grey = np.asarray(Image.fromarray(np.ascontiguousarray(region)).convert("L"))
    if int(grey.max()) - int(grey.min()) < OCR_MIN_RANGE:
        return []
    reads: list[tuple[str, str]] = []
    for how, img, config in ocr_views(region, bool(NUMERIC_RE.match(want))):
        text = " ".join(str(ocr.image_to_string(img, config=config)).split())
        reads.append((how, text))
        if want.lower() in text.lower():
            break
    return reads


def read_line(frame: Frame, region: list[int], ocr: Any) -> str:
    """One line of text in a window region, as the first OCR view reads it ('' for a one-colour region);
    a caret's bar read as '|' is dropped."""
    arr = crop(rgb(frame), region)
    if arr is None:
        return ""
    grey = np.asarray(Image.fromarray(np.ascontiguousarray(arr)).convert("L"))
    if int(grey.max()) - int(grey.min()) < OCR_MIN_RANGE:
        return ""
    _, img, config = ocr_views(arr, False)[0]
    return " ".join(str(ocr.image_to_string(img, config=config)).replace("|", " ").split())


def ocr_engine() -> Any:
    """The pytesseract module when both it and the tesseract binary exist, else None."""
    if shutil.which("tesseract") is None:
        return None
    try:
        import pytesseract
    except ImportError:
        return None
    return pytesseract
