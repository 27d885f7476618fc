"""Build crash_autopep8_142_hang: textwrap.py (3.8.18) plus a line autopep8 1.4.2 never fixes.

Usage: ``python build.py OUTDIR`` writes ``OUTDIR/input.py`` (and ``OUTDIR/control.py``,
the module without the trigger).  The module text is read from the standard
library of pyenv's 3.8.18, the interpreter autopep8 runs on.

The bug (hhatto/autopep8#449, fixed in 1.4.3): with ``--aggressive``, autopep8
fixes W605 (invalid escape sequence such as ``'\\.'``) by prefixing the string
with ``r``; it finds the string to prefix by its text, so with two identical
such strings on one line it prefixes the first one again and again
(``rrrr'\\.'``) while the second one stays unfixed, and the fix loop never ends.
The oracle restricts autopep8 to W605 (``--select=W605``) so that a run that
does end takes a fraction of a second, and calls a run interesting when it is
still going after 3 seconds (``--hang 3``); each interesting test therefore
costs 3 seconds, and the case is marked slow.
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

TRIGGER = r"""
def _dotted_words(first, second):
    '''The dot-separated words of two dotted names, such as module paths.'''
    return re.split('\.', first) + re.split('\.', second)
"""


def build(outdir: str) -> Path:
    return ct.build_from_stdlib(
        Path(__file__).resolve().parent,
        outdir,
        module="textwrap.py",
        trigger=TRIGGER,
        before="def dedent(text):",
        header=(
            "Injected: _dotted_words(), with the invalid escape sequence '\\.' twice on\n"
            "one line: autopep8 1.4.2 --aggressive loops forever (hhatto/autopep8#449)."
        ),
    )


if __name__ == "__main__":
    ct.build_main(build)
