"""experiments/tune_weights.py: a candidate's weights are read from words, and played against the defaults."""

from __future__ import annotations

import pytest

from .experiments import load_experiment


def tuning():
    return load_experiment("tune_weights")


def test_a_candidate_starts_from_the_defaults_or_the_search_weights_and_changes_fields():
    from agent.search.evaluation import DEFAULT_WEIGHTS, SEARCH_WEIGHTS

    module = tuning()
    assert module.candidate_weights(["search"]) == SEARCH_WEIGHTS
    changed = module.candidate_weights(["risk=2", "fire=1.5"])
    assert (changed.risk, changed.fire, changed.objectives) == (2.0, 1.5, DEFAULT_WEIGHTS.objectives)
    mixed = module.candidate_weights(["search", "fire=1"])
    assert mixed.fire == 1.0 and mixed.early == SEARCH_WEIGHTS.early


def test_a_wrong_candidate_word_is_named_with_exit_code_2(capsys):
    module = tuning()
    for words, named in ((["depth=3"], "FIELD one of"), (["fire=high"], "fire takes a float like 0.5"), (["fast"], "FIELD=VALUE")):
        with pytest.raises(ValueError, match=named):
            module.candidate_weights(words)
    with pytest.raises(SystemExit) as stop:
        module.main(["--ruleset", "met", "--candidate", "fire=high"])
    assert stop.value.code == 2 and "--candidate 'fire=high': fire takes a float" in capsys.readouterr().err


def test_a_candidate_plays_its_maps_from_both_sides_against_the_defaults(capsys):
    """No search: the candidate's games only, one a side on each map asked for (a map with short games)."""
    assert tuning().main(["--ruleset", "met", "--maps", "met_calm_bocage", "--validate", "1", "--candidate", "search",
                          "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "default" not in out.split("candidate:")[0]  # the defaults' own search round is skipped
    rows = [line.split(": ") for line in out.splitlines() if line.startswith("  met_")]
    assert [name.strip() for name, _ in rows] == ["met_calm_bocage"]
    assert sum(int(n) for n in rows[0][1].split("-")) == 2
    assert "validation on 2 fresh games" in out


def test_a_map_not_of_the_ruleset_is_named_with_exit_code_2(capsys):
    with pytest.raises(SystemExit) as stop:
        tuning().main(["--ruleset", "met", "--maps", "chq_saint_aubin", "--candidate", "search"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "'chq_saint_aubin'" in err and "met_le_mesnil" in err
