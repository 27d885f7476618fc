"""A candidate compiled in the parent, so that a forked child runs that very code object (and a
candidate that does not compile is known without forking)."""

from __future__ import annotations

import types
import warnings

from astreduce.run import Run
from astreduce.run._worker_main import syntax_message


def compile_quietly(source: str, path: str) -> types.CodeType | None:
    """``source`` compiled as a file at ``path`` (warnings silenced), or None when it does not compile."""
    code = compile_candidate(source, path)
    return None if isinstance(code, Run) else code


def compile_candidate(source: str, path: str) -> types.CodeType | Run:
    """The candidate compiled in the parent (the forked child runs this very code object),
    or the run of a candidate that does not compile, found without forking.

    The candidate's SyntaxWarnings are silenced here; a plain run would print
    them, but the exec oracle judges only how the run ends.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return compile(source, path, "exec", dont_inherit=True)
    except BaseException as error:  # SyntaxError, ValueError (null bytes), RecursionError, MemoryError
        if isinstance(error, (KeyboardInterrupt, SystemExit)):
            raise
        return Run("syntax", exception=type(error).__qualname__, message=syntax_message(error))


__all__ = ["compile_candidate", "compile_quietly"]
