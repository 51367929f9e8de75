"""The visibility graph (agent/visibility.py) against the rulesets' own sight, fire and threat.

Every check is made on real maps of both rulesets, at the start and in positions reached by
random play, against what the engine itself decides: CHQ ``sight`` / ``fire_params`` / ``threat``,
MET ``sight`` / ``threat``, and screens laid by real actions.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from agent.players import RandomPlayer
from agent.visibility import (
    CutLines,
    enemies_seeing_route,
    lines_cut_by,
    spotters_for,
    spotters_for_points,
    total_threat,
    visibility_graph,
    waypoint_node,
)
from engine.errors import FireplanError
from engine.game import CHANCE
from engine.geometry import Density, Screen, rectangle
from engine.scenario import load_scenario, parse_scenario
from engine.sight import SightStatus

MAPS = Path(__file__).resolve().parents[2] / "maps"
CHQ_MAPS = sorted(p.name for p in MAPS.glob("chq_*.json"))
MET_MAPS = sorted(p.name for p in MAPS.glob("met_*.json"))


def _state(name: str, seed: int = 1):
    return load_scenario(MAPS / name).new_game(seed=seed)


def _sides(state) -> tuple[str, str]:
    return tuple(side.id for side in state.scenario.sides) if hasattr(state, "scenario") else state.facts.side_ids


def _snapshots(name: str, steps=(0, 40, 120), seed: int = 3):
    """The map's state at the start and after some steps of random play (chance nodes sampled)."""
    state = _state(name, seed)
    player = RandomPlayer(seed)
    done = 0
    for target in steps:
        while done < target and not state.is_terminal():
            state.apply_action(state.sample_chance() if state.current_player() == CHANCE else player.act(state))
            done += 1
        yield done, state.clone()


def _signature(graph: nx.DiGraph):
    nodes = {n: dict(d) for n, d in graph.nodes(data=True)}
    edges = {(a, b): dict(d) for a, b, d in graph.edges(data=True)}
    return nodes, edges


def _close(a, b) -> bool:
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


# ============================================================================ CHQ: agreement with the engine
@pytest.mark.parametrize("name", CHQ_MAPS)
def test_chq_edges_agree_with_sight_fire_and_threat(name):
    from engine.rulesets.chq.combat import PendingFire
    from engine.rulesets.chq.orders import fire_params

    checked = 0
    for _, state in _snapshots(name):
        facts = state.facts
        base_tn = int(facts.s("base_tn"))
        for side in facts.side_ids:
            enemy = facts.other(side)
            graph = visibility_graph(state, side)
            node_of = lambda piece: facts.blind_unit.get(piece) or piece  # noqa: E731 - own real Blind -> unit
            # our units looking out: exactly the state's own sight table, screens included
            table = state.sight(side)
            for i, a in enumerate(table["observers"]):
                for j, t in enumerate(table["targets"]):
                    assert graph.has_edge(a, t) == bool(table["visible"][i, j]), (name, side, a, t)
                    if graph.has_edge(a, t):
                        edge = graph.edges[a, t]
                        assert edge["full_screens"] + edge["partial_screens"] == table["smoke"][i, j]
                        assert edge["obscured"] == (table["smoke"][i, j] > 0)
            # the enemy looking in: its revealed units see what the state says, or more where its
            # hidden units (unknown to side) would have blocked the line
            hidden_enemy = any(state.units[u].hidden for u in state.on_table_units(enemy))
            table = state.sight(enemy)
            for i, e in enumerate(table["observers"]):
                if state.units[e].hidden:
                    continue
                for j, t in enumerate(table["targets"]):
                    truth, seen = bool(table["visible"][i, j]), graph.has_edge(e, node_of(t))
                    assert seen == truth or (hidden_enemy and seen and not truth), (name, side, e, t)
            # TN modifiers and threat on unit -> unit edges
            for a, b, edge in graph.edges(data=True):
                if graph.nodes[a]["kind"] != "unit" or graph.nodes[b]["kind"] != "unit" or graph.nodes[b]["hidden"]:
                    continue
                if graph.nodes[a]["side"] == enemy and hidden_enemy:
                    continue
                assert _close(edge["threat"], state.threat(a, b)), (name, side, a, b)
                fire = fire_params(state, a, b, penalty=0)
                if isinstance(fire, PendingFire):
                    assert edge["modifier"] == fire.tn - base_tn
                    checked += 1
                elif facts.units[a].direct is not None and "beyond" in fire:
                    assert edge["modifier"] is None and edge["band"] == "beyond"
    assert checked > 0


def test_chq_smoke_from_a_real_barrage_obscures_exactly_the_predicted_edges():
    from engine.rulesets.chq import artillery as art
    from engine.rulesets.chq.actions import Barrage

    state = _state("chq_smoke_advance.json")
    state.apply_action(state.legal_actions()[0])  # round 1: hold; round 2 may lay smoke (CHQ-27)
    assert state.barrage is not None and state.barrage.number == 2
    graph = visibility_graph(state, "us")
    density = Density(state.facts.s("smoke_density"))
    best = None
    for action in state.legal_actions():
        if isinstance(action, Barrage) and action.at is not None:
            screen = Screen(art.smoke_polygon(state.facts, action.at, action.bearing), (density,))
            crossed = len(lines_cut_by(graph, screen, exact=False).crossed)
            if best is None or crossed > best[0]:
                best = (crossed, action, screen)
    _, action, screen = best
    predicted = lines_cut_by(graph, screen)
    assert len(predicted.obscured) >= 4 and not predicted.blocked  # CHQ-12: smoke obscures, never blocks
    assert predicted.threat_removed > 0
    what_if = visibility_graph(state, "us", screens=[screen])
    state.apply_action(action)  # the barrage lands at once: a real screen on the table
    assert state.screens(), "the barrage smoke is on the table"
    after = visibility_graph(state, "us")
    before_nodes, before_edges = _signature(graph)
    nodes, edges = _signature(after)
    assert set(edges) == set(before_edges)  # nothing is blocked
    changed = {e for e in edges if edges[e] != before_edges[e]}
    assert changed == set(predicted.obscured)
    from engine.rulesets.chq.combat import PendingFire
    from engine.rulesets.chq.orders import fire_params

    through_smoke = 0
    for e in changed:
        assert edges[e] == predicted.obscured[e]  # smoke counts, +2 TN and the lower threat
        assert edges[e]["smoke_modifier"] == 2 and edges[e]["threat"] <= before_edges[e]["threat"]
        assert _close(edges[e]["threat"], state.threat(*e))  # the engine's threat through the real screen
        fire = fire_params(state, *e, penalty=0)
        if isinstance(fire, PendingFire):  # CHQ-10: the fire's TN is 2 worse through the screen
            assert edges[e]["modifier"] == fire.tn - int(state.facts.s("base_tn")) == before_edges[e]["modifier"] + 2
            through_smoke += 1
    assert through_smoke > 0
    assert _signature(what_if)[1] == edges  # screens= gives the same graph as laying it


def test_chq_smoke_mission_in_a_pulse_matches_the_prediction_and_fo_rules():
    from engine.rulesets.chq.actions import CommandRoll, Deviation

    state = _state("chq_saint_aubin.json")
    for _ in range(200):  # barrage (on hold where it may), then a turn in which us has the first pulse
        top = state.agenda[-1]
        if state.current_player() == CHANCE:
            if top.kind == "command":
                n = state.facts.sides[top.payload].command_dice
                faces = (4, 4, 4, 3, 6, 5) if top.payload == "us" else (2, 2, 3, 5, 5, 5)
                counts = tuple(faces[:n].count(f) for f in range(1, 7))
                state.apply_action(CommandRoll(top.payload, counts))
            else:
                state.apply_action(state.chance_outcomes()[0][0])
        elif top.kind == "barrage":
            actions = state.legal_actions()
            state.apply_action(next((a for a in actions if "hold" in str(a)), actions[0]))
        elif top.kind == "chain":
            state.apply_action(state.legal_actions()[0])
        else:
            break
    assert state.current_player() == "us" and state.agenda[-1].kind == "pulse"
    graph = visibility_graph(state, "us")
    options = state.smoke_options("us")
    scored = [(len(lines_cut_by(graph, o.screens[0][0], exact=False).crossed), k) for k, o in enumerate(options)]
    _, k = max(scored)
    option = options[k]
    predicted = lines_cut_by(graph, option.screens[0][0])
    assert len(predicted.obscured) >= 2
    centre = option.actions[0].at
    spotters_before = spotters_for(graph, None, centre)
    assert spotters_before and set(spotters_before) == set(state.observers_of_point("us", centre, clear=True))
    for action in option.actions:
        state.apply_action(action)
    state.apply_action(next(o for o, _ in state.chance_outcomes() if o.passed))  # the Comms Check passes
    state.apply_action(next(o for o, _ in state.chance_outcomes() if isinstance(o, Deviation) and not o.distance))
    assert state.screens()
    after = visibility_graph(state, "us")
    _, before_edges = _signature(graph)
    _, edges = _signature(after)
    assert set(edges) == set(before_edges)
    assert {e for e in edges if edges[e] != before_edges[e]} == set(predicted.obscured)
    assert all(edges[e] == predicted.obscured[e] for e in predicted.obscured)
    # CHQ-12: with fo_through_smoke false no Forward Observer directs fire through the screen
    points = [state.facts.grid[i] for i in range(0, len(state.facts.grid), 7)]
    got = spotters_for_points(state, "us", points)
    for point, spotters in zip(points, got):
        assert set(spotters) == set(state.observers_of_point("us", point, clear=True)), point
    # the screen lies on its own centre: no FO sees it clearly any more, though units still see it
    assert spotters_for(state, "us", centre) == () and state.observers_of_point("us", centre, clear=False)
    assert after.graph["fo_required"] is True


# ============================================================================ MET: agreement with the engine
@pytest.mark.parametrize("name", MET_MAPS)
def test_met_edges_agree_with_sight_and_threat(name):
    from engine.rulesets.met.resolution import hit_probability

    checked = 0
    for _, state in _snapshots(name, steps=(0, 60, 150)):
        for side in state.table.sides:
            graph = visibility_graph(state, side)
            enemy = state.table.other(side)
            located = [e.id for e in state._located(side)]
            ours = [e.id for e in state._own(side)]
            dummies = [b.id for b in state.blinds.values() if b.owner == enemy and b.dummy]
            own_dummies = [b.id for b in state.blinds.values() if b.owner == side and b.dummy]
            for a in ours:
                for b in located + dummies:
                    status = state.sight(a, b)
                    assert graph.has_edge(a, b) == (status != SightStatus.BLOCKED), (name, side, a, b)
                    if graph.has_edge(a, b):
                        assert graph.edges[a, b]["obscured"] == (status == SightStatus.PARTIAL)
            for e in located + dummies:
                for b in ours + own_dummies:
                    status = state.sight(e, b)
                    assert graph.has_edge(e, b) == (status != SightStatus.BLOCKED), (name, side, e, b)
            for a, b, edge in graph.edges(data=True):
                if graph.nodes[a]["kind"] == "unit" and graph.nodes[b]["kind"] == "unit":
                    assert _close(edge["threat"], state.threat(a, b)), (name, side, a, b)
                    if edge["threat"]:  # the shot is legal: its FN is the card's plus the modifier
                        fn = state.elements[a].fn_against(state.elements[b])
                        assert edge["threat"] == float(hit_probability(fn + edge["modifier"]))
                        checked += 1
    assert checked or name == "met_burning_village.json"  # no shot is in range there in these positions


def _met_artillery(name):
    from tests.engine.met.helpers import end_until

    state = _state(name)
    end_until(state, "artillery", state.table.sides[0])
    return state


def test_met_battery_smoke_partial_then_full_matches_the_prediction():
    from tests.engine.met.helpers import next_period

    state = _met_artillery("met_le_mesnil.json")
    side = state.current_player()
    graph = visibility_graph(state, side)
    options = state.smoke_options(side)
    option = max(options, key=lambda o: (len(lines_cut_by(graph, o.screens[2], exact=False).crossed), o.label))
    predicted = {t: lines_cut_by(graph, option.screens[t]) for t in (1, 2)}
    assert len(predicted[2].blocked) >= 10  # MET-15: full smoke blocks
    for action in option.actions:
        state.apply_action(action)
    seen = {}
    for tick in (1, 2):
        next_period(state, outcome=lambda outcomes: next(o for o in outcomes if str(o) in ("on-target", "miss")))
        seen[tick] = visibility_graph(state, side)
    _, before = _signature(graph)
    for tick, after in seen.items():
        _, edges = _signature(after)
        cut = predicted[tick]
        assert set(before) - set(edges) == set(cut.blocked), tick
        assert set(edges) <= set(before)
        assert {e for e in edges if edges[e] != before[e]} == set(cut.obscured), tick
        assert all(edges[e] == cut.obscured[e] for e in cut.obscured)
        # the engine agrees that those lines are blocked now
        for a, b in cut.blocked:
            if after.nodes[a]["kind"] == "unit" and after.nodes[b]["kind"] == "unit":
                assert state.sight(a, b) == SightStatus.BLOCKED
        # in MET a line is judged centre to centre: a cut line is a crossed line
        assert cut.edges <= cut.crossed
    assert len(predicted[2].blocked) > len(predicted[1].blocked)  # a screen thickens (MET-4)


def test_met_hypothetical_full_screen_equals_one_on_the_table():
    from engine.rulesets.met.elements import MetScreen

    state = _state("met_calm_bocage.json")
    side = state.current_player()
    graph = visibility_graph(state, side)
    xs = [graph.nodes[n]["position"] for n in graph]
    centre = (float(np.mean([p[0] for p in xs])), float(np.mean([p[1] for p in xs])))
    wall = Screen(rectangle(centre, 600, 40), (Density.FULL,))
    cut = lines_cut_by(graph, wall)
    assert cut.blocked and cut.edges <= cut.crossed
    assert all(v["threat"] is None or v["threat"] >= 0 for v in cut.blocked.values())
    laid = state.clone()
    laid.screens.append(MetScreen(wall, "artillery", "test", side, laid.period))
    laid._smoke_version += 1
    assert _signature(visibility_graph(state, side, screens=[wall]))[1] == _signature(visibility_graph(laid, side))[1]
    assert set(graph.edges) - set(visibility_graph(laid, side).edges) == set(cut.blocked)
    assert not lines_cut_by(graph, wall, exact=False).blocked  # geometry only


# ============================================================================ hidden truth stays hidden
def _flip_blinds(name: str, owner: str):
    """The same scenario with one real Blind of ``owner`` made a dummy and one dummy made real:
    the unit moves from under the one to under the other, so the other side observes the same."""
    data = json.loads((MAPS / name).read_text())
    blinds = {b["id"]: b for b in data["blinds"] if b["owner"] == owner}
    units = [u for u in data["units"] if u.get("blind") in blinds]
    real = units[0]["blind"]
    dummy = next(b for b, spec in blinds.items() if spec.get("dummy"))
    units[0]["blind"], units[0]["position"] = dummy, list(blinds[dummy]["position"])
    blinds[real]["dummy"], blinds[dummy]["dummy"] = True, False
    return parse_scenario(json.dumps(data)), units[0]["id"]


@pytest.mark.parametrize(
    "name, naive_differs",
    [
        ("chq_saint_aubin.json", True),
        ("chq_blind_barrage.json", False),
        ("met_le_mesnil.json", True),
        ("met_burning_village.json", True),
    ],
)
def test_a_dummy_and_a_real_blind_give_the_same_graph(name, naive_differs):
    sc = load_scenario(MAPS / name)
    owner = next(b.owner for b in sc.blinds)
    side = next(s.id for s in sc.sides if s.id != owner)
    flipped, moved_unit = _flip_blinds(name, owner)
    a, b = sc.new_game(seed=1), flipped.new_game(seed=1)
    ours = [p["id"] for p in a.known_pieces(side) if p["side"] == side and p["kind"] == "unit"]
    route = {ours[0]: [a.known_pieces(side)[0]["position"]]}
    wall = Screen(rectangle(a.known_pieces(side)[0]["position"], 12, 1), (Density.PARTIAL,))
    for screens in (None, [wall]):
        ga = visibility_graph(a, side, waypoints=route, screens=screens)
        gb = visibility_graph(b, side, waypoints=route, screens=screens)
        assert _signature(ga) == _signature(gb)
        assert lines_cut_by(ga, wall) == lines_cut_by(gb, wall)
    # ... although the truth differs: the hidden unit stands elsewhere, and a graph read from the
    # truth (the state's own sight and threat of the hidden unit) would see it
    where = lambda s: next(p["position"] for p in s.known_pieces(owner) if p["id"] == moved_unit)  # noqa: E731
    assert where(a) != where(b)
    naive = lambda s: (  # noqa: E731
        [s.sight(moved_unit, u) if hasattr(s, "elements") else s.sees(moved_unit, u) for u in ours],
        [s.threat(moved_unit, u) for u in ours],
        s.sight_lines(owner) if hasattr(s, "sight_lines") else None,
    )
    assert (naive(a) != naive(b)) == naive_differs
    # the hook refuses questions about the enemy's hidden units
    with pytest.raises(FireplanError, match="knows of"):
        a.sight_between(side, ours, [moved_unit])


def test_the_graph_leaves_the_state_alone():
    state = _state("chq_saint_aubin.json")
    before = (state.observation("us"), state.sight_lines("us"), state.sight_lines("de"), state.log[:])
    smoke = Screen(rectangle((30, 20), 12, 1), (Density.PARTIAL,))
    graph = visibility_graph(state, "us", waypoints={"us-rifle-1": [(20, 14)]}, screens=[smoke])
    lines_cut_by(graph, Screen(rectangle((40, 20), 12, 1), (Density.PARTIAL,)))
    assert (state.observation("us"), state.sight_lines("us"), state.sight_lines("de"), state.log) == before
    assert graph.graph["state"] is not state


# ============================================================================ waypoints
@pytest.mark.parametrize(
    "name", ["chq_smoke_advance.json", "chq_tot_crossroads.json", "met_calm_bocage.json", "met_le_mesnil.json"]
)
def test_waypoints_are_exactly_the_unit_standing_there(name):
    state = _state(name)
    side = state.current_player() if state.current_player() != CHANCE else _sides(state)[0]
    pieces = [p for p in state.known_pieces(side) if p["side"] == side and p["kind"] == "unit"]
    enemy_xy = [p["position"] for p in state.known_pieces(side) if p["side"] != side]
    target = tuple(np.mean(enemy_xy, axis=0))
    routes = {}
    for p in pieces[:2]:
        x, y = p["position"]
        routes[p["id"]] = [(x + (target[0] - x) * f, y + (target[1] - y) * f) for f in (0.25, 0.5, 0.7)]
    graph = visibility_graph(state, side, waypoints=routes)
    assert graph.nodes[waypoint_node(pieces[0]["id"], 2)]["position"] == routes[pieces[0]["id"]][2]
    found = 0
    for uid, route in routes.items():
        for k, point in enumerate(route):
            moved = state.clone()
            if hasattr(moved, "elements"):
                moved.elements[uid].position = point
                moved._pos_version += 1
            else:
                moved.units[uid].pos = point
            there = visibility_graph(moved, side)
            node = waypoint_node(uid, k)
            into = {a: d for a, _, d in graph.in_edges(node, data=True)}
            assert into.keys() == {a for a, _ in there.in_edges(uid)}, (uid, k)
            for a, d in into.items():
                expected = dict(there.edges[a, uid], line=(there.nodes[a]["position"], point))
                assert d == expected, (uid, k, a)
                found += d["threat"] is not None and d["threat"] > 0
            out = {b: d for _, b, d in graph.out_edges(node, data=True)}
            assert out.keys() == {b for _, b in there.out_edges(uid)}
            for b, d in out.items():
                assert d == dict(there.edges[uid, b], line=(point, there.nodes[b]["position"]))
        seen = enemies_seeing_route(graph, uid)
        for enemy, nodes in seen.items():
            assert all(graph.has_edge(enemy, n) for n in nodes)
            assert list(nodes) == sorted(nodes, key=lambda n: -1 if n == uid else n[2])
    assert found > 0 or name.startswith("met_le")


def test_waypoints_of_an_enemy_or_off_the_table_are_refused():
    state = _state("chq_smoke_advance.json")
    with pytest.raises(FireplanError, match="waypoints are for units of us"):
        visibility_graph(state, "us", waypoints={"de-pak-1": [(10, 10)]})
    with pytest.raises(FireplanError, match="off the table"):
        visibility_graph(state, "us", waypoints={"us-rifle-1": [(100, 10)]})


# ============================================================================ queries
def test_total_threat_and_lines_cut_geometry():
    state = _state("chq_smoke_advance.json")
    graph = visibility_graph(state, "us")
    into_us = sum(t for _, b, t in graph.edges(data="threat") if graph.nodes[b]["side"] == "us" and t is not None)
    assert total_threat(graph, "us") == pytest.approx(into_us) and into_us > 0
    assert total_threat(graph, "de") > 0
    wall = Screen(rectangle((24, 17), width=40, depth=1), (Density.PARTIAL,))
    cut = lines_cut_by(graph, wall)
    assert isinstance(cut, CutLines)
    # every line between the sides crosses a wall across the whole table
    assert cut.crossed == frozenset(graph.edges)
    assert total_threat(visibility_graph(state, "us", screens=[wall]), "us") == pytest.approx(into_us - sum(
        graph.edges[e]["threat"] - cut.obscured[e]["threat"] for e in cut.obscured if graph.nodes[e[1]]["side"] == "us"
    ))
    assert lines_cut_by(graph, []).edges == frozenset()


def test_met_spotters_see_the_point_and_need_not_be_forward_observers():
    state = _state("met_le_mesnil.json")
    graph = visibility_graph(state, "gb")
    assert graph.graph["fo_required"] is False
    blind = graph.nodes["de-b3"]["position"]
    spotters = spotters_for(graph, "gb", blind)
    assert set(spotters) == {a for a, _ in graph.in_edges("de-b3")}
    with pytest.raises(FireplanError):
        spotters_for(graph, "de", blind)


def test_visibility_doctests():
    import doctest

    import agent.visibility

    failed, tried = doctest.testmod(agent.visibility)
    assert tried > 0 and failed == 0


# ============================================================================ performance (printed, not asserted)
def _route_towards(start, aim, n=10):
    (x, y), (ax, ay) = start, aim
    return [(x + (ax - x) * k / (n + 2), y + (ay - y) * k / (n + 2)) for k in range(1, n + 1)]


def test_performance_of_building_graphs_is_printed(capsys):
    rows = []
    for name in CHQ_MAPS + MET_MAPS:
        state = _state(name)
        side = _sides(state)[0]
        mine = [p for p in state.known_pieces(side) if p["side"] == side and p["kind"] == "unit"]
        theirs = [p["position"] for p in state.known_pieces(side) if p["side"] != side] or [mine[0]["position"]]
        aim = tuple(np.mean(theirs, axis=0))
        routes = {p["id"]: _route_towards(p["position"], aim) for p in mine}
        timings = []
        for waypoints in ({}, routes):
            start = time.perf_counter()
            graph = visibility_graph(state, side, waypoints=waypoints)
            cold = time.perf_counter() - start
            warm = []
            for _ in range(3):
                start = time.perf_counter()
                visibility_graph(state, side, waypoints=waypoints)
                warm.append(time.perf_counter() - start)
            timings.append((cold * 1e3, min(warm) * 1e3, graph.number_of_edges()))
        (c0, w0, e0), (c1, w1, e1) = timings
        rows.append(
            f"{name:26s} {side:3s} {len(mine):2d} units: {e0:3d} edges {w0:6.1f} ms (cold {c0:6.1f}); "
            f"+{sum(map(len, routes.values())):2d} waypoints: {e1:4d} edges {w1:6.1f} ms (cold {c1:6.1f})"
        )
    with capsys.disabled():
        print("\nvisibility_graph build time (warm = best of 3 after a first, cold call):\n" + "\n".join(rows))
