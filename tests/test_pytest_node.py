"""``astreduce pytest NODEID``: a failing test reduced with its project, under pytest itself.

``tests/data/pytest_project`` is a small package (``shapes``) with ten
tests, one of them failing through a bug in ``polygon_area``;
``corpora/pytest/`` holds projects where a plugin, conftest files and heavy
imports take part. Every check here runs pytest for real: warm processes
forked from a configured pytest, plain ``python -m pytest`` processes, and
the CLI as a subprocess.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")

from astreduce.errors import UsageError
from astreduce.source.measure import measure
from astreduce.oracles.signature import neutral
from astreduce.outcome import Outcome
from astreduce.run import Run
from astreduce.pytest_node import PytestOracle, read_project, split_nodeid, without_other_tests
from astreduce.pytest_node.oracle import deferrable_conftests

HERE = Path(__file__).resolve().parent
PROJECT = HERE / "data" / "pytest_project"
NODE = "tests/test_geometry.py::TestPolygonArea::test_square_away_from_the_origin"
CORPORA = HERE.parent / "corpora" / "pytest"
CASES = sorted(p.name for p in CORPORA.iterdir() if (p / "case.toml").is_file())


def unmet(name: str) -> list[str]:
    """The requirements of a case (its ``requires``) that this interpreter does not meet."""
    from importlib.metadata import PackageNotFoundError, version

    from packaging.requirements import Requirement

    missing = []
    for text in tomllib.loads((CORPORA / name / "case.toml").read_text(encoding="utf-8")).get("requires", []):
        requirement = Requirement(text)
        try:
            found = version(requirement.name)
        except PackageNotFoundError:
            missing.append(text)
            continue
        if not requirement.specifier.contains(found, prereleases=True):
            missing.append(f"{text} (found {found})")
    return missing


#: The cases this interpreter can run (the others need a venv of their own: ``bench/`` makes one).
#: Cases whose warm-against-plain check runs with ``-m slow`` only (15 to 25 s each): the suite keeps the others.
SLOW_CASES = {"heavy_import", "conftest_fixture", "shop_hypothesis", "dateutil_981"}
RUNNABLE = [
    pytest.param(name, marks=pytest.mark.skip(reason=f"needs {', '.join(unmet(name))}")) if unmet(name)
    else pytest.param(name, marks=[pytest.mark.slow, *[pytest.mark.plugins] * (name == "shop_hypothesis")]) if name in SLOW_CASES
    else name
    for name in CASES
]
ASTREDUCE = [sys.executable, "-m", "astreduce"]
PYTHON_312 = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions" / "3.12.1" / "bin" / "python3.12"

#: A wide terminal, so that pytest's short summary keeps the failure's message.
WIDE = {**os.environ, "COLUMNS": "500"}


def run_pytest(folder: Path, *args: str, python: str = sys.executable) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [python, "-B", "-m", "pytest", "-q", "-p", "no:cacheprovider", "--color=no", "-rf", *args],
        cwd=folder, capture_output=True, text=True, timeout=300, env=WIDE, check=False,
    )


def failure_line(done: subprocess.CompletedProcess[str]) -> str:
    """pytest's short summary line for the failing node: ``FAILED node - Type: message``."""
    return next(line for line in done.stdout.splitlines() if line.startswith("FAILED "))


def case(name: str) -> dict[str, object]:
    return tomllib.loads((CORPORA / name / "case.toml").read_text(encoding="utf-8"))


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    copy = tmp_path / "project"
    shutil.copytree(PROJECT, copy)
    return copy


def test_the_node_fails_in_the_shipped_project_and_the_others_pass() -> None:
    done = run_pytest(PROJECT)
    assert done.returncode == 1
    assert "1 failed, 9 passed" in done.stdout
    assert failure_line(done).startswith(f"FAILED {NODE} - assert 5.0 == 4")


@pytest.mark.parametrize(
    ("test", "kept", "gone"),
    [
        ("TestPolygonArea::test_square_away_from_the_origin", ["class TestPolygonArea", "def test_square_away"], ["def test_rectangle_area", "def test_triangle", "def test_empty", "def test_perimeter", "@pytest.mark"]),
        ("test_perimeter[points0-8.0]", ["def test_perimeter", "@pytest.mark.parametrize"], ["class TestPolygonArea", "def test_circle"]),
    ],
)
def test_other_tests_go_first(test: str, kept: list[str], gone: list[str]) -> None:
    text = (PROJECT / "tests" / "test_geometry.py").read_text(encoding="utf-8")
    alone = without_other_tests(text, test)
    assert alone is not None
    for needle in kept:
        assert needle in alone
    for needle in gone:
        assert needle not in alone
    assert "def unit_square" in alone and "SQUARE = " in alone  # fixtures and helpers stay
    compile(alone, "test_geometry.py", "exec")


def test_node_ids_are_checked() -> None:
    assert split_nodeid("tests/test_x.py::TestA::test_b[1-2]") == ("tests/test_x.py", "TestA::test_b[1-2]")
    for bad in ("tests/test_x.py", "test_b", "tests/test_x.txt::test_b", "tests/test_x.py::"):
        with pytest.raises(UsageError, match="is not a test's node id"):
            split_nodeid(bad)


def test_the_project_is_the_test_and_what_it_imports(project: Path) -> None:
    read = read_project(project, NODE)
    assert read.reduced == {"tests/test_geometry.py", "shapes/__init__.py", "shapes/geometry.py"}
    assert set(read.tree) == read.reduced | {"pytest.ini"}  # the configuration is only kept or deleted
    assert "math" in read.imports and "shapes" not in read.imports
    assert read.python == sys.executable and read.python_origin == "astreduce's own"
    narrowed = read_project(project, NODE, reduce=["shapes/geometry.py"])
    assert narrowed.reduced == {"tests/test_geometry.py", "shapes/geometry.py"}


def test_imports_are_followed_through_packages_relative_imports_and_conftests(tmp_path: Path) -> None:
    files = {
        "conftest.py": "from app.settings import DEBUG\n",
        "app/__init__.py": "",
        "app/settings.py": "DEBUG = True\n",
        "app/core/__init__.py": "from .engine import run\n",
        "app/core/engine.py": "from ..util import helper\nimport numpy\n",
        "app/util.py": "def helper(): pass\n",
        "app/unused.py": "",
        "tests/test_core.py": "from app.core import run\n\ndef test_run():\n    assert run()\n",
        "docs/index.md": "# docs\n",
    }
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    read = read_project(tmp_path, "tests/test_core.py::test_run")
    assert read.reduced == {
        "tests/test_core.py", "conftest.py", "app/__init__.py", "app/settings.py", "app/core/__init__.py",
        "app/core/engine.py", "app/util.py",
    }
    assert set(read.tree) == set(files)  # the rest may be deleted, never changed
    assert "numpy" in read.imports


def test_the_project_virtual_environment_runs_the_tests(project: Path, tmp_path: Path) -> None:
    wrapper = project / ".venv" / "bin" / "python"
    wrapper.parent.mkdir(parents=True)
    wrapper.write_text(f"#!/bin/sh\nexec {sys.executable} \"$@\"\n")
    wrapper.chmod(0o755)
    (project / ".venv" / "pyvenv.cfg").write_text("home = /nowhere\n")
    read = read_project(project, NODE)
    assert (read.python, read.python_origin) == (str(wrapper), "the project's .venv")
    assert not any(p.startswith(".venv") for p in read.tree)  # never part of the project
    assert read_project(project, NODE, python=sys.executable).python_origin == "--python"


@pytest.fixture()
def oracle(project: Path) -> Iterator[PytestOracle]:
    judged = PytestOracle(read_project(project, NODE))
    try:
        yield judged
    finally:
        judged.close()


def test_the_oracle_judges_by_node_phase_type_and_message(oracle: PytestOracle) -> None:
    files = dict(oracle.project.tree)
    first = oracle.calibrate(files)
    assert first.outcome is Outcome.FAIL and oracle.target is not None and oracle.warm
    assert oracle.target.nodeid == NODE and oracle.target.when == "call"
    assert oracle.target.exception == "AssertionError" and oracle.target.message.startswith("assert 5.0 == 4")
    fixed = files["shapes/geometry.py"].replace("range(len(points) - 1)", "range(len(points))").replace(
        "points[i + 1]", "points[(i + 1) % len(points)]"
    )
    other = files["shapes/geometry.py"].replace("return abs(total) / 2", "return abs(total) / 3")  # 10/3, not 5.0
    broken = files["tests/test_geometry.py"].replace("import math", "import math_that_is_not_there")
    for candidate, outcome in [
        ({**files, "shapes/geometry.py": fixed}, Outcome.PASS),
        ({**files, "shapes/geometry.py": other}, Outcome.UNRESOLVED),
        ({**files, "tests/test_geometry.py": broken}, Outcome.UNRESOLVED),
        (files, Outcome.FAIL),
    ]:
        assert oracle.judge(candidate).outcome is outcome
        assert oracle.judge_plain(candidate).outcome is outcome
    assert neutral("at 0x7f00aa in /tmp/x", numbers=False) == "at <address> in <tmp>"


def test_a_candidate_whose_test_module_raises_as_it_is_imported_says_what_it_raised(oracle: PytestOracle) -> None:
    files = dict(oracle.project.tree)
    assert oracle.calibrate(files).outcome is Outcome.FAIL
    for line, raised in [("import math_that_is_not_there", "ModuleNotFoundError"), ("1 + ''", "TypeError")]:
        candidate = {**files, "tests/test_geometry.py": line + "\n" + files["tests/test_geometry.py"]}
        for verdict in (oracle.judge(candidate), oracle.judge_plain(candidate)):  # warm: pytest stops on a usage error
            assert verdict.outcome is Outcome.UNRESOLVED
            assert verdict.run.exception == raised, verdict.run
            assert verdict.run.frames[-1] == ("tests/test_geometry.py", 1), verdict.run.frames


def test_a_warm_test_prints_no_header_and_its_failure_by_its_exception_line(oracle: PytestOracle) -> None:
    """A warm test's output is nobody's to read: no header (it reads every plugin's metadata again) and a failing
    test's report is its exception's line (no traceback, whose source lines are read frame by frame); the verdict
    and the probe's record of the failure are the plain run's."""
    files = dict(oracle.project.tree)
    assert oracle.calibrate(files).outcome is Outcome.FAIL and oracle.warm and oracle.pool is not None
    warm, plain = oracle.judge(files), oracle.judge_plain(files)
    assert warm.outcome is plain.outcome is Outcome.FAIL
    assert (warm.run.exception, warm.run.frames) == (plain.run.exception, plain.run.frames)
    logs = [z.log for zygotes in oracle.pool.pools.values() for z in zygotes if z.log.exists()]
    output = "\n".join(log.read_text(errors="replace") for log in logs)
    assert "AssertionError: assert 5.0 == 4" in output, output
    assert "platform " not in output and "rootdir:" not in output and "Traceback" not in output, output
    assert not re.search(r"\.py:\d", output), output  # no frame of a traceback


@pytest.mark.parametrize("broken", ["import math\nmath.tau(\n", "import math\nRectangle = Circle\n"], ids=["syntax", "name"])
def test_a_warm_test_reports_a_broken_import_by_its_exception_line_with_the_plain_run_s_record(
    oracle: PytestOracle, broken: str
) -> None:
    """A module that breaks while the test file imports it fails the collection: the warm run says so by the
    exception's line (pytest's short format parses the source of every frame of the import, 70 ms on a project
    of three files), and records the exception, its message and its frames as the plain run does."""
    files = dict(oracle.project.tree)
    assert oracle.calibrate(files).outcome is Outcome.FAIL and oracle.warm and oracle.pool is not None
    candidate = {**files, "shapes/geometry.py": broken}
    warm, plain = oracle.judge(candidate), oracle.judge_plain(candidate)
    assert warm.outcome is plain.outcome is Outcome.UNRESOLVED
    assert warm.run.ending == plain.run.ending == "exception", (warm.run, plain.run)
    def project_frames(run: Run) -> list[tuple[str, int]]:
        return [(path, line) for path, line in run.frames if path in files]

    assert (warm.run.exception, warm.run.message) == (plain.run.exception, plain.run.message)
    assert project_frames(warm.run) == project_frames(plain.run) and len(project_frames(plain.run)) >= 2
    assert warm.run.exception in ("SyntaxError", "NameError") and warm.run.raised_at == plain.run.raised_at
    assert plain.run.raised_at in (("shapes/geometry.py", 2), ("shapes/__init__.py", 3))  # a syntax error: the import
    logs = [z.log for zygotes in oracle.pool.pools.values() for z in zygotes if z.log.exists()]
    output = "\n".join(log.read_text(errors="replace") for log in logs)
    assert "ERROR collecting tests/test_geometry.py" in output and not re.search(r"\.py:\d+: in ", output), output


def test_a_warm_test_of_a_module_that_skips_itself_ends_as_the_plain_run(oracle: PytestOracle) -> None:
    """Pytest formats a module-level skip in its ``line`` format and reads the parts back: a warm run keeps that
    format pytest's own, and finds no collectors for the node, as the plain run does."""
    files = dict(oracle.project.tree)
    assert oracle.calibrate(files).outcome is Outcome.FAIL and oracle.warm
    test_file = "tests/test_geometry.py"
    candidate = {**files, test_file: "import pytest\npytest.skip('not here', allow_module_level=True)\n" + files[test_file]}
    warm, plain = oracle.judge(candidate), oracle.judge_plain(candidate)
    assert warm.outcome is plain.outcome is Outcome.UNRESOLVED  # the node is gone with its module: no collectors
    assert "found no collectors" in warm.run.detail and "found no collectors" in plain.run.detail, (warm.run, plain.run)
    assert warm.run.exception == "", warm.run  # not an AssertionError of pytest's, reading a format it did not make


def test_coverage_measured_in_a_warm_test_is_the_plain_run_s(oracle: PytestOracle) -> None:
    """The tracer started in a warm test's child records what a plain ``python -m pytest`` run under the tracer
    records (the configuration the warm pytest read while starting counts as read); a warm pytest that ran a
    Python file of the tree before the fork cannot tell, and the plain run measures."""
    from astreduce.pytest_node.oracle import node_coverage
    from astreduce.reduce.unexecuted import measure_executed

    files = dict(oracle.project.tree)
    oracle.calibrate(files)
    assert oracle.pool is not None
    assert oracle.warm_coverage(files) is not None
    warm = measure_executed(node_coverage(oracle), files)
    plain_oracle = PytestOracle(oracle.project, warm=False)
    try:
        assert plain_oracle.warm_coverage(files) is None
        plain = measure_executed(node_coverage(plain_oracle), files)
    finally:
        plain_oracle.close()
    assert warm.lines is not None and plain.lines is not None
    assert warm.lines == plain.lines
    geometry = files["shapes/geometry.py"].splitlines()
    ran = [geometry[n - 1].strip() for n in sorted(warm.lines["shapes/geometry.py"])]
    assert "return abs(total) / 2" in ran and warm.lines["pytest.ini"] == frozenset()
    oracle.pool.inputs = (*oracle.pool.inputs, "shapes/__init__.py")  # as if the warm pytest had imported it
    assert oracle.warm_coverage(files) is None


def test_a_warm_test_that_hangs_ends_at_its_cpu_budget_not_its_timeout(oracle: PytestOracle) -> None:
    # the budget is ten times the CPU the warm runs that reproduced reported; a loop that lost its exit
    # ends there, said as CPU spent, where the wall-clock timeout (10x the plain run, at least 2 s) is far off
    files = dict(oracle.project.tree)
    oracle.calibrate(files)
    assert oracle.pool is not None and oracle.judge(files).outcome is Outcome.FAIL
    budget = oracle.cpu.seconds()
    assert budget is not None and budget < oracle.warm_timeout
    looping = files["shapes/geometry.py"].replace("return abs(total) / 2", "while True:\n        pass")
    assert looping != files["shapes/geometry.py"]
    hang = oracle.judge({**files, "shapes/geometry.py": looping})
    assert hang.outcome is Outcome.UNRESOLVED and hang.run.ending == "timeout", hang
    assert f"spent over {budget:g} s of CPU" in hang.run.detail, hang.run.detail
    assert oracle.judge(files).outcome is Outcome.FAIL  # the zygote serves the next test


def test_the_oracle_leaves_no_folder_or_process_behind(project: Path) -> None:
    judged = PytestOracle(read_project(project, NODE), jobs=2)
    judged.calibrate(dict(judged.project.tree))
    assert judged.pool is not None
    zygotes = [z for pool in judged.pool.pools.values() for z in pool]
    judged.close()
    assert not judged.private.exists()
    assert all(not z.folder.exists() and z.process.poll() is not None for z in zygotes)


def test_a_warm_pytest_retired_while_its_test_runs_still_answers_for_it(project: Path) -> None:
    """At -j 2 candidates that change what the warm pytest read (a configuration file) start zygotes for their own
    key, and the oldest key's are retired: one of them was closed while it ran a test, whose end was then awaited
    forever on a closed descriptor (astreduce hung with no test running)."""
    from astreduce.pytest_node.oracle import _WarmPending

    judged = PytestOracle(read_project(project, NODE), jobs=2)
    try:
        tree = dict(judged.project.tree)
        judged.calibrate(tree)
        assert judged.pool is not None and judged.pool.inputs == ("pytest.ini",)
        test_file = NODE.partition("::")[0]
        slow = {**tree, test_file: "import time\ntime.sleep(1.5)\n" + tree[test_file]}  # collected in 1.5 s
        running = judged.start(slow)
        assert isinstance(running, _WarmPending)
        others = []
        for n in (1, 2):  # a new key's zygotes start on its second candidate; the third key retires the first
            changed = {**tree, "pytest.ini": tree["pytest.ini"] + f"# {n}\n"}
            others += [judged.start(changed), judged.start(changed)]
        deadline = time.monotonic() + 120
        while not running.done():
            assert time.monotonic() < deadline, "the retired zygote's test never ended"
            time.sleep(0.05)
        assert running.wait().outcome is Outcome.FAIL
        assert all(p.wait().outcome is Outcome.FAIL for p in others)
        assert not judged.pool.retiring  # the retired zygote is ended once its test is read
    finally:
        judged.close()


#: Run in a fresh interpreter in a project folder: the zygote's cache of compiled modules, installed as the zygote
#: does, then children forked as the zygote forks them, each importing ``lib`` and saying what it found.
_COMPILED_CHILDREN = """
import importlib.util, json, os, sys
spec = importlib.util.spec_from_file_location("zygote_program", sys.argv[1].replace("_zygote.py", "_zygote_caches.py"))
zygote = importlib.util.module_from_spec(spec)
spec.loader.exec_module(zygote)
root = os.getcwd()
sys.path.insert(0, root)
sys.dont_write_bytecode = True
compiled = zygote.CompiledSources(root)
compiled.install()
compiles = []
sys.addaudithook(lambda event, args: compiles.append(os.getpid()) if event == "compile" and str(args[1]).endswith("lib.py") else None)
path = os.path.join(root, "lib.py")

def child(text, cache):
    with open(path, "w") as handle:
        handle.write(text)
    if cache:
        compiled.add_file(path)  # as the zygote does for a module its children loaded, when a request writes it
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        import lib
        os.write(write, json.dumps([lib.VALUE, compiles.count(os.getpid())]).encode())
        os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    return json.loads(os.read(read, 1000))

print(json.dumps([child("VALUE = 1\\n", True), child("VALUE = 2\\n", False), child("VALUE = 3\\n", True),
                  child("VALUE = 1\\n", False)]))
"""


def test_a_warm_child_takes_the_code_its_zygote_compiled_only_for_the_same_text(tmp_path: Path) -> None:
    """The zygote compiles each text of a project module once and its children take that code: a file changed
    since, even to one of the same size, is compiled again by the child (never the code of another text)."""
    from astreduce.pytest_node.zygote import ZYGOTE_SCRIPT

    (tmp_path / "run.py").write_text(_COMPILED_CHILDREN, encoding="utf-8")
    done = subprocess.run([sys.executable, "run.py", str(ZYGOTE_SCRIPT)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60, check=True)
    # [value the child imported, compiles of lib.py in the child]
    assert json.loads(done.stdout) == [[1, 0], [2, 1], [3, 0], [1, 0]]


_PATTERNS_IN_A_CHILD = """
import importlib.util, json, os, re, sys, warnings
spec = importlib.util.spec_from_file_location("zygote_under_test", sys.argv[1].replace("_zygote.py", "_zygote_caches.py"))
zygote = importlib.util.module_from_spec(spec)
spec.loader.exec_module(zygote)
patterns = zygote.Patterns()                  # the zygote, once started
pid = os.fork()
if pid == 0:                                  # a child compiles the project's patterns
    re.compile(r"(?P<prefix>\\w+)-$")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        re.compile("[[:alpha:]]")             # FutureWarning: possible nested set
    os.write(1, json.dumps(patterns.new()).encode())
    os._exit(0)
os.waitpid(pid, 0)
"""


def test_a_warm_pytest_compiles_the_patterns_its_children_compiled_unless_they_warn(tmp_path: Path) -> None:
    """``re``'s cache dies with each child: the zygote compiles what its children report, and its later
    children take it from the cache they inherit; a pattern that warns as it compiles is left to them."""
    from astreduce.pytest_node.zygote import ZYGOTE_SCRIPT

    (tmp_path / "child.py").write_text(_PATTERNS_IN_A_CHILD, encoding="utf-8")
    done = subprocess.run([sys.executable, "child.py", str(ZYGOTE_SCRIPT)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60, check=True)
    reported = json.loads(done.stdout)
    assert sorted(reported) == [["(?P<prefix>\\w+)-$", 0], ["[[:alpha:]]", 0]]
    loaded = importlib.util.spec_from_file_location("zygote_under_test", ZYGOTE_SCRIPT.with_name("_zygote_caches.py"))
    assert loaded is not None and loaded.loader is not None
    zygote = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(zygote)
    patterns = zygote.Patterns()
    patterns.add([tuple(p) for p in reported])
    cached = set(patterns.cached())
    assert ("(?P<prefix>\\w+)-$", 0) in cached and ("[[:alpha:]]", 0) not in cached
    assert patterns.new() == []  # nothing new to report: both are known here


_STRINGS_IN_CHILDREN = """
import builtins, dataclasses, importlib.util, json, os, sys, typing
spec = importlib.util.spec_from_file_location("zygote_under_test", sys.argv[1].replace("_zygote.py", "_zygote_caches.py"))
zygote = importlib.util.module_from_spec(spec)
spec.loader.exec_module(zygote)
strings = zygote.CodeStrings()                 # the zygote, once started
strings.install()

def child():
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:                               # a test: a project's dataclass and a string annotation
        @dataclasses.dataclass(frozen=True)
        class Unit:
            name: str
            factor: "typing.Optional[float]" = None
        hints = typing.get_type_hints(Unit)
        try:
            Unit("m").name = "s"
            frozen = False
        except dataclasses.FrozenInstanceError:
            frozen = True
        seen = [repr(Unit("m", 1.0)), Unit("m") == Unit("m"), hash(Unit("m")) == hash(Unit("m")), frozen, str(hints["factor"])]
        os.write(write, json.dumps([seen, strings.new()]).encode())
        os._exit(0)
    os.close(write)
    data = b""
    while True:
        chunk = os.read(read, 1 << 20)
        if not chunk:
            break
        data += chunk
    os.waitpid(pid, 0)
    return json.loads(data)

first = child()
strings.add([tuple(key) for key in first[1]])  # after its answer, the zygote compiles what it reported
second = child()
print(json.dumps({"first": first, "second": second, "builtins": [builtins.exec is exec, builtins.compile is compile],
                  "eval": eval("1 + 1"), "flags": typing.compile("x: int", "<s>", "exec", 0x1000000) is not None}))
"""


def test_a_warm_pytest_compiles_once_the_code_dataclasses_and_typing_compile_from_text(tmp_path: Path) -> None:
    """``dataclasses`` execs the text of each method it writes, ``typing`` compiles each string annotation:
    a child compiles the texts the zygote has not (and reports them), the zygote compiles what it reports,
    and its next child compiles nothing and builds the same class. Only those two modules look up texts."""
    from astreduce.pytest_node.zygote import ZYGOTE_SCRIPT

    (tmp_path / "children.py").write_text(_STRINGS_IN_CHILDREN, encoding="utf-8")
    done = subprocess.run([sys.executable, "children.py", str(ZYGOTE_SCRIPT)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60, check=True)
    seen = json.loads(done.stdout)
    first_seen, first_new = seen["first"]
    second_seen, second_new = seen["second"]
    assert first_seen == second_seen == ["child.<locals>.Unit(name='m', factor=1.0)", True, True, True, "typing.Optional[float]"]
    modes = {(filename, mode) for _, filename, mode in first_new}
    assert modes == {("<string>", "exec"), ("<string>", "eval")}  # dataclasses' methods, typing's annotation
    assert any("def __init__(self,name" in text for text, _, mode in first_new if mode == "exec")
    assert ["typing.Optional[float]", "<string>", "eval"] in first_new
    assert second_new == []  # nothing compiled again
    assert seen["builtins"] == [True, True] and seen["eval"] == 2 and seen["flags"]


_WRAPPED_FIXTURES = """
import functools, importlib.util, json, os, sys, warnings
spec = importlib.util.spec_from_file_location("zygote_under_test", sys.argv[1].replace("_zygote.py", "_zygote_caches.py"))
zygote = importlib.util.module_from_spec(spec)
spec.loader.exec_module(zygote)
from _pytest.config import _prepareconfig
from _pytest.fixtures import FixtureManager
config = _prepareconfig(["-p", "plugin", "-q"])  # a plugin the zygote imports while configuring
config._do_configure()
import plugin
known = zygote.known_unwrapped(config)
shortened = zygote.quiet_plugin_names(config, known)
find = FixtureManager._find_wrapped_fixture_def
fresh = functools.wraps(plugin.hidden)(lambda: None)  # made after the zygote started: asked as before
import _pytest.fixtures as fixtures
walked = fixtures.dir(plugin)
checks = [len(known) > 0, shortened > 0, find(None, plugin.plain) is None, find(None, plugin.hidden) is not None,
          find(None, fresh) is not None, "base" in walked and "hidden" in walked and "plain" not in walked]
pid = os.fork()
if pid == 0:                                   # a session: the plugin's fixture and pytest's own are found
    config._do_configure = lambda: None
    os._exit(int(config.hook.pytest_cmdline_main(config=config)))
checks.append(os.WEXITSTATUS(os.waitpid(pid, 0)[1]))
plugin.plain = plugin.base                     # a namespace changed since: every name walked again
checks.append("plain" in fixtures.dir(plugin))
print(json.dumps(checks))
"""

_TEST_OF_THE_PLUGIN = """
def test_fixtures(base, tmp_path):
    assert base == 2 and tmp_path.is_dir()
"""

_PLUGIN_WITH_A_HIDDEN_FIXTURE = """
import functools
import pytest

def plain():
    return 1

@pytest.fixture
def base():
    return 2

@functools.wraps(base)
def hidden():
    return 3
"""


@pytest.mark.skipif(not hasattr(__import__("_pytest.fixtures").fixtures.FixtureManager, "_find_wrapped_fixture_def"),
                    reason="pytest before 9.2 does not look for fixtures behind wrappers")
def test_a_warm_pytest_knows_which_of_its_plugins_objects_hide_no_fixture(tmp_path: Path) -> None:
    """pytest asks of every plugin attribute, in every session, whether it hides a fixture behind wrappers:
    the zygote answers for the objects its plugins hold while it starts, and leaves the names that are
    neither fixtures nor hide one out of the walk; a hidden fixture is still found, an object made later is
    asked as before, a session finds the plugin's fixtures and pytest's, and a changed plugin is walked whole."""
    from astreduce.pytest_node.zygote import ZYGOTE_SCRIPT

    (tmp_path / "check.py").write_text(_WRAPPED_FIXTURES, encoding="utf-8")
    (tmp_path / "plugin.py").write_text(_PLUGIN_WITH_A_HIDDEN_FIXTURE, encoding="utf-8")
    (tmp_path / "test_uses.py").write_text(_TEST_OF_THE_PLUGIN, encoding="utf-8")
    done = subprocess.run([sys.executable, "check.py", str(ZYGOTE_SCRIPT)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60, check=True, env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [True] * 6 + [0, True]


_PREPARED_SESSION = """
import importlib.util, json, os, sys
spec = importlib.util.spec_from_file_location("zygote_under_test", sys.argv[1])
zygote = importlib.util.module_from_spec(spec)
spec.loader.exec_module(zygote)
import _pytest.fixtures as fixtures
from _pytest.config import _prepareconfig
config = _prepareconfig(["-p", "plugin", "-q", "sub"])
config._do_configure()
made = []
init = fixtures.FixtureManager.__init__
fixtures.FixtureManager.__init__ = lambda self, session: (made.append(1), init(self, session))[1]
prepared = zygote.prepared_session(config) if sys.argv[2] == "prepared" else None
from _pytest.main import Session
from_config, make_manager = Session.__dict__["from_config"], fixtures.FixtureManager
endings = []
for _ in range(2):                             # two children of the same zygote: each starts afresh
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        del made[:]
        config._do_configure = lambda: None
        zygote.use_prepared(prepared)
        status = int(config.hook.pytest_cmdline_main(config=config))
        restored = Session.__dict__["from_config"] is from_config and fixtures.FixtureManager is make_manager
        os.write(write, json.dumps([status, len(made), restored]).encode())
        os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    endings.append(json.loads(os.read(read, 1000)))
print(json.dumps([prepared is not None, len(made), endings]))
"""

_TESTS_OF_EVERY_FIXTURE = """
def test_every_fixture(base, local, tmp_path, request):
    assert base == 2 and local == 5 and tmp_path.is_dir()
    assert request.session is request.node.session
"""


@pytest.mark.parametrize("way", ["prepared", "made in the child"])
def test_a_warm_pytest_makes_the_session_and_its_fixture_manager_once_for_its_children(tmp_path: Path, way: str) -> None:
    """The fixture manager walks every plugin for fixtures as it is made: the zygote makes the session and it once,
    and each child's session is that one, finding the plugins' fixtures, pytest's, and those of a conftest it
    meets while collecting, as a session made in the child does (which makes its manager again)."""
    from astreduce.pytest_node.zygote import ZYGOTE_SCRIPT

    (tmp_path / "check.py").write_text(_PREPARED_SESSION, encoding="utf-8")
    (tmp_path / "plugin.py").write_text(_PLUGIN_WITH_A_HIDDEN_FIXTURE, encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "conftest.py").write_text("import pytest\n\n@pytest.fixture\ndef local():\n    return 5\n")
    (tmp_path / "sub" / "test_all.py").write_text(_TESTS_OF_EVERY_FIXTURE, encoding="utf-8")
    done = subprocess.run([sys.executable, "check.py", str(ZYGOTE_SCRIPT), way.split()[0]], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60, check=True, env={**os.environ, "PYTHONPATH": str(tmp_path)})
    prepared, made_here, endings = json.loads(done.stdout.strip().splitlines()[-1])
    if way == "prepared":
        # every test passed; no manager made again; a later session in the child (pytester's) is its own
        assert prepared and made_here == 1 and endings == [[0, 0, True], [0, 0, True]]
    else:
        assert endings == [[0, 1, True], [0, 1, True]]


def _mutations(name: str, tree: dict[str, str]) -> list[tuple[str, dict[str, str]]]:
    """Candidates of a corpora project for which warm and plain runs must agree: FAIL, PASS and UNRESOLVED ones."""
    settings = case(name)
    node = str(settings["node"])
    path, old, new = settings["fix"]  # type: ignore[misc]
    test_file = node.partition("::")[0]
    alone = without_other_tests(tree[test_file], node.partition("::")[2])
    assert alone is not None and old in tree[path]
    found = [
        ("original", tree),
        ("other tests removed", {**tree, test_file: alone}),
        ("bug fixed", {**tree, path: tree[path].replace(old, new)}),
        ("module broken", {**tree, path: tree[path] + "\n)\n"}),
        ("module deleted", {p: t for p, t in tree.items() if p != path}),
    ]
    for conftest in (p for p in tree if p.endswith("conftest.py")):
        found.append((f"{conftest} emptied", {**tree, conftest: ""}))
    return found


@pytest.mark.parametrize("name", RUNNABLE)
def test_warm_runs_end_as_plain_runs(name: str, tmp_path: Path) -> None:
    shutil.copytree(CORPORA / name / "project", tmp_path / "p")
    settings = case(name)
    judged = PytestOracle(read_project(tmp_path / "p", str(settings["node"])), jobs=1)
    try:
        judged.calibrate(dict(judged.project.tree))
        assert judged.warm, judged.notes
        seen = set()
        for label, candidate in _mutations(name, dict(judged.project.tree)):
            warm, plain = judged.judge(candidate), judged.judge_plain(candidate)
            assert warm.outcome is plain.outcome, label
            if warm.outcome is Outcome.FAIL:  # the same failure (an UNRESOLVED run may say it another way)
                assert (warm.run.exception, warm.run.message) == (plain.run.exception, plain.run.message), label
            seen.add(warm.outcome)
        assert seen == {Outcome.FAIL, Outcome.PASS, Outcome.UNRESOLVED}
    finally:
        judged.close()


def test_conftests_without_early_hooks_are_deferred() -> None:
    tree = {
        "conftest.py": "def pytest_addoption(parser):\n    parser.addoption('--x')\n",
        "tests/conftest.py": "import pytest\n\n@pytest.fixture\ndef f():\n    return 1\n",
        "sub/conftest.py": "pytest_plugins = ['x']\n",
        "other/conftest.py": "def pytest_configure(config):\n    pass\n",
    }
    assert sorted(deferrable_conftests(tree)) == ["other/conftest.py", "tests/conftest.py"]


#: pytest without the plugins installed beside it (hypothesis's, here): each plain run starts in a third of the time.
#: The warm runs' equivalence with a plugin is checked on corpora/pytest/shop_hypothesis.
NO_PLUGINS = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}


def _astreduce(*args: str, cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ASTREDUCE, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False, env=NO_PLUGINS)


@pytest.mark.parametrize(
    ("node", "python", "message"),
    [
        ("tests/test_geometry.py::test_nope", None, "astreduce: pytest finds no test tests/test_geometry.py::test_nope in {root} (ERROR: not found: tests/test_geometry.py::test_nope"),
        ("tests/test_geometry.py::test_distance", None, "astreduce: tests/test_geometry.py::test_distance does not fail: it passes under pytest"),
        ("tests/test_nowhere.py::test_x", None, "astreduce: tests/test_nowhere.py: cannot read: No such file"),
        ("tests/test_geometry.py", None, "astreduce: 'tests/test_geometry.py' is not a test's node id (FILE.py::TEST, as pytest prints it)"),
        (NODE, str(PYTHON_312), f"astreduce: pytest is not installed under {PYTHON_312}: install it there, or name another interpreter with --python"),
    ],
    ids=["unknown node", "passing node", "missing file", "not a node id", "no pytest"],
)
def test_a_node_that_cannot_be_reduced_is_exit_2_in_one_line(
    project: Path, tmp_path: Path, node: str, python: str | None, message: str
) -> None:
    if python is not None and not Path(python).is_file():
        pytest.skip(f"{python} is not installed")
    done = _astreduce("pytest", node, "-o", str(tmp_path / "out"), "-q", *(["--python", python] if python else []), cwd=project)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(message.format(root=project)), done.stderr
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_what_the_node_runs_or_reads_is_reduced_though_its_test_never_imports_it(tmp_path: Path) -> None:
    """A module imported from a string (as Django imports its settings) and a data file the run opens were only kept
    or deleted: now the coverage run shows them and they are reduced like the code the test imports."""
    root = tmp_path / "project"
    (root / "app").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (root / "app" / "__init__.py").write_text("", encoding="utf-8")
    (root / "app" / "config.py").write_text(
        "import importlib\nimport os\n\nSETTINGS = importlib.import_module('app.' + 'settings')\n\n\n"
        "def limits():\n    with open(os.path.join(os.path.dirname(__file__), 'table.txt')) as table:\n"
        "        rows = [line.split() for line in table]\n    return {name: int(value) * SETTINGS.SCALE for name, value in rows}\n",
        encoding="utf-8",
    )
    settings = [f"OPTION_{n} = {n}" for n in range(30)]
    (root / "app" / "settings.py").write_text("\n".join([*settings[:15], "SCALE = 3", *settings[15:]]) + "\n", encoding="utf-8")
    rows = [f"unit{n} {n}" for n in range(40)]
    (root / "app" / "table.txt").write_text("\n".join([*rows[:20], "meter 1", *rows[20:]]) + "\n", encoding="utf-8")
    (root / "tests" / "test_it.py").write_text(
        "from app.config import limits\n\n\ndef test_it():\n    assert limits()['meter'] == 1\n", encoding="utf-8"
    )
    out = tmp_path / "out"
    done = _astreduce(
        "pytest", "tests/test_it.py::test_it", "-o", str(out), "--report", str(tmp_path / "r.json"), "-j", "2", "--max-tests", "60",
        "--no-format", cwd=root,
    )
    assert done.returncode == 0, done.stderr
    passes = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["passes"]
    settings_passes = [p for p in passes if p["name"].startswith("app/settings.py: ")]
    table_passes = [p for p in passes if p["name"] == "app/table.txt: lines"]
    assert sum(p["tokens_before"] - p["tokens_after"] for p in settings_passes) > 0
    assert sum(p["tokens_before"] - p["tokens_after"] for p in table_passes) > 0
    assert len(words_of(out / "app" / "settings.py")) <= 3 and len(words_of(out / "app" / "table.txt")) <= 2


def words_of(path: Path) -> list[str]:
    """The words of a file of the result (none when it went)."""
    return path.read_text(encoding="utf-8").split() if path.is_file() else []


@pytest.mark.slow  # 50 s: a whole reduction; test_what_the_node_runs_or_reads_is_reduced_though_its_test_never_imports_it keeps one in the suite
def test_the_project_is_reduced_with_the_test_and_fails_the_same_way_in_the_output(project: Path, tmp_path: Path) -> None:
    before = {p.relative_to(project).as_posix(): p.read_bytes() for p in project.rglob("*") if p.is_file()}
    original = failure_line(run_pytest(project, NODE))
    out = tmp_path / "out"
    cache = ["--resume", "--cache-dir", str(tmp_path / "cache")]
    done = _astreduce("pytest", NODE, "-o", str(out), "--report", str(tmp_path / "r.json"), "-j", "2", *cache, cwd=project, timeout=1200)
    assert done.returncode == 0, done.stderr
    assert {p.relative_to(project).as_posix(): p.read_bytes() for p in project.rglob("*") if p.is_file()} == before
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert report["verified"] and report["other_tests_removed_at_once"] and report["warm"]
    assert report["python"] == sys.executable and report["python_origin"] == "astreduce's own"
    assert report["nodeid"] == NODE and report["node_failure"].startswith(f"{NODE} (call): AssertionError: assert 5.0 == 4")
    tested = ("tests/test_geometry.py", "shapes/geometry.py")
    tokens_before = sum(measure(before[p].decode()).tokens for p in tested)
    tokens_after = sum(measure(p.read_text()).tokens for p in out.rglob("*.py"))
    assert tokens_after <= 0.25 * tokens_before, report
    assert set(report["deleted"]) == {p for p in before if not (out / p).exists()}
    # names may be renamed, but every line says where it came from: polygon_area's lines are there
    functions = {entry["function"] for entries in report["origins"].values() for entry in entries}
    assert "polygon_area" in functions, report["origins"]
    # plain pytest, run in the output, fails the same way
    assert failure_line(run_pytest(out, NODE)) == original
    assert "deleted: " in done.stderr and f"pytest under {sys.executable} (astreduce's own)" in done.stderr
    # a second run with the persistent cache tests nothing again and ends with the same project
    again = _astreduce("pytest", NODE, "-o", str(tmp_path / "again"), "--report", str(tmp_path / "again.json"), *cache, cwd=project)
    assert again.returncode == 0, again.stderr
    rerun = json.loads((tmp_path / "again.json").read_text(encoding="utf-8"))
    assert rerun["tests"] == 0 and rerun["resumed"] >= report["tests"] - 5
    assert {p.relative_to(out).as_posix(): p.read_text() for p in out.rglob("*") if p.is_file()} == {
        p.relative_to(tmp_path / "again").as_posix(): p.read_text() for p in (tmp_path / "again").rglob("*") if p.is_file()
    }
