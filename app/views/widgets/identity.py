"""The user's one identity: the name recorded with verdict overrides and with labels alike.

Set once — in Edit › Settings…, or asked the first time something needs it —
and kept in QSettings under :data:`IDENTITY_KEY`.  Names saved by older
workbenches under their own keys (one for overrides, one for labels) are
taken over, so nobody is asked twice.
"""

from __future__ import annotations

import getpass

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QInputDialog, QLineEdit, QWidget

IDENTITY_KEY = "identity/name"
LEGACY_KEYS = ("verdicts/author", "validation/annotator")
"""Where earlier workbenches kept the override author and the annotator name."""
ASK_TEXT = ("Your name, recorded with your labels and with your overrides of run results.\n"
            "It is asked once; Edit › Settings… changes it.")


def identity(settings: QSettings) -> str:
    """The user's name ('' when none was ever given)."""
    for key in (IDENTITY_KEY, *LEGACY_KEYS):
        name = str(settings.value(key, "") or "").strip()
        if name:
            return name
    return ""


def set_identity(settings: QSettings, name: str) -> None:
    settings.setValue(IDENTITY_KEY, name.strip())
    settings.sync()


def default_name() -> str:
    """The login name, offered when the user is asked the first time."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return ""


def ask_identity(parent: QWidget | None, settings: QSettings) -> str | None:
    """The user's name; asked (once, and remembered) only when none is known.  None when they cancel."""
    name = identity(settings)
    if name:
        return name
    text, ok = QInputDialog.getText(parent, "Your name", ASK_TEXT, QLineEdit.EchoMode.Normal, default_name())
    name = text.strip() if ok else ""
    if not name:
        return None
    set_identity(settings, name)
    return name
