"""``fireplan stress``: the same per-game results on one process, on two, and on a real Dask
cluster; nothing finished lost when a worker dies; a half-finished run resumes; bad input is one
line and exit code 2."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent.cli import main
from agent.stress import StressRun, game_parameters, parse_vary, play_one, scenario_for
from tests.conftest import MAPS

MAP = MAPS / "chq_smoke_advance.json"
GAMES = 12
VARY = "staff_orders=0:3,smoke_extra_pulse=0:1"


def _stress(out: Path, *extra: str, games: int = GAMES) -> int:
    return main(["stress", str(MAP), "--games", str(games), "--vary", VARY, "--seed", "5", "--out", str(out), "--quiet", *extra])


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> bytes:
    """The run on this process alone."""
    out = tmp_path_factory.mktemp("reference")
    assert _stress(out, "--workers", "1") == 0
    return (out / "games.csv").read_bytes()


def test_the_report_and_files_of_a_run(reference, tmp_path, capsys):
    lines = reference.decode().splitlines()
    assert len(lines) == GAMES + 1 and lines[0].startswith("index,seed,param_staff_orders,param_smoke_extra_pulse,blue,red,winner")
    assert [int(line.split(",")[0]) for line in lines[1:]] == list(range(GAMES))
    import csv

    for row in csv.DictReader(lines):  # units lost only ever add up, turn by turn, and never exceed the side's units
        for side, units in (("us", 4), ("de", 4)):
            lost = [int(row[f"lost_{side}_t{t}"]) for t in range(1, 6)]
            assert lost == sorted(lost) and lost[-1] <= units
    assert _stress(tmp_path, "--workers", "1", games=3) == 0
    shown = capsys.readouterr().out
    for words in ("win rate [95% CI]", "units lost by the end of each turn", "us-bty-1 missions", "us smoke orders",
                  "objectives at the end", "us wins by staff_orders"):
        assert words in shown
    for picture in ("results.png", "parameters.png"):
        assert (tmp_path / picture).stat().st_size > 10_000


def test_each_game_is_a_function_of_the_run_seed_and_its_index():
    run = StressRun(str(MAP), GAMES, "random", "random", parse_vary(VARY), 5, 0.2)
    assert play_one(run, 7, 6) == play_one(run, 7, 6)
    assert play_one(run, 7, 6)["seed"] != play_one(run, 8, 6)["seed"]
    drawn = [game_parameters(run, i) for i in range(40)]
    assert {d["staff_orders"] for d in drawn} == {0, 1, 2, 3} and {d["smoke_extra_pulse"] for d in drawn} == {0, 1}


@pytest.mark.parametrize("map_name, side, default", [("chq_smoke_advance", "us", 7), ("met_strong_ridge", "gb", 2)])
def test_a_side_s_morale_points_can_be_varied(map_name, side, default):
    """``SIDE.morale_points`` replaces CHQ-29's formula (ceil(units / 2) + Command Dice) for that side
    alone: the handicap a designer balances a scenario with."""
    path = MAPS / f"{map_name}.json"
    base = scenario_for(path, {})
    other = next(s.id for s in base.sides if s.id != side)
    plain = base.new_game(seed=0)
    varied = scenario_for(path, {f"{side}.morale_points": default + 3}).new_game(seed=0)
    assert plain.morale[side] == default and varied.morale[side] == default + 3
    assert varied.morale[other] == plain.morale[other]


def test_two_processes_give_the_results_of_one(reference, tmp_path):
    assert _stress(tmp_path, "--workers", "2") == 0
    assert (tmp_path / "games.csv").read_bytes() == reference


def test_a_dask_cluster_gives_the_results_of_one_process(reference, tmp_path):
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) as cluster:
        assert _stress(tmp_path, "--scheduler", cluster.scheduler_address) == 0
    assert (tmp_path / "games.csv").read_bytes() == reference


def _rows(path: Path) -> list[str]:
    return path.read_text().splitlines()[1:] if path.exists() else []


def _workers_of(pid: int) -> list[int]:
    """The pool's worker processes under ``pid`` (spawned children, not the resource tracker)."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [int(c) for c in children if "resource_tracker" not in Path(f"/proc/{c}/cmdline").read_text()]


def test_a_killed_worker_loses_no_finished_game_and_the_rerun_completes(reference, tmp_path):
    games = 4 * GAMES  # long enough to kill a worker mid-run; the first GAMES are the reference's games
    argv = [sys.executable, "-m", "agent.cli", "stress", str(MAP), "--games", str(games), "--vary", VARY, "--seed", "5",
            "--out", str(tmp_path), "--quiet", "--workers", "2"]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while len(_rows(tmp_path / "games.csv")) < 2 and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert process.poll() is None, "the run ended before a worker could be killed"
    os.kill(_workers_of(process.pid)[0], signal.SIGKILL)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 1 and "a worker process died" in out and "Traceback" not in err, (out, err)
    finished = _rows(tmp_path / "games.csv")
    assert 2 <= len(finished) < games
    expected = reference.decode().splitlines()[1:]
    assert all(row in expected for row in finished if int(row.split(",")[0]) < GAMES), "a finished game was written wrongly"
    assert _stress(tmp_path, "--workers", "1", games=games) == 0
    rows = _rows(tmp_path / "games.csv")
    assert len(rows) == games and rows[:GAMES] == expected
    assert set(finished) <= set(rows), "a game finished before the kill was lost or changed"


def test_a_half_finished_run_resumes_where_it_stopped(reference, tmp_path, capsys):
    assert _stress(tmp_path, "--workers", "1", games=5) == 0
    games = tmp_path / "games.csv"
    text = games.read_text()
    games.write_text(text[: len(text) - 7])  # the last game's line cut off mid-write
    capsys.readouterr()
    assert _stress(tmp_path, "--workers", "1") == 0
    assert "4 already in" in capsys.readouterr().out
    assert games.read_bytes() == reference


def test_another_run_in_the_same_folder_is_refused(reference, tmp_path, capsys):
    assert _stress(tmp_path, "--workers", "1", games=2) == 0
    capsys.readouterr()
    assert main(["stress", str(MAP), "--games", "2", "--seed", "6", "--out", str(tmp_path), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds another run" in err and "seed 5 there, 6 now" in err


@pytest.mark.parametrize("vary, words", [
    ("rainfall=0:3", "--vary rainfall: unknown parameter"),
    ("wind=0:30", "has no weather"),
    ("staff_orders=5:1", "expected LOW <= HIGH"),
    ("staff_orders=a:b", "expected a number"),
    ("staff_orders", "expected NAME=LOW:HIGH"),
    ("staff_orders=0:9", "at most as many Staff Orders as Command Dice"),
    ("turns=0:nan", "expected a finite number"),
])
def test_bad_vary_is_one_line_and_exit_code_2(vary, words, tmp_path, capsys):
    assert main(["stress", str(MAP), "--games", "2", "--vary", vary, "--out", str(tmp_path), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err and "Traceback" not in err
    assert not (tmp_path / "games.csv").exists()


def test_ai_games_with_an_iteration_budget_are_the_same_on_two_workers(tmp_path):
    """The AI searches a fixed number of simulations (no clock in its choices): one process and two
    agree. On a map with short games: this plays four of them."""
    argv = ["stress", str(MAPS / "met_calm_bocage.json"), "--games", "2", "--blue", "ai", "--iterations", "1", "--seed", "3", "--quiet"]
    assert main([*argv, "--out", str(tmp_path / "one"), "--workers", "1"]) == 0
    assert main([*argv, "--out", str(tmp_path / "two"), "--workers", "2"]) == 0
    assert (tmp_path / "one" / "games.csv").read_bytes() == (tmp_path / "two" / "games.csv").read_bytes()
    assert '"iterations": 1' in (tmp_path / "one" / "run.json").read_text()


def test_a_posture_can_play_a_side_of_a_stress_run(tmp_path, capsys):
    """A designer's probe: a defender that only holds against an attacker that always assaults,
    the same games on one process and on two."""
    met = MAPS / "met_le_mesnil.json"
    argv = ["stress", str(met), "--games", "4", "--blue", "assault", "--red", "hold", "--seed", "2", "--quiet"]
    assert main([*argv, "--out", str(tmp_path / "one"), "--workers", "1"]) == 0
    assert main([*argv, "--out", str(tmp_path / "two"), "--workers", "2"]) == 0
    rows = (tmp_path / "one" / "games.csv").read_text().splitlines()
    assert len(rows) == 5 and all(",assault,hold," in row for row in rows[1:])
    assert (tmp_path / "one" / "games.csv").read_bytes() == (tmp_path / "two" / "games.csv").read_bytes()
    assert "assault (gb) v hold (de)" in capsys.readouterr().out


def test_an_unknown_player_is_refused_by_name(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["stress", str(MAP), "--blue", "charge", "--out", str(tmp_path), "--quiet"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "'charge'" in err and "hold" in err and "Traceback" not in err
