"""The AI (SearchPlayer): deterministic for a seed, blind to hidden facts, anytime, plays legally."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest

from agent.players import GreedyPlayer, RandomPlayer, SearchPlayer
from agent.search import MacroSearch, SearchConfig
from engine.scenario import load_scenario, parse_scenario

MAPS = Path(__file__).resolve().parents[3] / "maps"


def _decision(path, seed=1, skip=0):
    """A state at a decision with a choice, after ``skip`` random decisions."""
    state = load_scenario(path).new_game(seed=seed)
    player = RandomPlayer(seed)
    done = 0
    while True:
        if state.is_chance_node():
            state.apply_action(state.sample_chance())
            continue
        if done >= skip and len(state.legal_actions()) > 1:
            return state
        state.apply_action(player.act(state))
        done += 1


def _plan_text(player, state):
    return [(str(step.action), step.reason) for step in player.plan(state)]


@pytest.mark.parametrize("name,skip", [("chq_tot_crossroads", 6), ("met_le_mesnil", 5)])
def test_search_is_deterministic_for_a_seed(name, skip):
    state = _decision(MAPS / f"{name}.json", skip=skip)
    first = SearchPlayer(seed=7, iterations=12, time_per_decision=None)
    second = SearchPlayer(seed=7, iterations=12, time_per_decision=None)
    assert _plan_text(first, state) == _plan_text(second, state)
    assert [(p.actions, v) for p, v, _ in first.last.candidates] == [(p.actions, v) for p, v, _ in second.last.candidates]
    alone = len(first.last.candidates) == 1  # a lone plan is simulated only for its value
    assert first.last.iterations == (SearchConfig().lone_rounds if alone else 12)


def test_search_leaves_the_state_alone():
    state = _decision(MAPS / "chq_smoke_advance.json", skip=4)
    before = (repr(state.observation(state.current_player())), [str(a) for a in state.legal_actions()],
              state.rng.bit_generator.state["state"]["state"])
    SearchPlayer(seed=1, iterations=6, time_per_decision=None).plan(state)
    after = (repr(state.observation(state.current_player())), [str(a) for a in state.legal_actions()],
             state.rng.bit_generator.state["state"]["state"])
    assert before == after


# ------------------------------------------------------------------------ never reads hidden facts
def _flip_chq(tmp_path):
    """chq_blind_barrage, and a copy in which the rifles hide under the Blind that was a dummy."""
    data = json.loads((MAPS / "chq_blind_barrage.json").read_text())
    flip = json.loads(json.dumps(data))
    blinds = {b["id"]: b for b in flip["blinds"]}
    rifle = next(u for u in flip["units"] if u["id"] == "de-rifle-1")
    rifle["blind"], rifle["position"] = "de-b3", list(blinds["de-b3"]["position"])
    blinds["de-b3"]["dummy"], blinds["de-b1"]["dummy"] = False, True
    return parse_scenario(json.dumps(data)), parse_scenario(json.dumps(flip))


def _flip_met():
    """met_calm_bocage, and a copy in which the PaK and the grenadiers swap blinds."""
    data = json.loads((MAPS / "met_calm_bocage.json").read_text())
    flip = json.loads(json.dumps(data))
    units = {u["id"]: u for u in flip["units"]}
    units["de-pak-1"]["blind"], units["de-gren-1"]["blind"] = "de-b2", "de-b1"
    units["de-pak-1"]["position"], units["de-gren-1"]["position"] = units["de-gren-1"]["position"], units["de-pak-1"]["position"]
    return parse_scenario(json.dumps(data)), parse_scenario(json.dumps(flip))


def _same_public_start(pair, side, seed):
    """Both games at the same public position: the same dice and the same orders of ``side``'s
    enemy until ``side`` first decides with a choice (the enemy's orders may not depend on the
    truth it alone knows, so they are the first game's, replayed)."""
    first, second = (scenario.new_game(seed=seed) for scenario in pair)
    while first.is_chance_node() or first.current_player() != side or len(first.legal_actions()) < 2:
        action = first.sample_chance() if first.is_chance_node() else first.legal_actions()[0]
        first.apply_action(action)
        second.apply_action(action)
    assert first.observation(side) == second.observation(side)
    return first, second


@pytest.mark.parametrize("ruleset", ["chq", "met"])
def test_search_never_reads_the_enemys_hidden_facts(ruleset, tmp_path):
    pair = _flip_chq(tmp_path) if ruleset == "chq" else _flip_met()
    side = "gb"
    first, second = _same_public_start(pair, side, seed=3)
    # the truths differ where it matters: the enemy's own view, and what a peek would score
    enemy = "de"
    assert first.observation(enemy) != second.observation(enemy)
    assert [u.pos for u in first.units.values()] != [u.pos for u in second.units.values()] if ruleset == "chq" else (
        [e.position for e in first.elements.values()] != [e.position for e in second.elements.values()])
    a = SearchPlayer(seed=11, iterations=10, time_per_decision=None)
    b = SearchPlayer(seed=11, iterations=10, time_per_decision=None)
    assert _plan_text(a, first) == _plan_text(b, second)
    assert [(p.actions, v, m) for p, v, m in a.last.candidates] == [(p.actions, v, m) for p, v, m in b.last.candidates]
    assert GreedyPlayer(seed=2).act(first) == GreedyPlayer(seed=2).act(second)


@pytest.mark.parametrize("ruleset", ["chq", "met"])
def test_the_flip_test_catches_a_peek(ruleset, tmp_path, monkeypatch):
    """The same flip tells a search that peeks apart: with worlds that are plain clones of the
    true state, the two truths give different search statistics."""
    pair = _flip_chq(tmp_path) if ruleset == "chq" else _flip_met()
    first, second = _same_public_start(pair, "gb", seed=3)
    monkeypatch.setattr(type(first), "resample_hidden", lambda self, side, rng: self.clone())
    a = SearchPlayer(seed=11, iterations=10, time_per_decision=None)
    b = SearchPlayer(seed=11, iterations=10, time_per_decision=None)
    a.plan(first)
    b.plan(second)
    assert [(p.actions, v, m) for p, v, m in a.last.candidates] != [(p.actions, v, m) for p, v, m in b.last.candidates]


# ------------------------------------------------------------------------ budgets
def test_time_budget_is_anytime():
    state = _decision(MAPS / "chq_saint_aubin.json", skip=8)
    player = SearchPlayer(seed=0, time_per_decision=0.4)
    start = time.perf_counter()
    steps = player.plan(state)
    elapsed = time.perf_counter() - start
    assert state.is_legal(steps[0].action)
    assert elapsed < 0.4 * 1.5  # generous: a timed test must not be flaky; the benchmark is strict
    assert player.last.plan is not None  # the greedy plan, whole or cut short, if nothing had time to beat it


def test_the_search_gets_what_is_left_of_the_orders_budget(monkeypatch):
    """Time spent on the order before the search (here a slow first look at the legal orders)
    comes off the search's budget: the order's clock starts when the order is asked for."""
    import agent.players.search as player_module

    state = _decision(MAPS / "met_calm_bocage.json", skip=2)
    given = []
    run = MacroSearch.run

    def spy(self, *args, **kwargs):
        given.append(kwargs["seconds"])
        return run(self, *args, **kwargs)

    monkeypatch.setattr(player_module.MacroSearch, "run", spy)
    slow_state = type(state)
    legal = slow_state.legal_actions

    def slow_legal(self):
        time.sleep(0.3)
        return legal(self)

    monkeypatch.setattr(slow_state, "legal_actions", slow_legal)
    before = time.perf_counter()
    SearchPlayer(seed=0, time_per_decision=0.5).act(state)
    assert len(given) == 1 and given[0] <= 0.5 - 0.3 + 1e-6
    assert given[0] >= 0.5 - (time.perf_counter() - before)  # the budget less what was spent, no less


def _telling_chance_node(path, value, limit=12):
    """A state at a chance node with at most ``limit`` outcomes whose ``value`` differ (a roll
    that matters), reached by random play; with each outcome's probability and value."""
    state = load_scenario(path).new_game(seed=1)
    player = RandomPlayer(1)
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            if 2 <= len(outcomes) <= limit:
                values = []
                for outcome, p in outcomes:
                    child = state.clone()
                    child.apply_action(outcome)
                    values.append((float(p), value(child)))
                if len({v for _, v in values}) > 1:
                    return state, values
            state.apply_action(state.sample_chance())
        else:
            state.apply_action(player.act(state))
    raise AssertionError("no small chance node whose outcomes matter")


def test_a_leafs_chance_outcomes_are_valued_exactly_with_the_deadline_looked_at_between_them():
    from agent.search.chance import expected_leaf
    from agent.search.evaluation import evaluate
    from agent.search.macro import OutOfTime

    def value(s):
        return evaluate(s, "us")

    state, values = _telling_chance_node(MAPS / "chq_smoke_advance.json", value)
    assert expected_leaf(state, value, 12) == pytest.approx(sum(p * v for p, v in values), abs=1e-12)

    valued = []
    looks = []

    def counting(s):
        valued.append(s)
        return 0.0

    def deadline():
        looks.append(len(valued))
        if len(looks) > 2:
            raise OutOfTime

    with pytest.raises(OutOfTime):
        expected_leaf(state, counting, 12, check=deadline)
    assert looks == [0, 1, 2] and len(valued) == 2  # stopped before the third outcome was valued


def test_an_order_leaves_what_was_alive_before_it_out_of_the_collectors_scans(monkeypatch):
    """A full garbage collection during an order scans only what the order made: the process's
    long-lived objects are frozen while the search runs and put back after."""
    import gc

    state = _decision(MAPS / "met_calm_bocage.json", skip=2)
    frozen_during = []
    run = MacroSearch.run

    def spy(self, *args, **kwargs):
        frozen_during.append(gc.get_freeze_count())
        return run(self, *args, **kwargs)

    monkeypatch.setattr(MacroSearch, "run", spy)
    alive = len(gc.get_objects())
    player = SearchPlayer(seed=0, time_per_decision=None, iterations=4)
    player.act(state)
    player.plan(state)
    assert len(frozen_during) == 2 and min(frozen_during) >= alive // 2  # the process's objects, frozen
    assert gc.get_freeze_count() == 0  # and put back once the order is given


def test_an_order_leaves_someone_elses_frozen_objects_frozen():
    import gc

    state = _decision(MAPS / "met_calm_bocage.json", skip=2)
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        SearchPlayer(seed=0, time_per_decision=None, iterations=4).act(state)
        assert gc.get_freeze_count() > frozen // 2  # not put back by us (objects freed meanwhile leave it)
    finally:
        gc.unfreeze()


def test_an_iteration_budget_runs_exactly_that_many():
    state = _decision(MAPS / "met_calm_bocage.json", skip=2)
    search = MacroSearch(state.current_player(), np.random.default_rng(0), config=SearchConfig())
    result = search.run(state, iterations=9, seconds=None)
    assert result.iterations == 9
    assert sum(v for _, v, _ in result.candidates) == 9


def test_plan_gives_the_whole_scope_with_reasons():
    state = _decision(MAPS / "chq_smoke_advance.json", skip=3)
    steps = SearchPlayer(seed=2, iterations=8, time_per_decision=None).plan(state)
    assert len(steps) >= 2 and all(step.reason for step in steps)
    assert "simulations" in steps[0].reason
    assert state.is_legal(steps[0].action)


def test_a_plan_chosen_before_any_simulation_shows_no_value():
    """When making the greedy plan took the whole order, the reason says so rather than showing
    a value of +0.00 over 0 simulations."""
    from dataclasses import replace

    from agent.players.search import reason_header

    state = _decision(MAPS / "chq_smoke_advance.json", skip=3)
    player = SearchPlayer(seed=2, iterations=8, time_per_decision=None)
    player.plan(state)
    searched = player.last
    assert reason_header(searched) == (f"{searched.plan.label} [{searched.plan.source}; value "
                                       f"{searched.value:+.2f} over 8 simulations]")
    unsimulated = reason_header(replace(searched, value=0.0, iterations=0))
    assert unsimulated.endswith("; not simulated: making it took the order's time]")
    assert "+0.00" not in unsimulated


def test_search_needs_a_budget():
    with pytest.raises(ValueError):
        SearchPlayer(time_per_decision=None, iterations=None)


@pytest.mark.parametrize("name", ["chq_saint_aubin", "met_le_mesnil"])
def test_with_no_time_at_all_the_ai_still_plays_a_legal_order(name):
    """A budget too small to weigh one plan degrades to the posture's own order, never an error."""
    state = _decision(MAPS / f"{name}.json", skip=4)
    player = SearchPlayer(seed=0, time_per_decision=1e-9)
    action = player.act(state.clone())
    assert state.is_legal(action)
    steps = player.plan(state)
    assert state.is_legal(steps[0].action)


def _simulator(side, seed, closed_loop=True):
    from agent.search.chance import ChanceResolver
    from agent.search.macro import Simulator
    from agent.search.policy import BALANCED, PosturePolicy

    policy = PosturePolicy(BALANCED)
    return Simulator(side, ChanceResolver(np.random.default_rng(seed)), policy, policy, closed_loop=closed_loop)


@pytest.mark.parametrize("name,skip", [("chq_smoke_advance", 2), ("chq_smoke_advance", 3), ("met_le_mesnil", 5)])
def test_a_closed_loop_plan_answers_the_dice(name, skip):
    """Played in a world whose dice differ from the recording's, a posture plan makes every
    decision as its posture would in the position reached: the same game as the posture itself.
    (On the CHQ positions replaying the recorded orders gives another game.)"""
    from agent.search.policy import POSTURES, PosturePolicy

    state = _decision(MAPS / f"{name}.json", skip=skip)
    side = state.current_player()
    advance = PosturePolicy(POSTURES["advance"])
    plan = _simulator(side, 1).record_plan(state, side, advance, label="advance")
    played, reference = state.clone(), state.clone()
    _simulator(side, 99).play_plan(played, side, plan)
    _simulator(side, 99).play_scope(reference, side, advance.choose)
    seen = lambda world: [repr(world.observation(s)) for s in sorted({side, *world.returns()})]  # noqa: E731
    assert seen(played) == seen(reference) != seen(state)
    if name.startswith("chq"):
        replayed = state.clone()
        _simulator(side, 99, closed_loop=False).play_plan(replayed, side, plan)
        assert seen(replayed) != seen(reference)



def test_the_anchor_gives_way_only_to_a_plan_that_beats_it_round_by_round():
    """Paired test over the rounds both plans were simulated in (same worlds, same dice): a
    steady small gain wins, the same mean made of one lucky round does not, nor does one round."""
    from agent.search.macro import Plan
    from agent.search.mcts import PlanStats

    search = MacroSearch("us", np.random.default_rng(0), sources=[], config=SearchConfig(anchor_z=1.0, anchor_margin=0.01))
    plan = Plan((), "p", "movement")

    def stats(values):
        return PlanStats(plan, visits=len(values), total=sum(values), by_round=dict(enumerate(values)))

    anchor = stats([0.10, -0.20, 0.30, 0.00])
    assert search._beats(stats([0.15, -0.15, 0.35, 0.05]), anchor)  # +0.05 every round
    assert not search._beats(stats([0.90, -0.40, 0.10, -0.20]), anchor)  # +0.05 on average, all of it one lucky round
    assert not search._beats(stats([0.15]), anchor)  # one shared round says nothing
    assert not search._beats(stats([0.105, -0.195, 0.305, 0.005]), anchor)  # steady, but under the margin


def test_the_order_that_searched_plays_the_greedy_plans_recorded_first_order():
    """The search has had the order's time: a greedy plan's first order is the one the search
    recorded (the greedy choice in its first world), not a second look-ahead."""
    from agent.search.sources import GreedySource

    state = _decision(MAPS / "chq_saint_aubin.json", skip=3)
    player = SearchPlayer(seed=3, iterations=2, time_per_decision=None, sources=[GreedySource()])
    action = player.act(state)
    assert player.last.plan.source == "greedy"
    assert action == player.last.plan.steps[0].action


def test_the_order_that_searched_plays_a_posture_plans_recorded_first_order_too(monkeypatch):
    """Whatever plan wins, the order that searched does not look again: the posture's order
    recorded in the search's first world is played, and no world is drawn for a second look."""
    from agent.search.sources import MovementSource

    state = _decision(MAPS / "chq_saint_aubin.json", skip=3)
    player = SearchPlayer(seed=3, iterations=2, time_per_decision=None, sources=[MovementSource(("hold",))],
                          config=SearchConfig(anchor=None))
    looked_again = []
    monkeypatch.setattr(SearchPlayer, "_complete", lambda self, *a: looked_again.append(a))
    action = player.act(state)
    assert player.last.plan.source == "movement" and player.last.plan.follow == "posture"
    assert action == player.last.plan.steps[0].action and not looked_again


def test_a_greedy_order_out_of_time_gives_way_to_the_plans_posture(monkeypatch):
    from agent.players.greedy import GreedyPolicy
    from agent.search.macro import OutOfTime, Plan

    state = _decision(MAPS / "chq_saint_aubin.json", skip=8)
    player = SearchPlayer(seed=3, time_per_decision=1.0)
    player._plan = Plan((), "greedy", "greedy", follow="greedy")
    cut = []
    ranked = GreedyPolicy.ranked

    def spy(self, world, **options):
        try:
            return ranked(self, world, **options)
        except OutOfTime:
            cut.append(world)
            raise

    monkeypatch.setattr(GreedyPolicy, "ranked", spy)
    player._began = time.perf_counter() - 2.0  # this order's second is long gone
    assert state.is_legal(player._complete(state, state.current_player()))
    assert len(cut) == 1
    player.time_per_decision, player._began = 60.0, time.perf_counter()  # with time, the look-ahead runs to the end
    assert state.is_legal(player._complete(state, state.current_player()))
    assert len(cut) == 1


def test_a_greedy_plan_cut_short_before_its_first_order_stays_the_anchor():
    """Out of time before the greedy choice has given one order, the greedy plan is still kept
    (empty: the greedy choice makes every order when it is played), so the search keeps its
    anchor; a posture's plan with nothing recorded is dropped, as before."""
    from agent.players.greedy import GreedyPolicy
    from agent.search.macro import OutOfTime
    from agent.search.policy import BALANCED, PosturePolicy

    state = _decision(MAPS / "chq_saint_aubin.json", skip=8)
    search = MacroSearch(state.current_player(), np.random.default_rng(0))
    world = search.world(state)
    search.sim.deadline = time.perf_counter() - 1.0
    partials = {}
    for name, policy in (("greedy", GreedyPolicy(np.random.default_rng(0), check=search.sim.check)),
                         ("movement", PosturePolicy(BALANCED))):
        search.sim.partials = []
        with pytest.raises(OutOfTime):
            search.sim.record_plan(world, search.side, policy, source=name)
        partials[name] = search.sim.partials
    assert partials["movement"] == []
    [plan] = partials["greedy"]
    assert plan.steps == () and plan.follow == "greedy" and plan.source == "greedy"


def test_a_lone_candidate_is_simulated_only_for_its_value():
    """With one plan there is nothing to choose: the search stops after ``lone_rounds``
    simulations, well inside its budget, instead of simulating the one plan for a second."""
    from agent.search.sources import GreedySource

    state = _decision(MAPS / "met_calm_bocage.json", skip=2)
    search = MacroSearch(state.current_player(), np.random.default_rng(0), sources=[GreedySource()],
                         config=SearchConfig(lone_rounds=3))
    result = search.run(state, iterations=50, seconds=None)
    assert len(result.candidates) == 1
    assert result.iterations == 3 and result.candidates[0][1] == 3


def test_the_greedy_plans_alternatives_are_halved_among_themselves():
    """Halving keeps the better half of the planners' plans (at least two) and of the greedy
    plan's alternatives (at least one) apart: near copies of the anchor must not push the
    planners' plans out."""
    from agent.search.macro import Plan
    from agent.search.mcts import PlanStats, _halved
    from agent.search.sources import ALTERNATIVE

    def stats(source, mean, label):
        return PlanStats(Plan((), label, source), visits=2, total=2 * mean)

    alternatives = [stats(ALTERNATIVE, 0.30, "a1"), stats(ALTERNATIVE, 0.20, "a2"), stats(ALTERNATIVE, 0.25, "a3")]
    planners = [stats("barrage planner", -0.10, "p1"), stats("movement", -0.20, "p2"), stats("fire", -0.30, "p3")]
    kept = {e.plan.label for e in _halved(alternatives + planners)}
    assert kept == {"a1", "a3", "p1", "p2"}
    assert {e.plan.label for e in _halved(alternatives[:1] + planners[:2])} == {"a1", "p1", "p2"}


def test_the_enemys_replies_can_include_the_greedy_players_plan():
    """With ``greedy`` among ``enemy_postures`` the enemy's candidate replies in the tree are its
    postures and the greedy player's plan for its scope (an opponent that plays the best
    one-step order is modelled as doing so); without it, its postures only."""
    state = _decision(MAPS / "met_le_mesnil.json", skip=5)
    side = state.current_player()

    def enemy_sources(enemy_postures):
        search = MacroSearch(side, np.random.default_rng(0), config=SearchConfig(enemy_postures=enemy_postures))
        made = []
        candidates = search.candidates

        def recording(world, owner, sources):
            plans = candidates(world, owner, sources)
            if owner != side:
                made.append({(p.source, p.label.split(":")[0]) for p in plans})
            return plans

        search.candidates = recording
        search.run(state, iterations=40, seconds=None)
        return made

    with_greedy = enemy_sources(("hold", "greedy"))
    assert with_greedy and all(("greedy", "greedy") in plans for plans in with_greedy)
    assert all(source in ("movement", "greedy") for plans in with_greedy for source, _ in plans)
    postures_only = enemy_sources(("hold", "advance"))
    assert postures_only and all(plans <= {("movement", "hold"), ("movement", "advance")} for plans in postures_only)


def test_the_rollouts_can_be_played_by_the_greedy_choice(monkeypatch):
    """With ``rollout_policy="greedy"`` every order of a rollout is the greedy choice's; with the
    default, none is (the balanced posture plays them), and the search stays deterministic."""
    from agent.players.greedy import GreedyPolicy
    from agent.search.macro import Simulator

    state = _decision(MAPS / "met_calm_bocage.json", skip=4)
    side = state.current_player()
    calls = {"rollout": 0, "greedy in rollout": 0}
    choose, rollout = GreedyPolicy.choose, Simulator.rollout
    inside = []

    def counting_choose(self, world):
        calls["greedy in rollout"] += bool(inside)
        return choose(self, world)

    def marked_rollout(self, world, scopes):
        calls["rollout"] += 1
        inside.append(True)
        try:
            return rollout(self, world, scopes)
        finally:
            inside.pop()

    monkeypatch.setattr(GreedyPolicy, "choose", counting_choose)
    monkeypatch.setattr(Simulator, "rollout", marked_rollout)

    def decided(policy):
        calls.update({"rollout": 0, "greedy in rollout": 0})
        search = MacroSearch(side, np.random.default_rng(3), config=SearchConfig(rollout_policy=policy))
        result = search.run(state.clone(), iterations=16, seconds=None)
        return result.plan.actions, dict(calls)

    plan, greedy_calls = decided("greedy")
    assert greedy_calls["rollout"] > 0 and greedy_calls["greedy in rollout"] >= greedy_calls["rollout"]
    assert decided("greedy")[0] == plan
    assert decided("balanced")[1]["greedy in rollout"] == 0


def test_an_unknown_rollout_policy_is_named():
    state = _decision(MAPS / "met_calm_bocage.json", skip=4)
    with pytest.raises(ValueError, match="rollout_policy: expected greedy or a posture .* got 'smart'"):
        MacroSearch(state.current_player(), np.random.default_rng(0), config=SearchConfig(rollout_policy="smart"))


def test_the_greedy_plan_may_take_the_anchors_share_and_the_other_plans_get_what_is_left_of_theirs(monkeypatch):
    """On a clock that moves only when told: the greedy plan takes 0.6 of a 1 s budget, past the
    candidates' share (0.5) but inside the anchor's (0.9), so it is made whole, not cut short;
    the next source is then out of time and adds nothing, and the greedy plan is played."""
    from agent.players.base import PlannedAction
    from agent.search.macro import Plan

    clock = [100.0]
    monkeypatch.setattr(time, "perf_counter", lambda: clock[0])
    state = _decision(MAPS / "chq_saint_aubin.json", skip=8)
    order = state.legal_actions()[0]
    asked = []

    class Slow:
        name = "greedy"

        def plans(self, world, side, simulator, rng):
            clock[0] += 0.6
            simulator.check()
            return [Plan((PlannedAction(order, "slow but whole"),), "greedy, whole", "greedy", follow="greedy")]

    class Late:
        name = "movement"

        def plans(self, world, side, simulator, rng):
            asked.append(True)
            simulator.check()
            return [Plan((), "never made", "movement")]

    search = MacroSearch(state.current_player(), np.random.default_rng(0), sources=[Slow(), Late()])
    result = search.run(state, iterations=2, seconds=1.0)
    assert [plan.label for plan, _, _ in result.candidates] == ["greedy, whole"]
    assert asked == [True] and result.plan.actions == (order,)
    cut = MacroSearch(state.current_player(), np.random.default_rng(0), sources=[Slow(), Late()],
                      config=SearchConfig(anchor_share=0.5))
    assert cut.run(state, iterations=2, seconds=1.0).plan is None  # at the candidates' share, it was cut short
