"""Oracles: decide FAIL / PASS / UNRESOLVED for a candidate, a text or a tree of files.

* :mod:`~astreduce.oracles.execution` — the exec oracle: the candidate runs
  as ``__main__`` in a forked child and its exception is matched;
* :mod:`~astreduce.oracles.worker` — the same under another interpreter,
  through a worker process started once;
* :mod:`~astreduce.oracles.command` — a command (``--run``), an
  interestingness script (``--test``), two commands compared (``--differential``);
* :mod:`~astreduce.oracles.tree` — a tree of files judged in a fresh copy of
  it, and the adapters between texts and trees;
* :mod:`~astreduce.run.trace` — value recording: one traced run of a
  program, for the ``value-from-trace`` transform;
* :mod:`~astreduce.oracles.options` — from the user's options to a calibrated
  oracle, every option checked once;
* :mod:`~astreduce.run.sandbox` — what every test runs inside.

Every oracle follows one contract, :class:`Oracle`, generic over its
candidate: a text (``str``) or a tree of files (``FileTree``, relative path
to text). It runs the original once with :meth:`Oracle.calibrate`, judges
one candidate with :meth:`Oracle.judge`, or starts it with
:meth:`Oracle.start` and collects the verdict later, so that a parallel
executor can keep several candidates running and cancel stale ones, and
releases what it holds with :meth:`Oracle.close`. An oracle turns
everything a candidate does into an outcome; it raises only for
astreduce's own errors.
"""

from __future__ import annotations

import re
import sys
import types
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from astreduce.errors import UsageError
from astreduce.outcome import Outcome

if TYPE_CHECKING:
    from astreduce.run.trace import Tracer

from astreduce.run import Run, raised


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


class Converted:
    """A test whose verdict is its inner test's result, turned by ``convert`` when it ends (a wrapper's
    judgement, an echo, a slice's criterion); it offers ``done`` and ``ready_fds`` when its inner does."""

    def __init__(self, inner: Any, convert: Callable[[Any], Verdict]) -> None:
        self.inner = inner
        self.convert = convert
        self.done = getattr(inner, "done", None)
        self.ready_fds = getattr(inner, "ready_fds", None)

    def wait(self) -> Verdict:
        return self.convert(self.inner.wait())

    def cancel(self) -> None:
        self.inner.cancel()


class Prepared(str):
    """A candidate text made ready for its test once, by the oracle that will run it: a value that travels
    from the search's check to the oracle's :meth:`~Oracle.start` (it is the text, as a ``str``).

    ``code`` is the text compiled whole (None: the test compiles what it needs); ``alike`` the key of the
    candidates that run alike (:class:`~astreduce.oracles.alike.CodeKey`: one byte code), None when not
    asked for; ``seconds`` the time its compiles took, the oracle's work, which its test is spared.
    """

    code: types.CodeType | None
    alike: bytes | None
    seconds: float

    def __new__(cls, text: str, code: types.CodeType | None = None, alike: bytes | None = None, seconds: float = 0.0) -> Prepared:
        prepared = super().__new__(cls, text)
        prepared.code, prepared.alike, prepared.seconds = code, alike, seconds
        return prepared


#: The candidate an oracle judges: a text, or a tree of files.
C = TypeVar("C", contravariant=True)


@dataclass(frozen=True)
class Traits:
    """What an oracle can do, said by the oracle itself: what a job asks, never the oracle's class or kind.

    Wrappers (``--retries``, ``--verbose``, a cluster's copy, a batch's
    signature) pass their inner oracle's traits on, less :attr:`one_file`
    (their tests must go through them).
    """

    python: str | None = None
    """The interpreter that runs the candidate as a Python program; ``None`` when the candidate is not run
    as one (a command's input file, a predicate's argument)."""
    unparsable: bool = False
    """Whether a text Python rejects may be interesting: a command's tool may crash on it, so the text passes
    try edits that do not parse."""
    tracer: Tracer | None = None
    """Records a run's values as the oracle runs a candidate (``value-from-trace``); ``None``: it cannot."""
    prepares: bool = False
    """Whether the oracle has :meth:`~Oracle.prepare`: a check that costs no test and that every interesting
    candidate passes (the exec oracle's compile, and the key of candidates alike by byte code, which share a
    verdict); a candidate it rejects is UNRESOLVED untested."""
    starts: bool = True
    """Whether :meth:`Oracle.start` returns before the verdict, so that ``-j`` runs tests at once."""
    target: str = ""
    """What makes a candidate interesting, in words (the run's first line, the report); '' when not said."""
    exception: str = ""
    """The exception type a candidate must raise to be interesting, as its run names it; '' when the oracle judges
    something else (a command's signature, a script's verdict): a job may answer a candidate sure to raise
    another one without a test."""
    one_file: tuple[str, Oracle[str]] | None = None
    """For a tree of one file judged by that file's text: the file's name and the oracle of its text."""
    raised_at: tuple[str, int] | None = None
    """Where the original's failure happened, as :attr:`Run.raised_at` says it (None: not in the program, or not
    known): the same-place check (:mod:`astreduce.oracles.place`) starts from it."""

    def passed_on(self, **changes: Any) -> Traits:
        """These traits, some changed (a wrapper's own)."""
        return Traits(**{**self.__dict__, **changes})


class Oracle(Protocol[C]):
    """Anything that can judge a candidate: ``Oracle[str]`` for texts, ``Oracle[FileTree]`` for trees."""

    @property
    def traits(self) -> Traits:
        """What the oracle can do (see :class:`Traits`)."""
        ...

    @property
    def identity(self) -> str:
        """A string that changes whenever the oracle would judge differently (for caches)."""
        ...

    def calibrate(self, candidate: C) -> Verdict:
        """Run the original: set what the oracle learns from it (target, timeout) and return its verdict."""
        ...

    def judge(self, candidate: C) -> Verdict: ...

    def start(self, candidate: C) -> Pending:
        """Start the test of ``candidate`` (a text may come :class:`Prepared` by this oracle) and return at once."""
        ...

    def close(self) -> None:
        """Release what the oracle holds (a waiting child, a worker); a no-op where there is nothing."""
        ...


class Preparing(Protocol):
    """What an oracle whose :attr:`Traits.prepares` is true also offers (a text's oracle)."""

    def prepare(self, text: str, whole: bool, alike: bool) -> Prepared | None:
        """``text`` made ready for its test, or None when it cannot be interesting (it does not compile): compiled
        whole if ``whole`` (the search wants only candidates that compile), keyed if ``alike``."""
        ...


#: A wrapper's candidate type.
W = TypeVar("W")


class Wrapper(ABC, Generic[W]):
    """An oracle whose tests go through another's (``--retries``, ``--verbose``, a cluster's copy).

    It has the inner oracle's identity, calibration and close, and its
    traits less :attr:`Traits.one_file` (its tests must go through the
    wrapper); a wrapper writes :meth:`start` and what it changes.
    """

    def __init__(self, inner: Oracle[W]) -> None:
        self.inner = inner

    @property
    def identity(self) -> str:
        return self.inner.identity

    @property
    def traits(self) -> Traits:
        return self.inner.traits.passed_on(one_file=None)  # its tests go through this wrapper

    def calibrate(self, candidate: W) -> Verdict:
        return self.inner.calibrate(candidate)

    def judge(self, candidate: W) -> Verdict:
        return self.start(candidate).wait()

    def prepare(self, text: str, whole: bool, alike: bool) -> Prepared | None:
        """The inner oracle's (see :class:`Preparing`): its tests go through this wrapper as they are."""
        prepare: Callable[[str, bool, bool], Prepared | None] = getattr(self.inner, "prepare")  # its traits say it has one
        return prepare(text, whole, alike)

    @abstractmethod
    def start(self, candidate: W) -> Pending: ...

    def close(self) -> None:
        self.inner.close()


class Plugged:
    """An oracle handed to the public API, seen through the full :class:`Oracle` contract.

    Before this contract, an API oracle needed only ``identity`` and
    ``judge`` (``start`` and ``close`` were optional, and no caller
    calibrated it): this adapter keeps such oracles working. It is the one
    place that asks an object which of the contract's methods it has.
    """

    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.starts = callable(getattr(inner, "start", None))
        """Whether the oracle can start a test without waiting (``-j`` needs it)."""

    @property
    def traits(self) -> Traits:
        """An API oracle's traits: its own, or what the API's contract lets it say by its attributes.

        One with a str ``append`` runs the candidate as Python followed by
        that script (with its ``search_path`` and ``python``), and is traced
        as it runs; any other is traced alone (only what runs on the
        program's import).
        """
        own = getattr(self.inner, "traits", None)
        if isinstance(own, Traits):
            return own.passed_on(starts=own.starts and self.starts)
        from astreduce.run.trace import Tracer, tracer_under

        append = getattr(self.inner, "append", None)
        if not isinstance(append, str):
            return Traits(tracer=Tracer(), starts=self.starts)
        python = getattr(self.inner, "python", None) or sys.executable
        tracer = tracer_under(python, append=append, search_path=getattr(self.inner, "search_path", ""))
        return Traits(python=python, starts=self.starts, tracer=tracer)

    @property
    def identity(self) -> str:
        identity: str = self.inner.identity  # type: ignore[attr-defined]  # the API's oracles have one
        return identity

    def calibrate(self, candidate: Any) -> Verdict:
        return self.judge(candidate)

    def judge(self, candidate: Any) -> Verdict:
        verdict: Verdict = self.inner.judge(candidate)  # type: ignore[attr-defined]  # the API's oracles judge
        return verdict

    def start(self, candidate: Any) -> Pending:
        if self.starts:
            pending: Pending = self.inner.start(candidate)  # type: ignore[attr-defined]  # checked in __init__
            return pending
        return Finished(self.judge(candidate))

    def close(self) -> None:
        close = getattr(self.inner, "close", None)
        if callable(close):
            close()


def plugged(oracle: object) -> Oracle[Any]:
    """``oracle`` itself when it follows the full contract, else wrapped in :class:`Plugged` (a text's oracle
    or a tree's)."""
    methods = all(callable(getattr(oracle, name, None)) for name in ("judge", "start", "close"))
    if methods and isinstance(getattr(oracle, "traits", None), Traits):
        return oracle  # type: ignore[return-value]  # it has the contract's methods
    return Plugged(oracle)


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
    """'type', 'message', 'first-line' (of the message), or 'regex:PATTERN' (searched in the message)."""

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
    def from_run(cls, run: Run, match: str = "message") -> Target:
        return cls(run.exception, run.message, match)

    def matches(self, run: Run) -> bool:
        # a candidate that does not compile raises SyntaxError too: it is the
        # target when the target is a syntax error (reducing a parser's failure)
        ending_ok = run.ending == "exception" or (run.ending == "syntax" and self.is_syntax_error)
        if not ending_ok or not _same_type(run.exception, self.exception):
            return False
        if self.match == "type":
            return True
        if self.match == "first-line":
            return run.message.split("\n", 1)[0] == (self.message or "").split("\n", 1)[0]
        if self.match.startswith("regex:"):
            return re.search(self.match[len("regex:") :], run.message) is not None
        wanted = self.message or ""
        # a KeyError's message is the repr of its key: --expect KeyError:missing means KeyError('missing') too
        return run.message == wanted or (run.exception.rsplit(".", 1)[-1] == "KeyError" and run.message == repr(wanted))

    @property
    def is_syntax_error(self) -> bool:
        return self.exception.rsplit(".", 1)[-1] in ("SyntaxError", "IndentationError", "TabError")

    def describe(self) -> str:
        if self.match == "type" or self.message is None:
            return self.exception
        if self.match.startswith("regex:"):
            return f"{self.exception} matching /{self.match[len('regex:'):]}/"
        return raised(self.exception, self.message)


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
