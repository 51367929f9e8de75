"""The AI beats the random player on small maps of both rulesets (a handful of seeded games).

The games are deterministic (iteration budgets, seeded players and dice), so this is not a
flaky statistic: it pins that the AI, with a small budget, still wins most games from either
side. The maps are even ones of each ruleset whose games are short (greedy v greedy:
chq_smoke_advance 11-7 with 2 drawn, met_calm_bocage 9-11, README "Maps"): on a map that
favours one side heavily, a handful of games from the weak side tests the map more than the
AI. The tournament (experiments/tournament.py) measures win rates properly, on every map.
"""

from __future__ import annotations

from pathlib import Path

from agent.match import play_game
from agent.players import RandomPlayer, SearchPlayer
from engine.scenario import load_scenario

MAPS = Path(__file__).resolve().parents[3] / "maps"


def test_ai_beats_random():
    """Two even maps, one per ruleset, the AI on each side: it must win at least three of four."""
    results = {}
    for name in ("chq_smoke_advance", "met_calm_bocage"):
        scenario = load_scenario(MAPS / f"{name}.json")
        sides = [s.id for s in scenario.sides]
        for k in (0, 1):
            ai = SearchPlayer(seed=2, iterations=12, time_per_decision=None)
            players = {sides[k]: ai, sides[1 - k]: RandomPlayer(52)}
            record = play_game(scenario.new_game(seed=2), players)
            results[(name, sides[k])] = record.returns[sides[k]]
            assert ai.searches, "the AI never searched"
    wins = sum(r > 0 for r in results.values())
    assert wins >= 3, f"the AI won {wins} of 4 against random: {results}"
