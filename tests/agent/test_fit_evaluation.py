"""experiments/fit_evaluation.py: the evaluation's weights fitted to how games end."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from agent.players import RandomPlayer
from agent.search.evaluation import DEFAULT_WEIGHTS, Weights, evaluate
from engine.scenario import load_scenario

from .experiments import load_experiment

MAPS = Path(__file__).resolve().parents[2] / "maps"


@pytest.fixture(scope="module")
def fitting():
    return load_experiment("fit_evaluation")


def _positions_of_a_random_game(module, name, seed=3):
    """States of one random game with their features as rows (result 0: not needed here)."""
    state = load_scenario(MAPS / f"{name}.json").new_game(seed=seed)
    player, states, rows = RandomPlayer(seed), [], []
    while not state.is_terminal() and len(states) < 6:
        if state.is_chance_node():
            state.apply_action(state.sample_chance())
            continue
        side = state.current_player()
        features = state.features(side)
        states.append((state.clone(), side))
        rows.append({**{k: float(features.get(k, 0.0)) for k in module.FEATURES}, "map": name, "result": 0.0})
        for _ in range(5):
            if state.is_terminal():
                break
            state.apply_action(state.sample_chance() if state.is_chance_node() else player.act(state))
    return states, module.as_positions(rows)


@pytest.mark.parametrize("name", ["chq_smoke_advance", "met_le_mesnil"])
def test_the_fits_values_are_the_evaluations_on_real_positions(fitting, name):
    """The array formula the fit scores is :func:`evaluate` itself, for default and other weights."""
    states, positions = _positions_of_a_random_game(fitting, name)
    assert len(states) >= 3
    for weights in (DEFAULT_WEIGHTS, Weights(objectives=0.6, pressure=0.0, risk=1.4, fire=4.4, volley=0.8, scale=0.05, early=3.1)):
        expected = [evaluate(state, side, weights) for state, side in states]
        assert np.allclose(fitting.values(weights, positions), expected, rtol=1e-12, atol=1e-12)


def test_the_fit_recovers_the_weights_that_made_the_results(fitting):
    """Results made by known weights (no noise) are fitted back to those weights."""
    rng = np.random.default_rng(0)
    n = 400
    features = {"morale": rng.integers(-6, 7, n), "objectives": rng.choice([-3.0, 0.0, 3.0], n),
                "pressure": rng.normal(0, 1.5, n), "risk": -rng.exponential(0.5, n), "fire": rng.normal(0, 0.6, n),
                "material": rng.choice([-1.0, -0.4, 0.0, 0.85, 2.0], n), "volley": rng.normal(0, 0.3, n),
                "collapse": rng.choice([-0.3, 0.0, 0.0, 0.1, 0.5], n), "remaining": rng.uniform(0.02, 1.0, n), "scale": rng.choice([3.0, 6.5, 9.0], n)}
    features = {k: np.asarray(v, dtype=float) for k, v in features.items()}
    truth = Weights(objectives=0.6, pressure=0.2, risk=1.4, fire=2.5, material=1.5, volley=0.7, collapse=0.4, scale=0.3,
                    early=2.0, ceiling=0.8)
    blank = fitting.Positions(features, np.array(["m"] * n), np.zeros(n))
    positions = fitting.Positions(features, blank.maps, fitting.values(truth, blank))
    found = fitting.fit(positions)
    for name in fitting.FITTED:
        assert math.isclose(getattr(found, name), getattr(truth, name), abs_tol=0.01), name
    assert fitting.error(found, positions) < 1e-5 < fitting.error(DEFAULT_WEIGHTS, positions)


def test_a_fit_run_writes_its_table_and_the_search_settings_to_try(fitting, tmp_path, capsys):
    assert fitting.main(["--games", "1", "--validate", "1", "--maps", "met_calm_bocage", "--every", "6",
                         "--workers", "1", "--out", str(tmp_path)]) == 0
    text = (tmp_path / "fit.md").read_text()
    assert "| met_calm_bocage |" in text and "| all |" in text and "--search weights." in text
    assert set(fitting.FITTED) <= set(json.loads((tmp_path / "weights.json").read_text()))


def test_a_pair_of_two_players_plays_both_ways_round_and_a_pair_of_one_once(fitting):
    tasks = fitting.games([MAPS / "met_calm_bocage.json"], range(2), [("greedy", "random"), ("greedy", "greedy")], 4, 8)
    assert [(t.seed, t.first, t.second) for t in tasks] == [
        (0, "greedy", "random"), (0, "random", "greedy"), (0, "greedy", "greedy"),
        (1, "greedy", "random"), (1, "random", "greedy"), (1, "greedy", "greedy")]


def test_each_position_is_kept_with_its_movers_result_and_players(fitting):
    """A greedy v random game: every row names the mover's player first, and its result is the
    game's return to the mover (the sides' results sum to zero)."""
    game = fitting.Game(str(MAPS / "chq_smoke_advance.json"), 2, "greedy", "random", 3, 8)
    rows = fitting.play(game)
    assert len({r["side"] for r in rows}) == 2
    state = load_scenario(MAPS / "chq_smoke_advance.json").new_game(seed=2)
    first, second = list(state.returns())
    by_side = {r["side"]: (r["pair"], r["result"]) for r in rows}
    assert by_side[first][0] == "greedy:random" and by_side[second][0] == "random:greedy"
    assert by_side[first][1] == -by_side[second][1]


def test_a_run_with_several_pairs_scores_each_pair(fitting, tmp_path, capsys):
    assert fitting.main(["--games", "1", "--validate", "1", "--maps", "met_calm_bocage", "--every", "8",
                         "--pairs", "greedy:random", "--workers", "1", "--out", str(tmp_path)]) == 0
    text = (tmp_path / "fit.md").read_text()
    assert "| greedy:random |" in text and "| random:greedy |" in text and "| all |" in text


@pytest.mark.parametrize("pairs", [["greedy"], ["greedy:nobody"], ["ai:greedy:random"]])
def test_a_pair_that_is_not_two_known_players_is_refused(fitting, pairs, capsys):
    with pytest.raises(SystemExit) as stop:
        fitting.main(["--pairs", *pairs])
    assert stop.value.code == 2 and "--pairs takes first:second" in capsys.readouterr().err


def test_a_tournaments_positions_fit_on_even_games_and_validate_on_odd_ones(fitting, tmp_path, capsys):
    header = "map,game,seed,side,player,enemy," + ",".join(fitting.FEATURES) + ",result\n"
    def row(g, side, m, r):
        features = {f: 0.0 for f in fitting.FEATURES} | {"morale": m, "fire": m / 2, "material": m / 4,
                                                           "remaining": 0.5, "scale": 3.0}
        return f"met_calm_bocage,{g},{1000 * g + 1},{side},ai,greedy," + ",".join(str(features[f]) for f in fitting.FEATURES) + f",{r}\n"

    rows = [row(g, side, m, r) for g in range(4) for side, m, r in (("gb", 2.0, 1.0), ("de", -2.0, -1.0))]
    (tmp_path / "positions.csv").write_text(header + "".join(rows))
    fit_rows, validate_rows = fitting.read_positions([tmp_path / "positions.csv"])
    assert len(fit_rows) == len(validate_rows) == 4
    assert all(r["pair"] == "ai:greedy" and r["result"] == (1.0 if r["morale"] > 0 else -1.0) for r in fit_rows)
    assert fitting.main(["--games", "0", "--validate", "0", "--positions", str(tmp_path / "positions.csv"),
                         "--maps", "met_calm_bocage", "--out", str(tmp_path / "out")]) == 0
    assert "| met_calm_bocage | 4 |" in (tmp_path / "out" / "fit.md").read_text()


def test_a_file_that_is_not_a_tournaments_positions_is_named(fitting, tmp_path, capsys):
    (tmp_path / "games.csv").write_text("map,first,second\nmet_calm_bocage,ai,greedy\n")
    with pytest.raises(ValueError, match="games.csv: not a tournament's positions.csv"):
        fitting.read_positions([tmp_path / "games.csv"])
    with pytest.raises(SystemExit) as stop:
        fitting.main(["--games", "0", "--positions", str(tmp_path / "games.csv")])
    assert stop.value.code == 2 and "games.csv: not a tournament's positions.csv" in capsys.readouterr().err


def test_positions_from_before_a_feature_existed_are_named_with_the_missing_column(fitting, tmp_path, capsys):
    older = [f for f in fitting.FEATURES if f != "material"]
    header = "map,game,seed,side,player,enemy," + ",".join(older) + ",result\n"
    (tmp_path / "positions.csv").write_text(header + "met_calm_bocage,0,1,gb,ai,greedy," + "0," * len(older) + "1.0\n")
    with pytest.raises(ValueError, match="positions.csv: no column material: a tournament run before"):
        fitting.read_positions([tmp_path / "positions.csv"])
    with pytest.raises(SystemExit) as stop:
        fitting.main(["--games", "0", "--positions", str(tmp_path / "positions.csv")])
    assert stop.value.code == 2 and "no column material" in capsys.readouterr().err
