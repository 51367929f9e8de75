"""Shared fixtures: where the maps are, and the scenario files among them."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MAPS = ROOT / "maps"
SCENARIO_FILES = sorted(path for path in MAPS.glob("*.json") if not path.name.endswith(".schema.json"))


@pytest.fixture(params=SCENARIO_FILES, ids=[path.stem for path in SCENARIO_FILES])
def scenario_path(request) -> Path:
    return request.param


# Hypothesis budgets: "ci" (the default) is fixed and small so the suite stays fast; "deep" searches harder.
import os  # noqa: E402

from hypothesis import settings  # noqa: E402

settings.register_profile("ci", max_examples=25, derandomize=True, print_blob=True)
settings.register_profile("deep", max_examples=200)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
