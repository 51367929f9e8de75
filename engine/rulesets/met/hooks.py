"""Planner hooks of the MET state: exact threat and the smoke options of each phase.

:class:`~engine.rulesets.met.game.MetState` exposes these as ``state.threat``,
``state.exact_threat`` and ``state.smoke_options``; see its docstring for what they mean.
They read the state and never change it.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import shapely

from engine.errors import FireplanError
from engine.geometry import Density, Screen, rectangle
from engine.options import SmokeOption
from engine.sight import SightStatus

from .actions import DirectSmoke, Discharge, Grenade, Mission
from .data import DIE, EPS
from .deviation import deviation_distribution
from .direct_smoke import direct_smoke_densities, direct_smoke_landing, direct_smoke_polygon
from .dischargers import discharger_screen, grenade_screen, launcher_screen
from .resolution import fire_number, hit_probability
from .smoke import WindBand, wind_band

__all__ = ["exact_threat", "direct_threats", "smoke_options", "PHASES", "known_pieces", "known_view", "sight_between"]

#: The decision phases of a period.
PHASES = ("move", "fire", "artillery")

def exact_threat(state, firer_id: str, target_id: str) -> Fraction:
    """Exact probability that the firer's fire hits the target now (0 when it cannot fire at it)."""
    firer, target = state.elements.get(firer_id), state.elements.get(target_id)
    if firer is None or target is None or not firer.alive or not target.alive or not target.on_table:
        return Fraction(0)
    if target.blind is not None:
        return Fraction(0)
    picture = state._picture()
    if firer.is_battery:
        cover = state.in_cover(target.id) and state.rules.setting("artillery_cover_applies")
        p_hit = hit_probability(fire_number(int(firer.card.get("fn", 0)), False, cover, state.rules))
        zone = state.beaten_zone(firer)
        lof = state.table.line_of_fire[firer.side]
        p_in = Fraction(0)
        for deviation, p in deviation_distribution(rules=state.rules).items():
            dx, dy = deviation.offset
            # the target is under the zone centred on poa + (dx, dy) iff it is within the zone
            # centred on the target shifted back: test the target point against one rectangle
            if rectangle((target.position[0] + dx, target.position[1] + dy), *zone, lof).covers(
                shapely.Point(target.position)
            ):
                p_in += p
        return p_in * p_hit
    if not firer.on_table or not firer.can_act or firer.side == target.side:
        return Fraction(0)
    if state._shot_problem(picture, firer, target) is not None:
        return Fraction(0)
    fn = fire_number(
        firer.fn_against(target),
        partial_smoke=picture.sees(firer.id, target.id) == SightStatus.PARTIAL,
        in_cover=state.in_cover(target.id),
        rules=state.rules,
    )
    return hit_probability(fn)


def direct_threats(state, shooter_side: str, targets) -> tuple[tuple[tuple[int, float], ...], ...]:
    """For each element of ``shooter_side`` able to fire now, ``(index into targets, chance to
    hit)`` for each of ``targets`` (located enemy elements on the table) it may hit.

    The chances are :func:`exact_threat`'s, as floats, with the sight picture, the cover map and
    the modifiers read once for all pairs: a leaf's features ask for every pair of a position,
    thousands of times a search, and one call a pair was a fifth of a search's time. Elements
    that can hit none are left out."""
    picture, cover = state._picture(), state._cover_map()
    partial = int(state.rules.setting("partial_smoke_fn_modifier"))
    covered = int(state.rules.setting("cover_fn_modifier"))
    rows, sight = picture.rows, picture.status
    blocked, smoky = int(SightStatus.BLOCKED), int(SightStatus.PARTIAL)
    aimed = [(j, t, rows[t.id], t.position, covered if cover.get(t.id, False) else 0) for j, t in enumerate(targets)]
    reach = []
    for firer in state.elements.values():
        if firer.side != shooter_side or not firer.on_table or not firer.can_act:
            continue
        row, where, limit = sight[rows[firer.id]], firer.position, firer.range + EPS
        odds = []
        for j, target, column, position, cover_modifier in aimed:
            fn = firer.fn_against(target)
            if fn <= 0 or math.dist(where, position) > limit:
                continue
            code = row[column]
            if code == blocked:
                continue
            fn += cover_modifier + (partial if code == smoky else 0)
            if fn > 0:
                odds.append((j, min(fn, DIE) / DIE))
        if odds:
            reach.append(tuple(odds))
    return tuple(reach)


def smoke_options(state, side: str, phase: str | None = None) -> list[SmokeOption]:
    """Screens ``side`` may lay in ``phase`` (default: the current one)."""
    phase = phase or state.phase
    if phase not in PHASES:
        raise FireplanError(f"phase must be one of {', '.join(PHASES)}, got {phase!r}")
    if state.over:
        return []
    if phase == "artillery":
        return _battery_smoke_options(state, side)
    if phase == "move":
        return _device_smoke_options(state, side)
    return _direct_smoke_options(state, side)


def _battery_smoke_options(state, side: str) -> list[SmokeOption]:
    if wind_band(state.table.wind_knots, state.rules) is WindBand.TOO_STRONG:
        return []
    deviation = tuple((d.offset, p) for d, p in deviation_distribution(rules=state.rules).items())
    options = []
    points = None
    for battery in state._batteries(side):
        if not battery.card.get("smoke") or battery.ordered:
            continue
        points = points if points is not None else state.aim_points(side)
        for point in points:
            laying = state.battery_smoke(battery, point)
            per_period = laying.screens(f"smoke {battery.id}")
            ticks = [tuple(s for s in per_period)]  # the rest of this period: first density
            for tick in range(laying.life):
                ticks.append(tuple(s.aged(tick) for s in per_period if tick < len(s.densities)))
            options.append(
                SmokeOption(
                    actions=(Mission(battery.id, "smoke", *point),),
                    screens=tuple(ticks),
                    resources=((battery.id, 1),),
                    deviation=deviation,
                    label=f"{battery.id} smoke at {point[0]:g},{point[1]:g}",
                    source="MET-1",
                )
            )
    return options


def _device_smoke_options(state, side: str) -> list[SmokeOption]:
    options = []
    second = side == state.table.sides[1]
    for e in state._own(side):
        if not state._may_still_move(e):
            continue
        for action in state._device_actions(e):
            if isinstance(action, Discharge):
                polygon, kind = discharger_screen(e.position, e.facing, e.base, action.face, state.rules), "dischargers"
            elif isinstance(action, Grenade):
                polygon, kind = grenade_screen(e.position, e.facing, e.base, action.face, state.rules), "grenades"
            else:
                polygon, kind = launcher_screen(e.position, action.point, state.rules), "launcher"
            screen = Screen(polygon, (Density.FULL,), 0, f"{kind} {e.id}")
            ticks = ((screen,), (screen,)) if second else ((screen,),)
            options.append(
                SmokeOption(
                    actions=(action,),
                    screens=ticks,
                    resources=((f"{kind}:{e.id}", 1),),
                    label=str(action),
                    source="MET-7" if kind == "dischargers" else ("MET-12" if kind == "grenades" else "MET-10"),
                )
            )
    return options


def _direct_smoke_options(state, side: str) -> list[SmokeOption]:
    options = []
    picture = state._picture()
    densities = direct_smoke_densities(state.table.wind_knots, state.table.rain, "BE", state.rules)
    for action in state._fire_actions(side):
        if not isinstance(action, DirectSmoke):
            continue
        e = state.elements[action.element]
        polygon = direct_smoke_polygon(e.position, action.point, state.rules)
        if densities is None:
            screen = Screen(polygon, (Density.FULL,), 0, f"smoke round {e.id}")
            ticks = ((screen,), (screen,)) if side == state.table.sides[1] else ((screen,),)
        elif not densities:
            continue
        else:
            screen = Screen(polygon, densities, 0, f"smoke round {e.id}")
            ticks = ((screen,),) + tuple((screen.aged(t),) for t in range(len(densities)))
        partial = any(picture.sees(e.id, ref) == SightStatus.PARTIAL for ref, _ in state._smoke_references(picture, e, action.point) if ref in picture.rows)
        landing = direct_smoke_landing(math.dist(e.position, action.point), partial, state.rules)
        options.append(
            SmokeOption(
                actions=(action,),
                screens=ticks,
                resources=((f"gun:{e.id}", 1),),
                deviation=tuple((d.offset, p) for d, p in landing.items()),
                label=str(action),
                source="MET-13",
            )
        )
    return options


# ============================================================================ sight in bulk, as one side knows it
#
# What the visibility graph asks: pieces as ``side`` observes them (``known_pieces``) and sight with
# screens crossed, FN modifier and exact threat between any of them, at their places or at
# hypothetical ones, with hypothetical screens (``sight_between``). Nothing here reads what ``side``
# may not know: the enemy's blinds are markers whatever they hide, and threats are computed on a
# view of the state in which the enemy's hidden elements are gone.

#: The base a blind marker has for sight, real or dummy (as :meth:`MetState._picture` draws a dummy).
BLIND_BASE = (10.0, 10.0)
#: The base of a bare point (a point of aim), as the state's own line checks use.
POINT_BASE = (1.0, 1.0)


def known_pieces(state, side: str) -> tuple[dict, ...]:
    """The pieces on the table as ``side`` observes them, read from ``state.observation(side)``.

    One dict per piece with keys ``id``, ``kind`` ("unit" for an element, "blind"), ``side``,
    ``position``, ``facing``, ``card`` (None for a blind), ``hidden`` (an own element under an
    own blind), ``blind`` (that blind), ``dummy`` (own blinds: True or False; enemy blinds:
    None) and ``unit`` (the element under an own real blind). Off-table batteries are left out.
    """
    seen = state.observation(side)
    enemy = state.table.other(side)
    out = []
    for views, owner in ((seen.own, side), (seen.enemy, enemy)):
        for e in views:
            if e.position is None:
                continue
            hidden = owner == side and e.blind is not None
            out.append(
                dict(id=e.id, kind="unit", side=owner, position=tuple(e.position), facing=float(e.facing), card=e.card,
                     hidden=hidden, blind=e.blind if hidden else None, dummy=None, unit=None)
            )
    under = {e.blind: e.id for e in seen.own if e.blind is not None}
    for views, owner in ((seen.own_blinds, side), (seen.enemy_blinds, enemy)):
        for b in views:
            out.append(
                dict(id=b.id, kind="blind", side=owner, position=tuple(b.position), facing=0.0, card=None,
                     hidden=False, blind=b.id, dummy=b.dummy, unit=under.get(b.id) if owner == side else None)
            )
    return tuple(out)


def known_view(state, side: str, screens=(), moves=None):
    """A clone of ``state`` holding only what ``side`` may know, with hypothetical ``screens`` on
    the table and the elements of ``moves`` (``{element_id: (x, y)}``) standing there instead
    (facing unchanged, as if they had not moved this period)."""
    from .elements import MetScreen
    from .resolution import Status

    view = state.clone()
    enemy = view.table.other(side)
    for e in view.elements.values():
        if e.side == enemy and e.blind is not None:
            e.status = Status.DESTROYED  # unknown to side: off the board of this view
    for b in view.blinds.values():
        if b.owner == enemy:
            b.dummy = True  # a marker, whatever it hides
    for eid, point in (moves or {}).items():
        e = view.elements[eid]
        e.position = (float(point[0]), float(point[1]))
        e.moved, e.path_cover = False, None
        if e.blind in view.blinds:
            view.blinds[e.blind].position = e.position
    view.screens = list(view.screens) + [
        MetScreen(s, "hypothetical", "", side, view.period) for s in screens if not s.is_gone
    ]
    view._pos_version += 1
    view._smoke_version += 1
    view._version += 1
    view._picture_cache = view._cover_cache = view._screens_cache = None
    view._threat_cache = view._legal_cache = None
    view._candidates = {}
    return view


class _Ref:
    """One end of a sight line: a piece (maybe standing elsewhere) or a bare point."""

    __slots__ = ("side", "point", "base", "element", "blind", "displaced", "dummy")

    def __init__(self, side, point, base, element, blind, displaced, dummy=False):
        self.side, self.point, self.base, self.element = side, point, base, element
        self.blind, self.displaced, self.dummy = blind, displaced, dummy


def _point_of(value, name):
    try:
        x, y = value
        return (float(x), float(y))
    except (TypeError, ValueError):
        raise FireplanError(f"{name} must be a piece id, (piece id, (x, y)) or (x, y), got {value!r}") from None


def _resolve(state, side: str, ref, role: str) -> _Ref:
    """Read a reference as ``side`` knows it; enemy elements under blinds are refused."""
    from engine.geometry import footprint

    if isinstance(ref, str):
        piece, point, displaced = ref, None, False
    elif isinstance(ref, tuple) and len(ref) == 2 and isinstance(ref[0], str):
        piece, point, displaced = ref[0], _point_of(ref[1], f"the place of {ref[0]}"), True
    else:
        if role == "observer":
            raise FireplanError(f"an observer must be a piece, not a bare point: {ref!r}")
        point = _point_of(ref, "a target")
        return _Ref(None, point, rectangle(point, *POINT_BASE), None, False, False)
    if point is not None and not state.table.on_table(*point):
        raise FireplanError(f"{piece} cannot stand at {point[0]:g},{point[1]:g}: off the table")
    e = state.elements.get(piece)
    if e is not None:
        if not (e.alive and e.on_table) or (e.side != side and e.blind is not None):
            raise FireplanError(f"{piece} is not an element {side} knows of on the table")
        where = point if point is not None else tuple(map(float, e.position))
        return _Ref(e.side, where, footprint(where, *e.base, e.facing), e, False, displaced)
    b = state.blinds.get(piece)
    if b is None:
        raise FireplanError(f"unknown piece {piece!r}")
    where = point if point is not None else tuple(map(float, b.position))
    if b.owner == side:
        e = next((x for x in state.elements.values() if x.blind == b.id and x.alive), None)
        if e is not None:
            return _Ref(e.side, where, footprint(where, *e.base, e.facing), e, False, displaced)
    # an enemy blind, or an own dummy (or one whose element is lost): a marker that sees nothing of its own
    return _Ref(b.owner, where, rectangle(where, *BLIND_BASE), None, True, displaced, b.owner == side)


def sight_between(state, side: str, observers, targets, *, screens=(), fo: bool = False, threat: bool = True) -> dict:
    """Sight from every observer to every target as ``side`` knows the table, in bulk.

    ``observers`` are pieces (an element or blind id, or ``(id, (x, y))`` for that piece
    standing at ``(x, y)``); ``targets`` may also be bare points ``(x, y)``. Enemy pieces must
    be ones ``side`` observes (located elements, blinds); a blind is a marker of
    :data:`BLIND_BASE` whatever it hides. ``screens`` are hypothetical Screens added to those on
    the table (laid smoke and burning buildings). ``fo`` changes nothing in MET, where a
    battery needs no observer (``fo_required`` is False).

    Sight is MET-15..17 from :func:`~.sightlines.met_sight` in one call; the screens each line
    crosses come from :func:`engine.sight.sight_matrix` on the same segments. Returns a dict of
    ``(N, M)`` arrays: ``visible`` (not BLOCKED), ``obscured`` (PARTIAL), ``full`` and
    ``partial`` (screens the centre-to-centre line crosses, by density), ``range``, ``band``
    ("within" or "beyond" the observer's card range; None if unknown), ``modifier`` (the FN
    change of the observer's fire at the target: partial smoke and cover, MET-18; smoke only
    for blinds and points; None for a blind observer), ``smoke_modifier`` (the smoke part),
    ``threat`` (exact hit probability from :func:`exact_threat` on a view with the target
    standing there; NaN where unknown: blinds, points, lines not seen) and ``fo_required``.
    """
    from engine.sight import sight_matrix

    from .sightlines import cover_mask, met_sight

    if side not in state.table.sides:
        raise FireplanError(f"unknown side {side!r}: expected one of {', '.join(state.table.sides)}")
    screens = tuple(s for s in screens if not s.is_gone)
    obs = [_resolve(state, side, r, "observer") for r in observers]
    tgt = [_resolve(state, side, r, "target") for r in targets]
    n, m = len(obs), len(tgt)
    rules = state.rules
    table_screens = list(state.screens_now()) + list(screens)
    op = np.array([o.point for o in obs], dtype=float).reshape(n, 2)
    tp = np.array([t.point for t in tgt], dtype=float).reshape(m, 2)
    status = met_sight(op, [o.base for o in obs], tp, [t.base for t in tgt], state.table.blocking, table_screens, rules)
    counts = sight_matrix(op, tp, (), table_screens)
    seeing = np.array([not o.dummy for o in obs], dtype=bool).reshape(n, 1)  # a dummy sees nothing
    visible = (status != SightStatus.BLOCKED) & seeing
    obscured = visible & (status == SightStatus.PARTIAL)

    rng = np.hypot(op[:, None, 0] - tp[None, :, 0], op[:, None, 1] - tp[None, :, 1])
    smoke_mod = np.where(obscured, int(rules.setting("partial_smoke_fn_modifier")), 0).astype(np.int64)
    band = np.full((n, m), None, dtype=object)
    modifier = np.full((n, m), None, dtype=object)
    # cover of each target where it stands (MET-15, MET-16): the state's own for pieces in place
    cover = np.zeros(m, dtype=bool)
    moved = [j for j, t in enumerate(tgt) if t.element is not None and t.displaced]
    if moved:
        cover[moved] = cover_mask([tgt[j].point for j in moved], state.table.cover, table_screens, None, rules)
    if any(t.element is not None and not t.displaced for t in tgt):
        view = known_view(state, side, screens) if screens else state
        for j, t in enumerate(tgt):
            if t.element is not None and not t.displaced:
                cover[j] = view.in_cover(t.element.id)
    for i, j in zip(*np.nonzero(visible)):
        o, t = obs[i], tgt[j]
        if o.element is None:
            continue  # a blind: its card is unknown
        if o.element.range > 0:
            band[i, j] = "within" if rng[i, j] <= o.element.range + 1e-6 else "beyond"
        if t.element is not None:
            fn = o.element.fn_against(t.element)
            modifier[i, j] = fire_number(fn, bool(obscured[i, j]), bool(cover[j]), rules) - fn
        else:
            modifier[i, j] = int(smoke_mod[i, j])

    threats = np.full((n, m), np.nan)
    if threat:
        _fill_threats(state, side, screens, obs, tgt, visible, threats)
    return {
        "observers": tuple(observers),
        "targets": tuple(targets),
        "visible": visible,
        "obscured": obscured,
        "full": np.where(visible, counts.full_screens, 0),
        "partial": np.where(visible, counts.partial_screens, 0),
        "range": rng,
        "band": band,
        "modifier": modifier,
        "smoke_modifier": smoke_mod,
        "threat": threats,
        "fo_required": False,
    }


def _fill_threats(state, side, screens, obs, tgt, visible, out) -> None:
    """Exact threat of each seen (element, element) pair, on views in which the displaced pieces
    stand where the references put them: one view for the pairs in place, one per (side, k-th
    displacement) for displaced targets and for displaced firers (a MET fire depends only on its
    two ends: sight is terrain and smoke, never other elements), one per pair when both ends are
    displaced."""
    ordinal: dict = {}
    for refs in (obs, tgt):
        counts: dict = {}
        for r in refs:
            if r.displaced and r.element is not None:
                ordinal[id(r)] = counts.get(r.element.id, 0)
                counts[r.element.id] = ordinal[id(r)] + 1
    rounds: dict = {}
    for i, j in zip(*np.nonzero(visible)):
        o, t = obs[i], tgt[j]
        if o.element is None or t.element is None:
            continue  # a blind's unit is unknown; a point is no target
        if not (o.displaced or t.displaced):
            key = ("here",)
        elif (o.displaced and t.displaced) or o.side == t.side:
            key = ("pair", (o.element.id, o.point) if o.displaced else None,
                   (t.element.id, t.point) if t.displaced else None)
        elif t.displaced:
            key = ("target", t.side, ordinal[id(t)])
        else:
            key = ("observer", o.side, ordinal[id(o)])
        rounds.setdefault(key, []).append((i, j))
    for key, pairs in rounds.items():
        if key[0] == "here":
            moves = {}
        elif key[0] == "pair":
            moves = dict(m for m in key[1:] if m is not None)
        elif key[0] == "target":
            moves = {t.element.id: t.point for t in tgt if t.side == key[1] and ordinal.get(id(t)) == key[2]}
        else:
            moves = {o.element.id: o.point for o in obs if o.side == key[1] and ordinal.get(id(o)) == key[2]}
        view = known_view(state, side, screens, moves)
        for i, j in pairs:
            out[i, j] = float(exact_threat(view, obs[i].element.id, tgt[j].element.id))


# ============================================================================ smoke budget


def smoke_resources(state, side: str, phase: str | None = None, options=None) -> dict[str, int]:
    """What ``side``'s smoke options in ``phase`` may use, ``{resource: capacity}``: a battery takes
    one mission a period (MET-1), and an element's dischargers, grenades, launcher or gun lay one
    screen a phase (MET-7, MET-10, MET-12, MET-13), so every resource has capacity 1."""
    options = smoke_options(state, side, phase) if options is None else options
    return {name: 1 for option in options for name, _ in option.resources}
