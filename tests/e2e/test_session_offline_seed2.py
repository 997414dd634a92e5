"""Every reference of both suites passes the offline tester end to end with seed 2 (seed 0 and the bug
variants: test_session_offline.py)."""

from __future__ import annotations

import pytest

from suite import needs_xvfb
from test_session_offline import APPS, reference_passes

pytestmark = needs_xvfb


@pytest.mark.parametrize("app", APPS)
def test_reference_passes_with_seed_2(app, db_path):
    reference_passes(app, 2, db_path)
