"""Oracles: decide FAIL / PASS / UNRESOLVED for a candidate text.

* :mod:`~astreduce.oracles.execution` — the exec oracle: the candidate runs
  as ``__main__`` in a forked child and its exception is matched;
* :mod:`~astreduce.oracles.worker` — the same under another interpreter,
  through a worker process started once;
* :mod:`~astreduce.oracles.command` — a command (``--run``), an
  interestingness script (``--test``), two commands compared (``--differential``);
* :mod:`~astreduce.oracles.sandbox` — what every test runs inside.

An oracle judges one candidate with :meth:`Oracle.judge`, or starts it with
:meth:`Oracle.start` and collects the verdict later, so that a parallel
executor can keep several candidates running and cancel stale ones. An
oracle turns everything a candidate does into an outcome; it raises only
for astreduce's own errors.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from astreduce.errors import UsageError
from astreduce.outcome import Outcome

#: How a run ended, as reported by the child or seen by the parent.
ENDINGS = ("ok", "exception", "syntax", "timeout", "crash")


@dataclass(frozen=True)
class Run:
    """What one execution of a candidate did."""

    ending: str
    """One of :data:`ENDINGS`."""
    exception: str = ""
    """Qualified name of the exception's type (for 'exception' and 'syntax')."""
    message: str = ""
    frame: str = ""
    """Function name of the innermost traceback frame."""
    seconds: float = 0.0
    detail: str = ""
    """For 'crash' and 'timeout': what the parent saw (signal, exit status)."""
    spawned: bool | None = field(default=None, compare=False)
    """From the exec oracle's report: whether the test started a process (``None``: not known)."""

    def describe(self) -> str:
        """A short human description: ``AssertionError('My Test')``, ``no exception``."""
        if self.ending == "ok":
            return "no exception"
        if self.ending in ("exception", "syntax"):
            return f"{self.exception}({self.message!r})" if self.message else self.exception
        return f"{self.ending} ({self.detail})" if self.detail else self.ending


@dataclass(frozen=True)
class Verdict:
    """An outcome and the run behind it."""

    outcome: Outcome
    run: Run


class Pending(Protocol):
    """A candidate being judged.

    A pending may also offer ``done() -> bool`` (has it ended? never blocks)
    and ``ready_fds() -> list[int] | None`` (descriptors that become readable
    when it may have ended): then a parallel executor refills a slot as soon
    as any test ends, not only the one it needs next.
    """

    def wait(self) -> Verdict: ...

    def cancel(self) -> None:
        """Stop the test at once; its result is no longer wanted."""
        ...


class Oracle(Protocol):
    """Anything that can judge a candidate text."""

    @property
    def identity(self) -> str:
        """A string that changes whenever the oracle would judge differently (for caches)."""
        ...

    def judge(self, text: str) -> Verdict: ...

    def start(self, text: str) -> Pending: ...


class Finished:
    """A :class:`Pending` whose verdict is already known."""

    def __init__(self, verdict: Verdict) -> None:
        self.verdict = verdict

    def wait(self) -> Verdict:
        return self.verdict

    def done(self) -> bool:
        return True

    def ready_fds(self) -> list[int]:
        return []

    def cancel(self) -> None:
        pass


@dataclass(frozen=True)
class Target:
    """The exception a candidate must raise to be FAIL, and how it is matched."""

    exception: str
    message: str | None = None
    match: str = "message"
    """'type', 'message', or 'regex:PATTERN' (searched in the message)."""
    frame: str | None = None
    """When set, the innermost frame's function name must be this."""

    @classmethod
    def parse(cls, spec: str, match: str = "message") -> Target:
        """Read ``EXC`` or ``EXC:MESSAGE`` as given to ``--expect``."""
        name, sep, message = spec.partition(":")
        name = name.strip()
        if not re.fullmatch(r"[A-Za-z_][\w.]*", name):
            raise UsageError(f"--expect needs an exception name like AssertionError[:message], not {spec!r}")
        if match == "message" and not sep:
            match = "type"
        return cls(name, message if sep else None, match)

    @classmethod
    def from_run(cls, run: Run, match: str = "message", same_frame: bool = False) -> Target:
        return cls(run.exception, run.message, match, run.frame if same_frame else None)

    def matches(self, run: Run) -> bool:
        # a candidate that does not compile raises SyntaxError too: it is the
        # target when the target is a syntax error (reducing a parser's failure)
        ending_ok = run.ending == "exception" or (run.ending == "syntax" and self.is_syntax_error)
        if not ending_ok or not _same_type(run.exception, self.exception):
            return False
        if self.frame is not None and run.frame != self.frame:
            return False
        if self.match == "type":
            return True
        if self.match.startswith("regex:"):
            return re.search(self.match[len("regex:") :], run.message) is not None
        return run.message == (self.message or "")

    @property
    def is_syntax_error(self) -> bool:
        return self.exception.rsplit(".", 1)[-1] in ("SyntaxError", "IndentationError", "TabError")

    def describe(self) -> str:
        if self.match == "type" or self.message is None:
            return self.exception
        if self.match.startswith("regex:"):
            return f"{self.exception} matching /{self.match[len('regex:'):]}/"
        return f"{self.exception}({self.message!r})"


def _same_type(seen: str, wanted: str) -> bool:
    """``wanted`` may be qualified (``json.JSONDecodeError``) or bare (``JSONDecodeError``)."""
    return seen == wanted or seen.rsplit(".", 1)[-1] == wanted.rsplit(".", 1)[-1] and "." not in wanted



def read_append(path: str | None) -> str:
    """The text of an ``--append`` script, or ''."""
    if not path:
        return ""
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise UsageError(f"cannot read --append file {path}: {error.strerror}") from error
