"""Build crash_mypy0782_starred_assign: configparser.py of CPython 3.8.18 plus a starred unpacking.

Usage: ``python build.py OUTDIR`` writes ``OUTDIR/input.py`` (and ``OUTDIR/control.py``,
the module without the trigger).  The module text is read from the standard
library of pyenv's 3.8.18, the interpreter mypy 0.782 runs on.

The bug (python/mypy#8938, fixed in mypy 0.790 by python/mypy#8827): checking
an assignment of a tuple display with a starred item (``key, *keys``) to a
target list with a starred target (``*parents, last``), mypy 0.780/0.782 hands a
star type to ``remove_instance_last_known_values``, which asserts: ``error:
INTERNAL ERROR`` on stderr, exit status 2, and with ``--show-traceback`` the
traceback (ending in ``AssertionError``) on stdout.  Only annotated functions
are checked, so the helper has annotations.  mypy keeps its cache in the tool
folder (``{cache}``) so that a run checks only the candidate, not typeshed.
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
def _set_nested(target: dict, value: str, section: str, *options: str) -> None:
    """Store ``value`` at ``target[section][option]...``, creating the dicts on the way."""
    *parents, option = section, *options
    for name in parents:
        target = target.setdefault(name, {})
    target[option] = value
'''


def build(outdir: str) -> Path:
    return ct.build_from_stdlib(
        Path(__file__).resolve().parent,
        outdir,
        module="configparser.py",
        trigger=TRIGGER,
        before="class ConfigParser(RawConfigParser):",
        header=(
            "Injected: _set_nested(), whose '*parents, option = section, *options' makes\n"
            "mypy 0.782 stop with INTERNAL ERROR (python/mypy#8938)."
        ),
    )


if __name__ == "__main__":
    ct.build_main(build)
