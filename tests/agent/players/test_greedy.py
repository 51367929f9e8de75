"""GreedyPlayer: the best one-step expected value, exact over the chance nodes that follow."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agent.players import GreedyPlayer, RandomPlayer
from agent.players.greedy import observed_world
from agent.search.evaluation import evaluate
from engine.rulesets.chq.actions import Fire
from engine.scenario import load_scenario

from .test_search_crafted import smoke_position

MAPS = Path(__file__).resolve().parents[3] / "maps"


def _first_decision(wanted, what: str):
    """The first decision of a seeded random CHQ game for which ``wanted(state)`` holds."""
    state = load_scenario(MAPS / "chq_smoke_advance.json").new_game(seed=4)
    player = RandomPlayer(4)
    for _ in range(3000):
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply_action(state.sample_chance())
            continue
        if wanted(state):
            return state
        state.apply_action(player.act(state))
    raise AssertionError(f"no {what} found")


def _fire_decision():
    """A CHQ state where the side to move may fire (chance follows the fire at once)."""
    return _first_decision(lambda state: any(isinstance(a, Fire) for a in state.legal_actions()), "fire decision")


def test_greedy_is_legal_and_deterministic():
    state = _fire_decision()
    first, second = GreedyPlayer(seed=3), GreedyPlayer(seed=3)
    assert first.act(state) == second.act(state)
    assert state.is_legal(first.act(state))


def _exact(state, side):
    """The plain recursive expectation of the evaluation over every chance node from here."""
    if not state.is_chance_node():
        return evaluate(state, side)
    total = 0.0
    for outcome, p in state.chance_outcomes():
        child = state.clone()
        child.apply_action(outcome)
        total += float(p) * _exact(child, side)
    return total


def test_greedy_values_are_exact_expectations_over_the_next_chance_nodes():
    state = _fire_decision()
    side = state.current_player()
    greedy = GreedyPlayer(seed=0, enumerate_limit=10**6, max_branches=10**6)
    world = observed_world(state, side, greedy.rng)
    fire = next(a for a in world.legal_actions() if isinstance(a, Fire))
    child = world.clone()
    child.apply_action(fire)
    assert child.is_chance_node() and len(child.chance_outcomes()) > 1  # the fire's roll
    assert abs(greedy._expected(child, side, greedy.max_branches) - _exact(child, side)) < 1e-12
    # and the choice maximises those values
    chosen = greedy.act(state)
    values = dict((str(a), v) for a, v in greedy.last)
    assert values[str(chosen)] == max(values.values())


def test_greedy_lays_smoke_before_the_enemy_fires():
    """One step is enough to see that a screen takes the enemy's sight (the fire balance)."""
    state = smoke_position()
    greedy = GreedyPlayer(seed=0)
    action = greedy.act(state)
    assert type(action).__name__ in ("Grenade", "Launch", "Discharge")
    values = {str(a): v for a, v in greedy.last}
    assert values[str(action)] > values["hold gb-section-1"]


def test_greedy_reads_only_its_observation():
    """The world it looks ahead in is drawn from the observation (resample_hidden)."""
    state = load_scenario(MAPS / "met_calm_bocage.json").new_game(seed=2)
    world = observed_world(state, "gb", np.random.default_rng(5))
    assert world.observation("gb") == state.observation("gb")
    assert evaluate(world, "gb") == evaluate(observed_world(state, "gb", np.random.default_rng(5)), "gb")
    assert np.isfinite(evaluate(world, "gb"))



def test_a_search_deadline_reaches_inside_a_greedy_look_ahead():
    """The search's clock is read at every chance node of a look-ahead, not only between
    actions, so one deep expectation cannot run past a decision's budget."""
    from agent.players.greedy import GreedyPolicy

    state = _fire_decision()
    calls = []
    policy = GreedyPolicy(np.random.default_rng(0), check=lambda: calls.append(1))
    looked_at = len(policy.ranked(state))
    assert len(calls) >= 2 * looked_at  # before each action and again at each node of its expectation


def test_the_evaluation_scale_stretches_the_squashing_by_its_factor():
    """``Weights.scale`` divides the point value before the tanh: a position's value at scale 2
    is the ceiling times tanh of half the points over the ruleset's decisive difference."""
    import math

    from agent.search.evaluation import Weights, point_value

    state = _fire_decision()
    side = state.current_player()
    features = state.features(side)
    points = point_value(state, side, Weights(), features)
    assert points != 0.0
    for scale in (0.5, 2.0):
        weights = Weights(scale=scale)
        expected = weights.ceiling * math.tanh(points / (scale * features["scale"]))
        assert math.isclose(evaluate(state, side, weights), expected, rel_tol=1e-12)
    assert abs(evaluate(state, side, Weights(scale=2.0))) < abs(evaluate(state, side))


def test_the_evaluation_squashes_more_widely_with_more_of_the_game_left():
    """``Weights.early`` widens the squashing by ``early x remaining`` decisive differences: the
    same points are worth less early in the game, and nothing changes with none of it left."""
    import math

    from agent.search.evaluation import Weights, point_value

    state = _fire_decision()
    side = state.current_player()
    features = state.features(side)
    points = point_value(state, side, Weights(), features)
    assert points != 0.0 and 0.0 < features["remaining"] <= 1.0
    for early in (0.0, 1.5, 4.0):
        weights = Weights(early=early)
        width = features["scale"] * (1.0 + early * features["remaining"])  # scale 1 + early x remaining
        assert math.isclose(evaluate(state, side, weights), weights.ceiling * math.tanh(points / width), rel_tol=1e-12)
    assert abs(evaluate(state, side, Weights(early=1.5))) < abs(evaluate(state, side))


def test_the_evaluation_counts_material_in_proportion_to_the_game_left():
    """``Weights.material`` adds ``material x remaining x`` its weight to the point value: an
    element more still fighting is worth more early than late, and nothing with no game left."""
    from agent.search.evaluation import Weights, point_value
    from engine.rulesets.met.resolution import Status

    state = load_scenario(MAPS / "met_strong_ridge.json").new_game(seed=1)
    state.elements["gb-section-1"].status = Status.DESTROYED
    side = "de"
    features = state.features(side)
    assert features["material"] != 0.0 and 0.0 < features["remaining"] <= 1.0
    plain = point_value(state, side, Weights(), features)
    assert point_value(state, side, Weights(material=2.5), features) == pytest.approx(
        plain + 2.5 * features["remaining"] * features["material"])
    assert point_value(state, side, Weights(material=2.5), {**features, "remaining": 0.0}) == pytest.approx(
        point_value(state, side, Weights(), {**features, "remaining": 0.0}))


def test_the_evaluation_counts_the_volley_in_full():
    """``Weights.volley`` adds ``volley x`` its weight to the point value whatever is left of the
    game: the next direct fire comes this period. On met_le_mesnil's first position the PaK 40s
    can fire and the British cannot yet, so the volley is against the British."""
    from agent.search.evaluation import Weights, point_value

    state = load_scenario(MAPS / "met_le_mesnil.json").new_game(seed=1)
    features = state.features("gb")
    assert features["volley"] < 0.0
    plain = point_value(state, "gb", Weights(), features)
    for remaining in (features["remaining"], 0.0):
        seen = {**features, "remaining": remaining}
        assert point_value(state, "gb", Weights(volley=1.5), seen) == pytest.approx(
            point_value(state, "gb", Weights(), seen) + 1.5 * features["volley"])
    assert point_value(state, "gb", Weights(volley=1.5), features) < plain


def test_the_evaluation_counts_the_chance_of_a_collapse_as_decisive_differences():
    """``Weights.collapse`` adds its weight x ``scale`` (a decisive difference) x ``collapse``
    whatever is left of the game. At a position where the Germans' next volley may end it, the
    British value falls by exactly that much."""
    from agent.search.evaluation import Weights, point_value

    seen = {"morale": 1.0, "objectives": 0.0, "pressure": 0.0, "risk": 0.0, "fire": -0.7, "material": 0.0,
            "volley": -0.43, "collapse": -0.28, "remaining": 0.85, "scale": 3.0}
    state = load_scenario(MAPS / "met_le_mesnil.json").new_game(seed=1)
    assert set(seen) <= set(state.features("gb"))
    for remaining in (0.85, 0.0):
        features = {**seen, "remaining": remaining}
        assert point_value(state, "gb", Weights(collapse=2.0), features) == pytest.approx(
            point_value(state, "gb", Weights(), features) + 2.0 * 3.0 * -0.28)


def _opens_fire(state, action) -> bool:
    child = state.clone()
    child.apply_action(action)
    return not child.is_chance_node() and any(isinstance(a, Fire) for a in child.legal_actions())


def _group_pick_opening_fire():
    """A CHQ state where the side to move picks a group, and some group may then fire."""
    return _first_decision(lambda state: any(state.action_kind(a) == "group" and _opens_fire(state, a)
                                             for a in state.legal_actions()), "group pick that opens a fire")


def test_the_search_greedy_values_a_group_pick_by_the_best_order_it_opens():
    """A pick changes nothing at once; looked through, it is worth the best one-step order of
    the group it picks (checked against the plain recursive expectation), and the one-step
    player values it by the position unchanged."""
    from agent.players.greedy import GreedyPolicy

    state = _group_pick_opening_fire()
    side = state.current_player()
    exact = dict(enumerate_limit=10**6, max_branches=10**6, artillery_top=10**6)
    policy = GreedyPolicy(np.random.default_rng(0), look_branches=10**6, **exact)
    values = {str(a): v for v, a in policy.ranked(state)}
    one_step = GreedyPlayer(seed=0, **exact)
    one_step.policy.ranked(state)
    flat = {str(a): v for a, v in one_step.last}
    picks = [a for a in state.legal_actions() if state.action_kind(a) == "group"]
    assert len(picks) >= 2
    for pick in picks:
        child = state.clone()
        child.apply_action(pick)
        best = -2.0
        for opened in child.legal_actions():
            grandchild = child.clone()
            grandchild.apply_action(opened)
            best = max(best, _exact(grandchild, side))
        assert abs(values[str(pick)] - best) < 1e-12
        assert abs(flat[str(pick)] - evaluate(child, side)) < 1e-12
    assert len({round(values[str(p)], 9) for p in picks}) > 1  # looking through tells the groups apart


def test_a_deadline_stops_the_greedy_choice_while_it_describes_the_orders(monkeypatch):
    """Describing every order exactly can take seconds on a big board (hundreds of artillery
    calls): the greedy choice describes a few at a time and asks its ``check`` between, so a
    search's deadline stops it part way instead of after the whole list."""
    from agent.players.greedy import GreedyPolicy
    from agent.search.macro import OutOfTime

    state = load_scenario(MAPS / "met_le_mesnil.json").new_game(seed=1)
    while state.is_chance_node():
        state.apply_action(state.sample_chance())
    actions = state.legal_actions()
    assert len(actions) > 16
    described = []
    describe = type(state).describe_actions
    monkeypatch.setattr(type(state), "describe_actions",
                        lambda self, batch, detail=True: described.extend(batch) or describe(self, batch, detail))
    calls = []

    def check():
        calls.append(1)
        if len(calls) > 2:
            raise OutOfTime

    with pytest.raises(OutOfTime):
        GreedyPolicy(np.random.default_rng(0), check=check).ranked(state.clone())
    assert 0 < len(described) <= 16 < len(actions)
    # with no deadline the same ranking describes every order once
    described.clear()
    GreedyPolicy(np.random.default_rng(0)).ranked(state.clone(), look=False)
    assert len(described) >= len(actions)


def _spur_position():
    """MET: a rifle section in the open, its smoke spent, 600 m before a PaK 40 dug into a copse
    (out of the section's 300 m range, the section in the gun's); a spur that blocks sight but
    gives no cover rises 40 m to its east. The engine's lattice offers only holding or falling
    back 100 m, both still in the gun's sight."""
    from engine.rulesets.met.dischargers import Kit
    from tests.engine.met.helpers import box, feature, game, unit

    spur = feature("spur", "hill", box(540, 280, 660, 420), blocks=True, cover="none")
    copse = feature("copse", "woods", box(460, 860, 540, 940), blocks=False, cover="heavy")
    state = game([unit("gb-1", "Rifle Section", "gb", (500, 300)), unit("de-1", "PaK 40", "de", (500, 900), 180)],
                 terrain=[spur, copse], periods=4)
    section = state.elements["gb-1"]
    section.grenades, section.launcher = Kit.USED, Kit.EMPTY
    state._version += 1
    return state


def test_greedy_with_ring_moves_takes_the_section_out_of_the_guns_sight():
    from agent.players.greedy import GreedyPolicy
    from agent.search.destinations import NO_MORE_MOVES, RingMoves
    from engine.sight import SightStatus

    state = _spur_position()
    assert state.features("gb")["fire"] < 0, "the gun can hit the section, the section cannot reply"
    lattice = GreedyPolicy(np.random.default_rng(0), more=NO_MORE_MOVES).ranked(state.clone())
    ringed = GreedyPolicy(np.random.default_rng(0), more=RingMoves()).ranked(state.clone())
    assert all(state.action_kind(a) != "move" or a in state.legal_actions() for _, a in lattice)
    (best_lattice, _), (best, move) = lattice[0], ringed[0]
    assert move not in state.legal_actions() and state.is_legal(move)
    after = state.clone()
    after.apply_action(move)
    assert after.sight("de-1", "gb-1") is SightStatus.BLOCKED
    # hidden, the section is worth exactly nothing to either side's fire; in sight it loses
    assert best == pytest.approx(0.0, abs=1e-12) and best_lattice < 0.0


def test_a_deadline_among_the_orders_off_the_lattice_ranks_the_orders_weighed():
    """However early the deadline falls, the greedy choice either gives up inside the engine's
    own orders (the search then has its partial plan) or ranks all of them and the orders off
    the lattice it reached, in their order."""
    from agent.players.greedy import GreedyPolicy
    from agent.search.destinations import RingMoves
    from agent.search.macro import OutOfTime

    state = _spur_position()
    canonical = set(state.legal_actions())
    rings = RingMoves()(state)
    outcomes = set()
    for budget in range(1, 400, 7):
        calls = iter(range(budget))

        def check():
            if next(calls, None) is None:
                raise OutOfTime

        try:
            ranking = GreedyPolicy(np.random.default_rng(0), more=RingMoves(), check=check).ranked(state.clone())
        except OutOfTime:
            outcomes.add("gave up")
            continue
        weighed = {a for _, a in ranking}
        assert canonical <= weighed
        reached = [a for a in rings if a in weighed]
        assert reached == rings[: len(reached)]
        outcomes.add("all" if len(reached) == len(rings) else "some")
    assert outcomes == {"gave up", "some", "all"}


def test_ring_focus_weighs_the_rings_of_the_elements_leading_the_lattice_ranking_only():
    from agent.players.greedy import GreedyPolicy
    from agent.search.destinations import NO_MORE_MOVES, RingMoves
    from tests.engine.met.helpers import game, unit

    state = game([unit("gb-1", "Sherman V", "gb", (500, 300)), unit("gb-2", "Rifle Section", "gb", (300, 300)),
                  unit("de-1", "Panzer IV H", "de", (500, 700), 180)])
    canonical = state.legal_actions()
    lattice = GreedyPolicy(np.random.default_rng(0), more=NO_MORE_MOVES).ranked(state.clone())
    leaders = []
    for _, action in lattice:
        leaders += [a for a in state.describe_actions([action])[0].get("actors", ()) if a not in leaders]
    assert len(leaders) == 2

    def weighed_off_lattice(focus):
        policy = GreedyPolicy(np.random.default_rng(0), more=RingMoves(focus=focus))
        ranking = policy.ranked(state.clone())
        assert [(v, a) for v, a in ranking if a in canonical] == lattice, "the lattice's ranking is unchanged"
        return [a for a, _ in policy.last if a not in canonical]

    rings = RingMoves()
    assert weighed_off_lattice(1) == state.ring_moves(rings.rings, rings.bearings, {leaders[0]})
    assert weighed_off_lattice(2) == weighed_off_lattice(0) == state.ring_moves(rings.rings, rings.bearings)
