"""The exception hierarchy of astreduce.

Every error astreduce raises on purpose derives from :class:`AstReduceError`,
so a caller can catch them all in one place. ``cli.py`` maps each family to an
exit status (see docs/results.md): usage errors exit 2, inputs that do not reproduce
exit 1, an interrupted reduction exits 130.
"""

from __future__ import annotations

from typing import Any


class AstReduceError(Exception):
    """Base class of every error raised by astreduce itself."""


class UsageError(AstReduceError):
    """A bad option or an unreadable input (exit status 2)."""


class InputNotCompilingError(UsageError):
    """The input does not compile under the chosen interpreter (exit 2); ``astreduce batch`` lists that input and goes on."""


class NotReproducibleError(AstReduceError):
    """The original input is not FAIL; the message says what happened instead (exit 1)."""


class TransformLoadError(AstReduceError):
    """A transform registered through an entry point failed to load."""


class ReductionStopped(AstReduceError):
    """The reduction was interrupted; ``result`` holds the best candidate so far."""

    def __init__(self, message: str, result: Any = None) -> None:
        super().__init__(message)
        self.result = result


class DDPreconditionError(AstReduceError):
    """A delta-debugging precondition does not hold.

    For example the full input does not fail, or (when maximising the passing
    input) the empty input already fails.
    """


class NoCallError(AstReduceError):
    """A ``DeltaDebugger`` block made no function call to collect."""


class NotFailingError(AstReduceError):
    """The call collected by a ``DeltaDebugger`` raised no exception."""


class FailureNotReproducedError(AstReduceError):
    """Repeating the collected call fails differently than the first time."""
