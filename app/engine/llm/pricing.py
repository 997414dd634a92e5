"""What a call cost, from the provider's token usage and a small price table.

Prices are US dollars per million tokens (input, output), as the providers
list them for standard, non-cached, non-batch use.  They change: override or
extend them with a TOML file named by ``$PLAYCODER_PRICES`` or at
``<user config dir>/playcoder/prices.toml``::

    [models."gpt-4o"]
    input = 2.5
    output = 10.0

A model matches an entry by its exact name or a dated/suffixed variant of it
(``gpt-4o-2024-08-06`` → ``gpt-4o``; the longest entry wins).  An unknown
model costs ``None``: we do not guess, and local models have no list price.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import platformdirs

from app.engine.errors import UserError

PER_TOKENS = 1_000_000
PRICES_ENV = "PLAYCODER_PRICES"

DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-5": (1.25, 10.00),
    "gpt-5-mini": (0.25, 2.00),
    "gpt-5-nano": (0.05, 0.40),
    "claude-opus-4": (15.00, 75.00),
    "claude-opus-4-1": (15.00, 75.00),
    "claude-sonnet-4": (3.00, 15.00),
    "claude-sonnet-4-5": (3.00, 15.00),
    "claude-3-7-sonnet": (3.00, 15.00),
    "claude-3-5-sonnet": (3.00, 15.00),
    "claude-haiku-4-5": (1.00, 5.00),
    "claude-3-5-haiku": (0.80, 4.00),
}


@dataclass(frozen=True)
class PriceTable:
    prices: Mapping[str, tuple[float, float]]

    def lookup(self, model: str) -> tuple[float, float] | None:
        name = model.lower().rsplit("/", 1)[-1]  # "openai/gpt-4o" as some gateways name models
        matches = [k for k in self.prices if name == k or name.startswith(k + "-")]
        return self.prices[max(matches, key=len)] if matches else None

    def cost(self, model: str, tokens_in: int | None, tokens_out: int | None) -> float | None:
        """Dollars for one call, or None for an unknown model or missing usage."""
        price = self.lookup(model)
        if price is None or tokens_in is None or tokens_out is None:
            return None
        return (tokens_in * price[0] + tokens_out * price[1]) / PER_TOKENS


def _read_prices(path: Path) -> dict[str, tuple[float, float]]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except RecursionError as exc:  # tomllib recurses once per nesting level
        raise UserError(f"the price file {path} is nested too deeply to read; fix it or unset {PRICES_ENV}.") from exc
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UserError(f"the price file {path} is unreadable ({exc}); fix it or unset {PRICES_ENV}.") from exc
    out: dict[str, tuple[float, float]] = {}
    models = data.get("models", {})
    if not isinstance(models, dict):
        raise UserError(f"{path}: put prices under [models.\"NAME\"] tables with input and output numbers.")
    for name, entry in models.items():
        try:
            out[name.lower()] = (float(entry["input"]), float(entry["output"]))
        except (TypeError, KeyError, ValueError):
            raise UserError(f"{path}: model {name!r} needs numeric input and output prices per million tokens.") \
                from None
    return out


def load_prices(env: Mapping[str, str] | None = None) -> PriceTable:
    """The default table, then the user's price file, then ``$PLAYCODER_PRICES`` on top."""
    env = os.environ if env is None else env
    prices = dict(DEFAULT_PRICES)
    user_file = Path(platformdirs.user_config_dir("playcoder", appauthor=False)) / "prices.toml"
    if user_file.is_file():
        prices.update(_read_prices(user_file))
    if env.get(PRICES_ENV):
        prices.update(_read_prices(Path(env[PRICES_ENV]).expanduser()))
    return PriceTable(prices)
