"""Live runs: the New run dialog, the child-process run, the live view and take-over.

May import widgets/, run/, engine_bridge and the engine; never shell/, labelling/ or repair/.
"""
