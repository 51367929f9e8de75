"""experiments/seat_ceiling.py: every plain policy from every seat against random, the best named."""

from __future__ import annotations

import csv

import pytest

from .experiments import load_experiment


def ceiling():
    return load_experiment("seat_ceiling")


def test_a_seats_best_policy_has_the_most_wins_then_the_most_draws():
    module = ceiling()
    R = module.Result
    results = ([R("m", "gb", "hold", g, 1, r) for g, r in enumerate([1, 0, 0, -1])]
               + [R("m", "gb", "assault", g, 1, r) for g, r in enumerate([1, -1, -1, -1])]
               + [R("m", "gb", "greedy", g, 1, r) for g, r in enumerate([0, 0, 0, 0])])
    (row,) = module.seats(results)
    assert (row["best"], row["hold"], row["assault"], row["greedy"]) == ("hold", "1-2-1", "1-0-3", "0-4-0")
    assert row["best_win_rate"] == 0.25 and row["ci_low"] < 0.25 < row["ci_high"]


def test_a_small_run_plays_both_seats_with_the_same_game_seeds_and_writes_its_tables(tmp_path):
    module = ceiling()
    out = tmp_path / "seats"
    assert module.main(["--games", "2", "--maps", "met_le_mesnil", "--policies", "hold", "assault",
                        "--workers", "1", "--out", str(out)]) == 0
    games = list(csv.DictReader(open(out / "games.csv")))
    assert len(games) == 2 * 2 * 2
    assert {g["seed"] for g in games} == {"1", "1001"}
    assert {(g["side"], g["policy"]) for g in games} == {(s, p) for s in ("gb", "de") for p in ("hold", "assault")}
    seats = list(csv.DictReader(open(out / "seats.csv")))
    assert {s["side"] for s in seats} == {"gb", "de"}
    for seat in seats:  # the tables agree with the games
        for policy in ("hold", "assault"):
            mine = [float(g["result"]) for g in games if g["side"] == seat["side"] and g["policy"] == policy]
            assert seat[policy] == f"{sum(r > 0 for r in mine)}-{sum(r == 0 for r in mine)}-{sum(r < 0 for r in mine)}"
    assert "| met_le_mesnil | de |" in (out / "summary.md").read_text()
    assert (out / "seats.png").stat().st_size > 0


def test_an_unknown_policy_or_map_is_refused_with_its_name(capsys):
    module = ceiling()
    for argv, named in ((["--policies", "charge"], "unknown policy 'charge'"), (["--maps", "atlantis"], "unknown map 'atlantis'")):
        with pytest.raises(SystemExit) as stop:
            module.main(argv)
        assert stop.value.code == 2 and named in capsys.readouterr().err



def test_against_greedy_every_policy_meets_the_greedy_player_seeded_as_random_would_be(tmp_path, monkeypatch):
    """``--opponent greedy``: each game's other side is the greedy player (seeded 2 x seed + 2,
    as the random one), and the summary names the opponent."""
    import agent.players as players

    module = ceiling()
    made = []

    class Recorded(players.GreedyPlayer):
        def __init__(self, seed=0, **kwargs):
            made.append(seed)
            super().__init__(seed, **kwargs)

    monkeypatch.setattr(players, "GreedyPlayer", Recorded)
    result = module.play(module.Game("met_calm_bocage", 0, "hold", 0, "greedy"))
    assert made == [4] and result.policy == "hold" and result.result in (-1.0, 0.0, 1.0)
    made.clear()
    module.play(module.Game("met_calm_bocage", 0, "hold", 0))
    assert made == []  # the default opponent is random
    out = tmp_path / "seats"
    assert module.main(["--games", "1", "--maps", "met_calm_bocage", "--policies", "hold", "--opponent", "greedy",
                        "--workers", "1", "--out", str(out)]) == 0
    assert (out / "summary.md").read_text().startswith("# Seat ceiling against greedy")
