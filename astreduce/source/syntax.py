"""Whether a text is a Python module, and which interpreter's grammar decides it.

A reduction checks its input once before any test (:func:`check_parses`: an
input that does not parse cannot go through the tree strategies), and a
target interpreter newer than this one parses candidates for us
(:func:`syntax_interpreter`, :func:`parse_foreign`). Single-file and
multi-file reductions and ``compare`` share these, so they live with the
tree model rather than with one of its callers.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import warnings

from astreduce.errors import UsageError
from astreduce.interpreters import resolve_python, version_of
from astreduce.source.foreign import ForeignParser
from astreduce.source.tree import Tree, parse


def parses_here(text: str) -> bool:
    """Whether this interpreter's parser reads ``text`` as a module (its warnings silenced)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


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


def parse_foreign(parser: ForeignParser, text: str) -> Tree | None:
    """``text`` parsed by another interpreter, or ``None`` when it does not parse there."""
    try:
        return parser.parse(text)
    except (SyntaxError, ValueError):
        return None


#: What Python 3's ``SyntaxError`` says of Python 2 code: its print and exec statements, ``except E, e``, ``0777``.
_PYTHON2_SAYS = (
    "Missing parentheses in call to",
    "multiple exception types must be parenthesized",
    "leading zeros in decimal integer literals",
)
#: Advice for input that is not Python (for the tree strategies and the exec oracle alike).
NOT_PYTHON = "(input that is not Python: --strategy lines, chars or tokens, with a command oracle, --run or --test)"


def python2_recipe(message: str) -> str:
    """The recipe for Python 2 code when ``message``, Python 3's syntax error, says the code looks like it;
    else ''. The tree strategies read Python 3, so the recipe reduces by lines."""
    if not any(said in message for said in _PYTHON2_SAYS):
        return ""
    return (
        "it looks like Python 2: run it under Python 2.7 with a command oracle and reduce it by lines: "
        "--python 2.7 --run '{python} {file}' --exit-code 1 --strategy lines"
    )


def check_parses(text: str, filename: str, parser: ForeignParser | None = None) -> Tree:
    """``text``'s tree; raise UsageError naming line and column when ``text`` is not a valid module."""
    if "\0" in text:  # Python's own message has no position (3.11) or a misleading one
        before = text[: text.index("\0")]
        line, column = before.count("\n") + 1, len(before) - (before.rfind("\n") + 1) + 1
        raise UsageError(
            f"{filename}:{line}:{column}: contains a null byte, so it is not Python source (a binary file?) {NOT_PYTHON}"
        )
    try:
        return parser.parse(text, filename) if parser is not None else parse(text, filename)
    except SyntaxError as error:
        where = f"{error.lineno}:{error.offset}" if error.lineno else "?"
        python2 = python2_recipe(error.msg)
        raise UsageError(
            f"{filename}:{where}: does not parse: {error.msg}" + (f"; {python2}" if python2 else f" {NOT_PYTHON}")
        ) from None
    except (ValueError, RecursionError, MemoryError) as error:
        reason = "nested too deeply" if isinstance(error, RecursionError) else str(error)
        raise UsageError(
            f"{filename}: cannot parse: {reason} {NOT_PYTHON}"
        ) from None


#: Compiles standard input under any interpreter from 2.7 on; prints where it stops, as JSON.
_COMPILE_SCRIPT = (
    "import sys, json\n"
    "source = getattr(sys.stdin, 'buffer', sys.stdin).read()\n"
    "try:\n"
    "    compile(source, sys.argv[1], 'exec')\n"
    "    print(json.dumps(None))\n"
    "except SyntaxError as error:\n"
    "    print(json.dumps([error.lineno, error.offset, str(error.msg)]))\n"
    "except (ValueError, TypeError) as error:\n"
    "    print(json.dumps([None, None, str(error)]))\n"
)


def compile_error_under(python: str, text: str, filename: str) -> tuple[str, str] | None:
    """Where (``LINE:COLUMN``) and why ``text`` does not compile under ``python``, or None.

    The exec oracle's first run says only *that* the original raised a
    SyntaxError; this says where, under the interpreter that runs it, so
    that a refusal can point at the line. ``compile`` (not ``ast.parse``)
    because the run compiles: ``return`` outside a function fails only there.
    """
    if python == sys.executable:
        try:
            compile(text, filename, "exec")
            return None
        except SyntaxError as error:
            found = [error.lineno, error.offset, str(error.msg)]
        except (ValueError, TypeError) as error:
            found = [None, None, str(error)]
    else:
        try:
            done = subprocess.run(
                [python, "-c", _COMPILE_SCRIPT, filename], input=text.encode("utf-8"),
                capture_output=True, timeout=60, check=True,
            )
            found = json.loads(done.stdout.decode("utf-8", "replace"))
        except (OSError, subprocess.SubprocessError, ValueError):
            return None  # cannot tell where: the caller still refuses, without a place
        if found is None:
            return None
    line, column, message = found
    return f"{line or '?'}:{column or '?'}", str(message)
