"""Cut what the failure never runs, first (``--coverage-first``): the files the original's run never imports, the code it never executes.

A test of a big tree costs the import of the tree, and most of a big tree is
code the failing run never touches. So before a tree's usual passes the
original runs once more with the coverage tracer
(:mod:`~astreduce.run.coverage`), and :class:`Executed` keeps the lines of
each file it executed, and the data files it read. Then (:func:`idle_files`,
:func:`idle_statements`) the files it never imported nor read are proposed as
one group, and in each file the statements it never executed: a function or method whose body never
ran, a class whose body never ran, any other statement none of whose lines
ran (a branch not taken, code after the failure). Each group is tried whole
in one test; the greedy search splits it only where it fails (code that runs
only under the tracer's eyes, or a name a never-run line still needs).
The files the run executes or reads are reduced like the code it imports
(:func:`touched`: a pytest project's unit table, or the settings Django
imports by name, are no fixed files), and when the tree has lost a fifth
of its size, or such a data file half of its own, coverage is measured
again (:func:`stale`): a smaller table runs less of the code that reads it,
and code whose last caller went runs no more.

Coverage only orders the search: every candidate is still judged by the
oracle, so wrong coverage costs tests, never a wrong result. A run that
records nothing (an oracle that runs no Python of the tree, a command that
clears the environment) leaves coverage unknown, and the reduction goes on
as without it.
"""

from __future__ import annotations

import ast
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from astreduce.files import FileTree
from astreduce.source.imports import absolute, module_name, names_imported_at_import, parse_module
from astreduce.source.scope import is_dunder, member_names
from astreduce.source.spans import Positions
from astreduce.source.unbound import RunReads, executed_reads
from astreduce.oracles.tree import DirectoryOracle, TreeOracle
from astreduce.run.coverage import TRACER_NAME, python_file, python_path_here, read_runs, tracer_text

#: How the original runs with the tracer: the tree (the tracer at its root), the folder the tracer writes to.
TracedRun = Callable[[FileTree, str], None]


#: Without ``--coverage-first`` or ``--no-coverage-first``, coverage goes first in a tree of this many Python files or
#: more (a small tree gains little from it, for one more run of the original). Measured at -j 2 on this project's
#: 2-core machine, with and without in the same hour: pint 0.20.1 (67 files, 64,452 tokens, a pytest node), 48,375
#: tokens at 300 s without, 19,524 with; the standard library's email package (30 files, 39,928 tokens, ``reduce DIR``),
#: 1,589 / 1,266 tokens at 60 / 120 s and its fixpoint (995) at 211 s without, 1,577 / 1,241 and 192 s with.
COVERAGE_FIRST_FILES = 20


def coverage_first_by_default(tree: Mapping[str, str]) -> bool:
    """Whether coverage goes first in ``tree`` when neither flag says: a tree of :data:`COVERAGE_FIRST_FILES` Python files or more."""
    return sum(1 for path in tree if python_file(path)) >= COVERAGE_FIRST_FILES


def traced(oracle: DirectoryOracle) -> TracedRun:
    """How a calibrated tree oracle runs a tree with the tracer: a copy of it, the tracer's folder writable, its tests
    new processes that find the tracer first on their path (a forked child has started long before it could read it)."""

    def run(tree: FileTree, folder: str) -> None:
        changes: dict[str, Any] = {"forked": False} if isinstance(oracle, TreeOracle) else {}
        options = replace(oracle.options, allow_write=(*oracle.options.allow_write, folder))
        with python_path_here():
            copy = replace(oracle, options=options, **changes)
            try:
                copy.judge(tree)
            finally:
                copy.close()

    return run


@dataclass(frozen=True)
class Executed:
    """The lines (1-based) the original's run executed, by file; ``why`` says why it is unknown when ``lines`` is None."""

    lines: Mapping[str, frozenset[int]] | None
    why: str = ""

    @property
    def known(self) -> bool:
        return self.lines is not None


def measure_executed(run: TracedRun, tree: FileTree) -> Executed:
    """Run the original once with the tracer (``run``): the lines its Python processes executed in the tree."""
    if TRACER_NAME in tree:
        return Executed(None, f"the tree has a {TRACER_NAME} of its own")
    folder = tempfile.mkdtemp(prefix="astreduce-coverage-")
    try:
        try:
            run({**tree, TRACER_NAME: tracer_text(folder)}, folder)
        except Exception as error:  # noqa: BLE001 - a run that cannot be measured is no reason to stop
            return Executed(None, f"the traced run failed ({type(error).__name__}: {error})")
        lines = read_runs(Path(folder), tree)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if not lines:
        return Executed(None, "the traced run recorded no line of the tree (no Python of the tree ran, or its environment was cleared)")
    return Executed(lines)


def original_coverage(asked: bool | None, run: TracedRun, tree: FileTree, by_default: bool = False) -> tuple[Executed | None, list[str]]:
    """What the original's run executes when ``asked`` (``--coverage-first``; None: by default for a tree of many
    Python files, or when the caller says ``by_default``), and the note (the result's, said once) of why it is
    unknown when it was asked for."""
    if not (asked if asked is not None else by_default or coverage_first_by_default(tree)):
        return None, []
    executed = measure_executed(run, tree)
    if executed.known or asked is None:
        return (executed if executed.known else None), []
    return None, [f"coverage not measured, so no code is cut first for never running: {executed.why}"]


def idle_files(tree: Mapping[str, str], executed: Executed, keep: frozenset[str]) -> list[str]:
    """The files of ``tree`` (less ``keep``) the run never imported nor read, sorted. A file read by a process the
    tracer does not see (not Python, or before Python 3.8) is among them: the group's test fails, and the greedy
    search splits it."""
    assert executed.lines is not None
    return sorted(p for p in tree if p not in keep and p != TRACER_NAME and p not in executed.lines)


def touched(executed: Executed | None) -> frozenset[str]:
    """The files the run executed or read: a module imported by name from a string (Django's settings, apps and
    URL configuration), a unit table. What the failure runs or reads is part of it, to reduce, not only to keep."""
    if executed is None or executed.lines is None:
        return frozenset()
    return frozenset(executed.lines)


def read_data(executed: Executed | None) -> frozenset[str]:
    """Of :func:`touched`, the files that are not Python: what the run read (a unit table, a grammar, a fixture)."""
    return frozenset(p for p in touched(executed) if not python_file(p))


def stale(executed: Executed, measured: Mapping[str, str], now: Mapping[str, str], size: Callable[[str], int]) -> bool:
    """Whether coverage measured on the tree ``measured`` is worth measuring again on ``now``: the tree has lost a
    fifth of its size (``size`` of a text: code whose callers went runs no more; on pint, a fifth rather than half
    took the tree from 20,575 to 18,551 tokens at 80 s, 9,265 to 8,511 at 200 s, a measure costing 0.2 s and no
    test), or a data file the run read has lost half of its own (a smaller table runs less of the code)."""
    if executed.lines is None or now == measured:
        return False
    before = sum(size(t) for t in measured.values())
    if 5 * sum(size(t) for t in now.values()) <= 4 * before:
        return True
    return any(2 * size(now.get(p, "")) <= size(measured[p]) for p in read_data(executed) if p in measured and size(measured[p]))


@dataclass(frozen=True)
class Idle:
    """A statement never executed: its lines (1-based, inclusive), and the body it is one of."""

    first: int
    last: int
    body: int
    """Which body of the file holds it (an index into :attr:`IdleStatements.bodies`)."""


@dataclass(frozen=True)
class IdleStatements:
    """The statements of one file its run never executed, and how to cut any subset of them."""

    text: str
    idle: tuple[Idle, ...]
    bodies: tuple[tuple[int, str], ...]
    """Each body's statement count and the indentation a ``pass`` needs there (module: count 0, never emptied)."""

    def without(self, chosen: Sequence[int]) -> str:
        """The text with the chosen idle statements' lines removed; a block left empty gets ``pass``."""
        lines = self.text.splitlines(keepends=True)
        gone: dict[int, list[Idle]] = {}
        for index in chosen:
            statement = self.idle[index]
            gone.setdefault(statement.body, []).append(statement)
        replacement: dict[int, str] = {}
        dropped: set[int] = set()
        for body, statements in gone.items():
            count, indent = self.bodies[body]
            for statement in statements:
                dropped.update(range(statement.first, statement.last + 1))
            if count and len(statements) == count:
                replacement[min(s.first for s in statements)] = f"{indent}pass\n"
        out = []
        for number, line in enumerate(lines, start=1):
            if number in replacement:
                out.append(replacement[number])
            elif number not in dropped:
                out.append(line)
        return "".join(out)


def idle_statements(text: str, ran: frozenset[int]) -> IdleStatements | None:
    """The statements of ``text`` none of whose lines ``ran`` (a ``def`` or ``class``: whose body never ran); None when
    the text does not parse or has none.

    A statement that shares a line with another, or its block's header (``if x: y``), is left out: its lines
    cannot be cut alone. So is an ``elif`` (cutting it is cutting the ``else`` it stands for, a line it does not own).
    """
    try:
        module = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    source = text.splitlines()
    idle: list[Idle] = []
    bodies: list[tuple[int, str]] = []

    def visit(body: list[ast.stmt], header: int, emptiable: bool) -> None:
        index = len(bodies)
        indent = " " * body[0].col_offset if body else ""
        bodies.append((len(body) if emptiable else 0, indent))
        taken = [line for s in body for line in range(_first(s), (s.end_lineno or s.lineno) + 1)]
        shared = {line for line in taken if taken.count(line) > 1} | {header}
        for statement in body:
            first, last = _first(statement), statement.end_lineno or statement.lineno
            if shared & set(range(first, last + 1)) or source[first - 1].lstrip().startswith("elif"):
                continue
            if _never_ran(statement, ran):
                idle.append(Idle(first, last, index))
                continue
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(statement, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    visit(inner, statement.lineno, emptiable=True)
            for handler in getattr(statement, "handlers", []):
                visit(handler.body, handler.lineno, emptiable=True)

    visit(module.body, 0, emptiable=False)
    if not idle:
        return None
    return IdleStatements(text, tuple(idle), tuple(bodies))


def _first(statement: ast.stmt) -> int:
    decorators: list[ast.expr] = getattr(statement, "decorator_list", [])
    return min([statement.lineno, *(d.lineno for d in decorators)])


def _never_ran(statement: ast.stmt, ran: frozenset[int]) -> bool:
    """No line of it ran; for a function or class, no line of its body (its header runs when it is defined)."""
    last = statement.end_lineno or statement.lineno
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return not any(line in ran for line in range(statement.body[0].lineno, last + 1))
    return not any(line in ran for line in range(_first(statement), last + 1))


def statement_key(kind: str, name: str | None, source: str) -> str:
    """How a top-level statement (its node kind, name and source) is known from one version of its file to the
    next: a function or class by its name (its body may lose what never ran), any other statement by its source."""
    if kind in _DEFINITIONS and name:
        return f"{kind} {name}"
    return source


_DEFINITIONS = frozenset({"FunctionDef", "AsyncFunctionDef", "ClassDef"})


def member_key(class_name: str, kind: str, name: str) -> str:
    """How a method of a module-level class is known among its module's needed statements."""
    return f"ClassDef {class_name}: {kind} {name}"


def needed_statements(tree: Mapping[str, str], executed: Executed) -> dict[str, frozenset[str]]:
    """Per Python file of ``tree`` (the tree coverage was measured on), the keys (:func:`statement_key`) of the
    top-level statements whose deletion alone breaks the run for sure: a name one binds is read on a line the run
    executed (in its file, outside the statement; an annotation under ``from __future__ import annotations`` is
    never read), or imported by name by an import the run executed in another file; and the methods of its
    module-level classes whose body ran, when no other class of the tree has a method of that name (none of
    whose bases could stand in for it) and the name is not a dunder (``object`` has one).

    Measured on pint 0.20.1 once its never-run code was cut: of 800 top-level statements, 430 are so needed, and
    9 of 120 of them (names read only in annotations, before they were left out) reproduced without; 52 of 60 of
    the others did. Of its 200 methods, 85 are so needed, and 1 of 40 tried (a ``__setattr__``) reproduced
    without; of the 97 others whose body ran, 7 of 40 did. The first sweeps of statement deletion skip them
    (:mod:`astreduce.reduce.sweeps`)."""
    assert executed.lines is not None
    parsed = _parsed_modules(tree)
    imported = _imported_by_name(parsed, executed.lines)
    methods = Counter(
        member.name for module in parsed.values() for node in ast.walk(module) if isinstance(node, ast.ClassDef)
        for member in node.body if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef))
    )
    needed: dict[str, frozenset[str]] = {}
    for path, module in parsed.items():
        ran = executed.lines.get(path, frozenset())
        reads = _executed_reads(module, ran)
        name = module_name(path)
        positions = Positions(tree[path])  # not ast.get_source_segment: it splits the whole text at every call
        keys = set()
        for statement in module.body:
            bound = _bound_names(statement)
            lines = range(statement.lineno, (statement.end_lineno or statement.lineno) + 1)
            if any(line not in lines for n in bound for line in reads.get(n, ())) or any((name, n) in imported for n in bound):
                start = positions.offset(statement.lineno, statement.col_offset)
                source = tree[path][start : positions.offset(statement.end_lineno or statement.lineno, statement.end_col_offset or 0)]
                keys.add(statement_key(type(statement).__name__, getattr(statement, "name", None), source))
            if isinstance(statement, ast.ClassDef):
                keys.update(
                    member_key(statement.name, type(member).__name__, member.name) for member in statement.body
                    if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)) and methods[member.name] == 1
                    and not is_dunder(member.name) and not _never_ran(member, ran)
                )
        if keys:
            needed[path] = frozenset(keys)
    return needed


def executed_reads_by_file(tree: Mapping[str, str], executed: Executed) -> dict[str, RunReads]:
    """Per Python file of ``tree`` (the tree coverage was measured on), what the run read of it: the names each scope
    read on an executed line (:func:`~astreduce.source.unbound.executed_reads`), and those an executed ``from
    module import name`` of another file asked of it; a candidate that unbinds one breaks the run."""
    assert executed.lines is not None
    parsed = _parsed_modules(tree)
    imported = _imported_by_name(parsed, executed.lines)
    found = {}
    for path in parsed:
        reads = executed_reads(tree[path], executed.lines.get(path, frozenset()))
        asked = frozenset(n for m, n in imported if m == module_name(path))
        if reads or asked:
            found[path] = RunReads(reads, asked)
    return found


def still_asked(tree: Mapping[str, str], path: str, run: RunReads) -> RunReads:
    """``run`` with only the names that a ``from module import name`` another file of ``tree`` (the best tree now)
    runs when imported still asks of ``path``: a file the run imported may since have lost that import."""
    name = module_name(path)
    asked = {n for other, text in tree.items() if other != path and module_name(other) is not None
             for m, n in names_imported_at_import(other, text) if m == name}
    return RunReads(run.reads, run.imported & frozenset(asked))


def _parsed_modules(tree: Mapping[str, str]) -> dict[str, ast.Module]:
    """The Python modules of ``tree`` that parse, by path."""
    return {path: module for path, text in tree.items() if module_name(path) is not None and (module := parse_module(text)) is not None}


def _imported_by_name(parsed: Mapping[str, ast.Module], lines: Mapping[str, frozenset[int]]) -> set[tuple[str, str]]:
    """(module, name) that an executed ``from module import name`` asks for."""
    imported: set[tuple[str, str]] = set()
    for path, module in parsed.items():
        ran = lines.get(path, frozenset())
        for node in ast.walk(module):
            if isinstance(node, ast.ImportFrom) and node.lineno in ran:
                base = absolute(node.level, node.module, path)
                imported.update((base, alias.name) for alias in node.names if base is not None)
    return imported


def _bound_names(statement: ast.stmt) -> set[str]:
    """The names a top-level statement binds in its module: an import's, or those a class body's would define."""
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return {(alias.asname or alias.name).split(".")[0] for alias in statement.names if alias.name != "*"}
    return member_names(statement)


def _executed_reads(module: ast.Module, ran: frozenset[int]) -> dict[str, list[int]]:
    """Each name read on an executed line of ``module``, and those lines; annotations are left out when the module
    postpones them (``from __future__ import annotations``: they stay strings)."""
    postponed = any(
        isinstance(s, ast.ImportFrom) and s.module == "__future__" and any(a.name == "annotations" for a in s.names) for s in module.body
    )
    skipped: set[int] = set()
    if postponed:
        for node in ast.walk(module):
            annotations: list[ast.expr | None] = []
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                arguments = node.args
                every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg]
                annotations = [node.returns, *(a.annotation for a in every if a is not None)]
            elif isinstance(node, ast.AnnAssign):
                annotations = [node.annotation]
            skipped.update(id(inner) for annotation in annotations if annotation is not None for inner in ast.walk(annotation))
    reads: dict[str, list[int]] = {}
    for node in ast.walk(module):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.lineno in ran and id(node) not in skipped:
            reads.setdefault(node.id, []).append(node.lineno)
    return reads
