"""Finding the interpreter that ``--python PATH_OR_VERSION`` names."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

from astreduce.errors import UsageError


def _pyenv_versions() -> list[Path]:
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    try:
        return sorted((p for p in root.iterdir() if p.is_dir()), key=lambda p: _version_key(p.name))
    except OSError:
        return []


def _version_key(name: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", name))


def resolve_python(spec: str | None) -> str:
    """The path of the interpreter ``spec`` names; the running one when ``spec`` is empty.

    ``spec`` is a path, a command on PATH (``python3.12``), or a version
    (``3.12``, ``3.12.1``) looked up among pyenv's installed versions.

    Raises:
        UsageError: no such interpreter.
    """
    if not spec:
        return sys.executable
    if os.sep in spec and os.path.isfile(spec) and os.access(spec, os.X_OK):
        return os.path.abspath(spec)
    if re.fullmatch(r"\d+(\.\d+){0,2}", spec):
        matches = [p for p in _pyenv_versions() if p.name == spec or p.name.startswith(spec + ".")]
        for version in reversed(matches):
            for name in ("python3", "python"):
                candidate = version / "bin" / name
                if candidate.is_file():
                    return str(candidate)
        on_path = shutil.which(f"python{spec}")
        if on_path:
            return on_path
        raise UsageError(f"--python {spec}: no such Python version installed (pyenv versions, or python{spec} on PATH)")
    found = shutil.which(spec)
    if found:
        return found
    raise UsageError(f"--python {spec}: no such interpreter")


@lru_cache(maxsize=None)
def version_of(python: str) -> tuple[int, int]:
    """The (major, minor) version of an interpreter."""
    if python == sys.executable:
        return sys.version_info[:2]
    try:
        done = subprocess.run(
            [python, "-c", "import sys; print('%d %d' % sys.version_info[:2])"],
            capture_output=True, text=True, timeout=30, check=True,
        )
        major, minor = done.stdout.split()
        return int(major), int(minor)
    except (OSError, subprocess.SubprocessError, ValueError) as error:
        raise UsageError(f"--python {python}: cannot run it: {error}") from None


#: The oldest interpreter the exec oracle's worker (``run/_worker_main.py``) runs under.
OLDEST_WORKER = (3, 6)


def require_worker_python(python: str, spec: str | None) -> None:
    """Refuse at once an interpreter too old for the exec oracle's worker, saying what to use instead.

    Without this, a worker that cannot even start under Python 2.7 left astreduce
    waiting on its pipe for ever.

    Raises:
        UsageError: ``python`` is older than :data:`OLDEST_WORKER`.
    """
    if python == sys.executable:
        return
    version = version_of(python)
    if version < OLDEST_WORKER:
        oldest = ".".join(map(str, OLDEST_WORKER))
        raise UsageError(
            f"--python {spec or python} is Python {version[0]}.{version[1]}: the exec oracle runs candidates "
            f"under Python {oldest} or newer; for an older Python use a command oracle, e.g. --run '{{python}} {{file}}'"
        )
