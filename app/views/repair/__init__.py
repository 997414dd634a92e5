"""Repair sessions: the repair menu and the cycle-by-cycle repair view with patch diffs.

May import widgets/ and the engine; never shell/, live/ or labelling/.
"""
