"""Build crash_cpython312_with_segfault: contextlib.py of CPython 3.12.1 plus a 20-item ``with``.

Usage: ``python build.py OUTDIR`` writes ``OUTDIR/input.py`` (and ``OUTDIR/control.py``,
the module without the trigger).  The module text is read from the standard
library of pyenv's 3.12.1, the interpreter that crashes.

The bug (python/cpython#113297, fixed in 3.12.2 by gh-113327): in a generator,
a ``with`` statement entering many context managers passes the compiler's
20-block nesting check, but the exception-handler stack that the 3.12 code
generator keeps while labelling handlers (``label_exception_targets``) has no
room for the extra handler that wraps a generator's body; it overflows and
``py_compile`` dies with SIGSEGV.  The report's code was a generator-based test
fixture entering many ``mock.patch.object(...)`` managers in one ``with``.
CPython 3.11 compiles the module; 3.13 raised the limit to 21 and compiles it.
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

N = 20

TRIGGER = (
    "@contextmanager\n"
    f"def enter_in_order({', '.join(f'cm{i}' for i in range(N))}):\n"
    '    """Enter the given context managers in order; yield the values they return."""\n'
    "    with (\n"
    + "".join(f"        cm{i} as value{i},\n" for i in range(N))
    + "    ):\n"
    + f"        yield ({', '.join(f'value{i}' for i in range(N))})\n"
)


def build(outdir: str) -> Path:
    return ct.build_from_stdlib(
        Path(__file__).resolve().parent,
        outdir,
        module="contextlib.py",
        trigger=TRIGGER,
        before="class nullcontext(AbstractContextManager, AbstractAsyncContextManager):",
        header=(
            "Injected: enter_in_order(), a generator-based context manager whose with\n"
            "statement enters 20 context managers; CPython 3.12.1 segfaults compiling it\n"
            "(python/cpython#113297)."
        ),
    )


if __name__ == "__main__":
    ct.build_main(build)
