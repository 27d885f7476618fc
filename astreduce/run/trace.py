"""Value recording: one traced run of a program, and the first value each listed expression had.

The ``value-from-trace`` transform proposes an expression's recorded value
in its place; recording it means running the user's program, which is an
oracle's business, not a transform's. So the run lives here: a
:class:`Tracer` runs the program once per text in a subprocess, as the
oracles run a candidate (dying with astreduce, under the same resource
limits, in a temporary folder, with a timeout), and the transform is handed
a tracer (:meth:`~astreduce.transforms.constants.ValueFromTrace.configure`)
and only asks it for values. The run is confined as the oracle's
candidates are, with the same allowances (``--allow-write``,
``--allow-network``, ``--no-confine``): the oracle hands its limits on.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from astreduce.files import materialise
from astreduce.interpreters import version_of
from astreduce.run.confine import die_with_parent
from astreduce.run.sandbox import Limits, make_workdir, pdeathsig_launcher, remove_workdir, wait_exit

#: Longest repr of a recorded value that is proposed.
MAX_REPR = 120
#: Seconds the traced run may take.
TRACE_TIMEOUT = 20.0
#: Texts whose trace is kept (a reduction traces each text it proposes for once).
_TRACES: dict[str, tuple[dict[int, str], frozenset[int]]] = {}

#: The traced child: numbers the nodes as the tree does, wraps the listed
#: expressions in a recorder that keeps each one's first value with a literal
#: repr, runs the program as ``__main__``, and writes the values as JSON.
#: It needs only the standard library.
_CHILD = r"""
import ast, json, math, os, sys, types
text_path, wanted_path, result_path = sys.argv[1:4]
with open(text_path, encoding="utf-8", errors="surrogateescape") as f:
    text = f.read()
with open(wanted_path, encoding="utf-8") as f:
    wanted = set(json.load(f))
SKIPPED = (ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop, ast.type_ignore)
def children(node):
    out = []
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, list):
            out.extend(v for v in value if isinstance(v, ast.AST) and not isinstance(v, SKIPPED))
        elif isinstance(value, ast.AST) and not isinstance(value, SKIPPED):
            out.append(value)
    return out
def empty_arguments(node):
    return isinstance(node, ast.arguments) and not (node.posonlyargs or node.args or node.vararg or node.kwonlyargs or node.kwarg)
module = ast.parse(text)
numbered = []
stack = [module]
while stack:
    node = stack.pop()
    numbered.append(node)
    stack.extend(reversed([c for c in children(node) if not empty_arguments(c)]))
targets = {id(numbered[i]): i for i in wanted if i < len(numbered)}
class Wrap(ast.NodeTransformer):
    def generic_visit(self, node):
        super().generic_visit(node)
        number = targets.get(id(node))
        if number is None:
            return node
        call = ast.Call(ast.Name("_astreduce_record_", ast.Load()), [ast.Constant(number), node], [])
        return ast.copy_location(call, node)
tree = Wrap().visit(module)
ast.fix_missing_locations(tree)
values = {}
SIMPLE = (int, float, str, bytes, bool, type(None), complex)
def literal(value, depth=0):
    kind = type(value)
    if kind in (float, complex):
        return not any(math.isinf(x) or math.isnan(x) for x in ((value.real, value.imag) if kind is complex else (value,)))
    if kind in SIMPLE:
        return True
    if depth >= 2 or kind not in (tuple, list, dict, set) or len(value) > 8:
        return False
    if kind is dict:
        return all(literal(k, depth + 1) and literal(v, depth + 1) for k, v in value.items())
    return all(literal(v, depth + 1) for v in value)
firsts = {}
varying = set()
def record(number, value):
    shown = values.get(number, record)
    if shown is record:
        values[number] = None
        try:
            if literal(value):
                shown = repr(value)
                if len(shown) <= %d:
                    values[number] = shown
                    firsts[number] = value
        except Exception:
            pass
    elif shown is not None and number not in varying:
        first = firsts[number]
        try:
            kind = type(value)
            same = kind is type(first) and (value == first if kind in SIMPLE else repr(value) == shown)
        except Exception:
            same = False
        if not same:
            varying.add(number)
    return value
import builtins
builtins._astreduce_record_ = record
def save():
    with open(result_path, "w", encoding="utf-8") as f:
        json.dump({"values": {str(k): v for k, v in values.items() if v is not None}, "varying": sorted(varying)}, f)
def stop(number, frame):
    save()
    os._exit(0)
import signal
signal.signal(signal.SIGTERM, stop)
if len(sys.argv) > 5:
    # a tree, copied here: its entry runs as __main__ (as the tree oracle runs it), and the
    # traced file runs instrumented wherever it runs: as the entry, or when it is imported
    import importlib.machinery
    sys.dont_write_bytecode = True
    root = os.getcwd()
    entry, traced = (os.path.join(root, p) for p in sys.argv[4:6])
    code = compile(tree, traced, "exec", dont_inherit=True)
    class Loader(importlib.machinery.SourceFileLoader):
        def get_code(self, fullname):
            if os.path.abspath(self.path) == traced:
                return code
            return super().get_code(fullname)
    sys.path_hooks.insert(0, importlib.machinery.FileFinder.path_hook((Loader, importlib.machinery.SOURCE_SUFFIXES)))
    sys.path_importer_cache.clear()
    path = entry
    if entry != traced:
        with open(entry, "rb") as f:
            code = compile(f.read(), entry, "exec", dont_inherit=True)
    sys.path[0:1] = [os.path.dirname(entry), root] if os.path.dirname(entry) != root else [root]
else:
    path = os.path.join(os.getcwd(), "candidate.py")
    code = compile(tree, path, "exec", dont_inherit=True)
    sys.path[0:1] = [os.environ.get("ASTREDUCE_TRACE_PATH") or os.getcwd()]
main = types.ModuleType("__main__")
main.__file__ = path
main.__dict__["__builtins__"] = builtins
sys.modules["__main__"] = main
sys.argv = [path]
try:
    exec(code, main.__dict__)
except BaseException:
    pass
finally:
    save()
    sys.stdout.flush()
    os._exit(0)
""" % MAX_REPR



@dataclass(frozen=True)
class Tracer:
    """Runs a program as the exec oracle runs a candidate, and records its values.

    Args:
        append: text run after the program (the exec oracle's ``--append`` script).
        search_path: the folder first on ``sys.path`` in the run (the input's folder).
        python: the interpreter of the run (``None``: this one).
        timeout: seconds the run may take; a hang keeps the values recorded so far.
    """

    append: str = ""
    search_path: str = ""
    python: str | None = None
    timeout: float = TRACE_TIMEOUT
    limits: Limits = field(default_factory=Limits)
    """The sandbox of the run: the oracle's limits and confinement."""

    def record(self, text: str, candidates: list[int]) -> tuple[dict[int, str], frozenset[int]]:
        """Each candidate expression's first literal value in one run of ``text``, and those whose value changed later."""
        return trace(text, candidates, self.append, self.search_path, self.timeout, self.python, limits=self.limits)


def tracer_under(python: str, *, append: str = "", search_path: str = "", limits: Limits | None = None) -> Tracer | None:
    """A tracer that runs as an oracle runs its candidate under ``python``; ``None`` when that interpreter is
    older than 3.8 (the trace's child numbers nodes with its ``ast``, which must read the program as ours)."""
    if version_of(python) < (3, 8):
        return None
    return Tracer(append=append, search_path=search_path, python=python, limits=limits or Limits())


@dataclass(frozen=True)
class TreeTracer:
    """Records the values of one file of a tree, in a run of the tree's entry (as the tree oracle runs it).

    A file traced alone is not how the tree runs: its module may be
    imported, not run, and need its neighbours. So the whole tree is
    copied, the entry runs as ``__main__``, and the traced file is
    instrumented wherever it runs, as the entry or when imported.

    Args:
        files: the tree, each file's text; the traced file's own text is the one passed to :meth:`record`.
        entry: the file that runs as ``__main__``.
        traced: the file whose values are recorded.
        python: the interpreter of the run (``None``: this one).
    """

    files: tuple[tuple[str, str], ...]
    entry: str
    traced: str
    python: str | None = None
    timeout: float = TRACE_TIMEOUT
    limits: Limits = field(default_factory=Limits)

    def record(self, text: str, candidates: list[int]) -> tuple[dict[int, str], frozenset[int]]:
        tree = {**dict(self.files), self.traced: text}
        return trace(
            text, candidates, timeout=self.timeout, python=self.python, tree=(tree, self.entry, self.traced), limits=self.limits,
        )


def trace(
    text: str,
    candidates: list[int],
    append: str = "",
    search_path: str = "",
    timeout: float = TRACE_TIMEOUT,
    python: str | None = None,
    tree: tuple[dict[str, str], str, str] | None = None,
    limits: Limits | None = None,
) -> tuple[dict[int, str], frozenset[int]]:
    """Each candidate expression's first literal value in one run of ``text``, and those whose value changed later (cached per text).

    With ``tree`` (its files, its entry, the traced file), the tree runs, not ``text`` alone (see :class:`TreeTracer`).
    """
    python = python or sys.executable
    where = "" if tree is None else "\0".join([tree[1], tree[2], *(f"{p}\0{t}" for p, t in sorted(tree[0].items()))])
    key = hashlib.blake2b(
        f"{python}\0{append}\0{search_path}\0{text}\0{where}".encode("utf-8", "surrogateescape")
    ).hexdigest()
    cached = _TRACES.get(key)
    if cached is not None:
        return cached
    values = _trace_run(text, candidates, append, search_path, timeout, python, tree, limits)
    if len(_TRACES) >= 8:
        _TRACES.pop(next(iter(_TRACES)))
    _TRACES[key] = values
    return values


def _sandboxed(limits: Limits, folder: str) -> Callable[[], None]:
    def prepare() -> None:
        die_with_parent()
        limits.apply()
        limits.confine_to(folder)

    return prepare


def _trace_run(
    text: str, candidates: list[int], append: str, search_path: str, timeout: float, python: str,
    tree: tuple[dict[str, str], str, str] | None = None, sandbox: Limits | None = None,
) -> tuple[dict[int, str], frozenset[int]]:
    workdir = make_workdir()  # in the room folder: claimed, so that a killed astreduce's goes with the next one
    try:
        program = text if not append else text + ("" if text.endswith("\n") else "\n") + append
        text_path = os.path.join(workdir, "text.py")
        wanted_path = os.path.join(workdir, "wanted.json")
        result_path = os.path.join(workdir, "values.json")
        with open(text_path, "w", encoding="utf-8", errors="surrogateescape") as file:
            file.write(program)
        with open(wanted_path, "w", encoding="utf-8") as file:
            json.dump(candidates, file)
        run_dir = os.path.join(workdir, "run")
        os.mkdir(run_dir)
        where: list[str] = []
        if tree is not None:
            files, entry, traced = tree
            materialise(files, run_dir)
            where = [entry, traced]
        environment = dict(os.environ, ASTREDUCE_TRACE_PATH=search_path)
        # the program is the user's candidate: it runs as the oracles run one,
        # dying with astreduce and under the same resource limits
        limits = (sandbox or Limits()).for_timeout(timeout)
        launcher = pdeathsig_launcher() if not limits.confine else None  # confinement is set in the child itself
        process = subprocess.Popen(
            [*(launcher or []), python, "-c", _CHILD, text_path, wanted_path, result_path, *where],
            cwd=run_dir,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            env=environment,
            preexec_fn=None if launcher else _sandboxed(limits, workdir),
        )
        if launcher:
            limits.apply(process.pid)
        try:
            if not wait_exit(process, timeout):  # on a pidfd: a 40 ms run polled with sleeps took 65 ms
                # a hang: ask for the values recorded so far, then stop it for good
                try:
                    os.killpg(process.pid, signal.SIGTERM)
                    wait_exit(process, 2)
                except (ProcessLookupError, PermissionError):
                    pass
        finally:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            process.wait()
        try:
            with open(result_path, encoding="utf-8") as file:
                raw = json.load(file)
        except (OSError, ValueError):
            return {}, frozenset()
        wanted = set(candidates)
        values = raw.get("values", {}) if isinstance(raw, dict) else {}
        varying = raw.get("varying", []) if isinstance(raw, dict) else []
        return (
            {int(k): v for k, v in values.items() if isinstance(v, str) and int(k) in wanted},
            frozenset(n for n in varying if isinstance(n, int)),
        )
    finally:
        remove_workdir(workdir)
