"""The command line as a user meets it: real files, real subprocesses, real exit statuses.

Every test writes a small program to a temporary folder and runs
``python -m astreduce`` (or the installed ``astreduce`` script) on it, then
checks the exit status, what went to stdout and stderr, and the files left
on disk — the output must still reproduce when run with ``python``.
"""

from __future__ import annotations

import ast
import json
import os
import stat
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

import click
from click.testing import CliRunner

from astreduce.transforms import registered_transforms
import pytest

ASTREDUCE = [sys.executable, "-m", "astreduce"]

#: The literature's running example: a markup stripper with a quote bug, a guard
#: that raises a *different* exception when tags are no longer stripped, and a
#: failing check.
MARKUP = '''\
def remove_html_markup(s):
    tag = False
    quote = False
    out = ""
    for c in s:
        if c == "<" and not quote:
            tag = True
        elif c == ">" and not quote:
            tag = False
        elif c == '"' or c == "'" and tag:
            quote = not quote
        elif not tag:
            out = out + c
    return out


def unrelated(n):
    return [i * i for i in range(n)]


padding = unrelated(10)
if remove_html_markup("<b>bold</b>") != "bold":
    raise RuntimeError("tags are no longer stripped")
assert remove_html_markup('"<b>foo</b>"') == '"foo"', "My Test"
'''

#: A module without a failure of its own and a separate check that makes it fail.
MODULE = '''\
def average(values):
    unused = len(values)
    return sum(values) / len(values)


class Box:
    def __init__(self, items):
        self.items = items
'''
CHECK = "CHECK_MARKER = average(Box([]).items)\n"


def astreduce(*args: str | Path, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ASTREDUCE, *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=timeout
    )


def run_python(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, path.name], cwd=path.parent, capture_output=True, text=True, timeout=30)


def last_error(path: Path) -> str:
    """The last line of the traceback ``python path`` prints ('' when it raises nothing)."""
    lines = run_python(path).stderr.strip().splitlines()
    return lines[-1] if lines else ""


def innermost_frame(path: Path) -> str:
    """The function name of the innermost frame of the traceback ``python path`` prints."""
    frames = re.findall(r'^  File ".*", line \d+, in (\S+)$', run_python(path).stderr, re.M)
    return frames[-1] if frames else ""


def one_line(stderr: str) -> str:
    """``stderr`` must be exactly one line, from astreduce, without a traceback."""
    assert "Traceback" not in stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("astreduce: "), stderr
    return lines[0]


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


# --- a full run: output, stdout, stderr, report -----------------------------------


@dataclass
class Reduction:
    folder: Path
    input: Path
    output: Path
    report: dict[str, object]
    process: subprocess.CompletedProcess[str]
    input_bytes: bytes
    input_mtime: int


@pytest.fixture(scope="module")
def reduction(tmp_path_factory: pytest.TempPathFactory) -> Reduction:
    folder = tmp_path_factory.mktemp("markup")
    path = write(folder, "markup.py", MARKUP)
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))  # an mtime a rewrite could not keep by accident
    before = path.read_bytes()
    process = astreduce("reduce", "markup.py", "--expect", "AssertionError:My Test", "--report", "r.json", cwd=folder)
    report = json.loads((folder / "r.json").read_text()) if (folder / "r.json").exists() else {}
    return Reduction(folder, path, folder / "markup.reduced.py", report, process, before, 1_000_000_000)


def test_reduce_exits_0_and_writes_the_default_output(reduction: Reduction) -> None:
    assert reduction.process.returncode == 0, reduction.process.stderr
    assert reduction.output.is_file()
    assert sorted(p.name for p in reduction.folder.iterdir()) == ["markup.py", "markup.reduced.py", "r.json"]


def test_output_reproduces_and_is_smaller(reduction: Reduction) -> None:
    assert last_error(reduction.output) == "AssertionError: My Test"
    assert len(reduction.output.read_bytes()) < len(reduction.input_bytes) / 4


def test_result_goes_to_stdout_and_summary_to_stderr(reduction: Reduction) -> None:
    assert reduction.process.stdout.strip() == reduction.output.read_text().strip()
    summary = reduction.process.stderr.strip().splitlines()[-1]
    assert "markup.py -> markup.reduced.py" in summary
    assert re.search(r"\d+ -> \d+ tokens", summary), summary
    assert reduction.output.read_text().strip() not in reduction.process.stderr


def test_input_is_not_modified(reduction: Reduction) -> None:
    assert reduction.input.read_bytes() == reduction.input_bytes
    assert reduction.input.stat().st_mtime_ns == reduction.input_mtime


def test_report_has_the_design_fields(reduction: Reduction) -> None:
    report = reduction.report
    for side, path in (("input", "markup.py"), ("output", "markup.reduced.py")):
        sizes = report[side]
        assert isinstance(sizes, dict)
        assert Path(sizes["path"]).name == path
        for key in ("bytes", "lines", "tokens"):
            assert isinstance(sizes[key], int) and sizes[key] > 0, (side, key)
    assert report["input"]["bytes"] == len(reduction.input_bytes)  # type: ignore[index]
    assert report["output"]["bytes"] == len(reduction.output.read_bytes())  # type: ignore[index]
    assert report["input"]["lines"] == sum(1 for line in MARKUP.splitlines() if line.strip())  # type: ignore[index]
    assert report["output"]["tokens"] < report["input"]["tokens"]  # type: ignore[index,operator]
    assert isinstance(report["tests"], int) and report["tests"] > 0
    assert isinstance(report["cache_hits"], int) and report["cache_hits"] >= 0
    assert isinstance(report["seconds"], float) and report["seconds"] > 0
    assert isinstance(report["oracle_seconds"], float)
    assert 0 < report["oracle_seconds"] <= report["seconds"]
    assert report["strategy"] == "auto"
    assert report["verified"] is True
    passes = report["passes"]
    assert isinstance(passes, list) and passes
    for stats in passes:
        assert set(stats) >= {"name", "tests", "seconds", "tokens_before", "tokens_after"}
        assert stats["name"] and stats["tests"] >= 0 and stats["seconds"] >= 0
        assert stats["tokens_after"] <= stats["tokens_before"]
    assert sum(p["tests"] for p in passes) <= report["tests"]  # type: ignore[operator]
    assert passes[0]["tokens_before"] == report["input"]["tokens"]  # type: ignore[index]
    assert passes[-1]["tokens_after"] >= report["output"]["tokens"]  # type: ignore[index]  # black may still shrink it
    # how the tests ended: they add up, every improvement was a FAIL read, and deleting code breaks the program often
    outcomes = report["outcomes"]
    assert isinstance(outcomes, dict) and set(outcomes) == {"FAIL", "PASS", "UNRESOLVED"}
    assert sum(outcomes.values()) == report["tests"] and min(outcomes.values()) >= 0
    assert outcomes["FAIL"] >= len(report["history"]) - 1 > 0  # type: ignore[arg-type]
    assert outcomes["UNRESOLVED"] > outcomes["FAIL"]


def test_the_pass_yields_bench_adds_up_a_report_s_passes_by_kind(reduction: Reduction) -> None:
    bench = Path(__file__).resolve().parent.parent / "bench" / "pass_yields.py"
    done = subprocess.run(
        [sys.executable, str(bench), str(reduction.folder / "r.json"), "--top", "1000"], capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[1].startswith("  outcomes: FAIL ")
    rows = [line.split() for line in lines[3:]]
    passes = reduction.report["passes"]
    assert isinstance(passes, list)
    assert sum(int(row[-5]) for row in rows) == sum(p["tests"] for p in passes)  # every pass in one kind
    assert sum(int(row[-2]) for row in rows) == passes[0]["tokens_before"] - passes[-1]["tokens_after"]
    assert not any(".py:" in line or "level 0" in line for line in lines[3:])  # kinds, not files or levels


def test_output_option_and_console_script(tmp_path: Path) -> None:
    write(tmp_path, "markup.py", MARKUP)
    script = Path(sys.executable).with_name("astreduce")
    assert script.is_file()
    process = subprocess.run(
        [str(script), "reduce", "markup.py", "-o", "small.py", "-q", "--no-format", "--transforms", "delete"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60,
    )
    assert process.returncode == 0, process.stderr
    assert process.stderr == ""  # -q: nothing but errors
    assert not (tmp_path / "markup.reduced.py").exists()
    assert process.stdout == ""  # -o names where the result goes: not also standard output
    assert last_error(tmp_path / "small.py") == "AssertionError: My Test"


# --- choosing the target ------------------------------------------------------------


def test_without_expect_the_original_exception_is_the_target(tmp_path: Path) -> None:
    write(tmp_path, "lookup.py", 'table = {"a": 1}\nother = [1, 2, 3]\nprint(len(other))\nvalue = table["missing"]\n')
    process = astreduce("reduce", "lookup.py", "-q", "--no-format", "--transforms", "delete", cwd=tmp_path)
    assert process.returncode == 0, process.stderr
    assert last_error(tmp_path / "lookup.reduced.py") == "KeyError: 'missing'"


MESSAGE = 'values = [1, 2, 3, 4]\nlimit = 3\nraise ValueError(f"value {len(values)} is over the limit 12345")\n'


def test_default_match_keeps_the_message(tmp_path: Path) -> None:
    write(tmp_path, "message.py", MESSAGE)
    process = astreduce("reduce", "message.py", "-q", "--no-format", cwd=tmp_path)
    assert process.returncode == 0, process.stderr
    assert last_error(tmp_path / "message.reduced.py") == "ValueError: value 4 is over the limit 12345"


def test_match_type_lets_the_message_go(tmp_path: Path) -> None:
    write(tmp_path, "message.py", MESSAGE)
    process = astreduce("reduce", "message.py", "-q", "--no-format", "--match", "type", cwd=tmp_path)
    assert process.returncode == 0, process.stderr
    error = last_error(tmp_path / "message.reduced.py")
    assert error.startswith("ValueError")
    assert "12345" not in error
    assert "12345" not in (tmp_path / "message.reduced.py").read_text()


def test_match_regex(tmp_path: Path) -> None:
    write(tmp_path, "message.py", MESSAGE)
    process = astreduce("reduce", "message.py", "-q", "--no-format", "--match", r"regex:limit \d{3}", cwd=tmp_path)
    assert process.returncode == 0, process.stderr
    error = last_error(tmp_path / "message.reduced.py")
    assert error.startswith("ValueError") and re.search(r"limit \d{3}", error), error
    assert "value 4 is over" not in error  # the part the pattern does not ask for is gone


def test_the_failure_stays_in_the_function_that_raised_it(tmp_path: Path) -> None:
    # the raising line may move (hoisted, inlined), but it comes from average's line, as the report says
    write(tmp_path, "box.py", MODULE + CHECK)
    for flags in ((), ("--same-frame",)):
        process = astreduce("reduce", "box.py", "-q", "--no-format", "--report", "r.json", *flags, cwd=tmp_path)
        assert process.returncode == 0, process.stderr
        output = tmp_path / "box.reduced.py"
        assert last_error(output).startswith("ZeroDivisionError")
        raised = json.loads((tmp_path / "r.json").read_text())["failure"]["raised_at"]
        assert (raised["origin_file"], raised["origin_line"], raised["function"]) == ("box.py", 3, "average")
        assert len(output.read_text()) < len(MODULE)


def test_same_frame_and_anywhere_contradict(tmp_path: Path) -> None:
    write(tmp_path, "box.py", MODULE + CHECK)
    process = astreduce("reduce", "box.py", "--same-frame", "--anywhere", cwd=tmp_path)
    assert process.returncode == 2
    assert "--anywhere" in one_line(process.stderr)


def test_append_reduces_only_the_module(tmp_path: Path) -> None:
    write(tmp_path, "box.py", MODULE)
    write(tmp_path, "check.py", "assert average(Box([2, 4]).items) == 3\n" + CHECK)
    process = astreduce("reduce", "box.py", "--append", "check.py", "-q", "--no-format", cwd=tmp_path)
    assert process.returncode == 0, process.stderr
    output = (tmp_path / "box.reduced.py").read_text()
    assert "CHECK_MARKER" not in output and "Box([2, 4])" not in output and "assert" not in output
    assert (tmp_path / "box.py").read_text() == MODULE
    combined = write(tmp_path, "combined.py", output + "\n" + (tmp_path / "check.py").read_text())
    assert last_error(combined).startswith("ZeroDivisionError")


# --- the input does not reproduce: exit 1 -------------------------------------------


def test_input_raising_nothing_exits_1(tmp_path: Path) -> None:
    write(tmp_path, "fine.py", "x = 1\nprint(x)\n")
    process = astreduce("reduce", "fine.py", "-q", cwd=tmp_path)
    assert process.returncode == 1
    line = one_line(process.stderr)
    assert "does not reproduce" in line and "no exception" in line
    assert process.stdout == ""
    assert not (tmp_path / "fine.reduced.py").exists()


def test_input_raising_nothing_with_expect_exits_1(tmp_path: Path) -> None:
    write(tmp_path, "fine.py", "x = 1\n")
    process = astreduce("reduce", "fine.py", "-q", "--expect", "AssertionError:My Test", cwd=tmp_path)
    assert process.returncode == 1
    line = one_line(process.stderr)
    assert "AssertionError('My Test')" in line and "no exception" in line


def test_input_raising_another_exception_names_both(tmp_path: Path) -> None:
    write(tmp_path, "other.py", "print(undefined_name)\n")
    process = astreduce("reduce", "other.py", "-q", "--expect", "AssertionError:My Test", cwd=tmp_path)
    assert process.returncode == 1
    line = one_line(process.stderr)
    assert "expected AssertionError('My Test')" in line
    assert "got NameError(" in line and "undefined_name" in line
    assert not (tmp_path / "other.reduced.py").exists()


# --- bad usage: exit 2, one line -------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        pytest.param(["--strategy", "nope"], "'nope'", id="unknown-strategy"),
        pytest.param(["--transforms", "delete,nope"], "unknown transform nope", id="unknown-transform"),
        pytest.param(["--expect", "1bad"], "--expect", id="bad-expect"),
        pytest.param(["--expect", ""], "--expect", id="empty-expect"),
        pytest.param(["--match", "bogus"], "--match", id="bad-match"),
        pytest.param(["--match", "regex:("], "regular expression", id="bad-regex"),
        pytest.param(["-o", "prog.py"], "overwrite the input", id="output-is-input"),
        pytest.param(["-o", "./sub/../prog.py"], "overwrite the input", id="output-is-input-by-another-name"),
        pytest.param(["-o", "missing/out.py"], "missing", id="output-folder-missing"),
        pytest.param(["-o", "sub"], "sub", id="output-is-a-directory"),
        pytest.param(["--report", "missing/r.json"], "missing", id="report-folder-missing"),
        pytest.param(["--in-place", "-o", "out.py"], "--in-place", id="in-place-and-output"),
        pytest.param(["--append", "nothere.py"], "nothere.py", id="append-missing"),
        pytest.param(["--no-such-option"], "--no-such-option", id="unknown-option"),
    ],
)
def test_bad_usage_exits_2_with_one_line(tmp_path: Path, args: list[str], expected: str) -> None:
    path = write(tmp_path, "prog.py", 'assert False, "My Test"\n')
    (tmp_path / "sub").mkdir()
    process = astreduce("reduce", "prog.py", "-q", *args, cwd=tmp_path)
    assert process.returncode == 2, process.stderr
    assert expected in one_line(process.stderr)
    assert process.stdout == ""
    assert path.read_text() == 'assert False, "My Test"\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["prog.py", "sub"]


def test_unknown_command_exits_2_with_one_line(tmp_path: Path) -> None:
    process = astreduce("bogus", cwd=tmp_path)
    assert process.returncode == 2
    assert "bogus" in one_line(process.stderr)


# --- --in-place -----------------------------------------------------------------------


def test_in_place_keeps_a_backup(tmp_path: Path) -> None:
    path = write(tmp_path, "markup.py", MARKUP)
    process = astreduce("reduce", "markup.py", "--in-place", "-q", "--no-format", "--transforms", "delete", cwd=tmp_path)
    assert process.returncode == 0, process.stderr
    assert (tmp_path / "markup.py.orig").read_text() == MARKUP
    assert len(path.read_text()) < len(MARKUP)
    assert last_error(path) == "AssertionError: My Test"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["markup.py", "markup.py.orig"]
    # a second run must not overwrite the first backup, the only copy of the original
    again = astreduce("reduce", "markup.py", "--in-place", "-q", "--no-format", cwd=tmp_path)
    assert again.returncode == 2
    assert "markup.py.orig" in one_line(again.stderr)
    assert (tmp_path / "markup.py.orig").read_text() == MARKUP


def test_in_place_on_an_input_that_does_not_reproduce_leaves_everything_alone(tmp_path: Path) -> None:
    path = write(tmp_path, "fine.py", "x = 1\n")
    process = astreduce("reduce", "fine.py", "--in-place", "-q", cwd=tmp_path)
    assert process.returncode == 1
    assert path.read_text() == "x = 1\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fine.py"]


# --- transforms, help, version ---------------------------------------------------------


def test_transforms_lists_every_registered_name(tmp_path: Path) -> None:
    process = astreduce("transforms", cwd=tmp_path)
    assert process.returncode == 0, process.stderr
    listed = [line.split()[0] for line in process.stdout.splitlines() if line.strip()]
    registered = set(registered_transforms())  # the built-ins, found in the package, and any plugin's
    assert "delete" in registered and "assign-to-pass" in registered
    assert sorted(listed) == sorted(registered)
    for line in process.stdout.splitlines():
        assert len(line.split()) >= 3, f"no description: {line!r}"


def test_help_lists_the_commands(tmp_path: Path) -> None:
    process = astreduce("--help", cwd=tmp_path)
    assert process.returncode == 0
    assert re.search(r"^\s+reduce\s", process.stdout, re.M)
    assert re.search(r"^\s+transforms\s", process.stdout, re.M)


def test_reduce_help_shows_every_option_with_help_text(tmp_path: Path) -> None:
    from astreduce.cli.reduce import reduce_command as reduce

    process = astreduce("reduce", "--help", cwd=tmp_path)
    assert process.returncode == 0
    text = process.stdout
    options = [p for p in reduce.params if isinstance(p, click.Option) and not p.hidden]
    names = {name for p in options for name in (*p.opts, *p.secondary_opts)}
    assert names >= {
        "-o", "--output", "--in-place", "--strategy", "--transforms", "--expect", "--match", "--anywhere", "--allow-syntax-errors",
        "--append", "--timeout", "--format", "--no-format", "--report", "-q", "--quiet", "--debug",
    }
    for name in names:
        assert re.search(rf"(^|[\s,/]){re.escape(name)}\b", text), f"{name} missing from --help"
    for option in options:
        assert option.help, f"{option.opts} has no help text"
    for strategy in ("auto", "hdd", "flat", "lines", "chars", "tokens"):
        assert strategy in text


OPTIONS_PAGE = Path(__file__).resolve().parent.parent / "docs" / "options.md"


def _kind(option: click.Option) -> str:
    """The kind of value an option takes, which one meaning implies: a flag, a number, a path, a word."""
    if option.is_flag or option.count:
        return "flag"
    if isinstance(option.type, (click.types.IntParamType, click.types.FloatParamType)):
        return "number"
    if isinstance(option.type, click.Path):
        return "path"
    return "word"


def _documented_options() -> dict[str, tuple[str, set[str]]]:
    """docs/options.md's first table: each option's long name -> (its meaning, the commands that have it)."""
    table = OPTIONS_PAGE.read_text(encoding="utf-8").split("## Every option", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in table.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("`"):
            long = re.findall(r"`(--[a-z-]+)`", cells[0])[-1]
            rows[long] = (cells[1], {name.strip() for name in cells[2].split(",")})
    return rows


def test_every_option_has_one_meaning_on_every_command_as_docs_options_says() -> None:
    """For every command's ``--help``: each option it shows is in docs/options.md's table with exactly the
    commands that have it (one meaning for all of them), and takes the same kind of value on each."""
    from astreduce.cli import every_command, main

    documented = _documented_options()
    having: dict[str, set[str]] = {}
    kinds: dict[str, dict[str, str]] = {}
    for name, command in sorted(every_command().items()):
        options = [p for p in command.params if isinstance(p, click.Option) and not p.hidden]
        if not options:
            continue
        shown = CliRunner().invoke(main, [name, "--help"]).output  # in this process: six --help at once
        for option in options:
            long = max(option.opts, key=len)
            assert re.search(rf"(^|[\s,/]){re.escape(long)}\b", shown), f"{name}: {long} missing from --help"
            having.setdefault(long, set()).add(name)
            kinds.setdefault(long, {})[name] = _kind(option)
    assert set(documented) == set(having), "docs/options.md and the commands' options differ"
    for long, (meaning, commands) in documented.items():
        assert meaning, long
        assert commands == having[long], f"{long}: docs/options.md says {sorted(commands)}, --help {sorted(having[long])}"
        assert len(set(kinds[long].values())) == 1, f"{long} takes different kinds of value: {kinds[long]}"


def test_every_command_with_o_says_where_it_goes_in_docs_options() -> None:
    from astreduce.cli import every_command

    table = OPTIONS_PAGE.read_text(encoding="utf-8").split("## `-o`", 1)[1]
    documented = {line.split("|")[1].strip() for line in table.splitlines() if line.startswith("| ") and "---" not in line}
    with_o = {name for name, command in every_command().items() if any("-o" in getattr(p, "opts", ()) for p in command.params)}
    assert documented - {"command"} == with_o


def test_version(tmp_path: Path) -> None:
    process = astreduce("--version", cwd=tmp_path)
    assert process.returncode == 0
    assert process.stdout.strip() == f"astreduce, version {version('astreduce')}"


# --- comparison strategies --------------------------------------------------------------


@pytest.mark.parametrize("strategy", ["lines", "chars", "tokens", "hdd", "flat"])
def test_each_strategy_reduces_and_reports_itself(tmp_path: Path, strategy: str) -> None:
    write(tmp_path, "tiny.py", "x = 1\nraise KeyError(2)\n")
    process = astreduce("reduce", "tiny.py", "-q", "--no-format", "--strategy", strategy, "--report", "r.json", cwd=tmp_path)
    assert process.returncode == 0, process.stderr
    output = tmp_path / "tiny.reduced.py"
    assert last_error(output) == "KeyError: 2"
    assert "x = 1" not in output.read_text()
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["strategy"] == strategy and report["verified"] is True and report["tests"] > 0


# --- interruption -------------------------------------------------------------------------


def slow_module() -> str:
    """About 300 statements that depend on each other, each test sleeping 10 ms: tens of seconds to reduce."""
    lines = ["junk = 'goes first'", "import time", "time.sleep(0.01)", "v0 = 0"]
    lines += [f"v{i} = v{i - 1} + 1" for i in range(1, 300)]
    lines.append('if v299 == 299:\n    raise ValueError("My Test")')
    return "\n".join(lines) + "\n"


def wait_for(path: Path, seconds: float, smaller_than: int | None = None) -> None:
    """Wait until ``path`` exists (and is smaller than ``smaller_than`` bytes)."""
    deadline = time.monotonic() + seconds
    while not path.exists() or (smaller_than is not None and path.stat().st_size >= smaller_than):
        if time.monotonic() > deadline:
            raise AssertionError(f"{path} did not appear (or shrink) within {seconds} s")
        time.sleep(0.02)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_signal_writes_the_best_so_far_and_exits_130(tmp_path: Path, signum: int) -> None:
    source = slow_module()
    path = write(tmp_path, "slow.py", source)
    output = tmp_path / "slow.reduced.py"
    process = subprocess.Popen(
        [*ASTREDUCE, "reduce", "slow.py", "-q", "--no-format"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        wait_for(output, 20, smaller_than=len(source))  # the first improvement: the reduction is under way
        time.sleep(0.5)
        process.send_signal(signum)
        stdout, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 130, stderr
    line = one_line(stderr)
    assert "interrupted" in line and "slow.reduced.py" in line and "verified" in line
    text = output.read_text()
    ast.parse(text)  # complete, not cut off mid-write
    assert len(text) < len(source)
    assert stdout == ""  # -q: the result is in the file only, and the summary stays on the screen
    assert last_error(output) == "ValueError: My Test"
    assert path.read_text() == source
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


@dataclass
class EarlyInterrupt:
    process: subprocess.Popen[str]
    stderr: str
    child: int
    folder: Path


def _is_alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.fixture(scope="module")
def early_interrupt(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EarlyInterrupt]:
    """SIGINT while the original's first run (which sleeps 30 s) is still going."""
    folder = tmp_path_factory.mktemp("early")
    pid_file = folder / "child.pid"
    write(
        folder,
        "sleepy.py",
        f"import os, time\nopen({str(pid_file)!r}, 'w').write(str(os.getpid()))\ntime.sleep(30)\nraise ValueError('late')\n",
    )
    process = subprocess.Popen(
        [*ASTREDUCE, "reduce", "sleepy.py", "-q", "--allow-write", str(folder)], cwd=folder, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )
    try:
        wait_for(pid_file, 20)
        time.sleep(0.2)
        child = int(pid_file.read_text())
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    yield EarlyInterrupt(process, stderr, child, folder)
    if _is_alive(child):  # the oracle's child, started by this test through astreduce
        os.kill(child, signal.SIGKILL)


def test_signal_before_the_reduction_starts_exits_130(early_interrupt: EarlyInterrupt) -> None:
    assert early_interrupt.process.returncode == 130
    assert "interrupted" in one_line(early_interrupt.stderr)
    assert not (early_interrupt.folder / "sleepy.reduced.py").exists()


def test_signal_leaves_no_candidate_running(early_interrupt: EarlyInterrupt) -> None:
    deadline = time.monotonic() + 1.0
    while _is_alive(early_interrupt.child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _is_alive(early_interrupt.child)


def test_cancelling_a_test_interrupted_while_it_is_reaped(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a Ctrl-C at the wrong moment did before the CLI stopped between tests: exit 1, a traceback."""
    from astreduce.oracles import Target, execution
    from astreduce.run import spare

    oracle = execution.ExecOracle(target=Target("ValueError", match="type"), timeout=10)
    pending = oracle.start("raise ValueError('x')\n")
    release = spare.release_workdir

    def interrupted(path: str, own_files: frozenset[str]) -> None:
        monkeypatch.setattr(spare, "release_workdir", release)
        release(path, own_files)
        raise KeyboardInterrupt  # as if SIGINT arrived here

    monkeypatch.setattr(spare, "release_workdir", interrupted)
    with pytest.raises(KeyboardInterrupt):
        pending.wait()
    pending.cancel()  # what Session._parallel's cleanup does on the way out


def test_results_and_reports_get_the_mode_a_plain_open_gives(tmp_path: Path) -> None:
    """0666 less the umask for a new file; --in-place keeps the input's own mode (a script stays executable)."""
    program = "def f(x):\n    return x\n\nassert f(1) == 2, 'My Test'\n"
    for name, mode in (("plain.py", 0o644), ("script.py", 0o755)):
        (tmp_path / name).write_text(program)
        (tmp_path / name).chmod(mode)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*ASTREDUCE, "reduce", *args, "-q", "-j", "1"], cwd=tmp_path, capture_output=True, text=True, timeout=300,
            preexec_fn=lambda: os.umask(0o022), check=False,
        )

    done = run("plain.py", "-o", "out.py", "--report", "report.json")
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE((tmp_path / "out.py").stat().st_mode) == 0o644
    assert stat.S_IMODE((tmp_path / "report.json").stat().st_mode) == 0o644
    done = run("script.py", "--in-place")
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE((tmp_path / "script.py").stat().st_mode) == 0o755
    assert (tmp_path / "script.py").read_text() != program and (tmp_path / "script.py.orig").read_text() == program


# --- budgets, choices and what a run says (issue 29) --------------------------------------------

CORPUS = Path(__file__).resolve().parent.parent / "corpora" / "markup_stripping"


def _markup(tmp_path: Path, *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ASTREDUCE, "reduce", str(CORPUS / "input.py"), "--append", str(CORPUS / "check.py"), "--expect", "AssertionError:My Test",
         "-o", str(tmp_path / "out.py"), *options],
        capture_output=True, text=True, timeout=600, check=False,
    )


def _fails_the_same_way(tmp_path: Path) -> bool:
    program = (tmp_path / "out.py").read_text() + "\n" + (CORPUS / "check.py").read_text()
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60, check=False)
    return done.stderr.strip().splitlines()[-1] == "AssertionError: My Test"


@pytest.mark.parametrize("choice", [["--transforms", "-rename"], ["--keep-names"]])
def test_leaving_rename_out_keeps_the_names(tmp_path: Path, choice: list[str]) -> None:
    done = _markup(tmp_path, *choice, "-q")
    assert done.returncode == 0, done.stderr
    reduced = (tmp_path / "out.py").read_text()
    assert all(re.search(rf"\b{name}\b", reduced) for name in ("tag", "quote", "out")), reduced
    assert _fails_the_same_way(tmp_path)


def test_a_transform_cannot_be_both_chosen_and_left_out(tmp_path: Path) -> None:
    done = _markup(tmp_path, "--transforms", "delete,-rename", "-q")
    assert done.returncode == 2
    assert done.stderr.strip() == "astreduce: --transforms takes names to use (rename,delete) or names to leave out (-rename,-delete), not both"


def test_max_tests_stops_with_a_verified_result(tmp_path: Path) -> None:
    done = _markup(tmp_path, "--max-tests", "8", "-j", "1", "-q", "--report", str(tmp_path / "r.json"))
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["tests"] <= 10 and report["budget_ended"] and report["verified"]
    assert _fails_the_same_way(tmp_path)


def test_max_time_ends_the_run_with_exit_0(tmp_path: Path) -> None:
    done = _markup(tmp_path, "--max-time", "1", "-q", "--report", str(tmp_path / "r.json"))
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "r.json").read_text())["verified"]
    assert _fails_the_same_way(tmp_path)


def test_the_report_on_standard_output_is_one_json_document(tmp_path: Path) -> None:
    done = _markup(tmp_path, "--report", "-", "-q")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)  # nothing else on standard output: the result is in out.py
    assert report["target"] == "AssertionError('My Test')" and report["verified"] is True
    assert report["astreduce_version"] == version("astreduce") and report["astreduce_python"].startswith("CPython 3.")
    assert report["command"].startswith("astreduce reduce ") and "--report -" in report["command"]
    assert report["output"]["path"] == str(tmp_path / "out.py") and (tmp_path / "out.py").is_file()


def test_the_run_says_what_it_reduces_for(tmp_path: Path) -> None:
    done = _markup(tmp_path, "-j", "1")
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if not line.startswith("[")]
    assert lines[0].startswith(f"astreduce: {CORPUS / 'input.py'}: 85 tokens, 19 non-blank lines; the exec oracle (expects AssertionError:My Test")
    assert "target: AssertionError('My Test')" in lines[0] and "(one run of the original takes " in lines[0]
    assert lines[0].endswith("; candidates must parse, as the input does (--allow-syntax-errors lifts this); failing at the --append script, line 9")
    assert lines[-1].endswith("(verified); still AssertionError('My Test'); raised in the --append script, line 9")


def test_a_line_marked_keep_is_never_deleted_or_rewritten(tmp_path: Path) -> None:
    program = tmp_path / "kept.py"
    program.write_text(
        "import math\n\nLIMIT = 10  # astreduce: keep\nlabel = 'circle'\n\n\ndef area(r):\n    return math.pi * r * r\n\n\n"
        "assert area(2) < LIMIT, 'too big'\n"
    )
    done = subprocess.run([*ASTREDUCE, "reduce", str(program), "-o", str(tmp_path / "out.py"), "-q", "--keep", r"math\.pi"],
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    reduced = (tmp_path / "out.py").read_text()
    assert "LIMIT = 10  # astreduce: keep\n" in reduced and "    return math.pi * r * r\n" in reduced
    assert "label" not in reduced


def test_compare_wants_matplotlib_before_it_runs_a_strategy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from click.testing import CliRunner

    from astreduce.cli import main

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *rest: None if name == "matplotlib" else real(name, *rest))
    (tmp_path / "prog.py").write_text("assert False, 'x'\n")
    result = CliRunner().invoke(main, ["compare", str(tmp_path / "prog.py"), "--plot", str(tmp_path / "plot.png")])
    assert result.exit_code == 2
    assert result.stderr == "astreduce: --plot needs matplotlib: pip install 'astreduce[plot]'\n"


def test_verbose_shows_how_each_test_ended_and_what_it_printed(tmp_path: Path) -> None:
    program = tmp_path / "talks.py"
    program.write_text("print('hello from the candidate')\nx = 1\nprint('value', x)\nassert x == 2, 'no'\n")
    done = subprocess.run([*ASTREDUCE, "reduce", str(program), "-o", str(tmp_path / "out.py"), "-v", "2", "-j", "1"],
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    assert re.search(r"^astreduce: test 1: (PASS|FAIL|UNRESOLVED) \(", done.stderr, re.M)
    assert "  | value 1\n" in done.stderr and "  | hello from the candidate\n" in done.stderr
