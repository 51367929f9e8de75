"""``fireplan odds``: the numbers are the engine's, and bad arguments are one line and exit code 2."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent.cli import build_parser, main
from agent.cli import odds as odds_command
from engine.rulesets.chq.fire import chq_fire_odds, comms_odds, tot_fire_odds

FIRE_KEYS = {"effective_dice", "effective_tn", "disruption", "p_suppressed", "p_any_effect",
             "expected_disruption", "forced_back", "inputs"}


def run(argv: list[str]) -> int:
    """``main`` with argparse's SystemExit turned into the exit code it carries."""
    try:
        return main(argv)
    except SystemExit as exit:
        return exit.code


def run_json(capsys, *argv: str) -> dict:
    assert run(["odds", "chq", *argv, "--json"]) == 0
    out = capsys.readouterr().out
    return json.loads(out)


def assert_matches_engine(report: dict, odds) -> None:
    assert FIRE_KEYS <= set(report)
    assert report["effective_dice"] == odds.effective_dice
    assert report["effective_tn"] == odds.effective_tn
    assert report["disruption"] == [float(p) for p in odds.disruption]
    assert len(report["disruption"]) == odds.effective_dice + 1
    assert report["p_suppressed"] == float(odds.p_suppressed)
    assert report["p_any_effect"] == float(odds.p_any_effect)
    assert report["expected_disruption"] == float(odds.expected_disruption)
    assert report["forced_back"] == {str(inches): float(p) for inches, p in odds.forced_back.items()}
    assert report["exact"]["p_suppressed"] == str(odds.p_suppressed)


# ---------------------------------------------------------------- numbers
def test_chq_3_json_matches_engine(capsys):
    report = run_json(capsys, "--dice", "7", "--tn", "3", "--reaction", "5")
    assert_matches_engine(report, chq_fire_odds(7, 3, 5))
    assert report["inputs"] == {
        "dice": 7, "tn": 3, "reaction": 5, "reaction_tn": 4, "smoke": False,
        "high_suppression": False, "on_miss": False, "suppressed": False,
    }
    assert abs(sum(report["forced_back"].values()) - 1) < 1e-12


def test_chq_10_smoke_raises_tn_by_two(capsys):
    plain = run_json(capsys, "--dice", "7", "--tn", "3", "--reaction", "5")
    smoke = run_json(capsys, "--dice", "7", "--tn", "3", "--reaction", "5", "--smoke")
    assert smoke["effective_tn"] == plain["effective_tn"] + 2 == 5
    assert smoke["inputs"]["smoke"] is True
    assert_matches_engine(smoke, chq_fire_odds(7, 3, 5, smoke=True))


def test_chq_11_smoke_past_six_loses_dice(capsys):
    report = run_json(capsys, "--dice", "4", "--tn", "5", "--reaction", "3", "--smoke")
    assert (report["effective_dice"], report["effective_tn"]) == (3, 6)


def test_chq_5_and_chq_3_options(capsys):
    report = run_json(capsys, "--dice", "4", "--tn", "4", "--reaction", "3", "--high-suppression", "--suppressed")
    assert report["reaction_tn"] == 5
    assert_matches_engine(report, chq_fire_odds(4, 4, 3, high_suppression=True, suppressed_target=True))
    on_miss = run_json(capsys, "--dice", "4", "--tn", "4", "--reaction", "3", "--high-suppression", "--on-miss")
    assert on_miss["inputs"]["on_miss"] is True
    assert_matches_engine(on_miss, chq_fire_odds(4, 4, 3, high_suppression=True, on_miss=True))
    explicit = run_json(capsys, "--dice", "4", "--tn", "4", "--reaction", "3", "--reaction-tn", "3")
    assert explicit["reaction_tn"] == 3


def test_chq_24_tot_4_4_4_has_8_effective_dice(capsys):
    report = run_json(capsys, "--tot", "4,4,4", "--reaction", "5")
    assert report["effective_dice"] == 8 and report["effective_tn"] == 4
    assert report["inputs"]["tot"] == [4, 4, 4]
    assert_matches_engine(report, tot_fire_odds([4, 4, 4], 5))
    smoke = run_json(capsys, "--tot", "4,4,4", "--tn", "3", "--reaction", "5", "--smoke")
    assert smoke["effective_tn"] == 5


def test_chq_18_comms_4_is_one_half(capsys):
    report = run_json(capsys, "--comms", "4")
    assert report["p_success"] == 0.5 and report["dice"] == 4 and report["against"] == 3
    other = run_json(capsys, "--comms", "5", "--against", "2")
    assert other["p_success"] == float(comms_odds(5, 2))


def test_table_output_is_readable(capsys):
    assert run(["odds", "chq", "--dice", "7", "--tn", "3", "--reaction", "5"]) == 0
    out = capsys.readouterr().out
    odds = chq_fire_odds(7, 3, 5)
    assert "7D at 3+" in out and "Reaction 5D at 4+" in out
    assert f"{float(odds.p_suppressed):.1%}" in out and f"{float(odds.p_any_effect):.1%}" in out
    assert "P(suppressed)" in out and "P(any effect)" in out and "Forced back" in out
    assert f"{float(odds.disruption[2]):.1%}" in out


def test_table_output_notes_smoke_and_chq_11(capsys):
    assert run(["odds", "chq", "--dice", "4", "--tn", "5", "--reaction", "3", "--smoke"]) == 0
    out = capsys.readouterr().out
    assert "smoke +2 TN" in out and "rolls as 3D at 6+" in out


def test_comms_table_output(capsys):
    assert run(["odds", "chq", "--comms", "4"]) == 0
    out = capsys.readouterr().out
    assert "4D against 3D" in out and "50.0%" in out


# ---------------------------------------------------------------- bad arguments
@pytest.mark.parametrize(
    "argv, says",
    [
        (["--dice", "-1", "--tn", "4", "--reaction", "3"], "--dice"),  # negative dice
        (["--dice", "x", "--tn", "4", "--reaction", "3"], "--dice"),  # not an integer
        (["--dice", "2.5", "--tn", "4", "--reaction", "3"], "--dice"),
        (["--tot", "4,x", "--reaction", "3"], "--tot"),
        (["--tot", "4", "--reaction", "3"], "two or more"),
        (["--dice", "4", "--tn", "13", "--reaction", "3"], "--tn"),  # TN outside 1..12
        (["--dice", "4", "--tn", "0", "--reaction", "3"], "--tn"),
        (["--dice", "1", "--tn", "7", "--reaction", "3"], "CHQ-11"),  # a pool reduced to 0 dice
        (["--dice", "2", "--tn", "6", "--reaction", "3", "--smoke"], "cannot fire"),
        (["--dice", "0", "--tn", "4", "--reaction", "3"], "at least one die"),
        (["--reaction", "3"], "one of the arguments"),  # none of dice/tot/comms
        (["--dice", "3", "--comms", "4"], "not allowed"),  # several
        (["--dice", "3", "--tot", "4,4", "--reaction", "3"], "not allowed"),
        (["--dice", "3", "--reaction", "3"], "--tn"),  # --tn required with --dice
        (["--dice", "3", "--tn", "4"], "--reaction"),
        (["--comms", "4", "--reaction", "3"], "--comms"),
        (["--dice", "3", "--tn", "4", "--reaction", "3", "--against", "2"], "--against"),
        (["--dice", "3", "--tn", "4", "--reaction", "3", "--on-miss"], "--high-suppression"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(capsys, argv, says):
    assert run(["odds", "chq", *argv]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert "error" in lines[0] and says in lines[0]
    assert "Traceback" not in captured.err and captured.out == ""


def test_installed_command_exits_2_without_traceback():
    script = Path(sys.executable).with_name("fireplan")
    if not script.exists():
        pytest.skip("fireplan entry point not installed in this environment")
    done = subprocess.run([str(script), "odds", "chq", "--tot", "4,x", "--reaction", "3"], capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1
    done = subprocess.run([str(script), "odds", "chq", "--comms", "4", "--json"], capture_output=True, text=True)
    assert done.returncode == 0 and json.loads(done.stdout)["p_success"] == 0.5


# ---------------------------------------------------------------- structure
def test_odds_takes_the_ruleset_as_a_nested_sub_command():
    parser = build_parser()
    args = parser.parse_args(["odds", "chq", "--comms", "4"])
    assert args.command == "odds" and args.ruleset == "chq"
    with pytest.raises(SystemExit):
        parser.parse_args(["odds"])


def test_another_ruleset_plugs_in_without_touching_chq(monkeypatch, capsys):
    def register_fake(rulesets: argparse._SubParsersAction) -> None:
        fake = rulesets.add_parser("fake")
        fake.set_defaults(run=lambda args: print("fake odds") or 0)

    monkeypatch.setattr(odds_command, "RULESET_COMMANDS", (*odds_command.RULESET_COMMANDS, register_fake))
    assert run(["odds", "fake"]) == 0
    assert capsys.readouterr().out.strip() == "fake odds"
    assert run(["odds", "chq", "--comms", "4", "--json"]) == 0
