"""The table as one side knows it, for fire planning: pieces, Blind beliefs, target values, exact landings.

A :class:`Board` is built from a state and a side through the state's fire-planning hooks
(``state.fire_planning()``), never from what the side may not know. It holds one
:class:`Track` per piece and hypothesis:

- each of our units on the table and each revealed enemy unit is one track of weight 1;
- each live enemy Blind is a :class:`BlindBelief`: it is real with probability ``p_real`` (from the
  scenario's announced numbers of real and dummy Blinds, less those already revealed), and then
  hides each enemy unit not yet seen with equal chance. It becomes one track per hypothesis: a
  dummy track of weight ``1 - p_real`` and one track per candidate card of weight
  ``p_real * share``. By linearity of expectation the sum over hypotheses is the exact expected
  effect under that belief.

What each piece is worth is a :class:`PieceValue` that states its reasons: the threat it poses to
our units (the exact expected Disruption of its best fire, ``threat`` on the side's view), the
objective points it holds, the value of suppressing it before our move (its opportunity fire),
and of dispersing it (its threat gone, a D3 of Morale). The value of a piece state is
:meth:`PieceValue.damage`; a mission's effect is the expected change of the damage over every
track, friendly tracks counting against us (times ``friendly_penalty``).

:meth:`Board.land` is the exact transition of a distribution of one piece's states under a
template landing on a distribution of centres: the engine's ``landing_outcomes`` for every
(state, centre) pair, summed in floating point.

Examples
--------
>>> from engine.scenario import load_scenario
>>> state = load_scenario("maps/chq_tot_crossroads.json").new_game(seed=1)
>>> board = Board(state, "gb")
>>> sorted(t.key for t in board.tracks if not t.value.own)
['de-panther-1', 'de-panther-2', 'de-rifle-1']
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field, replace

from engine.errors import FireplanError

__all__ = ["ValueWeights", "PieceValue", "BlindBelief", "Track", "Board", "belief_lines"]


@dataclass(frozen=True, slots=True)
class ValueWeights:
    """What the planners trade off, in one currency: Disruption points inflicted on the enemy.

    Attributes
    ----------
    disruption:
        Value of one Disruption point on an enemy unit (the unit of account).
    suppression, suppression_threat:
        A suppressed unit cannot fire or join a group until it spends a die (CHQ-14): worth
        ``suppression + suppression_threat * threat``.
    premove:
        Times the unit's threat: the extra value of a suppression that lands *before our move*
        (its opportunity fire on our movers is stopped, CHQ-31); lost when a mission is delayed.
    dispersal, dispersal_threat:
        A dispersed unit costs its side D3 Morale Points (CHQ-29, 2 expected) and its threat for
        good: ``dispersal + dispersal_threat * threat`` on top of the Disruption it took.
    reveal:
        Knowing what an enemy Blind is (real or dummy) once artillery falls on it (CHQ-28).
    objective:
        Per objective point an enemy unit holds or contests unsuppressed (CHQ-29): lost to it when
        it is suppressed, forced back off the objective or dispersed.
    friendly_penalty:
        Our own units hit by our templates after deviation count this many times their value
        against the plan (CHQ-21 setting ``artillery_hits_all``).
    staff_order:
        The worth of a Staff Order kept for later; a mission must beat it to be called.
    smoke_threat:
        Value of one expected Disruption of enemy fire on our units taken away by smoke.
    """

    disruption: float = 1.0
    suppression: float = 0.25
    suppression_threat: float = 0.5
    premove: float = 1.0
    dispersal: float = 2.0
    dispersal_threat: float = 2.0
    reveal: float = 0.25
    objective: float = 1.0
    friendly_penalty: float = 1.5
    staff_order: float = 0.2
    smoke_threat: float = 1.0

    def __post_init__(self) -> None:
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise FireplanError(f"value weight {name} must be a finite number >= 0, got {value!r}")


@dataclass(frozen=True, slots=True)
class PieceValue:
    """What one piece (or one hypothesis about an enemy Blind) is worth, and why.

    ``damage(state)`` is the value of a piece state to the planning side: Disruption, a
    suppression, the objective it no longer holds, a dispersal, a Blind turned over. A friendly
    piece's damage counts against the plan (``sign`` -1 times ``friendly_penalty``).
    """

    key: str
    label: str
    own: bool
    threat: float
    threatens: str | None
    objective_points: int
    can_opfire: bool
    disruption: float
    suppression: float
    premove: float
    dispersal: float
    reveal: float
    objective: float
    cohesion: int
    sign: float

    def damage(self, state, points: int, now: bool) -> float:
        """Value of ``state`` (``points``: objective points it holds there); ``now`` adds the value
        of a suppression before our move."""
        revealed = self.reveal if state.blind is not None and not state.hidden else 0.0
        if state.gone:
            taken = min(state.disruption, self.cohesion) if state.unit is not None else 0
            lost = self.dispersal if state.unit is not None else 0.0
            return self.disruption * taken + lost + revealed + self.objective * self.objective_points
        value = self.disruption * state.disruption + revealed + self.objective * (self.objective_points - points)
        if state.suppressed:
            value += self.suppression + (self.premove if now else 0.0)
        return value

    def why(self) -> str:
        """The reasons, in plain words."""
        parts = []
        if self.threat > 0:
            whom = f" {self.threatens}" if self.threatens else " our units"
            parts.append(f"threatens{whom} with {self.threat:.2f} expected Disruption a fire")
        else:
            parts.append("threatens none of our units now")
        if self.objective_points:
            parts.append(f"holds {self.objective_points} objective point{'s' if self.objective_points != 1 else ''}")
        if self.premove > 0:
            parts.append(f"suppressing it before we move is worth {self.suppression + self.premove:.2f}")
        else:
            parts.append(f"suppressing it is worth {self.suppression:.2f}")
        parts.append(f"dispersing it {self.dispersal + self.disruption * self.cohesion:.2f}")
        return ", ".join(parts)


@dataclass(frozen=True, slots=True)
class BlindBelief:
    """What ``side`` believes of one enemy Blind: real with ``p_real``, then each card of
    ``candidates`` ``((card, share, unit), ...)`` with the given share; a dummy otherwise."""

    blind: str
    position: tuple[float, float]
    p_real: float
    candidates: tuple[tuple[str, float, str], ...]
    real_left: int
    live: int

    def why(self, names: str | None = None) -> str:
        """The belief in words; ``names`` replaces the Blind's id (several Blinds alike)."""
        cards = ", ".join(f"{card} {share:.0%}" for card, share, _ in self.candidates) or "nothing left to hide"
        return (
            f"{names or self.blind}: real with {self.p_real:.0%} ({self.real_left} unit{'s' if self.real_left != 1 else ''} "
            f"unseen under {self.live} live Blind{'s' if self.live != 1 else ''}); if real: {cards}"
        )


def belief_lines(beliefs) -> list[str]:
    """One line per group of Blinds believed alike."""
    groups: dict = {}
    for b in beliefs:
        groups.setdefault((b.p_real, b.candidates, b.real_left, b.live), []).append(b)
    return [f"- Belief: {group[0].why(', '.join(x.blind for x in group))}." for group in groups.values()]


@dataclass(frozen=True, slots=True)
class Track:
    """One piece or hypothesis followed through a plan: ``weight`` is its probability."""

    key: str
    weight: float
    start: object  # the hooks' PieceState
    value: PieceValue
    hypothesis: str = ""

    @property
    def label(self) -> str:
        return self.value.label


@dataclass
class Board:
    """The pieces ``side`` knows of, its beliefs about enemy Blinds, and exact landings.

    Parameters
    ----------
    state:
        A game state offering ``fire_planning()``; it is never changed.
    side:
        The planning side.
    weights:
        The :class:`ValueWeights`.
    """

    state: object
    side: str
    weights: ValueWeights = field(default_factory=ValueWeights)

    def __post_init__(self) -> None:
        if not hasattr(self.state, "fire_planning"):
            raise FireplanError("this ruleset offers no fire planning hooks (state.fire_planning())")
        self.fp = self.state.fire_planning()
        self._points: dict = {}
        self._ids: dict = {}
        self._states: list = []
        self._damage: dict = {}
        self._kernel_memo: dict = {}
        self._contact_memo: dict = {}
        self._class_memo: dict = {}
        self._trans: dict = {}
        self._batteries: dict = {}
        self.beliefs: dict[str, BlindBelief] = {}
        self.tracks: list[Track] = self._build_tracks()
        self.by_key: dict[str, list[Track]] = defaultdict(list)
        for track in self.tracks:
            self.by_key[track.key].append(track)

    # ---------------------------------------------------------------- beliefs
    def _beliefs(self, pieces) -> None:
        brief = self.fp.blind_briefing(self.side)
        obs = self.state.observation(self.side)
        seen = {u.id for u in obs.enemy_units}
        live = [p for p in pieces if p.side == brief.enemy and p.unit is None and p.hidden]
        revealed_real = len([u for u in seen if u in brief.blind_units])
        real_left = max(0, min(len(live), brief.real - revealed_real))
        unseen = [u for u in brief.blind_units if u not in seen]
        p_real = real_left / len(live) if live and unseen else 0.0
        cards: dict[str, list[str]] = {}
        card_of = dict(brief.cards)
        for u in unseen:
            cards.setdefault(card_of[u], []).append(u)
        candidates = tuple((card, len(units) / len(unseen), units[0]) for card, units in sorted(cards.items()))
        for piece in live:
            self.beliefs[piece.blind] = BlindBelief(piece.blind, tuple(piece.pos), p_real, candidates, real_left, len(live))

    # ---------------------------------------------------------------- values
    def points(self, state) -> int:
        """Objective points the piece holds there; a unit under a Blind counts for what it would
        hold once seen (it is there), so turning it over is not a loss."""
        found = self._points.get(state)
        if found is None:
            seen = replace(state, hidden=False) if state.hidden else state
            found = self._points[state] = int(self.fp.objective_points(seen))
        return found

    def _threat(self, firer, targets) -> tuple[float, str | None]:
        best, whom = 0.0, None
        for target in targets:
            t = float(self.fp.public_threat(self.side, firer, target))
            if t > best + 1e-12:
                best, whom = t, target.unit
        return best, whom

    def _value(self, piece, own: bool, threat: float, whom: str | None, label: str, can_opfire: bool) -> PieceValue:
        w = self.weights
        unit = piece.unit
        cohesion = self.fp.cohesion(unit) if unit is not None else 0
        points = self.points(piece) if unit is not None else 0
        return PieceValue(
            key=piece.key,
            label=label,
            own=own,
            threat=threat,
            threatens=whom,
            objective_points=points,
            can_opfire=can_opfire,
            disruption=w.disruption,
            suppression=w.suppression + w.suppression_threat * threat,
            premove=w.premove * threat if can_opfire else 0.0,
            dispersal=w.dispersal + w.dispersal_threat * threat,
            reveal=w.reveal if piece.blind is not None and not own else 0.0,
            objective=w.objective,
            cohesion=cohesion,
            sign=-w.friendly_penalty if own else 1.0,
        )

    def _build_tracks(self) -> list[Track]:
        pieces = self.fp.pieces(self.side)
        self._beliefs(pieces)
        ours = [p for p in pieces if p.side == self.side and p.unit is not None]
        theirs = [p for p in pieces if p.side != self.side and p.unit is not None]
        markers = {u.id: u.fire_marker for u in self.state.observation(self.side).enemy_units}
        tracks = []
        for piece in theirs:
            threat, whom = self._threat(piece, ours)
            label = piece.unit
            value = self._value(piece, False, threat, whom, label, not markers.get(piece.unit, False))
            tracks.append(Track(piece.key, 1.0, piece, value))
        for piece in pieces:
            if piece.side == self.side or piece.unit is not None:
                continue
            belief = self.beliefs[piece.blind]
            dummy = self.fp.hypothesis(self.side, piece.blind, None)
            label = f"{piece.blind} if a dummy"
            tracks.append(Track(piece.key, 1.0 - belief.p_real, dummy, self._value(dummy, False, 0.0, None, label, False), "dummy"))
            for card, share, unit in belief.candidates:
                if belief.p_real <= 0:
                    continue
                hyp = self.fp.hypothesis(self.side, piece.blind, unit)
                threat, whom = self._threat(hyp, ours)
                label = f"{piece.blind} if it hides a {card}"
                tracks.append(Track(piece.key, belief.p_real * share, hyp, self._value(hyp, False, threat, whom, label, True), card))
        for piece in ours:
            threat, whom = self._threat(piece, theirs)
            value = self._value(piece, True, threat, whom, f"our {piece.unit}", True)
            tracks.append(Track(piece.key, 1.0, piece, value))
        return tracks

    # ---------------------------------------------------------------- piece states by number
    def sid(self, state) -> int:
        """The number of a piece state (states are interned: distributions are dicts of ints)."""
        found = self._ids.get(state)
        if found is None:
            found = self._ids[state] = len(self._states)
            self._states.append(state)
        return found

    def state_of(self, sid: int):
        return self._states[sid]

    def start(self, track: Track) -> dict:
        """The point distribution of a track's starting state."""
        return {self.sid(track.start): 1.0}

    # ---------------------------------------------------------------- effects
    def damage(self, track: Track, sid: int, now: bool = True) -> float:
        key = (id(track.value), sid, now)
        found = self._damage.get(key)
        if found is None:
            state = self._states[sid]
            found = self._damage[key] = track.value.damage(state, self.points(state) if state.unit is not None else 0, now)
        return found

    def effect(self, track: Track, dist: dict, now: bool = True) -> float:
        """Weighted, signed expected change of ``track``'s damage from its start to ``dist``."""
        start = self.damage(track, self.sid(track.start), now)
        total = sum(q * self.damage(track, s, now) for s, q in dist.items())
        return track.weight * track.value.sign * (total - start)

    # ---------------------------------------------------------------- exact landings
    def event(self, batteries, sheaf: str, aim, centres, reach: float, barrage: bool = False) -> tuple:
        """A landing as a hashable key: a battery group (by kinds: same-card batteries land alike),
        a sheaf, the aim and its distribution of centres ``((centre, p), ...)``."""
        kinds = tuple(sorted(self.fp.battery_kind(b) for b in batteries))
        self._batteries.setdefault(kinds, tuple(batteries))
        return (kinds, sheaf, tuple(aim), tuple(centres), float(reach), bool(barrage))

    def _contact(self, sheaf: str, centre, sid: int):
        key = (sheaf, centre, sid)
        found = self._contact_memo.get(key)
        if found is None:
            found = self._contact_memo[key] = (self.fp.landing_contact(self.side, sheaf, centre, self._states[sid]),)
        return found[0]

    def _outcomes(self, kinds, sheaf: str, contact, centre, sid: int, barrage: bool):
        key = (kinds, sheaf, contact, sid, barrage)
        found = self._kernel_memo.get(key)
        if found is None:
            outcomes = self.fp.landing_outcomes(self.side, self._batteries[kinds], sheaf, centre, self._states[sid], barrage, exact=False)
            found = self._kernel_memo[key] = tuple((self.sid(s), p) for s, p in outcomes)
        return found

    def _classes(self, sheaf: str, centres, sid: int):
        """The centres grouped by how they touch the piece: ``((contact, centre, mass), ...)``
        (contact None: a miss); independent of the battery group, so shared by all columns."""
        key = (sheaf, centres, sid)
        found = self._class_memo.get(key)
        if found is None:
            mass: dict = {}
            first: dict = {}
            contacts = self.fp.landing_contacts(self.side, sheaf, [c for c, _ in centres], self._states[sid])
            for (centre, p), contact in zip(centres, contacts):
                self._contact_memo[(sheaf, centre, sid)] = (contact,)
                mass[contact] = mass.get(contact, 0.0) + p
                first.setdefault(contact, centre)
            found = self._class_memo[key] = tuple((c, first[c], m) for c, m in mass.items())
        return found

    def hit_at(self, event: tuple, centre, sid: int):
        """Outcomes ``((sid, p), ...)`` of the event's template landing exactly at ``centre``, or
        None when it does not touch the piece there."""
        kinds, sheaf, aim, _, reach, barrage = event
        state = self._states[sid]
        if state.gone or state.pos is None or math.hypot(state.pos[0] - aim[0], state.pos[1] - aim[1]) > reach:
            return None
        contact = self._contact(sheaf, centre, sid)
        if contact is None:
            return None
        return self._outcomes(kinds, sheaf, contact, centre, sid, barrage)

    def transition(self, event: tuple, sid: int):
        """Exact distribution ``((sid, p), ...)`` of a piece state after the event's landing."""
        key = (event, sid)
        found = self._trans.get(key)
        if found is None:
            kinds, sheaf, aim, centres, reach, barrage = event
            state = self._states[sid]
            if state.gone or state.pos is None or math.hypot(state.pos[0] - aim[0], state.pos[1] - aim[1]) > reach:
                found = ((sid, 1.0),)
            else:
                out: dict = defaultdict(float)
                for contact, centre, mass in self._classes(sheaf, centres, sid):
                    if contact is None:
                        out[sid] += mass
                        continue
                    for after, r in self._outcomes(kinds, sheaf, contact, centre, sid, barrage):
                        out[after] += mass * r
                found = tuple(out.items())
            self._trans[key] = found
        return found

    def land(self, dist: dict, event: tuple) -> dict:
        """The exact distribution of a piece after the event's template lands (see :meth:`event`)."""
        out: dict = defaultdict(float)
        for sid, q in dist.items():
            for after, p in self.transition(event, sid):
                out[after] += q * p
        return dict(out)

    def touches(self, track: Track, sheaf: str, centre) -> bool:
        """Whether a template at ``centre`` covers the track's piece (or its Blind marker) now."""
        return self._contact(sheaf, (float(centre[0]), float(centre[1])), self.sid(track.start)) is not None
