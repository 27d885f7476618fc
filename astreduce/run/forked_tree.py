"""A tree's entry run in a forked child: the exec oracle's speed for a package reduced with ``--entry``.

A tree judged the plain way (:class:`~astreduce.oracles.tree.TreeOracle`)
costs an interpreter start and every module of the package compiled from
source in every test: on the standard library's ``email`` package, 10,000
lines, about 0.1 s a test however small the change. Under astreduce's own
interpreter a test is instead a child forked ahead (the exec oracle's
:class:`~astreduce.run.spare.Spare`), which

* writes the tree into its own folder and runs the entry file there as
  ``__main__``, the folder first on ``sys.path``, as ``--entry`` does;
* forgets the modules astreduce itself imported under the tree's names (a
  package named ``email`` is the tree's, not the standard library's);
* imports the tree's modules from code compiled once per file text: the
  parent compiles a text the second time a test holds it (the first test's
  child compiles it when imported: most texts are a candidate's changed
  file, tested once) and keeps the code, so a candidate compiles what it
  changed, not the whole tree.

What the candidate does, how it ends and how it is judged are those of the
plain run; only its modules' code objects name their files relative to the
tree (``pkg/mod.py``), as compiled in the folder itself.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import os
import sys
import types
from collections import OrderedDict, deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from astreduce.run._worker_main import run_main, syntax_report
from astreduce.run.compiled import compile_quietly
from astreduce.run.preload import leading_imports, preloadable
from astreduce.run.forkserver import preload, running_server
from astreduce.run.sandbox import Limits
from astreduce.run.spare import OUTPUT_NAME, ChildTest, Job, Spare, remember_in_server, start_in_spare

#: Code objects by (path, text), compiled in the parent and handed to the fork server: a child forked
#: later finds them in its memory.
_CODES: OrderedDict[tuple[str, str], types.CodeType | None] = OrderedDict()
#: Most code objects kept (a package of a few hundred files, each in a few versions).
CODES_KEPT = 4096


#: Digests of the (path, text) pairs tests were started with, but not compiled here: a text is compiled here
#: (and handed to the fork server) the second time a test holds it. The first time, the test's child
#: compiles it: most texts are a candidate's changed file, tested once, and a compile here would hold up
#: the other tests (this process starts them all, one after the other; the children run side by side).
_SEEN: set[bytes] = set()
#: Most digests kept in :data:`_SEEN` (then it starts afresh).
SEEN_KEPT = 1 << 16


def _seen_before(path: str, text: str) -> bool:
    """Whether a test held this text before (and note that one does now)."""
    key = hashlib.blake2b(f"{path}\0{text}".encode("utf-8", "surrogateescape"), digest_size=16).digest()
    if key in _SEEN:
        return True
    if len(_SEEN) >= SEEN_KEPT:
        _SEEN.clear()
    _SEEN.add(key)
    return False


def _code(path: str, text: str) -> types.CodeType | None:
    """The code of a file's text (None: it does not compile; its child reports that), compiled once."""
    key = (path, text)
    if key in _CODES:
        _CODES.move_to_end(key)
        return _CODES[key]
    code = compile_quietly(text, path)
    _keep({key: code})
    return code


#: Spares kept forked ahead: one per test that may start before the fork server has answered for the next.
SPARES = 2


class ForkedTree:
    """Starts tests of trees, each in a child forked ahead of it (see the module docstring).

    Two spares wait at any time, each forked after the code remembered so
    far: at ``-j 2`` both tests of a pair start at once, and with one spare
    the second waited for the fork server to fork it (and to move it into
    its cgroup, up to 10 ms): a fifth of the wall-clock time on ``email``.
    """

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._spares: deque[tuple[Spare, int]] = deque()
        """Spares, oldest first, each with the number of codes the server had been handed before it was forked."""
        self._remembered: OrderedDict[tuple[str, str], int] = OrderedDict()
        """Codes handed to the fork server, by (path, text): their order (the children forked later hold them)."""
        self._handed = 0
        """How many codes were handed to the fork server so far (the order of the next one)."""
        self._server: int | None = None
        """The pid of the fork server that holds the code compiled so far (another one holds none of it)."""
        preload((__name__,))  # what each child runs (run_tree), imported once by the fork server

    def start(
        self, tree: Mapping[str, str], program: str, timeout: float, cpu_timeout: float | None = None,
        argv: tuple[str, ...] = (), keep_output: bool = False, compiled: bool = True,
    ) -> Job:
        """Run ``program`` in a child whose folder holds ``tree``; the job reports how the run ended.

        ``program`` is the tree's entry (a path in the tree), or a Python
        script outside it (an absolute path) run as ``python SCRIPT ARGV``,
        where ``{dir}`` in ``argv`` stands for the child's folder; ``keep_output``: the run's ``output`` is the
        tail of what it printed; ``compiled=False``: the tree's files are never compiled here (a candidate that
        may crash the compiler, run by a script), only in the child, if it imports them.
        """
        server = running_server()
        if server is None or server.pid != self._server:
            self._remembered.clear()  # a new server holds none of it
        spare, held = self._spares.popleft() if self._spares else (None, 0)
        fresh, unknown = {}, {}
        for path, text in tree.items() if compiled else ():
            if path.endswith(".py") and ((path, text) in _CODES or _seen_before(path, text)):
                code = _code(path, text)
                order = self._remembered.get((path, text))
                if code is not None and (order is None or order >= held):
                    fresh[path] = code  # the spare was forked before the server had it
                    if order is None:
                        unknown[(path, text)] = code
        if unknown:
            self._server = remember_in_server(f"{__name__}:_keep", unknown, self.limits)
            for key in unknown:
                self._remembered[key] = self._handed
                self._handed += 1
            while len(self._remembered) > CODES_KEPT:  # as the server keeps them
                self._remembered.popitem(last=False)
        test = TreeTest(dict(tree), fresh, program, tuple(argv))
        job, spare = start_in_spare(spare, test, self.limits.for_timeout(timeout), timeout, cpu_timeout, keep_output=keep_output)
        self._spares.append((spare, self._handed))
        while len(self._spares) < SPARES:
            self._spares.append((Spare(self.limits.for_timeout(timeout)), self._handed))
        return job

    def close(self) -> None:
        while self._spares:
            self._spares.popleft()[0].discard()

    def __del__(self) -> None:  # a tree oracle dropped without close() must not leave its spare waiting
        try:
            self.close()
        except Exception:  # at interpreter exit, half torn down
            pass


def _keep(codes: Mapping[tuple[str, str], types.CodeType | None]) -> None:
    """Keep code compiled here (in the fork server: handed by astreduce, for the children forked from now on)."""
    _CODES.update(codes)
    while len(_CODES) > CODES_KEPT:
        _CODES.popitem(last=False)


@dataclass(frozen=True)
class TreeTest(ChildTest):
    """A tree's program run in a spare (see :meth:`ForkedTree.start`)."""

    kind: ClassVar[str] = "tree"
    tree: dict[str, str]
    fresh: dict[str, types.CodeType]
    """The code objects compiled since the spare was forked (the server holds the older ones)."""
    program: str
    """The tree's entry (a path in the tree), or a script outside it (an absolute path)."""
    argv: tuple[str, ...]

    def run(self, workdir: str) -> dict[str, object]:
        return run_tree(self, workdir)


def run_tree(test: TreeTest, workdir: str) -> dict[str, object]:
    """In the forked child: write the tree, forget astreduce's modules of its names, run the program.

    A script's ``SystemExit`` becomes the report's ``exit`` status, as
    ``python SCRIPT`` would exit.
    """
    tree, fresh, program, argv = test.tree, test.fresh, test.program, test.argv
    for path, text in tree.items():
        target = os.path.join(workdir, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as file:
            file.write(text.encode("utf-8", errors="surrogateescape"))
    if OUTPUT_NAME in tree:  # the tree's own file of that name: the output goes elsewhere
        output = os.open(os.path.join(workdir, ".astreduce-output"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(output, 1)
        os.dup2(output, 2)
    codes = _Codes()
    for path, text in tree.items():
        code = fresh.get(path) or _CODES.get((path, text))
        if code is not None:
            codes.compiled[os.path.join(workdir, path)] = code
        elif path.endswith(".py"):  # its first test: compiled here if it is imported, named as the parent names it
            codes.sources[os.path.join(workdir, path)] = (path, text)
    _forget_modules(tree)
    _serve_compiled(codes)
    path = program if os.path.isabs(program) else os.path.join(workdir, program)
    sys.argv = [path, *(arg.replace("{dir}", workdir) for arg in argv)]
    here = os.path.dirname(path)
    sys.path[0:1] = [here] if here == workdir or os.path.isabs(program) else [here, workdir]
    sys.dont_write_bytecode = True
    code = codes.get(path)
    if code is None:
        try:
            with open(path, "rb") as file:
                code = compile(file.read(), path, "exec", dont_inherit=True)
        except BaseException as error:  # SyntaxError, ValueError (null bytes), RecursionError, MemoryError
            return syntax_report(error, keep_place=True)
    report = run_main(code, path, root=workdir)
    if os.path.isabs(program):  # a script: how ``python SCRIPT`` would exit
        report["exit"] = _exit_status(report)
    return report


def _exit_status(report: dict[str, object]) -> int:
    """The status ``python SCRIPT`` exits with after a run that ``report`` describes."""
    if report.get("ending") == "ok":
        return 0
    if report.get("exception") == "SystemExit":
        message = str(report.get("message", ""))
        if not message or message == "None":
            return 0
        try:
            return int(message) & 0xFF
        except ValueError:
            return 1  # sys.exit("text") prints the text and exits 1
    return 1


def top_modules(tree: Mapping[str, str]) -> set[str]:
    """The names of the tree's top-level modules and packages (``pkg/mod.py`` → ``pkg``)."""
    return {path.split("/")[0].removesuffix(".py") for path in tree if path.endswith(".py") or "/" in path}


def preload_imports(tree: Mapping[str, str], program_text: str) -> None:
    """Have the fork server import, once for all tests, but never a module of the tree's own names:

    * what ``program_text`` (the entry, or the test script) imports first
      (:func:`~astreduce.run.preload.preloadable`);
    * what the tree's modules that a plain run imports before any code of its own import first (an
      entry's ``import mypkg`` whose ``__init__.py`` starts with ``import numpy``): imports in the
      order a plain run makes them, up to the first statement that is not one;
    * the standard-library modules any of the tree's files imports first. Such a module may be imported
      after code of the tree's has run, so only the standard library's are taken from there, whose
      import reads nothing a program sets up first (on ``email``, 21 modules and a test 20-30 % cheaper).
    """
    tops = top_modules(tree)
    names = dict.fromkeys(preloadable(program_text))
    names.update(dict.fromkeys(_imported_first(tree, program_text, tops)))
    for path in sorted(tree):
        if path.endswith(".py"):
            names.update(dict.fromkeys(n for n in preloadable(tree[path]) if _standard(n) or n in sys.modules))
    preload(tuple(name for name in names if name.partition(".")[0] not in tops))


def _standard(name: str) -> bool:
    """Whether ``name`` is a module of the standard library (by its top-level package)."""
    return name.partition(".")[0] in sys.stdlib_module_names


def _imported_first(tree: Mapping[str, str], program_text: str, tops: set[str]) -> list[str]:
    """The modules outside the tree that a plain run of ``program_text`` imports before any code of the
    program or of the tree runs: the leading imports, followed into the tree's modules they import, in order,
    until the first module that runs code of its own."""
    outside: list[str] = []
    ran: set[str] = set()

    def leading(text: str, package: str) -> bool:
        """Follow the leading imports of ``text``; whether all of it ran without any code of its own."""
        imports, whole = leading_imports(text, package)
        for module, names in imports:
            if module.partition(".")[0] not in tops:
                outside.append(module)
                continue
            if not run(module) or not all(run(f"{module}.{name}") for name in names if _file_of(tree, f"{module}.{name}")):
                return False
        return whole

    def run(module: str) -> bool:
        """Import ``module`` as a plain run would (its packages first); whether only imports ran."""
        parts = module.split(".")
        for depth in range(1, len(parts) + 1):
            name = ".".join(parts[:depth])
            if name in ran:
                continue
            ran.add(name)
            path = _file_of(tree, name)
            if path is None:
                return False  # a namespace package, or not the tree's: whatever runs is not known here
            if not leading(tree[path], name if path.endswith("__init__.py") else name.rpartition(".")[0]):
                return False
        return True

    leading(program_text, "")
    return outside


def _file_of(tree: Mapping[str, str], module: str) -> str | None:
    """The tree's file of ``module`` (``a/b.py`` or ``a/b/__init__.py``), if it has one."""
    base = module.replace(".", "/")
    return next((path for path in (f"{base}.py", f"{base}/__init__.py") if path in tree), None)


def _forget_modules(tree: Mapping[str, str]) -> None:
    """Remove from ``sys.modules`` what the fork server imported under a name of the tree's top-level modules."""
    tops = top_modules(tree)
    for name in list(sys.modules):
        if name.split(".")[0] in tops:
            del sys.modules[name]
    importlib.invalidate_caches()
    sys.path_importer_cache.clear()


@dataclass
class _Codes:
    """The code of a child's tree files, by absolute path: compiled by the parent, or compiled here when first
    wanted (relative to the tree, as the parent names them)."""

    compiled: dict[str, types.CodeType] = field(default_factory=dict)
    sources: dict[str, tuple[str, str]] = field(default_factory=dict)

    def get(self, path: str) -> types.CodeType | None:
        if path not in self.compiled and path in self.sources:
            code = compile_quietly(self.sources[path][1], self.sources[path][0])
            if code is not None:
                self.compiled[path] = code
        return self.compiled.get(path)


def _serve_compiled(codes: _Codes) -> None:
    """Make the source loader hand out the code of the tree's files as ``codes`` has it (this child's only)."""
    original = importlib.machinery.SourceFileLoader.get_code

    def get_code(loader: importlib.machinery.SourceFileLoader, fullname: str) -> types.CodeType | None:
        code = codes.get(loader.path)
        return code if code is not None else original(loader, fullname)

    importlib.machinery.SourceFileLoader.get_code = get_code  # type: ignore[method-assign, assignment]  # a forked child's own copy
