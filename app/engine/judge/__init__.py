"""Judging what was seen: generic oracles and visual expectations.

May import play/ and errors; never trace/, testers/, bench/, repair/, llm/ or Qt.
"""
