"""Warnings about a target that load fine but mislead: rubric traps and saved state in the folder.

Four of six rubric failures on unmodified programs were authoring mistakes nothing pointed out
(before a run, so the author hears of them once).  These checks read the spec only (nothing is played) and say, in one sentence each,
what the expectation really compares and what to write instead:

* ``region_changed`` checked after a ``wait`` step compares the frame before the wait with the one
  after it: the same picture unless the program changes by itself;
* a ``pixel`` share of one colour over a text label: anti-aliased glyphs are mostly edge pixels,
  so the share of the exact colour is small and differs between fonts;
* an "N % white" check over an entry-sized box: a word left in the entry covers a few per cent
  of it, so the check passes with the word still there.

:func:`target_warnings` adds the saved-state warning (:mod:`app.engine.play.saved_state`).  The
session stores the warnings with the run (its config) and :func:`say_once` prints each one once
per process on stderr.
"""

from __future__ import annotations

import sys
import threading

from app.engine.play import saved_state
from app.engine.play.scriptspec import ScriptCase
from app.engine.play.targetspec import TargetSpec

LABEL_MAX_H = 48
"""A region at most this high over which a colour share is checked looks like one line of text."""
TEXT_SHARE = (0.08, 0.35)
"""... and a share in this range of one colour is a guess at how much of a label its letters cover: more than
anti-aliased text gives of its exact colour.  Larger shares check a bar or a tile behind the text."""
LABEL_MAX_ASPECT = 16
"""A region wider than this many times its height is a row (a line of bricks, a bar), not a label."""
TEXT_TOLERANCE_MAX = 48
"""With a tolerance above this, anti-aliased edges count too and the share is sound."""
LIGHT_LEVEL = 0xE0
"""A colour whose channels are all at least this is 'white' (an empty entry's background)."""
EMPTY_SHARE = (0.8, 0.98)
"""A light share in this range over a box passes with a word left in it (a word covers 2-8 % of an entry)."""
ENTRY_MAX_H = 60

_said: set[str] = set()
_lock = threading.Lock()


def _colour(hex_colour: str) -> tuple[int, int, int]:
    return int(hex_colour[1:3], 16), int(hex_colour[3:5], 16), int(hex_colour[5:7], 16)


def lint_case(number: int, case: ScriptCase) -> list[str]:
    """Warnings for one ``[[script]]`` case (``number`` counts from 1, as the parser's messages do)."""
    out: list[str] = []
    for i, exp in enumerate(case.expect):
        where = f"script case {number} ({case.label}), expectation {i}"
        step = case.steps[exp.after]
        if exp.kind == "region_changed" and step.name == "wait" and not exp.note:
            out.append(f"{where}: region_changed after step {exp.after}, a wait, compares the frame before the wait "
                       "with the one after it, the same picture unless the program changes by itself; point after "
                       "at the input whose effect you expect (with within = S for a slow one), or, if the program "
                       "changes there by itself (a running clock, a scrolling game), say so in the expectation's note.")
        if exp.kind != "pixel" or "region" not in exp.params:
            continue
        x0, y0, x1, y1 = exp.params["region"]
        share = float(exp.params.get("min_share", 1.0))
        tolerance = float(exp.params.get("tolerance", 0))
        light = all(c >= LIGHT_LEVEL for c in _colour(str(exp.params["colour"])))
        label = y1 - y0 <= LABEL_MAX_H and x1 - x0 <= LABEL_MAX_ASPECT * (y1 - y0)
        if label and TEXT_SHARE[0] <= share < TEXT_SHARE[1] and tolerance <= TEXT_TOLERANCE_MAX:
            out.append(f"{where}: a {share:.0%} share of {exp.params['colour']} over a {y1 - y0} px high region "
                       f"(tolerance {tolerance:g}): if it holds text, anti-aliased letters have few pixels of the "
                       "exact colour and fonts differ between machines; use kind = \"text\", or min_share of a few "
                       "per cent with tolerance 60 or more.")
        if light and y1 - y0 <= ENTRY_MAX_H and EMPTY_SHARE[0] <= share < EMPTY_SHARE[1]:
            out.append(f"{where}: a {share:.0%} {exp.params['colour']} check passes with a word left in the box (a "
                       "word covers a few per cent of an entry); to check that it is empty use min_share = 0.99 "
                       "over the entry's inside, or kind = \"text\".")
    return out


def lint_script(spec: TargetSpec) -> list[str]:
    return [w for n, case in enumerate(spec.script, 1) for w in lint_case(n, case)]


def target_warnings(spec: TargetSpec) -> list[str]:
    """Every warning about ``spec``: rubric traps, then saved state in the user's folder."""
    warnings = lint_script(spec)
    state = saved_state.state_files(spec.source)
    if state:
        shown = ", ".join(state[:5]) + (f" and {len(state) - 5} more" if len(state) > 5 else "")
        warnings.append(f"{spec.source} holds saved state ({shown}): every run starts from it (the engine plays a "
                        "scratch copy, so runs never change it); move or delete it there to start from a clean "
                        "state.")
    return warnings


def already_said(warnings: list[str]) -> None:
    """Count these warnings as said (a command that reports them itself, such as ``rubric check``)."""
    with _lock:
        _said.update(warnings)


def say_once(warnings: list[str]) -> None:
    """Print each warning on stderr once per process (a bench plays the same target many times)."""
    for warning in warnings:
        with _lock:
            if warning in _said:
                continue
            _said.add(warning)
        sys.stderr.write(f"playcoder: warning: {warning}\n")
    sys.stderr.flush()
