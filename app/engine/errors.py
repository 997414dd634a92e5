"""Errors a user can cause, each carrying one sentence that says what to do."""

from __future__ import annotations


class UserError(Exception):
    """A problem the user can fix; ``str(err)`` is a single actionable sentence."""


class TargetError(UserError):
    """The target folder, its playcoder.toml or its process is unusable."""


class DisplayError(UserError):
    """No X display could be started or reached."""


class StoreError(UserError):
    """The trajectory database is missing, corrupt or from a newer version."""


class RunStopped(Exception):
    """Raised at a checkpoint when the user asked the run to stop."""
