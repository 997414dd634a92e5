"""Repair sessions: the repair menu, a repair run followed live, the cycle-by-cycle repair view with patch
diffs, its presentation mode and its HTML export.

May import widgets/, live/ (a repair's plays show live), engine_bridge and the engine; never shell/ or labelling/.
"""
