"""What orders do: fire parameters, moves with opportunity fire, missions landing, objectives.

These functions change a :class:`~engine.rulesets.chq.game.ChqState` in place
and push agenda entries; the checks that an order is legal live in
``decisions.py``. Fire parameters are computed once, when a fire is declared.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from . import artillery as art
from .combat import PendingFire, direct_tn, effective, is_flank, smoke_tn
from .facts import distance
from .movement import move_vector, path_points, speed_of
from .sightlines import compute_sight
from .state import Entry, MoveContext, Window
from .victory import capture_points, objective_holder

__all__ = [
    "MoveOrder",
    "fire_params",
    "fold_penalty",
    "start_move",
    "finish_move_roll",
    "opfire_options",
    "declare_opfire",
    "close_window",
    "land",
    "barrage_fire",
    "check_objectives",
    "artillery_fire_on",
]


@dataclass(frozen=True, slots=True)
class MoveOrder:
    """A move waiting for its variable dice: the pieces, where to, fixed inches and dice."""

    pieces: tuple[str, ...]
    to: tuple[float, float]
    fold: int
    fixed: int
    dice: int


# ------------------------------------------------------------------------ fire
def fold_penalty(state, uid: str) -> int:
    """Dice a firer loses for a k-fold move this pulse (CHQ-8: double 1D, triple 2D)."""
    if state.pulse is None or state.facts.units[uid].side != state.pulse.side:
        return 0
    fold = state.pulse.folds.get(uid, 1)
    return max(0, fold - 1) * int(state.facts.s("fold_fire_penalty"))


def _reaction(state, target: str, base, indirect: bool) -> tuple[int, int]:
    facts = state.facts
    card = facts.units[target]
    dice = card.reaction + facts.cover_at(base, indirect)
    tn = int(facts.s("reaction_tn_suppressed" if state.units[target].suppressed else "reaction_tn"))
    return dice, tn


def fire_params(
    state,
    firer: str,
    target: str,
    indirect: bool = False,
    *,
    target_pos=None,
    seen: tuple[bool, int] | None = None,
    kind: str | None = None,
    halt: int | None = None,
    penalty: int | None = None,
) -> PendingFire | str:
    """The PendingFire of ``firer`` at ``target`` now, or a sentence saying why it cannot fire.

    ``target_pos`` and ``seen`` give the target's position and (visible, screens) on a move path
    (opportunity fire, CHQ-31); otherwise the state's sight table is used.
    """
    facts = state.facts
    f, t = facts.units[firer], facts.units[target]
    fpos = state.units[firer].pos
    tpos = target_pos if target_pos is not None else state.units[target].pos
    if fpos is None:
        return f"{firer} is not on the table"
    if tpos is None:
        return f"{target} is not on the table"
    dist = distance(fpos, tpos)
    lost = fold_penalty(state, firer) if penalty is None else penalty
    base = facts.base_of(target, tpos, state.units[target].facing)
    if not indirect:
        if f.direct is None:
            what = "a mortar" if "mortar" in (f.card + " " + f.kind).lower() or f.indirect else firer
            return f"{firer} has no direct fire: {what} may only fire indirectly (CHQ-1)"
        visible, screens = seen if seen is not None else state.sees(firer, target)
        if not visible:
            return f"{firer} cannot see {target} (less than half of its base is in sight, CHQ-30)"
        flank = is_flank(tpos, state.units[target].facing, fpos, float(facts.s("front_arc_half_angle")))
        tn = direct_tn(facts, f.direct.ranges, dist, screens, flank)
        if tn is None:
            return f'{target} is {dist:.1f}" away, beyond {firer}\'s long range of {f.direct.ranges[2]:g}" (CHQ-8)'
        dice = f.dice_against(t.armoured) - lost
        if f.dice_against(t.armoured) == 0:
            return f"{firer} has no {'AT' if t.armoured else 'FP'} dice against {target} (CHQ-3)"
        reaction, reaction_tn = _reaction(state, target, base, False)
        if effective(facts, dice, tn)[0] <= 0:
            return f"{firer}'s {max(dice, 0)}D at {tn}+ loses all its dice (CHQ-11) and cannot fire"
        return PendingFire(firer, target, dice, tn, reaction, reaction_tn, f.high_suppression, kind or "direct", halt)
    if f.indirect is None:
        return f"{firer} has no indirect fire"
    if f.battery:
        return f"{firer} is a Direct Support battery: call a mission for it instead"
    if dist < f.indirect.min_range:
        if f.direct is None:
            return (
                f'{firer} is a mortar and cannot fire at all inside its minimum range of {f.indirect.min_range:g}"'
                f' ({target} is {dist:.1f}" away, CHQ-9)'
            )
        return (
            f'{target} is {dist:.1f}" away, inside {firer}\'s minimum indirect range of {f.indirect.min_range:g}";'
            " it may still fire directly (CHQ-9)"
        )
    if dist > f.indirect.max_range:
        return f'{target} is {dist:.1f}" away, beyond {firer}\'s maximum indirect range of {f.indirect.max_range:g}" (CHQ-9)'
    if facts.s("indirect_spotter") == "firer":
        spotters = [firer] if state.sees(firer, target)[0] else []
        if not spotters:
            return f"{firer} cannot see {target}, and indirect_spotter is 'firer' (CHQ-9)"
    else:
        spotters = [u for u in state.on_table_units(f.side) if state.sees(u, target)[0]]
    if not spotters:
        return f"no unit of {f.side} sees {target}, so {firer} cannot fire at it indirectly (CHQ-9)"
    screens = min(state.sees(u, target)[1] for u in spotters)
    tn = int(facts.s("indirect_tn")) + smoke_tn(facts, screens)
    if f.dice_against(t.armoured, indirect=True) == 0:
        return f"{firer} has no indirect {'AT' if t.armoured else 'FP'} dice against {target} (CHQ-3)"
    dice = f.dice_against(t.armoured, indirect=True) - lost
    if effective(facts, dice, tn)[0] <= 0:
        return f"{firer}'s {max(dice, 0)}D at {tn}+ loses all its dice (CHQ-11) and cannot fire"
    reaction, reaction_tn = _reaction(state, target, base, True)
    return PendingFire(firer, target, dice, tn, reaction, reaction_tn, f.high_suppression, kind or "indirect", halt)


def declare_fire(state, fire: PendingFire) -> None:
    """A unit fires in its pulse: reveal it, mark it, and open the enemy's window (CHQ-31)."""
    state.reveal_unit(fire.firer)
    state.units[fire.firer].fire_marker = True
    enemy = state.facts.other(state.facts.units[fire.firer].side)
    state.window = Window(enemy, "fire", (fire.firer,), frozenset(), (fire,))
    state.push(Entry("decide", "opfire", enemy), Entry("step", "fire_resolve"))


# ------------------------------------------------------------------------ moves
def start_move(state, pieces, to, fold: int, suppressed: bool) -> None:
    facts = state.facts
    speeds = []
    for piece in pieces:
        uid = state.piece_unit(piece)
        if piece in facts.blinds or uid is None or state.units[uid].hidden:
            speeds.append(speed_of(facts, facts.s("blind_move")))
        else:
            speeds.append(speed_of(facts, facts.units[uid].move))
    _, fixed, dice = min(speeds, key=lambda s: (s[1] + 3.5 * s[2], s[1]))
    fixed_total = 0 if suppressed else fixed * fold
    order = MoveOrder(tuple(pieces), tuple(to), fold, fixed_total, dice * fold)
    state.push(Entry("roll", "move", order))


def finish_move_roll(state, order: MoveOrder, total: int) -> None:
    """The move's dice are rolled: place the path, then the enemy may fire on it (CHQ-31)."""
    facts = state.facts
    allowance = float(order.fixed + total)
    leader = state.piece_pos(order.pieces[0])
    starts = [state.piece_pos(p) for p in order.pieces]
    full = move_vector(leader, order.to, allowance)
    if any(facts.crosses_difficult(s, (s[0] + full[0], s[1] + full[1])) for s in starts):
        allowance *= float(facts.s("difficult_terrain_factor"))
    dx, dy = move_vector(leader, order.to, allowance)
    ends = [facts.clip((s[0] + dx, s[1] + dy)) for s in starts]
    count = int(facts.s("opportunity_path_points"))
    paths = tuple(tuple(path_points(s, e, count)) for s, e in zip(starts, ends))
    facing = state.bearing((0.0, 0.0), (dx, dy)) if (dx or dy) else None
    units = tuple(state.piece_unit(p) if (p in facts.units) else None for p in order.pieces)
    state.move = MoveContext(
        order.pieces,
        units,
        tuple(starts),
        tuple(ends),
        paths,
        facing if facing is not None else -1.0,
        tuple(None for _ in order.pieces),
        tuple(False for _ in order.pieces),
    )
    movers = tuple(u for u in units if u is not None and not state.units[u].hidden)
    enemy = facts.other(state.side_of(order.pieces[0]))
    if movers:
        state.window = Window(enemy, "move", movers)
        state.push(Entry("decide", "opfire", enemy), Entry("step", "move_finish"))
    else:
        state.push(Entry("step", "move_finish"))


def move_finish(state) -> None:
    ctx = state.move
    state.window = None
    state.move = None
    if ctx is None:
        return
    for i, piece in enumerate(ctx.pieces):
        uid = ctx.units[i]
        if uid is not None and state.units[uid].pos is None:
            continue
        if ctx.done[i]:
            continue
        end = ctx.paths[i][ctx.halted[i]] if ctx.halted[i] is not None else ctx.ends[i]
        state.move_piece(piece, end)
        if uid is not None and ctx.facing >= 0:
            state.units[uid].facing = ctx.facing


def _eligible_opfirers(state, side: str) -> list[str]:
    facts = state.facts
    return [
        u
        for u in state.on_table_units(side)
        if not state.units[u].suppressed
        and not state.units[u].fire_marker
        and facts.units[u].direct is not None
        and u not in state.window.used
    ]


def _mover_sight(state, firers, movers):
    """Sight from each firer to each mover at each of its path points: one kernel call."""
    ctx = state.move
    targets, index = [], []
    for m in movers:
        i = ctx.units.index(m)
        for k, point in enumerate(ctx.paths[i]):
            targets.append(state._viewpoint(m, point))
            index.append((m, k))
    side = state.window.side
    observers = [state._viewpoint(u) for u in firers]
    found = compute_sight(state.facts, observers, targets, state.blockers(side, list(firers)), state.screen_polygons())
    return index, found


def opfire_options(state) -> list[tuple[str, str]]:
    """(firer, target) pairs of the open opportunity-fire window."""
    window = state.window
    if window is None:
        return []
    firers = _eligible_opfirers(state, window.side)
    if not firers:
        return []
    out = []
    if window.trigger == "fire":
        for u in firers:
            for t in window.targets:
                if state.units[t].pos is not None and isinstance(fire_params(state, u, t, penalty=0), PendingFire):
                    out.append((u, t))
        return out
    movers = [m for m in window.targets if state.units[m].pos is not None and not state.move.done[state.move.units.index(m)]]
    if not movers:
        return []
    facings = tuple(state.units[m].facing for m in movers)
    key = ("opfire", state.move, tuple(firers), tuple(movers), facings, state.side_key(window.side), state._screen_key())
    cached = state._cache.get(key)
    if cached is None:
        index, found = _mover_sight(state, firers, movers)
        cached = []
        for a, u in enumerate(firers):
            for m in movers:
                if _halt_fire(state, u, m, index, found.visible[a], found.smoke[a]) is not None:
                    cached.append((u, m))
        state._remember(key, cached)
    return list(cached)


def _halt_fire(state, u, m, index, visible_row, smoke_row):
    ctx = state.move
    i = ctx.units.index(m)
    for col, (mm, k) in enumerate(index):
        if mm != m or not visible_row[col]:
            continue
        fire = fire_params(
            state, u, m, target_pos=ctx.paths[i][k], seen=(True, int(smoke_row[col])), kind="opportunity", halt=k, penalty=0
        )
        if isinstance(fire, PendingFire):
            return fire
    return None


def declare_opfire(state, firer: str, target: str) -> None:
    window = state.window
    if window.trigger == "fire":
        fire = fire_params(state, firer, target, kind="opportunity", penalty=0)
        state.window = replace(window, used=window.used | {firer}, declared=window.declared + (fire,))
        state.reveal_unit(firer)
        state.units[firer].fire_marker = True
        return
    index, found = _mover_sight(state, [firer], [target])
    fire = _halt_fire(state, firer, target, index, found.visible[0], found.smoke[0])
    state.window = replace(window, used=window.used | {firer})
    state.reveal_unit(firer)
    state.units[firer].fire_marker = True
    state.push(Entry("roll", "fire", fire))


def close_window(state) -> None:
    """After the window: a fire and the fires on its firer resolve together (CHQ-31)."""
    window = state.window
    state.window = None
    if window is not None and window.trigger == "fire":
        state.push(*[Entry("roll", "fire", fire) for fire in window.declared])


# ------------------------------------------------------------------------ artillery
def artillery_fire_on(state, mission, template, uid: str, blind_bonus: bool) -> PendingFire | None:
    """The attack of a template on one unit under it (CHQ-21, CHQ-7, CHQ-28)."""
    facts = state.facts
    t = facts.units[uid]
    dice = art.mission_dice(facts, mission.batteries, t.armoured)
    if dice <= 0:
        return None
    base = state.base(uid)
    reaction, reaction_tn = _reaction(state, uid, base, True)
    if blind_bonus:
        reaction += int(facts.s("blind_template_bonus"))
    elif art.partial_bonus(facts, mission.sheaf) and template.coverage(base) < 0.5:
        reaction += int(facts.s("partial_template_bonus"))
    high = any(facts.units[b].high_suppression for b in mission.batteries)
    return PendingFire(
        ",".join(mission.batteries), uid, dice, int(facts.s("indirect_tn")), reaction, reaction_tn, high, "barrage" if mission.barrage else "artillery"
    )


def land(state, mid: int) -> None:
    """A mission lands where it deviated to: a screen, or a template that attacks what is under it."""
    facts = state.facts
    mission = state.missions.get(mid)
    if mission is None:
        return
    side = mission.side
    if mission.kind == "smoke":
        extra = 1 if facts.s("smoke_extra_pulse") else 0
        state.missions[mid] = replace(mission, status="screen", expires_lp=state.lp_count[side] + 1 + extra)
        if not mission.barrage:
            for b in mission.batteries:
                state.battery_used[b] = "smoke"
        state.log.append(f"{','.join(mission.batteries)} smoke lands at {mission.centre[0]:.1f},{mission.centre[1]:.1f}")
        return
    template = art.make_template(facts, mission.centre, mission.sheaf)
    polygon = template.polygon
    if not mission.barrage:
        for b in mission.batteries:
            state.battery_used[b] = "fire"
    enemy = facts.other(side)
    fires = []
    blind_hit = set()
    for blind in state.live_blinds(enemy):
        if facts.blind_base(state.blinds[blind].pos).intersects(polygon):
            uid = facts.blind_unit.get(blind)
            state.reveal_blind(blind)
            if uid is not None and state.units[uid].pos is not None:
                blind_hit.add(uid)
    for uid in facts.unit_ids:
        unit = state.units[uid]
        if unit.pos is None:
            continue
        if uid not in blind_hit:
            if not facts.s("artillery_hits_all") and facts.units[uid].side == side:
                continue
            if not state.base(uid).intersects(polygon):
                continue
        fire = artillery_fire_on(state, mission, template, uid, uid in blind_hit)
        if fire is not None:
            fires.append(Entry("roll", "fire", fire))
    if mission.kind == "continuous" and not mission.barrage:
        state.missions[mid] = replace(mission, status="active", fired_lp=state.lp_count[side], adjusted=False)
    else:
        del state.missions[mid]
    state.push(*fires)


def barrage_fire(state) -> None:
    """Resolve an allocated Initial Barrage Round (CHQ-25, CHQ-27): no cost, no deviation, at once."""
    round_ = state.barrage
    groups: dict[str, list[str]] = {}
    steps = []
    for action in round_.assigned:
        if action.at is not None:
            mid = state.new_mission(
                side=round_.side, batteries=(action.battery,), kind="smoke", sheaf="smoke", aim=action.at,
                bearing=action.bearing, fo=None, status="landing", centre=action.at, barrage=True,
            )
            steps.append(Entry("step", "land", mid))
        elif action.blind is not None:
            groups.setdefault(action.blind, []).append(action.battery)
    for blind, batteries in groups.items():
        if not state.blinds[blind].alive:
            continue
        pos = state.blinds[blind].pos
        mid = state.new_mission(
            side=round_.side, batteries=tuple(batteries), kind="single", sheaf="regular", aim=pos, bearing=0.0,
            fo=None, status="landing", centre=pos, barrage=True,
        )
        steps.append(Entry("step", "land", mid))
    state.push(*steps)


# ------------------------------------------------------------------------ objectives
def check_objectives(state) -> None:
    """End of turn (CHQ-29): holders, first captures and later captures move points."""
    facts = state.facts
    hidden_hold = bool(facts.s("blinds_hold_objectives"))
    for objective in facts.objectives:
        on: dict[str, list[bool]] = {}
        for uid in facts.unit_ids:
            unit = state.units[uid]
            if unit.pos is None or (unit.hidden and not hidden_hold):
                continue
            if distance(unit.pos, objective.position) <= objective.radius:
                on.setdefault(facts.units[uid].side, []).append(unit.suppressed)
        holder = objective_holder(facts, objective, on)
        previous = state.holders.get(objective.id)
        if holder is None or holder == previous:
            continue
        points = capture_points(facts, objective)
        state.morale[holder] += points
        if previous is not None:
            state.morale[previous] = max(0, state.morale[previous] - points)
        state.holders[objective.id] = holder
        state.log.append(f"{holder} captures {objective.id}")


def visible_enemy_points(state, side: str) -> list[tuple[float, float]]:
    table = state.sight(side)
    seen = np.asarray(table["visible"]).any(axis=0) if len(table["observers"]) else []
    return [state.piece_pos(t) for t, ok in zip(table["targets"], seen) if ok]
