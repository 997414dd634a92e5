"""The PySide6 workbench: Qt widgets and models over the engine's store and events.

Nothing here is imported by ``app.engine``; the views reach a live engine only
through :mod:`app.views.engine_bridge` (a child process speaking JSON lines).
"""

from app.views.none_guard import protect_none

protect_none()  # before any Qt call: see app/views/none_guard.py
