"""The PlayTester engine. Never imports Qt (checked by tests/test_engine_contract.py)."""
