"""A failing pytest test, reduced: ``astreduce pytest NODEID``.

The failure is a test: "my test fails; give me the smallest test and module
that still fail the same way". The oracle is pytest itself: every candidate
runs as ``python -m pytest NODEID`` in a fresh copy of the project (the
sandbox of the command oracle: its own folder, process group, limits and
timeout), with the reduced files written over their originals. A small
probe plugin, written next to the copy, reports how each test ended on a
marked line of standard output; a candidate is FAIL when the same node
fails in the same phase with the same exception type and message (only
addresses and temporary paths made neutral: an assertion's numbers are
the failure, as pytest's rewritten message shows them).

A real pytest run per candidate is the faithful choice: fixtures,
conftest files, assertion rewriting, plugins and the project's own
configuration all take part, as they do when the user runs the test. It
costs a pytest start (a few hundred milliseconds) per test, which the
first step makes up for: every other test of the file goes at once.

The files reduced are the test's file and the modules named with
``--reduce``; everything else in the project stays as it is. They are
reduced one after another, the others fixed, until a round changes none.
"""

from __future__ import annotations

import ast
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from astreduce.errors import NotReproducibleError, ReductionStopped, UsageError
from astreduce.files import read_source, write_atomically
from astreduce.interpreters import resolve_python
from astreduce.measure import Size, measure
from astreduce.oracles import Pending, Run, Verdict
from astreduce.oracles.command import Process, ProcessesPending, Signature
from astreduce.oracles.execution import ExecOracle, ExecPending
from astreduce.oracles.sandbox import MIN_TIMEOUT, Limits, make_workdir, remove_workdir
from astreduce.oracles.signature import neutral
from astreduce.oracles.tree import FileInTree
from astreduce.outcome import Outcome
from astreduce.reduce.single import ReduceConfig, StopRequest, reduce_with
from astreduce.search.session import ProgressEvent

#: The probe plugin's module name, and the mark of its report line.
PROBE = "_astreduce_pytest_probe"
REPORT_MARK = "@@astreduce-pytest@@"

#: The probe: records every test's failure (phase, exception type, message) and prints them last.
_PROBE_SOURCE = f'''
import json, os
_FAILURES = []


def pytest_runtest_makereport(item, call):
    if call.excinfo is not None and call.when in ("setup", "call", "teardown"):
        kind = call.excinfo.type
        _FAILURES.append({{
            "nodeid": item.nodeid, "when": call.when,
            "type": kind.__module__ + "." + kind.__qualname__ if kind.__module__ != "builtins" else kind.__qualname__,
            "message": str(call.excinfo.value),
        }})


def pytest_collectreport(report):
    if report.failed:
        _FAILURES.append({{"nodeid": report.nodeid, "when": "collect", "type": "", "message": ""}})


def pytest_unconfigure(config):
    os.write(1, ("\\n{REPORT_MARK}" + json.dumps(_FAILURES) + "\\n").encode())
'''

#: Folders never copied into a test's copy of the project.
SKIPPED = frozenset({".git", ".hg", ".svn", ".venv", "venv", "__pycache__", ".pytest_cache", ".mypy_cache", ".tox", ".nox", "node_modules"})

#: Most rounds over the files: each round reduces every file once.
MAX_ROUNDS = 4


@dataclass(frozen=True)
class Failure:
    """How a node failed: the phase, the exception's type and its neutral message."""

    nodeid: str
    when: str
    exception: str
    message: str

    def describe(self) -> str:
        first = self.message.splitlines()[0] if self.message else ""
        return f"{self.nodeid} ({self.when}): {self.exception}: {first}" if first else f"{self.nodeid} ({self.when}): {self.exception}"


def split_nodeid(nodeid: str) -> tuple[str, str]:
    """``path/test_x.py::Class::test[p]`` → (``path/test_x.py``, ``Class::test[p]``)."""
    path, sep, rest = nodeid.partition("::")
    if not sep or not rest or not path.endswith(".py"):
        raise UsageError(f"{nodeid!r} is not a test's node id (FILE.py::TEST, as pytest prints it)")
    return Path(path).as_posix(), rest


def _report_of(signature: Signature) -> list[dict[str, str]] | None:
    """The probe's records, from the marked line of a pytest process's standard output."""
    for line in reversed(signature.stdout.splitlines()):
        if line.startswith(REPORT_MARK):
            try:
                failures = json.loads(line[len(REPORT_MARK):])
            except ValueError:
                return None
            return failures if isinstance(failures, list) else None
    return None


#: The candidate the exec oracle runs for a tree (see :class:`PytestOracle`): it fills its folder with
#: the project and the reduced files, runs pytest, and ends with an exception that carries the probe's records.
_DRIVER = """
import json, os, shutil, sys
shutil.copytree({template!r}, os.getcwd(), symlinks=True, dirs_exist_ok=True)
for path, text in {files!r}.items():
    if os.path.lexists(path):
        os.unlink(path)
    with open(path, "w", encoding="utf-8") as file:
        file.write(text)
import pytest
status = pytest.main({args!r})
class PytestReport(Exception):
    pass
raise PytestReport(json.dumps({{"exit": int(status), "failures": sys.modules[{probe!r}]._FAILURES}}))
"""


def _ignore(outdir: Path | None) -> Callable[[str, list[str]], set[str]]:
    def ignore(folder: str, names: list[str]) -> set[str]:
        skipped = {n for n in names if n in SKIPPED or n.endswith(".egg-info")}
        if outdir is not None:
            skipped |= {n for n in names if Path(folder, n).resolve() == outdir}
        return skipped

    return ignore


def preload_pytest() -> None:
    """Import pytest and its plugins here, so that every forked test finds them loaded.

    Importing is most of a pytest start (the hypothesis plugin alone takes
    most of a second): a child forked after it only collects and runs.
    """
    import importlib.metadata

    import pytest  # noqa: F401  # imported for the children

    for entry in importlib.metadata.entry_points(group="pytest11"):
        try:
            entry.load()
        except Exception:  # noqa: BLE001, S110  # a broken plugin breaks the real run too; pytest reports it there
            pass


class PytestOracle:
    """Judges a tree of the reduced files (relative path → text) by running the node under pytest.

    Under this interpreter each test is a child forked from astreduce (the
    exec oracle's forked child, its sandbox and its timeouts) with pytest and
    its plugins already imported: it copies the project into its folder,
    writes the reduced files, and runs ``pytest.main`` there, the folder
    first on ``sys.path`` as ``python -m pytest`` puts it. Under another
    interpreter (``--python``) each test is a ``python -m pytest`` process in
    the command oracle's sandbox. Both load the same probe plugin.

    Args:
        root: the project's folder (pytest runs in a copy of it).
        nodeid: the node, relative to ``root``.
        python: the interpreter that runs pytest.
        timeout: seconds per test; ``None``: ten times the original's run, at least :data:`MIN_TIMEOUT`.
        outdir: a folder inside ``root`` that is not copied (the output).
    """

    def __init__(self, root: Path, nodeid: str, python: str, timeout: float | None = None, outdir: Path | None = None) -> None:
        self.root = root
        self.nodeid = nodeid
        self.python = python
        self.timeout = timeout
        self.limits = Limits()
        self.target: Failure | None = None
        self.tests = 0
        self.args = ["-p", PROBE, "-p", "no:cacheprovider", "-q", "--color=no", nodeid]
        self.template = Path(tempfile.mkdtemp(prefix="astreduce-project-"))
        shutil.copytree(root, self.template / "p", symlinks=True, ignore=_ignore(outdir.resolve() if outdir else None))
        (self.template / "p" / f"{PROBE}.py").write_text(_PROBE_SOURCE, encoding="utf-8")
        self.forked: ExecOracle | None = None
        if python == sys.executable:
            preload_pytest()
            self.forked = ExecOracle(filename="_astreduce_pytest_driver.py", timeout=timeout)

    @property
    def identity(self) -> str:
        return f"pytest|{self.root}|{self.nodeid}|{self.python}|{self.target}"

    def start(self, tree: Mapping[str, str]) -> Pending:
        timeout = self.timeout if self.timeout is not None else 600.0
        if self.forked is not None:
            self.forked.timeout = timeout
            driver = _DRIVER.format(template=str(self.template / "p"), files=dict(tree), args=self.args, probe=PROBE)
            return _ForkedPending(self, self.forked.start(driver))
        workdir = make_workdir()
        shutil.copytree(self.template / "p", workdir, symlinks=True, dirs_exist_ok=True)
        for path, text in tree.items():
            target = Path(workdir, path)
            target.unlink(missing_ok=True)
            target.write_text(text, encoding="utf-8")
        argv = [self.python, "-m", "pytest", *self.args]
        return _ProcessPending(self, [Process(argv, workdir, timeout, self.limits.for_timeout(timeout), None, False)])

    def judge(self, tree: Mapping[str, str]) -> Verdict:
        return self.start(tree).wait()

    def classify(self, failures: list[dict[str, str]] | None, exit_code: int | None, run: Run) -> Verdict:
        """FAIL when the target node failed as the original did; PASS when pytest passed; else UNRESOLVED."""
        self.tests += 1
        if failures is None:
            return Verdict(Outcome.UNRESOLVED, run)
        seen = [_failure(f) for f in failures]
        mine = [f for f in seen if self.target is None or f.nodeid == self.target.nodeid]
        if mine:
            run = Run("exception", mine[0].exception, mine[0].message, detail=mine[0].describe(), seconds=run.seconds)
        if self.target is None and mine and mine[0].when != "collect":
            self.target = mine[0]  # calibration: the original's first failure is the target
        if self.target is not None and self.target in seen:
            return Verdict(Outcome.FAIL, run)
        if exit_code == 0 and not seen:
            return Verdict(Outcome.PASS, Run("ok", seconds=run.seconds))
        return Verdict(Outcome.UNRESOLVED, run)

    def calibrate(self, tree: Mapping[str, str]) -> Verdict:
        """Run the original: its failure becomes the target; the timeout follows its run.

        Raises:
            NotReproducibleError: the node does not fail (or does not run).
        """
        saved, self.target = self.timeout, None
        verdict = self.judge(tree)
        self.timeout = saved if saved is not None else max(MIN_TIMEOUT, 10 * verdict.run.seconds)
        if verdict.outcome is Outcome.PASS:
            raise NotReproducibleError(f"{self.nodeid} does not fail: it passes under pytest")
        if verdict.outcome is not Outcome.FAIL:
            raise NotReproducibleError(f"pytest did not run {self.nodeid}: {verdict.run.detail or verdict.run.describe()}")
        return verdict

    def close(self) -> None:
        if self.forked is not None:
            self.forked.close()
        remove_workdir(str(self.template))


def _failure(record: dict[str, str]) -> Failure:
    return Failure(record.get("nodeid", ""), record.get("when", ""), record.get("type", ""), neutral(record.get("message", ""), numbers=False))


class _ProcessPending(ProcessesPending):
    """A ``python -m pytest`` process; its probe's records come on standard output."""

    def __init__(self, oracle: PytestOracle, processes: list[Process]) -> None:
        super().__init__(processes)
        self.oracle = oracle

    def done(self) -> bool:
        return self.processes[0].done()

    def ready_fds(self) -> list[int] | None:
        fd = self.processes[0].ready_fd()
        return None if fd is None else [fd]

    def wait(self) -> Verdict:
        signature = self.processes[0].wait()
        failures = None if signature.timed_out else _report_of(signature)
        return self.oracle.classify(failures, signature.exit_code, signature.to_run())


class _ForkedPending:
    """A forked child running pytest; its probe's records come in the message of its last exception."""

    def __init__(self, oracle: PytestOracle, inner: ExecPending) -> None:
        self.oracle = oracle
        self.inner = inner

    def done(self) -> bool:
        return self.inner.done()

    def ready_fds(self) -> list[int] | None:
        return self.inner.ready_fds()

    def cancel(self) -> None:
        self.inner.cancel()

    def wait(self) -> Verdict:
        run = self.inner.wait().run
        report: Any = None
        if run.ending == "exception" and run.exception == "PytestReport":
            try:
                report = json.loads(run.message)
            except ValueError:
                report = None
        if not isinstance(report, dict):
            return self.oracle.classify(None, None, run)
        return self.oracle.classify(report.get("failures"), report.get("exit"), Run("ok", seconds=run.seconds))


def without_other_tests(text: str, test: str) -> str | None:
    """The test file with every other test function and class removed (``test`` is the node's path in the file).

    ``None`` when nothing else is there, or the file does not parse here.
    """
    try:
        module = ast.parse(text)
    except SyntaxError:
        return None
    names = test.split("[", 1)[0].split("::")
    lines = text.splitlines(keepends=True)
    dropped: list[tuple[int, int]] = []

    def other_tests(body: list[ast.stmt], path: list[str]) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                is_test = node.name.startswith("test") if not isinstance(node, ast.ClassDef) else node.name.startswith("Test")
                if not is_test:
                    continue
                if path and node.name == path[0]:
                    if isinstance(node, ast.ClassDef) and len(path) > 1:
                        other_tests(node.body, path[1:])
                    continue
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                dropped.append((first - 1, node.end_lineno or node.lineno))

    other_tests(module.body, names)
    if not dropped:
        return None
    keep = [True] * len(lines)
    for start, end in dropped:
        for index in range(start, end):
            keep[index] = False
    return "".join(line for line, kept in zip(lines, keep) if kept)


@dataclass
class FileOutcome:
    """One reduced file's figures."""

    path: str
    input_size: Size
    output_size: Size


@dataclass
class PytestResult:
    """The reduced files, and the figures of the whole reduction."""

    nodeid: str
    failure: str
    files: dict[str, str]
    originals: dict[str, str]
    tests: int = 0
    seconds: float = 0.0
    verified: bool = False
    interrupted: bool = False
    first_step: bool = False
    """Whether removing every other test at once reproduced."""
    notes: list[str] = field(default_factory=list)

    @property
    def input_tokens(self) -> int:
        return sum(measure(t).tokens for t in self.originals.values())

    @property
    def output_tokens(self) -> int:
        return sum(measure(t).tokens for t in self.files.values())

    def report(self) -> dict[str, Any]:
        return {
            "nodeid": self.nodeid,
            "failure": self.failure,
            "files": [
                {"path": p, "tokens": [measure(self.originals[p]).tokens, measure(t).tokens], "bytes": [len(self.originals[p].encode()), len(t.encode())]}
                for p, t in self.files.items()
            ],
            "tokens": [self.input_tokens, self.output_tokens],
            "tests": self.tests,
            "seconds": round(self.seconds, 3),
            "verified": self.verified,
            "interrupted": self.interrupted,
            "other_tests_removed_at_once": self.first_step,
            "notes": self.notes,
        }


def read_files(root: Path, nodeid: str, modules: list[str]) -> tuple[str, dict[str, str]]:
    """The node id relative to ``root``, and the files to reduce (the test's file first), as texts.

    Raises:
        UsageError: a file outside ``root``, missing, or unreadable.
    """
    test_file, _ = split_nodeid(nodeid)
    paths: list[str] = []
    for given in [test_file, *modules]:
        path = Path(given) if Path(given).is_absolute() else (Path.cwd() / given)
        path = path.resolve()
        if root not in path.parents:
            raise UsageError(f"{given}: not inside the project folder {root}")
        if not path.is_file():
            raise UsageError(f"{given}: cannot read: No such file")
        relative = path.relative_to(root).as_posix()
        if relative not in paths:
            paths.append(relative)
    files = {p: read_source(root / p).text for p in paths}
    return "::".join([paths[0], nodeid.partition("::")[2]]), files


def reduce_pytest_node(
    root: Path,
    nodeid: str,
    files: Mapping[str, str],
    config: ReduceConfig,
    *,
    outdir: Path | None = None,
    on_improve: Callable[[dict[str, str]], None] | None = None,
    on_progress: Callable[[ProgressEvent], None] | None = None,
    stop: StopRequest | None = None,
) -> PytestResult:
    """Reduce ``files`` (relative to ``root``; the node's file first) while ``nodeid`` fails the same way.

    Raises:
        NotReproducibleError: the node does not fail under pytest, or not reliably.
        ReductionStopped: interrupted; ``.result`` holds the best so far (a :class:`PytestResult`), verified.
    """
    started = time.monotonic()
    python = resolve_python(config.options.python)
    oracle = PytestOracle(root, nodeid, python, config.options.timeout, outdir)
    best = dict(files)
    result = PytestResult(nodeid, "", dict(files), dict(files))
    try:
        first = oracle.calibrate(best)
        assert oracle.target is not None
        result.failure = oracle.target.describe()
        again = [oracle.start(best) for _ in range(2)]
        if any(p.wait().outcome is not Outcome.FAIL for p in again):
            raise NotReproducibleError(f"{nodeid} does not fail the same way every time ({first.run.detail})")
        test_file = next(iter(files))
        alone = without_other_tests(best[test_file], nodeid.partition("::")[2])
        if alone is not None and oracle.judge({**best, test_file: alone}).outcome is Outcome.FAIL:
            best[test_file] = alone
            result.first_step = True
            if on_improve is not None:
                on_improve(dict(best))
        result.interrupted = _reduce_rounds(best, oracle, config, on_improve, on_progress, stop)
        result.files = best
        result.verified = oracle.judge(best).outcome is Outcome.FAIL
        if not result.verified:
            result.notes.append("the final result did not reproduce when run again: the test may be flaky")
    finally:
        result.tests = oracle.tests
        result.seconds = time.monotonic() - started
        oracle.close()
    if result.interrupted:
        raise ReductionStopped("interrupted", result)
    return result


def _reduce_rounds(
    best: dict[str, str],
    oracle: PytestOracle,
    config: ReduceConfig,
    on_improve: Callable[[dict[str, str]], None] | None,
    on_progress: Callable[[ProgressEvent], None] | None,
    stop: StopRequest | None,
) -> bool:
    """Reduce each file in turn, the others fixed, until a round changes none; True when interrupted."""
    for _ in range(MAX_ROUNDS):
        changed = False
        for path in list(best):
            adapter = FileInTree(oracle, best, path)
            base = dict(best)

            def improve(text: str, path: str = path, base: dict[str, str] = base) -> None:
                if on_improve is not None:
                    on_improve({**base, path: text})

            local = ReduceConfig(
                options=config.options, strategy=config.strategy, transforms=config.transforms, jobs=config.jobs,
                format=config.format, filename=Path(path).name, search_path=str(oracle.root / Path(path).parent),
            )
            progress = None if on_progress is None else _naming(on_progress, path)
            try:
                reduced = reduce_with(best[path], local, adapter, on_improve=improve, on_progress=progress, stop=stop)
            except ReductionStopped as stopped:
                best[path] = stopped.result.text
                return True
            if reduced.text != best[path]:
                best[path] = reduced.text
                changed = True
                if on_improve is not None:  # the verified, formatted text
                    on_improve(dict(best))
        if not changed:
            return False
    return False


def _naming(on_progress: Callable[[ProgressEvent], None], path: str) -> Callable[[ProgressEvent], None]:
    """``on_progress`` with each pass named after the file it reduces."""
    def report(event: ProgressEvent) -> None:
        on_progress(replace(event, pass_name=f"{path}: {event.pass_name}"))

    return report


def write_files(outdir: Path, files: Mapping[str, str]) -> None:
    """The reduced files at their paths under ``outdir`` (folders made as needed)."""
    for path, text in files.items():
        target = outdir / path
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(target, text.encode("utf-8"))

