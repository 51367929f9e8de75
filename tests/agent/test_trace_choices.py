"""experiments/trace_choices.py: one tournament game replayed, other players asked along it."""

from __future__ import annotations

import csv

import pytest

from .experiments import load_experiment


def tracer():
    return load_experiment("trace_choices")


def test_the_traced_game_is_the_tournaments_game():
    """Greedy v greedy is deterministic: the traced game ends as the tournament's does."""
    module, tournament = tracer(), load_experiment("tournament")
    task = tournament.tasks_for(["met_le_mesnil"], [("greedy", "greedy")], 1, 1.0, first_game=3)
    outcome = next(tournament.play(t) for t in task if tournament.map_sides("met_le_mesnil")[t.first_side] == "de")
    choices, result = module.trace("met_le_mesnil", 3, "de", "greedy", "greedy", ("greedy",))
    assert result == outcome.result
    assert len(choices) > 10


def test_every_reference_is_asked_at_every_decision_and_a_stop_is_no_result():
    """Greedy traced against random references (which it cannot agree with everywhere)."""
    module = tracer()
    choices, result = module.trace("chq_smoke_advance", 0, "us", "greedy", "random", ("random", "random"),
                                   max_decisions=12)
    assert result is None and len(choices) == 12
    assert all(len(c.references) == 2 for c in choices)
    assert any(c.references[0] != c.traced for c in choices)


def test_a_choice_differs_only_from_what_the_references_agree_on():
    C = tracer().Choice
    assert C(0, "", "move", "a", "", 0, "", ("b", "b")).differs
    assert not C(0, "", "move", "a", "", 0, "", ("b", "c")).differs  # they disagree: no consensus
    assert not C(0, "", "move", "a", "", 0, "", ("a", "a")).differs


def test_a_short_run_writes_every_decision_and_names_a_bad_reference(tmp_path, capsys):
    module = tracer()
    out = tmp_path / "trace"
    assert module.main(["--map", "met_le_mesnil", "--game", "0", "--side", "gb", "--traced", "ai", "--iterations", "2",
                        "--references", "greedy", "ai@2", "--max-decisions", "3", "--out", str(out)]) == 0
    rows = list(csv.DictReader(open(out / "choices.csv")))
    assert len(rows) == 3 and all(r["plan"] and int(r["simulations"]) == 2 for r in rows)
    assert all(r["reference_1_plan"] == "" and r["reference_2_plan"] for r in rows)  # greedy has none, the AI one
    assert "stopped early" in capsys.readouterr().out
    with pytest.raises(SystemExit) as stop:
        module.main(["--map", "met_le_mesnil", "--game", "0", "--side", "gb", "--references", "ai"])
    assert stop.value.code == 2
    assert "ai@32" in capsys.readouterr().err
