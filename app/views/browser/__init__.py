"""The run browser: the list of runs in the database, its model and filter proxy.

May import widgets/ and the engine store; never other windows.
"""
