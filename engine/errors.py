"""Errors a user can cause, kept apart from bugs.

Every error here is a ``ValueError`` (as python-chess does it), so callers that
only know the standard library still catch them, and the command line turns
each into one sentence and exit code 2.
"""

__all__ = ["FireplanError", "ScenarioError", "IllegalActionError"]


class FireplanError(ValueError):
    """A mistake in what a user gave us: a file, an argument or an order."""


class ScenarioError(FireplanError):
    """A scenario file that cannot be loaded; the message names file, field and expectation."""

    def __init__(self, message: str, *, problems: tuple[str, ...] = ()):
        super().__init__(message)
        self.problems = problems or (message,)


class IllegalActionError(FireplanError):
    """An action the rules do not allow in this state; the message says why."""
