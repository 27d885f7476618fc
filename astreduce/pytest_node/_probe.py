"""The probe plugin: how each test of a pytest run ended, for astreduce's pytest oracle.

It runs inside the project's pytest, under the project's interpreter, as
the plugin ``_astreduce_pytest_probe`` (``-p``): standard library only and
free of annotations, so that any interpreter pytest supports can load it.
It records every failure of a test (phase, exception type, message) and of
a collection, and at the end prints them as one JSON line after
:data:`REPORT_MARK` on standard output (a plain ``python -m pytest`` run)
or writes them to the file descriptor ``ASTREDUCE_PYTEST_REPORT`` names
(a run forked from a warm pytest, see ``_zygote.py``).
"""

import json
import os

#: The mark of the report line on standard output.
REPORT_MARK = "@@astreduce-pytest@@"

FAILURES = []


def _qualified(kind):
    name = getattr(kind, "__qualname__", kind.__name__)
    return name if kind.__module__ == "builtins" else kind.__module__ + "." + name


#: Frames a record keeps of a traceback (the innermost).
FRAMES_KEPT = 100


def _frames(item, excinfo):
    """The traceback as ``[file, line]`` pairs, outermost first, a file under the rootdir relative to it."""
    try:
        root = str(item.config.rootpath) + os.sep
    except AttributeError:  # pytest before 6.1
        root = str(item.config.rootdir) + os.sep
    frames = []
    for entry in excinfo.traceback:
        path = str(entry.path)
        frames.append([path[len(root):] if path.startswith(root) else path, entry.lineno + 1])
    return frames[-FRAMES_KEPT:]


def pytest_runtest_makereport(item, call):
    if call.excinfo is not None and call.when in ("setup", "call", "teardown"):
        try:
            frames = _frames(item, call.excinfo)
        except Exception:  # a traceback pytest cannot walk: no place, the failure itself still counts
            frames = []
        FAILURES.append({
            "nodeid": item.nodeid, "when": call.when,
            "type": _qualified(call.excinfo.type), "message": str(call.excinfo.value), "frames": frames,
        })


def pytest_sessionstart(session):
    """A warm run (forked from ``_zygote.py``) reports every failure by its exception's line: a collection's
    (an import that broke), a setup's, a teardown's. Pytest's formats parse the source of every frame (70 ms for a
    syntax error three imports deep in a project of five lines, 30 to 70 ms a failure on pint), and nobody reads a
    warm run's output: the records are all astreduce needs, and :func:`pytest_exception_interact` takes a broken
    collection's exception from the exception itself. The ``line`` format, which pytest asks for a skip and reads
    back, stays pytest's own."""
    if not os.environ.get("ASTREDUCE_PYTEST_ZYGOTE"):
        return
    try:
        from _pytest._code.code import ExceptionInfo
    except ImportError:  # a pytest that keeps it elsewhere: its own formats, only slower
        return
    pytests = ExceptionInfo.getrepr

    def getrepr(excinfo, *args, **kwargs):
        if kwargs.get("style", args[1] if len(args) > 1 else None) == "line":
            return pytests(excinfo, *args, **kwargs)
        return _exception_line(excinfo)

    ExceptionInfo.getrepr = getrepr


def pytest_collection_finish(session):
    """A warm run's failing test is reported by its exception's line without the pruning of its traceback that
    comes before any format. Set after collection: the items are made then."""
    if os.environ.get("ASTREDUCE_PYTEST_ZYGOTE"):
        for item in session.items:
            item.repr_failure = _exception_line


def _exception_line(excinfo):
    """What a warm run's report says of a failure: ``Type: message``."""
    return excinfo.exconly()


def pytest_collectreport(report):
    if report.failed:
        record = {"nodeid": report.nodeid, "when": "collect", "type": "", "message": str(report.longrepr)[-2000:]}
        record.update(_COLLECT_CAUSES.pop(report.nodeid, {}))
        FAILURES.append(record)


#: What broke a collection, by the collector's node id, until its report is recorded.
_COLLECT_CAUSES = {}


def pytest_exception_interact(node, call, report):
    """What broke a collection (a module that raises as it is imported): the exception, the one pytest wraps for
    an import (its ``__cause__``), with its type, message and traceback, so that a failed collection says why."""
    if getattr(report, "when", None) != "collect" or call.excinfo is None:
        return
    try:
        cause = _cause(node, call.excinfo)
    except Exception:  # saying why must never break the run: the record stays as pytest made it
        return
    for record in FAILURES:  # recorded already (pytest's order of the two hooks is not promised)
        if record["nodeid"] == report.nodeid and record["when"] == "collect" and not record["type"]:
            record.update(cause)
            return
    _COLLECT_CAUSES[report.nodeid] = cause


def _cause(node, excinfo):
    """The record of what a collection raised: the import error pytest wraps in its own, else what it caught."""
    error = excinfo.value
    trace = excinfo.tb
    wrapped = getattr(error, "__cause__", None)  # Python 3: the import error pytest wraps
    if wrapped is not None:
        error, trace = wrapped, getattr(wrapped, "__traceback__", None)
    try:
        root = str(node.config.rootpath) + os.sep
    except AttributeError:  # pytest before 6.1
        root = str(node.config.rootdir) + os.sep
    frames = []
    while trace is not None:
        path = trace.tb_frame.f_code.co_filename
        frames.append([path[len(root):] if path.startswith(root) else path, trace.tb_lineno])
        trace = trace.tb_next
    return {"type": _qualified(type(error)), "message": str(error), "frames": frames[-FRAMES_KEPT:]}


def report():
    """The records, as the line the parent reads."""
    return REPORT_MARK + json.dumps(FAILURES)


def pytest_unconfigure(config):
    if not os.environ.get("ASTREDUCE_PYTEST_ZYGOTE"):
        os.write(1, ("\n" + report() + "\n").encode("utf-8", "replace"))
