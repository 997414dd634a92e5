"""RunOffers: what the workbench may offer for a run — pause, step, stop, take over, override, replay.

Views ask here instead of testing tester names or run kinds.  The live
controls follow the live run's state and what its tester declares
(:mod:`app.engine.testers.registry`: a differential run cannot be taken over);
a recorded run may be overridden when its verdict is a tester's (not a repair
session's, whose result is the repair's) and it no longer plays, and replayed
when it has steps.  Qt-free, like the rest of the model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from app.engine.testers.registry import TesterSpec, abilities
from app.engine.trace.repair_plays import REPAIR_KIND

__all__ = ["RunOffers", "TesterSpec", "abilities", "live_offers", "run_offers"]

NOT_PAUSED = "Take-over needs a paused run: pause it first (Space)"
RUNNING_NOTE = "The run is still playing: its verdict can be overridden when it ends"
SESSION_NOTE = "A repair session's result is the repair's (fixed or not), not a verdict to override"


@dataclass(frozen=True)
class RunOffers:
    pause: bool = False
    step: bool = False
    stop: bool = False
    take_over: bool = False
    take_over_note: str = ""
    """Why take-over is not offered ("" when it is)."""
    overridable: bool = False
    """The run's verdict is a tester's, so a person may override it (once the run ended)."""
    override: bool = False
    """Override offered now."""
    override_note: str = ""
    """Why override is not offered now ("" when it is)."""
    replay: bool = False


def live_offers(tester: str | None, state: str | None) -> RunOffers:
    """The controls for a live run of ``tester`` in ``state`` (None or finished: no live run, nothing offered)."""
    if state is None or state == "finished":
        return RunOffers()
    can = abilities(tester)
    paused = state == "paused"
    take_over = paused and can.takes_over
    note = "" if take_over else (can.no_take_over if not can.takes_over else NOT_PAUSED)
    return RunOffers(pause=state in ("running", "paused", "starting"), step=state in ("running", "paused"),
                     stop=state != "stopping", take_over=take_over, take_over_note=note)


def run_offers(run: Mapping[str, Any] | None, steps: int = 0) -> RunOffers:
    """What a recorded ``run`` (a runs row) with ``steps`` recorded steps offers: override and replay."""
    if not run:
        return RunOffers()
    overridable = run.get("kind") != REPAIR_KIND
    running = run.get("status") == "running"
    note = SESSION_NOTE if not overridable else RUNNING_NOTE if running else ""
    return RunOffers(overridable=overridable, override=overridable and not running, override_note=note,
                     replay=steps > 0)
