"""FrameCache: decoded frames by content hash, full size and as film-strip thumbnails.

Frames are stored as PNG and deduplicated by hash, so consecutive steps often
share a picture (the "after" of one step is the "before" of the next).  Decoding
happens only when a view asks for a frame, and each result is kept in a
byte-budgeted LRU so moving back and forth never decodes the same PNG twice.
Everything here runs on the GUI thread (QPixmap is GUI-thread only).
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from typing import Generic, Protocol, TypeVar

from PySide6.QtCore import Qt
from PySide6.QtGui import QImage, QPixmap

from app.views.model.database import READ_ERRORS

log = logging.getLogger(__name__)

THUMB_SIZE = 96
"""Thumbnails fit in a THUMB_SIZE x THUMB_SIZE box (aspect kept)."""
IMAGE_BUDGET_BYTES = 96 * 1024 * 1024
THUMB_BUDGET_BYTES = 48 * 1024 * 1024

_V = TypeVar("_V")


class FrameSource(Protocol):
    """What the cache needs from a store: ``frame(sha)`` returning an object with ``.data`` (PNG)."""

    def frame(self, sha256: str) -> object | None: ...


class _ByteLRU(Generic[_V]):
    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.used = 0
        self._items: OrderedDict[str, tuple[_V, int]] = OrderedDict()

    def get(self, key: str) -> _V | None:
        item = self._items.get(key)
        if item is None:
            return None
        self._items.move_to_end(key)
        return item[0]

    def put(self, key: str, value: _V, size: int) -> None:
        old = self._items.pop(key, None)
        if old is not None:
            self.used -= old[1]
        self._items[key] = (value, size)
        self.used += size
        while self.used > self.budget and len(self._items) > 1:
            _, (_, dropped) = self._items.popitem(last=False)
            self.used -= dropped

    def clear(self) -> None:
        self._items.clear()
        self.used = 0

    def __len__(self) -> int:
        return len(self._items)


class FrameCache:
    """Lazy, cached frame decoding for one store; see the module docstring."""

    def __init__(self, source: FrameSource | None = None, *, image_budget: int = IMAGE_BUDGET_BYTES,
                 thumb_budget: int = THUMB_BUDGET_BYTES, thumb_size: int = THUMB_SIZE) -> None:
        self._source = source
        self._images: _ByteLRU[QImage] = _ByteLRU(image_budget)
        self._thumbs: _ByteLRU[QPixmap] = _ByteLRU(thumb_budget)
        self._missing: set[str] = set()
        self.thumb_size = thumb_size
        self.decodes = 0
        """How many PNGs were decoded so far (the benchmark and tests read it)."""

    def set_source(self, source: FrameSource | None) -> None:
        self._source = source
        self.clear()

    def clear(self) -> None:
        self._images.clear()
        self._thumbs.clear()
        self._missing.clear()

    def image(self, sha: str | None) -> QImage | None:
        """The full-resolution frame, or None when there is none (or it cannot be read)."""
        if not sha:
            return None
        cached = self._images.get(sha)
        if cached is not None:
            return cached
        image = self._decode(sha)
        if image is not None:
            self._images.put(sha, image, image.sizeInBytes())
        return image

    def thumbnail(self, sha: str | None) -> QPixmap | None:
        """The frame scaled to fit ``thumb_size``; decodes the PNG only on the first request."""
        if not sha:
            return None
        cached = self._thumbs.get(sha)
        if cached is not None:
            return cached
        full = self._images.get(sha) or self._decode(sha)
        if full is None:
            return None
        side = self.thumb_size
        thumb = QPixmap.fromImage(
            full.scaled(side, side, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation)
        )
        self._thumbs.put(sha, thumb, thumb.width() * thumb.height() * 4)
        return thumb

    def _decode(self, sha: str) -> QImage | None:
        if self._source is None or sha in self._missing:
            return None
        try:
            stored = self._source.frame(sha)
        except READ_ERRORS as exc:  # closed or busy store: show no frame rather than fail a paint
            log.warning("could not read frame %s: %s", sha[:12], exc)
            return None
        data = getattr(stored, "data", None)
        image = QImage()
        if data is None or not image.loadFromData(data):
            self._missing.add(sha)
            return None
        self.decodes += 1
        if image.format() not in (QImage.Format.Format_RGB32, QImage.Format.Format_ARGB32_Premultiplied):
            image = image.convertToFormat(QImage.Format.Format_RGB32)
        return image

    @property
    def cached_bytes(self) -> int:
        return self._images.used + self._thumbs.used
