"""The destinations benchmark: every ranking it compares is timed on the same positions, and the
quality columns are read against the ranking with every element's rings."""

from __future__ import annotations

import pytest

from tests.agent.experiments import load_experiment


@pytest.fixture(scope="module")
def bench():
    return load_experiment("bench_destinations")


def test_the_positions_are_movement_decisions_with_a_choice(bench):
    positions = bench.movement_positions("met_calm_bocage", 1, 10)
    assert positions and all(p.phase == "move" and not p.is_chance_node() and len(p.legal_actions()) > 1
                             for p in positions)


def test_focus_ranks_a_subset_of_every_elements_rings_and_no_better(bench):
    state = bench.movement_positions("met_calm_bocage", 1, 10)[0]
    result = bench.measure(state)
    assert set(result) == {"lattice", "every element", "focus 2", "focus 1"}
    best = result["every element"][1]
    # every ranking weighs the lattice, and the focused ones a part of every element's rings
    for name in ("lattice", "focus 2", "focus 1"):
        assert result[name][1] <= best + 1e-9
    assert result["every element"][1] >= result["lattice"][1]


def test_the_table_has_a_row_for_each_ranking(bench, capsys):
    assert bench.main(["--games", "1", "--every", "12", "--maps", "met_calm_bocage"]) == 0
    out = capsys.readouterr().out
    assert "| every element | " in out and "| focus 1 | " in out and "| lattice | 1.00x |" in out
