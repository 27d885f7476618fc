"""A command's process: started in a test folder of its own, in its own process group and pids
cgroup, under the test's limits and confinement, its output to files (never pipes, so a chatty tool
cannot block; only the last 64 KiB of each is read); how it ended, as a :class:`Signature`.

The command oracles (:mod:`astreduce.oracles.command`) judge the signatures; the pytest oracle and
the slice command run their processes here too.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal as signals
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from astreduce.run import Run
from astreduce.run.confine import die_with_parent
from astreduce.run.sandbox import Limits, kill_group, pdeathsig_launcher, release_workdir, wait_exit
from astreduce.run.cgroups import ProcessGroupCap

_TAIL = 65536
#: The files in a test's folder that receive a command's standard output and error.
STDOUT_NAME, STDERR_NAME = ".astreduce-stdout", ".astreduce-stderr"


@dataclass(frozen=True)
class Signature:
    """How a command ended: killed by a signal, or its exit status; and its last stderr line."""

    signal: str | None
    exit_code: int | None
    stderr_line: str
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0
    timed_out: bool = False

    def describe(self) -> str:
        if self.timed_out:
            return "timed out"
        ending = f"killed by {self.signal}" if self.signal else f"exit status {self.exit_code}"
        return f"{ending}, stderr: {self.stderr_line!r}" if self.stderr_line else ending

    def to_run(self) -> Run:
        output = self.stdout + self.stderr  # what it printed (the tails): for --verbose
        if self.timed_out:
            return Run("timeout", seconds=self.seconds, detail="timed out", output=output)
        if self.signal:
            return Run("crash", seconds=self.seconds, detail=self.describe(), message=self.stderr_line, output=output)
        ending = "ok" if self.exit_code == 0 else "exception"
        return Run(
            ending, exception=f"exit {self.exit_code}", message=self.stderr_line, seconds=self.seconds, detail=self.describe(),
            output=output,
        )


def _signal_name(number: int) -> str:
    try:
        return signals.Signals(number).name
    except ValueError:
        return f"SIG{number}"


def _tail(path: Path) -> str:
    try:
        with open(path, "rb") as file:
            file.seek(0, os.SEEK_END)
            size = file.tell()
            file.seek(max(0, size - _TAIL))
            return file.read().decode("utf-8", errors="replace")
    except OSError:
        return ""


def last_line(text: str) -> str:
    """The last line of ``text`` with something on it, stripped: what a one-line message quotes."""
    for line in reversed(text.splitlines()):
        if line.strip():
            return line.strip()
    return ""


#: What a gated command's shell runs: it waits for a line on its standard input (the
#: go-ahead), then becomes the command, its standard input from the file named first
#: (``--stdin``) or /dev/null. Closing the pipe instead makes it exit unstarted.
_GATE = 'read -r _ || exit 125; f=$1; shift; if [ -n "$f" ]; then exec "$@" <"$f"; fi; exec "$@" </dev/null'


class Process:
    """One command running in its own folder, process group and cgroup.

    A *gated* process (``gated=True``, when ``setpriv`` is there) is started
    ahead of its test: its limits and its cgroup are in place while it waits
    at the gate, and :meth:`release` lets it run. Joining a pids cgroup costs
    about 5 ms a process (cgroup v1 waits for RCU), starting one 1.4 ms:
    gated processes made ahead, off the test's path, save both.
    """

    def __init__(
        self, argv: list[str], workdir: str, timeout: float, limits: Limits, stdin_path: str | None, shell: bool,
        own_files: frozenset[str] = frozenset(), gated: bool = False, env: dict[str, str] | None = None,
    ) -> None:
        self.workdir = workdir
        self.own_files = own_files | {STDOUT_NAME, STDERR_NAME}
        """What the folder may hold for the next test to reuse it (emptied)."""
        self.shell = shell
        self.timeout = timeout
        self.started = time.monotonic()
        self._pidfd: int | None = None
        self.cap = ProcessGroupCap(limits.processes)
        self.out = Path(workdir) / STDOUT_NAME
        self.err = Path(workdir) / STDERR_NAME
        cap = self.cap
        # confinement is applied by the process to itself, between fork and exec: no launcher then
        launcher = pdeathsig_launcher() if not limits.confine else None

        def prepare() -> None:  # runs in the child between fork and exec
            die_with_parent()
            cap.join()
            limits.apply()
            limits.confine_to(workdir)

        self.gated = gated and (launcher is not None or limits.confine)
        if self.gated:
            with open(self.out, "wb") as out, open(self.err, "wb") as err:
                command = argv if not shell else ["/bin/sh", "-c", argv[0]]
                self.popen = subprocess.Popen(
                    [*(launcher or []), "/bin/sh", "-c", _GATE, "sh", stdin_path or "", *command],
                    cwd=workdir, stdin=subprocess.PIPE, stdout=out, stderr=err, start_new_session=True, env=env,
                    preexec_fn=None if launcher else prepare,
                )
            if launcher:
                limits.apply(self.popen.pid)
                cap.join(self.popen.pid)
            self.result: Signature | None = None
            return
        if not shell and launcher is not None:  # it would say "setpriv: failed to execute ...": say it of the program
            program = os.path.join(workdir, argv[0]) if os.sep in argv[0] else shutil.which(argv[0])
            if program is None or not os.path.isfile(program) or not os.access(program, os.X_OK):
                self._cannot_start(argv[0], found=program is not None and os.path.isfile(program), why="Permission denied")
                return
        with open(self.out, "wb") as out, open(self.err, "wb") as err, open(stdin_path or os.devnull, "rb") as inp:
            if launcher is not None:
                # no Python between fork and exec: the limits and the cgroup are set from here,
                # while the launcher is still starting, before the command can start anything
                self.popen = subprocess.Popen(
                    [*launcher, *(argv if not shell else ["/bin/sh", "-c", argv[0]])],
                    cwd=workdir, stdin=inp, stdout=out, stderr=err, start_new_session=True, env=env,
                )
                limits.apply(self.popen.pid)
                cap.join(self.popen.pid)
            else:
                try:
                    self.popen = subprocess.Popen(
                        argv if not shell else argv[0],
                        shell=shell,
                        cwd=workdir,
                        stdin=inp,
                        stdout=out,
                        stderr=err,
                        start_new_session=True,
                        preexec_fn=prepare,
                        env=env,
                    )
                except OSError as error:
                    if shell or error.errno not in (errno.ENOENT, errno.EACCES, errno.ENOEXEC, errno.ENOTDIR):
                        raise
                    self._cannot_start(argv[0], found=error.errno != errno.ENOENT, why=error.strerror or "")
                    return
        self.result = None

    def _cannot_start(self, program: str, *, found: bool, why: str) -> None:
        """End at once as a shell ends a command it cannot start: 127 not found, 126 not executable."""
        said = f"{program}: {why if found else 'command not found'}"
        self.err.write_text(said + "\n")
        self.result = Signature(None, 126 if found else 127, said, stderr=said + "\n")
        release_workdir(self.workdir, self.own_files)

    def release(self, timeout: float, limits: Limits) -> None:
        """Let a gated process run its command now, with these limits and this timeout."""
        assert self.gated and self.popen.stdin is not None
        limits.apply(self.popen.pid)
        self.timeout = timeout
        self.started = time.monotonic()
        try:
            self.popen.stdin.write(b"go\n")
            self.popen.stdin.close()
        except OSError:  # it died at the gate: its wait says how
            pass

    def done(self, timeout: float | None = None) -> bool:
        """Whether the command has ended or run out of time (then :meth:`wait` returns at once)."""
        if self.result is not None or self.popen.returncode is not None:
            return True
        limit = self.timeout if timeout is None else timeout
        return self.popen.poll() is not None or time.monotonic() >= self.started + limit

    def ready_fd(self) -> int | None:
        """A descriptor readable once the command has ended (a pidfd), or None."""
        if self._pidfd is None and self.result is None:
            try:
                self._pidfd = os.pidfd_open(self.popen.pid)
            except (AttributeError, OSError):
                return None
        return self._pidfd

    def _close_pidfd(self) -> None:
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None

    def wait(self, timeout: float | None = None) -> Signature:
        if self.result is not None:
            return self.result
        self._close_pidfd()
        limit = self.timeout if timeout is None else timeout
        remaining = max(0.0, self.started + limit - time.monotonic())
        timed_out = not wait_exit(self.popen, remaining)
        seconds = time.monotonic() - self.started
        self._stop()
        code = self.popen.returncode
        if self.shell and code is not None and 128 < code < 128 + 65:
            code = -(code - 128)  # the shell reports a child killed by signal N as 128+N
        stderr = _tail(self.err)
        self.result = Signature(
            signal=_signal_name(-code) if code is not None and code < 0 and not timed_out else None,
            exit_code=code if code is not None and code >= 0 else None,
            stderr_line=last_line(stderr),
            stdout=_tail(self.out),
            stderr=stderr,
            seconds=seconds,
            timed_out=timed_out,
        )
        release_workdir(self.workdir, self.own_files)
        return self.result

    def kill(self) -> None:
        self._close_pidfd()
        if self.result is None:
            self._stop()
            self.result = Signature(None, None, "", timed_out=True)
            release_workdir(self.workdir, self.own_files)

    def _stop(self) -> None:
        if self.popen.stdin is not None and not self.popen.stdin.closed:
            try:
                self.popen.stdin.close()
            except OSError:
                pass
        kill_group(self.popen.pid)
        try:
            self.popen.wait(5)
        except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL does not fail
            pass
        self.cap.kill_all()  # after the wait: an unreaped child would still count as a member


class ProcessesPending:
    """A test of one or more processes (one per command); it ends when they all have, and
    cancelling kills them all. ``wait_limit``: the seconds after which a process counts as ended
    (it ran out of time; None: each process's own limit)."""

    def __init__(self, processes: list[Process], wait_limit: float | None = None) -> None:
        self.processes = processes
        self.wait_limit = wait_limit

    def done(self) -> bool:
        return all(p.done(self.wait_limit) for p in self.processes)

    def ready_fds(self) -> list[int] | None:
        """Descriptors to wait on for the test's end (None: cannot tell, wait() instead)."""
        fds = [p.ready_fd() for p in self.processes if not p.done(self.wait_limit)]
        return None if None in fds else [fd for fd in fds if fd is not None]

    def cancel(self) -> None:
        for process in self.processes:
            process.kill()


__all__ = ["STDERR_NAME", "STDOUT_NAME", "Process", "ProcessesPending", "Signature", "last_line"]
