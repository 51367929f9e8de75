"""Pictures of every map: non-empty PNGs of the expected size, drawn only from what the side knows."""

from __future__ import annotations

import struct

import pytest

from agent.cli import main
from agent.render import render_table
from engine.scenario import load_scenario
from engine.view import table_view


def _png_size(path):
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", header[16:24])


def test_every_map_renders_for_the_umpire_and_each_side(scenario_path, tmp_path):
    scenario = load_scenario(scenario_path)
    state = scenario.new_game(seed=0)
    for side in [None, *(s.id for s in scenario.sides)]:
        path = render_table(table_view(state, side), tmp_path / f"{side}.png", width_inches=8, dpi=100)
        width, height = _png_size(path)
        assert width == 800
        assert height == pytest.approx(100 * (max(2.0, 8 * scenario.depth / scenario.width) + 0.8), abs=2)
        assert path.stat().st_size > 10_000


def test_a_side_never_sees_the_enemy_dummies(scenario_path):
    scenario = load_scenario(scenario_path)
    state = scenario.new_game(seed=0)
    for side in scenario.sides:
        view = table_view(state, side.id)
        enemy_blinds = [p for p in view.pieces if p.kind == "blind" and p.side != side.id]
        assert all(p.dummy is None for p in enemy_blinds)
        hidden_enemy_units = {u.id for u in scenario.units if u.side != side.id and u.blind}
        assert hidden_enemy_units.isdisjoint(p.id for p in view.pieces)
    umpire = table_view(state)
    assert {p.id for p in umpire.pieces if p.kind == "blind" and p.dummy} == {b.id for b in scenario.blinds if b.dummy}


def test_render_command_writes_png_and_svg(tmp_path, capsys):
    assert main(["render", "maps/chq_saint_aubin.json", "-o", str(tmp_path / "t.png"), "--sight", "us"]) == 0
    assert main(["render", "maps/met_le_mesnil.json", "-o", str(tmp_path / "t.svg")]) == 0
    assert (tmp_path / "t.svg").read_text().lstrip().startswith("<?xml")
    assert "wrote" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args, words",
    [
        (["maps/chq_saint_aubin.json", "-o", "x.jpg"], "ending in .png or .svg"),
        (["maps/chq_saint_aubin.json", "-o", "x.png", "--sight", "fr"], "expected one of the sides us, de"),
        (["maps/nothing.json", "-o", "x.png"], "no such file"),
    ],
)
def test_render_command_refuses_bad_input(tmp_path, capsys, args, words):
    args = [a if not a.startswith("x.") else str(tmp_path / a) for a in args]
    assert main(["render", *args]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1
