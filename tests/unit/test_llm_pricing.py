"""Cost from usage with a configurable price table; unknown models cost None."""

from __future__ import annotations

import pytest

from app.engine.errors import UserError
from app.engine.llm.pricing import DEFAULT_PRICES, PriceTable, load_prices


def test_cost_from_usage():
    table = PriceTable(DEFAULT_PRICES)
    assert table.cost("gpt-4o", 1_000_000, 0) == pytest.approx(2.50)
    assert table.cost("gpt-4o", 1000, 200) == pytest.approx((1000 * 2.5 + 200 * 10.0) / 1e6)
    assert table.cost("claude-sonnet-4-5", 2000, 100) == pytest.approx((2000 * 3 + 100 * 15) / 1e6)


def test_dated_variants_match_the_longest_entry():
    table = PriceTable(DEFAULT_PRICES)
    assert table.lookup("gpt-4o-2024-08-06") == DEFAULT_PRICES["gpt-4o"]
    assert table.lookup("gpt-4o-mini-2024-07-18") == DEFAULT_PRICES["gpt-4o-mini"]
    assert table.lookup("claude-sonnet-4-5-20250929") == DEFAULT_PRICES["claude-sonnet-4-5"]
    assert table.lookup("claude-sonnet-4-20250514") == DEFAULT_PRICES["claude-sonnet-4"]
    assert table.lookup("openai/gpt-4o") == DEFAULT_PRICES["gpt-4o"]
    assert table.lookup("gpt-4oX") is None  # a prefix must end at a dash


def test_unknown_model_or_missing_usage_costs_none():
    table = PriceTable(DEFAULT_PRICES)
    assert table.cost("llava:13b", 1000, 100) is None
    assert table.cost("gpt-4o", None, 100) is None


def test_price_file_extends_and_overrides(tmp_path):
    f = tmp_path / "prices.toml"
    f.write_text('[models."gpt-test"]\ninput = 1.0\noutput = 2.0\n[models."gpt-4o"]\ninput = 5\noutput = 20\n')
    table = load_prices({"PLAYCODER_PRICES": str(f)})
    assert table.cost("gpt-test", 1_000_000, 1_000_000) == pytest.approx(3.0)
    assert table.lookup("gpt-4o") == (5.0, 20.0)
    assert table.lookup("gpt-4o-mini") == DEFAULT_PRICES["gpt-4o-mini"]


def test_bad_price_file_is_one_clear_error(tmp_path):
    f = tmp_path / "prices.toml"
    f.write_text('[models."x"]\ninput = "cheap"\noutput = 1\n')
    with pytest.raises(UserError, match="numeric input and output"):
        load_prices({"PLAYCODER_PRICES": str(f)})
    f.write_text("not toml [")
    with pytest.raises(UserError, match="unreadable"):
        load_prices({"PLAYCODER_PRICES": str(f)})
