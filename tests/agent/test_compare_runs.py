"""experiments/compare_runs.py: two tournament runs compared game by game, with a sign test."""

from __future__ import annotations

import csv
import subprocess
import sys

from .experiments import EXPERIMENTS, load_experiment

SCRIPT = EXPERIMENTS / "compare_runs.py"


def compare_runs():
    return load_experiment("compare_runs")


def test_the_sign_test_is_the_exact_binomial_tail():
    sign_test = compare_runs().sign_test
    assert sign_test(7, 0) == 2 / 2**7  # 0.015625: seven of seven one way
    assert sign_test(0, 7) == sign_test(7, 0)
    assert abs(sign_test(8, 2) - 2 * (1 + 10 + 45) / 2**10) < 1e-15  # 0.109375
    assert sign_test(5, 5) == 1.0
    assert sign_test(0, 0) == 1.0


def test_twins_are_matched_by_seat_and_seed_and_counted_per_map():
    module = compare_runs()
    before = {("m1", "ai", "greedy", "gb", "1"): -1.0, ("m1", "ai", "greedy", "de", "1"): 0.0,
              ("m2", "ai", "greedy", "gb", "1"): 1.0, ("m2", "ai", "greedy", "gb", "9"): 1.0}
    after = {("m1", "ai", "greedy", "gb", "1"): 1.0, ("m1", "ai", "greedy", "de", "1"): -1.0,
             ("m2", "ai", "greedy", "gb", "1"): 1.0, ("m3", "ai", "greedy", "gb", "1"): 1.0}
    rows = {row["map"]: row for row in module.compare(before, after)}
    assert set(rows) == {"m1", "m2", "all"}  # m3 and m2's seed 9 have no twin
    assert (rows["m1"]["better"], rows["m1"]["worse"], rows["m1"]["games"]) == (1, 1, 2)
    assert (rows["m1"]["before"], rows["m1"]["after"]) == (0.0, 0.5)
    assert (rows["all"]["better"], rows["all"]["worse"], rows["all"]["games"]) == (1, 1, 3)


def test_a_folder_without_a_finished_run_is_refused_in_one_line(tmp_path):
    good = tmp_path / "good"
    good.mkdir()
    with (good / "games.csv").open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["map", "first", "second", "first_side", "seed", "result"])
        writer.writerow(["m1", "ai", "greedy", "gb", "1", "1.0"])
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "games.csv").write_text("map,first\nm1,ai\n")
    for args in ([tmp_path / "missing", good], [bad, good]):
        done = subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True)
        assert done.returncode == 2
        assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1
        assert "Traceback" not in done.stderr
    same = subprocess.run([sys.executable, str(SCRIPT), str(good), str(good)], capture_output=True, text=True)
    assert same.returncode == 0 and "all" in same.stdout
