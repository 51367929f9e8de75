"""``fireplan play`` end to end through standard input: both dice modes to the end, the commands,
illegal orders as one line, and a resumed game equal to the uninterrupted one."""

from __future__ import annotations

import io
import json
import struct
import subprocess
import sys

import pytest

from agent.cli import main
from agent.saves import load_game, read_save
from tests.agent.play_script import ScriptedInput
from tests.conftest import MAPS, ROOT

SMALL = MAPS / "met_calm_bocage.json"  # the smallest game: about 75 actions
CHQ = MAPS / "chq_smoke_advance.json"


def _play(monkeypatch, capsys, argv, stream):
    monkeypatch.setattr(sys, "stdin", stream)
    code = main(["play", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("dice", ["computer", "table"])
def test_a_scripted_game_plays_to_its_end(tmp_path, monkeypatch, capsys, dice):
    save = tmp_path / "g.save.json"
    stream = ScriptedInput(save)
    code, out, err = _play(monkeypatch, capsys, [SMALL, "--human", "gb", "--dice", dice, "--seed", "4",
                                                 "--ai", "random", "--save", save], stream)
    assert code == 0 and err == "" and "Traceback" not in out
    assert "Game over after" in out
    loaded = load_game(save)
    assert loaded.state.is_terminal() and loaded.save.dice == dice
    assert "German outpost orders `" in out and "Why: chosen at random" in out
    if dice == "table":
        assert "Roll at the table:" in out and "The table roll:" in out and "The dice:" not in out
        assert any(line.startswith("#") for line in stream.fed) and stream.answers > 0
    else:
        assert "The dice:" in out and "roll>" not in out


def test_chq_game_against_the_search_ai_is_narrated(tmp_path, monkeypatch, capsys):
    save = tmp_path / "c.save.json"
    code, out, err = _play(monkeypatch, capsys, [CHQ, "--human", "us", "--seed", "2", "--budget", "0.02",
                                                 "--save", save], ScriptedInput(save, stop_after=12))
    assert code == 0 and err == "", err
    assert "with the ai player" in out and "End of input" in out
    assert "German" in out and "orders `" in out and "Why:" in out
    assert len(load_game(save).save.actions) > 12


def test_resumed_game_equals_the_uninterrupted_one(tmp_path, monkeypatch, capsys):
    whole, part = tmp_path / "whole.save.json", tmp_path / "part.save.json"
    argv = [SMALL, "--human", "de", "--seed", "9", "--ai", "random"]
    assert _play(monkeypatch, capsys, [*argv, "--save", whole], ScriptedInput(whole))[0] == 0
    code, out, _ = _play(monkeypatch, capsys, [*argv, "--save", part], ScriptedInput(part, stop_after=7))
    assert code == 0 and f"End of input: the game is saved in {part}" in out
    halfway = read_save(part).actions
    assert 0 < len(halfway) < len(read_save(whole).actions)
    code, out, _ = _play(monkeypatch, capsys, ["--load", part], ScriptedInput(part))
    assert code == 0 and "Resumed from" in out and "Game over" in out
    assert read_save(part).actions == read_save(whole).actions  # orders, AI decisions and dice alike


def test_commands_help_odds_undo_show_and_illegal_orders(tmp_path, monkeypatch, capsys):
    save = tmp_path / "g.save.json"
    lines = ["", "help", "fire gb-sherman-1", "move gb-nobody 1,1", "fire gb-sherman-1 de-pz-1", "undo",
             "odds hold gb-section-1", "hold gb-section-1", "undo", "hold gb-section-1", "show", "quit"]
    code, out, err = _play(monkeypatch, capsys, [SMALL, "--human", "gb", "--ai", "random", "--save", save],
                           ScriptedInput(save, lines, autoplay=False))
    assert code == 0 and err == "" and "Traceback" not in out
    assert "move E X,Y" in out and "Legal orders now (23):" in out      # notation + legal orders
    assert "expected 'fire ELEMENT TARGET', got 'fire gb-sherman-1'" in out        # one-line reasons, fresh prompt
    assert "no element, battery or blind named 'gb-nobody'" in out
    assert "this is the move phase" in out
    assert "Nothing to undo" in out
    assert "`hold gb-section-1` rolls no dice" in out
    assert "Took back `hold gb-section-1`." in out
    picture = next(tmp_path.glob("*.png"))
    assert f"knows it: {picture}" in out
    assert struct.unpack(">II", picture.read_bytes()[16:24])[0] > 100
    assert read_save(save).actions == ("hold gb-section-1",)
    assert "Game stopped: the game is saved in" in out


def test_odds_lists_a_fire_s_distinct_results_with_exact_probabilities(tmp_path, monkeypatch, capsys):
    save = tmp_path / "c.save.json"
    # Saint-Aubin opens with the US barrage: both batteries on one blind, then the fire dice roll.
    lines = ["odds barrage us-bty-a de-b1", "barrage us-bty-a de-b1", "odds barrage us-bty-b de-b1", "quit"]
    code, out, _ = _play(monkeypatch, capsys, [MAPS / "chq_saint_aubin.json", "--human", "us", "--ai", "random",
                                               "--save", save], ScriptedInput(save, lines, autoplay=False))
    assert code == 0
    assert "`barrage us-bty-a de-b1` rolls no dice: next, US 2nd Armored, CCB decides." in out
    assert "`barrage us-bty-b de-b1` leads to a roll with" in out
    listed = [line for line in out.splitlines() if line.startswith("    ") and "%" in line and "rarer" not in line]
    assert len(listed) >= 2 and any(line.endswith("no effect") for line in listed)


def test_table_dice_prompt_refuses_a_wrong_roll_and_allows_undo(tmp_path, monkeypatch, capsys):
    save = tmp_path / "g.save.json"
    stream = ScriptedInput(save, stop_at_roll=True)
    code, out, _ = _play(monkeypatch, capsys, [SMALL, "--human", "gb", "--dice", "table", "--ai", "random",
                                               "--seed", "1", "--save", save], stream)
    assert code == 0 and "Roll at the table:" in out
    stream = ScriptedInput(save, ["seven sixes", "999", "list", "quit"], autoplay=False)
    assert load_game(save).state.is_chance_node()
    code, out, _ = _play(monkeypatch, capsys, ["--load", save], stream)
    assert code == 0 and out.count("roll> ") >= 4
    assert "'seven sixes' is not one of the" in out and "'999' is not one of the" in out
    assert "type a result such as" in out and "#0 " in out


def test_play_refuses_bad_arguments_in_one_line(tmp_path, monkeypatch, capsys):
    save = tmp_path / "g.save.json"
    for argv, words in [
        ([SMALL, "--human", "fr"], "expected one of the sides gb, de, got 'fr'"),
        ([SMALL], "--human: say which side you command"),
        ([], "give a SCENARIO file to start a game, or --load FILE"),
        ([MAPS / "nothing.json", "--human", "gb"], "no such file"),
    ]:
        code, out, err = _play(monkeypatch, capsys, [*argv, "--save", save], io.StringIO(""))
        assert code == 2 and words in err and err.count("\n") == 1, err
    assert not save.exists()


def test_a_loaded_game_keeps_its_settings(tmp_path, monkeypatch, capsys):
    save = tmp_path / "g.save.json"
    _play(monkeypatch, capsys, [SMALL, "--human", "gb", "--ai", "random", "--save", save], io.StringIO("end\n"))
    before = save.read_bytes()
    code, _, err = _play(monkeypatch, capsys, ["--load", save, "--human", "de"], io.StringIO(""))
    assert code == 2 and "was saved with gb, not de" in err
    code, _, err = _play(monkeypatch, capsys, [MAPS / "chq_saint_aubin.json", "--load", save], io.StringIO(""))
    assert code == 2 and "is a save of" in err and "not of" in err
    assert save.read_bytes() == before


def test_piped_play_in_a_subprocess_ends_politely_with_the_save_path(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "agent.cli", "play", str(SMALL), "--human", "gb", "--ai", "random"],
        input="hold gb-section-1\nbogus order\n", capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )
    assert result.returncode == 0 and result.stderr == ""
    assert "unknown order 'bogus'" in result.stdout
    assert "End of input: the game is saved in met_calm_bocage.save.json" in result.stdout
    assert json.loads((tmp_path / "met_calm_bocage.save.json").read_text())["actions"][0] == "hold gb-section-1"


def _ai_scopes(save, side):
    """``(index, scope)`` of each decision of ``side`` in a save, replayed."""
    from agent.saves import resolve_order, resolve_outcome

    state = load_game(save).scenario.new_game(seed=read_save(save).seed)
    scopes = []
    for index, text in enumerate(read_save(save).actions):
        chance = state.is_chance_node()
        if not chance and state.current_player() == side:
            scopes.append((index, state.plan_scope(side)))
        state.apply_action(resolve_outcome(state, text) if chance else resolve_order(state, text))
    return scopes


@pytest.mark.parametrize("stop_after", [8, 16, 19])
def test_resumed_game_against_the_search_ai_equals_the_uninterrupted_one(tmp_path, monkeypatch, capsys, stop_after):
    """With an iteration budget the search AI is a function of the game so far: stopped anywhere
    and resumed, the game plays on as it would have. Stops 16 and 19 fall at table rolls in the
    middle of the AI's first pulse, whose plan it must recall."""
    whole, part = tmp_path / "whole.save.json", tmp_path / "part.save.json"
    argv = [CHQ, "--human", "us", "--seed", "3", "--iterations", "3", "--dice", "table"]
    assert _play(monkeypatch, capsys, [*argv, "--save", whole], ScriptedInput(whole, stop_after=24))[0] == 0
    assert _play(monkeypatch, capsys, [*argv, "--save", part], ScriptedInput(part, stop_after=stop_after))[0] == 0
    assert read_save(part).players["de"]["iterations"] == 3
    cut = len(read_save(part).actions)
    before = [scope for index, scope in _ai_scopes(whole, "de") if index < cut]
    after = [scope for index, scope in _ai_scopes(whole, "de") if index >= cut]
    mid_scope = bool(before and after and before[-1] == after[0])
    if stop_after != 8:
        assert mid_scope, "this stop was chosen to fall inside one of the AI's scopes"
    code, out, _ = _play(monkeypatch, capsys, ["--load", part], ScriptedInput(part, stop_after=24, answered=stop_after))
    assert code == 0 and "Resumed from" in out
    assert read_save(part).actions == read_save(whole).actions


def test_a_posture_is_an_easy_opponent_that_says_why_and_resumes_as_itself(tmp_path, monkeypatch, capsys):
    whole, part = tmp_path / "whole.save.json", tmp_path / "part.save.json"
    argv = [SMALL, "--human", "de", "--seed", "9", "--ai", "assault"]
    code, out, err = _play(monkeypatch, capsys, [*argv, "--save", whole], ScriptedInput(whole))
    assert code == 0 and err == "" and "with the assault player" in out and "Why: assault:" in out
    assert "Game over after" in out
    assert _play(monkeypatch, capsys, [*argv, "--save", part], ScriptedInput(part, stop_after=7))[0] == 0
    code, out, _ = _play(monkeypatch, capsys, ["--load", part], ScriptedInput(part))
    assert code == 0 and "with the assault player" in out and "Game over" in out
    assert read_save(part).actions == read_save(whole).actions
