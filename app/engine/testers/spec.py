"""TesterSpec: what a tester is and can do, as data (the registry declares one per tester).

Apart from the registry (:mod:`app.engine.testers.registry`) so the tester base class can name the type
without importing the registry, which builds the testers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class TesterSpec:
    """What a tester is and can do, as data."""

    name: str
    summary: str
    """One line for menus and tooltips: what the tester does."""
    factory: Callable[[dict[str, Any]], Any] | None = None
    """Builds the tester from its options (None: not playable here); it imports the class only then."""
    takes_over: bool = True
    """A person may play steps while the run is paused; the tester goes on from what they did."""
    no_take_over: str = ""
    """Why take-over is not offered (shown instead), when ``takes_over`` is False."""
    needs_script: bool = False
    """Plays the target's ``[[script]]`` cases: offered only for a target that has some."""
    needs_model: bool = False
    """Asks a model provider: needs a provider, a model and a key."""
    plays_reference: bool = False
    """Plays a reference program beside the candidate, input for input (the class's ``lockstep``)."""
    freezes_on_games: bool = False
    """The game's clock stops while the tester thinks (a model's reply takes seconds; a game would run on)."""
    options: frozenset[str] = frozenset()
    """The command-line options (by their tester-option name) this tester takes."""
