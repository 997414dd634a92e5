"""The run browser: the list of runs in the database, its model and filter proxy.

May import widgets/ and the workbench model (app/views/model/, the one owner of the database); never other windows.
"""
