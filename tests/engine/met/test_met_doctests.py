"""The examples in the MET modules' docstrings run (MET-1 .. MET-21 modules)."""

from __future__ import annotations

import doctest
import importlib
import os

import pytest

MODULES = [
    "actions", "data", "deviation", "direct_smoke", "dischargers", "fires", "game", "observation",
    "resolution", "sightlines", "smoke", "hooks", "events", "elements",
]


@pytest.mark.parametrize("name", MODULES)
def test_met_module_examples(name, monkeypatch):
    monkeypatch.chdir(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(__file__)))))
    module = importlib.import_module(f"engine.rulesets.met.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
