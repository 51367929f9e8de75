"""experiments/tournament.py: games are played in duplicate, so the dice's luck cancels."""

from __future__ import annotations

from .experiments import load_experiment


def tournament():
    return load_experiment("tournament")


def test_both_games_of_a_duplicate_pair_share_the_seed_and_games_do_not():
    tasks = tournament().tasks_for(["chq_blind_barrage", "met_le_mesnil"], [("ai", "greedy")], 3, 1.0)
    assert len(tasks) == 2 * 2 * 3
    seeds = {}
    for task in tasks:
        seeds.setdefault((task.map, task.game), set()).add((task.first_side, task.seed))
    for pair in seeds.values():
        assert {side for side, _ in pair} == {0, 1}
        assert len({seed for _, seed in pair}) == 1
    per_map = {}
    for (name, _), pair in seeds.items():
        per_map.setdefault(name, []).append(next(iter(pair))[1])
    assert all(len(set(s)) == 3 for s in per_map.values())

