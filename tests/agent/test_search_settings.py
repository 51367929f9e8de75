"""agent.search.settings: FIELD=VALUE words as the AI's settings, typed by their defaults."""

from __future__ import annotations

import doctest
from dataclasses import replace

import pytest

import agent.search.settings
from agent.search.evaluation import DEFAULT_WEIGHTS, SEARCH_WEIGHTS
from agent.search.settings import changed_fields, parse_fields, search_config, search_options


def test_the_examples_in_the_docstring_hold():
    assert doctest.testmod(agent.search.settings).failed == 0


def test_each_value_is_read_as_its_defaults_type():
    defaults = {"on": True, "names": ("a",), "limit": 3, "share": 0.5, "anchor": None}
    assert parse_fields(["on=no", "names=x,y", "limit=7", "share=2", "anchor=none"], defaults, "--x") == (
        ("on", False), ("names", ("x", "y")), ("limit", 7), ("share", 2.0), ("anchor", None))


def test_a_wrong_word_is_named_with_the_option_it_came_with():
    for text, named in (("depth=3", "FIELD one of"), ("limit=high", "limit takes a int like 3"),
                        ("on=maybe", "on takes a bool"), ("limit", "FIELD=VALUE")):
        with pytest.raises(ValueError, match=named) as error:
            parse_fields([text], {"on": True, "limit": 3}, "--x")
        assert str(error.value).startswith(f"--x {text!r}")


def test_weights_change_one_field_at_a_time_and_the_rest_stay():
    changed = changed_fields(SEARCH_WEIGHTS, ["collapse=2", "fire=1"])
    assert changed == replace(SEARCH_WEIGHTS, collapse=2.0, fire=1.0)
    assert changed_fields(DEFAULT_WEIGHTS, []) == DEFAULT_WEIGHTS


def test_both_weight_groups_are_search_settings():
    config = search_config(search_options(["weights.collapse=1", "greedy_weights.volley=2", "alternatives=1"]))
    assert config.weights == replace(SEARCH_WEIGHTS, collapse=1.0)
    assert config.greedy_weights == replace(DEFAULT_WEIGHTS, volley=2.0)
    assert config.alternatives == 1 and search_config() == search_config(())
