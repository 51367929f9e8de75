"""experiments/tournament.py: games are played in duplicate, so the dice's luck cancels."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import numpy as np

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



def test_search_settings_are_read_as_the_types_of_their_defaults():
    options = tournament().search_options(["anchor_z=2", "halving=no", "enemy_postures=balanced,hold", "anchor=none",
                                           "alternatives=3"])
    assert options == (("anchor_z", 2.0), ("halving", False), ("enemy_postures", ("balanced", "hold")),
                       ("anchor", None), ("alternatives", 3))


def test_the_evaluations_weights_are_search_settings_too():
    from agent.search.evaluation import SEARCH_WEIGHTS

    module = tournament()
    options = module.search_options(["weights.early=1.5", "anchor_z=2"])
    assert options == (("weights.early", 1.5), ("anchor_z", 2.0))
    config = module.search_config(options)
    assert config.anchor_z == 2.0 and config.weights.early == 1.5
    assert config.weights.fire == SEARCH_WEIGHTS.fire and module.search_config().weights == SEARCH_WEIGHTS


def test_the_weights_of_the_ais_greedy_plans_are_search_settings_and_reach_its_greedy_source():
    """``greedy_weights.FIELD`` changes how the AI's own greedy plans rank orders (the anchor and
    its alternatives), not the leaves' weights nor the greedy player's."""
    from agent.search import MacroSearch
    from agent.search.evaluation import DEFAULT_WEIGHTS, SEARCH_WEIGHTS
    from agent.search.sources import GreedySource

    module = tournament()
    options = module.search_options(["greedy_weights.volley=1.5", "weights.volley=2"])
    config = module.search_config(options)
    assert config.greedy_weights == replace(DEFAULT_WEIGHTS, volley=1.5)
    assert config.weights == replace(SEARCH_WEIGHTS, volley=2.0)
    [greedy] = [s for s in MacroSearch("gb", np.random.default_rng(0), config=config).sources if isinstance(s, GreedySource)]
    assert greedy.options["weights"] == config.greedy_weights
    assert module.search_config().greedy_weights == DEFAULT_WEIGHTS
    assert module.make_player("greedy", 1, 1.0).policy.weights == DEFAULT_WEIGHTS


def test_the_ais_destinations_are_search_settings_and_greedy_rings_weighs_them():
    from agent.search.destinations import NO_MORE_MOVES, RingMoves

    module = tournament()
    options = module.search_options(["move_rings=0.5,1", "move_bearings=8"])
    assert options == (("move_rings", (0.5, 1.0)), ("move_bearings", 8))
    assert module.make_player("ai", 1, 1.0, search=options).config.destinations == RingMoves((0.5, 1.0), 8)
    default = module.make_player("ai", 1, 1.0).config
    assert default.destinations == RingMoves() and not default.rings_first_only, "rings at every order by default"
    lattice = module.make_player("ai", 1, 1.0, search=module.search_options(["move_bearings=0"])).config.destinations
    assert lattice(None) == [], "move_bearings=0 keeps the AI to the engine's lattice"
    assert module.make_player("greedy-rings", 1, 1.0).policy.more == RingMoves()
    assert module.make_player("greedy-rings", 1, 1.0, search=options).policy.more == RingMoves((0.5, 1.0), 8)
    weighed = module.make_player("greedy-rings", 1, 1.0, search=module.search_options(["greedy_weights.risk=2"]))
    assert weighed.policy.weights.risk == 2.0, "greedy-rings ranks with the AI's greedy weights too"
    wider = module.make_player("greedy-rings", 1, 1.0, search=module.search_options(["greedy_artillery_top=12"]))
    assert wider.policy.artillery_top == 12, "greedy-rings weighs the AI's greedy plans' artillery shortlist too"
    assert module.make_player("greedy", 1, 1.0).policy.artillery_top == 6
    assert module.make_player("greedy", 1, 1.0, search=options).policy.more == NO_MORE_MOVES


def test_a_wrong_search_setting_is_named():
    import pytest

    for text, named in (("depth=3", "FIELD one of"), ("anchor_z=high", "anchor_z takes a float"),
                        ("halving=maybe", "halving takes a bool"), ("anchor_z", "FIELD=VALUE"),
                        ("move_rings=near,far", "move_rings takes a tuple")):
        with pytest.raises(ValueError, match=named):
            tournament().search_options([text])


def test_the_ai_of_a_task_plays_with_its_replan_and_search_settings():
    module = tournament()
    [task, *_] = module.tasks_for(["met_le_mesnil"], [("ai", "greedy")], 1, 0.5, "always", (("alternatives", 2),))
    assert task.replan == "always" and task.search == (("alternatives", 2),)
    ai = module.make_player("ai", 1, task.time_per_decision, task.replan, task.search)
    assert ai.replan == "always" and ai.config.alternatives == 2 and ai.time_per_decision == 0.5


def test_later_games_bring_fresh_seeds():
    module = tournament()
    first = {t.seed for t in module.tasks_for(["met_le_mesnil"], [("ai", "greedy")], 3, 1.0)}
    later = module.tasks_for(["met_le_mesnil"], [("ai", "greedy")], 3, 1.0, first_game=3)
    assert sorted({t.game for t in later}) == [3, 4, 5]
    assert not first & {t.seed for t in later}


class _Waits:
    """A player that spends its order waiting (as when another process has the core)."""

    def act(self, state):
        import time

        time.sleep(0.05)
        return "wait"


class _Computes:
    """A player that spends its order computing (0.05 s of its thread's CPU, however busy the machine)."""

    def act(self, state):
        import time

        end = time.thread_time() + 0.05
        while time.thread_time() < end:
            pass
        return "compute"


def test_an_order_is_timed_on_the_wall_clock_and_on_the_cpu_clock():
    timed = {name: tournament()._Timed(player) for name, player in (("waits", _Waits()), ("computes", _Computes()))}
    assert timed["waits"].act(None) == "wait" and timed["computes"].act(None) == "compute"
    for t in timed.values():
        assert t.times[0] >= 0.05
    assert timed["waits"].cpu_times[0] < 0.02  # waited: slow on the wall clock only
    assert timed["computes"].cpu_times[0] >= 0.05


class _Stalls:
    """A player whose order stalls in one place: where a slow order was is what the watch must find."""

    def __init__(self, seconds: float):
        self.seconds = seconds

    def act(self, state):
        return _stall_here(self.seconds)


def _stall_here(seconds: float) -> str:
    import time

    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass
    return "stalled"


def test_a_slow_order_is_caught_where_it_spends_its_time_and_a_quick_one_is_not():
    slow = tournament()._Timed(_Stalls(0.3), limit=0.1, every=0.02)
    quick = tournament()._Timed(_Stalls(0.01), limit=0.1, every=0.02)
    assert slow.act(None) == "stalled" and quick.act(None) == "stalled"
    assert quick.slow_stacks == []
    [(seconds, report)] = slow.slow_stacks
    assert seconds >= 0.3
    counts = report.splitlines()[1]  # the most frequent innermost line of our code
    assert "_stall_here" in counts and "test_tournament.py" in counts


def test_the_watch_point_reaches_every_task():
    module = tournament()
    tasks = module.tasks_for(["met_calm_bocage"], [("ai", "random")], 1, 1.0, watch=0.5)
    assert {t.watch for t in tasks} == {0.5}
    assert {t.watch for t in module.tasks_for(["met_calm_bocage"], [("ai", "random")], 1, 1.0)} == {None}


def test_a_game_keeps_every_fourth_decision_of_each_player_with_its_movers_result(tmp_path):
    """The positions a tournament writes for fitting the evaluation: each player's 1st, 5th, 9th
    ... decision, the mover's features as ``feature_row`` gives them, and the mover's result."""
    import csv

    from agent.search.evaluation import FEATURES

    module = tournament()
    [task] = [t for t in module.tasks_for(["met_calm_bocage"], [("greedy", "random")], 1, 1.0) if t.first_side == 1]
    outcome = module.play(task)
    second_side = next(p["side"] for p in outcome.positions if p["side"] != outcome.first_side)
    counts = Counter(p["side"] for p in outcome.positions)
    assert sum(counts.values()) >= outcome.decisions // 4 - 1 and set(counts) == {outcome.first_side, second_side}
    module.write_positions(tmp_path / "positions.csv", [outcome])
    rows = list(csv.DictReader(open(tmp_path / "positions.csv")))
    assert len(rows) == len(outcome.positions)
    for row in rows:
        mine = row["side"] == outcome.first_side
        assert (row["player"], row["enemy"]) == (("greedy", "random") if mine else ("random", "greedy"))
        assert float(row["result"]) == (outcome.result if mine else -outcome.result)
        assert set(FEATURES) <= set(row) and row["map"] == "met_calm_bocage"


def test_an_iteration_budget_makes_the_ai_untimed_and_its_games_repeat_exactly():
    """``--iterations``: the AI searches N simulations a decision with no clock, so a task
    played twice is the same game, decision for decision."""
    module = tournament()
    [task, *_] = module.tasks_for(["met_calm_bocage"], [("ai", "random")], 1, 1.0, iterations=2)
    assert task.iterations == 2
    ai = module.make_player("ai", 1, task.time_per_decision, task.replan, task.search, task.iterations)
    assert ai.iterations == 2 and ai.time_per_decision is None
    timed = module.make_player("ai", 1, 1.0)
    assert timed.iterations is None and timed.time_per_decision == 1.0
    first, again = module.play(task), module.play(task)
    assert (first.result, first.score, first.decisions) == (again.result, again.score, again.decisions)
    assert first.positions == again.positions and first.ai_searches and first.ai_slow == 0
    assert first.ai_simulations == [2] * len(first.ai_searches)


def test_the_decision_benchmark_says_how_many_simulations_the_searches_ran(tmp_path):
    """Each search's seconds and simulations reach decision_times.csv; the summary gives the
    median and the 10th percentile of the simulations (how far a time budget went)."""
    import csv
    from argparse import Namespace

    module = tournament()
    base = dict(map="met_calm_bocage", first="ai", second="greedy", first_side="gb", result=1.0, score=0.5,
                decisions=10, seconds=1.0, first_think=1.0, second_think=0.1, ai_longest=0.9)
    outcomes = [module.Outcome(game=0, seed=1, ai_searches=[0.9, 0.8, 0.9], ai_simulations=[30, 12, 41], **base),
                module.Outcome(game=1, seed=1001, ai_searches=[0.9, 0.9], ai_simulations=[25, 8], **base)]
    bench = module.decision_benchmark(outcomes, 1.0)
    assert bench["simulations_median"] == 25 and bench["simulations_p10"] == 8
    rows = module.summarise(outcomes, ["met_calm_bocage"], [("ai", "greedy")])
    args = Namespace(games=1, iterations=None, time_per_decision=1.0, replan="always", search=[], out=tmp_path)
    module.write_outputs(tmp_path, outcomes, rows, bench, args)
    with open(tmp_path / "decision_times.csv") as f:
        written = [(row["seconds"], row["simulations"]) for row in csv.DictReader(f)]
    assert written == [("0.9000", "30"), ("0.8000", "12"), ("0.9000", "41"), ("0.9000", "25"), ("0.9000", "8")]
    assert "Simulations a search: median 25, 10th percentile 8." in (tmp_path / "summary.md").read_text()


def test_an_iteration_budget_below_one_is_refused(capsys):
    import pytest

    with pytest.raises(SystemExit) as stop:
        tournament().main(["--iterations", "0", "--maps", "met_calm_bocage", "--pairs", "ai:random"])
    assert stop.value.code == 2
    assert "--iterations must be at least 1, got 0" in capsys.readouterr().err


def test_sides_keep_one_seats_games_with_the_seeds_of_the_whole_run():
    module = tournament()
    whole = module.tasks_for(["met_le_mesnil", "chq_smoke_advance"], [("ai", "greedy")], 2, 1.0)
    british = module.tasks_for(["met_le_mesnil", "chq_smoke_advance"], [("ai", "greedy")], 2, 1.0, sides=["gb"])
    assert module.map_sides("met_le_mesnil") == ["gb", "de"]
    assert british == [t for t in whole if t.map == "met_le_mesnil" and t.first_side == 0]
    both = module.tasks_for(["met_le_mesnil"], [("ai", "greedy")], 2, 1.0, sides=["gb", "de"])
    assert both == [t for t in whole if t.map == "met_le_mesnil"]


def test_a_side_on_none_of_the_maps_is_refused_by_name(capsys):
    import pytest

    with pytest.raises(SystemExit) as stop:
        tournament().main(["--sides", "us", "--maps", "met_calm_bocage", "--pairs", "ai:random"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "--sides 'us'" in err and "de, gb" in err


def _first_decision(state, wanted, players):
    """Play ``players`` from ``state`` until ``wanted(state)`` holds at a decision; that state."""
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(state.sample_chance())
            continue
        if wanted(state):
            return state
        state.apply_action(players[state.current_player()].act(state))
    raise AssertionError("no such decision in the game")


def test_greedy_smoke_lays_the_smoke_planners_advice_and_plays_greedy_where_there_is_none():
    from agent.players import GreedyPlayer
    from agent.smoke import plan_smoke
    from engine.scenario import load_scenario

    module = tournament()
    state = load_scenario("maps/met_le_mesnil.json").new_game(seed=1)
    greedy = {"gb": GreedyPlayer(3), "de": GreedyPlayer(4)}
    artillery = _first_decision(state, lambda s: s.current_player() == "gb" and s.phase == "artillery", greedy)
    advice = plan_smoke(artillery, "gb", method="greedy", ticks=module.SMOKE_TICKS, time_limit=None)
    assert advice.actions, "the 25-pounders' screen is advised at the first artillery decision"
    assert module.make_player("greedy-smoke", 3, 1.0).act(artillery) == advice.actions[0]
    assert GreedyPlayer(3).act(artillery) != advice.actions[0], "greedy would have fired HE"
    german = _first_decision(artillery, lambda s: s.current_player() == "de" and not s.smoke_options("de"), greedy)
    assert module.make_player("greedy-smoke", 3, 1.0).act(german) == GreedyPlayer(3).act(german)
