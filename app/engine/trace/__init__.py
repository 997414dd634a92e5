"""Recording: the SQLite trajectory store, trace bundles (export/import), HTML reports, atomic files.

May import errors and play/ data types (actions, events); never play/ runtime (target, display, observer, executor), testers/, bench/ or Qt.
"""
