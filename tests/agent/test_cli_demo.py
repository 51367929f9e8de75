"""``fireplan demo`` runs on the default scenario and refuses a bad one with exit code 2."""

from __future__ import annotations

import json

from agent.cli import main
from agent.cli.demo import DEFAULT_SCENARIO


def test_demo_prints_barrage_odds_for_every_blind(capsys):
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    for blind in json.loads(DEFAULT_SCENARIO.read_text())["blinds"]:
        assert blind["id"] in out
    assert "Initial barrage" in out and "50.0%" in out  # 4D v 3D comms (CHQ-18)


def test_demo_refuses_a_met_scenario(capsys):
    assert main(["demo", "--scenario", str(DEFAULT_SCENARIO.parent / "met_le_mesnil.json")]) == 2
    assert "needs a CHQ scenario" in capsys.readouterr().err


def test_demo_refuses_a_missing_file(tmp_path, capsys):
    assert main(["demo", "--scenario", str(tmp_path / "nothing.json")]) == 2
    assert "no such file" in capsys.readouterr().err
