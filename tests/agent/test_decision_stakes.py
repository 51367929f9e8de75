"""experiments/decision_stakes.py: orders compared by playouts to the end on common dice streams."""

from __future__ import annotations

import csv

import pytest

from .experiments import load_experiment


def stakes():
    return load_experiment("decision_stakes")


def test_orders_are_compared_stream_by_stream_against_the_greedy_choice():
    module = stakes()
    P = module.Playout
    playouts = ([P(0, "a", s, r) for s, r in enumerate([1, 0, -1, -1])]
                + [P(1, "b", s, r) for s, r in enumerate([1, 1, 1, -1])])
    first, second = module.summarise(playouts)
    assert (first["wdl"], first["better"], first["worse"]) == ("1-1-2", 0, 0)
    assert (second["wdl"], second["better"], second["worse"]) == ("3-0-1", 2, 0)
    assert second["mean"] == pytest.approx(0.5)
    # the interval is the mean's, from the sample's spread: 1.96 x sd / sqrt(n)
    assert second["high"] - second["mean"] == pytest.approx(1.96 * 1.0 / 2)
    assert second["p"] == pytest.approx(0.5)  # 2 better, 0 worse: 2 x (1/2)^2


@pytest.mark.parametrize("name", ["met_calm_bocage", "chq_tot_crossroads"])
def test_the_orders_are_distinct_and_legal_and_the_first_is_greedys_choice(name):
    from agent.players import GreedyPlayer

    module = stakes()
    state, orders = module.reach(module.Position(name, 1, 0))
    assert len(state.legal_actions()) > 1 and len(orders) > 1
    assert len(set(orders)) == len(orders) and all(state.is_legal(o) for o in orders)
    mover = module._sides(state).index(state.current_player())
    assert orders[0] == GreedyPlayer(module.LEAD_SEEDS[mover]).act(state.clone())


def test_decision_0_is_the_tournament_games_first_order():
    from engine.scenario import load_scenario

    module = stakes()
    state, _ = module.reach(module.Position("met_calm_bocage", 1, 0))
    fresh = load_scenario("maps/met_calm_bocage.json").new_game(seed=1001)
    assert len(fresh.legal_actions()) > 1  # the game opens with a choice: no order was played before it
    assert state.legal_actions() == fresh.legal_actions() and state.current_player() == fresh.current_player()


def test_the_same_stream_replays_the_same_playout():
    module = stakes()
    position = module.Position("met_calm_bocage", 0, 0)
    assert module.play(position, 1, 7) == module.play(position, 1, 7)


def test_a_small_run_writes_its_tables_and_picture(tmp_path):
    module = stakes()
    out = tmp_path / "stakes"
    assert module.main(["--map", "met_calm_bocage", "--orders", "2", "--seeds", "2", "--workers", "1",
                        "--out", str(out)]) == 0
    rows = list(csv.DictReader(open(out / "playouts.csv")))
    assert sorted((r["rank"], r["stream"]) for r in rows) == [("0", "0"), ("0", "1"), ("1", "0"), ("1", "1")]
    assert "| 1 |" in (out / "summary.md").read_text()
    assert (out / "stakes.png").stat().st_size > 0


def test_a_bad_map_or_count_is_named(capsys):
    module = stakes()
    with pytest.raises(SystemExit) as exit_:
        module.main(["--map", "nowhere"])
    assert exit_.value.code == 2 and "unknown map 'nowhere'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        module.main(["--seeds", "1"])
    assert exit_.value.code == 2 and "--seeds at least 2" in capsys.readouterr().err
