"""The AI beats the random player on small maps of both rulesets (a handful of seeded games).

The games are deterministic (iteration budgets, seeded players and dice), so this is not a
flaky statistic: it pins that the AI, with a small budget, still wins most games from either
side. The tournament (experiments/tournament.py) measures win rates properly.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.match import play_game
from agent.players import RandomPlayer, SearchPlayer
from engine.scenario import load_scenario

MAPS = Path(__file__).resolve().parents[3] / "maps"


@pytest.mark.parametrize("name", ["chq_smoke_advance", "met_calm_bocage"])
def test_ai_beats_random(name):
    scenario = load_scenario(MAPS / f"{name}.json")
    sides = [s.id for s in scenario.sides]
    wins, games = 0, 0
    for seed in (1, 2):
        for k in (0, 1):
            ai = SearchPlayer(seed=seed, iterations=6, time_per_decision=None)
            players = {sides[k]: ai, sides[1 - k]: RandomPlayer(seed + 50)}
            record = play_game(scenario.new_game(seed=seed), players)
            wins += record.returns[sides[k]] > 0
            games += 1
            assert ai.searches, "the AI never searched"
    assert wins >= 3, f"the AI won {wins} of {games} against random on {name}"
