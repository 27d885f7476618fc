"""Failure signatures: what makes two crashes "the same failure", and an oracle that keeps to one.

A fuzzing farm's crash files differ in everything but the bug: the numbers
in a message, the address of an object, the temporary folder a test ran in,
the name of the file itself. A *signature* keeps what names the failure and
makes the rest neutral:

* an exception: its type, the innermost frame's function and its message;
* a fatal signal: the signal alone (its standard error is mostly addresses);
* an exit status: the status and the last line of standard error;

each message with numbers, ``0x`` addresses, temporary paths and the input's
own name replaced by placeholders. ``astreduce batch`` puts inputs with
equal signatures in one bucket and reduces a bucket's smallest input with a
:class:`SignatureOracle`, which calls a candidate FAIL only when it fails
with the bucket's signature: the reduction cannot slip to another bucket's
failure (the classic complaint about crash reducers).
"""

from __future__ import annotations

import re
import tempfile
from pathlib import PurePath

from astreduce.oracles import Converted, Oracle, Pending, Traits, Verdict

from astreduce.run import Run
from astreduce.outcome import Outcome

#: Placeholders that replace what differs between two inputs failing the same way.
NUMBER, ADDRESS, TEMP_PATH, INPUT_NAME = "N", "<address>", "<tmp>", "<input>"

_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
_NUMBER = re.compile(r"(?<![A-Za-z\d.])[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
_KILLED = re.compile(r"killed by (SIG\w+|signal \d+)")


def _temp_path_pattern() -> re.Pattern[str]:
    """Paths under the temporary folders: the sandbox's, the system's, and ``/tmp`` itself."""
    roots = sorted({tempfile.gettempdir().rstrip("/"), "/tmp", "/var/tmp", "/dev/shm"}, key=len, reverse=True)
    return re.compile("(?:" + "|".join(re.escape(r) for r in roots) + r")(?:/[^\s'\":,)\]]*)?")


_TEMP_PATH = _temp_path_pattern()


def neutral(text: str, name: str = "", numbers: bool = True) -> str:
    """``text`` with temporary paths, the input's ``name`` (and its stem), addresses and (with ``numbers``) numbers made neutral."""
    text = _TEMP_PATH.sub(TEMP_PATH, text)
    if name:
        stem = PurePath(name).stem
        for word in sorted({name, stem} - {""}, key=len, reverse=True):
            text = re.sub(rf"(?<![\w.]){re.escape(word)}(?![\w])", INPUT_NAME, text)
    text = _ADDRESS.sub(ADDRESS, text)
    return _NUMBER.sub(NUMBER, text) if numbers else text


def signature_of(run: Run, name: str = "") -> str:
    """The signature of how ``run`` ended; ``name`` is the input's file name (made neutral).

    A command's run comes as :meth:`~astreduce.oracles.command.Signature.to_run`
    makes it: a fatal signal as a crash, an exit status as an ``exit N``
    exception with the last line of standard error as its message.
    """
    if run.ending == "timeout":
        return "hang"
    if run.ending == "crash":
        killed = _KILLED.search(run.detail)
        if killed is not None:
            return f"signal {killed.group(1)}"
        return f"crash: {neutral(run.detail, name)}" if run.detail else "crash"
    if run.ending == "ok":
        return f"exit 0: {neutral(run.message, name)}" if run.message else "exit 0"
    if not run.exception:  # two commands compared: what differed is all there is
        return neutral(run.detail, name) or run.ending
    where = f" in {run.frame}" if run.frame else ""
    message = neutral(run.message, name)
    return f"{run.exception}{where}: {message}" if message else f"{run.exception}{where}"


class SignatureOracle:
    """FAIL only when the inner oracle's run fails with ``signature``.

    Args:
        inner: the oracle the options describe, calibrated on the original.
        signature: the bucket's signature (:func:`signature_of`).
        name: the input's file name, as the signature made it neutral.
        strict: the options say what an interesting run is (``--expect``,
            ``--signal``, ``--test``...): the inner oracle must say FAIL
            too. Otherwise the inner oracle matched the original exactly
            (its numbers, its last line), and only the signature counts.
    """

    def __init__(self, inner: Oracle[str], signature: str, name: str, strict: bool) -> None:
        self.inner = inner
        self.signature = signature
        self.name = name
        self.strict = strict

    @property
    def identity(self) -> str:
        return f"signature|{self.signature}|{self.strict}|{self.inner.identity}"

    @property
    def traits(self) -> Traits:
        """The inner oracle's, less its compile check."""
        return self.inner.traits.passed_on(prepares=False)

    def classify(self, verdict: Verdict) -> Verdict:
        """The verdict under the signature: FAIL, PASS for a run that ended well, else UNRESOLVED."""
        run = verdict.run
        if (not self.strict or verdict.outcome is Outcome.FAIL) and signature_of(run, self.name) == self.signature:
            return Verdict(Outcome.FAIL, run)
        if verdict.outcome is Outcome.PASS or (run.ending == "ok" and verdict.outcome is not Outcome.FAIL):
            return Verdict(Outcome.PASS, run)
        return Verdict(Outcome.UNRESOLVED, run)

    def calibrate(self, text: str) -> Verdict:
        return self.classify(self.inner.calibrate(text))

    def judge(self, text: str) -> Verdict:
        return self.classify(self.inner.judge(text))

    def start(self, text: str) -> Pending:
        return Converted(self.inner.start(text), self.classify)

    def close(self) -> None:
        self.inner.close()
