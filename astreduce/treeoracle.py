"""The oracle of a multi-file reduction: a candidate tree, judged in a fresh copy of it.

:class:`TreeOracle` is ``astreduce isolate``'s directory oracle — the same
``--entry`` runner (the entry file runs as ``__main__`` with the copy's folder
first on ``sys.path``, its exception matched as the exec oracle matches it)
and the same command handling (``--run`` with ``{dir}``, ``{file}`` and
``{python}``, ``--test`` with the copy's folder as its argument,
``--differential``) — with two differences that reducing needs:

* the copy keeps each file's mode, so a script in the tree that ``--run``
  starts (``./build.sh``) stays executable;
* calibration (shared with isolate) speaks of the *input*, not of
  isolate's NEW version, and runs the original three times to catch a
  flaky oracle, as the single-file reducer does.

Two adapters let the single-file machinery (:class:`~astreduce.session.Session`:
cache, ``-j`` speculation, stop requests) drive tree candidates:
:class:`FileInTree` judges one file's text with the rest of the tree fixed,
and :func:`encode_tree` / :class:`EncodedTree` turn a whole tree into one
text and back, for passes over whole files.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from astreduce.errors import NotReproducibleError, UsageError
from astreduce.isolate import DirectoryOracle, _TreePending, materialise
from astreduce.oracles import Finished, Pending, Run, Verdict
from astreduce.oracles.command import Process
from astreduce.oracles.options import FLAKINESS_RUNS
from astreduce.oracles.sandbox import make_workdir, remove_workdir
from astreduce.outcome import Outcome


@dataclass
class TreeOracle(DirectoryOracle):
    """Judges a tree (relative path → text) in a fresh sandbox folder holding a copy of it.

    Args:
        options: the oracle options; ``--append``, ``--stdin`` and ``--retries`` do not apply.
        entry: the file to run (exec oracle), relative to the tree; ``{file}`` in ``--run``.
        modes: file modes to give the copies (others get the default).
    """

    modes: Mapping[str, int] = field(default_factory=dict)
    subject: ClassVar[str] = "input"
    job: ClassVar[str] = "reduce"

    def _entry_named(self) -> str:
        return str(self.entry)

    def start(self, tree: Mapping[str, str]) -> Pending:
        timeout = self.command.wait_limit if self.command is not None else self.timeout
        limits = self.limits.for_timeout(timeout)
        commands = self.command.commands if self.command is not None else [""]
        processes = []
        for command in commands:
            workdir = make_workdir()
            materialise(tree, workdir)
            for path, mode in self.modes.items():
                if path in tree and mode & 0o111:
                    os.chmod(Path(workdir) / path, mode & 0o7777)
            argv, shell = self.argv(command, workdir)
            missing = None if shell else _not_runnable(argv[0], workdir)
            if missing is None:
                try:
                    processes.append(Process(argv, workdir, timeout, limits, None, shell))
                except OSError as error:  # what the check above cannot foresee (a bad #! line)
                    missing = f"cannot run {argv[0]}: {error.strerror}"
            if missing is not None:
                for process in processes:
                    process.kill()
                remove_workdir(workdir)
                return Finished(Verdict(Outcome.UNRESOLVED, Run("crash", detail=missing)))
        return _TreePending(self, processes)

    def calibrate(self, tree: Mapping[str, str]) -> Verdict:
        """Run the original tree: set the target (exec) or the signature (command) and the timeout.

        Raises:
            UsageError: the entry file is not in the tree.
            NotReproducibleError: the original does not reproduce, or not reliably.
        """
        if self.entry is not None and self.entry not in tree:
            raise UsageError(f"--entry {self.entry}: no such file in the input")
        verdict = self._calibrate_command(tree) if self.command is not None else self._calibrate_entry(tree)
        verdicts = [verdict] + [self.judge(tree) for _ in range(FLAKINESS_RUNS - 1)]
        if any(v.outcome is not Outcome.FAIL for v in verdicts):
            seen = "; ".join(f"{v.outcome} ({v.run.describe()})" for v in verdicts)
            raise NotReproducibleError(
                f"input does not reproduce reliably: {FLAKINESS_RUNS} runs of the original gave {seen}"
            )
        return verdict


def _not_runnable(program: str, workdir: str) -> str | None:
    """Why ``program`` cannot start in ``workdir``, or ``None``.

    A candidate tree may lack the very script that the command runs
    (``--run ./build.sh``): that is the candidate's failure (UNRESOLVED), not
    astreduce's, so it is found before ``Popen`` raises in our own process.
    """
    if os.sep in program:
        path = os.path.join(workdir, program)
        if not os.path.isfile(path):
            return f"cannot run {program}: no such file"
        if not os.access(path, os.X_OK):
            return f"cannot run {program}: not executable"
        return None
    if shutil.which(program) is None:
        return f"cannot run {program}: not found on PATH"
    return None


class FileInTree:
    """An :class:`~astreduce.oracles.Oracle` over one file's text, the rest of the tree fixed."""

    def __init__(self, oracle: TreeOracle, tree: Mapping[str, str], path: str) -> None:
        self.oracle = oracle
        self.tree = dict(tree)
        self.path = path

    @property
    def identity(self) -> str:
        return f"{self.oracle.identity}|{self.path}"

    def with_text(self, text: str) -> dict[str, str]:
        return {**self.tree, self.path: text}

    def judge(self, text: str) -> Verdict:
        return self.oracle.judge(self.with_text(text))

    def start(self, text: str) -> Pending:
        return self.oracle.start(self.with_text(text))


def encode_tree(tree: Mapping[str, str]) -> str:
    """One text for a whole tree, the same for equal trees (the session's cache key)."""
    return json.dumps(dict(sorted(tree.items())))


def decode_tree(text: str) -> dict[str, str]:
    tree: dict[str, str] = json.loads(text)
    return tree


class EncodedTree:
    """An :class:`~astreduce.oracles.Oracle` over encoded trees (see :func:`encode_tree`)."""

    def __init__(self, oracle: TreeOracle) -> None:
        self.oracle = oracle

    @property
    def identity(self) -> str:
        return self.oracle.identity

    def judge(self, text: str) -> Verdict:
        return self.oracle.judge(decode_tree(text))

    def start(self, text: str) -> Pending:
        return self.oracle.start(decode_tree(text))
