"""Build crash_cpython312_classcomp_systemerror: calendar.py (3.12.1), super() in a class body.

Usage: ``python build.py OUTDIR`` writes ``OUTDIR/input.py`` (and ``OUTDIR/control.py``,
the module without the trigger).  The module text is read from the standard
library of pyenv's 3.12.1, the interpreter that fails.

The bug (python/cpython#114828, fixed in 3.12.3 by gh-115139): 3.12 inlines
list comprehensions (PEP 709), also in class bodies; a comprehension that uses
``__class__`` (``super()`` does, implicitly) leaves the class's symbol table
without a scope for ``__class__``, and the compiler gives up with
``SystemError: _PyST_GetScope(name='__class__') failed: unknown scope in unit
<module> (ADDRESS); symbols: {...}`` -- the address changes from run to run and
the symbol dump depends on the module, so the oracle matches a regular
expression on stderr.  CPython 3.11 and 3.13 compile the module.
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

ANCHOR = """\
    # CSS classes for the day <th>s
    cssclasses_weekday_head = cssclasses
"""

TRIGGER = """\
    # CSS classes for the weekend's <th>s, when the base class starts the week on Monday
    cssclasses_weekend_head = [name for name in cssclasses[5:] if super().getfirstweekday() == 0]
"""


def build(outdir: str) -> Path:
    return ct.build_from_stdlib(
        Path(__file__).resolve().parent,
        outdir,
        module="calendar.py",
        trigger=TRIGGER,
        after=ANCHOR.rstrip("\n"),
        header=(
            "Injected: HTMLCalendar.cssclasses_weekend_head, a class-body list comprehension\n"
            "calling super(); CPython 3.12.1 raises SystemError compiling it\n"
            "(python/cpython#114828)."
        ),
    )


if __name__ == "__main__":
    ct.build_main(build)
