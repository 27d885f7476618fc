"""End-to-end: reduce every corpora case with the ``astreduce`` command and check the result.

One test per folder under ``corpora/`` (the folder name is the test id).  Each
test materialises the case into a temporary folder with ``corpora/tools.py``
(the build script of a standard-library case runs there), runs
``python -m astreduce reduce`` on it with the case's oracle options, and asserts
that

- the command exits 0 and its report says the output was verified;
- the output, with the ``--append`` script added, reproduces the target: run as
  a script, the last traceback line is exactly ``EXC: MESSAGE``, and exec'd as
  ``__main__`` (as the exec oracle runs a candidate) it raises that type and
  ``str()``;
- the report says the output fails at the input's place (the same file and
  function), and gives every line of the output an origin entry whose original
  line holds the output line's tokens, but for the renames and folds it lists;
- the output has no more tokens than the case's ``max_tokens``;
- reducing the output again with the same options changes nothing.

The command runs as a subprocess, as a user would run it, so these tests also
cover argument parsing, the report and the atomic output file.  Cases marked
``slow = true`` in ``case.toml`` get ``pytest.mark.slow``, which the project's
``addopts`` (``-m "not slow"``) deselects unless ``pytest -m slow`` is given.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent

# Seconds one astreduce run may take before the test gives up (the largest case
# takes a few minutes on two cores).
REDUCE_TIMEOUT = 900


def _load_tools() -> ModuleType:
    """Import ``corpora/tools.py`` by path: ``corpora`` is data, not a package."""
    spec = importlib.util.spec_from_file_location("corpora_tools", REPO / "corpora" / "tools.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # dataclasses look the defining module up in sys.modules.
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


tools = _load_tools()
CASES = tools.load_cases()


def _resolve_args(args: list[str], folder: Path) -> list[str]:
    """The case's args with the ``--append`` file made absolute inside ``folder``."""
    resolved: list[str] = []
    for index, arg in enumerate(args):
        if index > 0 and args[index - 1] == "--append":
            arg = str(folder / arg)
        elif arg.startswith("--append="):
            arg = "--append=" + str(folder / arg.partition("=")[2])
        resolved.append(arg)
    return resolved


def _reduce(source: Path, output: Path, report: Path, args: list[str]) -> dict[str, object]:
    """Run ``astreduce reduce`` as a subprocess; assert exit 0; return the JSON report."""
    command = [sys.executable, "-m", "astreduce", "reduce", str(source), *args]
    command += ["-o", str(output), "--report", str(report), "-q"]
    done = subprocess.run(
        command,
        check=False,
        capture_output=True,
        text=True,
        timeout=REDUCE_TIMEOUT,
        stdin=subprocess.DEVNULL,
        cwd=source.parent,
    )
    assert done.returncode == 0, (
        f"exit {done.returncode} from {' '.join(command)}\n"
        f"stdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    )
    result: dict[str, object] = json.loads(report.read_text(encoding="utf-8"))
    return result


def _tokens(line: str) -> list[str]:
    """A line's Python tokens (strings whole), or a word split when it does not tokenize alone."""
    import io
    import re
    import tokenize

    try:
        return [
            t.string for t in tokenize.generate_tokens(io.StringIO(line.strip() + "\n").readline)
            if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT, tokenize.COMMENT)
        ]
    except (tokenize.TokenError, SyntaxError):
        return re.findall(r"\w+|[^\w\s]", line)


def _logical(text: str, number: int) -> str:
    """The original's text from line ``number`` to the end of its logical line."""
    import io
    import tokenize

    lines = text.split("\n")
    end = number
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.NEWLINE and token.start[0] >= number:
                end = token.start[0]
                break
    except (tokenize.TokenError, SyntaxError):
        pass
    return " ".join(lines[number - 1 : end])


def assert_origins_hold(report: dict[str, Any], output: str, originals: dict[str, str]) -> None:
    """Every line of the output has an origin entry; a line with an origin shares tokens with its original line, and
    every token run it has that the original line does not (the renames undone) is a fold the report lists."""
    import difflib

    origins = report["origins"]
    assert isinstance(origins, dict) and len(origins) == 1, origins
    (path, entries), = origins.items()
    lines = output.splitlines()
    assert [e["line"] for e in entries] == list(range(1, len(lines) + 1)), entries
    back: dict[str, str] = {}
    for old, new in report["renames"].items():
        back.setdefault(new, old)
    folds = {(f["line"], f["now"]) for f in report["folds"]}
    for entry, line in zip(entries, lines):
        if entry["file"] is None:
            continue
        was = _tokens(_logical(originals[entry["file"]], entry["origin_line"]))
        now = _tokens(line)
        undone = [back.get(word, word) for word in now]
        matcher = difflib.SequenceMatcher(None, was, undone, autojunk=False)
        assert any(size for _, _, size in matcher.get_matching_blocks()), (line, was)
        for tag, _, _, j1, j2 in matcher.get_opcodes():
            if tag in ("replace", "insert"):
                listed = " ".join(now[j1:j2])
                assert (entry["line"], listed) in folds or all(w in back for w in now[j1:j2]), (line, listed, report["folds"])


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(case, id=case.name, marks=[pytest.mark.slow] if case.slow else [])
        for case in CASES
    ],
)
def test_corpus_case(case: Any, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    folder = tmp_path / "case"
    source = tools.materialise(case, folder)
    args = _resolve_args(case.args, folder)
    appended = None
    if case.append is not None:
        appended = (folder / case.append).read_text(encoding="utf-8")

    started = time.perf_counter()
    output = tmp_path / "out" / "reduced.py"
    output.parent.mkdir()
    report = _reduce(source, output, tmp_path / "report.json", args)
    request.node.user_properties.append(("seconds", round(time.perf_counter() - started, 1)))
    assert report["verified"] is True, f"report: {report}"

    reduced = output.read_text(encoding="utf-8")
    run = tools.run_program(tools.with_append(reduced, appended), case.expect)
    assert run.ok, f"the output does not reproduce: {run.detail}\n--- output:\n{reduced}"
    failure = report["failure"]
    assert isinstance(failure, dict) and failure["same_place"] is True, failure
    original_place, raised = failure["original"], failure["raised_at"]
    if original_place is not None:
        assert raised is not None, failure
        if original_place["appended"]:
            assert raised["appended"] and raised["origin_line"] == original_place["line"], failure
        else:
            assert (raised["origin_file"], raised["function"]) == (original_place["file"], original_place["function"]), failure
    assert_origins_hold(report, reduced, {source.name: source.read_text(encoding="utf-8")})

    tokens = tools.token_count(reduced)
    request.node.user_properties.append(("tokens", tokens))
    assert tokens <= case.max_tokens, (
        f"output has {tokens} tokens > max_tokens {case.max_tokens}\n--- output:\n{reduced}"
    )

    again = tmp_path / "again" / "reduced.py"
    again.parent.mkdir()
    _reduce(output, again, tmp_path / "again.json", args)
    assert again.read_text(encoding="utf-8") == reduced, "a second reduction changed the output"
