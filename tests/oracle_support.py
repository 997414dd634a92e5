"""What the oracle tests on synthetic frames share: a target that is alive and says nothing."""

from __future__ import annotations


class RunningTarget:
    """A target that is alive, prints nothing and has no X window nor inside channel to ask about."""

    inside = None

    def lines(self, start: int = 0) -> list:
        return []

    def read_since(self, since: int) -> tuple[list, int]:
        return [], since

    def alive(self) -> bool:
        return True

    def page_errors(self) -> list:
        return []  # not a web page: no uncaught page errors
