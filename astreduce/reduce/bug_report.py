"""A bug report a maintainer can paste: ``--bug-report FILE`` writes the result as Markdown.

What a maintainer asks of a reduced program is what this page says, in
that order: the command that shows the failure, the program (each file as a
code block), the failure as Python or pytest prints it, where each line came
from in their own code, and the Python and third-party distributions it
runs with. The failure is not made up from the reduction's records: the
command runs once more, confined as every candidate runs, in a fresh folder
holding the result, and its output is quoted with that folder's path made
the output's own.
"""

from __future__ import annotations

import ast
import json
import os
import shlex
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from astreduce.files import materialise
from astreduce.oracles.command import script_argv, substitute
from astreduce.run.process import Process
from astreduce.oracles.options import OracleOptions
from astreduce.run.sandbox import Limits, make_workdir, remove_workdir
from astreduce.reduce.provenance import Provenance
from astreduce.source.imports import module_name
from astreduce.version import VERSION

__all__ = ["Reproduction", "bug_report", "distributions", "reproduce"]

#: Seconds the reproducing run may take.
RUN_SECONDS = 120.0
#: Lines of the failing run's output the report quotes (its end).
OUTPUT_LINES = 60


@dataclass(frozen=True)
class Reproduction:
    """How to show the failure: a command run in a folder holding the result's files.

    ``shown`` is the command as the user types it, from where the result
    was written; ``argv`` (a shell command line when ``shell``) runs it in a
    folder holding ``files``.
    ``where`` is what the run's folder is in ``shown``'s terms (the output
    folder, or '' when the files sit beside the user).
    """

    shown: str
    argv: tuple[str, ...]
    files: Mapping[str, str]
    shell: bool = False
    where: str = ""
    env: Mapping[str, str] | None = None
    """Variables set for the run besides the environment's (``PYTHONPATH``: the input's folder, as its tests had)."""


@dataclass(frozen=True)
class Ran:
    """What the reproducing command did: how it ended, and the end of what it printed."""

    ending: str
    output: str


def reproduce(reproduction: Reproduction, limits: Limits) -> Ran:
    """Run ``reproduction`` once, confined by ``limits``, in a fresh folder: how it ended and what it printed."""
    workdir = make_workdir()
    try:
        materialise(reproduction.files, workdir)
        argv = [reproduction.argv[0]] if reproduction.shell else list(reproduction.argv)
        env = {**os.environ, **reproduction.env} if reproduction.env else None
        process = Process(argv, workdir, RUN_SECONDS, limits.for_timeout(RUN_SECONDS), None, reproduction.shell, env=env)
        signature = process.wait()
        shown = f"{reproduction.where.rstrip('/')}/" if reproduction.where else ""
        output = (signature.stdout + signature.stderr).replace(workdir + os.sep, shown).replace(workdir, reproduction.where or ".")
        lines = [line for line in output.splitlines() if "@@astreduce" not in line]
        return Ran(signature.describe(), "\n".join(lines[-OUTPUT_LINES:]))
    finally:
        remove_workdir(workdir)


_DISTRIBUTIONS = r"""
import json, platform, sys
names = json.loads(sys.argv[1])
standard = set(getattr(sys, "stdlib_module_names", ())) | set(sys.builtin_module_names)
if not getattr(sys, "stdlib_module_names", None):
    import importlib.util, sysconfig
    stdlib = sysconfig.get_paths()["stdlib"]
    for name in names:
        try:
            spec = importlib.util.find_spec(name)
        except Exception:
            continue
        origin = getattr(spec, "origin", None) or ""
        if origin.startswith(stdlib) and "site-packages" not in origin:
            standard.add(name)
found = []
wanted = set(names) - standard
try:
    from importlib.metadata import distributions
    for dist in distributions():
        if not wanted:
            break
        tops = (dist.read_text("top_level.txt") or "").split()
        if not tops:
            for line in (dist.read_text("RECORD") or "").splitlines():
                part = line.split(",", 1)[0].split("/", 1)[0]
                tops.append(part[:-3] if part.endswith(".py") else part)
        for name in sorted(wanted.intersection(tops)):
            found.append([dist.metadata["Name"], dist.version, name])
except ImportError:
    pass
print(json.dumps({"python": platform.python_version(), "implementation": platform.python_implementation(), "found": found}))
"""


def imported_modules(files: Mapping[str, str]) -> list[str]:
    """The top-level names of the modules the result's Python files import, less the result's own modules."""
    own = {name.split(".")[0] for path in files if (name := module_name(path)) is not None}
    names: set[str] = set()
    for path, text in files.items():
        if not path.endswith((".py", ".pyw")):
            continue
        try:
            module = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        for node in ast.walk(module):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return sorted(names - own)


def distributions(python: str, modules: list[str]) -> tuple[str, list[tuple[str, str, str]]]:
    """The interpreter's version, and the third-party distributions (name, version, module) providing ``modules``."""
    try:
        done = subprocess.run(
            [python, "-I", "-c", _DISTRIBUTIONS, json.dumps(modules)], capture_output=True, text=True, timeout=60, check=False,
        )
        found = json.loads(done.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.TimeoutExpired, ValueError, IndexError):
        return "unknown", []
    version = f"{found.get('implementation', 'Python')} {found.get('python', '?')}"
    return version, [(str(d), str(v), str(m)) for d, v, m in found.get("found", [])]


def bug_report(
    *, title: str, files: Mapping[str, str], provenance: Provenance | None, reproduction: Reproduction, ran: Ran,
    python: str, names: Mapping[str, str] | None = None, original: str, sizes: str, appended: tuple[str, str] | None = None,
) -> str:
    """The Markdown page (see the module docstring).

    Args:
        title: what fails, in a few words (the target).
        files: the result's files by their path in the result.
        provenance: where each line and the failure come from.
        reproduction: the command that shows the failure; ``ran``: what it did.
        python: the interpreter the result runs under.
        names: how to name each result path on the page (an output file's own name).
        original: the input, as the user named it; ``sizes``: the reduction in figures.
        appended: the ``--append`` script's name and text, shown after the program (it is not reduced).
    """
    named = dict(names or {})
    version, found = distributions(python, imported_modules(files))
    out = [f"# {title}", "", f"Reduced from `{original}` by astreduce {VERSION}: {sizes}.", ""]
    out += ["## Reproduce", "", "```sh", reproduction.shown, "```", ""]
    out += ["## The program", ""]
    for path in sorted(files):
        shown = named.get(path, path)
        out += [f"`{shown}`:", "", _fence(files[path], "python" if path.endswith((".py", ".pyw")) else ""), ""]
    if appended is not None:
        out += [f"`{appended[0]}`, the test appended to it (not reduced):", "", _fence(appended[1], "python"), ""]
    out += ["## The failure", "", f"The command ends with {ran.ending}, printing:", "", _fence(ran.output or "(nothing)", ""), ""]
    if provenance is not None and provenance.raised_at is not None:
        out += [_raised(provenance, named), ""]
    if provenance is not None:
        out += ["## Where each line comes from", "", "| file | line | from | function |", "| --- | ---: | --- | --- |"]
        for path in sorted(provenance.files):
            for entry in provenance.entries(path):
                origin = f"`{entry['file']}:{entry['origin_line']}`" if entry["file"] else "new"
                function = f"`{entry['function']}`" if entry["function"] else ""
                out.append(f"| `{named.get(path, path)}` | {entry['line']} | {origin} | {function} |")
        renames, _ = provenance.changes()
        if renames:
            out += ["", "Renamed: " + ", ".join(f"`{old}` → `{new}`" for old, new in sorted(renames.items())) + "."]
        out.append("")
    out += ["## Environment", "", f"- {version} (`{python}`)"]
    if found:
        out += [f"- `{dist}` {dist_version} (imported as `{module}`)" for dist, dist_version, module in found]
    else:
        out.append("- no third-party distribution is imported")
    out.append("")
    return "\n".join(out)


def _raised(provenance: Provenance, named: Mapping[str, str]) -> str:
    """Where the result fails and where that line comes from, in a sentence."""
    assert provenance.raised_at is not None
    path, line = provenance.raised_at
    where = provenance.raised_from
    if where is not None and where.pinned:
        return f"It is raised in the appended script, line {where.line}, which the reduction did not change."
    said = f"It is raised at `{named.get(path, path)}:{line}`"
    if where is not None:
        function = f" in `{where.function}`" if where.function else " at module level"
        said += f", a line that comes from `{where.file}:{where.line}`{function} of the original"
    return said + "."


def _fence(text: str, language: str) -> str:
    """``text`` as a fenced code block, its fence longer than any run of backticks in it."""
    longest = max((len(run) for run in text.split("\n") for run in _backtick_runs(run)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text.rstrip()}\n{fence}"


def _backtick_runs(line: str) -> list[str]:
    runs, current = [], ""
    for char in line:
        if char == "`":
            current += char
        elif current:
            runs.append(current)
            current = ""
    if current:
        runs.append(current)
    return runs


def shell_join(words: list[str]) -> str:
    return shlex.join(words)


def python_name(python: str) -> str:
    """``python`` when it is the interpreter a user would type as ``python``, else its path."""
    return "python" if os.path.realpath(python) == os.path.realpath(sys.executable) else python


def relative(path: Path) -> str:
    """``path`` as the user named it, relative to the working folder when it is inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def for_file(
    options: OracleOptions, output: Path, *, input_name: str, python: str, search_path: str, text: str,
    append: tuple[str, str] | None = None,
) -> Reproduction:
    """How to show a reduced file's failure: run it (with its appended script), or the command or script that judged it.

    Args:
        output: where the result was written; ``input_name``: the input's file name (a test script gets the
            candidate under it); ``text``: the result.
        append: the ``--append`` script's name and text.
    """
    shown_out = relative(output)
    where = str(Path(shown_out).parent) if Path(shown_out).parent != Path(".") else ""
    base = output.name
    py = python_name(python)
    judged = options.command_oracle(python) if options.runs_commands else None
    commands = judged.commands if judged is not None else None
    if judged is not None and judged.script:
        script = judged.commands[0]
        return Reproduction(
            f"mkdir -p repro && cp {shlex.quote(shown_out)} repro/{shlex.quote(input_name)} && "
            f"(cd repro && {shlex.quote(script)} {shlex.quote(input_name)})",
            (*script_argv(script), input_name), {input_name: text},
        )
    if commands is not None:
        values = {"file": base, "python": python, "dir": "."}
        shown_values = {"file": shown_out, "python": py, "dir": where or "."}
        stdin = " < " + shlex.quote(shown_out) if options.stdin else ""
        shown = " ; echo --- ; ".join(substitute(c, **shown_values) + stdin for c in commands)
        run = " ; echo --- ; ".join(substitute(c, **values) + (" < " + shlex.quote(base) if options.stdin else "") for c in commands)
        return Reproduction(shown, (run,), {base: text}, shell=True, where=where)
    if append is not None:
        name, script = append
        return Reproduction(
            f"cat {shlex.quote(shown_out)} {shlex.quote(name)} | {py} -",
            (f"cat {shlex.quote(base)} {shlex.quote(Path(name).name)} | {shlex.quote(python)} -",),
            {base: text, Path(name).name: script}, shell=True, where=where, env={"PYTHONPATH": search_path} if search_path else None,
        )
    return Reproduction(
        f"{py} {shlex.quote(shown_out)}", (python, base), {base: text}, where=where,
        env={"PYTHONPATH": search_path} if search_path else None,
    )


def for_tree(options: OracleOptions, outdir: Path, files: Mapping[str, str], *, entry: str | None, python: str) -> Reproduction:
    """How to show a reduced tree's failure: its entry run from the folder, or the command or script that judged it."""
    shown_dir = relative(outdir)
    py = python_name(python)
    judged = options.command_oracle(python) if options.runs_commands else None
    commands = judged.commands if judged is not None else None
    if judged is not None and judged.script:
        script = judged.commands[0]
        return Reproduction(f"{shlex.quote(script)} {shlex.quote(shown_dir)}", (*script_argv(script), "."), files, where=shown_dir)
    if commands is not None:
        file = entry or "."
        shown = " ; echo --- ; ".join(
            substitute(c, file=f"{shown_dir}/{entry}" if entry else shown_dir, python=py, dir=shown_dir) for c in commands
        )
        run = " ; echo --- ; ".join(substitute(c, file=file, python=python, dir=".") for c in commands)
        return Reproduction(shown, (run,), files, shell=True, where=shown_dir)
    assert entry is not None
    nested = "/" in entry
    prefix = "PYTHONPATH=. " if nested else ""
    return Reproduction(
        f"cd {shlex.quote(shown_dir)} && {prefix}{py} {shlex.quote(entry)}", (python, entry), files, where=shown_dir,
        env={"PYTHONPATH": "."} if nested else None,
    )


def for_pytest(outdir: Path, files: Mapping[str, str], *, nodeid: str, python: str) -> Reproduction:
    """How to show a reduced project's failure: pytest on the node, in the project's folder."""
    shown_dir = relative(outdir)
    return Reproduction(
        f"cd {shlex.quote(shown_dir)} && {python_name(python)} -m pytest {shlex.quote(nodeid)}",
        (python, "-m", "pytest", "-p", "no:cacheprovider", nodeid), files, where=shown_dir,
    )
