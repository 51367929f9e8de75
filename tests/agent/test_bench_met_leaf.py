"""The MET leaf benchmark: its baseline is the code before the speed-ups, patched in and taken
out again, and both versions answer alike."""

from __future__ import annotations

import pytest

from tests.agent.experiments import load_experiment


@pytest.fixture(scope="module")
def bench():
    return load_experiment("bench_met_leaf")


@pytest.fixture(scope="module")
def positions(bench):
    return bench.decision_positions("met_calm_bocage", 1, 12)


def test_the_step_before_is_patched_in_and_taken_out(bench, positions):
    import engine.game
    from engine.rulesets.met import search_hooks
    from engine.rulesets.met.elements import Element

    now = (bench.met_game.copy_generator, Element.copy, search_hooks._Odds.__dict__["of"], bench.sight._DENSE_INSIDE,
           search_hooks.resample_hidden, bench.met_game._REDRAW_SHARE)
    tables = [positions[0].table]
    with bench.step_before(tables):
        assert bench.met_game.copy_generator is not engine.game.copy_generator
        assert bench.sight._DENSE_INSIDE == 0 and bench.met_game._REDRAW_SHARE == pytest.approx(1 / 3)
        before = [[str(a) for a in bench.ranking(s)] for s in positions[:3]]
    assert (bench.met_game.copy_generator, Element.copy, search_hooks._Odds.__dict__["of"], bench.sight._DENSE_INSIDE,
            search_hooks.resample_hidden, bench.met_game._REDRAW_SHARE) == now
    assert [[str(a) for a in bench.ranking(s)] for s in positions[:3]] == before


def test_the_table_has_both_workloads_with_the_same_answers(bench, capsys):
    code = bench.main(["--games", "1", "--every", "30", "--rounds", "1", "--iterations", "2", "--maps", "met_calm_bocage"])
    out = capsys.readouterr().out
    assert code == 0
    assert "| greedy ranking | " in out and "| AI decision, 2 simulations | " in out
    assert out.count("| yes |") == 2
