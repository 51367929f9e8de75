"""The visibility graph: who sees whom on the table, as one side knows it.

:func:`visibility_graph` turns a game state into a :class:`networkx.DiGraph` for one side. Its
nodes are that side's units, the enemy units and Blinds it observes, its own dummy Blinds, and the
waypoints of routes its units are to follow; an edge ``A -> B`` means A can see B, with the range,
the ruleset's range band, the smoke on the line, the modifier it makes to a fire or a spotting roll,
and the exact threat of A's fire on B. The query helpers answer the planners' questions:

- :func:`enemies_seeing_route` -- which enemies see this unit or any point of its route;
- :func:`spotters_for` / :func:`spotters_for_points` -- which of our units can observe a template
  centre under the ruleset's Forward Observer rule;
- :func:`lines_cut_by` -- which sight lines a screen would cut or obscure, and how much threat that
  takes off them;
- :func:`total_threat` -- the threat on the lines into one side's units.

Where the answers come from
---------------------------
The graph knows no rules. Everything comes from two hooks every ruleset's state offers:

``state.known_pieces(side)``
    The pieces as ``state.observation(side)`` shows them. An enemy Blind is a marker: whether it is
    a dummy, and what it hides, is never read, so a real Blind and a dummy give the same graph.
``state.sight_between(side, observers, targets, *, screens=(), fo=False, threat=True)``
    The ruleset's own bulk sight (CHQ-30 with CHQ-10/12 in CHQ, MET-15..17 in MET) from every
    observer to every target in a few kernel calls, with hypothetical ``screens``, and the exact
    threat of each seen pair from the ruleset's ``threat`` hook, computed on a view of the state in
    which the enemy's hidden pieces are gone and displaced pieces (waypoints) stand where asked.

The graph is built with two such calls (our pieces looking out, the enemy's looking in), so there
is no Python loop over pairs for sight; a loop over the *edges* only copies the arrays into the
graph.

What ``threat`` is exactly
--------------------------
On an edge between two units (either at a waypoint) ``threat`` is the ruleset's exact expected
effect of the source's best fire on the target standing there, now: CHQ, the expected Disruption
(:meth:`ChqState.threat`); MET, the hit probability (:meth:`MetState.threat`). It equals
``state.threat(a, b)`` except where the truth depends on what this side cannot know (an enemy unit
hidden under a Blind that would spot for an enemy mortar), and on an edge into a waypoint it is
the threat to the unit if it stood at that point with its present facing (and, in MET, without
move-related cover). A unit of ours under our own Blind gets 0: the enemy may not fire at a Blind
before it is spotted or revealed. ``threat`` is ``None`` when it is unknown: fire from a Blind (its
unit is unknown), at a Blind or at a dummy. An edge carries only the fire *along that line*: a
mortar firing indirectly at a target it does not see (through another unit's spotting) adds no edge.

``modifier`` is read the ruleset's way: CHQ, the change to a direct fire's TN (range band, flank,
+2 through smoke; a spotting roll's TN against a Blind), higher being worse; MET, the change to the
FN (-2 partial smoke, -2 cover), lower being worse.

Examples
--------
>>> from engine.scenario import load_scenario
>>> state = load_scenario("maps/chq_smoke_advance.json").new_game(seed=1)
>>> graph = visibility_graph(state, "us", waypoints={"us-rifle-1": [(18, 12), (18, 18)]})
>>> graph.nodes["de-pak-1"]["kind"], graph.nodes[("waypoint", "us-rifle-1", 1)]["kind"]
('unit', 'waypoint')
>>> sorted(enemies_seeing_route(graph, "us-rifle-1"))
['de-pak-1', 'de-rifle-1']
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import networkx as nx
import numpy as np

from engine.errors import FireplanError
from engine.geometry import Screen
from engine.sight import crossings

__all__ = [
    "CutLines",
    "enemies_seeing_route",
    "lines_cut_by",
    "spotters_for",
    "spotters_for_points",
    "total_threat",
    "visibility_graph",
    "waypoint_node",
]

#: The edge attributes copied from the hook's arrays, by edge name and hook key.
_EDGE_FIELDS = (
    ("range", "range"),
    ("band", "band"),
    ("full_screens", "full"),
    ("partial_screens", "partial"),
    ("modifier", "modifier"),
    ("smoke_modifier", "smoke_modifier"),
    ("threat", "threat"),
    ("obscured", "obscured"),
)


def waypoint_node(unit_id: str, k: int) -> tuple[str, str, int]:
    """The node id of waypoint ``k`` (from 0) of ``unit_id``'s route: ``("waypoint", unit_id, k)``."""
    return ("waypoint", unit_id, int(k))


# --------------------------------------------------------------------------------------------
# building the graph
# --------------------------------------------------------------------------------------------


def _screens(screens) -> tuple[Screen, ...]:
    if screens is None:
        return ()
    if isinstance(screens, Screen):
        screens = (screens,)
    out = tuple(screens)
    for i, screen in enumerate(out):
        if not isinstance(screen, Screen):
            raise FireplanError(f"screens[{i}] must be an engine.geometry.Screen, got {type(screen).__name__}")
    return out


def _point(value, name: str) -> tuple[float, float]:
    try:
        x, y = value
        x, y = float(x), float(y)
    except (TypeError, ValueError):
        raise FireplanError(f"{name} must be a pair of numbers (x, y), got {value!r}") from None
    if not (math.isfinite(x) and math.isfinite(y)):
        raise FireplanError(f"{name} must have finite coordinates, got ({x}, {y})")
    return (x, y)


def _value(array, i: int, j: int):
    """One cell of a hook array as a plain Python value (NaN threat becomes None)."""
    v = array[i, j]
    if isinstance(v, (np.bool_, bool)):
        return bool(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, (np.floating, float)):
        return None if math.isnan(v) else float(v)
    return v


def _add_edges(graph: nx.DiGraph, sources: list, targets: list, table: dict) -> None:
    for i, j in zip(*np.nonzero(table["visible"])):
        a, b = sources[i], targets[j]
        attrs = {name: _value(table[key], i, j) for name, key in _EDGE_FIELDS}
        attrs["line"] = (graph.nodes[a]["position"], graph.nodes[b]["position"])
        graph.add_edge(a, b, **attrs)


def visibility_graph(
    state,
    side: str,
    *,
    waypoints: Mapping[str, Sequence[tuple[float, float]]] = {},  # noqa: B006 - read only
    screens: Iterable[Screen] | None = None,
) -> nx.DiGraph:
    """Who sees whom, as ``side`` knows the table: a DiGraph with an edge ``A -> B`` when A sees B.

    Parameters
    ----------
    state : GameState
        A CHQ or MET state; it is read, never changed (the graph keeps a clone for its queries).
    side : str
        Whose knowledge the graph holds: the enemy's Blinds are markers, its hidden units unknown.
    waypoints : mapping of unit id to a sequence of (x, y)
        Route points of our units; waypoint ``k`` of unit ``u`` is node ``("waypoint", u, k)``.
    screens : iterable of Screen, optional
        Hypothetical screens laid on top of those on the table ("what if this smoke is laid").

    Returns
    -------
    networkx.DiGraph
        Node attributes: ``kind`` ("unit", "blind" or "waypoint"), ``side``, ``position``,
        ``card`` (None for a Blind), ``facing``, ``hidden`` (our unit under our Blind), ``blind``,
        ``dummy`` (our Blinds: bool; the enemy's: None), ``unit`` and ``index`` (waypoints) and
        ``ref`` (how the ruleset hook names it). Edges run between the sides only (our units and
        waypoints to the enemy's units and Blinds and back) with attributes ``range``, ``band``,
        ``full_screens``, ``partial_screens``, ``modifier`` (the ruleset's TN or FN change along
        the line), ``smoke_modifier`` (its smoke part), ``threat`` (see the module docstring),
        ``obscured`` and ``line`` (the centre-to-centre segment). ``graph.graph`` holds ``side``,
        ``screens``, ``fo_required`` and ``state`` (a clone, for the queries).

    Examples
    --------
    >>> from engine.scenario import load_scenario
    >>> state = load_scenario("maps/met_le_mesnil.json").new_game(seed=1)
    >>> graph = visibility_graph(state, "gb")
    >>> graph.nodes["de-b1"]["dummy"] is None  # an enemy blind: real or dummy, it cannot tell
    True
    >>> edge = graph.edges["gb-sherman-2", "de-b3"]
    >>> edge["band"], edge["obscured"], round(edge["range"]), edge["threat"]  # fire at a blind: unknown
    ('within', False, 906, None)
    """
    screens = _screens(screens)
    pieces = state.known_pieces(side)
    graph = nx.DiGraph(side=side, screens=screens, state=state.clone())
    ours_seeing: list = []  # our pieces that look out: units, then waypoints
    ours_seen: list = []  # our pieces the enemy may see: units, dummy Blinds, waypoints
    theirs: list = []  # the enemy's units and Blinds
    for p in pieces:
        if p["kind"] == "blind" and p["side"] == side and p["unit"] is not None:
            continue  # our real Blind: its unit's node stands for it
        attrs = {k: p[k] for k in ("kind", "side", "position", "card", "facing", "hidden", "blind", "dummy")}
        graph.add_node(p["id"], ref=p["id"], **attrs)
        if p["side"] != side:
            theirs.append(p["id"])
        elif p["kind"] == "unit":
            ours_seeing.append(p["id"])
            ours_seen.append(p["id"])
        else:
            ours_seen.append(p["id"])
    for uid, route in waypoints.items():
        if uid not in graph or graph.nodes[uid]["side"] != side or graph.nodes[uid]["kind"] != "unit":
            raise FireplanError(f"waypoints are for units of {side} on the table; {uid!r} is not one")
        unit = graph.nodes[uid]
        for k, point in enumerate(route):
            point = _point(point, f"waypoint {k} of {uid}")
            node = waypoint_node(uid, k)
            graph.add_node(
                node, ref=(uid, point), kind="waypoint", side=side, position=point, card=unit["card"],
                facing=unit["facing"], hidden=unit["hidden"], blind=unit["blind"], dummy=None, unit=uid, index=k,
            )
            ours_seeing.append(node)
            ours_seen.append(node)
    refs = lambda nodes: [graph.nodes[n]["ref"] for n in nodes]  # noqa: E731
    out = state.sight_between(side, refs(ours_seeing), refs(theirs), screens=screens)
    into = state.sight_between(side, refs(theirs), refs(ours_seen), screens=screens)
    _add_edges(graph, ours_seeing, theirs, out)
    _add_edges(graph, theirs, ours_seen, into)
    graph.graph["fo_required"] = bool(out["fo_required"])
    return graph


# --------------------------------------------------------------------------------------------
# queries
# --------------------------------------------------------------------------------------------


def _route(graph: nx.DiGraph, unit_id: str) -> list:
    if unit_id not in graph or graph.nodes[unit_id]["kind"] != "unit":
        raise FireplanError(f"{unit_id!r} is not a unit in this visibility graph")
    points = [n for n, d in graph.nodes(data=True) if d["kind"] == "waypoint" and d["unit"] == unit_id]
    return [unit_id] + sorted(points, key=lambda n: graph.nodes[n]["index"])


def enemies_seeing_route(graph: nx.DiGraph, unit_id: str) -> dict:
    """Which enemy pieces see ``unit_id`` where it stands or at any waypoint of its route.

    Returns ``{enemy node: (route nodes it sees, in route order)}``, the unit's own node first.

    >>> from engine.scenario import load_scenario
    >>> state = load_scenario("maps/chq_smoke_advance.json").new_game(seed=1)
    >>> graph = visibility_graph(state, "us", waypoints={"us-rifle-2": [(28, 14)]})
    >>> enemies_seeing_route(graph, "us-rifle-2")["de-pak-1"]
    ('us-rifle-2', ('waypoint', 'us-rifle-2', 0))
    """
    route = _route(graph, unit_id)
    own = graph.nodes[unit_id]["side"]
    seen: dict = {}
    for node in route:
        for enemy in graph.predecessors(node):
            if graph.nodes[enemy]["side"] != own:
                seen.setdefault(enemy, []).append(node)
    return {enemy: tuple(nodes) for enemy, nodes in seen.items()}


def _source(graph_or_state, side, screens):
    if isinstance(graph_or_state, nx.DiGraph):
        graph = graph_or_state
        if side is not None and side != graph.graph["side"]:
            raise FireplanError(f"this visibility graph is {graph.graph['side']}'s, not {side}'s")
        return graph.graph["state"], graph.graph["side"], graph.graph["screens"] + _screens(screens)
    if side is None:
        raise FireplanError("spotters_for needs the side when given a state")
    return graph_or_state, side, _screens(screens)


def spotters_for_points(graph_or_state, side: str | None, points, *, screens=None) -> list[tuple[str, ...]]:
    """For each point, the units of ``side`` that can observe it as a template centre, in one call.

    The rule is the ruleset's: CHQ-17 with CHQ-12 (``fo_through_smoke`` false: no line through a
    screen). MET batteries need no observer (``graph.graph["fo_required"]`` is False); there the
    answer is simply which units see the point. From a graph, ``side`` may be None and the graph's
    own hypothetical screens apply, plus ``screens``.
    """
    state, side, screens = _source(graph_or_state, side, screens)
    points = [_point(p, f"points[{i}]") for i, p in enumerate(points)]
    observers = [p["id"] for p in state.known_pieces(side) if p["side"] == side and p["kind"] == "unit"]
    if not points:
        return []
    if not observers:
        return [() for _ in points]
    table = state.sight_between(side, observers, points, screens=screens, fo=True, threat=False)
    visible = table["visible"]
    return [tuple(observers[i] for i in np.flatnonzero(visible[:, j])) for j in range(len(points))]


def spotters_for(graph_or_state, side: str | None, point, *, screens=None) -> tuple[str, ...]:
    """The units of ``side`` that can observe ``point`` as a template centre (see
    :func:`spotters_for_points`).

    >>> from engine.scenario import load_scenario
    >>> state = load_scenario("maps/chq_smoke_advance.json").new_game(seed=1)
    >>> spotters_for(state, "us", (30, 29))
    ('us-rifle-1', 'us-rifle-2', 'us-m4-105')
    """
    return spotters_for_points(graph_or_state, side, [point], screens=screens)[0]


@dataclass(frozen=True, slots=True)
class CutLines:
    """What laying some screens would do to the sight lines of a visibility graph.

    Attributes
    ----------
    blocked:
        ``{(a, b): before}``: edges that would disappear (the ruleset says the line is blocked),
        with their attributes before.
    obscured:
        ``{(a, b): after}``: edges that stay but through more smoke (their ``full_screens``,
        ``partial_screens`` or ``smoke_modifier`` change), with their attributes after.
    crossed:
        Edges whose centre-to-centre segment crosses one of the screens (the plain geometric
        question, :func:`engine.sight.crossings`); the ruleset decides the two sets above, which
        in CHQ look at the target's whole base, not only its centre.
    threat_removed:
        The threat taken off the changed edges (before minus after; a blocked edge keeps none),
        counting only edges whose threat is known.
    """

    blocked: Mapping
    obscured: Mapping
    crossed: frozenset
    threat_removed: float

    @property
    def edges(self) -> frozenset:
        """Every edge the screens change."""
        return frozenset(self.blocked) | frozenset(self.obscured)


def lines_cut_by(graph: nx.DiGraph, screen, *, exact: bool = True) -> CutLines:
    """Which of the graph's sight lines ``screen`` (a Screen, or several) would cut or obscure.

    The geometric part is one :func:`engine.sight.crossings` call over the graph's centre-to-centre
    segments. With ``exact`` (the default) the ruleset then judges every edge again with the
    screens added to the graph's own, in two bulk hook calls (our side looking out, the enemy's
    looking in), which gives ``blocked``, ``obscured`` and the threat after; without it only
    ``crossed`` is filled in.

    >>> from engine.geometry import Density, Screen, rectangle
    >>> from engine.scenario import load_scenario
    >>> state = load_scenario("maps/chq_smoke_advance.json").new_game(seed=1)
    >>> graph = visibility_graph(state, "us")
    >>> wall = Screen(rectangle((30, 17), width=12, depth=1), (Density.PARTIAL,))
    >>> cut = lines_cut_by(graph, wall)
    >>> ("de-pak-1", "us-rifle-2") in cut.obscured, cut.obscured[("de-pak-1", "us-rifle-2")]["smoke_modifier"]
    (True, 2)
    """
    screens = _screens(screen)
    edges = list(graph.edges)
    active = [s.polygon for s in screens if not s.is_gone]
    crossed: set = set()
    if edges and active:
        ends = sorted({graph.nodes[a]["position"] for a, _ in edges}), sorted({graph.nodes[b]["position"] for _, b in edges})
        index = [{p: i for i, p in enumerate(group)} for group in ends]
        hit = crossings(ends[0], ends[1], active).crossed_matrix()
        crossed = {
            (a, b) for a, b in edges if hit[index[0][graph.nodes[a]["position"]], index[1][graph.nodes[b]["position"]]]
        }
    if not exact or not edges or not active:
        return CutLines({}, {}, frozenset(crossed), 0.0)

    state, side = graph.graph["state"], graph.graph["side"]
    blocked, obscured, removed = {}, {}, 0.0
    for looking_out in (True, False):
        group = [(a, b) for a, b in edges if (graph.nodes[a]["side"] == side) == looking_out]
        if not group:
            continue
        sources = list(dict.fromkeys(a for a, _ in group))
        targets = list(dict.fromkeys(b for _, b in group))
        at = {n: i for i, n in enumerate(sources)}, {n: j for j, n in enumerate(targets)}
        table = state.sight_between(
            side,
            [graph.nodes[n]["ref"] for n in sources],
            [graph.nodes[n]["ref"] for n in targets],
            screens=graph.graph["screens"] + screens,
        )
        for a, b in group:
            i, j = at[0][a], at[1][b]
            before = graph.edges[a, b]
            if not table["visible"][i, j]:
                blocked[(a, b)] = dict(before)
                removed += before["threat"] or 0.0
                continue
            after = {name: _value(table[key], i, j) for name, key in _EDGE_FIELDS}
            after["line"] = before["line"]
            if any(after[k] != before[k] for k in ("full_screens", "partial_screens", "smoke_modifier", "obscured")):
                obscured[(a, b)] = after
                if before["threat"] is not None and after["threat"] is not None:
                    removed += before["threat"] - after["threat"]
    return CutLines(blocked, obscured, frozenset(crossed), removed)


def total_threat(graph: nx.DiGraph, to_side: str, *, waypoints: bool = False, unknown: float = 0.0) -> float:
    """The sum of ``threat`` over the edges into ``to_side``'s units.

    With ``waypoints`` the edges into its waypoints count too (they are other places the same
    units may stand, so the sum then counts a unit once per place). An edge whose threat is
    unknown (fire from a Blind) counts as ``unknown``.

    >>> from engine.scenario import load_scenario
    >>> state = load_scenario("maps/chq_smoke_advance.json").new_game(seed=1)
    >>> graph = visibility_graph(state, "us")
    >>> total_threat(graph, "us") > 0 and total_threat(graph, "de") > 0
    True
    """
    total = 0.0
    for _, b, threat in graph.edges(data="threat"):
        node = graph.nodes[b]
        if node["side"] != to_side or (node["kind"] == "waypoint" and not waypoints):
            continue
        total += unknown if threat is None else threat
    return total
