"""ReferencePanes: the run view's frame panes — before | after, or for a differential run candidate |
reference | difference, the difference made off the GUI thread by a :class:`DifferenceMaker`."""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QSplitter, QWidget

from app.views.run.difference_maker import DifferenceMaker, difference_key
from app.views.widgets.frame_cache import FrameCache
from app.views.widgets.frame_view import FrameView

AFTER_TITLE, CANDIDATE_TITLE = "After", "Candidate"


class ReferencePanes(QObject):
    def __init__(self, parent: QWidget, frames: FrameCache, reread: Callable[[int], str | None]) -> None:
        """``reread(step idx)`` reads a step's reference frame again (a row read before it was written)."""
        super().__init__(parent)
        self.frames, self._reread = frames, reread
        self.before = FrameView("Before", parent)
        self.after = FrameView(AFTER_TITLE, parent)
        self.reference = FrameView("Reference", parent)
        self.difference = FrameView("Difference", parent)
        self.differences = DifferenceMaker(parent)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, parent)
        for view in self.views():
            self.splitter.addWidget(view)
        self.splitter.setChildrenCollapsible(False)
        self.on = False
        """Does the open run carry reference frames (three panes: candidate | reference | difference)?"""
        self._key = ""
        """The difference the difference pane waits for or shows."""
        self.set_on(False)
        self.differences.sig_difference_made.connect(self._on_differences_difference_made)

    def views(self) -> tuple[FrameView, FrameView, FrameView, FrameView]:
        return self.before, self.after, self.reference, self.difference

    def set_on(self, on: bool) -> None:
        """Three panes (candidate | reference | difference) for a run with reference frames, else before | after."""
        self.on = on
        self.before.setVisible(not on)
        self.reference.setVisible(on)
        self.difference.setVisible(on)
        self.after.set_title(CANDIDATE_TITLE if on else AFTER_TITLE)

    def show_reference(self, step: dict[str, Any]) -> None:
        """The step's reference frame, and its difference from the candidate (made now, or kept from before)."""
        ref = step.get("frame_reference") or self._reread(int(step["idx"]))
        if ref:
            step["frame_reference"] = ref
        candidate, reference = self.frames.image(step.get("frame_after")), self.frames.image(ref)
        if reference is None:
            self.reference.set_frame(None, placeholder="The reference did not play this step.")
        else:
            self.reference.set_frame(reference, subtitle="after the same input")
        if candidate is None or reference is None or not ref:
            self._key = ""
            self.difference.set_frame(None, placeholder="No difference: a frame is missing.")
            return
        self._key = difference_key(step["frame_after"], ref)
        if self.differences.made(self._key) is not None:
            self._show_difference()
        else:
            self.difference.set_frame(None, placeholder="Making the difference…")
            self.differences.request(self._key, candidate, reference)

    def _show_difference(self) -> None:
        made = self.differences.made(self._key)
        if made is None:
            return
        if made.image is None:
            self.difference.set_frame(None, placeholder=made.why_none)
            return
        what = f"{made.pixels} pixels differ (red)" if made.pixels else "no pixel differs"
        self.difference.set_frame(made.image, subtitle=what)

    def _on_differences_difference_made(self, key: str) -> None:
        if key == self._key and self.on:
            self._show_difference()
