"""Judging what was seen: generic oracles, visual expectations, and the one verdict rule (``verdict``).

May import play/ and errors; never trace/, testers/, bench/, repair/, llm/ or Qt.
"""
