"""A tree's tests in forked children (``astreduce.run.forked_tree``) end as the plain processes do.

Every candidate below is judged twice by the same calibrated tree oracle:
once in a child forked from this process (the tree written into its
folder, its modules' code compiled once per text), once as a new
interpreter (``python _worker_main.py --entry``, ``python check.py
TREE``); the verdicts must agree. Real processes, real files, a real
signal.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from astreduce.oracles.options import OracleOptions
from astreduce.oracles.tree import TreeOracle
from astreduce.outcome import Outcome

#: A package shadowing a standard-library name, used by an entry that fails through a helper.
TREE = {
    "main.py": "import email\nfrom email.helper import twice\n\nassert twice(3) == 7, f'My Test {email.NAME}'\n",
    "email/__init__.py": "NAME = 'mine'\n",
    "email/helper.py": "def twice(x):\n    return x * 2\n\n\ndef unused():\n    return 1\n",
}

#: An interestingness script (C-Reduce's convention) over the same package: exit 0 when twice(3) is 6.
CHECK = """\
import sys

sys.path.insert(0, sys.argv[1])
from email.helper import twice

sys.exit(0 if twice(3) == 6 else 1)
"""

CANDIDATES = {
    "original": TREE,
    "helper fixed": {**TREE, "email/helper.py": "def twice(x):\n    return x * 2 + 1\n"},
    "helper gone": {p: t for p, t in TREE.items() if p != "email/helper.py"},
    "syntax error": {**TREE, "email/helper.py": "def twice(x)\n    return x * 2\n"},
    "other exception": {**TREE, "email/helper.py": "def twice(x):\n    return x / 0\n"},
    "exit status": {**TREE, "email/helper.py": "import os\n\ndef twice(x):\n    os._exit(3)\n"},
    "system exit": {**TREE, "email/helper.py": "import sys\n\ndef twice(x):\n    sys.exit(4)\n"},
    "segfault": {**TREE, "email/helper.py": "import os, signal\n\ndef twice(x):\n    os.kill(os.getpid(), signal.SIGSEGV)\n"},
    "package emptied": {**TREE, "email/__init__.py": ""},
}


def _oracle(options: OracleOptions, **keywords: object) -> TreeOracle:
    oracle = TreeOracle(options, **keywords)  # type: ignore[arg-type]
    oracle.calibrate(TREE)
    return oracle


@pytest.mark.parametrize("kind", ["entry", "script"])
def test_forked_runs_end_as_new_interpreters_do(kind: str, tmp_path: Path) -> None:
    if kind == "entry":
        options, keywords = OracleOptions(), {"entry": "main.py"}
    else:
        (tmp_path / "check.py").write_text(CHECK)
        options, keywords = OracleOptions(test=str(tmp_path / "check.py")), {}
    forked = _oracle(options, **keywords)
    plain = _oracle(options, forked=False, **keywords)
    try:
        assert forked._forked is not None and not forked.notes and plain._forked is None
        seen = set()
        for name, candidate in CANDIDATES.items():
            ours, theirs = forked.judge(candidate), plain.judge(candidate)
            assert ours.outcome is theirs.outcome, name
            if kind == "entry":
                assert (ours.run.ending, ours.run.exception, ours.run.message) == (theirs.run.ending, theirs.run.exception, theirs.run.message), name
            seen.add(ours.outcome)
        assert Outcome.FAIL in seen and Outcome.PASS in seen
    finally:
        forked.close()
        plain.close()


def test_the_tree_shadows_what_astreduce_imported() -> None:
    import email  # noqa: F401  # astreduce's own process has the standard library's

    oracle = _oracle(OracleOptions(), entry="main.py")
    try:
        verdict = oracle.judge(TREE)
        assert verdict.outcome is Outcome.FAIL and verdict.run.message == "My Test mine"
    finally:
        oracle.close()
    assert "email.helper" not in sys.modules  # the child's imports stayed in the child


def test_a_script_that_is_not_python_runs_as_a_process(tmp_path: Path) -> None:
    script = tmp_path / "check.sh"
    script.write_text(f"#!/bin/sh\ncd \"$1\" && {sys.executable} -c 'from email.helper import twice; assert twice(3) == 6'\n")
    script.chmod(0o755)
    oracle = _oracle(OracleOptions(test=str(script)))
    try:
        assert oracle._forked is None
        assert oracle.judge(TREE).outcome is Outcome.FAIL
        assert oracle.judge(CANDIDATES["helper fixed"]).outcome is Outcome.PASS
    finally:
        oracle.close()


def test_a_trees_code_compiled_once_serves_every_later_child() -> None:
    # code compiled here names its file as in the tree (pkg/mod.py); a child that compiled the file
    # itself would name it by its folder's absolute path. The fork server keeps the code for the
    # children it forks later, and a server that replaces a dead one is given it again. pkg/mod.py
    # changes every other round: a spare forked before its text was handed to the server (two wait
    # at once) is handed the code with its test.
    from astreduce.run.forked_tree import ForkedTree
    from astreduce.run.forkserver import forget_server
    from astreduce.run.sandbox import Limits

    tree = {
        "main.py": "import pkg.mod\nraise ValueError(pkg.mod.f.__code__.co_filename)\n",
        "pkg/__init__.py": "",
        "pkg/mod.py": "def f():\n    return 1\n",
    }
    forked = ForkedTree(Limits())
    try:
        names = []
        for round in range(6):
            if round == 5:
                forget_server()
            mod = f"def f():\n    return {round // 2}\n"
            run = forked.start({**tree, "main.py": tree["main.py"] + f"# {round}\n", "pkg/mod.py": mod}, "main.py", 30.0).wait()
            assert run.exception == "ValueError", run
            names.append(run.message)
        assert names == ["pkg/mod.py"] * 6
    finally:
        forked.close()


def _runs_noted(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, installed: dict[str, str], tree_of: Callable[[Path], dict[str, str]]) -> list[str]:
    """Install ``installed`` (module name -> text) where the plain runs' interpreters and a new fork server find
    them, calibrate a tree oracle on ``tree_of(seen)``, whose entry notes what each run saw in ``seen/runs``, and
    judge it once more: the lines noted, a plain run's first and a forked one's last (the forked runs kept)."""
    from astreduce.run import forkserver

    library, seen = tmp_path / "library", tmp_path / "seen"
    library.mkdir()
    seen.mkdir()
    for name, text in installed.items():
        (library / f"{name}.py").write_text(text)
    monkeypatch.setenv("PYTHONPATH", str(library))  # the plain runs' interpreters
    monkeypatch.setattr(sys, "path", [*sys.path, str(library)])  # the fork server's
    monkeypatch.setattr(forkserver, "_preloads", {})
    forkserver.forget_server()
    tree = tree_of(seen / "runs")
    oracle = TreeOracle(OracleOptions(allow_write=(str(seen),)), entry="main.py")
    try:
        oracle.calibrate(tree)
        assert not oracle.notes, oracle.notes  # the forked runs were kept: they end as the plain ones
        assert oracle.judge(tree).outcome is Outcome.FAIL
        return (seen / "runs").read_text().splitlines()
    finally:
        oracle.close()
        forkserver.forget_server()


#: An installed module that says which process imported it.
PID_MODULE = "import os\nPID = os.getpid()\n"


def test_the_entrys_imports_are_made_by_the_fork_server_but_not_the_trees_modules(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # an installed module the entry imports first is imported once, by the server (its PID is not the
    # test's); a module of the tree's own is always the test's, even when something installed has its name.
    # Each run notes what it saw in a file; the message is the same whichever way it runs, so that the
    # forked runs are kept (they must end as the plain runs do)
    runs = _runs_noted(monkeypatch, tmp_path, {"installed_helper": PID_MODULE, "shadowed": PID_MODULE}, lambda noted: {
        "main.py": "import os\nimport installed_helper\nimport shadowed\n"
                   f"with open({str(noted)!r}, 'a') as runs:\n"
                   "    runs.write(f'{installed_helper.PID == os.getpid()} {shadowed.PID == os.getpid()}\\n')\n"
                   "raise ValueError('My Test')\n",
        "shadowed.py": PID_MODULE,
    })
    assert runs[0] == "True True" and runs[-1] == "False True", runs


def test_the_standard_modules_the_trees_files_import_first_are_made_by_the_fork_server_alone(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    # pkg/mod.py imports a standard-library module and an installed one first: the fork server imports the
    # standard one before the entry runs (on email a test 30 % cheaper); the installed one and the tree's own
    # modules are left to each test (a tree's module may be imported after the program's own code ran)
    # a fresh interpreter importing the fork server's side of astreduce has no colorsys (else it is there anyway;
    # this test process may have it from another test, matplotlib imports it)
    fresh = subprocess.run([sys.executable, "-c", "import sys, astreduce.run.forkserver, astreduce.run.spare\n"
                            "print('colorsys' in sys.modules)"], capture_output=True, text=True, check=True)
    assert fresh.stdout.strip() == "False", fresh.stdout
    runs = _runs_noted(monkeypatch, tmp_path, {"installed_only": "VALUE = 1\n"}, lambda noted: {
        "main.py": "import sys\n"
                   "loaded = [name in sys.modules for name in ('colorsys', 'installed_only', 'pkg', 'pkg.mod')]\n"
                   f"with open({str(noted)!r}, 'a') as runs:\n"
                   "    runs.write(f'{loaded}\\n')\n"
                   "import pkg.mod\n"
                   "raise ValueError('My Test', pkg.mod.colorsys.__name__, pkg.mod.installed_only.VALUE)\n",
        "pkg/__init__.py": "",
        "pkg/mod.py": "import colorsys\nimport installed_only\n",
    })
    assert runs[0] == "[False, False, False, False]" and runs[-1] == "[True, False, False, False]", runs


def test_what_the_trees_packages_import_before_any_code_runs_is_made_by_the_fork_server(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    # the entry imports pkg first, whose __init__ imports an installed module first: a plain run imports it
    # before any code of the program's or the tree's, so the fork server imports it once (its PID is not
    # the test's). pkg's own code runs next; what pkg/mod.py, imported after it, imports is each test's own
    runs = _runs_noted(monkeypatch, tmp_path, {"installed_first": PID_MODULE, "installed_late": PID_MODULE}, lambda noted: {
        "main.py": "import os\nimport pkg\n"
                   f"with open({str(noted)!r}, 'a') as runs:\n"
                   "    runs.write(f'{pkg.installed_first.PID == os.getpid()} {pkg.mod.installed_late.PID == os.getpid()}\\n')\n"
                   "raise ValueError('My Test')\n",
        "pkg/__init__.py": "import installed_first\nSETTING = len('code')\nfrom . import mod\n",
        "pkg/mod.py": "import installed_late\n",
    })
    assert runs[0] == "True True" and runs[-1] == "False True", runs


@pytest.mark.parametrize(
    ("tree", "program", "expected"),
    [
        # followed into the package, its submodules, in order; stopped at the first module that runs code
        ({"pkg/__init__.py": "import numpy\nfrom . import sub\nfrom .core import X\n", "pkg/sub.py": "import pandas\nfrom .deep import y\n",
          "pkg/deep.py": "import json\nVALUE = compute()\nimport not_first\n", "pkg/core.py": "import never\n", "later.py": "import never_either\n"},
         "import os\nimport pkg\nfrom pkg.sub import f\nimport later\n", ["os", "numpy", "pandas", "json"]),
        # an interestingness script's set-up of sys.path is no code of its own; a call is
        ({"app.py": "import io\nimport numpy as np\n"},
         "import sys\nsys.dont_write_bytecode = True\nsys.path.insert(0, sys.argv[1])\nimport app\nmain()\nimport later\n", ["sys", "io", "numpy"]),
        # a package's __init__ that runs code first: nothing of it or after it
        ({"pkg/__init__.py": "setup()\nimport numpy\n", "pkg/a.py": "import pandas\n"}, "import pkg.a\nimport json\n", []),
        # a module the tree does not have (a namespace package's, or one that fails) ends the walk
        ({"pkg/a.py": "import numpy\n"}, "import pkg.a\nimport json\n", []),
        # relative imports above the top package, and a star, are no module of the tree's
        ({"pkg/__init__.py": "from .. import up\n"}, "from pkg import *\nimport json\n", []),
        ({"mod.py": "import numpy\n"}, "from .mod import f\nimport json\n", []),  # a script is in no package
    ],
)
def test_the_imports_made_before_any_code_are_followed_into_the_tree(tree: dict[str, str], program: str, expected: list[str]) -> None:
    from astreduce.run.forked_tree import _imported_first, top_modules

    assert _imported_first(tree, program, top_modules(tree)) == expected


def test_a_tests_cpu_budget_follows_the_cpu_of_the_runs_that_reproduce_not_their_wall_clock() -> None:
    # the failing run waits 0.3 s (no CPU: a sleep, or a core busy elsewhere at -j 2): ten times its
    # wall-clock time would let every hang burn 3 s; its child's own CPU makes the budget the floor
    from astreduce.run.sandbox import MIN_CPU_TIMEOUT

    waits = {"main.py": "import time\ntime.sleep(0.3)\nraise ValueError('My Test')\n"}
    oracle = TreeOracle(OracleOptions(expect="ValueError:My Test"), entry="main.py")
    try:
        oracle.calibrate(waits)
        assert oracle._forked is not None
        verdict = oracle.judge(waits)
        # its seconds are timed from the moment it was handed over, which a child started ahead may follow by a
        # few milliseconds of its sleep: what counts is that they are the sleep's, not its CPU
        assert verdict.outcome is Outcome.FAIL and verdict.run.seconds >= 0.25
        assert verdict.run.cpu is not None and verdict.run.cpu < 0.1
        budget = oracle._cpu_budget()
        assert budget is not None and budget < 10 * 0.1
        hang = oracle.judge({"main.py": "while True:\n    pass\n"})
        assert hang.outcome is Outcome.UNRESOLVED and hang.run.ending == "timeout", hang
        assert f"(budget {budget:g} s)" in hang.run.detail and budget >= MIN_CPU_TIMEOUT
    finally:
        oracle.close()
