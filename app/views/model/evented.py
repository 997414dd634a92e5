"""Events per field, without Qt (napari's ``EventedModel``, reduced to what the workbench needs).

A model declares its fields; setting one to a different value emits that
field's event with the new value, so a view subscribes to exactly what it
shows.  Callbacks run synchronously on the thread that set the field (the GUI
thread, for the workbench model)."""

from __future__ import annotations

from typing import Any, Callable, ClassVar

Callback = Callable[[Any], None]


class Event:
    """One event: ``connect(callback)``, ``disconnect(callback)``, ``emit(value)``."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._callbacks: list[Callback] = []

    def connect(self, callback: Callback) -> None:
        if callback not in self._callbacks:
            self._callbacks.append(callback)

    def disconnect(self, callback: Callback) -> None:
        if callback in self._callbacks:
            self._callbacks.remove(callback)

    def emit(self, value: Any = None) -> None:
        for callback in list(self._callbacks):
            callback(value)


class Events:
    """The events of one model, one attribute per field (and any extra names)."""

    def __init__(self, names: tuple[str, ...]) -> None:
        for name in names:
            setattr(self, name, Event(name))

    def __getattr__(self, name: str) -> Event:  # only reached for a name that was never declared
        raise AttributeError(f"no event {name!r}")


class EventedModel:
    """Subclasses list their fields in ``FIELDS`` (and other events in ``EVENTS``) and set defaults in
    ``__init__`` before calling ``super().__init__()``... or after: a field set before the events exist emits
    nothing."""

    FIELDS: ClassVar[tuple[str, ...]] = ()
    EVENTS: ClassVar[tuple[str, ...]] = ()
    events: Events

    def __init__(self) -> None:
        object.__setattr__(self, "events", Events(self.FIELDS + self.EVENTS))

    def __setattr__(self, name: str, value: Any) -> None:
        old = self.__dict__.get(name, _MISSING)
        object.__setattr__(self, name, value)
        events = self.__dict__.get("events")
        if name in self.FIELDS and events is not None and not _same(old, value):
            getattr(events, name).emit(value)


_MISSING = object()


def _same(old: Any, new: Any) -> bool:
    if old is new:
        return True
    try:
        return bool(old == new)
    except Exception:  # noqa: BLE001 - values that cannot compare are different
        return False
