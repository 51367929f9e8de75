"""The CHQ game state: the whole turn of CHQ-13 to CHQ-31 behind the GameState contract.

``new_game(scenario, seed)`` (what ``Scenario.new_game`` calls) builds a
:class:`ChqState`. The flow is an agenda of entries (a stack): ``roll``
entries are chance nodes, ``decide`` entries are a side's decisions, ``step``
entries are bookkeeping run at once. Every die is a roll entry whose outcomes
are listed exactly; nothing calls a random generator behind the players' back.

Examples
--------
>>> from engine.scenario import load_scenario
>>> state = load_scenario("maps/chq_saint_aubin.json").new_game(seed=1)
>>> state.current_player()  # the attacker allocates its Initial Barrage first
'us'
>>> str(state.legal_actions()[0])
'barrage us-bty-a de-b1'
>>> state.apply_action(state.legal_actions()[0])
"""

from __future__ import annotations

from contextlib import contextmanager
from fractions import Fraction
from typing import Hashable

import numpy as np

from engine.game import CHANCE, TERMINAL, GameState, copy_generator, outcome_weights, sample_outcome
from engine.geometry import Density, Screen, bearing_between

from . import artillery as art
from . import decisions as rules_check
from .actions import D3, Chain, Check, CommandRoll, Comms, Deviation, MoveRoll, RollOff
from .artillery import Mission
from .blinds import spot_outcomes
from .combat import PendingFire, fire_distribution
from .command import DicePool, command_failure, command_roll_outcomes, first_pulse, staff_orders_earned
from .facts import GameFacts, distance
from .fire import FireResult
from .movement import forced_back, move_roll_outcomes
from .sightlines import Blocker, compute_sight, viewpoint
from .state import BarrageRound, BlindState, Entry, MoveContext, Pulse, UnitState, Window
from .victory import d3_outcomes, initial_morale, result, scaled_score

__all__ = ["ChqState", "new_game"]



_FACTS: dict[int, GameFacts] = {}


def game_facts(scenario) -> GameFacts:
    """The GameFacts of ``scenario``, built once per scenario object and shared by its games."""
    facts = _FACTS.get(id(scenario))
    if facts is None or facts.scenario is not scenario:
        if len(_FACTS) > 64:
            _FACTS.clear()
        facts = _FACTS[id(scenario)] = GameFacts(scenario)
    return facts


def new_game(scenario, seed: int | None = 0) -> "ChqState":
    """A fresh CHQ game of ``scenario`` (the entry point ``Scenario.new_game`` imports)."""
    return ChqState(game_facts(scenario), seed)


class ChqState(GameState):
    """A CHQ game in progress.

    Contract: ``current_player`` / ``legal_actions`` / ``is_legal`` /
    ``illegal_reason`` / ``chance_outcomes`` / ``apply_action`` / ``clone`` /
    ``observation`` / ``returns`` (engine.game.GameState), plus ``score()``.

    Planner hooks
    -------------
    ``threat(firer_id, target_id) -> float``
        Exact expected Disruption of that unit's best fire at the target now
        (direct or indirect; for a battery a Regular single mission on the
        target: P(comms) x the exact deviation sum); 0.0 when it cannot fire.
    ``smoke_options(side) -> list[SmokeOption]``
        Battery smoke missions the side could call now, at the lattice points
        an FO sees, in every orientation of setting ``smoke_bearings``, with
        the exact deviation outcomes and the screen's life in ticks (a tick is
        one pulse or Logistics Phase; ``screens`` assumes the Comms Check passes).
    ``sight_lines(side) -> dict``
        ``{(observer, target): screens crossed}`` for every line the side sees.
    ``known_pieces(side) -> tuple[dict, ...]``
        The pieces on the table as ``observation(side)`` shows them (a Blind is a Blind).
    ``sight_between(side, observers, targets, *, screens=(), fo=False, threat=True) -> dict``
        Sight, range band, smoke, TN modifier and exact threat between any pieces ``side``
        knows of (or pieces standing elsewhere, or points), with hypothetical screens, in bulk
        and without reading what ``side`` may not know (see ``hooks.sight_between``).
    ``describe()``
        One paragraph of the situation, for narration and debugging.
    ``clock``, ``units_lost()``
        The turn now and each side's dispersed units, for analysis (``fireplan stress``).
    """

    _still: dict | None = None  # each side's sight inside a ``still()`` block

    # ================================================================== construction
    def __init__(self, facts: GameFacts, seed: int | None = 0):
        super().__init__(seed)
        self.facts = facts
        self._cache: dict = facts.memo  # keyed by content: shared by every game of these facts
        self.units: dict[str, UnitState] = {}
        for uid in facts.unit_ids:
            u = facts.units[uid]
            self.units[uid] = UnitState(u.start, u.facing, hidden=u.blind is not None)
        self.blinds: dict[str, BlindState] = {b: BlindState(tuple(facts.blinds[b].position)) for b in facts.blind_ids}
        a, b = facts.side_ids
        self.turn = 0
        self.dice = {a: DicePool.empty(), b: DicePool.empty()}
        self.rolls: dict[str, CommandRoll] = {}
        self.failed: frozenset[str] = frozenset()
        self.staff = {s: int(facts.sides[s].staff_orders) for s in facts.side_ids}
        self.staff_next = {a: 0, b: 0}
        self.morale = {s: initial_morale(facts, s) for s in facts.side_ids}
        self.collapsed: set[str] = set()
        self.holders: dict[str, str | None] = {o.id: None for o in facts.objectives}
        self.missions: dict[int, Mission] = {}
        self.next_mission = 1
        self.battery_used: dict[str, str] = {}
        self.lp_count = {a: 0, b: 0}
        self.pulse: Pulse | None = None
        self.move: MoveContext | None = None
        self.window: Window | None = None
        self.barrage: BarrageRound | None = None
        self.keep_queue: tuple[int, ...] = ()
        self.supply_done: frozenset[int] = frozenset()
        self.game_over = False
        self.log: list[str] = []
        self.agenda: list[Entry] = [Entry("step", "turn_start"), Entry("step", "barrage_side", facts.other(facts.attacker())), Entry("step", "barrage_side", facts.attacker())]
        self._advance()

    def clone(self) -> "ChqState":
        other = ChqState.__new__(ChqState)  # no __init__: it would seed a generator only to drop it
        other.facts = self.facts
        other.rng = copy_generator(self.rng)
        other._cache = self._cache  # keyed by content, so clones share it safely
        other.units = {k: v.copy() for k, v in self.units.items()}
        other.blinds = dict(self.blinds)
        other.turn = self.turn
        other.dice = {k: v.copy() for k, v in self.dice.items()}
        other.rolls = dict(self.rolls)
        other.failed = self.failed
        other.staff = dict(self.staff)
        other.staff_next = dict(self.staff_next)
        other.morale = dict(self.morale)
        other.collapsed = set(self.collapsed)
        other.holders = dict(self.holders)
        other.missions = dict(self.missions)
        other.next_mission = self.next_mission
        other.battery_used = dict(self.battery_used)
        other.lp_count = dict(self.lp_count)
        other.pulse = self.pulse.copy() if self.pulse else None
        other.move = self.move
        other.window = self.window
        other.barrage = self.barrage
        other.keep_queue = self.keep_queue
        other.supply_done = self.supply_done
        other.game_over = self.game_over
        other.log = list(self.log)
        other.agenda = list(self.agenda)
        return other

    # ================================================================== contract: whose move
    def current_player(self) -> str:
        if self.game_over:
            return TERMINAL
        top = self.agenda[-1]
        return CHANCE if top.what == "roll" else top.payload

    def pending(self):
        """What the current chance node rolls for: ``(kind, payload)``, e.g. ``("fire", PendingFire)``;
        None at a decision or at the end."""
        if self.game_over or self._top().what != "roll":
            return None
        return self._top().kind, self._top().payload

    def _top(self) -> Entry:
        return self.agenda[-1]

    def legal_actions(self) -> list[Hashable]:
        if self.game_over:
            return []
        top = self._top()
        if top.what == "roll":
            return [outcome for outcome, _ in self.chance_outcomes()]
        with self.still():
            return rules_check.legal(self, top)

    def chance_outcomes(self):
        if self.game_over or self._top().what != "roll":
            return []
        top = self._top()
        if top.kind in ("comms", "supply"):  # these read the side's dice, not only the payload
            return list(self._outcomes(top))
        return list(self._kept_outcomes(top)[0])

    def _kept_outcomes(self, top: Entry) -> tuple:
        """(outcomes, their float weights) of a roll that reads only its payload, kept by content."""
        key = ("outcomes", top)
        cached = self._cache.get(key)
        if cached is None:
            outcomes = self._outcomes(top)
            cached = (outcomes, outcome_weights(outcomes))
            self._remember(key, cached)
        return cached

    def sample_chance(self) -> Hashable:
        top = self._top()
        if self.game_over or top.what != "roll" or top.kind in ("comms", "supply"):
            return super().sample_chance()
        outcomes, weights = self._kept_outcomes(top)
        return sample_outcome(outcomes, self.rng, weights)

    def illegal_reason(self, action) -> str | None:
        if self.game_over:
            return "the game is over"
        top = self._top()
        if top.what == "roll":
            if not any(action == outcome for outcome, _ in self.chance_outcomes()):
                return f"{action} is not a possible result of this roll"
            return None
        with self.still():
            return rules_check.reason(self, top, action)

    def _apply(self, action) -> None:
        top = self.agenda.pop()
        if top.what == "roll":
            self._resolve(top, action)
        else:
            self.agenda.append(top)
            rules_check.apply(self, top, action)
        self._advance()

    # ================================================================== results
    def returns(self) -> dict[str, float]:
        if not self.game_over:
            return {s: 0.0 for s in self.facts.side_ids}
        return result(self.facts, self.morale, self.collapsed)

    @property
    def scenario(self):
        """The scenario this game was made from."""
        return self.facts.scenario

    def score(self) -> dict[str, float]:
        """Scaled Morale Point difference per side (CHQ-29), for analysis."""
        return scaled_score(self.facts, self.morale)

    @property
    def clock(self) -> int:
        """The turn now (0: the Initial Barrage), for analysis across rulesets."""
        return self.turn

    def units_lost(self) -> dict[str, int]:
        """Units each side has lost so far: dispersed (CHQ-29), for analysis (the referee's view)."""
        lost = {s: 0 for s in self.facts.side_ids}
        for uid, unit in self.units.items():
            if unit.dispersed:
                lost[self.facts.units[uid].side] += 1
        return lost

    # ================================================================== search hooks (search_hooks.py)
    @property
    def scenario(self):
        """The scenario this game is played on (as on every ruleset's state)."""
        return self.facts.scenario

    def plan_scope(self, side: str):
        """The stretch of decisions ``side`` is in (a pulse, a barrage round, ...), or None."""
        from .search_hooks import plan_scope

        return plan_scope(self, side)

    def resample_hidden(self, side: str, rng) -> "ChqState":
        """A clone with what ``side`` may not know (dummies, units under Blinds) redrawn."""
        from .search_hooks import resample_hidden

        return resample_hidden(self, side, rng)

    def features(self, side: str) -> dict[str, float]:
        """The situation for ``side`` in Morale Points: morale, objectives, pressure, risk."""
        from .search_hooks import features

        with self.still():
            return features(self, side)

    def describe_actions(self, actions, detail: bool = True) -> list[dict]:
        """What each legal action does (kind, actors, exact harm, advance, cover, cost)."""
        from .search_hooks import describe_actions

        with self.still():
            return describe_actions(self, actions, detail)

    def action_kind(self, action) -> str:
        """The kind of a legal action (move, fire, smoke, artillery, ...), as ``describe_actions``
        names it, without computing its values."""
        from .search_hooks import action_kind

        return action_kind(self, action)

    def observation(self, side: str):
        from .observation import observe

        return observe(self, side)

    # ================================================================== planner hooks
    def threat(self, firer_id: str, target_id: str) -> float:
        from .hooks import threat

        return threat(self, firer_id, target_id)

    def smoke_options(self, side: str):
        from .hooks import smoke_options

        return smoke_options(self, side)

    def smoke_resources(self, side: str, options=None) -> dict[str, int]:
        """``{resource: capacity}`` the smoke options of ``side`` may use now (hooks.smoke_resources);
        ``options``: this moment's ``smoke_options(side)`` when the caller has them already."""
        from .hooks import smoke_resources

        return smoke_resources(self, side, options)

    def fire_planning(self):
        """What the fire and barrage planners ask (hooks.FirePlanning): legal missions with their
        chances, exact landing outcomes per piece, the public Blind briefing, threat as a side knows it."""
        from .hooks import FirePlanning

        return FirePlanning(self)

    def known_pieces(self, side: str) -> tuple[dict, ...]:
        from .hooks import known_pieces

        return known_pieces(self, side)

    def sight_between(self, side: str, observers, targets, *, screens=(), fo: bool = False, threat: bool = True) -> dict:
        from .hooks import sight_between

        return sight_between(self, side, observers, targets, screens=screens, fo=fo, threat=threat)

    def sight_lines(self, side: str) -> dict[tuple[str, str], int]:
        table = self.sight(side)
        out = {}
        for i, o in enumerate(table["observers"]):
            for j, t in enumerate(table["targets"]):
                if table["visible"][i, j]:
                    out[(o, t)] = int(table["smoke"][i, j])
        return out

    def describe(self) -> str:
        a, b = self.facts.side_ids
        alive = {s: sum(1 for u, st in self.units.items() if self.facts.units[u].side == s and st.pos is not None) for s in (a, b)}
        return (
            f"turn {self.turn}: {a} {self.morale[a]} MP, {alive[a]} units, {self.staff[a]} SO; "
            f"{b} {self.morale[b]} MP, {alive[b]} units, {self.staff[b]} SO; next: {self.current_player()}"
        )

    # ================================================================== cache and geometry
    def _remember(self, key, value) -> None:
        self.facts._remember(key, value)

    def alive(self, uid: str) -> bool:
        return self.units[uid].pos is not None

    def side_of(self, piece: str) -> str:
        if piece in self.facts.units:
            return self.facts.units[piece].side
        return self.facts.blinds[piece].owner

    def piece_unit(self, piece: str) -> str | None:
        """The unit a piece stands for: a unit id, or the unit under a Blind (None for a dummy)."""
        if piece in self.facts.units:
            return piece
        return self.facts.blind_unit.get(piece)

    def piece_pos(self, piece: str):
        if piece in self.facts.units:
            return self.units[piece].pos
        blind = self.blinds[piece]
        return blind.pos if blind.alive else None

    def piece_alive(self, piece: str) -> bool:
        if piece in self.facts.units:
            return self.units[piece].pos is not None and not self.units[piece].hidden
        return self.blinds[piece].alive

    def base(self, uid: str, pos=None):
        state = self.units[uid]
        return self.facts.base_of(uid, pos if pos is not None else state.pos, state.facing)

    def revealed_units(self, side: str) -> list[str]:
        units = self.units
        return [u for u in self.facts.side_units[side] if units[u].pos is not None and not units[u].hidden]

    def on_table_units(self, side: str) -> list[str]:
        units = self.units
        return [u for u in self.facts.side_units[side] if units[u].pos is not None]

    def live_blinds(self, side: str) -> list[str]:
        blinds = self.blinds
        return [b for b in self.facts.side_blinds[side] if blinds[b].alive]

    def screens(self) -> list:
        return [m for m in self.missions.values() if m.status == "screen"]

    def screen_polygons(self):
        return [art.smoke_polygon(self.facts, m.centre, m.bearing) for m in self.screens()]

    def _viewpoint(self, uid: str, pos=None):
        state = self.units[uid]
        pos = pos if pos is not None else state.pos
        key = ("vp", uid, pos, state.facing)
        vp = self._cache.get(key)
        if vp is None:
            vp = viewpoint(self.facts, pos, self.facts.base_of(uid, pos, state.facing))
            self._remember(key, vp)
        return vp

    def _blind_viewpoint(self, blind: str):
        pos = self.blinds[blind].pos
        key = ("vpb", pos)
        vp = self._cache.get(key)
        if vp is None:
            vp = viewpoint(self.facts, pos, self.facts.blind_base(pos))
            self._remember(key, vp)
        return vp

    def _point_viewpoint(self, point):
        key = ("vpp", point)
        vp = self._cache.get(key)
        if vp is None:
            vp = viewpoint(self.facts, point, None)
            self._remember(key, vp)
        return vp

    def side_key(self, side: str) -> tuple:
        """Everything about ``side``'s pieces that sight depends on: positions and facings."""
        units, blinds = self.units, self.blinds
        pieces = [(u, units[u].pos, units[u].facing) for u in self.facts.side_units[side] if units[u].pos is not None]
        pieces += [(b, blinds[b].pos) for b in self.facts.side_blinds[side] if blinds[b].alive]
        return tuple(pieces)

    def _screen_key(self):
        return tuple(sorted((m.centre, m.bearing) for m in self.screens()))

    def blockers(self, side: str, observers: list[str]):
        index = {u: i for i, u in enumerate(observers)}
        return [
            Blocker(self.base(u), self.units[u].pos, self._viewpoint(u).height, index.get(u, -1))
            for u in self.on_table_units(side)
        ]

    @contextmanager
    def still(self):
        """A block that only reads the position (an evaluation, the legal orders): each side's
        sight is looked up once in it rather than at every question (its key is costly)."""
        if self._still is not None:
            yield self
            return
        self._still = {}
        try:
            yield self
        finally:
            self._still = None

    def sight(self, side: str) -> dict:
        """Who of ``side`` sees which enemy unit or Blind now, and through how many screens (cached)."""
        still = self._still
        if still is None:
            return self._sight(side)
        table = still.get(side)
        if table is None:
            table = still[side] = self._sight(side)
        return table

    def _sight(self, side: str) -> dict:
        enemy = self.facts.other(side)
        observers = self.on_table_units(side)
        targets = self.revealed_units(enemy) + self.live_blinds(enemy)
        key = ("sight", side, self.side_key(side), self.side_key(enemy), tuple(targets), self._screen_key())
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        obs_vp = [self._viewpoint(u) for u in observers]
        tgt_vp = [self._viewpoint(t) if t in self.facts.units else self._blind_viewpoint(t) for t in targets]
        found = compute_sight(self.facts, obs_vp, tgt_vp, self.blockers(side, observers), self.screen_polygons())
        table = {
            "observers": tuple(observers),
            "targets": tuple(targets),
            "o": {u: i for i, u in enumerate(observers)},
            "t": {t: j for j, t in enumerate(targets)},
            "visible": found.visible,
            "smoke": found.smoke,
        }
        self._remember(key, table)
        return table

    def sees(self, observer: str, target: str) -> tuple[bool, int]:
        """(visible, screens crossed) from unit ``observer`` to an enemy unit or Blind."""
        table = self.sight(self.facts.units[observer].side)
        i, j = table["o"].get(observer), table["t"].get(target)
        if i is None or j is None:
            return False, 0
        return bool(table["visible"][i, j]), int(table["smoke"][i, j])

    def observers_of_point(self, side: str, point, *, clear: bool) -> list[str]:
        """Units of ``side`` with sight of a point (a template centre, CHQ-17); ``clear`` refuses
        lines through smoke (CHQ-12 fo_through_smoke)."""
        point = (float(point[0]), float(point[1]))
        return [u for u, ok in zip(*self.point_sight(side, [point], clear=clear)) if ok[0]]

    def point_sight(self, side: str, points, *, clear: bool):
        observers = self.on_table_units(side)
        key = ("psight", side, self.side_key(side), tuple(points), self._screen_key(), clear)
        cached = self._cache.get(key)
        if cached is None:
            obs_vp = [self._viewpoint(u) for u in observers]
            tgt_vp = [self._point_viewpoint(p) for p in points]
            found = compute_sight(self.facts, obs_vp, tgt_vp, self.blockers(side, observers), self.screen_polygons(), clear_only=clear)
            cached = (tuple(observers), found.visible)
            self._remember(key, cached)
        observers, visible = cached
        return list(observers), [visible[i] for i in range(len(observers))]

    # ================================================================== the agenda
    def push(self, *entries: Entry) -> None:
        """Push entries so that the first given runs first."""
        self.agenda.extend(reversed(entries))

    def _advance(self) -> None:
        while not self.game_over:
            if not self.agenda:
                raise RuntimeError("CHQ flow ran out of agenda")
            top = self.agenda[-1]
            if top.what == "step":
                self.agenda.pop()
                getattr(self, "_step_" + top.kind)(top.payload)
                continue
            if top.what == "roll" and not self._roll_live(top):
                self.agenda.pop()
                continue
            if top.what == "decide" and not rules_check.has_choice(self, top):
                self.agenda.pop()
                rules_check.skip(self, top)
                continue
            return

    def _roll_live(self, entry: Entry) -> bool:
        if entry.kind == "fire":
            fire: PendingFire = entry.payload
            return self.units[fire.target].pos is not None
        if entry.kind == "rally":
            return self.units[entry.payload].pos is not None
        if entry.kind == "spot":
            unit, blind = entry.payload[0], entry.payload[1]
            return self.blinds[blind].alive and self.units[unit].pos is not None
        return True

    # ================================================================== chance nodes
    def _outcomes(self, entry: Entry):
        kind, payload = entry.kind, entry.payload
        if kind == "command":
            return command_roll_outcomes(payload, self.facts.sides[payload].command_dice)
        if kind == "rolloff":
            a, b = self.facts.side_ids
            return [(RollOff(a), Fraction(1, 2)), (RollOff(b), Fraction(1, 2))]
        if kind in ("d3_rounds", "d3_morale"):
            return d3_outcomes()
        if kind == "move":
            return move_roll_outcomes(payload.dice)
        if kind == "fire":
            return fire_distribution(self.facts, payload)
        if kind == "comms":
            mission = self.missions[payload]
            return art.comms_outcomes(self.facts.sides[mission.side].comms_dice, self.facts)
        if kind == "deviation":
            return art.deviation_outcomes(self.facts)
        if kind == "supply":
            mid, staff = payload
            return art.supply_outcomes(self.facts.sides[self.missions[mid].side].supply_dice, staff, self.facts)
        if kind == "rally":
            from engine.dice import opposed_check

            tn = int(self.facts.s("check_tn"))
            p = opposed_check(int(self.facts.s("rally_dice")), int(self.facts.s("rally_opposing_dice")), tn, tn)
            return [(Check("rally", True), p), (Check("rally", False), 1 - p)]
        if kind == "spot":
            unit, blind, dist, smoke = payload
            return spot_outcomes(self.facts, self.facts.units[unit], dist, smoke)
        raise KeyError(kind)

    def _resolve(self, entry: Entry, outcome) -> None:
        getattr(self, "_roll_" + entry.kind)(entry.payload, outcome)

    def _roll_command(self, side, outcome: CommandRoll) -> None:
        self.rolls[side] = outcome
        self.log.append(str(outcome))

    def _roll_rolloff(self, _, outcome: RollOff) -> None:
        self.log.append(str(outcome))
        self.push(Entry("step", "pulse_start", outcome.winner))

    def _roll_d3_rounds(self, side, outcome: D3) -> None:
        self.push(Entry("step", "barrage_round", (side, 1, outcome.value)))

    def _roll_d3_morale(self, side, outcome: D3) -> None:
        self.morale[side] = max(0, self.morale[side] - outcome.value)
        if self.morale[side] <= 0:
            self.collapsed.add(side)

    def _roll_move(self, payload, outcome: MoveRoll) -> None:
        from .orders import finish_move_roll

        finish_move_roll(self, payload, outcome.total)

    def _roll_fire(self, fire: PendingFire, outcome: FireResult) -> None:
        self.apply_fire_result(fire, outcome)

    def _roll_comms(self, mid: int, outcome: Comms) -> None:
        mission = self.missions[mid]
        self.log.append(f"{','.join(mission.batteries)}: {outcome}")
        if outcome.passed:
            self.push(Entry("roll", "deviation", mid))
        else:
            self.missions[mid] = _replace(mission, status="delayed")

    def _roll_deviation(self, mid: int, outcome: Deviation) -> None:
        mission = self.missions[mid]
        dx, dy = outcome.offset
        self.missions[mid] = _replace(mission, centre=(mission.aim[0] + dx, mission.aim[1] + dy))
        self.push(Entry("step", "land", mid))

    def _roll_supply(self, payload, outcome: Check) -> None:
        mid, _ = payload
        self.supply_done = self.supply_done | {mid}
        if not outcome.passed and mid in self.missions:
            self.log.append(f"{','.join(self.missions[mid].batteries)} out of supply")
            del self.missions[mid]

    def _roll_rally(self, uid, outcome: Check) -> None:
        if outcome.passed and self.units[uid].disruption > 0:
            self.units[uid].disruption -= 1

    def _roll_spot(self, payload, outcome: Check) -> None:
        _, blind, _, _ = payload
        if outcome.passed:
            self.reveal_blind(blind)

    # ================================================================== effects
    def reveal_blind(self, blind: str) -> None:
        """Turn a Blind over (CHQ-28): a dummy is removed, a real one shows its unit."""
        if not self.blinds[blind].alive:
            return
        self.blinds[blind] = BlindState(self.blinds[blind].pos, alive=False)
        uid = self.facts.blind_unit.get(blind)
        if uid is not None and self.units[uid].pos is not None:
            self.units[uid].hidden = False
            self.units[uid].pos = self.blinds[blind].pos
        self.log.append(f"{blind} revealed" + (f" as {uid}" if uid else " as a dummy"))

    def reveal_unit(self, uid: str) -> None:
        blind = self.facts.units[uid].blind
        if self.units[uid].hidden and blind is not None:
            self.reveal_blind(blind)

    def apply_fire_result(self, fire: PendingFire, outcome: FireResult) -> None:
        """Disruption, suppression, forced back and dispersal of one fire (CHQ-3 to CHQ-6)."""
        uid = fire.target
        unit = self.units[uid]
        if unit.pos is None:
            return
        if fire.halt is not None and self.move is not None and uid in self.move.units:
            i = self.move.units.index(uid)
            if not self.move.done[i]:
                self._move_unit(uid, self.move.paths[i][fire.halt])
                halted = list(self.move.halted)
                done = list(self.move.done)
                if outcome.suppressed:
                    halted[i] = fire.halt if halted[i] is None else min(halted[i], fire.halt)
                if outcome.disruption and self.facts.s("disrupted_mover_halts"):
                    done[i] = True
                self.move = _replace(self.move, halted=tuple(halted), done=tuple(done))
        if outcome.suppressed:
            unit.suppressed = True
        if outcome.disruption:
            unit.disruption += outcome.disruption
            if unit.disruption >= self.facts.units[uid].cohesion:
                self._disperse(uid)
                return
            side = self.facts.units[uid].side
            ex, ey = self.facts.edge_vector(side)
            pushed = (unit.pos[0] + ex * outcome.forced_back, unit.pos[1] + ey * outcome.forced_back)
            if not self.facts.on_table(pushed) and not self.facts.s("forced_back_clip"):
                self.log.append(f"{uid} is forced off the table")
                self._disperse(uid)
                return
            self._move_unit(uid, forced_back(self.facts, side, unit.pos, outcome.forced_back))
        self.log.append(f"{fire.firer} on {uid}: {outcome}")

    def _disperse(self, uid: str) -> None:
        unit = self.units[uid]
        blind = self.facts.units[uid].blind
        if unit.hidden and blind is not None:
            self.blinds[blind] = BlindState(self.blinds[blind].pos, alive=False)
        unit.pos = None
        unit.dispersed = True
        unit.hidden = False
        self.log.append(f"{uid} dispersed")
        self.push(Entry("roll", "d3_morale", self.facts.units[uid].side))

    def _move_unit(self, uid: str, pos) -> None:
        pos = self.facts.clip(pos)
        self.units[uid].pos = (float(pos[0]), float(pos[1]))
        blind = self.facts.units[uid].blind
        if self.units[uid].hidden and blind is not None:
            self.blinds[blind] = BlindState(self.units[uid].pos, True)

    def move_piece(self, piece: str, pos) -> None:
        if piece in self.facts.units:
            self._move_unit(piece, pos)
            return
        pos = self.facts.clip(pos)
        self.blinds[piece] = BlindState((float(pos[0]), float(pos[1])), True)
        uid = self.facts.blind_unit.get(piece)
        if uid is not None and self.units[uid].pos is not None:
            self.units[uid].pos = self.blinds[piece].pos

    # ================================================================== steps: initial barrage
    def _step_barrage_side(self, side) -> None:
        rounds = art.barrage_rounds(self.facts, side)
        if not self.facts.batteries(side):
            return
        if rounds == "D3":
            self.push(Entry("roll", "d3_rounds", side))
        elif int(rounds) > 0:
            self.push(Entry("step", "barrage_round", (side, 1, int(rounds))))

    def _step_barrage_round(self, payload) -> None:
        side, number, rounds = payload
        self.barrage = BarrageRound(side, number, rounds)
        self.push(Entry("decide", "barrage", side), Entry("step", "barrage_fire", payload))

    def _step_barrage_fire(self, payload) -> None:
        from .orders import barrage_fire

        side, number, rounds = payload
        if number < rounds:
            self.push(Entry("step", "barrage_round", (side, number + 1, rounds)))
        barrage_fire(self)  # its landings go on top: this round resolves before the next is allocated
        self.barrage = None

    # ================================================================== steps: the turn
    def _step_turn_start(self, _) -> None:
        self.turn += 1
        self.battery_used = {}
        self.rolls = {}
        a, b = self.facts.side_ids
        self.log.append(f"--- turn {self.turn}")
        self.push(Entry("roll", "command", a), Entry("roll", "command", b), Entry("step", "command_resolve"))

    def _step_command_resolve(self, _) -> None:
        a, b = self.facts.side_ids
        failed = {s for s in (a, b) if command_failure(self.rolls[s].counts)}
        self.failed = frozenset(failed)
        for side in (a, b):
            counts = self.rolls[side].counts
            self.dice[side] = DicePool({face: counts[face - 1] for face in range(2, 7)}, 0)
        for side in failed:
            other = self.facts.other(side)
            self.dice[other].wild += self.rolls[side].counts[0]
        keep = []
        for side in sorted(failed):
            for mid, mission in sorted(self.missions.items()):
                if mission.side != side:
                    continue
                if mission.status == "delayed" and not self.facts.s("keep_delayed_with_staff_order"):
                    del self.missions[mid]
                    self.log.append(f"{','.join(mission.batteries)}: delayed mission lost to Command Failure")
                elif mission.status in ("active", "screen", "delayed"):
                    keep.append(mid)
        self.keep_queue = tuple(keep)
        entries = [Entry("decide", "keep", side) for side in sorted(failed)]
        self.push(*entries, Entry("step", "first_pulse"))

    def _step_first_pulse(self, _) -> None:
        a, b = self.facts.side_ids
        if len(self.failed) == 2:
            self.log.append("both sides suffer a Command Failure: the turn ends")
            self.push(Entry("step", "end_turn"))
            return
        if self.failed:
            first = self.facts.other(next(iter(self.failed)))
        else:
            order = first_pulse(self.rolls[a].counts, self.rolls[b].counts)
            if order < 0:
                self.push(Entry("roll", "rolloff"))
                return
            first = (a, b)[order]
        self.push(Entry("step", "pulse_start", first))

    def _step_pulse_start(self, side) -> None:
        other = self.facts.other(side)
        if self.dice[side].total == 0:
            side = other
        if self.dice[side].total == 0:
            self.pulse = None
            self.push(Entry("step", "end_turn"))
            return
        self.pulse = Pulse(side)
        self.push(Entry("decide", "chain", side), Entry("decide", "pulse", side), Entry("step", "lp_start", side))

    def _step_lp_start(self, side) -> None:
        self.pulse = None
        self.lp_count[side] += 1
        lp = self.lp_count[side]
        for mid, mission in sorted(self.missions.items()):
            if mission.side == side and mission.status == "screen" and mission.expires_lp is not None and mission.expires_lp <= lp:
                del self.missions[mid]
        arrivals = []
        for mid, mission in sorted(self.missions.items()):
            if mission.side == side and mission.status == "delayed":
                arrivals.append(Entry("roll", "deviation", mid))
        self.push(*arrivals, Entry("decide", "logistics", side), Entry("step", "lp_fire", side), Entry("step", "next_pulse", side))

    def _step_lp_fire(self, side) -> None:
        lp = self.lp_count[side]
        refire = bool(self.facts.s("continuous_refire_deviates"))
        adjusted = bool(self.facts.s("adjust_deviates"))
        for mid, mission in sorted(self.missions.items()):
            if mission.side == side and mission.status == "active" and mission.fired_lp != lp:
                deviates = refire or (adjusted and mission.adjusted)
                self.push(Entry("roll", "deviation", mid) if deviates else Entry("step", "land", mid))

    def _step_next_pulse(self, side) -> None:
        self.push(Entry("step", "pulse_start", self.facts.other(side)))

    def _step_fire_resolve(self, _) -> None:
        from .orders import close_window

        close_window(self)

    def _step_move_finish(self, _) -> None:
        from .orders import move_finish

        move_finish(self)

    def _step_land(self, mid: int) -> None:
        from .orders import land

        land(self, mid)

    def _step_end_turn(self, _) -> None:
        self.pulse = None
        self.supply_done = frozenset()
        self.push(Entry("step", "supply_next"))

    def _step_supply_next(self, _) -> None:
        for mid, mission in sorted(self.missions.items()):
            if mid in self.supply_done or mission.barrage:
                continue
            if mission.status == "active" or mission.status == "screen":
                self.push(Entry("decide", "supply", mission.side), Entry("step", "supply_next"))
                return
        self.push(Entry("step", "turn_end"))

    def supply_candidate(self) -> int | None:
        for mid, mission in sorted(self.missions.items()):
            if mid not in self.supply_done and not mission.barrage and mission.status in ("active", "screen"):
                return mid
        return None

    def _step_turn_end(self, _) -> None:
        from .orders import check_objectives

        for unit in self.units.values():
            unit.fire_marker = False
        check_objectives(self)
        for side in self.facts.side_ids:
            if self.morale[side] <= 0:
                self.collapsed.add(side)
            cap = int(self.facts.sides[side].command_dice)
            self.staff[side] = min(cap, self.staff[side] + self.staff_next[side])
            self.staff_next[side] = 0
            self.dice[side] = DicePool.empty()
        self.failed = frozenset()
        limit = self.facts.scenario.turns or 1
        if self.collapsed or self.turn >= limit:
            self.game_over = True
            self.agenda.clear()
            return
        self.push(Entry("step", "turn_start"))

    # ================================================================== helpers for orders
    def new_mission(self, **fields) -> int:
        mid = self.next_mission
        self.next_mission += 1
        self.missions[mid] = Mission(id=mid, **fields)
        return mid

    def battery_mission(self, battery: str) -> Mission | None:
        for mission in self.missions.values():
            if battery in mission.batteries:
                return mission
        return None

    def gain_staff(self, side: str, chain: Chain) -> None:
        earned, instant = staff_orders_earned(chain, bool(self.facts.s("staff_order_dice_earn")), int(self.facts.s("staff_orders_per_chain_cap")))
        cap = int(self.facts.sides[side].command_dice)
        if instant:
            self.staff[side] = min(cap, self.staff[side] + earned)
        else:
            self.staff_next[side] += earned

    def screen_objects(self) -> tuple[Screen, ...]:
        """Current screens as engine Screens (density per setting smoke_density: they obscure)."""
        density = Density(self.facts.s("smoke_density"))
        return tuple(
            Screen(art.smoke_polygon(self.facts, m.centre, m.bearing), (density,), 0, f"{m.side} {','.join(m.batteries)} smoke")
            for m in self.screens()
        )

    def bearing(self, a, b) -> float:
        return bearing_between(a, b) if a != b else 0.0

    def distance(self, a, b) -> float:
        return distance(a, b)


def _replace(obj, **changes):
    from dataclasses import replace

    return replace(obj, **changes)



