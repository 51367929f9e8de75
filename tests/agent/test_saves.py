"""Saves: versioned JSON written atomically, resumed exactly, refused in one sentence when foreign."""

from __future__ import annotations

import json
import os
import struct

import pytest

from agent.cli import main
from agent.players import RandomPlayer
from agent.saves import SAVE_FORMAT, SaveError, load_game, new_save, read_save, replay, write_save
from engine.errors import FireplanError
from engine.scenario import load_scenario
from tests.conftest import MAPS

SMALL = MAPS / "met_calm_bocage.json"


def _played(path, seed, steps):
    """A game of ``path`` after ``steps`` random steps (chance with the state's rng) and its notation."""
    state = load_scenario(path).new_game(seed=seed)
    player, actions = RandomPlayer(seed), []
    for _ in range(steps):
        if state.is_terminal():
            break
        action = state.sample_chance() if state.is_chance_node() else player.act(state)
        state.apply_action(action)
        actions.append(str(action))
    return state, actions


@pytest.mark.parametrize("name", ["met_calm_bocage", "chq_smoke_advance"])
def test_save_then_load_rebuilds_the_exact_state_and_its_dice(tmp_path, name):
    path = MAPS / f"{name}.json"
    state, actions = _played(path, seed=5, steps=60)
    save = new_save(path, seed=5, human=state.scenario.sides[0].id, dice="computer", players={})
    write_save(save.with_actions(actions, state.rng), tmp_path / "g.save.json")
    loaded = load_game(tmp_path / "g.save.json")
    assert loaded.save.actions == tuple(actions)
    assert loaded.state.current_player() == state.current_player()
    assert [str(a) for a in loaded.state.legal_actions()] == [str(a) for a in state.legal_actions()]
    assert loaded.state.returns() == state.returns()
    # the dice generator is restored too: the next 20 rolls are the uninterrupted game's
    for _ in range(20):
        if state.is_terminal():
            break
        if state.is_chance_node():
            a, b = state.sample_chance(), loaded.state.sample_chance()
        else:
            a = b = state.legal_actions()[0]
            b = loaded.state.legal_actions()[0]
        assert str(a) == str(b)
        state.apply_action(a)
        loaded.state.apply_action(b)


def test_a_save_is_versioned_json_with_the_scenario_hash(tmp_path):
    save = new_save(SMALL, seed=3, human="gb", dice="table", players={"de": {"player": "random", "seed": 3}})
    path = write_save(save.with_actions(["end"]), tmp_path / "g.save.json")
    data = json.loads(path.read_text())
    assert data["format"] == SAVE_FORMAT and data["actions"] == ["end"] and data["dice"] == "table"
    assert len(data["scenario"]["sha256"]) == 64 and data["scenario"]["path"].endswith("met_calm_bocage.json")
    assert read_save(path) == save.with_actions(["end"])


def test_writing_is_atomic_and_leaves_no_temporary_file(tmp_path, monkeypatch):
    save = new_save(SMALL, seed=3, human="gb", dice="computer", players={})
    path = write_save(save, tmp_path / "g.save.json")
    before = path.read_bytes()

    def crash(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(SaveError, match="No space left"):
        write_save(save.with_actions(["end"]), path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.save.json"]


def test_a_save_whose_orders_do_not_replay_is_refused_naming_the_action():
    scenario = load_scenario(SMALL)
    with pytest.raises(SaveError, match=r"actions\[1\]: 'fire gb-sherman-1 de-pz-1' does not replay \(.*move phase\)"):
        replay(scenario, 0, ["hold gb-section-1", "fire gb-sherman-1 de-pz-1"], source="x")


def test_a_changed_scenario_file_is_refused(tmp_path):
    copy = tmp_path / "map.json"
    copy.write_text(SMALL.read_text())
    write_save(new_save(copy, seed=1, human="gb", dice="computer", players={}), tmp_path / "g.save.json")
    assert load_game(tmp_path / "g.save.json").state is not None
    copy.write_text(SMALL.read_text().replace("Calm morning", "Calm evening"))
    with pytest.raises(SaveError, match="has changed since the game was saved"):
        load_game(tmp_path / "g.save.json")
    copy.unlink()
    with pytest.raises(SaveError, match="is missing; give the scenario on the command line"):
        load_game(tmp_path / "g.save.json")


def test_render_draws_a_save_as_the_game_stands(tmp_path, capsys):
    state, actions = _played(SMALL, seed=2, steps=30)
    write_save(new_save(SMALL, seed=2, human="gb", dice="computer", players={}).with_actions(actions, state.rng),
               tmp_path / "g.save.json")
    assert main(["render", str(tmp_path / "g.save.json"), "-o", str(tmp_path / "t.png"), "--sight", "de"]) == 0
    header = (tmp_path / "t.png").read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", header[16:24])[0] == 1000
    assert "wrote" in capsys.readouterr().out
    assert main(["render", str(tmp_path / "g.save.json"), "-o", str(tmp_path / "u.png"), "--sight", "fr"]) == 2
    assert "expected one of the sides gb, de" in capsys.readouterr().err


def test_table_dice_are_read_in_any_order_with_or_without_their_label():
    """Dice read off the table are not sorted: ``6 1 3`` names the roll printed ``dice us: 1,3,6``."""
    from agent.saves import resolve_outcome

    state = load_scenario(MAPS / "chq_saint_aubin.json").new_game(seed=1)
    while not (state.is_chance_node() and str(state.chance_outcomes()[0][0]).startswith("dice ")):
        state.apply_action(state.sample_chance() if state.is_chance_node() else state.legal_actions()[0])
    outcomes = [o for o, _ in state.chance_outcomes()]
    target = next(o for o in outcomes if len(set(str(o).split(": ")[1].split(","))) >= 3)
    label, faces = str(target).split(": ")
    shuffled = list(reversed(faces.split(",")))
    assert resolve_outcome(state, " ".join(shuffled)) == target
    assert resolve_outcome(state, f"{label}: {','.join(shuffled)}") == target
    assert resolve_outcome(state, "#5") == outcomes[5]
    with pytest.raises(FireplanError, match="dice in any order"):
        resolve_outcome(state, "7 7 7")
