"""Shared widgets used by several windows: frame view and overlays, verdict colours, findings, tool windows.

May import the engine only; never another views package.
"""
