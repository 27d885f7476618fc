"""The worker that runs candidates under another interpreter (``--python``).

Started once per job slot as ``PYTHON _worker_main.py`` and reused across
tests. Standalone on purpose: it imports nothing from astreduce, so it runs
under any Python 3.6 or newer. Each request is one JSON line on standard
input; for each, the worker forks a child that runs the candidate as
``__main__`` (as the in-process exec oracle does), answers at once with
``{"pid": N}`` so that the parent can kill the child on a timeout, and then
with the child's report.

Run as ``PYTHON _worker_main.py --entry FILE`` it runs a tree's entry file
once instead (the tree oracle's ``--entry``, :mod:`astreduce.oracles.tree`)
and prints its report as the last line of standard output, after
:data:`REPORT_MARK`.

How a run ends is reported here once, for every interpreter: the in-process
exec oracle (:mod:`astreduce.oracles.execution`) imports :func:`run_main`,
:func:`syntax_report`, :func:`crash_report` and :func:`flush_output` from this module. Their types are
given in comments, so the module stays free of annotations.
"""

import json
import os
import resource
import sys
import tempfile
import types
import warnings


def _limit(which, value):
    try:
        hard = resource.getrlimit(which)[1]
        resource.setrlimit(which, (value if hard == resource.RLIM_INFINITY else min(value, hard), hard))
    except (ValueError, OSError):
        pass


#: What precedes the report line of an ``--entry`` run on standard output.
REPORT_MARK = "@@astreduce-isolate-report@@ "


def error_message(error):
    # type: (BaseException) -> str
    try:
        return str(error)
    except BaseException:  # a hostile __str__
        return "<unprintable>"


def qualified(cls):
    # type: (type) -> str
    module = getattr(cls, "__module__", "builtins")
    name = getattr(cls, "__qualname__", cls.__name__)
    return name if module in ("builtins", "__main__") else module + "." + name


def innermost_function(error):
    # type: (BaseException) -> str
    """The name of the function the exception was raised in (the traceback's last frame).

    Walked by hand, not with ``traceback.extract_tb``: that reads every
    frame's source line from its file, a file read per test."""
    tb = error.__traceback__
    if tb is None:
        return ""
    while tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame.f_code.co_name


#: Frames a report keeps of a traceback, the innermost (``astreduce.oracles.FRAMES_KEPT``).
FRAMES_KEPT = 100


def frames_of(error, root=""):
    # type: (BaseException, str) -> list[list[object]]
    """The exception's traceback as ``[file, line]`` pairs, outermost first (the innermost
    :data:`FRAMES_KEPT`), a file under ``root`` made relative to it: where the failure happened."""
    frames = []
    prefix = root.rstrip(os.sep) + os.sep if root else ""
    tb = error.__traceback__
    while tb is not None:
        path = tb.tb_frame.f_code.co_filename
        if prefix and path.startswith(prefix):
            path = path[len(prefix):]
        frames.append([path, tb.tb_lineno or 0])
        tb = tb.tb_next
    return frames[-FRAMES_KEPT:]


def syntax_message(error):
    # type: (BaseException) -> str
    """A compile error's message without its place: "'(' was never closed", not "... (x.py, line 3)"."""
    if isinstance(error, SyntaxError) and error.msg:
        return str(error.msg)
    return error_message(error)


def syntax_report(error, keep_place=False):
    # type: (BaseException, bool) -> dict[str, object]
    """The report of a candidate that does not compile (its message with its place, if ``keep_place``)."""
    message = error_message(error) if keep_place else syntax_message(error)
    return {"ending": "syntax", "exception": type(error).__qualname__, "message": message}


def crash_report(error):
    # type: (BaseException) -> dict[str, object]
    """The report of a run that failed in astreduce's own setup, before or around the candidate."""
    return {"ending": "crash", "message": error_message(error)}


def flush_output():
    # type: () -> None
    """Flush what the candidate printed before the report is written (it may have closed or replaced them)."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        pass


def run_source(source, path, keep_place=False, root=""):
    # type: (str | bytes, str, bool, str) -> dict[str, object]
    """Compile ``source`` and run it as ``__main__`` from ``path``: the report of how it ended (frames under
    ``root`` relative to it)."""
    try:
        code = compile(source, path, "exec", dont_inherit=True)
    except BaseException as error:
        return syntax_report(error, keep_place)
    return run_main(code, path, root=root)


def run_main(code, path, then=None, root=""):
    # type: (types.CodeType | tuple[types.CodeType, ...], str, types.CodeType | None, str) -> dict[str, object]
    """Run ``code`` (then ``then``) as ``__main__`` from ``path``: the report of how it ended. ``code`` may
    be a tuple of code objects run in turn (a module's statements, compiled apart). The frames of its
    traceback that are under ``root`` (the test's folder) are given relative to it."""
    module = types.ModuleType("__main__")
    module.__file__ = path
    module.__dict__["__builtins__"] = __builtins__
    sys.modules["__main__"] = module
    try:
        for part in code if isinstance(code, tuple) else (code,):
            exec(part, module.__dict__)
        if then is not None:
            exec(then, module.__dict__)
    except BaseException as error:  # the candidate's own exception: report it, whatever it is
        return {
            "ending": "exception", "exception": qualified(type(error)), "message": error_message(error),
            "frame": innermost_function(error), "frames": frames_of(error, root),
        }
    return {"ending": "ok"}


_SIBLINGS = {}


def _sibling(name):
    # type: (str) -> types.ModuleType
    """``NAME.py`` beside this file (``confine``, ``removal``), loaded once under a private name (a
    candidate may have a module of that name)."""
    if name not in _SIBLINGS:
        import importlib.util

        spec = importlib.util.spec_from_file_location(
            "_astreduce_" + name, os.path.join(os.path.dirname(os.path.abspath(__file__)), name + ".py")
        )
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _SIBLINGS[name] = module
    return _SIBLINGS[name]


def _confine_module():
    # type: () -> types.ModuleType
    return _sibling("confine")


def confine_test(settings, folder):
    # type: (dict[str, object] | None, str) -> None
    """Confine this process to ``folder`` as astreduce confines every test; nothing when ``settings`` is None."""
    if settings is not None:
        _confine_module().confine(folder, list(settings.get("writable", [])), [], bool(settings.get("network")))


def _test_in_child(request, workdir, report_fd):
    report = {"ending": "crash"}
    try:
        _confine_module().die_with_parent()
        os.setpgid(0, 0)
        os.chdir(workdir)
        path = os.path.join(workdir, os.path.basename(request["filename"]))
        source = request["source"]
        with open(path, "w") as file:
            file.write(source)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        output = os.open(os.path.join(workdir, "output.txt"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(output, 1)
        os.dup2(output, 2)
        _limit(resource.RLIMIT_CPU, request["cpu"])
        _limit(resource.RLIMIT_AS, request["memory"])
        _limit(resource.RLIMIT_FSIZE, request["fsize"])
        _limit(resource.RLIMIT_NPROC, request["processes"])
        confine_test(request.get("confine"), workdir)
        warnings.resetwarnings()
        sys.argv = [path]
        sys.path[0:1] = [request["search_path"] or workdir]
        report = run_source(source, path, root=workdir)
    except BaseException as error:
        report = crash_report(error)
    finally:
        try:
            os.write(report_fd, json.dumps(report).encode("utf-8", "replace"))
        finally:
            os._exit(0)


def serve_requests():
    _confine_module().die_with_parent()  # confine.py loaded here, once, not in every child
    _sibling("removal")  # and removal.py
    out = sys.stdout
    for line in sys.stdin:
        request = json.loads(line)
        workdir = tempfile.mkdtemp(prefix="astreduce-")
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_fd)
            _test_in_child(request, workdir, write_fd)
        os.close(write_fd)
        out.write(json.dumps({"pid": pid}) + "\n")
        out.flush()
        data = b""
        while True:
            chunk = os.read(read_fd, 65536)
            if not chunk:
                break
            data += chunk
        os.close(read_fd)
        _, status = os.waitpid(pid, 0)
        _sibling("removal").remove_tree(workdir)  # any depth, never following a link the candidate left
        try:
            report = json.loads(data.decode("utf-8"))
        except ValueError:
            signal_number = os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
            report = {"ending": "crash", "signal": signal_number, "status": status}
        out.write(json.dumps(report) + "\n")
        out.flush()


def run_entry(entry):
    """Run the tree's ``entry`` file (from the current folder, the tree's copy) once as ``__main__``.

    The tree's folder, and the entry's own if it differs, come first on
    ``sys.path``. The report is the last line of standard output, after
    :data:`REPORT_MARK`; a compile error's message keeps its place here.
    """
    root = os.getcwd()
    path = os.path.join(root, entry)
    sys.argv = [path]
    sys.path[0:1] = [os.path.dirname(path), root] if os.path.dirname(path) != root else [root]
    report = {"ending": "crash"}
    try:
        with open(path, "rb") as file:
            source = file.read()
        report = run_source(source, path, keep_place=True, root=root)
    except BaseException as error:
        report = crash_report(error)
    finally:
        flush_output()
        os.write(1, ("\n" + REPORT_MARK + json.dumps(report) + "\n").encode("utf-8", "replace"))
        os._exit(0)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--entry"]:
        run_entry(sys.argv[2])
    else:
        serve_requests()
