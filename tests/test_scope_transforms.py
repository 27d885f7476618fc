"""The scope-aware transforms keep candidates compilable: every single proposal, on every corpora input.

For each corpora case (``corpora/tools.py``: ``load_cases`` and
``materialise``; the standard-library cases are built from the running
Python) and for each transform of the scope-aware families (parameters,
uses, inlining, classes, control flow, constants, tuples), every proposal the
transform makes on the case's input is rendered alone and compiled with
``compile()`` — which, unlike ``ast.parse``, also rejects ``return`` outside
a function, ``break`` outside a loop and the like. The share that compiles
must be at least :data:`COMPILING` per transform (issue 8). The table is
printed (``pytest -s``).

The hand-minimised ``expected_min.py`` of each case is checked the same
way: it is what a reduction approaches, and where parameters and methods
become unused, so the transforms that rarely apply to a full input are
exercised too.

``value-from-trace`` runs each program once (with the case's ``--append``
script, as the exec oracle would) to record its values.
"""

from __future__ import annotations

import importlib.util
import shlex
import sys
import warnings
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest

from astreduce import reduce_source
from astreduce.oracles.options import OracleOptions
from astreduce.source.render import NodeReducer
from astreduce.transforms import Transform, registered_transforms
from astreduce.run.trace import Tracer
from astreduce.transforms.constants import ValueFromTrace
from astreduce.source.tree import parse

REPO = Path(__file__).resolve().parent.parent
#: The families of issue 8, by module.
FAMILIES = frozenset({"parameters", "uses", "inlining", "classes", "control_flow", "constants", "tuples"})
#: Share of single proposals per transform that must compile.
COMPILING = 0.95


def _load_tools() -> ModuleType:
    """Import ``corpora/tools.py`` by path: ``corpora`` is data, not a package."""
    spec = importlib.util.spec_from_file_location("corpora_tools", REPO / "corpora" / "tools.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look the defining module up here
    spec.loader.exec_module(module)
    return module


tools = _load_tools()


def scope_transforms() -> dict[str, type[Transform]]:
    return {
        name: cls
        for name, cls in sorted(registered_transforms().items())
        if cls.__module__.rpartition(".")[2] in FAMILIES
    }


def compiles(text: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a candidate's SyntaxWarnings are not the test's
            compile(text, "<candidate>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


#: Characters of the largest corpora input whose every proposal is rendered and compiled.
LARGEST_INPUT = 40_000


@cache
def corpora_programs(root: Path) -> tuple[tuple[str, str, str, str], ...]:
    """(label, program text, appended test, folder) of every corpora input and hand-minimised program.

    Inputs over :data:`LARGEST_INPUT` characters (stdlib_argparse) are left
    out: rendering and compiling every proposal on them took minutes; their
    hand-minimised programs stay in.
    """
    found = []
    for case in tools.load_cases():
        folder = root / case.name
        path = tools.materialise(case, folder)
        appended = (folder / case.append).read_text(encoding="utf-8") if case.append else ""
        text = path.read_text(encoding="utf-8")
        if len(text) <= LARGEST_INPUT:
            found.append((case.name, text, appended, str(folder)))
        if case.expected_min.is_file():
            found.append(
                (
                    f"{case.name} (min)",
                    case.expected_min.read_text(encoding="utf-8"),
                    appended,
                    str(folder),
                )
            )
    return tuple(found)


def compile_rates(root: Path) -> dict[str, dict[str, tuple[int, int]]]:
    """Transform → program label → (proposals that compile, proposals)."""
    rates: dict[str, dict[str, tuple[int, int]]] = {name: {} for name in scope_transforms()}
    for label, text, appended, folder in corpora_programs(root):
        tree = parse(text)
        reducer = NodeReducer(tree)
        for name, cls in scope_transforms().items():
            transform = cls()
            if isinstance(transform, ValueFromTrace):
                transform.configure(recorder=Tracer(append=appended, search_path=folder))
            good = tried = 0
            for opportunity in transform.opportunities(tree):
                tried += 1
                good += compiles(reducer.render(opportunity.edits))
            rates[name][label] = (good, tried)
    return rates


@pytest.fixture(scope="module")
def rates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, tuple[int, int]]]:
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))
    return compile_rates(tmp_path_factory.mktemp("corpora"))


def test_every_family_is_registered() -> None:
    modules = {cls.__module__.rpartition(".")[2] for cls in scope_transforms().values()}
    assert modules == FAMILIES


def test_single_proposals_compile_on_the_corpora(
    rates: dict[str, dict[str, tuple[int, int]]],
) -> None:
    print(f"\n{'transform':<22} {'compile':>8} {'proposals':>10} {'rate':>7}")
    low = {}
    for name, per_program in rates.items():
        good = sum(g for g, _ in per_program.values())
        tried = sum(t for _, t in per_program.values())
        print(f"{name:<22} {good:>8} {tried:>10} {good / tried if tried else 1:>7.1%}")
        if tried and good / tried < COMPILING:
            low[name] = {label: f"{g}/{t}" for label, (g, t) in per_program.items() if g < t}
    assert not low, f"transforms whose single proposals compile too rarely: {low}"


def test_every_transform_proposes_on_the_corpora(
    rates: dict[str, dict[str, tuple[int, int]]], tmp_path: Path
) -> None:
    silent = [
        name for name, per_program in rates.items() if not any(t for _, t in per_program.values())
    ]
    if silent:  # look at the inputs left out of the rates too, without rendering every proposal
        for case in tools.load_cases():
            path = tools.materialise(case, tmp_path / case.name)
            text = path.read_text(encoding="utf-8")
            if len(text) > LARGEST_INPUT:
                tree = parse(text)
                silent = [n for n in silent if next(iter(scope_transforms()[n]().opportunities(tree)), None) is None]
    assert not silent, f"transforms that proposed nothing on the corpora: {silent}"


def test_value_from_trace_records_values_of_the_appended_test(tmp_path: Path) -> None:
    """With the exec oracle's appended test, the trace sees the calls the test makes."""
    tree = parse("def area(width, height):\n    return width * height\n")
    transform = ValueFromTrace()
    alone = list(transform.opportunities(tree))
    transform.configure(recorder=Tracer(append="area(3, 4)\n", search_path=str(tmp_path)))
    proposed = {NodeReducer(tree).render(o.edits) for o in transform.opportunities(tree)}
    assert not alone
    assert "def area(width, height):\n    return 12\n" in proposed


def test_value_from_trace_keeps_the_values_of_a_program_that_hangs() -> None:
    transform = ValueFromTrace()
    transform.configure(recorder=Tracer(timeout=1.0))
    tree = parse("x = 1 + 2\nwhile x:\n    pass\n")
    proposed = {NodeReducer(tree).render(o.edits) for o in transform.opportunities(tree)}
    assert "x = 3\nwhile x:\n    pass\n" in proposed


def test_value_from_trace_can_be_disabled() -> None:
    transform = ValueFromTrace()
    transform.configure(enabled=False)
    assert list(transform.opportunities(parse("x = 1 + 2\n"))) == []


def test_a_reduction_traces_the_program_with_the_exec_oracles_appended_test() -> None:
    """reduce_source hands the appended test to ``value-from-trace``: a function the test calls once becomes its value."""
    program = "def area(width, height):\n    total = 0\n    for _ in range(height):\n        total += width\n    return total\n"
    result = reduce_source(
        program, expect="AssertionError:area", append="assert area(3, 4) != 12, 'area'\n", transforms=["value-from-trace", "delete"]
    )
    assert result.text.replace(" ", "") == "defarea(width,height):\nreturn12\n"


def test_a_command_oracle_never_runs_the_program_to_trace_it(tmp_path: Path) -> None:
    """Under a command oracle the file may not be Python meant to run: tracing it must not execute it."""
    marker = tmp_path / "zzmarker"
    line = f"open({str(marker)!r}, 'w').close()"
    program = f"{line}\nx = 1 + 2\nprint(x)\n"
    options = OracleOptions(run=f"grep -qF {shlex.quote(line)} {{file}}", exit_code=0)
    result = reduce_source(program, options=options, transforms=["value-from-trace", "delete"])
    assert "zzmarker" in result.text
    assert not marker.exists(), "value-from-trace executed the candidate under a command oracle"
