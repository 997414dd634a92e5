"""The workbench model: Qt-free state between the engine and the views (views subscribe to one model; work returns what it changed).

Only this package opens the database and calls the store; views hold a
:class:`~app.views.model.database.Database` (named reads and writes) or the
:class:`~app.views.model.workbench_model.WorkbenchModel` (the open database,
the current run, its verdict and the live state, with an event per field),
and work returns :class:`~app.views.model.changes.Changes` so exactly the
views that show it refresh.  It imports no Qt (tests/unit/test_layout.py checks
both) and may import the engine.
"""
