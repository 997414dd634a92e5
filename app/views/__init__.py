"""The PySide6 workbench: Qt widgets over the workbench model (app/views/model/) and the engine's events.

Nothing here is imported by ``app.engine``; the views reach a live engine only
through :mod:`app.views.engine_bridge` (a child process speaking JSON lines), and the database only
through :mod:`app.views.model` (tests/unit/test_layout.py checks it).
"""

from app.views.none_guard import protect_none

protect_none()  # before any Qt call: see app/views/none_guard.py
