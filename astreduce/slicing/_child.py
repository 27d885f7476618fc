"""The traced child of ``astreduce slice``: runs the program once, recording or skipping executions.

This file runs as a script under the program's interpreter (``--python``,
Python 3.8 or newer), never inside astreduce: it needs only the standard
library and keeps to Python 3.8's syntax. It reads a spec (argv[1]: a dict
as a Python literal), runs the program as ``__main__`` and writes a result
(the spec's ``result``, a literal too): how the run ended, and in
``record`` mode the trace. A test costs the interpreter's start and little
more: the record run saves the instrumented code objects (``marshal``, the
spec's ``cache``), so tests import neither ``ast`` nor ``json``.

Events. An *event* is one execution of a *unit*: the simple statements that
start on one line of the program (or of an ``--include`` module), counted
per line: ``(file, line, occurrence)``. ``pass``, ``global`` and
``nonlocal`` do nothing and are no units. The control flow of the run is
kept, as in STRIPE: the headers of compound statements (``if``, ``while``,
``for``, ``try``, ``with``, ``def``, ``class``, ``match``) are never
skipped, only the statements in their bodies; nor are ``return``,
``raise``, ``break`` and ``continue``, which end their block (CPython drops
the code after them, so there is no place to jump to) and are control flow
themselves. Every other simple statement is a unit.

Skipping. A line-event trace function sets ``frame.f_lineno`` to the next
statement of the same block. CPython sends no line event for the line a
jump lands on, so the trace function judges the landing unit at once
(chains of skipped units are one jump). A unit that ends its block has no
next statement: the code is compiled from a syntax tree with a ``pass``
appended to every block, on a line number past the end of the file, as a
landing place that does nothing.

Leaving the recorded run. A test is a partial execution *of the recorded
run*: when a line runs more often than it did there (a skipped loop step
makes a loop run on), or a line runs that did not run there, the test has
left it and stops at once (``diverged``; UNRESOLVED for the search), so a
loop that lost its exit costs milliseconds, not a timeout. A run that
executes more than ``budget`` lines of traced code (the rest of the trace
function's count, lines of compound headers included) is stopped as a hang.
"""

import marshal
import os
import sys
import types

BLOCKS = ("body", "orelse", "finalbody")


class StatementLayout:
    """One traced file: its units (start line -> [end line, jump target]) and the code to run."""

    def __init__(self, code, units):
        self.code = code
        self.units = units


def statement_layout(text, path, length):
    """The :class:`StatementLayout` of a file's text; ``length``: its own lines (an appended script's are no units)."""
    import ast

    compound = tuple(
        getattr(ast, name)
        for name in (
            "If", "For", "AsyncFor", "While", "Try", "TryStar", "With", "AsyncWith",
            "FunctionDef", "AsyncFunctionDef", "ClassDef", "Match",
        )
        if hasattr(ast, name)
    )
    no_unit = (ast.Pass, ast.Global, ast.Nonlocal, ast.Return, ast.Raise, ast.Break, ast.Continue)
    units = {}
    headers = set()
    spare = [max(length, len(text.splitlines())) + 1]

    def first_line(statement):  # decorators run before their ``def``
        return min([statement.lineno] + [d.lineno for d in getattr(statement, "decorator_list", ())])

    def block(body):
        groups = []  # [start line, end line, is a unit (None: a compound statement)]
        for statement in body:
            start = first_line(statement)
            end = getattr(statement, "end_lineno", None) or statement.lineno
            if isinstance(statement, compound):
                groups.append([start, start, None])
                headers.add(statement.lineno)
                for field in BLOCKS:
                    inner = getattr(statement, field, None)
                    if inner:
                        block(inner)
                for inner in list(getattr(statement, "handlers", ())) + list(getattr(statement, "cases", ())):
                    block(inner.body)
            elif groups and groups[-1][2] is not None and statement.lineno <= groups[-1][1]:
                # ``a = 1; b = 2``, or a statement after a multi-line one on its last line: one unit
                groups[-1][1] = max(groups[-1][1], end)
                groups[-1][2] = groups[-1][2] or not isinstance(statement, no_unit)
            elif statement.lineno not in headers:  # ``if x: y = 1`` runs on the header's line
                groups.append([start, end, not isinstance(statement, no_unit)])
        landing = spare[0]
        spare[0] += 1
        stop = ast.Pass()
        stop.lineno = stop.end_lineno = landing
        stop.col_offset = stop.end_col_offset = 0
        body.append(stop)
        for index, (start, end, is_unit) in enumerate(groups):
            if is_unit and start <= length:
                target = groups[index + 1][0] if index + 1 < len(groups) else landing
                units[start] = [end, target]

    tree = ast.parse(text, path)
    block(tree.body)
    return StatementLayout(compile(tree, path, "exec", dont_inherit=True), units)


class ExecutionTracer:
    """The trace function: counts the events of traced files; in ``test`` mode, skips some."""

    def __init__(self, layouts, skip, bounds, budget, stop, recording):
        self.recording = recording
        self.bounds = bounds
        """In a test: (file, line) -> its executions in the recorded run; None when recording."""
        self.layouts = layouts  # filename -> (index, StatementLayout)
        self.skip = skip
        self.budget = budget
        self.stop = stop
        """Ends the run at once, from inside the trace function: ``stop(ending, detail)``."""
        self.counts = {}
        self.events = []
        self.lines = 0

    def global_trace(self, frame, event, arg):
        found = self.layouts.get(frame.f_code.co_filename)
        if found is None:
            return None
        name = frame.f_code.co_name
        if name.startswith("<") and name != "<module>":
            return None  # lambdas and comprehensions run inside a statement
        if isinstance(frame.f_trace, LocalTracer):
            return frame.f_trace  # a generator resumed: its position is kept
        return LocalTracer(self, found[0], found[1])

    def enter(self, index, line):
        """Count the execution of the unit at ``line``; whether to skip it."""
        key = (index, line)
        occurrence = self.counts.get(key, 0) + 1
        self.counts[key] = occurrence
        if self.bounds is not None and occurrence > self.bounds.get(key, 0):
            self.stop("diverged", f"line {line} ran {occurrence} times, more than in the recorded run")
        if self.recording:
            self.events.append((index, line, occurrence))
        return (index, line, occurrence) in self.skip


class LocalTracer:
    """The per-frame trace function: which unit runs, so a multi-line one counts once."""

    def __init__(self, tracer, index, layout):
        self.tracer = tracer
        self.index = index
        self.layout = layout
        self.span = None

    def __call__(self, frame, event, arg):
        if event != "line":
            return self
        tracer = self.tracer
        tracer.lines += 1
        if tracer.budget is not None and tracer.lines > tracer.budget:
            tracer.stop("timeout", f"more than {tracer.budget} traced lines (a hang)")
        line = frame.f_lineno
        if self.span is not None and self.span[0] <= line <= self.span[1]:
            return self  # inside the unit that runs (a continuation line, a resumed yield)
        unit = self.layout.units.get(line)
        if unit is None:
            self.span = None
            return self
        landing = line
        while unit is not None and tracer.enter(self.index, landing):
            landing = unit[1]
            unit = self.layout.units.get(landing)
        self.span = (landing, unit[0]) if unit is not None else None
        if landing != line:
            try:
                frame.f_lineno = landing
            except ValueError as error:  # CPython refuses this jump: the configuration cannot run
                tracer.stop("error", f"cannot skip line {line}: {error}")
        return self


def instrumenting_finder(names, layouts, cached):
    """A meta-path finder that compiles the ``--include`` modules through :func:`statement_layout`."""
    import importlib.machinery
    import importlib.util

    class Loader(importlib.machinery.SourceFileLoader):
        def get_code(self, fullname):
            path = self.get_filename(fullname)
            layout = cached.get(path)
            if layout is None:
                with open(path, "rb") as file:
                    text = importlib.util.decode_source(file.read())
                layout = statement_layout(text, path, len(text.splitlines()))
            layouts[path] = (names.index(fullname) + 1, layout)
            return layout.code

    class Finder:
        @staticmethod
        def find_spec(fullname, path=None, target=None):
            if fullname not in names:
                return None
            spec = importlib.machinery.PathFinder.find_spec(fullname, path)
            if spec is None or not isinstance(spec.loader, importlib.machinery.SourceFileLoader):
                return spec
            spec.loader = Loader(fullname, spec.origin)
            return spec

    return Finder


def error_fields(error):
    """The exception's qualified name, message and innermost function."""
    kind = type(error)
    name = kind.__qualname__ if kind.__module__ in ("builtins", "__main__") else kind.__module__ + "." + kind.__qualname__
    frame = ""
    tb = error.__traceback__
    while tb is not None:
        frame = tb.tb_frame.f_code.co_name
        tb = tb.tb_next
    try:
        message = str(error)
    except Exception:  # noqa: BLE001  (a hostile __str__)
        message = "<unprintable>"
    return {"ending": "exception", "exception": name, "message": message, "frame": frame, "exit_code": 1}


class TracedRun:
    """One run of the program under the tracer, and its result file."""

    def __init__(self, spec):
        self.spec = spec
        self.result = {"ending": "ok", "exception": "", "message": "", "frame": "", "exit_code": 0, "detail": ""}
        self.layouts = {}
        self.tracer = None

    def finish(self, ending=None, detail=""):
        """Write the result and exit (also from inside the trace function: nothing can catch it)."""
        sys.settrace(None)
        if ending is not None:
            self.result.update(ending=ending, detail=detail)
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001, S110  (a closed stream: nothing to flush)
                pass
        tracer = self.tracer
        if tracer is not None:
            self.result["lines"] = tracer.lines
            if self.spec.get("mode") == "record":
                self.result["events"] = tracer.events
                files = [""] * (1 + len(self.spec.get("include", [])))
                for filename, (index, _) in self.layouts.items():
                    files[index] = filename
                self.result["files"] = files
                with open(self.spec["cache"], "wb") as file:
                    marshal.dump({f: (layout.code, layout.units) for f, (_, layout) in self.layouts.items()}, file)
        with open(self.spec["result"], "w", encoding="utf-8", errors="surrogateescape") as file:
            file.write(repr(self.result))
        os._exit(0)

    def run(self):
        spec = self.spec
        path = spec["path"]
        with open(path, encoding="utf-8", errors="surrogateescape") as file:
            program = file.read()
        text = program
        if spec.get("append"):
            text = program + ("" if program.endswith("\n") or not program else "\n") + spec["append"]
        cached = {}
        if spec.get("mode") != "record":
            with open(spec["cache"], "rb") as file:
                cached = {f: StatementLayout(*entry) for f, entry in marshal.load(file).items()}
        layout = cached.get(path)
        if layout is None:
            try:
                layout = statement_layout(text, path, len(program.splitlines()))
            except (SyntaxError, ValueError) as error:
                self.result.update(ending="syntax", exception=type(error).__name__, message=str(error), exit_code=1)
                self.finish()
        self.layouts[path] = (0, layout)
        names = list(spec.get("include", []))
        if names:
            sys.meta_path.insert(0, instrumenting_finder(names, self.layouts, cached))
        skip = {tuple(e) for e in spec.get("skip", [])}
        recording = spec.get("mode") == "record"
        bounds = None if recording else {(f, n): o for f, n, o in spec.get("bounds", [])}
        self.tracer = ExecutionTracer(self.layouts, skip, bounds, spec.get("budget"), self.finish, recording)
        module = types.ModuleType("__main__")
        module.__file__ = path
        module.__dict__["__builtins__"] = __builtins__
        sys.modules["__main__"] = module
        sys.argv = [path]
        sys.path[0] = os.path.dirname(path)
        try:
            sys.settrace(self.tracer.global_trace)
            try:
                exec(layout.code, module.__dict__)  # noqa: S102  (running the program is the point)
            finally:
                sys.settrace(None)
        except SystemExit as error:
            code = error.code
            if code is None:
                code = 0
            elif not isinstance(code, int):
                sys.stderr.write(f"{code}\n")
                code = 1
            self.result["exit_code"] = code
        except BaseException as error:  # noqa: BLE001  (the program's failure is what the test observes)
            self.result.update(error_fields(error))
        self.finish()


def trace_program():
    with open(sys.argv[1], encoding="utf-8", errors="surrogateescape") as file:
        spec = eval(file.read(), {"__builtins__": {}})  # a literal astreduce wrote: no json import
    TracedRun(spec).run()


if __name__ == "__main__":
    trace_program()
