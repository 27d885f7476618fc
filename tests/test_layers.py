"""The house's rules, read from the source: imports flow down the layers, and no name is written twice.

The layers are docs/ARCHITECTURE.md's, bottom first. A module may import
from its own layer or one below, never from one above; imports inside
functions count too (a late import is still an arrow). Two layers' parts
are kept apart although they sit side by side: transforms only propose and
oracles only judge, so neither imports the other.
"""

from __future__ import annotations

import ast
import collections
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "astreduce"

#: Bottom first: each entry is a layer's parts (a subpackage or a top-level module).
LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"outcome", "errors", "interpreters", "version", "keys"}),
    frozenset({"source", "dd", "files", "writes", "file_checks"}),
    frozenset({"run"}),
    frozenset({"transforms", "oracles"}),
    frozenset({"search", "grammar"}),
    frozenset({"reduce", "isolate", "slicing", "compare", "batch", "pytest_node", "debugger"}),
    frozenset({"cli", "__main__", "__init__"}),
)

#: Parts of one layer that never import each other (either way).
APART = (frozenset({"transforms", "oracles"}),)


def part_of(module: str) -> str:
    """``astreduce.search.session`` → ``search``; ``astreduce`` (its ``__init__``) → ``__init__``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def layer_of(part: str) -> int:
    for index, layer in enumerate(LAYERS):
        if part in layer:
            return index
    raise AssertionError(f"astreduce.{part} is in no layer: add it to LAYERS and to docs/ARCHITECTURE.md")


def module_name(path: Path) -> str:
    relative = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def imports(path: Path) -> list[tuple[str, int]]:
    """Every astreduce module ``path`` imports, with the line: at the top or inside a function."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "astreduce":
                found += [(f"astreduce.{alias.name}" if (PACKAGE / alias.name).exists() or (PACKAGE / f"{alias.name}.py").exists()
                           else "astreduce", node.lineno) for alias in node.names]
            elif node.module.startswith("astreduce."):
                found.append((node.module, node.lineno))
        elif isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names if alias.name.startswith("astreduce")]
    return found


def arrows() -> list[tuple[str, str, str]]:
    """(from part, to part, where) for every import between two parts of the package."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = part_of(module_name(path))
        for target, line in imports(path):
            part = part_of(target)
            if part != source:
                out.append((source, part, f"{path.relative_to(PACKAGE.parent)}:{line}"))
    return out


def test_every_part_is_in_a_layer() -> None:
    parts = {part_of(module_name(p)) for p in PACKAGE.rglob("*.py")}
    for part in parts:
        layer_of(part)


def test_imports_never_go_up() -> None:
    upward = [f"{where}: {source} imports {target}" for source, target, where in arrows() if layer_of(target) > layer_of(source)]
    assert not upward, "imports from a layer above:\n" + "\n".join(upward)


def test_parts_kept_apart_do_not_import_each_other() -> None:
    crossing = [
        f"{where}: {source} imports {target}"
        for source, target, where in arrows()
        for apart in APART
        if {source, target} <= apart
    ]
    assert not crossing, "\n".join(crossing)


def test_the_rule_sees_an_upward_import(tmp_path: Path) -> None:
    """The reader finds a late import inside a function: the test could fail."""
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from astreduce.cli import main\n    import astreduce.search.session\n")
    assert imports(module) == [("astreduce.cli", 2), ("astreduce.search.session", 3)]
    assert layer_of(part_of("astreduce.cli")) > layer_of(part_of("astreduce.source.tree"))


# --- names written once ----------------------------------------------------------


def top_level_names() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Public class names and module-level function names → the modules that define them."""
    classes: dict[str, set[str]] = collections.defaultdict(set)
    functions: dict[str, set[str]] = collections.defaultdict(set)
    for path in PACKAGE.rglob("*.py"):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                classes[node.name].add(module_name(path))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                functions[node.name].add(module_name(path))
    return classes, functions


def test_no_public_class_name_is_defined_twice() -> None:
    classes, _ = top_level_names()
    twice = {name: sorted(modules) for name, modules in classes.items() if len(modules) > 1}
    assert not twice


def test_helper_names_are_written_once() -> None:
    """A function name defined in two modules is a helper written twice, or two ideas under one name."""
    _, functions = top_level_names()
    twice = {name: sorted(modules) for name, modules in functions.items() if len(modules) > 1}
    assert not twice, f"give each its own name, or write it once and import it: {twice}"


# --- values handed over in the open --------------------------------------------------


#: Private writes the rule allows, and why: no object of astreduce's.
THIRD_PARTY_WRITES = {
    # pytest has no public way to skip the configure step a forked child must not run again
    "config._do_configure",
    # pytest has no public way to answer once, for a warm pytest's plugins, the question it asks in every session
    "FixtureManager._find_wrapped_fixture_def",
}


def private_writes(path: Path) -> list[str]:
    """Assignments to another object's private attribute (``other._name = ...``): a value planted for a later
    reader instead of handed over in the open. ``self`` and ``cls`` write their own."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        else:
            continue
        for target in targets:
            for item in target.elts if isinstance(target, ast.Tuple) else [target]:
                if (
                    isinstance(item, ast.Attribute) and item.attr.startswith("_") and not item.attr.startswith("__")
                    and not (isinstance(item.value, ast.Name) and item.value.id in ("self", "cls"))
                    and ast.unparse(item) not in THIRD_PARTY_WRITES
                ):
                    found.append(f"{path.name}:{node.lineno}: {ast.unparse(item)}")
    return found


def test_no_object_writes_another_ones_private_attribute() -> None:
    written = [line for path in sorted(PACKAGE.rglob("*.py")) for line in private_writes(path)]
    assert not written, "hand the value over in the open (a constructor's argument, a method):\n" + "\n".join(written)


def test_the_rule_sees_a_private_write(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f(oracle):\n    oracle._plan = 1\n    self._own = 2\n    a, oracle._x = 1, 2\n")
    assert private_writes(module) == ["m.py:2: oracle._plan", "m.py:4: oracle._x"]


def test_a_plan_is_frozen() -> None:
    """A strategy's configuration is built once and never written: its run's state lives elsewhere."""
    import dataclasses

    from astreduce.search.strategies import Plan

    assert Plan.__dataclass_params__.frozen  # type: ignore[attr-defined]
    plan = Plan.of([])
    try:
        plan.rounds = 1  # type: ignore[misc]
    except dataclasses.FrozenInstanceError:
        return
    raise AssertionError("a Plan could be written")


# --- no cycle, and judging apart from running -----------------------------------------


def module_graph() -> dict[str, set[str]]:
    """Every astreduce module → the astreduce modules it imports (at the top or late), by module name."""
    modules = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        graph[name] = {target for target, _ in imports(path) if target in modules and target != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycle() -> None:
    """Late imports included: a cycle hidden in a function is still two modules that need each other.
    A package's ``__init__`` importing its own modules is no cycle of ideas, so those arrows are left out."""
    graph = module_graph()
    for name in graph:
        graph[name] = {t for t in graph[name] if not (t.startswith(name + ".") or name.startswith(t + ".") and t != "astreduce")}
    assert not cycles(graph), f"modules that import each other: {cycles(graph)}"


def test_the_rule_sees_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


#: Calls that start a process (or replace this one).
PROCESS_STARTS = frozenset({
    "subprocess.Popen", "subprocess.run", "subprocess.call", "subprocess.check_call", "subprocess.check_output",
    "os.fork", "os.forkpty", "os.posix_spawn", "os.posix_spawnp", "os.system", "os.popen",
    "os.execv", "os.execve", "os.execvp", "os.execvpe", "os.execl", "os.execle", "os.execlp", "os.execlpe",
    "pty.fork", "pty.spawn", "multiprocessing.Process",
})


def process_starts(path: Path) -> list[str]:
    """Where ``path`` calls one of :data:`PROCESS_STARTS` (written as ``module.function``)."""
    return [
        f"{path.name}:{node.lineno}: {ast.unparse(node.func)}"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call) and ast.unparse(node.func) in PROCESS_STARTS
    ]


def test_oracles_only_judge() -> None:
    """Starting processes, confining them and collecting what they report is ``run/``'s: an oracle decides
    FAIL, PASS or UNRESOLVED from a run, and starts it through ``run/``."""
    started = [line for path in sorted((PACKAGE / "oracles").rglob("*.py")) for line in process_starts(path)]
    assert not started, "start it through astreduce/run/:\n" + "\n".join(started)


def test_the_rule_sees_a_process_start(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("import os, subprocess\nsubprocess.Popen(['true'])\npid = os.fork()\nos.getpid()\n")
    assert process_starts(module) == ["m.py:2: subprocess.Popen", "m.py:3: os.fork"]


# --- one value through the calls --------------------------------------------------------------------


def config_walk(argv: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """Run ``astreduce ARGV`` in this process, watching every call of astreduce's that takes a
    ``ReduceConfig``: the calls (module.function), and the climbs: a call made, below another that took
    the configuration, into a higher layer than that one's (a value handed back up)."""
    import sys

    from click.testing import CliRunner

    from astreduce.cli import main
    from astreduce.reduce.single import ReduceConfig

    holders: dict[int, tuple[int, str]] = {}
    calls: list[str] = []
    climbs: list[tuple[str, str]] = []

    def profile(frame, event, arg):  # type: ignore[no-untyped-def]
        module = frame.f_globals.get("__name__", "")
        if event != "call" or not module.startswith("astreduce"):
            return
        code = frame.f_code
        names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
        if not any(isinstance(frame.f_locals.get(name), ReduceConfig) for name in names):
            return
        layer, where = layer_of(part_of(module)), f"{module}.{code.co_name}"
        caller = frame.f_back
        while caller is not None and id(caller) not in holders:
            caller = caller.f_back
        if caller is not None and holders[id(caller)][0] < layer:
            climbs.append((holders[id(caller)][1], where))
        holders[id(frame)] = (layer, where)
        calls.append(where)

    sys.setprofile(profile)
    try:
        done = CliRunner().invoke(main, argv)
    finally:
        sys.setprofile(None)
    assert done.exit_code == 0, done.output
    return calls, climbs


def test_a_reductions_configuration_flows_down(tmp_path: Path) -> None:
    """``reduce_with``'s configuration goes down the layers and never back up (at most 3 climbs, the
    bar; none today): the search gets a Plan, the oracle its options, never the whole configuration."""
    program = tmp_path / "prog.py"
    program.write_text("a = 1\nb = 0\nprint(a)\nx = a / b\n")
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "main.py").write_text("from helper import f\nprint(1)\nf()\n")
    (package / "helper.py").write_text("def f():\n    return 1 / 0\n\n\ndef g():\n    return 2\n")
    for argv in (
        ["reduce", str(program), "-o", str(tmp_path / "out.py"), "-q", "--max-tests", "20"],
        ["reduce", str(package), "--entry", "main.py", "-o", str(tmp_path / "out"), "-q", "--max-tests", "20"],
    ):
        calls, climbs = config_walk(argv)
        assert "astreduce.reduce.single.plan" in calls  # the walk saw the configuration used
        assert len(climbs) <= 3, climbs
        assert {part_of(call.rsplit(".", 1)[0]) for call in calls} <= {"cli", "reduce"}, calls
