"""Settings: the preferences dialog, LLM provider options and keys in the keyring.

May import widgets/ and the engine (llm/ config); never other windows.
"""
