"""Planner hooks of a CHQ state: exact threat of one unit to another, smoke options.

The planners never judge fire themselves: ``threat`` is the exact expected
Disruption from ``fire.py`` and ``smoke_options`` lists the screens the rules
allow now, with exact deviation outcomes (see ``ChqState``'s docstring).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from engine.errors import FireplanError
from engine.geometry import Density, Screen
from engine.options import SmokeOption

from . import artillery as art
from .actions import Smoke
from .blinds import spot_tn
from .combat import PendingFire, direct_tn, expected_disruption, is_flank, smoke_tn
from .fire import comms_odds
from .orders import artillery_fire_on, fire_params
from .sightlines import Blocker, compute_sight, viewpoint
from .state import BlindState

__all__ = ["threat", "smoke_options", "smoke_life_ticks", "known_pieces", "known_view", "sight_between"]


def threat(state, firer_id: str, target_id: str) -> float:
    """Exact expected Disruption of ``firer_id``'s best fire at ``target_id`` now (0.0 if none).

    A unit: the better of its direct and indirect fire as the rules allow them
    now (sight, range, smoke, cover, CHQ-11), ignoring whose pulse it is. A
    battery: a Regular single mission aimed at the target's centre, counting
    only an immediate arrival: P(Comms Check) x the sum over the exact
    deviation outcomes of the expected Disruption when the target is still
    under the template.
    """
    facts = state.facts
    if firer_id not in facts.units or target_id not in facts.units:
        return 0.0
    if state.units[target_id].pos is None:
        return 0.0
    f = facts.units[firer_id]
    if f.battery:
        aim = state.units[target_id].pos
        if not state.observers_of_point(f.side, aim, clear=not facts.s("fo_through_smoke")):
            return 0.0
        mission = art.Mission(0, f.side, (firer_id,), "single", "regular", aim, 0.0, None, "comms", aim)
        total = Fraction(0)
        base = state.base(target_id)
        for deviation, p in art.deviation_outcomes(facts):
            dx, dy = deviation.offset
            template = art.make_template(facts, (aim[0] + dx, aim[1] + dy), "regular")
            if not base.intersects(template.polygon):
                continue
            fire = artillery_fire_on(state, mission, template, target_id, False)
            if fire is not None:
                total += p * _expected(facts, fire)
        return float(comms_odds(facts.sides[f.side].comms_dice, rules=facts.rules) * total)
    if state.units[firer_id].pos is None:
        return 0.0
    best = Fraction(0)
    for indirect in (False, True):
        fire = fire_params(state, firer_id, target_id, indirect, penalty=0)
        if isinstance(fire, PendingFire):
            best = max(best, _expected(facts, fire))
    return float(best)


def _expected(facts, fire: PendingFire) -> Fraction:
    """:func:`expected_disruption`, remembered per game facts by the numbers that decide it (summing
    the exact distribution costs milliseconds, and planners ask for the same fires again and again)."""
    key = ("expected_disruption", fire.dice, fire.tn, fire.reaction, fire.reaction_tn, fire.high_suppression)
    value = facts.memo.get(key)
    if value is None:
        value = expected_disruption(facts, fire)
        facts._remember(key, value)
    return value


def smoke_life_ticks(state) -> int:
    """Ticks (pulses and Logistics Phases) a screen called in one's own pulse lasts if it arrives
    at once: the rest of this pulse (CHQ-23 reading); with smoke_extra_pulse also the own
    Logistics Phase, the enemy's pulse and phase, and the own next pulse."""
    return 5 if state.facts.s("smoke_extra_pulse") else 1


def smoke_options(state, side: str) -> list[SmokeOption]:
    """Battery smoke missions ``side`` may call now, on the lattice and in every canonical bearing."""
    from .decisions import _free_batteries, _mission_problem, _seen_aims

    facts = state.facts
    if state.pulse is None or state.pulse.side != side or state.staff[side] < 1:
        return []
    deviation = tuple(((d.offset[0], d.offset[1]), p) for d, p in art.deviation_outcomes(facts))
    p_comms = comms_odds(facts.sides[side].comms_dice, rules=facts.rules)
    density = Density(facts.s("smoke_density"))
    life = smoke_life_ticks(state)
    options = []
    for battery in _free_batteries(state, side):
        if not facts.units[battery].smoke:
            continue
        for point in _seen_aims(state, side):
            for bearing in facts.s("smoke_bearings"):
                action = Smoke(battery, point, bearing)
                if _mission_problem(state, side, (battery,), action.at, None, True) is not None:
                    continue
                screen = Screen(art.smoke_polygon(facts, action.at, action.bearing), (density,), 0, f"{battery} smoke")
                options.append(
                    SmokeOption(
                        actions=(action,),
                        screens=tuple((screen,) for _ in range(life)),
                        resources=((battery, 1), ("staff_orders", 1)),
                        deviation=deviation,
                        label=f"{action} (comms {float(p_comms):.0%})",
                        source="chq battery smoke",
                    )
                )
    return options


# ============================================================================ sight in bulk, as one side knows it
#
# What the visibility graph asks: pieces as ``side`` observes them (``known_pieces``) and sight with
# range band, smoke, TN modifier and exact threat between any of them, at their places or at
# hypothetical ones, with hypothetical screens (``sight_between``). Nothing here reads what ``side``
# may not know: every question is answered on a *view* of the state in which the enemy's
# unrevealed units are off the table, so a real Blind and a dummy look the same.


def known_pieces(state, side: str) -> tuple[dict, ...]:
    """The pieces on the table as ``side`` observes them, read from ``state.observation(side)``.

    One dict per piece with keys ``id``, ``kind`` ("unit" or "blind"), ``side``, ``position``,
    ``facing``, ``card`` (None for a Blind), ``hidden`` (an own unit under an own Blind),
    ``blind`` (that Blind), ``dummy`` (own Blinds: True or False; enemy Blinds: None) and
    ``unit`` (the unit under an own real Blind; None otherwise). Units off the table
    (batteries, dispersed units) are left out.
    """
    seen = state.observation(side)
    facts = state.facts
    enemy = facts.other(side)
    out = []
    for views, owner in ((seen.own_units, side), (seen.enemy_units, enemy)):
        for u in views:
            if u.position is None:
                continue
            hidden = bool(u.hidden) and owner == side
            out.append(
                dict(id=u.id, kind="unit", side=owner, position=tuple(u.position), facing=float(u.facing), card=u.card,
                     hidden=hidden, blind=facts.units[u.id].blind if hidden else None, dummy=None, unit=None)
            )
    for views, owner in ((seen.own_blinds, side), (seen.enemy_blinds, enemy)):
        for b in views:
            under = facts.blind_unit.get(b.id) if owner == side else None
            out.append(
                dict(id=b.id, kind="blind", side=owner, position=tuple(b.position), facing=0.0, card=None,
                     hidden=False, blind=b.id, dummy=b.dummy, unit=under)
            )
    return tuple(out)


def _known_view_class():
    from .game import ChqState

    class KnownView(ChqState):
        """A clone of a CHQ state as one side knows it, with hypothetical screens added.

        The enemy's units under Blinds are off the table; ``extra`` screens obscure like laid
        ones (CHQ-10, CHQ-12). Sight and threat are the state's own (``sight``, ``sees``,
        ``point_sight``, ``threat``); the content-keyed caches stay sound because the screen key
        names the extra screens.
        """

        extra: tuple = ()

        def screen_polygons(self):
            return super().screen_polygons() + [s.polygon for s in self.extra]

        def _screen_key(self):
            return super()._screen_key() + tuple(("extra", s.polygon.wkb) for s in self.extra)

    return KnownView


_KNOWN_VIEW = None


def known_view(state, side: str, screens=(), moves=None):
    """A clone of ``state`` holding only what ``side`` may know, with ``screens`` laid and the
    units of ``moves`` (``{unit_id: (x, y)}``) standing elsewhere (facing unchanged)."""
    global _KNOWN_VIEW
    if _KNOWN_VIEW is None:
        _KNOWN_VIEW = _known_view_class()
    view = _KNOWN_VIEW.__new__(_KNOWN_VIEW)
    view.__dict__.update(state.clone().__dict__)
    view.extra = tuple(s for s in screens if not s.is_gone)
    facts = state.facts
    enemy = facts.other(side)
    for uid in facts.unit_ids:
        if facts.units[uid].side == enemy and view.units[uid].hidden:
            view.units[uid].pos = None
    for uid, point in (moves or {}).items():
        unit = view.units[uid]
        unit.pos = (float(point[0]), float(point[1]))
        blind = facts.units[uid].blind
        if unit.hidden and blind is not None:
            view.blinds[blind] = BlindState(unit.pos, True)
    return view


class _Ref:
    """One end of a sight line: a piece (maybe standing elsewhere) or a bare point."""

    __slots__ = ("side", "point", "unit", "blind", "displaced", "dummy")

    def __init__(self, side, point, unit, blind, displaced, dummy=False):
        self.side, self.point, self.unit = side, point, unit  # unit: whose card and rules apply
        self.blind, self.displaced, self.dummy = blind, displaced, dummy  # blind: seen as a marker


def _point_of(value, name):
    try:
        x, y = value
        return (float(x), float(y))
    except (TypeError, ValueError):
        raise FireplanError(f"{name} must be a piece id, (piece id, (x, y)) or (x, y), got {value!r}") from None


def _resolve(view, side: str, ref, role: str) -> _Ref:
    """Read a reference as ``side`` knows it (``view`` already hides what it may not know)."""
    facts = view.facts
    if isinstance(ref, str):
        piece, point, displaced = ref, None, False
    elif isinstance(ref, tuple) and len(ref) == 2 and isinstance(ref[0], str):
        piece, point, displaced = ref[0], _point_of(ref[1], f"the place of {ref[0]}"), True
    else:
        if role == "observer":
            raise FireplanError(f"an observer must be a piece, not a bare point: {ref!r}")
        point = _point_of(ref, "a target")
        return _Ref(None, point, None, False, False)
    if point is not None and not facts.on_table(point):
        raise FireplanError(f"{piece} cannot stand at {point[0]:g},{point[1]:g}: off the table")
    if piece in facts.units:
        owner = facts.units[piece].side
        u = view.units[piece]
        if u.pos is None or (owner != side and u.hidden):
            raise FireplanError(f"{piece} is not a unit {side} knows of on the table")
        where = point if point is not None else u.pos
        # an own unit under a Blind is seen by the enemy as its Blind (CHQ-28)
        return _Ref(owner, where, piece, role == "target" and u.hidden, displaced)
    if piece in facts.blinds:
        if not view.blinds[piece].alive:
            raise FireplanError(f"the Blind {piece} is no longer on the table")
        owner = facts.blinds[piece].owner
        where = point if point is not None else view.blinds[piece].pos
        under = facts.blind_unit.get(piece) if owner == side else None
        if under is not None and role == "observer":
            return _Ref(owner, where, under, False, displaced)
        dummy = owner == side and under is None
        return _Ref(owner, where, None, True, displaced, dummy)
    raise FireplanError(f"unknown piece {piece!r}")


def _band(ranges, dist: float):
    for name, limit in zip(("close", "effective", "long"), ranges):
        if dist <= limit:
            return name
    return "beyond"


def sight_between(state, side: str, observers, targets, *, screens=(), fo: bool = False, threat: bool = True) -> dict:
    """Sight from every observer to every target as ``side`` knows the table, in bulk.

    ``observers`` are pieces (a unit or Blind id, or ``(id, (x, y))`` for that piece standing at
    ``(x, y)``); ``targets`` may also be bare points ``(x, y)`` (a template centre). Enemy
    pieces must be ones ``side`` observes: its revealed units and its Blinds, a Blind being
    seen, and seeing, as a Blind marker (``blind_base``) whatever it hides; an own unit under a
    Blind is seen by the enemy as that Blind. ``screens`` are hypothetical Screens added to
    those on the table. ``fo`` judges lines as a Forward Observer's to a template centre
    (CHQ-12 ``fo_through_smoke``).

    Sight is CHQ-30 from :func:`~.sightlines.compute_sight`, one kernel call per observing side
    (and per piece standing elsewhere, whose own base then leaves the blockers). Returns a dict
    of ``(N, M)`` arrays: ``visible``, ``obscured`` (seen through smoke), ``full`` and
    ``partial`` (screens crossed at the level where the target counts as seen, by density),
    ``range`` (centre to centre), ``band`` (the observer's direct-fire band, or its spotting
    band against a Blind; None if unknown), ``modifier`` (the TN change of a direct fire or a
    spotting roll along the line: range band, flank, smoke; None if unknown or beyond range),
    ``smoke_modifier`` (CHQ-10's part), ``threat`` (exact expected Disruption of the observer's
    best fire at the target standing there, from :func:`threat` on the view; NaN where unknown:
    Blinds, points, lines not seen) and ``fo_required`` (True: CHQ-17 needs an FO).
    """
    facts = state.facts
    if side not in facts.side_ids:
        raise FireplanError(f"unknown side {side!r}: expected one of {', '.join(facts.side_ids)}")
    screens = tuple(s for s in screens if not s.is_gone)
    view = known_view(state, side, screens)
    obs = [_resolve(view, side, r, "observer") for r in observers]
    tgt = [_resolve(view, side, r, "target") for r in targets]
    n, m = len(obs), len(tgt)
    visible = np.zeros((n, m), dtype=bool)
    smoke = np.zeros((n, m), dtype=np.int64)
    full_only = np.zeros((n, m), dtype=np.int64)

    def target_vp(t):
        if t.unit is None and not t.blind:
            return view._point_viewpoint(t.point)
        if t.blind:
            key = ("vpb", t.point)
            vp = view._cache.get(key)
            if vp is None:
                vp = viewpoint(facts, t.point, facts.blind_base(t.point))
                view._remember(key, vp)
            return vp
        return view._viewpoint(t.unit, t.point)

    def observer_vp(o):
        if o.unit is None:
            return target_vp(o)  # an enemy Blind looks out from its marker
        return view._viewpoint(o.unit, o.point)

    tgt_vp = [target_vp(t) for t in tgt]
    polygons = view.screen_polygons()
    state_density = Density(facts.s("smoke_density"))
    densities = [state_density] * (len(polygons) - len(screens)) + [s.density for s in screens]
    mixed = len(set(densities)) > 1
    full_polygons = [p for p, d in zip(polygons, densities) if d is Density.FULL]
    clear = fo and not facts.s("fo_through_smoke")

    groups: dict = {}
    for i, o in enumerate(obs):
        if not o.dummy:  # a dummy Blind sees nothing
            groups.setdefault((o.side, o.unit if o.displaced else None), []).append(i)
    for (group_side, moved), rows in groups.items():
        local = {obs[i].unit: k for k, i in enumerate(rows) if obs[i].unit is not None}
        blockers = [
            Blocker(view.base(u), view.units[u].pos, view._viewpoint(u).height, -1 if moved else local.get(u, -1))
            for u in view.on_table_units(group_side)
            if u != moved
        ]
        vps = [observer_vp(obs[i]) for i in rows]
        found = compute_sight(facts, vps, tgt_vp, blockers, polygons, clear_only=clear)
        visible[rows], smoke[rows] = found.visible, found.smoke
        if mixed and full_polygons:
            full_only[rows] = compute_sight(facts, vps, tgt_vp, blockers, full_polygons).smoke
    if mixed:
        full = np.minimum(full_only, smoke)
    else:
        full = smoke if densities and densities[0] is Density.FULL else np.zeros_like(smoke)
    partial = smoke - full

    op = np.array([o.point for o in obs], dtype=float).reshape(n, 2)
    tp = np.array([t.point for t in tgt], dtype=float).reshape(m, 2)
    rng = np.hypot(op[:, None, 0] - tp[None, :, 0], op[:, None, 1] - tp[None, :, 1])
    band = np.full((n, m), None, dtype=object)
    modifier = np.full((n, m), None, dtype=object)
    smoke_mod = np.zeros((n, m), dtype=np.int64)
    base_tn = int(facts.s("base_tn"))
    half_angle = float(facts.s("front_arc_half_angle"))
    for i, j in zip(*np.nonzero(visible)):
        o, t = obs[i], tgt[j]
        screens_ij, dist = int(smoke[i, j]), float(rng[i, j])
        smoke_mod[i, j] = smoke_tn(facts, screens_ij)
        if o.unit is None:
            continue  # a Blind: its card is unknown
        card = facts.units[o.unit]
        if t.blind:
            ranges = card.direct.ranges if card.direct is not None else tuple(facts.s("spot_ranges"))
            band[i, j] = _band(ranges, dist)
            tn = spot_tn(facts, card, dist, screens_ij)
            modifier[i, j] = None if tn is None else tn - base_tn
        elif t.unit is not None and card.direct is not None:
            band[i, j] = _band(card.direct.ranges, dist)
            flank = is_flank(t.point, view.units[t.unit].facing, o.point, half_angle)
            tn = direct_tn(facts, card.direct.ranges, dist, screens_ij, flank)
            modifier[i, j] = None if tn is None else tn - base_tn
        else:  # a template centre, or a unit seen by one without direct fire (a spotter, CHQ-9)
            modifier[i, j] = int(smoke_mod[i, j])

    threats = np.full((n, m), np.nan)
    if threat:
        _fill_threats(state, side, screens, obs, tgt, visible, threats, view)
    return {
        "observers": tuple(observers),
        "targets": tuple(targets),
        "visible": visible,
        "obscured": visible & (smoke > 0),
        "full": np.where(visible, full, 0),
        "partial": np.where(visible, partial, 0),
        "range": rng,
        "band": band,
        "modifier": modifier,
        "smoke_modifier": smoke_mod,
        "threat": threats,
        "fo_required": True,
    }


def _fill_threats(state, side, screens, obs, tgt, visible, out, here) -> None:
    """Exact threat of each seen (unit, unit) pair, on views in which the displaced pieces stand
    where the references put them: one view for the pairs at their places, one per (target side,
    k-th displacement) for displaced targets (a fire's threat does not depend on where the
    target's friends stand), one per displaced observer (it does depend on the firer's, which
    block its sight and spot for it), one per pair when both ends are displaced."""
    ordinal: dict = {}
    for refs in (obs, tgt):
        counts: dict = {}
        for r in refs:
            if r.displaced and r.unit is not None:
                ordinal[id(r)] = counts.get(r.unit, 0)
                counts[r.unit] = ordinal[id(r)] + 1
    rounds: dict = {}
    for i, j in zip(*np.nonzero(visible)):
        o, t = obs[i], tgt[j]
        if o.unit is None or t.unit is None:
            continue  # a blind's unit is unknown; a point is no target
        if not (o.displaced or t.displaced):
            key = ("here",)
        elif (o.displaced and t.displaced) or o.side == t.side:
            key = ("pair", (o.unit, o.point) if o.displaced else None, (t.unit, t.point) if t.displaced else None)
        elif t.displaced:
            key = ("target", t.side, ordinal[id(t)])
        else:
            key = ("observer", (o.unit, o.point))
        rounds.setdefault(key, []).append((i, j))
    for key, pairs in rounds.items():
        if key[0] == "here":
            moves = {}
        elif key[0] == "pair":
            moves = dict(m for m in key[1:] if m is not None)
        elif key[0] == "target":
            moves = {t.unit: t.point for t in tgt if t.side == key[1] and ordinal.get(id(t)) == key[2]}
        else:
            moves = dict([key[1]])
        view = known_view(state, side, screens, moves) if moves else here
        for i, j in pairs:
            out[i, j] = threat(view, obs[i].unit, tgt[j].unit)


# ============================================================================ fire planning
#
# What the fire and barrage planners (agent/fires) ask of a CHQ state, through
# ``ChqState.fire_planning()``. Everything here is either a fact the side may know
# (the lattice of aims its FOs see, its batteries, the public order of battle, the
# enemy's Blind markers) or an exact rules computation on a hypothetical piece
# (``landing_outcomes``): the planners never read what is under an enemy Blind.

import math
import weakref

import shapely
from dataclasses import dataclass

from engine.errors import IllegalActionError

from .actions import Barrage, Call
from .combat import effective, fire_distribution
from .facts import distance
from .movement import forced_back
from .victory import capture_points

__all__ += ["PieceState", "FireOption", "BlindBriefing", "BarrageSituation", "FirePlanning"]


@dataclass(frozen=True, slots=True)
class PieceState:
    """One piece as fire planning tracks it: a unit, or a hypothesis about an enemy Blind.

    ``unit`` is the unit (for an enemy Blind: the candidate unit assumed under it; None for a
    dummy or an unknown Blind); ``blind`` the Blind marker it stands for or hides under;
    ``hidden`` whether it is still under that marker; ``gone`` once dispersed or, for a dummy,
    removed (``pos`` is then None).
    """

    side: str
    unit: str | None
    blind: str | None
    pos: tuple[float, float] | None
    facing: float
    disruption: int = 0
    suppressed: bool = False
    hidden: bool = False
    gone: bool = False

    @property
    def key(self) -> str:
        """A stable name: the Blind for a Blind piece, else the unit."""
        return self.blind if self.blind is not None else str(self.unit)


@dataclass(frozen=True, slots=True)
class FireOption:
    """One on-call fire mission (CHQ-17) or time-on-target (CHQ-24) the side may call now.

    ``comms`` is P(Comms Check passes) (CHQ-18): the mission lands at once, else it arrives in
    the caller's next Logistics Phase; either way it deviates (CHQ-20) by one of ``deviation``
    ``((dx, dy), p)``. ``refire`` says what a continuous mission does in that Logistics Phase
    (CHQ-19): ``"none"`` (a single mission), ``"same"`` (fires again where it landed) or
    ``"deviates"`` (rolls a new deviation from the aim). ``kinds`` counts the batteries by
    card: batteries of one card are interchangeable. ``reach`` bounds how far from ``aim`` a
    piece can be and still be touched by the template after any deviation.
    """

    action: Call
    batteries: tuple[str, ...]
    kinds: tuple[tuple[str, int], ...]
    aim: tuple[float, float]
    sheaf: str
    duration: str
    tot: bool
    fo: str
    staff: int
    comms: Fraction
    deviation: tuple[tuple[tuple[float, float], Fraction], ...]
    refire: str
    reach: float

    @property
    def label(self) -> str:
        return str(self.action)


@dataclass(frozen=True, slots=True)
class BlindBriefing:
    """The public order of battle of ``enemy``'s Blinds (CHQ-28) as the scenario announces it:
    how many Blinds hide a unit and how many are dummies, which of its units stood in the open,
    which start under some Blind (``blind_units``), and every unit's card. Which Blind hides
    which unit, or is a dummy, is not here."""

    enemy: str
    real: int
    dummies: int
    open_units: tuple[str, ...]
    blind_units: tuple[str, ...]
    units: tuple[str, ...]
    cards: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class BarrageSituation:
    """An Initial Barrage (CHQ-25 to CHQ-27) as ``side`` faces it.

    ``rounds`` is the distribution of the number of rounds (one entry once known; CHQ-26's D3
    as three). ``round`` is the round being allocated (None when the barrage has not started);
    ``pending`` the batteries still to allocate in it, ``assigned`` this round's allocations.
    ``smoke_aims`` are the canonical Smoke Marker placements ``(point, bearing)`` for the last
    round; ``smoke_batteries`` the batteries that carry smoke.
    """

    side: str
    rounds: tuple[tuple[int, Fraction], ...]
    round: int | None
    batteries: tuple[str, ...]
    kinds: tuple[tuple[str, str], ...]
    pending: tuple[str, ...]
    assigned: tuple[Barrage, ...]
    one_blind_per_round: bool
    smoke_batteries: tuple[str, ...]
    smoke_aims: tuple[tuple[tuple[float, float], float], ...]


class _Suppressed:
    __slots__ = ("suppressed",)

    def __init__(self, suppressed: bool):
        self.suppressed = suppressed


class _PieceView:
    """The little of a state ``orders.artillery_fire_on`` reads, for one hypothetical piece."""

    __slots__ = ("facts", "units", "_piece")

    def __init__(self, facts, piece: PieceState):
        self.facts = facts
        self._piece = piece
        self.units = {piece.unit: _Suppressed(piece.suppressed)}

    def base(self, uid, pos=None):
        return self.facts.base_of(uid, self._piece.pos, self._piece.facing)


_MEMO: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _memo(facts) -> dict:
    memo = _MEMO.get(facts)
    if memo is None or len(memo) > 400_000:
        memo = _MEMO[facts] = {}
    return memo


def _template(facts, memo, centre, sheaf):
    key = ("tpl", centre, sheaf)
    template = memo.get(key)
    if template is None:
        template = memo[key] = art.make_template(facts, centre, sheaf)
    return template


def _contact(facts, memo, side, sheaf, centre, piece: PieceState) -> str | None:
    """How a template of ``side`` at ``centre`` touches ``piece`` (land() in orders.py):
    ``"blind"`` (an enemy Blind marker under it: revealed, +1D or removed), ``"partial"``
    (less than half under a sheaf with the partial bonus), ``"full"``, or None."""
    if piece.gone or piece.pos is None:
        return None
    key = ("contact", side, sheaf, centre, piece.side, piece.unit, piece.pos, piece.facing, piece.hidden and piece.blind is not None)
    if key in memo:
        return memo[key]
    template = _template(facts, memo, centre, sheaf)
    polygon = template.polygon
    found = None
    enemy_marker = piece.hidden and piece.blind is not None and piece.side != side
    if enemy_marker and facts.blind_base(piece.pos).intersects(polygon):
        found = "blind"
    elif piece.unit is not None and (facts.s("artillery_hits_all") or piece.side != side):
        base = facts.base_of(piece.unit, piece.pos, piece.facing)
        if base.intersects(polygon):
            partly = art.partial_bonus(facts, sheaf) and template.coverage(base) < 0.5
            found = "partial" if partly else "full"
    memo[key] = found
    return found


def _effects(facts, memo, fire):
    """A fire's chance node as integer weights over one denominator, merged by what matters to a
    piece: ``((disruption, suppressed, forced_back, weight), ...), denominator``."""
    dice, tn = effective(facts, fire.dice, fire.tn)
    reaction, reaction_tn = effective(facts, fire.reaction, fire.reaction_tn)
    key = ("effects", dice, tn, reaction, reaction_tn, fire.high_suppression)
    found = memo.get(key)
    if found is None:
        outcomes = fire_distribution(facts, fire)
        denominator = 1
        for _, p in outcomes:
            denominator = denominator * p.denominator // math.gcd(denominator, p.denominator)
        table = [(r.disruption, r.suppressed, r.forced_back, p.numerator * (denominator // p.denominator)) for r, p in outcomes]
        found = memo[key] = (tuple(table), denominator)
    return found


def _relative(facts, memo, fire, piece: PieceState, revealed: bool):
    """The fire's outcomes for a piece in this condition, with positions left as push distances:
    ``((disruption, suppressed, hidden, inches or None for gone, weight), ...), denominator``."""
    cohesion = facts.units[piece.unit].cohesion
    table, denominator = _effects(facts, memo, fire)
    dice, tn = effective(facts, fire.dice, fire.tn)
    reaction, reaction_tn = effective(facts, fire.reaction, fire.reaction_tn)
    key = ("relative", dice, tn, reaction, reaction_tn, fire.high_suppression, piece.disruption, piece.suppressed, piece.hidden, revealed, cohesion)
    found = memo.get(key)
    if found is None:
        hidden = piece.hidden and not revealed
        merged: dict = {}
        for disruption, suppressed, inches, weight in table:
            total = piece.disruption + disruption
            if disruption and total >= cohesion:
                k = (cohesion, False, False, None)
            elif disruption:
                k = (total, piece.suppressed or suppressed, hidden, inches)
            else:
                k = (piece.disruption, piece.suppressed or suppressed, hidden, 0)
            merged[k] = merged.get(k, 0) + weight
        found = memo[key] = (tuple(k + (w,) for k, w in merged.items()), denominator)
    return found


def landing_outcomes(facts, side, batteries, sheaf, centre, piece: PieceState, barrage: bool = False, exact: bool = True):
    """The exact distribution of ``piece`` after a template of ``batteries`` (``side``'s, sheaf
    ``sheaf``) lands at ``centre``: land() and the fire chance node for that one piece
    (CHQ-21 every unit under the template, CHQ-7 cover and partial bonus, CHQ-3 to CHQ-6,
    CHQ-28 Blinds). Returns ``((PieceState, probability), ...)`` with Fractions (floats when
    ``exact`` is False); a piece the template misses comes back unchanged with probability 1.
    The centre matters only through :meth:`FirePlanning.landing_contact`. A dispersed piece
    keeps its side, unit and Blind, Disruption = its cohesion, and nothing else."""
    memo = _memo(facts)
    centre = (float(centre[0]), float(centre[1]))
    contact = _contact(facts, memo, side, sheaf, centre, piece)
    one = Fraction(1) if exact else 1.0
    if contact is None:
        return ((piece, one),)
    key = ("landing", side, tuple(batteries), sheaf, barrage, contact, piece, exact)
    found = memo.get(key)
    if found is not None:
        return found
    revealed = contact == "blind"
    if piece.unit is None:  # a dummy Blind: artillery on it removes it (CHQ-28)
        found = ((PieceState(piece.side, None, piece.blind, None, piece.facing, 0, False, False, True), one),)
    else:
        mission = art.Mission(0, side, tuple(batteries), "single", sheaf, centre, 0.0, None, "landing", centre, barrage=barrage)
        template = _template(facts, memo, centre, sheaf)
        fire = artillery_fire_on(_PieceView(facts, piece), mission, template, piece.unit, revealed)
        if fire is None:
            same = PieceState(piece.side, piece.unit, piece.blind, piece.pos, piece.facing, piece.disruption, piece.suppressed,
                              piece.hidden and not revealed, piece.gone)
            found = ((same, one),)
        else:
            table, denominator = _relative(facts, memo, fire, piece, revealed)
            ex, ey = facts.edge_vector(piece.side)
            clip = facts.s("forced_back_clip")
            weights: dict = {}
            for disruption, suppressed, hidden, inches, weight in table:
                if inches is None:
                    k = (None, disruption, False, False, True)
                elif inches == 0:
                    k = (piece.pos, disruption, suppressed, hidden, False)
                else:
                    pushed = (piece.pos[0] + ex * inches, piece.pos[1] + ey * inches)
                    if not clip and not facts.on_table(pushed):
                        k = (None, facts.units[piece.unit].cohesion, False, False, True)
                    else:
                        x, y = facts.clip(forced_back(facts, piece.side, piece.pos, inches))
                        k = ((float(x), float(y)), disruption, suppressed, hidden, False)
                weights[k] = weights.get(k, 0) + weight
            if exact:
                found = tuple((PieceState(piece.side, piece.unit, piece.blind, pos, piece.facing, d, sup, hid, gone), Fraction(w, denominator))
                              for (pos, d, sup, hid, gone), w in weights.items())
            else:
                found = tuple((PieceState(piece.side, piece.unit, piece.blind, pos, piece.facing, d, sup, hid, gone), w / denominator)
                              for (pos, d, sup, hid, gone), w in weights.items())
    memo[key] = found
    return found


class FirePlanning:
    """The fire planners' view of one CHQ state (``ChqState.fire_planning()``).

    Examples
    --------
    >>> from engine.scenario import load_scenario
    >>> state = load_scenario("maps/chq_tot_crossroads.json").new_game(seed=1)
    >>> fp = state.fire_planning()
    >>> fp.blind_briefing("gb").real, fp.battery_kind("gb-bty-1")
    (0, 'British 25pdr Battery')
    """

    def __init__(self, state):
        self.state = state
        self.facts = state.facts
        self._public: dict = {}

    # ------------------------------------------------------------------ batteries and missions
    def battery_kind(self, battery: str) -> str:
        """Batteries of one card are interchangeable for planning."""
        return self.facts.units[battery].card

    def free_batteries(self, side: str) -> list[str]:
        """Batteries that may take a mission now (CHQ-17: not fired or smoked this turn, no mission)."""
        from .decisions import _free_batteries

        return list(_free_batteries(self.state, side))

    def tot_allowed(self, side: str) -> bool:
        """CHQ-24: time-on-target for the nations of setting tot_nations only."""
        return self.facts.sides[side].nation in self.facts.s("tot_nations")

    def fire_groups(self, side: str, max_size: int | None = None) -> list[tuple[str, ...]]:
        """One representative battery group per multiset of free battery kinds: every single
        battery kind, and (ToT nations only, CHQ-24) every multiset of two or more."""
        free = self.free_batteries(side)
        by_kind: dict[str, list[str]] = {}
        for b in free:
            by_kind.setdefault(self.battery_kind(b), []).append(b)
        kinds = sorted(by_kind)
        limit = len(free) if max_size is None else min(max_size, len(free))
        if not self.tot_allowed(side):
            limit = min(limit, 1)
        limit = min(limit, int(self.state.staff[side]))
        groups: list[tuple[str, ...]] = []

        def extend(i: int, chosen: list[str]) -> None:
            if i == len(kinds):
                if 1 <= len(chosen) <= limit:
                    groups.append(tuple(chosen))
                return
            pool = by_kind[kinds[i]]
            for n in range(0, min(len(pool), limit - len(chosen)) + 1):
                extend(i + 1, chosen + pool[:n])

        extend(0, [])
        return sorted(groups, key=lambda g: (len(g), g))

    def aims(self, side: str) -> list[tuple[float, float]]:
        """The canonical lattice of template centres some FO of ``side`` sees (CHQ-17, CHQ-12)."""
        from .decisions import _seen_aims

        return list(_seen_aims(self.state, side))

    def sheafs(self, batteries) -> tuple[str, ...]:
        if len(batteries) > 1:
            return ("regular", "converged")
        return tuple(s.lower() for s in (self.facts.units[batteries[0]].sheafs or ("Regular",)))

    def durations(self, batteries) -> tuple[str, ...]:
        if len(batteries) > 1 and self.facts.s("tot_mission_single"):
            return ("single",)
        return ("single", "continuous")

    def fire_option(self, side: str, batteries, aim, sheaf: str = "regular", duration: str = "single", fo: str | None = None) -> FireOption:
        """The mission of ``batteries`` at ``aim`` as a FireOption; IllegalActionError (with the
        engine's sentence) when the rules do not allow it now."""
        from .decisions import _mission_problem

        state, facts = self.state, self.facts
        batteries = tuple(batteries)
        aim = (float(aim[0]), float(aim[1]))
        problem = _mission_problem(state, side, batteries, aim, fo, False, sheaf, duration)
        if problem is not None:
            raise IllegalActionError(problem)
        if fo is None:
            fo = state.observers_of_point(side, aim, clear=not facts.s("fo_through_smoke"))[0]
        kinds: dict[str, int] = {}
        for b in batteries:
            kinds[self.battery_kind(b)] = kinds.get(self.battery_kind(b), 0) + 1
        deviation = tuple((d.offset, p) for d, p in art.deviation_outcomes(facts))
        if duration == "continuous":
            refire = "deviates" if facts.s("continuous_refire_deviates") else "same"
        else:
            refire = "none"
        width, depth = facts.table("templates")[art.sheaf_name(sheaf)]["size"]
        bases = [max(u.base) for u in facts.units.values()] + [max(facts.s("blind_base"))]
        reach = max(math.hypot(*o) for o, _ in deviation) + math.hypot(width, depth) / 2 + max(bases) * math.sqrt(2) / 2
        return FireOption(
            action=Call(batteries, aim, duration, sheaf, fo),
            batteries=batteries,
            kinds=tuple(sorted(kinds.items())),
            aim=Call(batteries, aim).at,
            sheaf=sheaf,
            duration=duration,
            tot=len(batteries) > 1,
            fo=fo,
            staff=len(batteries),
            comms=comms_odds(facts.sides[side].comms_dice, rules=facts.rules),
            deviation=deviation,
            refire=refire,
            reach=float(reach),
        )

    def fire_options(self, side: str, groups=None, aims=None) -> list[FireOption]:
        """Every legal mission of ``groups`` (default :meth:`fire_groups`) at ``aims`` (default
        :meth:`aims`), in each allowed sheaf and duration."""
        groups = self.fire_groups(side) if groups is None else groups
        aims = self.aims(side) if aims is None else aims
        out = []
        for group in groups:
            for aim in aims:
                for sheaf in self.sheafs(group):
                    for duration in self.durations(group):
                        try:
                            out.append(self.fire_option(side, group, aim, sheaf, duration))
                        except IllegalActionError:
                            continue
        return out

    def landing_outcomes(self, side: str, batteries, sheaf: str, centre, piece: PieceState, barrage: bool = False, exact: bool = True):
        """See :func:`landing_outcomes`."""
        return landing_outcomes(self.facts, side, batteries, sheaf, centre, piece, barrage, exact)

    def landing_contacts(self, side: str, sheaf: str, centres, piece: PieceState) -> list:
        """:meth:`landing_contact` for many centres at once (vectorised geometry)."""
        facts = self.facts
        memo = _memo(facts)
        centres = [(float(c[0]), float(c[1])) for c in centres]
        if piece.gone or piece.pos is None:
            return [None] * len(centres)
        enemy_marker = piece.hidden and piece.blind is not None and piece.side != side
        hits_unit = piece.unit is not None and (facts.s("artillery_hits_all") or piece.side != side)
        key = ("contacts", side, sheaf, tuple(centres), piece.side, piece.unit, piece.pos, piece.facing, enemy_marker)
        found = memo.get(key)
        if found is not None:
            return list(found)
        templates = [_template(facts, memo, c, sheaf) for c in centres]
        polygons = np.array([t.polygon for t in templates], dtype=object)
        out: list = [None] * len(centres)
        if enemy_marker:
            marker = facts.blind_base(piece.pos)
            for i in np.nonzero(shapely.intersects(polygons, marker))[0]:
                out[int(i)] = "blind"
        if hits_unit:
            base = facts.base_of(piece.unit, piece.pos, piece.facing)
            partial = art.partial_bonus(facts, sheaf)
            hit = [int(i) for i in np.nonzero(shapely.intersects(polygons, base))[0] if out[int(i)] is None]
            if hit and partial:  # CHQ-7 "less than half under": the share geometry.coverage computes
                shares = np.minimum(1.0, shapely.area(shapely.intersection(base, polygons[hit])) / base.area)
            else:
                shares = np.ones(len(hit))
            for i, share in zip(hit, shares):
                out[i] = "partial" if partial and share < 0.5 else "full"
        memo[key] = tuple(out)
        return out

    def landing_contact(self, side: str, sheaf: str, centre, piece: PieceState):
        """How a template at ``centre`` touches ``piece`` (None: not at all). Landing outcomes
        depend on the centre only through this value, so a planner may group centres by it."""
        centre = (float(centre[0]), float(centre[1]))
        return _contact(self.facts, _memo(self.facts), side, sheaf, centre, piece)

    # ------------------------------------------------------------------ pieces and beliefs
    def _unit_piece(self, uid: str) -> PieceState:
        unit = self.state.units[uid]
        blind = self.facts.units[uid].blind if unit.hidden else None
        return PieceState(self.facts.units[uid].side, uid, blind, unit.pos, unit.facing, unit.disruption, unit.suppressed, unit.hidden, unit.pos is None)

    def pieces(self, side: str) -> list[PieceState]:
        """What ``side`` knows is on the table: its own units (its own Blinds' units as they
        are), the enemy's revealed units, and the enemy's live Blinds as unknown markers
        (``unit`` None, ``hidden`` True). Read from ``observation(side)`` and public facts."""
        obs = self.state.observation(side)
        out = [self._unit_piece(v.id) for v in obs.own_units if v.position is not None and not self.facts.units[v.id].battery]
        out += [self._unit_piece(v.id) for v in obs.enemy_units if v.position is not None]
        enemy = self.facts.other(side)
        facing = self.blind_facing(enemy)
        out += [PieceState(enemy, None, b.id, tuple(b.position), facing, hidden=True) for b in obs.enemy_blinds]
        return out

    def blind_facing(self, owner: str) -> float:
        """The facing assumed for a unit under ``owner``'s Blind: toward the enemy's table edge
        (a Blind shows no facing)."""
        return (self.facts.edge_bearing(owner) + 180.0) % 360.0

    def blind_briefing(self, side: str) -> BlindBriefing:
        """The enemy's Blinds as the scenario announces them to both players (CHQ-28)."""
        facts = self.facts
        enemy = facts.other(side)
        blinds = [b for b in facts.blind_ids if facts.blinds[b].owner == enemy]
        dummies = sum(1 for b in blinds if facts.blinds[b].dummy)
        units = [u for u in facts.unit_ids if facts.units[u].side == enemy and not facts.units[u].battery]
        open_units = [u for u in units if facts.units[u].blind is None and facts.units[u].start is not None]
        under = [u for u in units if facts.units[u].blind is not None]
        return BlindBriefing(
            enemy=enemy,
            real=len(blinds) - dummies,
            dummies=dummies,
            open_units=tuple(open_units),
            blind_units=tuple(under),
            units=tuple(units),
            cards=tuple((u, facts.units[u].card) for u in units),
        )

    def hypothesis(self, side: str, blind: str, unit: str | None) -> PieceState:
        """The enemy Blind ``blind`` as seen by ``side``, assumed to hide ``unit`` (None: a dummy)."""
        enemy = self.facts.other(side)
        pos = self.state.blinds[blind].pos
        return PieceState(enemy, unit, blind, tuple(pos), self.blind_facing(enemy), hidden=True)

    def revealed_unit(self, blind: str) -> str | None:
        """The unit a Blind turned out to hide, once it is revealed (public then); None while it
        is live or when it was a dummy."""
        if self.state.blinds[blind].alive:
            return None
        return self.facts.blind_unit.get(blind)

    def scoring_unit_under(self, blind: str) -> str | None:
        """The unit under a Blind, revealed or not: the truth, for scoring outcomes after the
        fact (agent.fires.verify). Planners must never call it."""
        return self.facts.blind_unit.get(blind)

    def unit_piece(self, uid: str) -> PieceState:
        """A unit's current PieceState (for scoring outcomes after the fact)."""
        return self._unit_piece(uid)

    def objective_points(self, piece: PieceState) -> int:
        """Points of the objectives ``piece`` stands on unsuppressed (what it holds or contests,
        CHQ-29); 0 for a piece gone, suppressed or (setting blinds_hold_objectives) hidden."""
        facts = self.facts
        if piece.gone or piece.pos is None or piece.unit is None or piece.suppressed:
            return 0
        if piece.hidden and not facts.s("blinds_hold_objectives"):
            return 0
        return sum(capture_points(facts, o) for o in facts.objectives if distance(piece.pos, o.position) <= o.radius)

    def cohesion(self, uid: str) -> int:
        return int(self.facts.units[uid].cohesion)

    # ------------------------------------------------------------------ threat as the side knows it
    def _public_state(self, side: str, screens=()):
        key = (side, tuple(screens))
        clone = self._public.get(key)
        if clone is None:
            clone = self.state.clone()
            enemy = self.facts.other(side)
            for uid in self.facts.unit_ids:
                if self.facts.units[uid].side == enemy and clone.units[uid].hidden:
                    clone.units[uid].pos = None
            for centre, bearing in screens:
                clone.new_mission(side=side, batteries=("planned-smoke",), kind="smoke", sheaf="smoke", aim=tuple(centre),
                                  bearing=float(bearing), fo=None, status="screen", centre=tuple(centre))
            self._public[key] = clone
        return clone

    def public_threat(self, side: str, firer: PieceState, target: PieceState, screens=()) -> float:
        """``threat(firer, target)`` on what ``side`` knows: the enemy's hidden units are off the
        table, except a hypothesis ``firer`` or ``target`` placed where its Blind is; ``screens``
        ``((centre, bearing), ...)`` are extra smoke screens (CHQ-23) assumed on the table."""
        if firer.unit is None or target.unit is None or firer.gone or target.gone:
            return 0.0
        clone = self._public_state(side, screens)
        placed = []
        for piece in (firer, target):
            unit = clone.units[piece.unit]
            placed.append((piece.unit, unit.pos, unit.facing, unit.hidden))
            unit.pos, unit.facing, unit.hidden = piece.pos, piece.facing, False
        try:
            return threat(clone, firer.unit, target.unit)
        finally:
            for uid, pos, facing, hidden in reversed(placed):
                unit = clone.units[uid]
                unit.pos, unit.facing, unit.hidden = pos, facing, hidden

    # ------------------------------------------------------------------ initial barrage
    def barrage_ahead(self, side: str) -> bool:
        """True while ``side``'s Initial Barrage is still to come or being allocated (CHQ-25):
        before turn 1, with its rounds, its roll for the number of rounds or its allocation
        on the agenda."""
        state = self.state
        if state.turn != 0:
            return False
        if state.barrage is not None and state.barrage.side == side:
            return True
        for entry in state.agenda:
            payload = entry.payload
            if entry.kind in ("barrage_side", "d3_rounds") and payload == side:
                return True
            if entry.kind == "barrage_round" and isinstance(payload, tuple) and payload and payload[0] == side:
                return True
        return False

    def barrage_situation(self, side: str) -> BarrageSituation:
        """The Initial Barrage of ``side`` now (CHQ-25 to CHQ-27)."""
        facts, state = self.facts, self.state
        batteries = tuple(facts.batteries(side))
        round_ = state.barrage if state.barrage is not None and state.barrage.side == side else None
        if round_ is not None:
            rounds = ((int(round_.rounds), Fraction(1)),)
            done = {a.battery for a in round_.assigned}
            pending = tuple(b for b in batteries if b not in done)
            assigned = tuple(round_.assigned)
            number = int(round_.number)
        else:
            text = art.barrage_rounds(facts, side)
            if text == "D3":
                rounds = tuple((v, Fraction(1, 3)) for v in (1, 2, 3))
            else:
                rounds = ((int(text), Fraction(1)),)
            pending, assigned, number = batteries, (), None
        enemy = facts.other(side)
        points = [state.blinds[b].pos for b in state.live_blinds(enemy)] + list(facts.grid)
        aims = tuple((tuple(p), float(bearing)) for p in dict.fromkeys(points) for bearing in facts.s("smoke_bearings"))
        return BarrageSituation(
            side=side,
            rounds=rounds,
            round=number,
            batteries=batteries,
            kinds=tuple((b, self.battery_kind(b)) for b in batteries),
            pending=pending,
            assigned=assigned,
            one_blind_per_round=bool(facts.s("barrage_one_blind_per_round")),
            smoke_batteries=tuple(b for b in batteries if facts.units[b].smoke),
            smoke_aims=aims,
        )

    def barrage_action(self, battery: str, blind: str | None = None, at=None, bearing: float = 0.0) -> Barrage:
        """The engine's order for one battery in a barrage round: a Blind, smoke at ``at``, or hold."""
        return Barrage(battery, blind, None if at is None else tuple(at), bearing)

    def barrage_dice_key(self, batteries) -> tuple:
        """What a barrage group's fire depends on besides its target: its kinds, sorted."""
        return tuple(sorted(self.battery_kind(b) for b in batteries))

    def smoke_polygon(self, centre, bearing: float):
        """The area a smoke screen laid at ``centre`` along ``bearing`` covers (CHQ-23)."""
        return art.smoke_polygon(self.facts, tuple(centre), float(bearing))


# ============================================================================ smoke budget


def smoke_resources(state, side: str, options=None) -> dict[str, int]:
    """What ``side``'s smoke options may use now, ``{resource: capacity}``: each battery that may
    call smoke smokes at most once this pulse (capacity 1, CHQ-12) and every mission costs one of
    the side's Staff Orders in hand (``"staff_orders"``)."""
    capacities = {"staff_orders": int(state.staff[side])}
    for option in smoke_options(state, side) if options is None else options:
        for name, _ in option.resources:
            capacities.setdefault(name, 1)
    return capacities
