"""Constants: a name → the constant it is bound to; an expression → the value it had in a run."""

from __future__ import annotations

import ast
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator

from astreduce.oracles.sandbox import Limits, die_with_parent, pdeathsig_launcher
from astreduce.source.render import DROP, Edit, Replacement
from astreduce.transforms import Opportunity, Transform
from astreduce.source.scope import Analysis, analyse, size_change, wrap
from astreduce.source.tree import Tree


def is_constant(node: ast.AST) -> bool:
    """A literal constant: ``1``, ``-2.5``, ``'s'``, ``None``, or a tuple of those (not an f-string)."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return isinstance(node.operand, ast.Constant) and isinstance(
            node.operand.value, (int, float, complex)
        )
    if isinstance(node, ast.Tuple):
        return all(is_constant(e) for e in node.elts)
    return False


class NameToConstant(Transform):
    """Replace a module-level name bound once to a constant with the constant, everywhere.

    Applies to: ``NAME = CONSTANT`` (a number, a string, ``None``, a tuple
    of constants) at module level, the only binding of ``NAME``, read
    somewhere and never inside an f-string.
    Yields: every read → the constant's text, the binding dropped, in one proposal.
    Notes: a proposal that would not shrink the program is not made.
    """

    name = "name-to-constant"
    phase = "definitions"
    node_kinds = frozenset({"Assign", "AnnAssign"})

    def opportunities(self, tree: Tree) -> Iterator[Opportunity]:
        a = analyse(tree)
        if a is None:
            return
        module = a.module_scope
        for statement in a.module.body:
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
                target, value = statement.targets[0], statement.value
            elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
                target, value = statement.target, statement.value
            else:
                continue
            if not isinstance(target, ast.Name) or not is_constant(value):
                continue
            if a.bindings_of(module, target.id) != [target]:
                continue
            uses = a.uses_of(module, target.id)
            statement_id, value_id = a.id(statement), a.id(value)
            if not uses or statement_id is None or value_id is None:
                continue
            text = a.source(value).strip()
            edits: dict[int, Edit] = {statement_id: DROP}
            for use in uses:
                use_id = a.id(use)
                if use_id is None:
                    break
                before, after = wrap(a, value, text, use)
                edits[use_id] = Replacement.text(before + text + after)
            else:
                if _shrinks(a, edits):
                    yield Opportunity(self.name, statement_id, edits)


def _shrinks(a: Analysis, edits: dict[int, Edit]) -> bool:
    return size_change(a.tree.text, a.render(edits)) < (0, 0, 0)


# --- values from a run ----------------------------------------------------------

#: Longest repr of a recorded value that is proposed.
MAX_REPR = 120
#: Seconds the traced run may take.
TRACE_TIMEOUT = 20.0
#: Texts whose trace is kept (a reduction traces each text it proposes for once).
_TRACES: dict[str, dict[int, str]] = {}

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
    if isinstance(node, ast.JoinedStr):
        continue
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
path = os.path.join(os.getcwd(), "candidate.py")
main = types.ModuleType("__main__")
main.__file__ = path
main.__dict__["__builtins__"] = builtins
sys.modules["__main__"] = main
sys.argv = [path]
sys.path[0:1] = [os.environ.get("ASTREDUCE_TRACE_PATH") or os.getcwd()]
try:
    exec(compile(tree, path, "exec", dont_inherit=True), main.__dict__)
except BaseException:
    pass
finally:
    save()
    sys.stdout.flush()
    os._exit(0)
""" % MAX_REPR


#: Expression kinds whose value is worth recording.
_SKIP_KINDS = (
    ast.Constant,
    ast.JoinedStr,
    ast.Starred,
    ast.Slice,
    ast.Lambda,
    ast.Yield,
    ast.YieldFrom,
    ast.FormattedValue,
)
#: Fields whose expressions are not evaluated as values where they stand.
_SKIP_FIELDS = frozenset(
    {"annotation", "returns", "decorator_list", "targets", "target", "optional_vars"}
)


class ValueFromTrace(Transform):
    """Replace an expression with the value it had in a run of the program, when that value is a literal.

    Applies to: evaluated expressions (not constants, call targets,
    annotations, decorators or assignment targets) whose first value in one
    traced run of the current program was an int, float, complex, str, bytes,
    bool or ``None``, or a small tuple, list, set or dict of those.
    Yields: the value's ``repr``, when that is smaller than the expression.
    Not for an expression in a ``while`` loop whose value changed during the
    run (a counter, the test that ends the loop): its first value would make
    the loop run forever (stdlib_argparse: 23 candidates that each cost a
    CPU budget).
    Notes: the run happens once per text, in a subprocess with a timeout and
    a temporary working directory (the transform never runs the oracle).
    :meth:`configure` gives it what the exec oracle runs with (the appended
    test, the input's folder, the interpreter); without the appended test,
    only the code that runs on import of the program is traced.
    """

    name = "value-from-trace"
    phase = "simplify"
    priority = 5
    node_kinds = frozenset()
    append: str = ""
    """Text run after the program (the exec oracle's ``--append`` script)."""
    search_path: str = ""
    """Directory first on ``sys.path`` in the run (the input's folder)."""
    timeout: float = TRACE_TIMEOUT
    python: str = sys.executable
    """The interpreter of the traced run."""
    enabled: bool = True
    """False when the oracle does not run the program as Python (a command oracle)."""

    def configure(
        self,
        *,
        append: str = "",
        search_path: str = "",
        python: str | None = None,
        enabled: bool = True,
        timeout: float | None = None,
    ) -> None:
        """Run the trace as the exec oracle runs a candidate (see the class notes)."""
        self.append = append
        self.search_path = search_path
        self.python = python or sys.executable
        self.enabled = enabled
        if timeout is not None:
            self.timeout = timeout

    def opportunities(self, tree: Tree) -> Iterator[Opportunity]:
        if not self.enabled:
            return
        a = analyse(tree)
        if a is None:
            return
        candidates = [i for i, node in enumerate(a.asts) if _recordable(a, node)]
        if not candidates:
            return
        values, varying = trace(tree.text, candidates, self.append, self.search_path, self.timeout, self.python)
        for node_id in candidates:
            shown = values.get(node_id)
            if shown is None:
                continue
            node = a.asts[node_id]
            if node_id in varying and _in_while_loop(a, node):
                continue  # its first value would make the loop run forever
            old = tree.source(node_id)
            try:
                parsed = ast.parse(shown, mode="eval").body
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                continue
            before, after = wrap(a, parsed, shown, node)
            new = before + shown + after
            if size_change(old, new) < (0, 0, 0):
                yield Opportunity(self.name, node_id, {node_id: Replacement.text(new)})


def _in_while_loop(a: Analysis, node: ast.AST) -> bool:
    """Whether ``node`` is in a ``while`` loop's test or body (in its own function)."""
    current = a.parent(node)
    while current is not None and not isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
        if isinstance(current, ast.While):
            return True
        current = a.parent(current)
    return False


def _recordable(a: Analysis, node: ast.AST) -> bool:
    if not isinstance(node, ast.expr) or isinstance(node, _SKIP_KINDS):
        return False
    context = getattr(node, "ctx", None)
    if context is not None and not isinstance(context, ast.Load):
        return False
    node_id = a.id(node)
    if node_id is None:
        return False
    parent = a.parent(node)
    field = a.tree.nodes[node_id].field
    if field in _SKIP_FIELDS:
        return False
    if isinstance(parent, ast.Call) and field == "func":
        return False  # a function is never a literal
    if (
        isinstance(parent, (ast.Attribute, ast.Subscript))
        and field == "value"
        and not isinstance(getattr(parent, "ctx", None), ast.Load)
    ):
        return False  # ``obj.x = 1``: replacing ``obj`` would assign to a literal
    current: ast.AST | None = parent
    while current is not None and not isinstance(current, ast.stmt):
        if isinstance(current, ast.pattern):
            return False  # a value pattern must stay a dotted name or a literal
        current = a.parent(current)
    return True


def trace(
    text: str,
    candidates: list[int],
    append: str = "",
    search_path: str = "",
    timeout: float = TRACE_TIMEOUT,
    python: str | None = None,
) -> tuple[dict[int, str], frozenset[int]]:
    """Each candidate expression's first literal value in one run of ``text``, and those whose value changed later (cached per text)."""
    python = python or sys.executable
    key = hashlib.blake2b(
        f"{python}\0{append}\0{search_path}\0{text}".encode("utf-8", "surrogateescape")
    ).hexdigest()
    cached = _TRACES.get(key)
    if cached is not None:
        return cached
    values = _run(text, candidates, append, search_path, timeout, python)
    if len(_TRACES) >= 8:
        _TRACES.pop(next(iter(_TRACES)))
    _TRACES[key] = values
    return values


def _sandboxed(limits: Limits) -> Callable[[], None]:
    def prepare() -> None:
        die_with_parent()
        limits.apply()

    return prepare


def _run(
    text: str, candidates: list[int], append: str, search_path: str, timeout: float, python: str
) -> dict[int, str]:
    workdir = tempfile.mkdtemp(prefix="astreduce-trace-")
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
        environment = dict(os.environ, ASTREDUCE_TRACE_PATH=search_path)
        # the program is the user's candidate: it runs as the oracles run one,
        # dying with astreduce and under the same resource limits
        launcher = pdeathsig_launcher()
        limits = Limits().for_timeout(timeout)
        process = subprocess.Popen(
            [*(launcher or []), python, "-c", _CHILD, text_path, wanted_path, result_path],
            cwd=run_dir,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            env=environment,
            preexec_fn=None if launcher else _sandboxed(limits),
        )
        if launcher:
            limits.apply(process.pid)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            # a hang: ask for the values recorded so far, then stop it for good
            try:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=2)
            except (ProcessLookupError, PermissionError, subprocess.TimeoutExpired):
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
        shutil.rmtree(workdir, ignore_errors=True)
