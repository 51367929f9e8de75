"""On (small) benchmark boards: the pruned solve finds the plain model's optimum, and the script runs.

The boards come from ``experiments/bench_smoke.py`` (batteries, Staff Orders, own fire lanes,
screens that start late), where the bounds of ``solve_cpsat`` actually prune: these are the
cases the 2,000-option benchmark depends on, small enough for the plain model to be proved.
"""

from __future__ import annotations

import pytest

from agent.smoke import build_coverage, solve_cpsat, solve_greedy

from ..experiments import load_experiment

def bench_module():
    return load_experiment("bench_smoke")


@pytest.mark.parametrize(("n_options", "n_lines", "seed"), [(60, 900, 0), (80, 900, 1)])
def test_pruned_solve_finds_the_plain_models_optimum(n_options, n_lines, seed):
    options, lines, budget = bench_module().make_board(n_options, n_lines, seed)
    coverage = build_coverage(options, lines)
    plain = solve_cpsat(coverage, budget, time_limit=30.0, prune=False)
    pruned = solve_cpsat(coverage, budget, time_limit=30.0)
    assert plain.status == pruned.status == "OPTIMAL"
    assert pruned.objective == pytest.approx(plain.objective, rel=1e-9)
    assert pruned.stat("options in model") < pruned.stat("feasible options")  # the bounds did prune
    assert pruned.objective >= solve_greedy(coverage, budget).objective - 1e-9


def test_benchmark_script_runs_and_reports(capsys):
    assert bench_module().main(["--options", "200", "--lines", "2000", "--seed", "1", "--time-limit", "5"]) == 0
    out = capsys.readouterr().out
    assert "coverage build:" in out and "cp-sat: status" in out and "objective cp-sat / greedy:" in out
    assert "time to proven optimum" in out or "not proved optimal" in out
    ratio = float(out.split("objective cp-sat / greedy:")[1].split()[0])
    assert ratio >= 1.0 - 1e-9
