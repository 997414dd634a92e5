"""Inputs that say nothing about the main window: another window of the program had them.

A dialog of the program that the picture does not wholly show (it lies under another of the
program's windows, or partly off the main window) may hold the input: a modal dialog (a file
dialog, a Go to line box) takes every key and click while the windows around it ignore them, so
whatever the played window does then says nothing about whether it answers.  A declared key
pressed while any dialog or popup is open goes to that window too.  Such inputs are no evidence
of dead input; an answer to one is still an answer.
"""

from __future__ import annotations

from typing import Sequence

from app.engine.play.xwidgets import TopLevel


def _overlap(a: TopLevel, b: TopLevel) -> bool:
    return a.x < b.x + b.width and b.x < a.x + a.width and a.y < b.y + b.height and b.y < a.y + a.height


def _inside(a: TopLevel, b: TopLevel) -> bool:
    return b.x <= a.x and b.y <= a.y and a.x + a.width <= b.x + b.width and a.y + a.height <= b.y + b.height


def out_of_sight(tops: Sequence[TopLevel]) -> TopLevel | None:
    """The first dialog of the program (bottom to top) that the picture does not wholly show: part of it
    is under another managed window of the program, or outside the main window."""
    main = next((t for t in tops if t.kind == "main"), None)
    if main is None:
        return None
    for i, top in enumerate(tops):
        if top.kind != "dialog":
            continue
        if not _inside(top, main) or any(t.kind != "popup" and _overlap(top, t) for t in tops[i + 1:]):
            return top
    return None


def covered(declared_key: bool, tops: Sequence[TopLevel]) -> bool:
    """Whether an input sent with these windows open (bottom to top) says nothing about the main window:
    a declared key while another window of the program is open, or any input while a dialog is out of sight."""
    if declared_key and any(t.kind != "main" for t in tops):
        return True
    return out_of_sight(tops) is not None
