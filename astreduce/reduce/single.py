"""One reduction, from an input text and an oracle to a verified, smallest output.

:func:`reduce_source` is the Python API behind ``astreduce reduce``: it
checks that the original reproduces (pysource-minimize's lesson: check that
the failure survives before reducing), runs a strategy, re-runs the final
result outside the cache to verify it, and optionally formats it with black
when the formatted version still reproduces. :func:`reduce_file` adds
reading and writing files in their own encoding, BOM and line endings.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
import time
import tokenize
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from astreduce.search.cache import OutcomeStore, default_cache_dir
from astreduce.errors import NotReproducibleError, ReductionStopped, UsageError
from astreduce.measure import Size, ast_nodes, measure
from astreduce.oracles import Oracle, Run, Target, Verdict
from astreduce.interpreters import resolve_python, version_of
from astreduce.oracles.execution import ExecOracle
from astreduce.oracles.command import CommandOracle
from astreduce.oracles.options import OracleOptions, RetryingOracle, build_oracle
from astreduce.outcome import Outcome
from astreduce.search.session import Interrupted, PassStats, ProgressEvent, Session
from astreduce.search.strategies import STRATEGIES, Plan, run_strategy
from astreduce.transforms import Transform, load_transforms
from astreduce.transforms.constants import ValueFromTrace
from astreduce.source.tree import ForeignParser, Tree, parse


@dataclass
class Result:
    """What a reduction produced, with the figures of its report."""

    text: str
    original: str
    strategy: str
    tests: int
    cache_hits: int
    seconds: float
    oracle_seconds: float
    verified: bool
    passes: list[PassStats]
    history: list[tuple[int, int]]
    input_size: Size
    output_size: Size
    formatted: bool = False
    interrupted: bool = False
    notes: list[str] = field(default_factory=list)
    resumed: int = 0
    """Outcomes answered by the persistent cache (``--resume``) instead of a test."""
    speculative: int = 0
    """Candidates started ahead (``-j``) and cancelled because an earlier one decided."""
    syntax_rejections: int = 0
    """Token-pass candidates answered UNRESOLVED without a test because they do not parse."""

    @property
    def input_ast_nodes(self) -> int | None:
        return ast_nodes(self.original)

    @property
    def output_ast_nodes(self) -> int | None:
        return ast_nodes(self.text)


#: PEP 263's coding declaration, as the tokenizer looks for it on the first two lines.
_COOKIE = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


def _cookie_line(lines: list[str]) -> str | None:
    """The line of ``lines`` (the first two of a file) that declares its encoding, if any."""
    for number, line in enumerate(lines[:2]):
        if _COOKIE.match(line):
            return line
        if number == 0 and line.strip() and not line.lstrip().startswith("#"):
            return None  # code on line 1: a cookie on line 2 does not count
    return None


class StopRequest:
    """Stops a running reduction at its next safe point: between two tests.

    A signal handler that raises ``KeyboardInterrupt`` stops the reducer
    wherever it happens to be — in the middle of an oracle's bookkeeping
    (reaping a child, removing its folder), which then fails on the way out.
    Handing the request to the session instead lets the current test end;
    the session raises ``Interrupted`` before the next one, and the result so
    far is verified and returned as usual (``ReductionStopped``).
    """

    def __init__(self) -> None:
        self._session: Session | None = None
        self.requested = False

    @property
    def searching(self) -> bool:
        """True while the search runs (a stop request can still be honoured)."""
        return self._session is not None

    def attach(self, session: Session | None) -> None:
        """Route stop requests to ``session``, for a reduction that runs several
        sessions in turn (a tree, file by file); ``None`` while no search runs."""
        self._session = session
        if session is not None and self.requested:
            session.stop_requested = True

    def request(self) -> bool:
        """Ask the running search to stop.

        Returns:
            False when no search is running, or a stop was already asked for:
            then the caller should interrupt at once (``KeyboardInterrupt``).
        """
        if self._session is None or self.requested:
            return False
        self.requested = True
        self._session.stop_requested = True
        return True


@dataclass
class Source:
    """A text file as read: the text plus what is needed to write it back the same way."""

    text: str
    encoding: str = "utf-8"
    bom: bool = False
    cookie: str | None = None
    """The original's coding declaration line (with its line ending), if it had one."""

    def encode(self, text: str) -> bytes:
        """``text`` in the original's encoding, BOM included.

        A candidate is run as text, so a reduction may drop the coding
        declaration (it is only a comment) while non-ASCII characters remain;
        written in a non-UTF-8 encoding without it, the file would no longer
        run. The original's declaration is put back in that case.
        """
        data = text.encode(self.encoding, errors="surrogateescape")
        if self.cookie is not None and not data.isascii() and _cookie_line(text.splitlines(keepends=True)) is None:
            data = _with_cookie(text, self.cookie).encode(self.encoding, errors="surrogateescape")
        return (b"\xef\xbb\xbf" + data) if self.bom else data


def _with_cookie(text: str, cookie: str) -> str:
    """``text`` with the declaration line ``cookie`` first (after a ``#!`` line, if any)."""
    if not cookie.endswith(("\n", "\r")):
        cookie += _newline_of(text)
    if text.startswith("#!"):
        first, newline, rest = text.partition("\n")
        if newline:
            return first + newline + cookie + rest
        return text + _newline_of(cookie) + cookie
    return cookie + text


def _newline_of(text: str, default: str = "\n") -> str:
    """The line ending of the first line of ``text``, or ``default`` when it has none."""
    match = re.search(r"\r\n|\n|\r", text)
    return match.group() if match else default


def read_source(path: str | Path) -> Source:
    """Read a file keeping its encoding (PEP 263 cookie, BOM) and its line endings.

    Raises:
        UsageError: the file is missing, unreadable, or not text.
    """
    try:
        data = Path(path).read_bytes()
    except IsADirectoryError:
        raise UsageError(f"{path}: is a directory, not a file") from None
    except OSError as error:
        raise UsageError(f"{path}: cannot read: {error.strerror}") from None
    try:
        encoding, _ = tokenize.detect_encoding(iter(data.splitlines(keepends=True)).__next__)
    except SyntaxError as error:
        head = data[3:1024] if data.startswith(b"\xef\xbb\xbf") else data[:1024]
        if _cookie_line(head.decode("latin-1").splitlines(keepends=True)[:2]) is not None:
            # an unknown codec, or a declaration that contradicts the BOM
            raise UsageError(f"{path}: bad coding declaration: {error.msg}") from None
        encoding = "utf-8"  # the first lines are not UTF-8: the decoding below says where
    bom = encoding == "utf-8-sig"
    if bom:
        data = data[3:]
        encoding = "utf-8"
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise UsageError(
            f"{path}:{line}: not {encoding} text (byte 0x{data[error.start]:02x}): "
            "a binary file, or a missing coding declaration?"
        ) from None
    except LookupError:
        raise UsageError(f"{path}: unknown encoding {encoding}") from None
    return Source(text, encoding, bom, _cookie_line(text.splitlines(keepends=True)[:2]))


def default_output(path: str | Path) -> Path:
    """Where a reduction of ``path`` goes by default: ``NAME.reduced.py`` next to it."""
    path = Path(path)
    return path.with_name(f"{path.stem}.reduced{path.suffix or '.py'}")


def check_output_path(target: Path, source: Path | None = None, what: str = "output") -> None:
    """Raise UsageError, before any work is done, when ``target`` cannot be written.

    Args:
        target: the file to be written.
        source: the input file; ``target`` must not be it.
        what: how the error message names ``target``.
    """
    folder = target.parent
    if not folder.is_dir():
        raise UsageError(f"{target}: the {what}'s folder {folder} does not exist")
    if target.is_dir():
        raise UsageError(f"{target}: the {what} is a directory")
    if source is not None and target.resolve() == source.resolve():
        raise UsageError(f"{target}: the output would overwrite the input; use --in-place for that")


def check_match(match: str) -> None:
    """Raise UsageError unless ``match`` is ``type``, ``message`` or ``regex:PATTERN`` with a valid pattern."""
    if match in ("type", "message"):
        return
    if not match.startswith("regex:"):
        raise UsageError(f"--match must be type, message or regex:PATTERN, not {match!r}")
    try:
        re.compile(match[len("regex:") :])
    except re.error as error:
        raise UsageError(f"--match {match!r}: not a valid regular expression: {error}") from None


def write_atomically(path: str | Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so that no reader ever sees a partial file."""
    target = Path(path)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)  # no fsync: it protects against power loss, not a killed
            # process, and costs more than a test on a busy disk for every improvement
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def syntax_interpreter(python: str | None) -> str | None:
    """The interpreter whose ``ast`` must parse candidates, when it is not this one.

    Code for a newer Python (3.12's ``type`` statements, 3.13's syntax) does
    not parse here; the target interpreter parses it for us. Interpreters
    older than 3.10 lack what the tree model needs, and their syntax parses
    here anyway.
    """
    if not python:
        return None
    path = resolve_python(python)
    if path == sys.executable:
        return None
    version = version_of(path)
    if version < (3, 10) or version == sys.version_info[:2]:
        return None
    return path


def _parse_foreign(parser: ForeignParser, text: str) -> Tree | None:
    try:
        return parser.parse(text)
    except (SyntaxError, ValueError):
        return None


def check_parses(text: str, filename: str, parser: ForeignParser | None = None) -> None:
    """Raise UsageError naming line and column when ``text`` is not a valid module."""
    if "\0" in text:  # Python's own message has no position (3.11) or a misleading one
        before = text[: text.index("\0")]
        line, column = before.count("\n") + 1, len(before) - (before.rfind("\n") + 1) + 1
        raise UsageError(
            f"{filename}:{line}:{column}: contains a null byte, so it is not Python source (a binary file?); "
            "use --strategy lines, chars or tokens for input that is not valid Python"
        )
    try:
        if parser is not None:
            parser.parse(text, filename)
        else:
            parse(text, filename)
    except SyntaxError as error:
        where = f"{error.lineno}:{error.offset}" if error.lineno else "?"
        raise UsageError(
            f"{filename}:{where}: does not parse: {error.msg} "
            "(use --strategy lines, chars or tokens for input that is not valid Python)"
        ) from None
    except (ValueError, RecursionError, MemoryError) as error:
        reason = "nested too deeply" if isinstance(error, RecursionError) else str(error)
        raise UsageError(
            f"{filename}: cannot parse: {reason} (use --strategy lines, chars or tokens)"
        ) from None


def make_exec_oracle(
    text: str,
    *,
    expect: str | None = None,
    match: str = "message",
    same_frame: bool = False,
    timeout: float | None = None,
    filename: str = "candidate.py",
    append: str = "",
    search_path: str = "",
) -> tuple[ExecOracle, Run]:
    """An exec oracle calibrated on the original ``text``.

    Raises:
        NotReproducibleError: the original does not raise the expected
            exception (or, without ``expect``, any exception).
    """
    check_match(match)
    if expect is not None and not expect.strip():
        raise UsageError("--expect needs an exception name like AssertionError[:message], not an empty string")
    target = Target.parse(expect, match) if expect is not None else None
    oracle = ExecOracle(target=target, filename=filename, append=append, search_path=search_path)
    run = oracle.calibrate(text, match=match, same_frame=same_frame, timeout=timeout)
    if oracle.target is None:
        raise NotReproducibleError(
            f"input does not reproduce: it raises no exception to reduce for ({run.describe()}); "
            "name the target with --expect or use a command oracle"
        )
    if oracle.classify(run) is not Outcome.FAIL:
        raise NotReproducibleError(
            f"input does not reproduce: expected {oracle.target.describe()}, got {run.describe()}"
        )
    return oracle, run


def reduce_source(
    text: str,
    oracle: Oracle | None = None,
    *,
    expect: str | None = None,
    match: str = "message",
    same_frame: bool = False,
    strategy: str = "auto",
    transforms: list[str] | None = None,
    timeout: float | None = None,
    filename: str = "candidate.py",
    append: str = "",
    format: bool = False,
    on_improve: Callable[[str], None] | None = None,
    on_progress: Callable[[ProgressEvent], None] | None = None,
    search_path: str = "",
    options: OracleOptions | None = None,
    jobs: int = 1,
    python: str | None = None,
    encode: Callable[[str], bytes] | None = None,
    resume: bool = False,
    cache_dir: str | Path | None = None,
    stop: StopRequest | None = None,
    exhaustive: bool = False,
) -> Result:
    """Reduce ``text`` to a smallest program the oracle still judges FAIL.

    Without ``oracle``, one is built from ``options`` (see
    :class:`~astreduce.oracles.options.OracleOptions`), or else an exec
    oracle from ``expect`` (``EXC`` or ``EXC:MESSAGE``; without it the
    original's own exception becomes the target), ``match``, ``same_frame``,
    ``append``, ``timeout`` and ``python``. ``jobs`` candidates run at once,
    speculatively; the result is the same for every ``jobs``. With
    ``resume``, outcomes persist in ``cache_dir`` (default
    ``~/.cache/astreduce``), so a rerun continues where an interrupted one stopped.

    ``stop`` (a :class:`StopRequest`) lets a signal handler stop the search
    between two tests. ``exhaustive`` retries, in every round, each single
    edit that failed before (see :func:`~astreduce.search.strategies.apply_greedily`).

    Raises:
        UsageError: unknown strategy or transform; input that the strategy cannot parse.
        NotReproducibleError: the original does not FAIL.
        ReductionStopped: interrupted (Ctrl-C, ``stop``); ``.result`` holds the best so far, verified.
    """
    started = time.monotonic()
    if strategy not in STRATEGIES:
        raise UsageError(f"unknown strategy {strategy!r}; choose from {', '.join(STRATEGIES)}")
    if options is None:
        options = OracleOptions(
            expect=expect, match=match, same_frame=same_frame, append=append, timeout=timeout, python=python
        )
    check_match(options.match)
    if options.expect is not None and not options.expect.strip():
        raise UsageError("--expect needs an exception name like AssertionError[:message], not an empty string")
    if jobs < 1:
        raise UsageError("-j must be at least 1")
    plan = Plan(load_transforms(transforms), extras=transforms is None)
    python_path = syntax_interpreter(options.python)
    parser = ForeignParser(python_path) if python_path is not None else None
    if parser is not None:
        plan.parse = lambda candidate: _parse_foreign(parser, candidate)
        plan.foreign_parser = True
    if strategy in ("auto", "hdd", "flat"):
        check_parses(text, filename, parser)
    calibrating = time.monotonic()
    if oracle is None:
        oracle = build_oracle(options, text, filename=filename, search_path=search_path, encode=encode, jobs=jobs)
    else:
        first = oracle.judge(text)
        if first.outcome is not Outcome.FAIL:
            raise NotReproducibleError(f"input does not reproduce: the oracle says {first.outcome} ({first.run.describe()})")
    calibrating = time.monotonic() - calibrating  # the original's runs: waiting for the oracle too
    configure_tracing(plan.transforms, oracle, foreign_parser=plan.foreign_parser)
    judge: Callable[[str], Verdict] = oracle.judge
    start = getattr(oracle, "start", None)
    saved: list[str] = []

    def improve(candidate: str) -> None:
        # mid-pass the session saves shorter FAILing candidates without making them
        # its best (that waits for the end of the pass); an interruption must keep them
        saved[:] = [candidate]
        if on_improve is not None:
            on_improve(candidate)

    store = None
    if resume:
        store = OutcomeStore(cache_dir or default_cache_dir(), f"{oracle.identity}|{filename}|{search_path}")
    session = Session(
        text, judge, on_improve=improve, on_progress=on_progress, start=start, jobs=jobs, store=store,
        retry_stale=exhaustive, compiles=syntax_check_of(oracle), oracle_seconds=calibrating,
    )
    if on_improve is not None:
        on_improve(text)  # from now on the output exists and reproduces, whatever happens
    # rendering recurses along the tree: deep expressions need more than the default limit
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))
    interrupted = False
    if stop is not None:
        stop._session = session
    try:
        try:
            run_strategy(strategy, session, plan)
        except (KeyboardInterrupt, Interrupted):
            interrupted = True
        finally:
            session.close()  # candidates started ahead must not outlive the search
            if stop is not None:
                stop._session = None
                interrupted = interrupted or stop.requested
        latest = saved[0] if interrupted and saved else None
        result = _finish(session, oracle, strategy, started, format=format and not interrupted, latest=latest)
    finally:
        for resource in (oracle, parser, store):
            close = getattr(resource, "close", None)
            if close is not None:
                close()
    if interrupted:
        result.interrupted = True
        raise ReductionStopped("interrupted", result)
    return result


def syntax_check_of(oracle: object) -> Callable[[str], bool] | None:
    """The exec oracle's compile, to check candidates that must parse; None for other oracles.

    Not under another interpreter (its worker compiles with its own), and
    not when the target is a syntax error: ``compile`` rejects more than the
    parser does (``return`` outside a function), and such a candidate may be
    just what a search for a compiler's error wants.
    """
    while isinstance(oracle, RetryingOracle):
        oracle = oracle.inner
    if type(oracle) is not ExecOracle or oracle.target is None or oracle.target.is_syntax_error:
        return None
    return oracle.compiles


def configure_tracing(transforms: list[Transform], oracle: object, *, foreign_parser: bool = False) -> None:
    """Let ``value-from-trace`` run the program as the oracle does, or switch it off.

    An exec oracle runs the candidate as Python with its appended test: the
    trace does the same (so does any oracle with a str ``append``, the
    script it runs after the candidate, and maybe ``search_path`` and
    ``python``). A command oracle (``--run``, ``--test``, ``--differential``)
    or a tree of files may run something that is not this file as a
    program (a formatter's input, a fuzzer's crash), so the transform
    proposes nothing there (``oracle=None`` says so). Another oracle passed
    through the API keeps the default: the program traced alone. The
    trace's child numbers nodes with the ``ast`` of the interpreter it runs
    under, which must read the program as ours does: not when another
    interpreter parses it (``--python`` with syntax this one lacks) or is
    older than 3.8.
    """
    while isinstance(oracle, RetryingOracle):
        oracle = oracle.inner
    append = getattr(oracle, "append", None)
    for transform in transforms:
        if not isinstance(transform, ValueFromTrace):
            continue
        if oracle is None or isinstance(oracle, CommandOracle):
            transform.configure(enabled=False)
        elif isinstance(append, str):
            python = getattr(oracle, "python", None) or sys.executable
            usable = not foreign_parser and version_of(python) >= (3, 8)
            search_path = getattr(oracle, "search_path", "")
            transform.configure(append=append, search_path=search_path, python=python, enabled=usable)


def _finish(
    session: Session, oracle: Oracle, strategy: str, started: float, format: bool, latest: str | None = None
) -> Result:
    """Verify the best candidate (``latest``, the last one saved, when it is smaller), format it, measure it."""
    best = session.best
    if latest is not None and latest != best and measure(latest).key < session.best_size.key:
        best = latest

    def reproduces(text: str) -> bool:
        waited = time.monotonic()
        try:
            return oracle.judge(text).outcome is Outcome.FAIL
        finally:
            session.oracle_seconds += time.monotonic() - waited

    verified = reproduces(best)
    notes: list[str] = []
    formatted = False
    if format and verified:
        pretty = format_with_black(best, newline=_newline_of(session.text))
        if pretty is not None and pretty != best:
            if reproduces(pretty):
                best, formatted = pretty, True
            else:
                notes.append("black's formatting of the result no longer reproduces; kept it unformatted")
    if not verified:
        notes.append("the final result did not reproduce when run again: the oracle may be flaky")
    return Result(
        text=best,
        original=session.text,
        strategy=strategy,
        tests=session.tests,
        cache_hits=session.cache_hits,
        seconds=time.monotonic() - started,
        oracle_seconds=session.oracle_seconds,
        verified=verified,
        passes=session.passes,
        history=session.history,
        input_size=session.original_size,
        output_size=measure(best),
        formatted=formatted,
        notes=notes,
        resumed=session.store.hits if session.store is not None else 0,
        speculative=session.speculative,
        syntax_rejections=session.syntax_rejections,
    )


def format_with_black(text: str, newline: str | None = None) -> str | None:
    """``text`` formatted by black, or ``None`` when black cannot format it.

    Lines end as the first line of ``text`` ends; when ``text`` has no line
    ending at all (a reduction often drops the last one), with ``newline``
    (pass the original's, so that a CRLF file stays CRLF).
    """
    try:
        import black
    except ImportError:  # black is a dependency, but a stripped install may lack it
        return None
    newline = _newline_of(text, newline or "\n")
    if newline == "\r":  # black knows \n and \r\n only
        return None
    try:
        pretty = black.format_str(text.replace("\r\n", "\n"), mode=black.Mode())
    except Exception:  # black raises many kinds of errors on odd input; formatting is optional
        return None
    return pretty.replace("\n", newline) if newline != "\n" else pretty


def reduce_file(
    path: str | Path,
    output: str | Path | None = None,
    **options: object,
) -> Result:
    """Reduce the file at ``path``; write the result to ``output`` (default ``NAME.reduced.py``).

    The output is written in the input's encoding, BOM and line endings, and
    updated atomically whenever a smaller reproducing candidate is found.
    ``options`` are those of :func:`reduce_source`.
    """
    source = read_source(path)
    path = Path(path)
    target = Path(output) if output is not None else default_output(path)
    check_output_path(target, path)

    def save(text: str) -> None:
        write_atomically(target, source.encode(text))

    options.setdefault("filename", path.name)
    options.setdefault("search_path", str(path.resolve().parent))
    try:
        result = reduce_source(source.text, on_improve=save, **options)  # type: ignore[arg-type]  # options are reduce_source's keywords
    except ReductionStopped as stopped:
        save(stopped.result.text)
        raise
    save(result.text)
    return result
