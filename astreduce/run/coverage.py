"""The coverage tracer: which lines of a tree's files the Python processes of one run execute.

Running a tree's oracle once more with this tracer written as the tree's
``sitecustomize.py`` (:data:`TRACER`) and the test's folder first on the path
(:func:`python_path_here`) records, in every Python process of the run, the
lines executed in the tree's files (and, from Python 3.8, the files it opens
for reading, with no line: the data files it reads): through ``sys.monitoring`` on Python 3.12
and later (each line reported once, then disabled: the run is barely slower)
and ``sys.settrace`` before. Each process writes them as JSON to a folder
outside the tree when it exits (:func:`read_runs` merges them). The tracer is
plain Python 2.7 and 3 (a project's tests may run under either), and it
imports the ``sitecustomize`` it hides, if there is one. ``isolate`` measures
OLD's and NEW's runs with it; a tree's reduction, the original's.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

#: The file the tracer is written to, at the root of a tree.
TRACER_NAME = "sitecustomize.py"

#: The tracer: ``OUT`` is replaced by the folder its JSON goes to.
TRACER = r'''# Written by astreduce for one run: records the lines executed under this folder.
import atexit
import json
import os
import sys

_ROOT = os.path.dirname(os.path.abspath(__file__)) + os.sep
_OUT = OUT
_CHAIN = True
_LINES = {}


_FILES = {}  # a code object's file name -> the set of its lines recorded (None: not under the folder)


def _lines_of(filename):
    """Where a file's lines go, found once per file name: the tracer sees every call of the run."""
    try:
        return _FILES[filename]
    except KeyError:
        pass
    path = filename if os.path.isabs(filename) else os.path.abspath(filename)
    lines = _LINES.setdefault(path[len(_ROOT):], set()) if path.startswith(_ROOT) else None
    _FILES[filename] = lines
    return lines


def _add(filename, line):
    lines = _lines_of(filename)
    if lines is None:
        return False
    lines.add(line)
    return True


_monitoring = getattr(sys, "monitoring", None)
if _monitoring is not None:
    _tool = _monitoring.COVERAGE_ID
    try:
        _monitoring.use_tool_id(_tool, "astreduce")
    except ValueError:
        _tool = _monitoring.PROFILER_ID
        _monitoring.use_tool_id(_tool, "astreduce")

    def _line(code, line):
        _add(code.co_filename, line)
        return _monitoring.DISABLE

    _monitoring.register_callback(_tool, _monitoring.events.LINE, _line)
    _monitoring.set_events(_tool, _monitoring.events.LINE)
else:
    import threading

    def _local(frame, event, arg):
        if event == "line":
            _FILES[frame.f_code.co_filename].add(frame.f_lineno)
        return _local

    def _global(frame, event, arg):
        lines = _lines_of(frame.f_code.co_filename)
        if lines is None:
            return None
        lines.add(frame.f_lineno)
        return _local

    sys.settrace(_global)
    threading.settrace(_global)


def _audit(event, args):
    """A file of the folder opened for reading is recorded with no line: a data file the run reads."""
    if event != "open":
        return
    try:
        path, mode, flags = args[0], args[1], args[2]
        if mode is not None:
            if any(c in mode for c in "wax+"):
                return
        elif flags & (os.O_WRONLY | os.O_RDWR):
            return
        path = os.fspath(path)
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        if isinstance(path, str):
            path = os.path.abspath(path)
            if path.startswith(_ROOT):
                _LINES.setdefault(path[len(_ROOT):], set())
    except Exception:  # a hook that raises would fail the open
        pass


if hasattr(sys, "addaudithook"):
    sys.addaudithook(_audit)


def _dump():
    if _OUT is None:  # run inside a warm process: the lines are read from _LINES there
        return
    name = os.path.join(_OUT, "%d-%s.json" % (os.getpid(), os.urandom(4).hex() if hasattr(bytes, "hex") else os.getpid()))
    try:
        with open(name, "w") as out:
            json.dump(dict((path, sorted(lines)) for path, lines in _LINES.items()), out)
    except (IOError, OSError):
        pass


atexit.register(_dump)
_os_exit = os._exit


def _exit(status):
    """``os._exit`` runs no atexit handler: astreduce's entry runner ends that way."""
    _dump()
    _os_exit(status)


os._exit = _exit


def _chain():
    """Run the sitecustomize this one hides, as the interpreter would have."""
    here = os.path.dirname(os.path.abspath(__file__))
    rest = [p for p in sys.path if os.path.abspath(p or ".") != here]
    try:
        import importlib.machinery
        import importlib.util
    except ImportError:
        return
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is not None and spec.loader is not None:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)


if _CHAIN:
    try:
        _chain()
    except Exception:
        pass
'''


def tracer_text(out: str) -> str:
    """The tracer, writing its JSON to the folder ``out``."""
    return TRACER.replace("_OUT = OUT", f"_OUT = {out!r}")


def inline_tracer_text() -> str:
    """The tracer to run inside a process forked after the interpreter started (a warm pytest's test): it writes no
    file (that process reads its ``_LINES``) and runs no ``sitecustomize`` of its own, which its parent ran."""
    return TRACER.replace("_OUT = OUT", "_OUT = None").replace("_CHAIN = True", "_CHAIN = False")


def python_file(path: str) -> bool:
    return path.endswith((".py", ".pyw"))


@contextmanager
def python_path_here() -> Iterator[None]:
    """Within this block, Python processes find modules in their own working folder first (``PYTHONPATH=.``):
    a test's folder, where the coverage tracer waits as ``sitecustomize``."""
    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [".", saved]))
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved


def read_runs(folder: Path, tree: Mapping[str, str]) -> dict[str, frozenset[int]]:
    """The lines every process of one run recorded, merged; files of the tree only."""
    lines: dict[str, set[int]] = {}
    for path in folder.glob("*.json"):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(data, dict):
            continue
        for name, numbers in data.items():
            if name in tree and isinstance(numbers, list):
                lines.setdefault(name, set()).update(n for n in numbers if isinstance(n, int))
    return {name: frozenset(numbers) for name, numbers in lines.items()}
