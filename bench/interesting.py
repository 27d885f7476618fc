#!/usr/bin/env python3
"""A standalone interestingness checker for the bench's exec-oracle cases.

Standard library only, so that any tool's interestingness script can call it
with any Python::

    python bench/interesting.py --expect 'AssertionError:My Test' \
        [--append check.py] [--python PY] [--timeout 10] CANDIDATE

Exit status 0 means *interesting*: running the candidate (with the ``--append``
file's text appended, if given) as a script under ``--python`` (default: the
interpreter running this checker) ends in an uncaught exception whose final
traceback line is exactly ``EXC: MESSAGE`` (``EXC`` alone when the message is
empty).  Anything else -- no exception, another exception, a syntax error, a
crash, a timeout -- exits 1.  Bad usage exits 2.

This is the peers' side of astreduce's exec oracle (docs/oracles.md, "Exception
matching"), written independently of astreduce so that the bench does not
grade astreduce with its own code.  It matches like that oracle:

* ``--match message`` (default): type and message, exactly;
* ``--match type``: the type only;
* ``--match regex:PATTERN``: the type, and PATTERN searched in the message;
* ``--frame NAME``: also the innermost frame's function name.

The type is compared by its own name, as the exec oracle compares
``type(exc).__name__``: a traceback's ``json.decoder.JSONDecodeError`` (or, on
Python 3.10, ``__main__.JSONDecodeError`` for a class defined in the script)
matches ``JSONDecodeError``.

Every run happens in a fresh temporary directory, so a candidate cannot litter
the tool's working directory, with stdin closed and its own process group,
which is killed whole on timeout.  ``--describe`` prints what the candidate
did instead of judging it (exit 0 when it raised an exception), which is how
the bench learns a case's target when its args have no ``--expect``.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import re
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass

INTERESTING = 0
NOT_INTERESTING = 1
USAGE = 2

# "  File "/tmp/x/input.py", line 3, in check" -- the frame lines of a traceback.
_FRAME_LINE = re.compile(r'^  File ".*", line \d+, in (?P<name>.+)$')
_EXCEPTION_LINE = re.compile(r"^(?P<type>[A-Za-z_][\w.]*)(?:: (?P<message>.*))?$", re.DOTALL)


@dataclass(frozen=True)
class Ending:
    """How one run of a candidate ended."""

    kind: str  # "exception", "ok", "timeout", "crash"
    exception: str = ""
    message: str = ""
    frame: str = ""
    detail: str = ""

    def describe(self) -> str:
        if self.kind == "exception":
            text = f"{self.exception}: {self.message}" if self.message else self.exception
            return f"{text} (in {self.frame})" if self.frame else text
        return f"{self.kind}: {self.detail}" if self.detail else self.kind


def parse_traceback(stderr: str) -> tuple[str, str, str] | None:
    """The exception type, message and innermost frame of the traceback closing ``stderr``.

    The exception text is everything after the last frame's source line, so a
    multi-line message stays whole.  Returns None when stderr does not end in a
    traceback.
    """
    lines = stderr.rstrip("\n").split("\n")
    start = None
    for index in range(len(lines) - 1, -1, -1):
        if lines[index].startswith("Traceback (most recent call last):"):
            start = index
            break
    if start is None:
        return None
    frame = ""
    body_start = start + 1
    index = start + 1
    while index < len(lines):
        match = _FRAME_LINE.match(lines[index])
        if match:
            frame = match.group("name")
            index += 1
            # The source line, and from 3.11 on the ^^^ marker lines, are indented.
            while index < len(lines) and lines[index].startswith("    "):
                index += 1
            body_start = index
            continue
        if lines[index].startswith("  ") or lines[index].strip() == "":
            index += 1
            body_start = index
            continue
        break
    text = "\n".join(lines[body_start:])
    found = _EXCEPTION_LINE.match(text)
    if not found:
        return None
    # The type's own name, as the exec oracle compares type(exc).__name__:
    # tracebacks qualify classes from other modules ("json.decoder.X") and,
    # on Python 3.10, classes defined in the script ("__main__.X").
    exception = found.group("type").rpartition(".")[2]
    return exception, found.group("message") or "", frame


def run_candidate(program: str, python: str, timeout: float, filename: str) -> Ending:
    """Run ``program`` as a script in a fresh temporary directory; say how it ended."""
    with tempfile.TemporaryDirectory(prefix="bench-interesting-") as tmp:
        path = os.path.join(tmp, filename)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(program)
        env = dict(os.environ)
        env.pop("PYTHONSTARTUP", None)
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env["PYTHONIOENCODING"] = "utf-8"
        env["PYTHONUTF8"] = "1"
        try:
            child = subprocess.Popen(
                [python, path],
                cwd=tmp,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                start_new_session=True,
                preexec_fn=_die_with_parent,
            )
        except OSError as error:
            return Ending("crash", detail=f"cannot start {python}: {error.strerror}")
        try:
            _, err = child.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(child.pid)
            child.communicate()
            return Ending("timeout", detail=f"ran over {timeout:g} s")
        finally:
            _kill_group(child.pid)  # grandchildren left behind
    stderr = err.decode("utf-8", errors="replace")
    if child.returncode < 0:
        name = _signal_name(-child.returncode)
        return Ending("crash", detail=f"killed by {name}")
    parsed = parse_traceback(stderr) if child.returncode == 1 else None
    if parsed is None:
        last = stderr.strip().splitlines()[-1] if stderr.strip() else ""
        detail = f"exit status {child.returncode}" + (f", stderr ends {last!r}" if last else "")
        return Ending("ok" if child.returncode == 0 else "crash", detail=detail)
    exception, message, frame = parsed
    return Ending("exception", exception, message, frame)


def _die_with_parent() -> None:
    """In the candidate, before exec: SIGKILL when this checker dies.

    A reducer that kills the checker on its own timeout would otherwise leave
    a looping candidate running, in a session of its own, for ever.
    """
    try:
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def is_match(ending: Ending, exception: str, message: str, match: str, frame: str | None) -> bool:
    """Whether ``ending`` is the target exception, as astreduce's exec oracle matches it."""
    if ending.kind != "exception" or ending.exception != exception:
        return False
    if frame is not None and ending.frame != frame:
        return False
    if match == "type":
        return True
    if match.startswith("regex:"):
        return re.search(match[len("regex:") :], ending.message) is not None
    return ending.message == message


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="interesting.py",
        description="Exit 0 iff the candidate raises exactly the expected exception.",
    )
    parser.add_argument("candidate", help="the candidate program")
    parser.add_argument("--expect", metavar="EXC[:MESSAGE]", help="the target exception")
    parser.add_argument(
        "--match",
        default="message",
        help="type, message (type and message; default) or regex:PATTERN (searched in the message)",
    )
    parser.add_argument("--frame", metavar="NAME", help="also require this innermost function name")
    parser.add_argument("--append", metavar="FILE", help="a test script appended to the candidate")
    parser.add_argument(
        "--python", default=sys.executable, help="interpreter (default: %(default)s)"
    )
    parser.add_argument(
        "--timeout", type=float, default=10.0, help="seconds (default: %(default)s)"
    )
    parser.add_argument(
        "--describe", action="store_true", help="print how the candidate ends instead of judging it"
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="say how the candidate ended")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.match not in ("type", "message") and not args.match.startswith("regex:"):
        parser.error(f"--match must be type, message or regex:PATTERN, not {args.match!r}")
    if args.expect is None and not args.describe:
        parser.error("--expect is required (or --describe)")
    try:
        with open(args.candidate, encoding="utf-8", errors="surrogateescape") as handle:
            program = handle.read()
        appended = None
        if args.append:
            with open(args.append, encoding="utf-8") as handle:
                appended = handle.read()
    except OSError as error:
        print(f"interesting.py: cannot read {error.filename}: {error.strerror}", file=sys.stderr)
        return USAGE
    if appended is not None:
        if program and not program.endswith("\n"):
            program += "\n"
        program += appended
    try:
        program.encode("utf-8")
    except UnicodeEncodeError:
        return NOT_INTERESTING  # not UTF-8 text: some tool cut a character in half
    filename = os.path.basename(args.candidate) or "candidate.py"
    ending = run_candidate(program, args.python, args.timeout, filename)
    if args.describe:
        print(ending.describe())
        return INTERESTING if ending.kind == "exception" else NOT_INTERESTING
    exception, _, message = args.expect.partition(":")
    verdict = is_match(ending, exception, message, args.match, args.frame)
    if args.verbose:
        print(
            f"{'interesting' if verdict else 'not interesting'}: {ending.describe()}",
            file=sys.stderr,
        )
    return INTERESTING if verdict else NOT_INTERESTING


if __name__ == "__main__":
    sys.exit(main())
