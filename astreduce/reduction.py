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
import tempfile
import time
import tokenize
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from astreduce.errors import NotReproducibleError, ReductionStopped, UsageError
from astreduce.measure import Size, ast_nodes, measure
from astreduce.oracles import Oracle, Run, Target, Verdict
from astreduce.oracles.execution import ExecOracle
from astreduce.outcome import Outcome
from astreduce.session import Interrupted, PassStats, ProgressEvent, Session
from astreduce.strategies import STRATEGIES, Plan, run_strategy
from astreduce.transforms import load_transforms
from astreduce.tree import parse


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

    @property
    def input_ast_nodes(self) -> int | None:
        return ast_nodes(self.original)

    @property
    def output_ast_nodes(self) -> int | None:
        return ast_nodes(self.text)


@dataclass
class Source:
    """A text file as read: the text plus what is needed to write it back the same way."""

    text: str
    encoding: str = "utf-8"
    bom: bool = False

    def encode(self, text: str) -> bytes:
        data = text.encode(self.encoding, errors="surrogateescape")
        return (b"\xef\xbb\xbf" + data) if self.bom else data


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
    encoding = "utf-8"
    try:
        encoding, _ = tokenize.detect_encoding(iter(data.splitlines(keepends=True)).__next__)
    except (SyntaxError, StopIteration):
        pass
    bom = encoding == "utf-8-sig"
    if bom:
        data = data[3:]
        encoding = "utf-8"
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        raise UsageError(f"{path}: not text in {encoding} (a binary file?)") from None
    return Source(text, encoding, bom)


def write_atomically(path: str | Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so that no reader ever sees a partial file."""
    target = Path(path)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def check_parses(text: str, filename: str) -> None:
    """Raise UsageError naming line and column when ``text`` is not a valid module."""
    try:
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
    target = Target.parse(expect, match) if expect else None
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
) -> Result:
    """Reduce ``text`` to a smallest program the oracle still judges FAIL.

    Without ``oracle``, an exec oracle is built: ``expect`` names the target
    exception (``EXC`` or ``EXC:MESSAGE``), else the original's own exception
    becomes the target.

    Raises:
        UsageError: unknown strategy or transform; input that the strategy cannot parse.
        NotReproducibleError: the original does not FAIL.
        ReductionStopped: interrupted (Ctrl-C); ``.result`` holds the best so far, verified.
    """
    started = time.monotonic()
    if strategy not in STRATEGIES:
        raise UsageError(f"unknown strategy {strategy!r}; choose from {', '.join(STRATEGIES)}")
    if strategy in ("auto", "hdd", "flat"):
        check_parses(text, filename)
    plan = Plan(load_transforms(transforms), extras=transforms is None)
    if oracle is None:
        oracle, _ = make_exec_oracle(
            text, expect=expect, match=match, same_frame=same_frame, timeout=timeout,
            filename=filename, append=append, search_path=search_path,
        )
    else:
        first = oracle.judge(text)
        if first.outcome is not Outcome.FAIL:
            raise NotReproducibleError(f"input does not reproduce: the oracle says {first.outcome} ({first.run.describe()})")
    judge: Callable[[str], Verdict] = oracle.judge
    session = Session(text, judge, on_improve=on_improve, on_progress=on_progress)
    interrupted = False
    try:
        run_strategy(strategy, session, plan)
    except (KeyboardInterrupt, Interrupted):
        interrupted = True
    result = _finish(session, oracle, strategy, started, format=format and not interrupted)
    if interrupted:
        result.interrupted = True
        raise ReductionStopped("interrupted", result)
    return result


def _finish(session: Session, oracle: Oracle, strategy: str, started: float, format: bool) -> Result:
    best = session.best
    verified = oracle.judge(best).outcome is Outcome.FAIL
    notes: list[str] = []
    formatted = False
    if format and verified:
        pretty = format_with_black(best)
        if pretty is not None and pretty != best:
            if oracle.judge(pretty).outcome is Outcome.FAIL:
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
    )


def format_with_black(text: str) -> str | None:
    """``text`` formatted by black, or ``None`` when black cannot format it."""
    try:
        import black
    except ImportError:  # black is a dependency, but a stripped install may lack it
        return None
    newline = "\r\n" if "\r\n" in text.split("\n", 1)[0] + "\n" else "\n"
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
    target = Path(output) if output is not None else path.with_name(f"{path.stem}.reduced{path.suffix or '.py'}")
    if target.resolve() == path.resolve():
        raise UsageError(f"{target}: the output would overwrite the input")

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
