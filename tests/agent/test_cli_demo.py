"""``fireplan demo``: the AI plays both sides with narration and a picture per turn; bad input is one line."""

from __future__ import annotations

from agent.cli import main
from agent.cli.demo import DEFAULT_SCENARIO


def test_demo_plays_the_default_scenario_with_narration_and_pictures(tmp_path, capsys):
    assert main(["demo", "--out", str(tmp_path / "pics"), "--budget", "0.02"]) == 0
    out = capsys.readouterr().out
    pictures = sorted((tmp_path / "pics").glob("*.png"))
    assert len(pictures) >= 3 and all(p.stat().st_size > 10_000 for p in pictures)
    assert "=== Turn 1 ===" in out and "Game over:" in out and f"{len(pictures)} pictures" in out
    assert "US 2nd Armored, CCB orders `" in out and "German Kampfgruppe orders `" in out
    assert "Why:" in out and "The dice:" in out and "chance)" in out


def test_demo_plays_a_met_scenario_too(tmp_path, capsys):
    path = DEFAULT_SCENARIO.parent / "met_calm_bocage.json"
    assert main(["demo", "--scenario", str(path), "--out", str(tmp_path), "--ai", "random"]) == 0
    assert "=== Period 1 ===" in capsys.readouterr().out
    assert (tmp_path / "final.png").exists()


def test_demo_refuses_a_missing_file(tmp_path, capsys):
    assert main(["demo", "--scenario", str(tmp_path / "nothing.json")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_demo_refuses_a_file_as_its_folder(tmp_path, capsys):
    (tmp_path / "f").write_text("x")
    assert main(["demo", "--out", str(tmp_path / "f")]) == 2
    assert "is a file, expected a folder" in capsys.readouterr().err
