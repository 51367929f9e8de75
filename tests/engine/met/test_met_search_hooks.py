"""MET search hooks: plan_scope, resample_hidden (blinds, hidden declarations), features, describe."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
import shapely

from agent.players import RandomPlayer
from engine.rulesets.met.actions import End, Fire, Mission, Move
from engine.geometry import rectangle
from engine.rulesets.met.deviation import deviation_distribution
from engine.rulesets.met.hooks import exact_threat
from engine.rulesets.met.resolution import fire_number, hit_probability
from engine.scenario import load_scenario, parse_scenario

MAPS = Path(__file__).resolve().parents[3] / "maps"
MET_MAPS = sorted(p for p in MAPS.glob("met_*.json"))


def _walk(state, seed, steps, player=None):
    player = player or RandomPlayer(seed)
    done = 0
    while not state.is_terminal() and done < steps:
        if state.is_chance_node():
            state.apply_action(state.sample_chance())
            continue
        yield state
        state.apply_action(player.act(state))
        done += 1


def flipped_calm_bocage() -> tuple:
    """met_calm_bocage and a copy with other hidden truth: the PaK and the grenadiers swap
    blinds. Same markers on the table for gb."""
    data = json.loads((MAPS / "met_calm_bocage.json").read_text())
    flip = json.loads(json.dumps(data))
    units = {u["id"]: u for u in flip["units"]}
    units["de-pak-1"]["blind"], units["de-gren-1"]["blind"] = "de-b2", "de-b1"
    units["de-pak-1"]["position"], units["de-gren-1"]["position"] = units["de-gren-1"]["position"], units["de-pak-1"]["position"]
    return parse_scenario(json.dumps(data)), parse_scenario(json.dumps(flip))


def _signature(state):
    elements = tuple((e.id, e.position, e.blind, str(e.status), e.acted) for e in sorted(state.elements.values(), key=lambda e: e.id))
    blinds = tuple(sorted((b.id, b.position, b.dummy) for b in state.blinds.values()))
    return elements, blinds, state.stage, tuple(str(o) for _, o in state.orders), tuple(str(a) for a in state.legal_actions())


def _public(observation):
    return dataclasses.replace(observation, to_act=None, phase=None, own_orders=None)


@pytest.mark.parametrize("path", MET_MAPS, ids=lambda p: p.stem)
def test_resample_hidden_keeps_the_observation(path):
    state = load_scenario(path).new_game(seed=5)
    rng = np.random.default_rng(0)
    for k, seen in enumerate(_walk(state, 5, 60)):
        side = seen.current_player()
        world = seen.resample_hidden(side, rng)
        if world.current_player() == side:
            assert world.observation(side) == seen.observation(side)
            assert world.plan_scope(side) == seen.plan_scope(side)
        else:  # put back at the enemy's hidden declaration
            assert _public(world.observation(side)) == _public(seen.observation(side))
            assert world.current_player() == world.table.other(side) and seen.phase in ("fire", "artillery")
        if k % 20 == 0:
            other = world.clone()
            player = RandomPlayer(k)
            while not other.is_terminal():
                other.apply_action(other.sample_chance() if other.is_chance_node() else player.act(other))


def test_resample_hidden_never_reads_the_dummies():
    first, second = (s.new_game(seed=2) for s in flipped_calm_bocage())
    assert first.observation("gb") == second.observation("gb")
    assert first.observation("de") != second.observation("de")
    for seed in range(5):
        a = first.resample_hidden("gb", np.random.default_rng(seed))
        b = second.resample_hidden("gb", np.random.default_rng(seed))
        assert _signature(a) == _signature(b)


def test_a_blind_that_moved_is_real():
    """A dummy never moves (only elements move in MET), so a marker off its start hides an element."""
    state = load_scenario(MAPS / "met_calm_bocage.json").new_game(seed=1)
    # de moves the grenadiers under de-b2 in its movement
    while not (state.current_player() == "de" and state.phase == "move"):
        state.apply_action(state.sample_chance() if state.is_chance_node() else End())
    move = next(a for a in state.legal_actions() if isinstance(a, Move) and a.element == "de-gren-1")
    state.apply_action(move)
    rng = np.random.default_rng(3)
    for _ in range(50):
        world = state.resample_hidden("gb", rng)
        assert not world.blinds["de-b2"].dummy
        assert any(e.blind == "de-b2" for e in world.elements.values())


def test_hidden_declarations_are_withdrawn_and_replayed():
    """MET-19: the second side does not see the first side's fire orders of this phase."""
    state = load_scenario(MAPS / "met_calm_bocage.json").new_game(seed=1)
    rng = np.random.default_rng(0)
    player = RandomPlayer(0)
    while not (state.phase == "fire" and state.current_player() == "de" and any(s == "gb" for s, _ in state.orders)):
        if state.is_terminal():
            pytest.skip("no fire declared in this game")
        state.apply_action(state.sample_chance() if state.is_chance_node() else player.act(state))
    world = state.resample_hidden("de", rng)
    assert world.current_player() == "gb" and world.phase == "fire"
    assert not [o for s, o in world.orders if s == "gb"]
    assert [o for s, o in state.orders if s == "gb"]  # the true state keeps them


def test_features_are_antisymmetric():
    state = load_scenario(MAPS / "met_le_mesnil.json").new_game(seed=3)
    a, b = state.table.sides
    for seen in _walk(state, 3, 80):
        fa, fb = seen.features(a), seen.features(b)
        for key in ("morale", "objectives", "pressure", "risk", "fire", "material", "volley", "collapse"):
            assert fa[key] == pytest.approx(-fb[key])


def test_material_counts_elements_still_fighting_by_status():
    """met_strong_ridge: de fields a Panther, a Panzer IV and grenadiers, gb a 6-pounder, a
    section and what else its order of battle holds; batteries never count. A suppressed element
    counts 0.85, a neutralised one 0.6, a destroyed one nothing (1 less its risk share)."""
    from engine.rulesets.met.resolution import Status

    state = load_scenario(MAPS / "met_strong_ridge.json").new_game(seed=1)
    fighting = {side: sum(1 for e in state.elements.values() if e.side == side and not e.is_battery)
                for side in state.table.sides}
    assert state.features("de")["material"] == pytest.approx(fighting["de"] - fighting["gb"])
    state.elements["de-panther-1"].status = Status.SUPPRESSED
    state.elements["de-pz-1"].status = Status.NEUTRALISED
    state.elements["de-gren-1"].status = Status.DESTROYED
    assert state.features("de")["material"] == pytest.approx(0.85 + 0.6 + 0.0 - fighting["gb"])
    assert state.features("gb")["material"] == pytest.approx(fighting["gb"] - 1.45)


def _he_harm(state, action):
    """Expected hits on located enemy elements of HE at a point: MET-2 deviation x beaten zone x d10."""
    side = state.current_player()
    battery = state.elements[action.battery]
    total = 0.0
    for deviation, p in deviation_distribution(rules=state.rules).items():
        centre = (action.x + deviation.offset[0], action.y + deviation.offset[1])
        zone = rectangle(centre, *state.beaten_zone(battery), state.table.line_of_fire[side])
        for e in state.elements.values():
            if e.side == side or not e.on_table or not e.alive or e.blind is not None:
                continue
            if zone.covers(shapely.Point(e.position)):
                cover = state.in_cover(e.id) and state.rules.setting("artillery_cover_applies")
                total += float(p) * float(hit_probability(fire_number(int(battery.card["fn"]), False, cover, state.rules)))
    return total


def test_describe_fire_and_he_are_exact():
    state = load_scenario(MAPS / "met_le_mesnil.json").new_game(seed=3)
    fires = he = 0
    for seen in _walk(state, 3, 200):
        actions = seen.legal_actions()
        for action, info in zip(actions, seen.describe_actions(actions)):
            if isinstance(action, Fire):
                assert info["harm"] == pytest.approx(float(exact_threat(seen, action.element, action.target)))
                fires += 1
            if isinstance(action, Mission) and action.kind == "he" and he < 8 and info["harm"] > 0:
                assert info["harm"] == pytest.approx(_he_harm(seen, action), rel=1e-9)
                he += 1
    assert fires > 0 and he > 0


def test_met_18_volley_steps_a_target_once_per_hit():
    """Two shots at 0.6 on an OK element: no hit 0.16, one 0.48 (suppressed, 0.15), two 0.36
    (neutralised, 0.4): 0.48 x 0.15 + 0.36 x 0.4 = 0.216. On a neutralised element one hit
    destroys it (1.0 - 0.4) and a second adds nothing: 0.84 x 0.6 = 0.504."""
    from engine.rulesets.met.resolution import Status
    from engine.rulesets.met.search_hooks import _harm

    assert _harm(Status.OK, (0.6, 0.6)) == pytest.approx(0.216)
    assert _harm(Status.NEUTRALISED, (0.6, 0.6)) == pytest.approx(0.504)
    assert _harm(Status.OK, ()) == 0.0


def test_met_18_volley_harm_matches_every_pattern_of_hits():
    """The Poisson-binomial count against enumerating each shot's hit or miss."""
    import itertools

    from engine.rulesets.met.resolution import Status, after_hits
    from engine.rulesets.met.search_hooks import _SHARE, _harm

    rng = np.random.default_rng(7)
    for status in Status:
        for n in range(5):
            hits = tuple(sorted(rng.uniform(0.05, 0.95, n)))
            expected = 0.0
            for pattern in itertools.product((0, 1), repeat=n):
                p = float(np.prod([q if h else 1 - q for q, h in zip(hits, pattern)]))
                expected += p * (_SHARE[after_hits(status, sum(pattern))] - _SHARE[status])
            assert _harm(status, hits) == pytest.approx(expected)


def _best_sharing(state, side, loss):
    """Brute force: every shooter at every located target (or none), the best total harm."""
    import itertools

    from engine.rulesets.met.search_hooks import _harm

    shooters = [e for e in state.elements.values() if e.side == side and e.on_table and e.can_act]
    targets = [t for t in state.elements.values()
               if t.side != side and t.on_table and t.alive and t.blind is None and not t.is_battery]
    odds = {(f.id, t.id): float(exact_threat(state, f.id, t.id)) for f in shooters for t in targets}
    best = 0.0
    for sharing in itertools.product(range(len(targets) + 1), repeat=len(shooters)):
        total = 0.0
        for j, t in enumerate(targets):
            hits = tuple(sorted(odds[f.id, t.id] for f, a in zip(shooters, sharing) if a == j and odds[f.id, t.id] > 0))
            total += _harm(t.status, hits)
        best = max(best, total)
    return loss * best


@pytest.mark.parametrize("path", MET_MAPS, ids=lambda p: p.stem)
def test_met_18_volley_is_the_best_sharing_of_the_shots(path):
    """The volley's value is the best of every way to share the shots (brute force, shooters that
    may also hold their fire) at positions of a played game; the greedy sharing used beyond the
    limit never beats it; the ``volley`` feature is ours less theirs. On met_le_mesnil's first
    position both PaK 40s do best on one target."""
    from engine.rulesets.met.search_hooks import _Odds, _volley

    state = load_scenario(path).new_game(seed=5)
    looked = 0
    for seen in _walk(state, 3, 120):
        if looked % 6 == 0:
            exact = {}
            for side in seen.table.sides:
                exact[side] = _volley(_Odds.of(seen, side), 2.0)
                assert exact[side] == pytest.approx(_best_sharing(seen, side, 2.0))
                assert _volley(_Odds.of(seen, side), 2.0, limit=0) <= exact[side] + 1e-12
            gb, de = seen.table.sides
            assert seen.features(gb)["volley"] == pytest.approx(exact[gb] - exact[de])
        looked += 1
    if path.stem == "met_le_mesnil":
        first = load_scenario(path).new_game(seed=5)
        assert _volley(_Odds.of(first, "de"), 2.0) == pytest.approx(2.0 * 0.216)


def _aimed(status_hits):
    """A stand-in for :class:`_Odds`: targets with these statuses, each shooter's reach."""
    from types import SimpleNamespace

    from engine.rulesets.met.search_hooks import _Odds

    statuses, reach = status_hits
    return _Odds(tuple(SimpleNamespace(status=s) for s in statuses), tuple(tuple(shots) for shots in reach))


D3 = ((1, 1 / 3), (2, 1 / 3), (3, 1 / 3))


def test_met_21_collapse_is_the_chance_the_volley_takes_the_last_morale_point():
    """Three shots at 0.6 on a fresh Sherman destroy it (three hits, MET-18) with 0.216; its side
    then rolls a D3: with 3 points left it collapses on a 3 (0.072), with 2 on a 2 or 3, with 1
    always; at 0 it has collapsed already."""
    from engine.rulesets.met.resolution import Status
    from engine.rulesets.met.search_hooks import _collapse

    three = _aimed(([Status.OK], [[(0, 0.6)]] * 3))
    assert _collapse(three, 3, D3) == pytest.approx(0.072)
    assert _collapse(three, 2, D3) == pytest.approx(0.144)
    assert _collapse(three, 1, D3) == pytest.approx(0.216)
    assert _collapse(three, 0, D3) == 1.0
    assert _collapse(_aimed(([Status.OK], [])), 1, D3) == 0.0


def test_met_21_collapse_shares_the_shots_the_way_most_likely_to_end_it():
    """Two shooters at 0.5, two neutralised targets (one hit destroys), 3 points left. Both on one
    target: 0.75 x 1/3 = 0.25. One each: one destroyed (2 x 0.25) needs a 3, both (0.25) need
    anything but 1 and 1: 0.5 / 3 + 0.25 x 8/9 = 7/18, the better sharing."""
    from engine.rulesets.met.resolution import Status
    from engine.rulesets.met.search_hooks import _collapse

    both = [(0, 0.5), (1, 0.5)]
    assert _collapse(_aimed(([Status.NEUTRALISED] * 2, [both, both])), 3, D3) == pytest.approx(7 / 18)
    assert _collapse(_aimed(([Status.NEUTRALISED] * 2, [[(0, 0.5)], [(0, 0.5)]])), 3, D3) == pytest.approx(0.25)


def _collapse_by_brute_force(state, side, morale):
    """Every shooter at every located target or none; every hit or miss of every shot; every roll
    of the morale die for each element destroyed: the best chance of taking ``morale`` points."""
    import functools
    import itertools

    from engine.rulesets.met.resolution import Status, after_hits

    shooters = [e for e in state.elements.values() if e.side == side and e.on_table and e.can_act]
    targets = [t for t in state.elements.values()
               if t.side != side and t.on_table and t.alive and t.blind is None and not t.is_battery]
    odds = {(f.id, t.id): float(exact_threat(state, f.id, t.id)) for f in shooters for t in targets}
    shooters = [f for f in shooters if any(odds[f.id, t.id] > 0 for t in targets)]

    def destroyed(status, shots):
        total = 0.0
        for pattern in itertools.product((0, 1), repeat=len(shots)):
            if after_hits(status, sum(pattern)) is Status.DESTROYED:
                total += float(np.prod([p if h else 1 - p for p, h in zip(shots, pattern)]))
        return total

    @functools.lru_cache(maxsize=None)
    def collapse(chances):
        total = 0.0
        for fates in itertools.product((0, 1), repeat=len(chances)):
            weight = float(np.prod([c if f else 1 - c for c, f in zip(chances, fates)]))
            if weight == 0.0:
                continue
            for rolls in itertools.product((1, 2, 3), repeat=sum(fates)):
                if sum(rolls) >= morale:
                    total += weight / 3 ** len(rolls)
        return total

    best = 0.0
    for sharing in itertools.product(range(len(targets) + 1), repeat=len(shooters)):
        chances = tuple(sorted(destroyed(t.status, [odds[f.id, t.id] for f, a in zip(shooters, sharing) if a == j])
                               for j, t in enumerate(targets)))
        best = max(best, collapse(chances))
    return best


@pytest.mark.parametrize("path", MET_MAPS, ids=lambda p: p.stem)
def test_met_21_collapse_matches_a_brute_force_over_sharings_hits_and_rolls(path):
    """At positions of a played game, each side's chance of collapsing the other with its next
    volley equals the brute force over every sharing (holding fire allowed), every pattern of
    hits and every roll of the morale die; so does the ``collapse`` feature, ours less theirs."""
    import itertools

    from engine.rulesets.met.search_hooks import _collapse, _Odds

    looked = checked = 0
    walks = (_walk(load_scenario(path).new_game(seed=5), walk, 240) for walk in (2, 3))
    for seen in itertools.chain.from_iterable(walks):
        if looked % 4 == 0:
            chance = {}
            for side in seen.table.sides:
                enemy = seen.table.other(side)
                chance[side] = _collapse(_Odds.of(seen, side), int(seen.morale[enemy]), D3)
                assert chance[side] == pytest.approx(_collapse_by_brute_force(seen, side, int(seen.morale[enemy])))
                checked += chance[side] > 0
            gb, de = seen.table.sides
            assert seen.features(gb)["collapse"] == pytest.approx(chance[gb] - chance[de])
        looked += 1
    assert checked, "no position where a volley could end the game: the test would check nothing but zeros"


@pytest.mark.parametrize("path", MET_MAPS, ids=lambda p: p.stem)
def test_met_18_direct_threats_are_exact_threat_of_every_pair(path):
    """The bulk threats a leaf reads are exact_threat's, pair by pair, at every position of a
    greedy game (smoke, cover, partial sight, range, suppression and losses come up along it;
    random play rarely comes within sight): the same non-zero chances, and every pair left out
    is one exact_threat gives 0."""
    from agent.players import GreedyPlayer
    from engine.rulesets.met.hooks import direct_threats

    state = load_scenario(path).new_game(seed=11)
    pairs = nonzero = 0
    for seen in _walk(state, 0, 30, GreedyPlayer(1)):
        for side in seen.table.sides:
            targets = [t for t in seen.elements.values()
                       if t.side != side and t.on_table and t.alive and t.blind is None and not t.is_battery]
            shooters = [f for f in seen.elements.values() if f.side == side and f.on_table and f.can_act]
            expected = []
            for f in shooters:
                odds = tuple((j, float(exact_threat(seen, f.id, t.id))) for j, t in enumerate(targets))
                odds = tuple((j, p) for j, p in odds if p > 0.0)
                if odds:
                    expected.append(odds)
                pairs += len(targets)
                nonzero += len(odds)
            assert direct_threats(seen, side, targets) == tuple(expected)
    assert nonzero > 0 and pairs > nonzero
