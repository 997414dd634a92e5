"""The main window and what frames it: menus and actions, export/import, error reporting, signal handling.

May import every views package and the engine; nothing else in app.views imports shell/.
"""
