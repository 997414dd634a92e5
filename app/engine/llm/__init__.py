"""LLM providers for the PlayTester: OpenAI, Anthropic and OpenAI-compatible servers.

``config`` resolves settings and keys, ``providers`` makes one SDK call,
``retry`` bounds retries, ``client`` records every call in ``llm_calls``,
``images`` and ``shots`` turn window frames into pictures at each provider's
rules, ``pricing`` turns usage into dollars, ``prompts`` loads the templates.
The SDKs are imported only when a provider is built.
"""
