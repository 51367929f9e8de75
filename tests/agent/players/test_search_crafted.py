"""The AI finds the obvious winning plan in small crafted positions.

Each position is a map's opening with the pieces moved to where the point is plain, on the last
turn or period, so that only one kind of plan changes the result: the postures' movement plans
are among the candidates and would lose, so a search that chose blindly would fail these.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from agent.players import SearchPlayer
from engine.rulesets.chq.actions import Call
from engine.rulesets.chq.command import DicePool
from engine.rulesets.met.actions import Grenade, Launch
from engine.rulesets.met.resolution import Status
from engine.scenario import load_scenario

MAPS = Path(__file__).resolve().parents[3] / "maps"


def tot_position():
    """CHQ, last pulse of the game, Morale tied: the German rifles (2 of 3 Disruption) stand in
    the open by the north-east corner; every British unit is suppressed and the British have one
    die, so no unit can fire; only the three 25pdr batteries can disperse the rifles and win.
    The Germans have no dice left."""
    scenario = load_scenario(MAPS / "chq_tot_crossroads.json")
    state = scenario.new_game(seed=1)
    while not (state.current_player() == "gb" and state._top().kind == "chain"):
        state.apply_action(state.sample_chance() if state.is_chance_node() else state.legal_actions()[-1])
    state.turn = scenario.turns
    state.move_piece("de-rifle-1", (40.0, 30.0))
    state.units["de-rifle-1"].disruption = 2
    state.move_piece("de-panther-1", (30.0, 18.0))  # on the crossroads, which the Germans hold
    state.holders["crossroads"] = "de"
    for uid in ("gb-cromwell-1", "gb-cromwell-2", "gb-rifle-1"):
        state.units[uid].suppressed = True
    state.morale["gb"] = state.morale["de"]
    state.dice["gb"] = DicePool({2: 0, 3: 0, 4: 1, 5: 0, 6: 0}, 0)
    state.dice["de"] = DicePool.empty()
    return state


def smoke_position():
    """MET, last period, gb one morale point ahead: a neutralised Sherman stands in the open
    before a Panzer IV and a PaK 40 (each hits it with 0.6): one more hit destroys it and the
    morale die then loses or draws the game. It cannot act, but the rifle section beside it can
    put a 2-inch mortar screen between it and the enemy."""
    state = load_scenario(MAPS / "met_calm_bocage.json").new_game(seed=1)
    state.period = state.periods
    for blind in list(state.blinds):
        state._reveal_blind(blind)
    tank = state.elements["gb-sherman-1"]
    tank.position, tank.status = (460.0, 420.0), Status.NEUTRALISED
    state.elements["gb-section-1"].position = (480.0, 400.0)
    state.elements["gb-sherman-2"].position = (900.0, 30.0)
    state.elements["de-pz-1"].position = (480.0, 760.0)
    state.elements["de-pak-1"].position = (400.0, 780.0)
    state.elements["de-gren-1"].position = (620.0, 780.0)
    state.morale["gb"] = state.morale["de"] + 1
    state.holders["crossroads"] = "de"
    state._pos_version += 1
    state._version += 1
    return state


def _search(state, seed, iterations=60):
    player = SearchPlayer(seed=seed, iterations=iterations, time_per_decision=None)
    steps = player.plan(state)
    return player, [s.action for s in steps]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_time_on_target_disperses_the_key_unit(seed):
    state = tot_position()
    rifles = state.units["de-rifle-1"].pos
    player, actions = _search(state, seed)
    calls = [a for a in actions if isinstance(a, Call)]
    assert calls, f"no fire mission in {[str(a) for a in actions]}"
    assert any(math.dist(c.at, rifles) <= 4.5 for c in calls)  # a template on (or by) the rifles
    # the fire plans proposed a time-on-target of the three batteries on them
    assert any(isinstance(a, Call) and len(a.batteries) == 3 and math.dist(a.at, rifles) <= 4.5
               for p, _, _ in player.last.candidates for a in p.actions)
    # the alternatives were there and were worse: plans without a mission
    without = [(v, m) for p, v, m in player.last.candidates if not any(isinstance(a, Call) for a in p.actions)]
    assert without and max(m for _, m in without) < player.last.value


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_smoke_saves_the_exposed_tank(seed):
    state = smoke_position()
    player, actions = _search(state, seed)
    assert any(isinstance(a, (Launch, Grenade)) and a.element == "gb-section-1" for a in actions)
    launches = [a for a in actions if isinstance(a, Launch)]
    assert launches and all(a.y > 420 for a in launches)  # between the tank and the enemy
    without = [m for p, v, m in player.last.candidates if not any(isinstance(a, (Launch, Grenade)) for a in p.actions)]
    assert without and max(without) < player.last.value


@pytest.mark.parametrize("seed", [0, 1])
def test_the_ai_moves_off_the_lattice_out_of_the_guns_sight(seed):
    """A rifle section, its smoke spent, stands in a PaK 40's sight; the engine's lattice offers
    only holding or falling back in the open. Given destinations off the lattice, which include
    the lee of a spur, the AI goes there (its default); kept to the lattice, it cannot."""
    from agent.search import SearchConfig
    from engine.sight import SightStatus

    from .test_greedy import _spur_position

    for config, hides in ((SearchConfig(), True), (SearchConfig(move_bearings=0), False)):
        state = _spur_position()
        player = SearchPlayer(seed=seed, iterations=16, time_per_decision=None, config=config)
        action = player.act(state)
        state.apply_action(action)
        assert (state.sight("de-1", "gb-1") is SightStatus.BLOCKED) is hides, (config.move_bearings, action)
