"""Build crash_black208b1_del_comma: cmd.py (3.8.18) plus a del statement black 20.8b1 cannot format.

Usage: ``python build.py OUTDIR`` writes ``OUTDIR/input.py`` (and ``OUTDIR/control.py``,
the module without the trigger).  The module text is read from the standard
library of pyenv's 3.8.18, the interpreter black runs on.

The bug (the one psf/black#2480 reports from fuzzing, ``del [(),], [T],()``):
black 20.8b1 makes the parentheses of a tuple target of ``del`` invisible when
the statement ends with a trailing comma, and its output no longer parses to
the same tree, so it stops with ``INTERNAL ERROR: Black produced code that is
not equivalent to the source`` (exit status 123).  The trailing comma is not a
node: ``del (a, b),`` and ``del (a, b)`` are one tree, and only the first
crashes.  Reducing the trigger below means deleting ``, line`` and keeping
the comma after it, which no deletion of tree elements (each taken
with its comma) does; the essence is ``del (),``.  The oracle feeds the
candidate on stdin, and black writes its log to ``$TMPDIR``, the test's own
folder.  click is pinned below 8.1 (see crash_black208b1_unstable).
"""

import importlib.util
import sys
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "crash_tools", Path(__file__).resolve().parent.parent / "crash_tools.py"
)
assert _spec is not None and _spec.loader is not None
ct = importlib.util.module_from_spec(_spec)
sys.modules["crash_tools"] = ct
_spec.loader.exec_module(ct)

TRIGGER = '''\
    def _forget_completion(self, line):
        """Forget the last completion, the queued commands and the line at once."""
        del (self.completion_matches, self.cmdqueue), line,
'''


def build(outdir: str) -> Path:
    return ct.build_from_stdlib(
        Path(__file__).resolve().parent,
        outdir,
        module="cmd.py",
        trigger=TRIGGER,
        before="    def print_topics(self, header, cmds, cmdlen, maxcol):",
        header=(
            "Injected: Cmd._forget_completion(), whose del statement black 20.8b1\n"
            "cannot format (psf/black#2480): a trailing comma the syntax tree does not show."
        ),
    )


if __name__ == "__main__":
    ct.build_main(build)
