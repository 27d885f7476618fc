"""Multi-file reduction: ``astreduce reduce DIR`` and ``astreduce reduce FILE FILE ...``.

Real files in temporary folders, ``python -m astreduce`` as a subprocess, real
exit statuses. The module-level helpers (import graph, merge) are checked
directly first; then small trees go through the command line end to end:
whole files deleted, a module merged into its importer, a data file reduced
by lines, an executable script kept executable, several files named one by
one, an interruption, and every kind of bad input. The input tree must come
out byte for byte untouched every time. The corpora case (a 1,249-line
package) runs only with ``-m slow``.
"""

from __future__ import annotations

import importlib.util
import json
import re
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest

from astreduce.source.imports import ImportGraph, module_name
from astreduce.reduce.merge import merge
from astreduce.files import OUTPUT_MARK, resolve_entry
from astreduce.files import read_input
from astreduce.writes import write_tree as write_output

REPO = Path(__file__).resolve().parent.parent
ASTREDUCE = [sys.executable, "-m", "astreduce"]
ENV = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}


def astreduce(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ASTREDUCE, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=ENV)


def one_line(stderr: str) -> str:
    """``stderr`` must be exactly one line, from astreduce, without a traceback."""
    assert "Traceback" not in stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("astreduce: "), stderr
    return lines[0]


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return root


def snapshot(root: Path) -> dict[str, tuple[bytes, int, int]]:
    """Every file under ``root``: bytes, mode and mtime, to prove nothing was written."""
    return {
        p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mode, p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def files_of(root: Path) -> dict[str, str]:
    """The tree under ``root``, without astreduce's mark of a result tree."""
    return {p.relative_to(root).as_posix(): p.read_text() for p in sorted(root.rglob("*")) if p.is_file() and p.name != OUTPUT_MARK}


def last_error(folder: Path, entry: str) -> str:
    """The last traceback line of ``python ENTRY`` run in ``folder``."""
    done = subprocess.run(
        [sys.executable, entry], cwd=folder, capture_output=True, text=True, timeout=30, env=ENV
    )
    lines = done.stderr.strip().splitlines()
    return lines[-1] if lines else ""


# --- the import graph and the merge ------------------------------------------------


SHOP = {
    "main.py": '"""Print a bill."""\nfrom shop.checkout import checkout\n\nprint("bill")\ncheckout(["apple", "pear"])\n',
    "shop/__init__.py": '"""A shop."""\nfrom shop.catalog import PRICES\n',
    "shop/catalog.py": 'PRICES = {"apple": 3, "pear": 0, "plum": 5}\nNAMES = sorted(PRICES)\n\n\ndef price(name):\n    return PRICES[name]\n',
    "shop/checkout.py": (
        "from shop.catalog import price\nfrom shop import report\n\n\ndef checkout(items):\n"
        "    total = 0\n    for item in items:\n        total += 100 // price(item)\n    report.show(total)\n    return total\n"
    ),
    "shop/report.py": 'def show(total):\n    print("total", total)\n',
    "shop/unused.py": "def helper():\n    return 42\n",
    "README.md": "The shop.\n",
}


def test_module_names() -> None:
    assert module_name("pkg/sub/m.py") == "pkg.sub.m"
    assert module_name("pkg/__init__.py") == "pkg"
    assert module_name("README.md") is None
    assert module_name("my-script.py") is None


def test_importers_count_parent_packages_but_ordering_does_not() -> None:
    graph = ImportGraph.of(SHOP)
    assert graph.importers("shop/checkout.py") == {"main.py"}
    assert graph.importers("shop/catalog.py") == {"shop/__init__.py", "shop/checkout.py"}
    # every module of the package runs shop/__init__.py; main.py imports it by name too
    assert graph.importers("shop/__init__.py") == {"main.py", "shop/checkout.py"}
    assert graph.importers("shop/__init__.py", explicit=True) == {"shop/checkout.py"}
    order = graph.order({path: len(text) for path, text in SHOP.items()})
    assert order.index("main.py") < order.index("shop/checkout.py") < order.index("shop/catalog.py")
    assert order.index("shop/checkout.py") < order.index("shop/report.py")


@pytest.mark.parametrize(
    ("importer", "expected"),
    [
        pytest.param("from helpers import area as a, PI\nprint(a(2), PI)\n", "print(a(2), PI)", id="from-import-with-alias"),
        pytest.param("import helpers as h\nprint(h.area(2), h.PI)\n", "print(area(2), PI)", id="import-as"),
        pytest.param("import helpers\nprint(helpers.area(2))\n", "print(area(2))", id="import"),
    ],
)
def test_merge_rewrites_the_importer(importer: str, expected: str) -> None:
    tree = {"main.py": importer, "helpers.py": '"""Helpers."""\nPI = 3\n\n\ndef area(r):\n    return PI * r * r\n'}
    merged = merge(tree, "helpers.py", "main.py")
    assert merged is not None and set(merged) == {"main.py"}
    text = merged["main.py"]
    assert "def area(r):" in text and expected in text and "import helpers" not in text
    assert '"""Helpers."""' not in text
    namespace: dict[str, object] = {}
    exec(compile(text, "main.py", "exec"), namespace)  # the merged program runs
    if "as a" in importer:
        assert "a = area\n" in text


def test_merge_of_a_submodule_makes_its_relative_imports_absolute() -> None:
    tree = {
        "run.py": "from pkg import calc\nprint(calc.double(2))\n",
        "pkg/calc.py": "from __future__ import annotations\nfrom .base import ONE\n\n\ndef double(x):\n    return 2 * x * ONE\n",
        "pkg/base.py": "ONE = 1\n",
    }
    merged = merge(tree, "pkg/calc.py", "run.py")
    assert merged is not None
    text = merged["run.py"]
    assert text.startswith("from __future__ import annotations\n")
    assert "from pkg.base import ONE" in text and "print(double(2))" in text
    assert "pkg/calc.py" not in merged and merged["pkg/base.py"] == "ONE = 1\n"


@pytest.mark.parametrize(
    ("tree", "module", "importer"),
    [
        pytest.param({"m.py": "x = 1\n", "main.py": "import m\nprint(m)\n"}, "m.py", "main.py", id="module-object-used"),
        pytest.param({"m.py": "x = 1\n", "main.py": "def f():\n    import m\n    return m.x\n"}, "m.py", "main.py", id="import-in-a-function"),
        pytest.param({"m.py": "x = 1\n", "main.py": "y = 2; import m\nprint(m.x)\n"}, "m.py", "main.py", id="import-after-semicolon"),
        pytest.param({"m.py": "import main\nx = 1\n", "main.py": "import m\nprint(m.x)\n"}, "m.py", "main.py", id="module-imports-its-importer"),
        pytest.param(
            {"p/__init__.py": "A = 1\n", "p/q.py": "B = 2\n", "main.py": "import p.q\nprint(p.A, p.q.B)\n"},
            "p/__init__.py", "main.py", id="package-whose-submodule-is-imported",
        ),
    ],
)
def test_merge_refuses_what_it_cannot_rewrite(tree: dict[str, str], module: str, importer: str) -> None:
    assert merge(tree, module, importer) is None


def test_entry_is_a_path_in_the_tree_or_from_the_working_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_tree(tmp_path / "src", {"main.py": "", "lib/x.py": ""})
    monkeypatch.chdir(tmp_path)
    given = read_input([Path("src")])
    assert given.root == (tmp_path / "src").resolve() and sorted(given.files) == ["lib/x.py", "main.py"]
    assert resolve_entry("main.py", given) == "main.py"
    assert resolve_entry("src/main.py", given) == "main.py"
    assert resolve_entry(None, given) is None  # a directory names no entry
    several = read_input([Path("src/lib/x.py"), Path("src/main.py")])
    assert several.root == (tmp_path / "src").resolve() and resolve_entry(None, several) == "lib/x.py"


def test_output_directory_is_replaced_whole_and_keeps_modes(tmp_path: Path) -> None:
    out = tmp_path / "out"
    write_output(out, {"a.py": "1\n", "pkg/b.py": "2\n", "run.sh": "#!/bin/sh\n"}, {"run.sh": 0o755, "a.py": 0o644})
    assert (out / "run.sh").stat().st_mode & 0o777 == 0o755
    write_output(out, {"a.py": "3\n"}, {})
    assert files_of(out) == {"a.py": "3\n"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no temporary folder left


# --- end to end -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def shop_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str], dict[str, tuple[bytes, int, int]]]:
    """The shop tree reduced once through the CLI, with a report."""
    root = tmp_path_factory.mktemp("shop")
    write_tree(root / "shop-src", SHOP)
    before = snapshot(root / "shop-src")
    process = astreduce("reduce", "shop-src", "--entry", "main.py", "-o", "out", "--report", "report.json", "-q", cwd=root)
    return root, process, before


def test_directory_reduces_to_a_directory_that_reproduces(shop_run: tuple[Path, subprocess.CompletedProcess[str], dict[str, tuple[bytes, int, int]]]) -> None:
    root, process, before = shop_run
    assert process.returncode == 0, process.stderr
    out = root / "out"
    assert out.is_dir()
    assert last_error(out, "main.py") == "ZeroDivisionError: integer division or modulo by zero"
    assert snapshot(root / "shop-src") == before  # the input is never written
    assert sorted(p.name for p in root.iterdir()) == ["out", "report.json", "shop-src"]  # no leftovers
    assert process.stdout == ""  # -o names where the result goes


def test_unneeded_files_go_and_a_module_is_merged_into_its_importer(shop_run: tuple[Path, subprocess.CompletedProcess[str], dict[str, tuple[bytes, int, int]]]) -> None:
    root, process, _ = shop_run
    report = json.loads((root / "report.json").read_text())
    assert report["verified"] is True
    fates = {f["path"]: f["fate"] for f in report["files"]}
    assert fates["shop/checkout.py"] == "merged into main.py"
    for gone in ("README.md", "shop/unused.py", "shop/report.py"):
        assert fates[gone] == "deleted", gone
    for used in ("shop/__init__.py", "shop/catalog.py"):  # may go either way: the price table is on the path
        assert fates[used] in ("deleted", "merged into main.py"), used
    assert sorted(files_of(root / "out")) == ["main.py"]
    assert {"module": "shop/checkout.py", "into": "main.py"} in report["merges"]
    assert report["input"]["files"] == 7 and report["output"]["files"] == 1
    assert report["output"]["tokens"] < report["input"]["tokens"] / 5
    by_path = {f["path"]: f for f in report["files"]}
    assert by_path["main.py"]["input"]["tokens"] == 19 and by_path["shop/unused.py"]["output"] is None
    assert report["tests"] > 0 and report["seconds"] > 0 and report["passes"]
    assert sum(report["outcomes"].values()) == report["tests"] and report["outcomes"]["FAIL"] >= len(report["merges"])


def test_each_file_is_renamed_once_after_every_other_pass(tmp_path: Path) -> None:
    # renaming enables no other pass, and a file renamed in every round would match none of its parked edits
    tree = {
        "main.py": "from helpers import walk_the_tree\n\nwalk_the_tree(0)\n",
        "helpers.py": "def walk_the_tree(depth):\n    return walk_the_tree(depth + 1)\n\n\n"
                      "def average_of(numbers):\n    return sum(numbers) / len(numbers)\n",
    }
    write_tree(tmp_path / "src", tree)
    done = astreduce("reduce", "src", "--entry", "main.py", "-o", "out", "--report", "report.json", "-q", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    names = [p["name"] for p in json.loads((tmp_path / "report.json").read_text())["passes"]]
    renames = [name for name in names if name.endswith(": rename")]
    assert renames == [f"{path}: rename" for path in sorted(files_of(tmp_path / "out"))] and renames
    assert names[-len(renames):] == renames, names


def test_data_file_is_reduced_by_lines_and_a_script_stays_executable(tmp_path: Path) -> None:
    """--run with a script of the tree; the data it reads shrinks to the line that matters."""
    data = "".join(f"row {n}\n" for n in range(30)).replace("row 17\n", "boom\n")
    write_tree(
        tmp_path / "src",
        {
            "run.sh": f"#!/bin/sh\nexec {sys.executable} main.py\n",
            "main.py": (
                "import helper\n\nfor line in open('data.txt'):\n    helper.check(line.strip())\n"
            ),
            "helper.py": "def check(row):\n    if row == 'boom':\n        raise ValueError('bad row: ' + row)\n",
            "notes.txt": "nothing to see\n",
        },
    )
    (tmp_path / "src" / "data.txt").write_text(data)
    (tmp_path / "src" / "run.sh").chmod(0o755)
    before = snapshot(tmp_path / "src")
    process = astreduce(
        "reduce", "src", "--run", "./run.sh", "--stderr", "ValueError: bad row: boom", "--transforms", "delete", "-q", cwd=tmp_path
    )
    assert process.returncode == 0, process.stderr
    out = tmp_path / "src.reduced"  # the default output: DIR.reduced next to DIR
    files = files_of(out)
    assert "notes.txt" not in files and "helper.py" not in files  # deleted; helper merged into main.py
    assert files["data.txt"] == "boom\n"
    assert (out / "run.sh").stat().st_mode & stat.S_IXUSR
    assert last_error(out, "main.py") == "ValueError: bad row: boom"
    assert snapshot(tmp_path / "src") == before


def test_several_files_and_an_interestingness_script(tmp_path: Path) -> None:
    """FILE FILE ...: the first runs by default with --entry; --test gets the copy's folder."""
    write_tree(
        tmp_path,
        {
            "app.py": "import util\nimport extra\n\nutil.parse('12x')\n",
            "util.py": "def parse(text):\n    return int(text)\n\n\ndef unused():\n    return 1\n",
            "extra.py": "VALUE = 3\n",
            "interesting.sh": f'#!/bin/sh\ncd "$1" && {sys.executable} app.py 2>&1 | grep -q "invalid literal"\n',
        },
    )
    (tmp_path / "interesting.sh").chmod(0o755)
    before = snapshot(tmp_path)
    process = astreduce(
        "reduce", "app.py", "util.py", "extra.py", "--test", "interesting.sh", "--transforms", "delete", "-q", cwd=tmp_path
    )
    assert process.returncode == 0, process.stderr
    out = tmp_path / "app.reduced"  # several files: FIRST.reduced
    assert sorted(files_of(out)) == ["app.py"]
    assert "invalid literal" in last_error(out, "app.py")
    assert snapshot(tmp_path) == {**before, **{k: v for k, v in snapshot(tmp_path).items() if k.startswith("app.reduced/")}}
    # --entry: the exec oracle over several files (the first file by default)
    process = astreduce("reduce", "app.py", "util.py", "extra.py", "--transforms", "delete", "-o", "exec-out", "-q", cwd=tmp_path)
    assert process.returncode == 0, process.stderr
    assert sorted(files_of(tmp_path / "exec-out")) == ["app.py"]


def test_interrupt_writes_the_best_tree_so_far(tmp_path: Path) -> None:
    lines = "".join(f"value_{n} = {n}\n" for n in range(40))
    write_tree(
        tmp_path / "src",
        {
            # each test that gets this far sleeps 1 s: the search is still running at the interrupt
            "main.py": "import lib\n\nlib.fail()\n",
            "lib.py": "import time\n" + lines + "\n\ndef fail():\n    time.sleep(1)\n    raise KeyError('gone')\n",
            "other.py": lines,
        },
    )
    before = snapshot(tmp_path / "src")
    process = subprocess.Popen(
        [*ASTREDUCE, "reduce", "src", "--entry", "main.py", "-j", "1", "-o", "out"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV,
    )
    deadline = time.monotonic() + 60
    while not (tmp_path / "out").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(3)  # a few tests into the search
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "interrupted; best result so far (verified) written to out" in stderr
    assert last_error(tmp_path / "out", "main.py") == "KeyError: 'gone'"
    assert snapshot(tmp_path / "src") == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "src"]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        pytest.param(["missing"], "missing: cannot read: No such file or directory", id="missing-directory"),
        pytest.param(["empty"], "empty: the directory holds no files to reduce", id="empty-directory"),
        pytest.param(["src", "--entry", "main.py", "-o", "src/out"], "inside the input directory", id="output-inside-input"),
        pytest.param(["src", "--entry", "main.py", "-o", "src"], "inside the input directory", id="output-is-input"),
        pytest.param(["src", "--entry", "main.py", "-o", "full"], "exists and is not empty", id="output-not-empty"),
        pytest.param(["src", "--entry", "main.py", "-o", "file.txt"], "must be a directory", id="output-is-a-file"),
        pytest.param(["src", "--entry", "main.py", "-o", "nowhere/out"], "does not exist", id="output-folder-missing"),
        pytest.param(["src", "--entry", "nope.py"], "--entry nope.py: no such file in the input", id="entry-missing"),
        pytest.param(["src", "--entry", "../main.py"], "must be a path inside the input", id="entry-outside"),
        pytest.param(["src"], "needs --entry FILE", id="no-oracle"),
        pytest.param(["src", "--entry", "main.py", "--append", "file.txt"], "--append cannot be used", id="append"),
        pytest.param(["src", "--entry", "main.py", "--in-place"], "--in-place is for a single file", id="in-place"),
        pytest.param(["src", "--entry", "main.py", "--report", "src/r.json"], "inside the input directory", id="report-inside-input"),
        pytest.param(["src/main.py", "--entry", "main.py"], "--entry goes with a directory or several files", id="entry-with-one-file"),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path: Path, args: list[str], expected: str) -> None:
    write_tree(tmp_path, {"src/main.py": "raise ValueError('x')\n", "full/keep.txt": "mine\n", "file.txt": "text\n"})
    (tmp_path / "empty").mkdir()
    before = snapshot(tmp_path)
    process = astreduce("reduce", *args, "-q", cwd=tmp_path)
    assert process.returncode == 2, process.stderr
    assert expected in one_line(process.stderr)
    assert process.stdout == ""
    assert snapshot(tmp_path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty", "file.txt", "full", "src"]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        pytest.param(["--entry", "main.py"], "input does not reproduce: main.py raises no exception", id="entry-raises-nothing"),
        pytest.param(["--entry", "main.py", "--expect", "KeyError"], "expected KeyError, got no exception", id="other-exception"),
        pytest.param(["--run", "true"], "the command succeeded (exit status 0)", id="command-succeeds"),
    ],
)
def test_input_that_does_not_reproduce_exits_1(tmp_path: Path, args: list[str], expected: str) -> None:
    write_tree(tmp_path, {"src/main.py": "print('fine')\n", "src/lib.py": "X = 1\n"})
    process = astreduce("reduce", "src", *args, "-q", cwd=tmp_path)
    assert process.returncode == 1, process.stderr
    assert expected in one_line(process.stderr)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["src"]  # nothing written


# --- the corpora case --------------------------------------------------------------------


def _load_tools() -> ModuleType:
    spec = importlib.util.spec_from_file_location("multifile_tools", REPO / "corpora" / "multifile" / "tools.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look the defining module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
@pytest.mark.parametrize("name", [case.name for case in _load_tools().load_cases()])
def test_corpora_case_ends_small(tmp_path: Path, name: str) -> None:
    """A package reduced end to end: at most ``max_files`` files, ``max_tokens`` tokens, still interesting."""
    tools = _load_tools()
    case = next(c for c in tools.load_cases() if c.name == name)
    source = tools.materialise(case, tmp_path)
    before = snapshot(source)
    args = tools.resolve_args(case, tmp_path)
    process = astreduce(
        "reduce", str(source), *args, "-o", str(tmp_path / "out"), "--report", str(tmp_path / "report.json"), "-q",
        cwd=tmp_path, timeout=3600,
    )
    assert process.returncode == 0, process.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["verified"] is True
    out = files_of(tmp_path / "out")
    assert len(out) <= case.max_files, sorted(out)
    assert sum(tools.token_count(text) for text in out.values()) <= case.max_tokens
    assert tools.interesting(case, tmp_path / "out")
    assert not set(out) & set(case.unneeded), sorted(out)  # only pieces of the modules the failure needs
    assert snapshot(source) == before
    print(f"\n{name}: {report['input']['files']} -> {report['output']['files']} files, "
          f"{report['input']['lines']} -> {report['output']['lines']} lines, "
          f"{report['input']['tokens']} -> {report['output']['tokens']} tokens, "
          f"{report['tests']} tests, {report['seconds']:.0f} s")


def test_a_package_reduces_as_far_as_its_single_file_equivalent() -> None:
    """Every single-file pass runs on each file of a tree, value-from-trace included.

    Before, values were never traced in a tree: the package ended at 23
    tokens (``total = round(sum([100, 250, 1000]) * 0.0061, 2)``) where the
    same code as one file ends at 7 (``total = 8.24``).
    """
    from astreduce import reduce_source
    from astreduce.reduce.tree import reduce_tree

    case = REPO / "corpora" / "package_vs_file"
    single = reduce_source((case / "single.py").read_text(), jobs=2)
    package = {p.name: p.read_text() for p in (case / "currency").glob("*.py")}
    tree = reduce_tree(package, entry="main.py", jobs=2)
    assert tree.verified and single.verified
    assert tree.output_size.tokens <= single.output_size.tokens
    assert "8.24" in tree.tree["main.py"]  # the traced value of the yen total, from the imported modules


#: A package whose every test sleeps a little (the entry's guard), so that a run lasts long enough to interrupt.
SLOW_TREE = {
    "main.py": "from pkg.core import total\nfrom pkg import extra\n\nassert total([1, 2, 3]) == 6, 'My Test'\n",
    "pkg/__init__.py": "",
    "pkg/core.py": "import time\n\n" + "".join(f"def unused_{i}(x):\n    return x * {i}\n\n" for i in range(25))
    + "def total(values):\n    time.sleep(0.05)\n    return sum(values) + len(values) // 3\n",
    "pkg/extra.py": "".join(f"NAME_{i} = {i}\n" for i in range(20)),
}


def test_a_tree_resumes_after_ctrl_c(tmp_path: Path) -> None:
    write_tree(tmp_path / "src", SLOW_TREE)
    cache = tmp_path / "cache"

    def run(name: str, *options: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-m", "astreduce", "reduce", str(tmp_path / "src"), "--entry", "main.py", "-o", str(tmp_path / name),
             "--no-format", "-q", "-j", "1", "--report", str(tmp_path / f"{name}.json"), *options],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True,
        )

    assert run("full").wait(600) == 0
    full = json.loads((tmp_path / "full.json").read_text())
    first = run("first", "--resume", "--cache-dir", str(cache))
    deadline = time.monotonic() + 120
    while not (tmp_path / "first").exists() and time.monotonic() < deadline:  # the search has begun
        time.sleep(0.05)
    time.sleep(0.4)  # some of its tests, not all of them: each takes 50 ms or more
    first.send_signal(signal.SIGINT)
    assert first.wait(120) == 130
    earlier = json.loads((tmp_path / "first.json").read_text())
    assert earlier["interrupted"] and 0 < earlier["tests"] < full["tests"]
    assert run("second", "--resume", "--cache-dir", str(cache)).wait(600) == 0
    again = json.loads((tmp_path / "second.json").read_text())
    texts = {name: {p.relative_to(tmp_path / name).as_posix(): p.read_text() for p in (tmp_path / name).rglob("*") if p.is_file()} for name in ("full", "second")}
    assert texts["second"] == texts["full"]
    assert again["resumed"] >= 0.9 * earlier["tests"], (again["resumed"], earlier["tests"])
    assert again["tests"] + again["resumed"] >= 0.9 * full["tests"]


def test_the_first_sweep_deletes_shallow_statements_only_the_second_every_level() -> None:
    """A tree's first rounds go level by level over the whole tree (issue 46): statements nested at most
    SHALLOW_SWEEP deep in every file, then every statement, then twice the phases that take off the most a test
    (none of the slow ones: an expression hoisted, a constant, a value); other strategies get no sweep."""
    from astreduce.reduce.sweeps import SHALLOW_SWEEP, SWEPT_ROUNDS, sweep_plans
    from astreduce.search.schedule import row
    from astreduce.search.strategies import Plan, statement_levels
    from astreduce.source.tree import parse
    from astreduce.transforms import load_transforms

    tree = parse("import os\n\nclass A:\n    def f(self):\n        if os:\n            x = 1\n        return 2\n\ny = 3\n")
    shallow, every, *swept = sweep_plans(Plan.of(load_transforms()), "auto")
    assert len(swept) == SWEPT_ROUNDS == 2 and swept[0] == swept[1]  # every file gets them twice before the rest
    phases = swept[0]
    names = [t.name for t in phases.transforms]
    assert {"delete", "delete-with-uses", "remove-parameter", "if-to-body", "inline-call"} <= set(names)
    assert not {"hoist-expression", "to-constant", "value-from-trace", "rename", "statement-to-expression"} & set(names)
    assert {row(name).phase for name in names} == {"delete", "definitions", "classic", "hoist"}
    assert phases.rounds == 1 and not phases.extras
    levels = statement_levels(tree)
    found = [sorted(levels[o.target] for o in plan.transforms[0].opportunities(tree)) for plan in (shallow, every)]
    assert max(found[0]) == SHALLOW_SWEEP == 1 and max(found[1]) == 3 and set(found[0]) < set(found[1])
    assert sweep_plans(Plan.of(load_transforms()), "hdd") == []


#: Imported names and whether the pass across files drops them: the file's own uses, its importers' uses (their own
#: imports of the name are no use), ``try`` and ``__future__`` imports.
IMPORTS_TREE = {
    "main.py": "from __future__ import annotations\nfrom lib import used, reexported\nfrom typing import Dict\n"
               "try:\n    import json\nexcept ImportError:\n    json = None\nprint(used, reexported)\n",
    "lib/__init__.py": "from os import path as used, sep as idle\nfrom typing import Dict\nimport sys\n"
                       "from lib.core import reexported\n",
    "lib/core.py": "from math import pi as reexported, tau\n",
}


def test_imports_no_file_uses_are_proposed_across_files_and_annotations_everywhere() -> None:
    """Before the sweeps, every file's annotations and unused imported names are one keep-list (issue 46)."""
    from astreduce.reduce.sweeps import annotations_pass, unused_imports_pass
    from astreduce.source.tree import parse_or_none

    found = unused_imports_pass(IMPORTS_TREE, lambda path: True, parse_or_none)
    after = found.render(frozenset(range(len(found.edits))))
    assert after["main.py"].startswith("from __future__ import annotations\nfrom lib import used, reexported\n")
    assert "Dict" not in after["main.py"] and "import json" in after["main.py"]  # a try's import stays
    assert after["lib/__init__.py"] == "from os import path as used\nfrom lib.core import reexported\n"
    assert after["lib/core.py"] == "from math import pi as reexported\n"
    kept = unused_imports_pass(IMPORTS_TREE, lambda path: path != "main.py", parse_or_none)
    assert {path for path, _ in kept.edits} == {"lib/__init__.py", "lib/core.py"}  # a fixed file's text is not touched
    typed = {"a.py": "def f(x: int, *, y: 'str' = '') -> list[int]:\n    z: float = 1.0\n    return [x]\n", "b.txt": "x: int"}
    dropped = annotations_pass(typed, lambda path: path.endswith(".py"), parse_or_none)
    assert dropped.render(frozenset(range(len(dropped.edits)))) == {
        "a.py": "def f(x, *, y = ''):\n    z = 1.0\n    return [x]\n", "b.txt": "x: int",
    }


#: A package whose annotations are all idle but one, which the run reads (``get_type_hints``).
ANNOTATED_TREE = {
    "main.py": "from typing import get_type_hints\nfrom shapes import area, Size\n\n"
               "def check(size: Size) -> int:\n    return area(size)\n\n"
               "assert check(get_type_hints(check)['size'](2, 3)) == 7, 'wrong area'\n",
    "shapes.py": "from typing import Optional, List\n\nclass Size:\n    def __init__(self, width: int, height: int) -> None:\n"
                 "        self.width: int = width\n        self.height: int = height\n\n"
                 "def area(size: Size, scale: Optional[float] = None) -> int:\n    parts: List[int] = [size.width, size.height]\n"
                 "    return parts[0] * parts[1]\n",
}


def test_a_tree_drops_every_idle_annotation_in_one_pass_before_its_sweeps() -> None:
    from astreduce.reduce.tree import reduce_tree

    result = reduce_tree(ANNOTATED_TREE, entry="main.py", jobs=1)
    assert result.verified
    names = [p.name for p in result.passes]
    across = result.passes[names.index("annotations across files")]
    assert across.tokens_after < across.tokens_before and across.tests > 1  # all at once fails: the run reads one
    assert names.index("annotations across files") < min(i for i, n in enumerate(names) if "delete statements" in n)
    assert names.index("imports unused across files") < min(i for i, n in enumerate(names) if "delete statements" in n)


#: Two files that both stay (``b.py`` holds a kept line: never merged nor deleted) and both take rounds of auto.
TWO_FILES = {
    "main.py": "from a import f\nfrom b import g, h\n\nvalues = [1, 2, 3]\ncount = len(values)\nif count > 2:\n"
               "    total = f(values)\n    print(g(total, count))\nelse:\n    print(h(values))\n",
    "a.py": "from b import h\n\ndef f(values):\n    first = values[0]\n    rest = values[1:]\n    if first > 0:\n"
            "        return first + sum(rest)\n    return h(rest)\n",
    "b.py": "def h(values):\n    return [v * 2 for v in values]\n\ndef g(total, count):\n    spread = total - count * 2\n"
            "    scale = spread - spread\n    if scale == 0:\n        ratio = total / scale  # astreduce: keep\n"
            "    else:\n        ratio = 0\n    return ratio\n",
}


def test_the_full_rounds_give_each_file_a_round_of_auto_in_turn() -> None:
    """Level by level, not file by file to a fixpoint (issue 46): after the sweeps, a file's rounds of auto
    alternate with the other files' instead of running to its fixpoint first."""
    from astreduce.reduce.tree import reduce_tree

    result = reduce_tree(TWO_FILES, entry="main.py", jobs=1)
    assert result.verified and sorted(result.tree) == ["b.py", "main.py"]
    assert "ratio = total / scale  # astreduce: keep" in result.tree["b.py"]
    names = [p.name for p in result.passes]
    merges = [i for i, name in enumerate(names) if name == "merge modules"]
    visits: list[str] = []  # the files reduced in the full rounds, in turn
    for name in names[merges[1] + 1:]:  # after the two sweeps
        path = name.split(": ")[0] if ": " in name else None
        if path is not None and not name.endswith(": rename") and (not visits or visits[-1] != path):
            visits.append(path)
    assert visits[:4] == ["main.py", "b.py", "main.py", "b.py"], visits
    # each visit is one round: the passes of a round, never two rounds' statement deletions in a row
    first = names.index("main.py: delete statements, level 0", merges[1])
    assert "main.py: delete statements, level 0" not in names[first + 1 : names.index("b.py: delete statements, level 0", first)]


def test_a_file_s_first_full_round_parks_what_failed_alone_in_the_sweeps_and_in_the_modules_merged_into_it() -> None:
    """A merge keeps what the merged module learnt (a change key holds the lines around its edit only): the
    importer's first round parks those single edits (tested once, together) instead of testing each alone again,
    as it parks its own sweeps' (pint's merged parser: 314 tests for 180 tokens before)."""
    from astreduce.reduce.file_rounds import FileRounds
    from astreduce.search.strategies import Plan
    from astreduce.transforms import load_transforms

    tree = {"main.py": "import calc\ncalc.check()\n", "calc.py": "def check():\n    raise ValueError\n", "util.py": "X = 1\n"}
    rounds = FileRounds(Plan.of(load_transforms(), last_passes="never"))
    rounds.inherit("main.py", {b"main": b"1"})
    rounds.inherit("calc.py", {b"calc": b"2"})
    util = rounds.run_of(tree, "util.py")  # a file with its own rounds, merged later
    util.memory.stale[b"util"] = b"3"
    rounds.merged("calc.py", "main.py")
    rounds.merged("util.py", "main.py")
    main = rounds.run_of(tree, "main.py")
    assert main.memory.stale == {b"main": b"1", b"calc": b"2", b"util": b"3"}
    assert not main.again  # parked in its first round, not tested alone again
    assert rounds.run_of(tree, "calc.py").memory.stale == {}  # a module merged away takes nothing with it
    # a file whose rounds ran before: a module merged into it changes its context, its next reduction retests
    main.settled = True
    rounds.merged("other.py", "main.py")
    assert rounds.run_of(tree, "main.py").again


def test_a_tree_s_progress_line_shows_files_left_and_tests_per_second(tmp_path: Path) -> None:
    """Progress that shows a tree's reduction (issue 46): files left of the input's, tests per second, the pass
    (the coverage groups among them) on each line, when standard error is no terminal."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "main.py").write_text("import helper\nhelper.boom()\n")
    (tmp_path / "pkg" / "helper.py").write_text("def boom():\n    raise ValueError('boom')\n")
    for i in range(3):
        (tmp_path / "pkg" / f"unused_{i}.py").write_text(f"X = {i}\n")
    done = subprocess.run(
        [sys.executable, "-m", "astreduce", "reduce", "pkg", "--entry", "main.py", "-o", "out", "-j", "1", "--coverage-first"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if re.search(r"\] .*: tests \d+ \([\d.]+/s\), best \d+ tokens", line)]
    assert lines and all(re.search(r", \d of 5 files$", line) for line in lines), done.stderr
    assert any("unexecuted files (3)" in line for line in lines), done.stderr
