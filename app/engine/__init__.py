"""The PlayTester engine. Never imports Qt (checked by tests/unit/test_engine_contract.py)."""
