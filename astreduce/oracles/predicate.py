"""The predicate oracle: a Python function of the candidate's text decides.

``reduce_source(text, interesting=f)`` judges a candidate by ``f(text)``,
as pysource-minimize's ``minimize(source, checker)`` does:

* ``f`` returns a true value → FAIL (the candidate is interesting);
* ``f`` returns a false value → PASS;
* ``f`` raises, runs out of time or memory, or kills its process → UNRESOLVED.

Where it runs: never in astreduce's own process. Every call runs in a child
forked for that test, inside the sandbox (:mod:`astreduce.run.sandbox`):
its own empty folder as working directory, its own process group (killed,
with everything the predicate started, when the test ends or runs out of
time), limits on CPU time, memory, file size and processes, standard input
empty and standard output and error captured in the folder. So a predicate
that crashes the interpreter (a segfault, ``os._exit``), hangs, leaks
memory, changes global state (``sys.path``, a module's variables, the
working directory) or prints cannot hurt the reduction: the child and all
it did end with the test. The flip side: what the predicate changes stays
in the child; a predicate that counts its calls in a global sees 1 every time.
What the sandbox does not stop is said in its docstring (files the user can
write, the network).

The time limit is 10 times the original's call (at least 2 s wall clock and
0.2 s of CPU), or exactly the ``timeout`` given.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from astreduce.oracles import Traits, Verdict
from astreduce.run import Run
from astreduce.run.call import call_in_child
from astreduce.run.sandbox import MIN_CPU_TIMEOUT, MIN_TIMEOUT, Limits
from astreduce.run.spare import Job
from astreduce.outcome import Outcome

#: Time limit while the original is judged, before calibration sets one (``timeout`` unless given).
CALIBRATION_TIMEOUT = 600.0


@dataclass
class PredicateOracle:
    """Judges a candidate by ``predicate(text)``, called in a forked child (see the module docstring).

    Args:
        predicate: a function of the candidate's text; true means interesting.
        timeout: wall-clock seconds per call; ``None`` until :meth:`calibrate` sets it.
        cpu_timeout: CPU seconds per call; ``None`` when ``timeout`` was given (then it is exact).
        limits: the sandbox's resource limits.
    """

    predicate: Callable[[str], object]
    timeout: float | None = None
    cpu_timeout: float | None = None
    limits: Limits = field(default_factory=Limits)
    tests: int = 0
    seconds: float = 0.0

    @property
    def identity(self) -> str:
        """The predicate's qualified name and a digest of its code (the persistent cache's key)."""
        function = self.predicate
        name = f"{getattr(function, '__module__', '?')}.{getattr(function, '__qualname__', type(function).__qualname__)}"
        code = getattr(function, "__code__", None)
        digest = hashlib.blake2b(code.co_code + repr(code.co_consts).encode(), digest_size=8).hexdigest() if code else ""
        return f"predicate|{name}|{digest}"

    @property
    def traits(self) -> Traits:
        """The candidate is a function's argument, not a program run: nothing is traced."""
        return Traits()

    def calibrate(self, text: str, timeout: float | None = None) -> Verdict:
        """Call the predicate on the original once and set the time limits from how long it took."""
        self.timeout = timeout if timeout is not None else CALIBRATION_TIMEOUT
        self.cpu_timeout = None
        verdict = self.judge(text)
        if timeout is None:
            self.timeout = max(MIN_TIMEOUT, 10 * verdict.run.seconds)
            self.cpu_timeout = max(MIN_CPU_TIMEOUT, 10 * verdict.run.seconds)
        return verdict

    def judge(self, text: str) -> Verdict:
        return self.start(text).wait()

    def start(self, text: str) -> PredicatePending:
        """Fork a child that calls the predicate on ``text``; the pending reports how it ended."""
        timeout = self.timeout if self.timeout is not None else CALIBRATION_TIMEOUT
        job = call_in_child(self.predicate, text, self.limits.for_timeout(timeout), timeout, self.cpu_timeout)
        return PredicatePending(self, job)

    def close(self) -> None:
        """Nothing to release: every call's child ends with its test."""


class PredicatePending:
    """A predicate's call running in its child."""

    def __init__(self, oracle: PredicateOracle, job: Job) -> None:
        self.oracle = oracle
        self.job = job
        self.started = time.monotonic()

    def done(self) -> bool:
        return self.job.poll() is not None

    def ready_fds(self) -> list[int] | None:
        return [] if self.done() else [self.job.fd]

    def wait(self) -> Verdict:
        run = self.job.wait()
        self.oracle.tests += 1
        self.oracle.seconds += time.monotonic() - self.started
        return classify(run)

    def cancel(self) -> None:
        self.job.kill()


def classify(run: Run) -> Verdict:
    """FAIL for a true result, PASS for a false one, UNRESOLVED for anything else; said plainly in the run."""
    if run.ending == "ok":
        interesting = run.message == "true"
        said = Run("ok", seconds=run.seconds, detail=f"interesting returned {'true' if interesting else 'false'}")
        return Verdict(Outcome.FAIL if interesting else Outcome.PASS, said)
    return Verdict(Outcome.UNRESOLVED, run)


def outcome_line(run: Run) -> str:
    """What a call did, for messages: ``returned false``, ``raised KeyError('x')``, ``timeout (...)``."""
    if run.ending == "ok":
        return run.detail.removeprefix("interesting ")
    if run.ending == "exception":
        return f"raised {run.describe()}"
    return run.describe()
