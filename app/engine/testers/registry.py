"""Every tester, declared once as data: its name, what it does, what it needs and which options it takes.

This is the one module that knows testers by name.  The command line, the bench,
the repair loop, the session and the workbench's dialogs ask it instead of
comparing names:

* :func:`spec` (or :data:`TESTERS`) gives a tester's :class:`TesterSpec`: one line for
  menus, whether a person may take a paused run over, whether it needs the target's
  ``[[script]]`` cases or a model, whether it plays a reference program beside the
  candidate, whether the program's clock stops while it thinks on a game;
* :func:`check_options` says in one sentence when a command-line option does not
  apply to the chosen tester;
* :func:`make_tester` builds one (the classes are imported only then: a dialog that
  lists testers does not load them).

The runtime declarations a session reads from the tester object (``lockstep``,
``gated``, ``from_first_frame`` on :class:`~app.engine.testers.base.TesterBase`)
agree with ``plays_reference`` here; a unit test says so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from app.engine.errors import UserError
from app.engine.testers.spec import TesterSpec

if TYPE_CHECKING:
    from app.engine.testers.base import TesterBase


def _offline(options: dict[str, Any]) -> TesterBase:
    """The offline tester: the explorer, or with ``explorer="old"`` the image-and-X-tree explorer it builds on
    alone (no keys read from code, no returns to states, no survival search), kept to compare with."""
    if options.pop("explorer", "new") == "old":
        from app.engine.testers.offline import OfflineExplorer

        return OfflineExplorer(**options)
    from app.engine.testers.explore.explorer import Explorer

    return Explorer(**options)


def _script(options: dict[str, Any]) -> TesterBase:
    from app.engine.testers.script import ScriptTester

    return ScriptTester(**options)


def _llm(options: dict[str, Any]) -> TesterBase:
    from app.engine.testers.llm import LLMTester

    return LLMTester.from_options(options)


def _differential(options: dict[str, Any]) -> TesterBase:
    from app.engine.testers.differential import DifferentialTester

    return DifferentialTester(**options)


_MODEL_FLAGS = "--provider, --model and --base-url"
OPTION_FLAGS: dict[str, str] = {
    "provider": _MODEL_FLAGS, "model": _MODEL_FLAGS, "base_url": _MODEL_FLAGS, "reference": "--reference",
    "script": "--no-script", "explorer": "--explorer", "survival": "--survival",
}
"""Tester options a command line sets, and the flag that sets each (for the sentence that refuses one)."""

_EXPLORING = frozenset({"explorer", "survival"})

TESTERS: dict[str, TesterSpec] = {s.name: s for s in (
    TesterSpec("offline", "explores without a model: random and systematic input, generic oracles "
                          "(crash, freeze, blank…)",
               factory=_offline, options=_EXPLORING),
    TesterSpec("script", "plays the target's [[script]] cases and judges each rubric criterion",
               factory=_script, needs_script=True,
               options=frozenset({"reference"})),
    TesterSpec("llm", "a vision model plays the target and judges it (provider settings below)",
               factory=_llm, needs_model=True, freezes_on_games=True,
               options=frozenset({"provider", "model", "base_url"})),
    TesterSpec("differential", "plays the program beside two runs of its reference with the same inputs "
                               "and fails where they differ",
               factory=_differential, takes_over=False,
               plays_reference=True, options=_EXPLORING | {"reference", "script"},
               no_take_over="Take-over is off in a differential run: the references play only the tester's "
                            "inputs, so they would never see yours and every later comparison would be false"),
)}

NAMES: tuple[str, ...] = tuple(TESTERS)
"""The tester names, in the order menus list them."""
DEFAULT = "offline"
"""The tester a run uses when none is named."""
RUBRIC = "script"
"""The tester that judges a target's rubric (``[[script]]`` cases): repair re-tests with it, rubric checks play it."""
REPAIR_TESTERS: tuple[str, ...] = tuple(s.name for s in TESTERS.values() if not s.plays_reference)
"""The testers a repair may re-test with: a repair plays its patched copy alone, with no reference beside it."""
UNKNOWN = TesterSpec("", "a tester this workbench does not know", takes_over=False,
                     no_take_over="Take-over is off: this workbench does not know the run's tester")


def spec(name: str) -> TesterSpec:
    """The declared tester ``name``; an unknown name ends in one sentence that lists the known ones."""
    found = TESTERS.get(name)
    if found is None:
        raise UserError(f"unknown tester {name!r}; choose one of: {', '.join(NAMES)}.")
    return found


def abilities(name: str | None) -> TesterSpec:
    """What a recorded run's tester can do; a name not declared (a run from a newer workbench) gets
    :data:`UNKNOWN`'s abilities under its own name, which offer nothing that needs the tester's cooperation."""
    found = TESTERS.get(name or "")
    if found is not None:
        return found
    return TesterSpec(str(name or ""), UNKNOWN.summary, takes_over=False, no_take_over=UNKNOWN.no_take_over)


def check_options(name: str, options: Mapping[str, Any]) -> None:
    """Refuse, in one sentence, a command-line option the tester ``name`` does not take."""
    tester = spec(name)
    for option, flag in OPTION_FLAGS.items():
        if option in options and option not in tester.options:
            takers = [s.name for s in TESTERS.values() if option in s.options]
            said = " and ".join(f"--tester {t}" for t in takers)
            raise UserError(f"{flag} {'apply' if ' and ' in flag else 'applies'} only to {said}.")
    if "survival" in options and options.get("explorer") == "old":
        raise UserError("--survival applies only to the new explorer (leave out --explorer old).")


def make_tester(name: str, options: Mapping[str, Any] | None = None) -> TesterBase:
    """Build the tester ``name`` from its options; an unknown name ends in a clear error."""
    factory = spec(name).factory
    if factory is None:
        raise UserError(f"the tester {name!r} cannot play here; choose one of: {', '.join(NAMES)}.")
    made = factory(dict(options or {}))
    made.registered = spec(name)
    return made
