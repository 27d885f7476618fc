"""The worker that runs candidates under another interpreter (``--python``).

Started once per job slot as ``PYTHON _worker_main.py`` and reused across
tests. Standalone on purpose: it imports nothing from astreduce, so it runs
under any Python 3.6 or newer. Each request is one JSON line on standard
input; for each, the worker forks a child that runs the candidate as
``__main__`` (as the in-process exec oracle does), answers at once with
``{"pid": N}`` so that the parent can kill the child on a timeout, and then
with the child's report.
"""

import json
import os
import resource
import shutil
import sys
import tempfile
import traceback
import types
import warnings


def _die_with_parent():
    try:
        import ctypes
        import signal
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _limit(which, value):
    try:
        hard = resource.getrlimit(which)[1]
        resource.setrlimit(which, (value if hard == resource.RLIM_INFINITY else min(value, hard), hard))
    except (ValueError, OSError):
        pass


def _message(error):
    try:
        return str(error)
    except BaseException:
        return "<unprintable>"


def _qualified(cls):
    module = getattr(cls, "__module__", "builtins")
    name = getattr(cls, "__qualname__", cls.__name__)
    return name if module in ("builtins", "__main__") else module + "." + name


def _child(request, workdir, report_fd):
    report = {"ending": "crash"}
    try:
        _die_with_parent()
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
        warnings.resetwarnings()
        sys.argv = [path]
        sys.path[0:1] = [request["search_path"] or workdir]
        try:
            code = compile(source, path, "exec", dont_inherit=True)
        except BaseException as error:
            message = error.msg if isinstance(error, SyntaxError) and error.msg else _message(error)
            report = {"ending": "syntax", "exception": type(error).__name__, "message": message}
        else:
            module = types.ModuleType("__main__")
            module.__file__ = path
            module.__dict__["__builtins__"] = __builtins__
            sys.modules["__main__"] = module
            try:
                exec(code, module.__dict__)
                report = {"ending": "ok"}
            except BaseException as error:
                frames = traceback.extract_tb(error.__traceback__)
                report = {
                    "ending": "exception",
                    "exception": _qualified(type(error)),
                    "message": _message(error),
                    "frame": frames[-1].name if frames else "",
                }
    except BaseException as error:
        report = {"ending": "crash", "message": _message(error)}
    finally:
        try:
            os.write(report_fd, json.dumps(report).encode("utf-8", "replace"))
        finally:
            os._exit(0)


def main():
    _die_with_parent()
    out = sys.stdout
    for line in sys.stdin:
        request = json.loads(line)
        workdir = tempfile.mkdtemp(prefix="astreduce-")
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_fd)
            _child(request, workdir, write_fd)
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
        shutil.rmtree(workdir, ignore_errors=True)
        try:
            report = json.loads(data.decode("utf-8"))
        except ValueError:
            signal_number = os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
            report = {"ending": "crash", "signal": signal_number, "status": status}
        out.write(json.dumps(report) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
