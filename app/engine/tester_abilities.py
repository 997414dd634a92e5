"""What each tester can do, declared once, so the workbench offers what a run allows instead of testing names.

A view asks :func:`abilities` for a run's tester: whether a person may take the
run over while it is paused (a take-over step is played on the candidate alone,
so a tester that plays a reference program input for input cannot take one: the
reference would never see it and every later comparison would be against a
program that did not get it), whether the tester needs the target's ``[[script]]``
cases or a model, and one line that says what it does.

Every name in :data:`app.engine.testers.TESTERS` is declared here (a test says
so); a name this module does not know (a run imported from a newer workbench)
gets :data:`UNKNOWN`, which offers nothing that needs the tester's cooperation.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TesterAbilities:
    name: str
    summary: str
    """One line for menus and tooltips: what the tester does."""
    takes_over: bool = True
    """A person may play steps while the run is paused; the tester goes on from what they did."""
    no_take_over: str = ""
    """Why take-over is not offered (shown instead), when ``takes_over`` is False."""
    needs_script: bool = False
    """Plays the target's ``[[script]]`` cases: offered only for a target that has some."""
    needs_model: bool = False
    """Asks a model provider: needs a provider, a model and a key."""
    plays_reference: bool = False
    """Plays a reference program beside the candidate, input for input: what the tester class declares as
    :attr:`~app.engine.testers.base.TesterBase.lockstep` (tests/test_tester_declarations.py says they agree)."""


DECLARED: dict[str, TesterAbilities] = {a.name: a for a in (
    TesterAbilities("offline", "explores without a model: random and systematic input, generic oracles "
                               "(crash, freeze, blank…)"),
    TesterAbilities("script", "plays the target's [[script]] cases and judges each rubric criterion",
                    needs_script=True),
    TesterAbilities("llm", "a vision model plays the target and judges it (provider settings below)",
                    needs_model=True),
    TesterAbilities("differential", "plays the program beside two runs of its reference with the same inputs "
                                    "and fails where they differ",
                    takes_over=False, plays_reference=True,
                    no_take_over="Take-over is off in a differential run: the references play only the tester's "
                                 "inputs, so they would never see yours and every later comparison would be false"),
)}

UNKNOWN = TesterAbilities("", "a tester this workbench does not know", takes_over=False,
                          no_take_over="Take-over is off: this workbench does not know the run's tester")


def abilities(tester: str | None) -> TesterAbilities:
    """The declared abilities of ``tester`` (:data:`UNKNOWN`, named, for a name not declared)."""
    found = DECLARED.get(tester or "")
    if found is not None:
        return found
    return TesterAbilities(str(tester or ""), UNKNOWN.summary, takes_over=False, no_take_over=UNKNOWN.no_take_over)
