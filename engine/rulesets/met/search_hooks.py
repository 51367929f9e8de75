"""Search hooks of the MET state: what the AI's search needs beyond the contract.

``plan_scope`` names the stretch of decisions a side is in (its part of one phase of one
period); ``resample_hidden`` redraws what a side may not know (which blinds are dummies,
which element is under each, the orders the enemy declared this phase) consistently with its
observation; ``features`` measures the situation in morale points; ``describe_actions`` says
what each legal order does, with exact hit and deviation odds. They read the state and never
change it; :class:`~engine.rulesets.met.game.MetState` exposes them as thin methods.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass

import numpy as np

from engine.rulesets.objectives import match_objectives

from .actions import DirectSmoke, Discharge, End, Fire, Grenade, Hold, Launch, Mission, Move, Reload, Thrower
from .deviation import deviation_distribution
from .elements import Element
from .hooks import direct_threats, exact_threat
from .resolution import Status, after_hits, fire_number, hit_probability, morale_loss_outcomes
from .sightlines import cover_mask

__all__ = ["plan_scope", "resample_hidden", "features", "describe_actions"]

_MARKERS: dict[int, tuple] = {}


def plan_scope(state, side: str):
    """``("met", period, stage)`` while ``side`` orders its part of a phase; None otherwise.

    A stage is one side's part of one phase (movement, direct fire, artillery) of a period,
    so a plan made for a scope covers every order of that part up to its ``end``.
    """
    if state.over or state.side_to_act != side:
        return None
    return ("met", state.period, state.stage)


def _start_markers(state) -> dict[str, tuple[float, float]]:
    """Where each blind marker stood when the game began (public: the markers were on the table)."""
    scenario = state.scenario
    cached = _MARKERS.get(id(scenario))
    if cached is None or cached[0] is not scenario:
        where = {blind.id: tuple(map(float, blind.position)) for blind in scenario.blinds}
        for spec in scenario.units:  # a real blind marks where its element is (MetState.__init__)
            if spec.blind in where and spec.position is not None:
                where[spec.blind] = (float(spec.position[0]), float(spec.position[1]))
        if len(_MARKERS) > 64:
            _MARKERS.clear()
        cached = _MARKERS[id(scenario)] = (scenario, where)
    return cached[1]


def resample_hidden(state, side: str, rng):
    """A clone whose facts hidden from ``side`` are redrawn, consistent with ``observation(side)``.

    Hidden from ``side``: which of the enemy's blinds are dummies, which element is under
    each real one, and the orders the enemy declared in this phase (fire and artillery are
    declared at once, MET-19, so the second side does not see the first's). The redraw reads
    only what ``side`` knows: the enemy's order of battle (public), the elements it has
    located or seen destroyed, and the markers on the table. A dummy never moves, so a marker
    that has left its starting place is real; otherwise every way of putting the unseen
    elements under the markers is equally likely. An element under a blind is fresh (a blind
    is revealed before it is hit or lays smoke). When the enemy has declared orders this
    phase that ``side`` cannot see, they are withdrawn and the clone is put back at the
    enemy's declaration (``current_player()`` is then the enemy): the caller plays them from
    its own model of the enemy. The clone's generator is reseeded from ``rng``.
    """
    table = state.table
    enemy = table.other(side)
    located = {view.id for view in state.observation(side).enemy}
    live = sorted(b.id for b in state.blinds.values() if b.owner == enemy)
    unseen = sorted(
        e.id for e in state.elements.values()
        if e.side == enemy and not e.is_battery and e.alive and e.id not in located
    )
    start = _start_markers(state)
    moved = [b for b in live if tuple(state.blinds[b].position) != start.get(b)]
    still = [b for b in live if b not in moved]
    extra = max(0, len(unseen) - len(moved))
    chosen = [still[i] for i in rng.permutation(len(still))[:extra]] if extra else []
    real = moved[: len(unseen)] + chosen
    order = [real[i] for i in rng.permutation(len(real))]
    placed = dict(zip(unseen, order))
    state._picture()  # drawn once here, every world redraws only the pieces it moved
    world = state.clone()
    world.rng = np.random.default_rng(int(rng.integers(2**63)))
    for b in live:
        world.blinds[b].dummy = b not in placed.values()
    specs = {spec.id: spec for spec in state.scenario.units}
    enemy_stage = table.sides.index(enemy)
    moved_already = state.stage > enemy_stage  # the enemy's movement of this period is over
    for eid in unseen:
        fresh = Element.from_spec(specs[eid])
        b = placed.get(eid)
        if b is None:  # more unseen elements than markers: only if the observation were inconsistent
            fresh.status = Status.DESTROYED
        else:
            fresh.position = tuple(world.blinds[b].position)
            fresh.blind = b
        fresh.acted = moved_already
        world.elements[eid] = fresh
    if state.phase != "move" and state.stage % 2 == 1 and side == table.sides[1]:
        # whatever the enemy declared (or not) this phase is hidden: withdraw it and replay
        world.orders = [(s, order) for s, order in world.orders if s != enemy]
        world.stage -= 1
    world._pos_version += 1
    world._version += 1
    # the sight picture stays: it is redrawn for the pieces that moved (the unseen elements put
    # under their markers), since a line's code depends only on its two ends and the smoke
    world._cover_cache = world._threat_cache = world._legal_cache = None
    world._candidates = {}
    return world


def features(state, side: str) -> dict[str, float]:
    """The situation for ``side`` in morale points (positive is good), for evaluation.

    ``morale``: own minus enemy morale points now. ``objectives``: what the objectives would
    move if the period ended now (MET-21). ``pressure``: soft control of each objective, its
    points times (own minus enemy) closeness of the nearest element able to hold it,
    exp(-gap / (a typical move x the periods left, this one included)), half for a suppressed
    element: early in a game an element six moves away still closes in by advancing, late
    only one at hand counts. ``risk``: expected morale
    points the enemy minus we lose to elements already hit (a suppressed element counts 0.15,
    a neutralised one 0.4 of the destroyed-element morale die). ``fire``: the same measure of
    the direct fire each side could bring now (the exact MET-18 probability that at least one
    of its elements hits each located target, times what one more hit costs the target), ours
    minus the enemy's: cover, smoke and range change it at once. ``material``: elements still
    fighting, ours minus the enemy's, each counted 1 less its ``risk`` share (a suppressed one
    0.85, a neutralised one 0.6): what a side can still do with the game left, which its
    morale alone does not say. ``volley``: the expected ``risk`` the next direct fire would
    add, ours on the enemy minus its on us, each element firing once and the shots shared
    among the targets the way that costs most (:func:`_volley`): unlike ``fire`` it sees that
    shooters concentrate on a lone target and that a second hit in one volley costs more than
    the first. ``collapse``: the chance that the next direct fire costs the enemy all of its
    morale points, less the chance it costs us all of ours (:func:`_collapse`; the volleys are
    independent, so this is the chance we win by it less the chance we lose): on a map where a
    side has few points, one destroyed element ends the game, which no expected value says.
    ``remaining``: share of the game left, the current period counting half; ``left``: whole
    periods after this one. ``scale``: a decisive morale point difference for this scenario.
    """
    table = state.table
    enemy = table.other(side)
    sign = {side: 1.0, enemy: -1.0}
    moves = sorted(e.move_allowance for e in state.elements.values() if not e.is_battery and e.move_allowance > 0)
    reach = moves[len(moves) // 2] if moves else 100.0
    periods = max(1, int(state.periods))
    horizon = reach * (1 + max(0, periods - state.period))
    setting = state.rules.setting("capture_points")
    objectives = 0.0
    pressure = 0.0
    for objective in state.scenario.objectives:
        on: dict[str, bool] = {}
        close = {side: 0.0, enemy: 0.0}
        for e in state.elements.values():
            if not e.on_table or not e.alive:
                continue
            gap = math.dist(e.position, objective.position) - objective.radius
            if gap <= 1e-6:
                on[e.side] = on.get(e.side, False) or e.status is Status.OK
            if e.status >= Status.NEUTRALISED:
                continue
            c = math.exp(-max(0.0, gap) / horizon) * (0.5 if e.status is Status.SUPPRESSED else 1.0)
            close[e.side] = max(close[e.side], c)
        points = int(objective.points) if setting == "objective" else int(setting)
        holders = [s for s, fit in on.items() if fit and len(on) == 1]
        previous = state.holders.get(objective.id)
        if holders and holders[0] != previous:
            objectives += sign[holders[0]] * points * (2 if previous is not None else 1)
        pressure += points * (close[side] - close[enemy])
    die = tuple((int(o.points), float(q)) for o, q in morale_loss_outcomes(state.rules).items())
    loss = sum(points * q for points, q in die)
    risk = material = 0.0
    for e in state.elements.values():
        if not e.alive or e.is_battery:
            continue
        share = _SHARE[e.status]
        risk -= sign[e.side] * share * loss
        material += sign[e.side] * (1.0 - share)
    odds = {s: _Odds.of(state, s) for s in (side, enemy)}
    fire = _fire_balance(state, side, enemy, loss, odds)
    ours = _next_fire(odds[side], loss, int(state.morale[enemy]), die)
    theirs = _next_fire(odds[enemy], loss, int(state.morale[side]), die)
    volley, collapse = ours[0] - theirs[0], ours[1] - theirs[1]
    return {
        "morale": float(state.morale[side] - state.morale[enemy]),
        "objectives": float(objectives),
        "pressure": float(pressure),
        "risk": float(risk),
        "fire": float(fire),
        "material": float(material),
        "volley": float(volley),
        "collapse": float(collapse),
        "remaining": max(0.0, (periods - state.period + 0.5) / periods),
        "left": float(max(0, periods - state.period)),
        "scale": max(3.0, sum(state.starting_morale.values()) / 2.0),
    }


_SHARE = {Status.OK: 0.0, Status.SUPPRESSED: 0.15, Status.NEUTRALISED: 0.4, Status.DESTROYED: 1.0}


@dataclass(frozen=True, slots=True)
class _Odds:
    """One side's direct fire now: the located enemy elements it may fire at, and for each of its
    elements able to hit any, the exact chance to hit each (index into ``targets``, probability)."""

    targets: tuple[Element, ...]
    reach: tuple[tuple[tuple[int, float], ...], ...]

    @classmethod
    def of(cls, state, shooter_side: str) -> "_Odds":
        targets = tuple(t for t in state.elements.values()
                        if t.side != shooter_side and t.on_table and t.alive and t.blind is None and not t.is_battery)
        return cls(targets, direct_threats(state, shooter_side, targets))


def _fire_balance(state, side: str, enemy: str, loss: float, odds: dict[str, _Odds]) -> float:
    """Morale points the direct fire now possible is worth: ours on the enemy minus its on us,
    each target counted once for the chance that any of the side's elements hits it."""
    total = 0.0
    for shooter_side, sign in ((side, 1.0), (enemy, -1.0)):
        fire = odds[shooter_side]
        miss = [1.0] * len(fire.targets)
        for shots in fire.reach:
            for j, p in shots:
                miss[j] *= 1.0 - p
        for target, m in zip(fire.targets, miss):
            step = _SHARE[after_hits(target.status, 1)] - _SHARE[target.status]
            total += sign * (1.0 - m) * step * loss
    return total


def _sharings(fire: _Odds, limit: int = 4096):
    """Ways a side's next direct fire (``fire``) may fall, each element firing once at one target:
    for each, the targets aimed at and the hit chances of the shots at each (sorted). Every
    sharing when there are at most ``limit`` (in played MET games there were at most 48); beyond
    that only one: shooters given, one at a time, to the target where they add the most risk (a
    greedy weapon-target assignment)."""
    statuses = [t.status for t in fire.targets]
    if math.prod(len(shots) for shots in fire.reach) <= limit:
        for sharing in itertools.product(*fire.reach):
            aimed: dict[int, list[float]] = {}
            for j, p in sharing:
                aimed.setdefault(j, []).append(p)
            yield {j: tuple(sorted(hits)) for j, hits in aimed.items()}
        return
    aimed = {j: () for j in range(len(statuses))}
    free = list(fire.reach)
    while free:
        gain, i, j, p = max((_harm(statuses[j], tuple(sorted(aimed[j] + (p,)))) - _harm(statuses[j], aimed[j]), i, j, p)
                            for i, shots in enumerate(free) for j, p in shots)
        aimed[j] = tuple(sorted(aimed[j] + (p,)))
        del free[i]
    yield aimed


def _next_fire(fire: _Odds, loss: float, morale: int, die: tuple[tuple[int, float], ...],
               limit: int = 4096) -> tuple[float, float]:
    """``(volley, collapse)`` of a side's next direct fire, each at its own best sharing, from one
    pass over the sharings (:func:`_volley` and :func:`_collapse` say what each is)."""
    statuses = [t.status for t in fire.targets]
    volley = collapse = 0.0
    for aimed in _sharings(fire, limit):
        volley = max(volley, _aimed_harm(statuses, aimed))
        collapse = max(collapse, _aimed_collapse(statuses, aimed, morale, die))
    return loss * volley, collapse


def _volley(fire: _Odds, loss: float, limit: int = 4096) -> float:
    """Expected morale points a side's next direct fire (``fire``) costs the enemy's located
    elements, each of its elements firing once at one target (MET-18: each hit steps the
    target's status once, so k hits step it k times), shared among the targets the way that
    costs the enemy most (:func:`_sharings`)."""
    statuses = [t.status for t in fire.targets]
    return loss * max((_aimed_harm(statuses, aimed) for aimed in _sharings(fire, limit)), default=0.0)


def _collapse(fire: _Odds, morale: int, die: tuple[tuple[int, float], ...], limit: int = 4096) -> float:
    """Chance that a side's next direct fire (``fire``) costs the enemy all of its ``morale``
    (MET-21 as CHQ-29: its morale collapses, and it loses), its shots shared the way most likely
    to do it. Each element it destroys costs a roll of ``die`` ((points, probability) pairs, the
    D3 of ``morale_loss_outcomes``); the elements are destroyed independently (MET-18)."""
    statuses = [t.status for t in fire.targets]
    return max((_aimed_collapse(statuses, aimed, morale, die) for aimed in _sharings(fire, limit)), default=0.0)


def _aimed_harm(statuses: list[Status], aimed: dict[int, tuple[float, ...]]) -> float:
    """Expected rise in the targets' risk shares from one sharing of the shots."""
    return sum(_harm(statuses[j], hits) for j, hits in aimed.items())


def _aimed_collapse(statuses: list[Status], aimed: dict[int, tuple[float, ...]], morale: int,
                    die: tuple[tuple[int, float], ...]) -> float:
    """Chance that one sharing of the shots destroys elements worth ``morale`` points or more."""
    if morale <= 0:
        return 1.0
    lost = [1.0]  # lost[m]: probability of losing exactly m points (m < morale), the rest beyond
    for j, hits in aimed.items():
        destroyed = _destroyed(statuses[j], hits)
        if destroyed <= 0.0:
            continue
        after = [q * (1.0 - destroyed) for q in lost] + [0.0] * (morale - len(lost))
        for m, q in enumerate(lost):
            for points, chance in die:
                if m + points < morale:
                    after[m + points] += q * destroyed * chance
        lost = after
    return 1.0 - sum(lost)


def _spread(hits: tuple[float, ...]) -> list[float]:
    """The number of hits among shots hitting with the probabilities ``hits`` (independent, so a
    Poisson-binomial distribution): ``spread[k]`` is the chance of exactly k."""
    spread = [1.0]
    for p in hits:
        spread = [(spread[k] if k < len(spread) else 0.0) * (1.0 - p) + (spread[k - 1] * p if k else 0.0)
                  for k in range(len(spread) + 1)]
    return spread


@functools.lru_cache(maxsize=4096)
def _harm(status: Status, hits: tuple[float, ...]) -> float:
    """Expected rise in a target's risk share from shots hitting with the probabilities ``hits``
    (the number of hits is exact: a Poisson-binomial distribution)."""
    spread = _spread(hits)
    return sum(q * (_SHARE[after_hits(status, k)] - _SHARE[status]) for k, q in enumerate(spread))


@functools.lru_cache(maxsize=4096)
def _destroyed(status: Status, hits: tuple[float, ...]) -> float:
    """Chance that shots hitting with the probabilities ``hits`` destroy a target of ``status``
    that is still fighting (MET-18: one step a hit, the number of hits exact)."""
    spread = _spread(hits)
    return sum(q for k, q in enumerate(spread) if after_hits(status, k) is Status.DESTROYED)


class _Describer:
    def __init__(self, state, detail: bool = True):
        self.state = state
        self.detail = detail
        mover = state.current_player()
        self.side = mover if mover in state.table.sides else state.side_to_act
        self.enemy = state.table.other(self.side)
        self._located = None
        self._goal = None  # element -> the objective it makes for
        self._covered: dict = {}  # point -> in cover there now (no move of its own counted)

    def cover_at(self, points) -> None:
        """Find out once, in one call, which of ``points`` lie in cover (the moves' starts and
        ends: a decision lists hundreds of moves from a few starts)."""
        fresh = list(dict.fromkeys(p for p in points if p not in self._covered))
        if fresh:
            state = self.state
            mask = cover_mask(fresh, state.table.cover, state.screens_now(), None, state.rules)
            self._covered.update(zip(fresh, map(bool, mask)))

    def located(self):
        if self._located is None:
            self._located = [e for e in self.state._located(self.side)]
        return self._located

    def goal(self, start, element: str | None = None):
        """Where an advance heads: the objective ``element`` is matched to (nearest pairs first,
        one element per objective: :func:`~engine.rulesets.objectives.match_objectives`),
        so that elements spread over the objectives; else the nearest objective the side does
        not hold; else the nearest."""
        objectives = list(self.state.scenario.objectives)
        if not objectives:
            enemies = [e.position for e in self.located()]
            return min(enemies, key=lambda p: math.dist(p, start)) if enemies else None
        free = [o for o in objectives if self.state.holders.get(o.id) != self.side] or objectives
        if self._goal is None:
            own = [(e.id, e.position) for e in self.state.elements.values() if e.side == self.side and e.on_table and e.alive]
            self._goal = match_objectives(own, [(o.id, o.position) for o in free])
        matched = self._goal.get(element)
        if matched is not None:
            return tuple(next(o.position for o in free if o.id == matched))
        return tuple(min(free, key=lambda o: math.dist(o.position, start)).position)

    def describe(self, action) -> dict:
        kind = type(action)
        if kind is Move:
            return self.move(action)
        if kind is Fire:
            return self.fire(action)
        if kind is Mission:
            if action.kind == "smoke":
                return {"kind": "smoke", "actors": (action.battery,), "at": action.point}
            if not self.detail:  # who fires where, without the exact values
                return {"kind": "artillery", "actors": (action.battery,), "at": action.point}
            return self.mission(action)
        if kind in (Discharge, Grenade, Launch, DirectSmoke):
            out = {"kind": "smoke", "actors": (action.element,)}
            if kind in (Launch, DirectSmoke):
                out["at"] = action.point
            return out
        if kind is Thrower:
            return {"kind": "fire", "actors": (action.element,), "target": action.target, "harm": 0.3, "kill": 0.0}
        if kind is Hold:
            return {"kind": "hold", "actors": (action.element,)}
        if kind is Reload:
            return {"kind": "reload", "actors": (action.element,)}
        if kind is End:
            return {"kind": "end"}
        return {"kind": "other"}

    def move(self, action: Move) -> dict:
        state = self.state
        e = state.elements[action.element]
        start, end = e.position, action.point
        single = max(1.0, e.move_allowance)
        goal = self.goal(start, e.id)
        advance = 0.0 if goal is None else (math.dist(start, goal) - math.dist(end, goal)) / single
        dx, dy = {"south": (0, -1), "north": (0, 1), "west": (-1, 0), "east": (1, 0)}[state.table.own_edge[self.side]]
        withdraw = ((end[0] - start[0]) * dx + (end[1] - start[1]) * dy) / single
        self.cover_at((start, end))
        on = any(math.dist(end, o.position) <= o.radius for o in state.scenario.objectives)
        return {
            "kind": "move", "actors": (e.id,), "to": end, "end": end, "advance": advance, "withdraw": withdraw,
            "cover": int(self._covered[end]) - int(self._covered[start]), "objective": bool(on),
        }

    def fire(self, action: Fire) -> dict:
        state = self.state
        target = state.elements.get(action.target)
        p = float(exact_threat(state, action.element, action.target))
        kill = p if target is not None and target.status >= Status.NEUTRALISED else 0.0
        return {"kind": "fire", "actors": (action.element,), "target": action.target, "harm": p, "kill": kill}

    def mission(self, action: Mission) -> dict:
        """HE at a point: exact P(in the beaten zone) over MET-2's deviation x P(hit) per element."""
        state = self.state
        battery = state.elements[action.battery]
        key = ("he", action.battery, action.point, state._pos_version, state._smoke_version, state._version)
        cache = state._candidates.setdefault("_describe", {})
        if key in cache:
            return cache[key]
        out = {"kind": "artillery", "actors": (action.battery,), "at": action.point}
        width, depth = state.beaten_zone(battery)
        bearing = math.radians(state.table.line_of_fire[battery.side])
        reach = math.hypot(width, depth) / 2
        near = [e for e in state.elements.values() if e.on_table and e.alive
                and (e.blind is None or e.side == self.side) and math.dist(e.position, action.point) <= reach * 3]
        blinds = [b for b in state.blinds.values() if b.owner == self.enemy and math.dist(b.position, action.point) <= reach * 3]
        aimed = [e for e in near if e.side == self.enemy and math.dist(e.position, action.point) <= reach]
        aimed += [b for b in blinds if math.dist(b.position, action.point) <= reach]
        harm = kill = own = reveals = 0.0
        if aimed:
            dist = deviation_distribution(rules=state.rules)
            offsets = np.array([d.offset for d in dist.keys()], dtype=float)
            probs = np.array([float(p) for p in dist.values()])
            centres = np.asarray(action.point, dtype=float) + offsets

            def inside(point) -> np.ndarray:
                rel = np.asarray(point, dtype=float) - centres
                across = rel[:, 0] * math.cos(bearing) - rel[:, 1] * math.sin(bearing)
                along = rel[:, 0] * math.sin(bearing) + rel[:, 1] * math.cos(bearing)
                return (np.abs(across) <= width / 2 + 1e-9) & (np.abs(along) <= depth / 2 + 1e-9)

            fn = int(battery.card.get("fn", 0))
            for b in blinds:
                reveals += float(probs[inside(b.position)].sum())
            for e in near:
                cover = state.in_cover(e.id) and state.rules.setting("artillery_cover_applies")
                p = float(probs[inside(e.position)].sum()) * float(hit_probability(fire_number(fn, False, cover, state.rules)))
                if e.side == self.side:
                    own += p
                else:
                    harm += p
                    if e.status >= Status.NEUTRALISED:
                        kill += p
        out.update(harm=harm, kill=kill, own_harm=own, reveals=reveals)
        cache[key] = out
        return out


#: Kinds known from the action's type alone; describing these would cost an exact fire
#: distribution or a cover lookup.
_KIND_BY_TYPE = {Move: "move", Fire: "fire"}


def action_kind(state, action) -> str:
    """The ``kind`` :func:`describe_actions` gives ``action``, without its values (cheap)."""
    kind = _KIND_BY_TYPE.get(type(action))
    return kind if kind is not None else _Describer(state, False).describe(action)["kind"]


def describe_actions(state, actions, detail: bool = True) -> list[dict]:
    """What each of ``actions`` (legal now) does, as a plain dict for planners and search.

    The keys are those of the CHQ ruleset's ``describe_actions``: ``kind`` (move, hold,
    reload, fire, artillery, smoke, end), ``actors``, ``target``, ``to`` / ``end``, ``at``,
    ``advance`` (toward the element's goal, as in CHQ) and ``withdraw`` (in moves of the
    element's allowance), ``cover`` (in cover
    at the end minus now, MET-15/16), ``objective``, ``harm`` (expected hits: the exact
    MET-18 hit probability, or for HE the exact MET-2 deviation over the beaten zone times the
    d10), ``kill`` (expected elements destroyed), ``own_harm`` (hits on own elements under
    HE), ``reveals`` (probability of turning a blind over). With ``detail=False`` HE
    missions are described by their kind, battery and point alone. The dicts are read-only.
    """
    describer = _Describer(state, detail)
    actions = list(actions)
    moves = [a for a in actions if type(a) is Move]
    describer.cover_at([p for a in moves for p in (state.elements[a.element].position, a.point)])
    return [describer.describe(a) for a in actions]
