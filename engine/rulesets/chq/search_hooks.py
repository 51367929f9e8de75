"""Search hooks of a CHQ state: what the AI's search needs beyond the contract.

``plan_scope`` names the stretch of decisions a side is in (one pulse, one barrage round,
one opportunity-fire window, ...); ``resample_hidden`` redraws what a side may not know
(which Blinds are dummies, which unit is under each) consistently with its observation;
``features`` measures the situation in Morale Points; ``describe_actions`` says what each
legal order does, with exact fire and artillery odds. They read the state and never change
it; ``ChqState`` exposes them as thin methods (see its docstring), and ``hooks`` re-exports
them with the planner hooks.
"""

from __future__ import annotations

import copy
import dataclasses
import math

import numpy as np
import shapely

from engine.rulesets.objectives import match_objectives

from . import artillery as art
from .actions import (
    Adjust,
    Barrage,
    Call,
    Cancel,
    Chain,
    Drop,
    End,
    Fire,
    Group,
    Keep,
    Move,
    OpFire,
    Pass,
    Rally,
    Smoke,
    Spot,
    Supply,
    Unsuppress,
)
from .blinds import spot_probability
from .combat import fire_distribution
from .facts import distance as _distance
from .fire import comms_odds
from .state import UnitState
from .victory import capture_points, initial_morale, objective_holder

__all__ = ["plan_scope", "resample_hidden", "features", "describe_actions"]


def _top_decision(state):
    for entry in reversed(state.agenda):
        if entry.what == "decide":
            return entry
    return None


def plan_scope(state, side: str):
    """The stretch of decisions ``side`` is in, as a hashable key; None when it has none.

    One pulse from its chain to its ``end`` (the enemy's opportunity fire inside it
    included), one Initial Barrage Round, one opportunity-fire window, one Logistics
    Phase, one keep-or-drop, one Supply Check. A plan made for a scope is void once the
    key changes.
    """
    if state.game_over:
        return None
    if state.pulse is not None and state.pulse.side == side:
        return ("pulse", state.turn, side, state.lp_count[side])
    entry = _top_decision(state)
    if entry is None or entry.payload != side:
        return None
    if entry.kind == "barrage":
        round_ = state.barrage
        return ("barrage", side, None if round_ is None else round_.number)
    if entry.kind == "opfire":
        window = state.window
        lps = tuple(state.lp_count[s] for s in state.facts.side_ids)
        return ("opfire", state.turn, lps, None if window is None else (window.trigger, window.targets))
    if entry.kind == "logistics":
        return ("logistics", state.turn, side, state.lp_count[side])
    return (entry.kind, state.turn, side)


def resample_hidden(state, side: str, rng):
    """A clone whose facts hidden from ``side`` are redrawn, consistent with ``observation(side)``.

    What ``side`` may not know (CHQ-28, and the observation's docstring): which of the
    enemy's live Blinds are dummies, which unit is under each real one, and the enemy's
    delayed calls. The redraw reads only what ``side`` knows: the enemy's order of battle
    (which units it has; public), the units it has seen or seen dispersed, and the Blind
    markers on the table. Its prior is uniform: every way of putting the unseen units under
    the live Blinds, one unit a Blind, is equally likely. Units under a Blind are fresh
    (no Disruption: fire on a Blind reveals it first); delayed enemy calls are dropped.
    The clone's random generator is reseeded from ``rng``; nothing of the true hidden
    facts reaches it, so two states with the same observation give the same clone.
    """
    facts = state.facts
    enemy = facts.other(side)
    seen = {view.id for view in state.observation(side).enemy_units}
    unseen = [
        u for u in facts.unit_ids
        if facts.units[u].side == enemy and not facts.units[u].battery and facts.units[u].start is not None and u not in seen
    ]
    live = state.live_blinds(enemy)
    order = [live[i] for i in rng.permutation(len(live))]
    placed = dict(zip(unseen, order))  # unit -> Blind; more unseen units than Blinds cannot happen
    under = {b: u for u, b in placed.items()}
    world = state.clone()
    world.rng = np.random.default_rng(int(rng.integers(2**63)))
    new = copy.copy(facts)  # shares the cards, terrain and content-keyed memo
    new.units = dict(facts.units)
    new.blinds = dict(facts.blinds)
    new.blind_unit = {b: u for b, u in facts.blind_unit.items() if facts.blinds[b].owner != enemy or not state.blinds[b].alive}
    for uid in unseen:
        new.units[uid] = dataclasses.replace(facts.units[uid], blind=placed.get(uid))
    for b in live:
        new.blinds[b] = dataclasses.replace(facts.blinds[b], dummy=b not in under)
        if b in under:
            new.blind_unit[b] = under[b]
    world.facts = new
    for uid in unseen:
        b = placed.get(uid)
        if b is None:  # only if the observation were inconsistent: keep it off the table
            world.units[uid] = UnitState(None, facts.units[uid].facing, hidden=False, dispersed=True)
        else:
            world.units[uid] = UnitState(world.blinds[b].pos, facts.units[uid].facing, hidden=True)
    pulse = world.pulse
    if pulse is not None and pulse.side == enemy:
        # what the enemy's Blinds did this pulse is public; which unit did it is not
        acted = {b for b in live if b in pulse.activated}
        old = {b: facts.blind_unit.get(b) for b in acted}
        fired = {b for b in acted if old[b] is not None and old[b] in pulse.fired}
        folds = {b: pulse.folds[old[b]] for b in acted if old[b] is not None and old[b] in pulse.folds}
        hidden_set = set(unseen)
        pulse.activated = {p for p in pulse.activated if p not in hidden_set} | {under[b] for b in acted if b in under}
        pulse.fired = {p for p in pulse.fired if p not in hidden_set} | {under[b] for b in fired if b in under}
        pulse.folds = {u: f for u, f in pulse.folds.items() if u not in hidden_set}
        pulse.folds.update({under[b]: f for b, f in folds.items() if b in under})
    for mid, mission in list(world.missions.items()):
        if mission.side == enemy and mission.status not in ("active", "screen"):
            del world.missions[mid]
    return world


def _move_reach(facts, move: str) -> float:
    row = facts.table("movement")[move]
    return float(row["fixed"]) + 3.5 * float(row["dice"])


def features(state, side: str) -> dict[str, float]:
    """The situation for ``side`` in Morale Points (positive is good), for evaluation.

    ``morale``: own minus enemy Morale Points now. ``objectives``: what the objectives
    would move if the turn ended now (CHQ-29). ``pressure``: soft control of each
    objective, its points times (own minus enemy) closeness, where closeness of the
    nearest able unit is exp(-gap / (one Average move x the turns left, this one included))
    and a suppressed unit counts half: early in a game a unit six moves away still closes in
    by advancing, late only a unit at hand counts.
    ``risk``: expected Morale Points the enemy minus we lose to dispersal, a unit with
    ``d`` of ``c`` Disruption counting (d / c)^2 x E[D3]. ``fire``: the same measure of the
    fire each side could bring now (exact ``threat`` of its two best units on each visible
    target, in Morale Points through the risk measure), ours minus the enemy's: cover, smoke
    and range change it at once. ``remaining``: share of the game left, the current turn counting half; ``left``: whole
    turns after this one. ``scale``: a
    decisive Morale Point difference for this scenario.
    """
    facts = state.facts
    enemy = facts.other(side)
    sign = {side: 1.0, enemy: -1.0}
    hidden_hold = bool(facts.s("blinds_hold_objectives"))
    turns = max(1, int(facts.scenario.turns or 1))
    horizon = _move_reach(facts, "Average") * (1 + max(0, turns - max(state.turn, 1)))
    objectives = 0.0
    pressure = 0.0
    for objective in facts.objectives:
        on: dict[str, list[bool]] = {}
        close = {side: 0.0, enemy: 0.0}
        for uid in facts.unit_ids:
            unit = state.units[uid]
            f = facts.units[uid]
            if unit.pos is None or f.battery or (unit.hidden and not hidden_hold):
                continue
            gap = _distance(unit.pos, objective.position) - objective.radius
            if gap <= 0:
                on.setdefault(f.side, []).append(unit.suppressed)
            c = math.exp(-max(0.0, gap) / horizon) * (0.5 if unit.suppressed else 1.0)
            close[f.side] = max(close[f.side], c)
        points = capture_points(facts, objective)
        holder = objective_holder(facts, objective, on)
        previous = state.holders.get(objective.id)
        if holder is not None and holder != previous:
            objectives += sign[holder] * points
            if previous is not None:
                objectives += sign[holder] * points
        pressure += points * (close[side] - close[enemy])
    risk = 0.0
    for uid in facts.unit_ids:
        unit = state.units[uid]
        if unit.pos is None or facts.units[uid].battery:
            continue
        share = unit.disruption / max(1, facts.units[uid].cohesion)
        risk -= sign[facts.units[uid].side] * 2.0 * share * share
    fire = _fire_balance(state, side, enemy)
    start = [initial_morale(facts, s) for s in facts.side_ids]
    return {
        "morale": float(state.morale[side] - state.morale[enemy]),
        "objectives": float(objectives),
        "pressure": float(pressure),
        "risk": float(risk),
        "fire": float(fire),
        "remaining": max(0.0, (turns - max(state.turn, 1) + 0.5) / turns),
        "left": float(max(0, turns - max(state.turn, 1))),
        "scale": max(3.0, sum(start) / 2.0),
    }




def _fire_balance(state, side: str, enemy: str) -> float:
    """Morale Points the fire now possible is worth: ours on the enemy minus its on us (memoised
    on everything it reads: pieces, facings, markers and screens)."""
    facts = state.facts
    first = facts.side_ids[0]
    units = tuple((u, s.hidden, s.suppressed, s.disruption) for u, s in state.units.items() if s.pos is not None)
    key = ("fire-balance", state.side_key(first), state.side_key(facts.other(first)), units, state._screen_key())
    value = facts.memo.get(key)
    if value is None:
        value = _fire_balance_of(state, first, facts.other(first))
        facts._remember(key, value)
    return value if side == first else -value


def _fire_balance_of(state, side: str, enemy: str) -> float:
    from .hooks import threat

    facts = state.facts
    total = 0.0
    for shooter_side, sign in ((side, 1.0), (enemy, -1.0)):
        shooters = [u for u in state.on_table_units(shooter_side) if not facts.units[u].battery]
        for target in state.revealed_units(facts.other(shooter_side)):
            if facts.units[target].battery:
                continue
            values = sorted((threat(state, f, target) for f in shooters), reverse=True)[:2]
            harm = sum(values)
            if harm <= 0:
                continue
            d, c = state.units[target].disruption, max(1, facts.units[target].cohesion)
            after = min(float(c), d + harm)
            total += sign * 2.0 * (after * after - d * d) / (c * c)
    return total




class _Describer:
    """Per-state context shared by the descriptions of one list of actions."""

    def __init__(self, state, detail: bool = True):
        self.state = state
        self.detail = detail
        self.facts = state.facts
        mover = state.current_player()
        self.side = mover if mover in self.facts.side_ids else None
        self.enemy = None if self.side is None else self.facts.other(self.side)
        self._enemy_at = None
        self._goal = None  # piece -> the objective it makes for (match_objectives)

    # ---------------------------------------------------------------- geometry helpers
    def enemy_at(self) -> dict:
        """Revealed enemy units by (rounded) position: where the canonical aims lie."""
        if self._enemy_at is None:
            self._enemy_at = {}
            for uid in self.state.revealed_units(self.enemy):
                if not self.facts.units[uid].battery:
                    pos = self.state.units[uid].pos
                    self._enemy_at[(round(pos[0], 3), round(pos[1], 3))] = uid
        return self._enemy_at

    def goal(self, start, piece: str | None = None):
        """Where an advance heads: the objective ``piece`` is matched to (nearest pairs first, one
        piece per objective: :func:`~engine.rulesets.objectives.match_objectives`,
        so that pieces spread over the objectives instead of all making for one), else the
        nearest objective the side does not hold, else the nearest."""
        objectives = list(self.facts.objectives)
        if not objectives:
            enemies = list(self.enemy_at())
            return min(enemies, key=lambda p: _distance(p, start)) if enemies else None
        free = [o for o in objectives if self.state.holders.get(o.id) != self.side] or objectives
        if self._goal is None:
            state, facts = self.state, self.facts
            pieces = [(u, state.units[u].pos) for u in state.revealed_units(self.side) if not facts.units[u].battery]
            pieces += [(b, state.blinds[b].pos) for b in state.live_blinds(self.side)]
            self._goal = match_objectives(pieces, [(o.id, o.position) for o in free])
        matched = self._goal.get(piece)
        if matched is not None:
            return tuple(next(o.position for o in free if o.id == matched))
        return tuple(min(free, key=lambda o: _distance(o.position, start)).position)

    def cover(self, uid, pos) -> int:
        if uid is None or uid not in self.facts.units:
            return 0
        return int(self.facts.cover_at(self.facts.base_of(uid, pos, self.state.units[uid].facing), False))

    # ---------------------------------------------------------------- one action
    def describe(self, action) -> dict:
        kind = type(action)
        if kind is Move:
            return self.move(action)
        if kind is Fire:
            return self.fire(action.unit, action.target, action.indirect)
        if kind is OpFire:
            return self.fire(action.unit, action.target, False, opportunity=True)
        if kind is Call:
            if not self.detail:  # who fires where, without the Comms Check, deviation and fire values
                return {"kind": "artillery", "actors": tuple(action.batteries), "at": action.at}
            return self.call(action)
        if kind is Smoke:
            return {"kind": "smoke", "actors": (action.battery,), "at": action.at, "cost": 1}
        if kind is Chain:
            return {"kind": "chain", "dice": action.dice, "cost": action.staff}
        if kind is Group:
            return {"kind": "group", "actors": tuple(action.units), "size": len(action.units)}
        if kind is Spot:
            return self.spot(action)
        if kind is Rally:
            return self.rally()
        if kind is Unsuppress:
            return {"kind": "unsuppress", "actors": (action.unit,), "cost": 1}
        if kind is Barrage:
            if action.at is not None:
                return {"kind": "smoke", "actors": (action.battery,), "at": action.at}
            if action.blind is None:
                return {"kind": "hold", "actors": (action.battery,)}
            pos = self.state.blinds[action.blind].pos
            return {"kind": "barrage", "actors": (action.battery,), "target": action.blind, "at": pos}
        if kind is Supply:
            return {"kind": "supply", "actors": (action.battery,), "cost": action.staff}
        if kind is Keep:
            return {"kind": "keep", "actors": (action.battery,), "cost": 1}
        if kind is Drop:
            return {"kind": "drop", "actors": (action.battery,)}
        if kind is Adjust:
            return {"kind": "adjust", "actors": (action.battery,), "at": action.at, "cost": 1}
        if kind is Cancel:
            return {"kind": "cancel", "actors": (action.battery,)}
        if kind is End:
            return {"kind": "end"}
        if kind is Pass:
            return {"kind": "pass"}
        return {"kind": "other"}

    def move(self, action: Move) -> dict:
        from .decisions import current_pieces

        state, facts = self.state, self.facts
        pieces = current_pieces(state)
        if not pieces:
            return {"kind": "move", "to": action.to, "actors": ()}
        lead = pieces[0]
        start = state.piece_pos(lead)
        uid = state.piece_unit(lead) if lead in facts.units else None
        speed = facts.units[uid].move if uid is not None and not state.units[uid].hidden else facts.s("blind_move")
        single = _move_reach(facts, speed)
        reach = single * action.fold
        dx, dy = action.to[0] - start[0], action.to[1] - start[1]
        length = math.hypot(dx, dy)
        if length > reach:
            dx, dy = dx * reach / length, dy * reach / length
        end = facts.clip((start[0] + dx, start[1] + dy))
        goal = self.goal(start, lead)
        advance = 0.0 if goal is None else (_distance(start, goal) - _distance(end, goal)) / single
        ex, ey = facts.edge_vector(self.side)
        withdraw = (dx * ex + dy * ey) / single
        on_goal = goal is not None and any(_distance(end, o.position) <= o.radius for o in facts.objectives)
        return {
            "kind": "move",
            "actors": tuple(pieces),
            "to": action.to,
            "end": end,
            "advance": advance,
            "withdraw": withdraw,
            "cover": self.cover(uid, end) - self.cover(uid, start),
            "objective": bool(on_goal),
            "cost": action.fold - 1,
        }

    def fire(self, unit, target, indirect, opportunity=False) -> dict:
        from .combat import PendingFire
        from .orders import fire_params

        state = self.state
        uid = state.piece_unit(unit)
        out = {"kind": "fire", "actors": (unit,), "target": target}
        if uid is None or target not in self.facts.units:
            return out
        fire = fire_params(state, uid, target, indirect, penalty=0 if opportunity else None)
        if not isinstance(fire, PendingFire):
            return out
        harm, kill = self._fire_value(fire)
        out.update(harm=harm, kill=kill)
        return out

    def _fire_value(self, fire) -> tuple[float, float]:
        key = ("describe-fire", fire, self.state.units[fire.target].disruption)
        cached = self.facts.memo.get(key)
        if cached is None:
            need = max(1, self.facts.units[fire.target].cohesion - self.state.units[fire.target].disruption)
            outcomes = fire_distribution(self.facts, fire)
            harm = float(sum(p * r.disruption for r, p in outcomes))
            kill = float(sum(p for r, p in outcomes if r.disruption >= need))
            cached = (harm, kill)
            self.facts._remember(key, cached)
        return cached

    def call(self, action: Call) -> dict:
        """An on-call mission aimed at or next to a revealed enemy unit or a Blind: its exact harm
        on revealed units under it (Comms Check x deviation x fire) and the Blinds it would turn
        over. A mission aimed at neither (a bare grid point) is described with zero harm."""
        state, facts = self.state, self.facts
        out = {"kind": "artillery", "actors": tuple(action.batteries), "at": action.at, "cost": len(action.batteries),
               "continuous": action.duration == "continuous"}
        if not self.detail:
            return out
        width, depth = facts.table("templates")[art.sheaf_name(action.sheaf)]["size"]
        fixed, dice = facts.s("deviation_distance")
        reach = math.hypot(width, depth) / 2 + float(fixed) + 6.0 * float(dice) + 3.0
        aimed = math.hypot(width, depth) / 2 + 1.0
        targets = [p for p in self.enemy_at() if _distance(p, action.at) <= aimed]
        blinds = [b for b in state.live_blinds(self.enemy) if _distance(state.blinds[b].pos, action.at) <= aimed]
        if not targets and not blinds:
            # not aimed at anything the side knows of: only a deviation could bring it onto a target
            out.update(harm=0.0, kill=0.0, own_harm=0.0, reveals=0.0)
            return out
        near = [u for u in facts.unit_ids if state.units[u].pos is not None and not facts.units[u].battery
                and not state.units[u].hidden and _distance(state.units[u].pos, action.at) <= reach]
        blinds = [b for b in state.live_blinds(self.enemy) if _distance(state.blinds[b].pos, action.at) <= reach]
        key = ("describe-call", action.batteries, action.at, action.sheaf, tuple((u, state.units[u].pos, state.units[u].disruption, state.units[u].suppressed) for u in near),
               tuple(state.blinds[b].pos for b in blinds))
        cached = facts.memo.get(key)
        if cached is None:
            cached = self._call_value(action, near, blinds, width, depth)
            facts._remember(key, cached)
        harm, kill, own, reveals = cached
        out.update(harm=harm, kill=kill, own_harm=own, reveals=reveals)
        return out

    def _call_value(self, action: Call, near, blinds, width, depth) -> tuple[float, float, float, float]:
        """Exact (harm, kill, own harm, Blinds revealed) of a mission, over the Comms Check and
        every deviation outcome; templates are squares (CHQ-21), tested in bulk."""
        from .orders import artillery_fire_on

        state, facts = self.state, self.facts
        outcomes = art.deviation_outcomes(facts)
        probs = np.array([float(p) for _, p in outcomes])
        cx = np.array([action.at[0] + d.offset[0] for d, _ in outcomes])
        cy = np.array([action.at[1] + d.offset[1] for d, _ in outcomes])
        boxes = shapely.box(cx - width / 2, cy - depth / 2, cx + width / 2, cy + depth / 2)
        mission = art.Mission(0, self.side, tuple(action.batteries), "single", action.sheaf, action.at, 0.0, None, "comms", action.at)
        bonus = art.partial_bonus(facts, action.sheaf)
        harm = kill = own = reveals = 0.0
        for b in blinds:
            reveals += float(probs[shapely.intersects(facts.blind_base(state.blinds[b].pos), boxes)].sum())
        for u in near:
            if facts.units[u].side == self.side and not facts.s("artillery_hits_all"):
                continue
            base = state.base(u)
            hit = shapely.intersects(base, boxes)
            if not hit.any():
                continue
            pos = state.units[u].pos
            whole = artillery_fire_on(state, mission, art.make_template(facts, pos, action.sheaf), u, False)
            if whole is None:
                continue
            values = np.full(len(outcomes), self._fire_value(whole)[0])
            kills = np.full(len(outcomes), self._fire_value(whole)[1])
            if bonus:
                far = (pos[0] + 10 * (width + depth), pos[1])
                part = artillery_fire_on(state, mission, art.make_template(facts, far, action.sheaf), u, False)
                cover = shapely.area(shapely.intersection(base, boxes)) / base.area
                ph, pk = self._fire_value(part)
                values = np.where(cover < 0.5, ph, values)
                kills = np.where(cover < 0.5, pk, kills)
            h = float((probs * hit * values).sum())
            if facts.units[u].side == self.side:
                own += h
            else:
                harm += h
                kill += float((probs * hit * kills).sum())
        p_comms = float(comms_odds(facts.sides[self.side].comms_dice, rules=facts.rules))
        return (harm * p_comms, kill * p_comms, own * p_comms, reveals * p_comms)

    def spot(self, action: Spot) -> dict:
        state = self.state
        uid = state.piece_unit(action.unit)
        out = {"kind": "spot", "actors": (action.unit,), "target": action.blind}
        if uid is None:
            return out
        _, smoke = state.sees(uid, action.blind)
        dist = _distance(state.units[uid].pos, state.blinds[action.blind].pos)
        out["reveals"] = float(spot_probability(self.facts, self.facts.units[uid], dist, smoke))
        return out

    def rally(self) -> dict:
        from engine.dice import opposed_check

        from .decisions import current_pieces

        state, facts = self.state, self.facts
        tn = int(facts.s("check_tn"))
        p = float(opposed_check(int(facts.s("rally_dice")), int(facts.s("rally_opposing_dice")), tn, tn))
        units = [state.piece_unit(piece) for piece in current_pieces(state)]
        disrupted = [u for u in units if u is not None and state.units[u].disruption > 0]
        return {"kind": "rally", "actors": tuple(disrupted), "harm": -p * len(disrupted)}


#: Kinds known from the action's type alone; describing these would cost an exact fire
#: distribution or a cover lookup.
_KIND_BY_TYPE = {Move: "move", Fire: "fire", OpFire: "fire", Spot: "spot", Rally: "rally"}


def action_kind(state, action) -> str:
    """The ``kind`` :func:`describe_actions` gives ``action``, without its values (cheap)."""
    kind = _KIND_BY_TYPE.get(type(action))
    return kind if kind is not None else _Describer(state, False).describe(action)["kind"]


def describe_actions(state, actions, detail: bool = True) -> list[dict]:
    """What each of ``actions`` (legal now) does, as a plain dict for planners and search.

    Keys (all optional but ``kind``): ``kind`` (chain, group, move, fire, spot, rally,
    unsuppress, artillery, smoke, barrage, hold, keep, drop, supply, adjust, cancel, end,
    pass), ``actors`` (own pieces), ``target`` (an enemy unit or Blind), ``to`` / ``end``
    (a move's aim and its expected end point), ``at`` (an aim point), ``advance`` (how much
    nearer the mover's goal, in single moves of its speed: the objective it is matched to, one
    piece per objective, else the nearest not held),
    ``withdraw`` (toward the own table edge, in moves), ``cover`` (Reaction dice of cover
    at the end minus now, CHQ-7), ``objective`` (the move ends on an objective), ``harm``
    (exact expected Disruption on enemy units; negative for Disruption rallied off),
    ``kill`` (expected number of enemy units dispersed), ``own_harm`` (on own units),
    ``reveals`` (probability of turning a Blind over), ``dice`` (a chain's dice), ``cost``
    (Staff Orders or extra chain dice spent), ``continuous`` (a continuous mission).
    Artillery values include the Comms Check and the exact deviation; fire values are the
    exact fire distribution (CHQ-3 to CHQ-6). With ``detail=False`` missions are
    described by their kind, batteries and point alone, which is much cheaper. The dicts are read-only.
    """
    describer = _Describer(state, detail)
    return [describer.describe(a) for a in actions]
