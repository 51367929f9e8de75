"""The decisions of a CHQ game: what each side may order now, why an order is illegal, and
how a legal order is carried out.

Every decision point is an agenda entry ``decide`` of one kind:

=========  ==========================================================================
barrage    allocate each battery of an Initial Barrage Round (CHQ-25 to CHQ-27)
keep       after a Command Failure: keep each mission for a Staff Order, or drop it (CHQ-13)
chain      choose the pulse's dice chain (CHQ-13, CHQ-14): no passing
pulse      groups, moves, fires, spotting, rally, suppression removal, missions, ``end``
opfire     the enemy's opportunity fire at a mover or a firer, then ``pass`` (CHQ-31)
logistics  adjust or cancel continuous missions, then ``end`` (CHQ-15, CHQ-19)
supply     add Staff Orders to a mission's end-of-turn Supply Check (CHQ-22)
=========  ==========================================================================

``legal`` gives the canonical list (placements on the lattice of sighted enemies,
Blinds and the ``grid_spacing`` grid); ``reason`` accepts any placement on the
table and explains a refusal in one sentence.
"""

from __future__ import annotations

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
from .blinds import spot_tn
from .combat import PendingFire
from .command import canonical_chains, chain_problem
from .facts import distance
from .movement import canonical_destinations, speed_of
from .orders import (
    close_window,
    declare_fire,
    declare_opfire,
    fire_params,
    opfire_options,
    start_move,
    visible_enemy_points,
)
from .state import Entry

__all__ = ["legal", "reason", "apply", "has_choice", "skip"]


# ============================================================================ dispatch
def legal(state, entry: Entry) -> list:
    return list(dict.fromkeys(_LEGAL[entry.kind](state, entry.payload)))


def reason(state, entry: Entry, action) -> str | None:
    allowed = _ACTIONS[entry.kind]
    if not isinstance(action, allowed):
        names = ", ".join(sorted({_word(a) for a in allowed}))
        return f"it is {entry.payload}'s {_PHASE[entry.kind]}: the orders now are {names}"
    return _REASON[entry.kind](state, entry.payload, action)


def apply(state, entry: Entry, action) -> None:
    _APPLY[entry.kind](state, entry.payload, action)


def has_choice(state, entry: Entry) -> bool:
    kind = entry.kind
    if kind == "barrage":
        return state.barrage is not None and _next_battery(state) is not None
    if kind == "keep":
        return any(state.missions.get(m) and state.missions[m].side == entry.payload for m in state.keep_queue)
    if kind == "opfire":
        return bool(opfire_options(state))
    if kind == "supply":
        return state.supply_candidate() is not None
    return True


def skip(state, entry: Entry) -> None:
    if entry.kind == "opfire":
        close_window(state)


_PHASE = {
    "barrage": "Initial Barrage Round",
    "keep": "Command Failure (keep or drop missions)",
    "chain": "choice of dice chain",
    "pulse": "pulse",
    "opfire": "opportunity fire",
    "logistics": "Logistics Phase",
    "supply": "Supply Check",
}


def _word(cls) -> str:
    return {Unsuppress: "unsuppress", OpFire: "opfire"}.get(cls, cls.__name__.lower())


# ============================================================================ barrage
def _next_battery(state) -> str | None:
    done = {a.battery for a in state.barrage.assigned}
    for b in state.facts.batteries(state.barrage.side):
        if b not in done:
            return b
    return None


def _barrage_blind_targets(state) -> list[str]:
    round_ = state.barrage
    enemy = state.facts.other(round_.side)
    blinds = state.live_blinds(enemy)
    if state.facts.s("barrage_one_blind_per_round"):
        chosen = [a.blind for a in round_.assigned if a.blind is not None]
        if chosen:
            return [b for b in blinds if b == chosen[0]]
    return blinds


def _legal_barrage(state, side) -> list:
    battery = _next_battery(state)
    out = [Barrage(battery, blind) for blind in _barrage_blind_targets(state)]
    last = state.barrage.number == state.barrage.rounds
    if last and state.facts.units[battery].smoke:
        enemy = state.facts.other(side)
        points = [state.blinds[b].pos for b in state.live_blinds(enemy)] + list(state.facts.grid)
        for p in dict.fromkeys(points):
            for bearing in state.facts.s("smoke_bearings"):
                out.append(Barrage(battery, None, p, bearing))
    if not _barrage_blind_targets(state):
        out.append(Barrage(battery, None))
    return out


def _reason_barrage(state, side, action: Barrage) -> str | None:
    facts = state.facts
    if action.battery not in facts.batteries(side):
        return f"{action.battery} is not a Direct Support battery of {side}"
    if any(a.battery == action.battery for a in state.barrage.assigned):
        return f"{action.battery} already has its target in this Initial Barrage Round"
    if action.at is not None:
        if state.barrage.number != state.barrage.rounds:
            return "batteries may fire smoke only in the last Initial Barrage Round (CHQ-27)"
        if not facts.units[action.battery].smoke:
            return f"{action.battery} has no smoke rounds"
        if not facts.on_table(action.at):
            return "the Smoke Marker must be placed on the table"
        return None
    if action.blind is None:
        if _barrage_blind_targets(state):
            return "every battery fires in every Initial Barrage Round (CHQ-25): choose a Blind, or smoke in the last round"
        return None
    if action.blind not in facts.blinds or facts.blinds[action.blind].owner == side:
        return f"{action.blind} is not an enemy Blind: each Initial Barrage Round targets a Blind (CHQ-27)"
    if not state.blinds[action.blind].alive:
        return f"{action.blind} has already been revealed or removed"
    if action.blind not in _barrage_blind_targets(state):
        return "with barrage_one_blind_per_round, all batteries of a round fire on one Blind"
    return None


def _apply_barrage(state, side, action: Barrage) -> None:
    from dataclasses import replace

    state.barrage = replace(state.barrage, assigned=state.barrage.assigned + (action,))
    if _next_battery(state) is None:
        state.agenda.pop()


# ============================================================================ keep / drop
def _keep_mission(state, side):
    for mid in state.keep_queue:
        mission = state.missions.get(mid)
        if mission is not None and mission.side == side:
            return mid, mission
    return None, None


def _legal_keep(state, side) -> list:
    _, mission = _keep_mission(state, side)
    out = [Drop(mission.batteries[0])]
    if state.staff[side] >= 1:
        out.insert(0, Keep(mission.batteries[0]))
    return out


def _reason_keep(state, side, action) -> str | None:
    _, mission = _keep_mission(state, side)
    if action.battery not in mission.batteries:
        return f"decide first on the mission of {','.join(mission.batteries)}"
    if isinstance(action, Keep) and state.staff[side] < 1:
        return "keeping a mission after a Command Failure costs one Staff Order, and you have none (CHQ-13)"
    return None


def _apply_keep(state, side, action) -> None:
    mid, mission = _keep_mission(state, side)
    state.keep_queue = tuple(m for m in state.keep_queue if m != mid)
    if isinstance(action, Keep):
        state.staff[side] -= 1
    else:
        del state.missions[mid]
    if not has_choice(state, state.agenda[-1]):
        state.agenda.pop()


# ============================================================================ chain
def _legal_chain(state, side) -> list:
    return canonical_chains(state.dice[side])


def _reason_chain(state, side, action: Chain) -> str | None:
    return chain_problem(action, state.dice[side], state.staff[side])


def _apply_chain(state, side, action: Chain) -> None:
    state.dice[side].spend(action)
    state.staff[side] -= action.staff
    state.gain_staff(side, action)
    state.pulse.chain_face = action.face
    state.pulse.dice_left = action.dice
    state.pulse.chosen = True
    state.log.append(f"{side}: {action}")
    state.agenda.pop()


# ============================================================================ pulse
def _group_problem(state, side, pieces) -> str | None:
    facts = state.facts
    pulse = state.pulse
    if pulse.dice_left < 1:
        return "the chain has no dice left: end the pulse"
    if not pieces:
        return "a command group needs a leader"
    if len(set(pieces)) != len(pieces):
        return "a unit is named twice in the group"
    limit = int(facts.s("command_group_size")) + 1
    if len(pieces) > limit:
        return f"a command group is a leader and up to {limit - 1} units (CHQ-14)"
    for piece in pieces:
        if piece not in facts.units and piece not in facts.blinds:
            return f"there is no unit or Blind called {piece!r}"
        if state.side_of(piece) != side:
            return f"{piece} is not one of your units"
        pos = state.piece_pos(piece)
        if pos is None:
            return f"{piece} is not on the table"
        if facts.units.get(piece) and facts.units[piece].battery:
            return f"{piece} is an off-table battery: call a mission for it"
        if piece in facts.units and state.units[piece].hidden:
            return f"{piece} is under the Blind {facts.units[piece].blind}: order the Blind"
        if piece in pulse.activated or state.piece_unit(piece) in pulse.activated:
            return f"{piece} has already been activated this pulse (CHQ-14)"
    if len(pieces) > 1:
        for piece in pieces:
            if piece in facts.blinds:
                return "a Blind moves on its own, not in a group with other units"
            if state.units[piece].suppressed:
                return f"{piece} is suppressed and cannot join a group (CHQ-14)"
        leader = state.piece_pos(pieces[0])
        radius = float(facts.s("command_group_radius"))
        for piece in pieces[1:]:
            if distance(leader, state.piece_pos(piece)) > radius + 1e-9:
                return f'{piece} is more than {radius:g}" from the leader {pieces[0]} (CHQ-14)'
    elif pieces[0] in facts.units and state.units[pieces[0]].suppressed and not facts.s("suppressed_move_alone"):
        return f"{pieces[0]} is suppressed and cannot be activated"
    return None


def _canonical_groups(state, side) -> list[tuple[str, ...]]:
    facts = state.facts
    pulse = state.pulse
    pieces = [u for u in state.revealed_units(side) if not facts.units[u].battery and u not in pulse.activated]
    blinds = [b for b in state.live_blinds(side) if b not in pulse.activated]
    radius = float(facts.s("command_group_radius"))
    size = int(facts.s("command_group_size"))
    groups = []
    for leader in pieces:
        groups.append((leader,))
        if state.units[leader].suppressed:
            continue
        lp = state.units[leader].pos
        near = sorted(
            (distance(lp, state.units[u].pos), u)
            for u in pieces
            if u != leader and not state.units[u].suppressed and distance(lp, state.units[u].pos) <= radius
        )
        if near:
            groups.append((leader,) + tuple(u for _, u in near[:size]))
    groups.extend((b,) for b in blinds)
    seen, out = set(), []
    for g in groups:
        key = frozenset(g)
        if key not in seen and _group_problem(state, side, g) is None:
            seen.add(key)
            out.append(g)
    return out


def current_pieces(state) -> tuple[str, ...]:
    """The active group's pieces still on the table; a Blind revealed since activation is its unit."""
    out = []
    for piece in state.pulse.group or ():
        if piece in state.facts.blinds and not state.blinds[piece].alive:
            piece = state.facts.blind_unit.get(piece)
            if piece is None:
                continue
        if state.piece_pos(piece) is not None:
            out.append(piece)
    return tuple(out)


def _group_suppressed(state) -> bool:
    group = current_pieces(state)
    return len(group) == 1 and group[0] in state.facts.units and state.units[group[0]].suppressed


def _shooters(state) -> list[str]:
    """Units of the current group that may still fire or spot."""
    pulse = state.pulse
    if pulse.group is None or pulse.group_rallied or _group_suppressed(state):
        return []
    out = []
    for piece in current_pieces(state):
        uid = state.piece_unit(piece)
        if uid is None or state.units[uid].pos is None or uid in pulse.fired or state.units[uid].suppressed:
            continue
        out.append(piece)
    return out


def _calls_possible(state, side) -> bool:
    return state.staff[side] >= 1 and bool(_free_batteries(state, side))


def _free_batteries(state, side) -> list[str]:
    return [b for b in state.facts.batteries(side) if state.battery_mission(b) is None and b not in state.battery_used]


def _aim_points(state, side) -> list[tuple[float, float]]:
    enemy_points = [(round(p[0], 3), round(p[1], 3)) for p in visible_enemy_points(state, side)]
    return list(dict.fromkeys(enemy_points + list(state.facts.grid)))


def _seen_aims(state, side) -> list[tuple[float, float]]:
    points = _aim_points(state, side)
    clear = not state.facts.s("fo_through_smoke")
    _, rows = state.point_sight(side, points, clear=clear)
    if not rows:
        return []
    seen = rows[0].copy()
    for row in rows[1:]:
        seen |= row
    return [p for p, ok in zip(points, seen) if ok]


def _legal_pulse(state, side) -> list:
    facts = state.facts
    pulse = state.pulse
    out: list = []
    if pulse.group is not None and not pulse.group_moved and not pulse.group_rallied and current_pieces(state):
        leader = state.piece_pos(current_pieces(state)[0])
        enemies = visible_enemy_points(state, side)
        covers = [f.area.centroid.coords[0] for f in facts.cover_features if not f.linear]
        speed = speed_of(facts, facts.s("blind_move")) if current_pieces(state)[0] in facts.blinds else None
        reach = 12.0 if speed is None else float(speed[1] + 3.5 * speed[2])
        folds = [1] if _group_suppressed(state) else range(1, min(int(facts.s("canonical_max_fold")), pulse.dice_left + 1) + 1)
        for dest in canonical_destinations(facts, leader, reach, enemies, covers):
            for fold in folds:
                out.append(Move(dest, fold))
    for piece in _shooters(state):
        uid = state.piece_unit(piece)
        for target in state.revealed_units(facts.other(side)):
            for indirect in (False, True):
                if isinstance(fire_params(state, uid, target, indirect), PendingFire):
                    out.append(Fire(piece, target, indirect))
        for blind in state.live_blinds(facts.other(side)):
            if _spot_problem(state, uid, blind) is None:
                out.append(Spot(piece, blind))
    if pulse.group is not None and _rally_problem(state) is None:
        out.append(Rally())
    if pulse.dice_left >= 1:
        out.extend(Group(g) for g in _canonical_groups(state, side))
        out.extend(Unsuppress(u) for u in state.revealed_units(side) if state.units[u].suppressed)
    if _calls_possible(state, side):
        out.extend(_canonical_calls(state, side))
    out.append(End())
    return out


def _point_calls(state, battery: str, point) -> tuple:
    """The canonical missions of one battery at one aim point (memoised per game facts)."""
    key = ("pointcalls", battery, point)
    cached = state._cache.get(key)
    if cached is None:
        facts = state.facts
        out = []
        for sheaf in facts.units[battery].sheafs or ("Regular",):
            for duration in ("single", "continuous"):
                out.append(Call((battery,), point, duration, sheaf.lower()))
        if facts.units[battery].smoke:
            for bearing in facts.s("smoke_bearings"):
                out.append(Smoke(battery, point, bearing))
        cached = tuple(out)
        state._remember(key, cached)
    return cached


def _canonical_calls(state, side) -> list:
    facts = state.facts
    free = tuple(_free_batteries(state, side))
    aims = _seen_aims(state, side)
    out = []
    for b in free:
        for p in aims:
            out.extend(_point_calls(state, b, p))
    if len(free) >= 2 and state.staff[side] >= len(free) and facts.sides[side].nation in facts.s("tot_nations"):
        for p in aims:
            for sheaf in ("regular", "converged"):
                out.append(Call(free, p, "single", sheaf))
    return out


def _spot_problem(state, uid: str, blind: str) -> str | None:
    facts = state.facts
    if uid is None:
        return "a dummy Blind cannot spot"
    if blind not in facts.blinds or facts.blinds[blind].owner == facts.units[uid].side:
        return f"{blind} is not an enemy Blind"
    if not state.blinds[blind].alive:
        return f"{blind} has already been revealed or removed"
    visible, smoke = state.sees(uid, blind)
    if not visible:
        return f"{uid} cannot see the Blind {blind} (CHQ-30)"
    dist = distance(state.units[uid].pos, state.blinds[blind].pos)
    if spot_tn(facts, facts.units[uid], dist, smoke) is None:
        return f'{blind} is {dist:.1f}" away, beyond {uid}\'s spotting range (CHQ-28)'
    return None


def _rally_problem(state) -> str | None:
    pulse = state.pulse
    if pulse.group is None:
        return "activate a command group first"
    if pulse.group_moved or pulse.group_fired or pulse.group_rallied:
        return "a group that rallies neither moves nor fires this activation (CHQ-14)"
    units = [state.piece_unit(p) for p in current_pieces(state)]
    if not any(u is not None and state.units[u].disruption > 0 for u in units):
        return "no unit of the group carries Disruption to rally off"
    return None


def _mission_problem(state, side, batteries, at, fo, smoke: bool, sheaf: str = "regular", duration: str = "single") -> str | None:
    facts = state.facts
    if facts.s("calls_in_pulse_only") and (state.pulse is None or state.pulse.side != side):
        return "missions are called in your own pulse"
    if not batteries:
        return "name the battery that fires"
    if len(set(batteries)) != len(batteries):
        return "a battery is named twice"
    for b in batteries:
        if b not in facts.units or not facts.units[b].battery or facts.units[b].side != side:
            return f"{b} is not one of your Direct Support batteries"
    if len(batteries) > 1:
        if smoke:
            return "smoke missions are fired by one battery"
        nation = facts.sides[side].nation
        if nation not in facts.s("tot_nations"):
            return (
                f"{nation} batteries cannot fire time-on-target: it is available to "
                f"{' and '.join(facts.s('tot_nations'))} only (CHQ-24)"
            )
        if duration != "single" and facts.s("tot_mission_single"):
            return "a time-on-target mission is a single mission"
    if sheaf.capitalize() not in ("Regular", "Converged"):
        return f"unknown sheaf {sheaf!r}: Regular or Converged (CHQ-21)"
    if duration not in ("single", "continuous"):
        return f"unknown mission duration {duration!r}: single or continuous (CHQ-19)"
    need = len(batteries)
    if state.staff[side] < need:
        what = "a smoke mission" if smoke else ("a time-on-target mission" if need > 1 else "an on-call fire mission")
        return (
            f"{what} needs {need} Staff Order{'s' if need > 1 else ''} and you have {state.staff[side]} "
            f"(CHQ-{'23' if smoke else ('24' if need > 1 else '17')})"
        )
    for b in batteries:
        used = state.battery_used.get(b)
        if used == "smoke" and not smoke or used == "fire" and smoke:
            return f"{b} may not fire smoke and a fire mission in the same turn (CHQ-12)"
        if used == "fire":
            return f"{b} has already fired for effect this turn (CHQ-17)"
        if used == "smoke":
            return f"{b} has already laid smoke this turn (CHQ-17)"
        if state.battery_mission(b) is not None:
            return f"{b} already has a mission: cancel it in your Logistics Phase first"
    if smoke and not facts.units[batteries[0]].smoke:
        return f"{batteries[0]} has no smoke rounds"
    if not facts.on_table(at):
        return "the template must be placed on the table"
    return _fo_problem(state, side, at, fo)


def _fo_problem(state, side, at, fo) -> str | None:
    facts = state.facts
    clear = not facts.s("fo_through_smoke")
    observers = state.observers_of_point(side, at, clear=clear)
    where = f"{at[0]:g},{at[1]:g}"
    if fo is not None:
        if fo not in facts.units or facts.units[fo].side != side or facts.units[fo].battery:
            return f"{fo} is not one of your units on the table and cannot be the Forward Observer"
        if state.units[fo].pos is None:
            return f"{fo} is not on the table and cannot be the Forward Observer"
        if fo not in observers:
            why = " (a Forward Observer cannot direct fire through a smoke screen, CHQ-12)" if clear and fo in state.observers_of_point(side, at, clear=False) else ""
            return f"the Forward Observer {fo} has no line of sight to the template centre at {where}{why} (CHQ-17)"
        return None
    if not observers:
        return f"no unit of yours sees the template centre at {where}, so no Forward Observer can direct it (CHQ-17)"
    return None


def _reason_pulse(state, side, action) -> str | None:
    facts = state.facts
    pulse = state.pulse
    if isinstance(action, End):
        return None
    if isinstance(action, Group):
        return _group_problem(state, side, action.units)
    if isinstance(action, Unsuppress):
        if pulse.dice_left < 1:
            return "removing a suppression costs a die of the chain, and it has none left (CHQ-14)"
        if action.unit not in facts.units or facts.units[action.unit].side != side or state.units[action.unit].pos is None:
            return f"{action.unit} is not one of your units on the table"
        if not state.units[action.unit].suppressed:
            return f"{action.unit} is not suppressed"
        return None
    if isinstance(action, Move):
        if pulse.group is None:
            return "activate a command group first ('group UNIT,...')"
        if pulse.group_moved:
            return "the group has already moved this activation"
        if not current_pieces(state):
            return "no unit of the group is left on the table"
        if pulse.group_rallied:
            return "a group that rallies does not move"
        if action.fold < 1:
            return "a move uses at least one die"
        if action.fold - 1 > pulse.dice_left:
            return f"a {action.fold}-fold move needs {action.fold} dice of the chain; it has {pulse.dice_left + 1} for this group"
        if action.fold > 1 and _group_suppressed(state):
            return "a suppressed unit moves only the variable part of one move (CHQ-14)"
        if not facts.on_table(action.to):
            return "move to a point on the table"
        return None
    if isinstance(action, (Fire, Spot)):
        if pulse.group is None:
            return "activate a command group first ('group UNIT,...')"
        piece = action.unit
        uid = state.piece_unit(piece) if (piece in facts.units or piece in facts.blinds) else None
        in_group = piece in pulse.group or any(state.piece_unit(p) == piece for p in pulse.group)
        if not in_group:
            return f"{piece} is not in the active command group"
        if uid is None:
            return f"{piece} is a dummy Blind and cannot fire"
        if state.units[uid].suppressed:
            return f"{uid} is suppressed and cannot fire (CHQ-14)"
        if pulse.group_rallied:
            return "a group that rallies does not fire"
        if uid in pulse.fired:
            return f"{uid} has already fired this pulse"
        if isinstance(action, Spot):
            return _spot_problem(state, uid, action.blind)
        target = action.target
        if target in facts.blinds:
            return f"{target} is a Blind: spot it first ('spot {uid} {target}'), or call artillery on it (CHQ-28)"
        if target not in facts.units or facts.units[target].side == side:
            return f"{target} is not an enemy unit"
        if state.units[target].pos is None or state.units[target].hidden:
            return f"{target} is not a unit you can see on the table"
        fire = fire_params(state, uid, target, action.indirect)
        return None if isinstance(fire, PendingFire) else fire
    if isinstance(action, Rally):
        return _rally_problem(state)
    if isinstance(action, Call):
        return _mission_problem(state, side, action.batteries, action.at, action.fo, False, action.sheaf, action.duration)
    if isinstance(action, Smoke):
        return _mission_problem(state, side, (action.battery,), action.at, action.fo, True)
    return f"{action} is not an order of a pulse"


def _apply_pulse(state, side, action) -> None:
    facts = state.facts
    pulse = state.pulse
    if isinstance(action, End):
        state.agenda.pop()
        return
    if isinstance(action, Group):
        pulse.dice_left -= 1
        pulse.group = tuple(action.units)
        pulse.group_moved = pulse.group_rallied = pulse.group_fired = False
        for piece in action.units:
            pulse.activated.add(piece)
            uid = state.piece_unit(piece)
            if uid is not None:
                pulse.activated.add(uid)
        return
    if isinstance(action, Unsuppress):
        pulse.dice_left -= 1
        state.units[action.unit].suppressed = False
        return
    if isinstance(action, Move):
        pulse.dice_left -= action.fold - 1
        pulse.group_moved = True
        pieces = current_pieces(state)
        for piece in pieces:
            uid = state.piece_unit(piece)
            if uid is not None:
                pulse.folds[uid] = action.fold
        start_move(state, pieces, action.to, action.fold, _group_suppressed(state))
        return
    if isinstance(action, Fire):
        uid = state.piece_unit(action.unit)
        fire = fire_params(state, uid, action.target, action.indirect)
        pulse.fired.add(uid)
        pulse.group_fired = True
        declare_fire(state, fire)
        return
    if isinstance(action, Spot):
        uid = state.piece_unit(action.unit)
        pulse.fired.add(uid)
        pulse.group_fired = True
        _, smoke = state.sees(uid, action.blind)
        dist = distance(state.units[uid].pos, state.blinds[action.blind].pos)
        state.push(Entry("roll", "spot", (uid, action.blind, dist, smoke)))
        return
    if isinstance(action, Rally):
        pulse.group_rallied = True
        rolls = []
        for piece in current_pieces(state):
            uid = state.piece_unit(piece)
            if uid is not None and state.units[uid].disruption > 0:
                rolls.append(Entry("roll", "rally", uid))
        state.push(*rolls)
        return
    if isinstance(action, (Call, Smoke)):
        smoke = isinstance(action, Smoke)
        batteries = (action.battery,) if smoke else tuple(action.batteries)
        fo = action.fo or state.observers_of_point(side, action.at, clear=not facts.s("fo_through_smoke"))[0]
        state.staff[side] -= len(batteries)
        mid = state.new_mission(
            side=side,
            batteries=batteries,
            kind="smoke" if smoke else action.duration,
            sheaf="smoke" if smoke else action.sheaf,
            aim=tuple(action.at),
            bearing=float(action.bearing) if smoke else 0.0,
            fo=fo,
            status="comms",
        )
        state.log.append(f"{side}: {action}")
        state.push(Entry("roll", "comms", mid))
        return
    raise AssertionError(action)


# ============================================================================ opportunity fire
def _legal_opfire(state, side) -> list:
    return [OpFire(u, t) for u, t in opfire_options(state)] + [Pass()]


def _reason_opfire(state, side, action) -> str | None:
    if isinstance(action, Pass):
        return None
    if (action.unit, action.target) in opfire_options(state):
        return None
    facts = state.facts
    if action.unit not in facts.units or facts.units[action.unit].side != side:
        return f"{action.unit} is not one of your units"
    unit = state.units[action.unit]
    if unit.pos is None:
        return f"{action.unit} is not on the table"
    if unit.suppressed:
        return f"{action.unit} is suppressed and cannot opportunity-fire (CHQ-14)"
    if unit.fire_marker:
        return f"{action.unit} already has a Fire Marker this turn (CHQ-31)"
    if action.target not in state.window.targets:
        return f"{action.target} is not moving or firing now"
    return f"{action.unit} has no sight of {action.target} in range at any point of its move or fire (CHQ-31)"


def _apply_opfire(state, side, action) -> None:
    if isinstance(action, Pass):
        state.agenda.pop()
        close_window(state)
        return
    declare_opfire(state, action.unit, action.target)


# ============================================================================ logistics
def _legal_logistics(state, side) -> list:
    out = []
    for mid, mission in sorted(state.missions.items()):
        if mission.side != side or mission.status != "active":
            continue
        out.append(Cancel(mission.batteries[0]))
        if state.staff[side] >= 1:
            for p in visible_enemy_points(state, side):
                p = (round(p[0], 3), round(p[1], 3))
                if p != tuple(mission.centre) and _fo_problem(state, side, p, None) is None:
                    out.append(Adjust(mission.batteries[0], p))
    if not state.facts.s("calls_in_pulse_only") and _calls_possible(state, side):
        out.extend(_canonical_calls(state, side))
    out.append(End())
    return out


def _reason_logistics(state, side, action) -> str | None:
    if isinstance(action, End):
        return None
    if isinstance(action, (Call, Smoke)):
        if state.facts.s("calls_in_pulse_only"):
            return "missions are called in your own pulse; the Logistics Phase adjusts and cancels them (calls_in_pulse_only)"
        if isinstance(action, Call):
            return _mission_problem(state, side, action.batteries, action.at, action.fo, False, action.sheaf, action.duration)
        return _mission_problem(state, side, (action.battery,), action.at, action.fo, True)
    mission = state.battery_mission(action.battery)
    if mission is None or mission.side != side:
        return f"{action.battery} has no mission of yours to {'adjust' if isinstance(action, Adjust) else 'cancel'}"
    if mission.status != "active":
        return f"{action.battery}'s mission is not a continuous mission on the table (CHQ-19)"
    if isinstance(action, Cancel):
        cost = int(state.facts.s("cancel_costs"))
        return None if state.staff[side] >= cost else "cancelling needs a Staff Order"
    if state.staff[side] < 1:
        return "adjusting a mission costs one Staff Order, and you have none (CHQ-15)"
    if not state.facts.on_table(action.at):
        return "the template must be placed on the table"
    return _fo_problem(state, side, action.at, action.fo)


def _apply_logistics(state, side, action) -> None:
    from dataclasses import replace

    if isinstance(action, End):
        state.agenda.pop()
        return
    if isinstance(action, (Call, Smoke)):
        _apply_pulse(state, side, action)
        return
    mission = state.battery_mission(action.battery)
    if isinstance(action, Cancel):
        state.staff[side] -= int(state.facts.s("cancel_costs"))
        del state.missions[mission.id]
        return
    state.staff[side] -= 1
    state.missions[mission.id] = replace(mission, aim=tuple(action.at), centre=tuple(action.at), adjusted=True)


# ============================================================================ supply
def _legal_supply(state, side) -> list:
    mission = state.missions[state.supply_candidate()]
    out = [Supply(mission.batteries[0], 0)]
    if state.staff[side] >= 1:
        out.append(Supply(mission.batteries[0], 1))
    return out


def _reason_supply(state, side, action: Supply) -> str | None:
    mission = state.missions[state.supply_candidate()]
    if action.battery not in mission.batteries:
        return f"the Supply Check now is for {','.join(mission.batteries)}"
    if action.staff < 0:
        return "Staff Orders added to a Supply Check cannot be negative"
    if action.staff > state.staff[side]:
        return f"you have only {state.staff[side]} Staff Orders to add (CHQ-22)"
    return None


def _apply_supply(state, side, action: Supply) -> None:
    mid = state.supply_candidate()
    state.staff[side] -= action.staff
    state.agenda.pop()
    state.push(Entry("roll", "supply", (mid, action.staff)))


_LEGAL = {
    "barrage": _legal_barrage,
    "keep": _legal_keep,
    "chain": _legal_chain,
    "pulse": _legal_pulse,
    "opfire": _legal_opfire,
    "logistics": _legal_logistics,
    "supply": _legal_supply,
}
_REASON = {
    "barrage": _reason_barrage,
    "keep": _reason_keep,
    "chain": _reason_chain,
    "pulse": _reason_pulse,
    "opfire": _reason_opfire,
    "logistics": _reason_logistics,
    "supply": _reason_supply,
}
_APPLY = {
    "barrage": _apply_barrage,
    "keep": _apply_keep,
    "chain": _apply_chain,
    "pulse": _apply_pulse,
    "opfire": _apply_opfire,
    "logistics": _apply_logistics,
    "supply": _apply_supply,
}
_ACTIONS = {
    "barrage": (Barrage,),
    "keep": (Keep, Drop),
    "chain": (Chain,),
    "pulse": (Group, Move, Fire, Spot, Rally, Unsuppress, Call, Smoke, End),
    "opfire": (OpFire, Pass),
    "logistics": (Adjust, Cancel, Call, Smoke, End),
    "supply": (Supply,),
}

