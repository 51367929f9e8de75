"""fireplan's rules engine: geometry, sight, exact dice, scenarios and the rulesets. No planning here."""

from .errors import FireplanError, IllegalActionError, ScenarioError

__all__ = ["FireplanError", "IllegalActionError", "ScenarioError"]
