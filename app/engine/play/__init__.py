"""Playing a target: its spec (targetspec, scriptspec), launch, displays, window discovery,
capture and settle, input, actions, control and events.

May import app.engine.errors and the standard library; never judge/, testers/, trace/, study/, bench/, repair/, llm/ or Qt.
"""
