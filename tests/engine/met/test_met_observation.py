"""What a side may know: blinds stay blinds, dummies are not revealed, the observation is a copy."""

from __future__ import annotations

import dataclasses

from engine.rulesets.met.actions import End, Fire, Mission, Move
from engine.rulesets.met.deviation import ON_TARGET
from engine.rulesets.met.observation import MetObservation
from engine.scenario import load_scenario

from .helpers import end_until, game, unit

BLINDS = [
    {"id": "de-b1", "owner": "de", "position": [500, 800]},
    {"id": "de-b2", "owner": "de", "position": [300, 800], "dummy": True},
]


def _hidden_game(**options):
    return game(
        [unit("gb-1", "Sherman V", "gb", (500, 300)), unit("gb-2", "Rifle Section", "gb", (300, 300)),
         unit("gb-bty", "25pdr Field Battery", "gb"),
         unit("de-1", "PaK 40", "de", (500, 800), 180, blind="de-b1"), unit("de-2", "Panzer IV H", "de", (800, 900), 180)],
        blinds=BLINDS, periods=4, **options,
    )


def _plain(value, path="obs"):
    """Every leaf is an immutable plain value: the observation refers to nothing of the state."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return
    if isinstance(value, tuple):
        for i, item in enumerate(value):
            _plain(item, f"{path}[{i}]")
        return
    assert dataclasses.is_dataclass(value) and value.__dataclass_params__.frozen, path
    for field in dataclasses.fields(value):
        _plain(getattr(value, field.name), f"{path}.{field.name}")


def test_observation_hides_blinds_and_dummies_from_the_enemy():
    state = _hidden_game()
    seen = state.observation("gb")
    assert isinstance(seen, MetObservation)
    assert [e.id for e in seen.enemy] == ["de-2"]  # de-1 is under its blind
    assert {b.id: b.dummy for b in seen.enemy_blinds} == {"de-b1": None, "de-b2": None}
    assert all(e.dischargers is None and e.launcher is None for e in seen.enemy)
    own = state.observation("de")
    assert {b.id: b.dummy for b in own.own_blinds} == {"de-b1": False, "de-b2": True}
    assert {e.id for e in own.own} == {"de-1", "de-2"}
    assert next(e for e in own.own if e.id == "de-1").blind == "de-b1"
    _plain(seen)
    _plain(own)


def test_observation_is_a_copy():
    state = _hidden_game()
    seen = state.observation("gb")
    state.apply_action(Move("gb-1", 500, 480))
    assert next(e for e in seen.own if e.id == "gb-1").position == (500.0, 300.0)
    assert next(e for e in state.observation("gb").own if e.id == "gb-1").position == (500.0, 480.0)


def test_blinds_in_sight_at_the_end_of_movement_are_revealed():
    state = _hidden_game()
    state.apply_action(Move("gb-1", 500, 420))  # 380 m from the PaK's blind: within the 400 m spot range
    state.apply_action(Move("gb-2", 300, 390))  # 410 m from the dummy: not yet
    end_until(state, "fire", "gb")
    seen = state.observation("gb")
    assert "de-1" in [e.id for e in seen.enemy]
    assert [b.id for b in seen.enemy_blinds] == ["de-b2"]
    assert Fire("gb-1", "de-1") in state.legal_actions()


def test_a_dummy_spotted_is_removed_and_a_firing_blind_is_revealed():
    state = _hidden_game()
    state.apply_action(Move("gb-2", 300, 400))  # 400 m from the dummy, 447 m from the PaK's blind
    end_until(state, "fire", "de")
    assert [b.id for b in state.observation("gb").enemy_blinds] == ["de-b1"]  # the dummy is gone
    state.apply_action(Fire("de-1", "gb-1"))
    state.apply_action(End())
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    assert "de-1" in [e.id for e in state.observation("gb").enemy]


def test_artillery_on_a_blind_reveals_it():
    state = _hidden_game()
    end_until(state, "artillery", "gb")
    state.apply_action(Mission("gb-bty", "he", 300, 800))  # on the dummy
    state.apply_action(ON_TARGET)
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    assert [b.id for b in state.observation("gb").enemy_blinds] == ["de-b1"]


def test_observation_of_every_map_is_plain():
    for name in ("met_le_mesnil", "met_calm_bocage", "met_strong_ridge", "met_burning_village"):
        state = load_scenario(f"maps/{name}.json").new_game(seed=0)
        for side in state.table.sides:
            _plain(state.observation(side))
