"""RunSplitters: the run view's splitters — kept between sessions by name, and until the user moves one, the
frames keep their share of the height beside the details tabs."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QSplitter

FRAMES_SHARE = 0.7
"""The frames' share of the height beside the details tabs, at first (the splitter keeps what the user sets)."""


class RunSplitters(QObject):
    def __init__(self, parent: QObject, *, film: QSplitter, body: QSplitter, frames: QSplitter) -> None:
        super().__init__(parent)
        self.by_name = {"film": film, "body": body, "frames": frames}
        """The splitters whose positions the window keeps between sessions, by name."""
        self.frames = frames
        self.shared = False
        """Has the user set the frames' share of the height (moved the splitter, or it was restored)?"""
        frames.splitterMoved.connect(self._on_frames_splitter_moved)

    def restore(self, states: dict[str, Any]) -> None:
        """Put the splitters where the user left them (saved ``saveState`` bytes by name)."""
        for name, splitter in self.by_name.items():
            if states.get(name) is not None and splitter.restoreState(states[name]):
                self.shared = True

    def resized(self) -> None:
        """The view was resized: until the user moves the splitter, the frames keep their share (once laid out)."""
        if not self.shared:
            QTimer.singleShot(0, self._share_height)

    def _share_height(self) -> None:
        total = sum(self.frames.sizes())
        if not self.shared and total > 0:
            self.frames.setSizes([round(total * FRAMES_SHARE), total - round(total * FRAMES_SHARE)])

    def _on_frames_splitter_moved(self, _pos: int = 0, _index: int = 0) -> None:
        self.shared = True
