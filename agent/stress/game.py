"""One game of a stress run, played and summed up as a row of plain values.

The row holds the game's index and seed, the varied parameters' values and what a scenario
designer asks of the game: who won, the score, how long it lasted, each side's units lost by
the end of each turn (or period), how many smoke orders each side gave and how many missions
each battery fired, and who held each objective at the end. Units lost are counted on the true
state (the referee's view), by the ruleset's ``units_lost()``; turns are its ``clock``.
"""

from __future__ import annotations

import functools
from collections import Counter

from agent.match import play_game
from agent.players.registry import make_player

from .spec import StressRun, game_parameters, game_seed, player_seed, scenario_for

__all__ = ["play_one", "play_many", "row_columns"]

#: Kinds of order (``describe_actions``) that fire a battery; the batteries are read off the order.
_MISSION_KINDS = ("artillery", "smoke", "barrage")
_BATTERY_FIELDS = ("batteries", "battery", "element")


def _batteries_of(action, batteries: set[str]) -> tuple[str, ...]:
    for name in _BATTERY_FIELDS:
        value = getattr(action, name, None)
        named = tuple(value) if isinstance(value, tuple) else (value,)
        found = tuple(b for b in named if b in batteries)
        if found:
            return found
    return ()


def row_columns(scenario, limit: int, parameters: tuple[str, ...]) -> list[str]:
    """The columns of every row of a run on ``scenario`` lasting at most ``limit`` turns."""
    sides = [s.id for s in scenario.sides]
    batteries = sorted(u.id for u in scenario.units if u.off_table)
    columns = ["index", "seed", *[f"param_{p}" for p in parameters], "blue", "red", "winner", "turns", "steps"]
    columns += [f"score_{s}" for s in sides]
    columns += [f"lost_{s}_t{t}" for s in sides for t in range(1, limit + 1)]
    columns += [f"smoke_{s}" for s in sides] + [f"missions_{b}" for b in batteries]
    columns += [f"held_{o.id}" for o in scenario.objectives]
    return columns


@functools.lru_cache(maxsize=32)
def _scenario(path: str, parameters: tuple) -> object:
    """One scenario object for the games of one parameter set: its games then share the
    ruleset's content-keyed caches (sight, bases), which makes a worker's later games faster."""
    return scenario_for(path, dict(parameters))


def play_one(run: StressRun, index: int, limit: int) -> dict:
    """Play game ``index`` of ``run`` and return its row (see :func:`row_columns`)."""
    parameters = game_parameters(run, index)
    scenario = _scenario(run.scenario, tuple(sorted(parameters.items())))
    sides = [s.id for s in scenario.sides]
    blue = make_player(run.blue, player_seed(run.seed, index, "blue"), run.time_per_decision, run.iterations).player
    red = make_player(run.red, player_seed(run.seed, index, "red"), run.time_per_decision, run.iterations).player
    seed = game_seed(run.seed, index)
    state = scenario.new_game(seed=seed)
    batteries = {u.id for u in scenario.units if u.off_table}
    smoke, missions, lost_by_turn = Counter(), Counter(), {}

    last_turn = state.clock

    def watch(before, mover, action) -> None:
        nonlocal last_turn
        if before.clock != last_turn:  # a turn ended: what each side had lost by then
            lost_by_turn[last_turn] = before.units_lost()
            last_turn = before.clock
        if before.is_chance_node():
            return
        kind = before.action_kind(action)
        if kind == "smoke":
            smoke[mover] += 1
        if kind in _MISSION_KINDS:
            for battery in _batteries_of(action, batteries):
                missions[battery] += 1

    record = play_game(state, {sides[0]: blue, sides[1]: red}, on_step=watch)
    lost_by_turn[state.clock] = state.units_lost()
    winner = next((s for s, r in record.returns.items() if r > 0), "draw")
    row = {"index": index, "seed": seed, **{f"param_{k}": v for k, v in parameters.items()},
           "blue": run.blue, "red": run.red, "winner": winner, "turns": state.clock, "steps": len(record.actions)}
    row.update({f"score_{s}": round(float(record.score.get(s, 0.0)), 6) for s in sides})
    running: dict = {}
    for t in range(1, limit + 1):
        running = lost_by_turn.get(t, running)
        row.update({f"lost_{s}_t{t}": running.get(s, 0) for s in sides})
    row.update({f"smoke_{s}": smoke.get(s, 0) for s in sides})
    row.update({f"missions_{b}": missions.get(b, 0) for b in sorted(batteries)})
    row.update({f"held_{o}": holder or "" for o, holder in sorted(state.holders.items())})
    return row


def play_many(run: StressRun, indices: list[int], limit: int) -> list[dict]:
    """Rows of several games: a worker's unit of work (fewer round trips than one game each)."""
    return [play_one(run, index, limit) for index in indices]
