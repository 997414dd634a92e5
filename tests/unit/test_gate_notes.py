"""A program the frame gate let go of is noted in the differential run (why lockstep ended for it)."""

from __future__ import annotations

from types import SimpleNamespace

from app.engine.play.gate import GATE_ENDED
from app.engine.testers.differential import DifferentialTester


def test_a_gate_let_go_is_noted_once_and_an_ordinary_end_is_not() -> None:
    tester = DifferentialTester(reference="unused")
    try:
        hostile = SimpleNamespace(lost="the program stopped taking frames (its frame gate is full); it runs on the "
                                       "wall clock from here")
        tester.ctx = SimpleNamespace(player=SimpleNamespace(gate=hostile))  # type: ignore[assignment]
        tester.players = [SimpleNamespace(gate=SimpleNamespace(lost=GATE_ENDED)),  # type: ignore[list-item]
                          SimpleNamespace(gate=None)]
        notes = tester.take_findings()
        assert [(f.kind, f.evidence["program"]) for f in notes] == [("gate", "the candidate")]
        assert "frame gate is full" in notes[0].message
        assert tester.take_findings() == []  # once per program start
    finally:
        tester.pool.shutdown()
