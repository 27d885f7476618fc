"""A function of the candidate's text called in a forked, confined child (the predicate oracle's test):
it is the user's code, so it runs in the room as a candidate does."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable

from astreduce.run._worker_main import error_message, flush_output, innermost_function, qualified
from astreduce.run.confine import die_with_parent
from astreduce.run.sandbox import Limits, enter_test_folder, make_workdir
from astreduce.run.cgroups import ProcessGroupCap
from astreduce.run.spare import OUTPUT_NAME, Job


def call_in_child(function: Callable[[str], object], text: str, limits: Limits, timeout: float, cpu_timeout: float | None) -> Job:
    """Fork a child that calls ``function(text)`` in a test folder of its own; the job reports how it ended
    (``ok`` with ``message`` ``true`` or ``false``, the exception it raised, or the crash or timeout)."""
    cap = ProcessGroupCap(limits.processes)
    workdir = make_workdir()
    read_fd, write_fd = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read_fd)
        _call(function, text, workdir, write_fd, limits, cap)
    os.close(write_fd)
    try:
        os.setpgid(pid, pid)  # also here: a kill of its group must not find no group
    except OSError:
        pass
    return Job(pid, read_fd, workdir, timeout, cap, cpu_timeout, own_files=frozenset({OUTPUT_NAME}))


def _call(function: Callable[[str], object], text: str, workdir: str, report_fd: int, limits: Limits, cap: ProcessGroupCap) -> None:
    """Call ``function`` in the sandbox and write how it ended to ``report_fd``; never returns."""
    report: dict[str, object] = {"ending": "crash"}
    try:
        enter_test_folder(workdir, OUTPUT_NAME)
        die_with_parent()
        limits.apply()
        cap.join_before_spawning()
        limits.confine_to(workdir)
        try:
            result = bool(function(text))
        except BaseException as error:  # the function's own failure: UNRESOLVED, never astreduce's
            report = {"ending": "exception", "exception": qualified(type(error)), "message": error_message(error), "frame": innermost_function(error)}
        else:
            report = {"ending": "ok", "message": "true" if result else "false"}
    except BaseException as error:  # the sandbox's setup failed: a crash report
        report = {"ending": "crash", "message": error_message(error)}
    finally:
        try:
            flush_output()
            report["spawned"] = cap.spawned
            os.write(report_fd, json.dumps(report).encode("utf-8", errors="replace") + b"\n")
        finally:
            os._exit(0)


__all__ = ["call_in_child"]
