"""Data-driven transform tests, the registry, and "remove one" properties.

Cases live in ``tests/data/transforms/<transform-name>/<case>.py`` (docs/ARCHITECTURE.md,
"Testing a transform: data files")::

    # flags: --require "def f"
    def f():
        x = 1
    # output
    def f():
        pass

The directory names the only transform the reduction may use; the file stem
is the test id. ``--require TEXT`` (repeatable) makes a candidate interesting
when it compiles and contains every TEXT; without it, any candidate that
compiles is interesting. ``--strategy NAME`` picks the strategy (default
``auto``). ``--python X.Y`` reduces syntax newer than the running
interpreter's (3.12's ``type`` statements and type parameters): that
interpreter parses the candidates, and "compiles" means "parses there". Files are read with ``newline=""`` so that CRLF cases keep their
``\\r\\n`` and are compared byte for byte.

Besides the expected output, each case checks that (nearly) every candidate
the oracle sees parses (see :data:`CANDIDATES_PARSING`), that every single
proposal of the transform on the input parses, and that reducing the output
again changes nothing.

The property tests at the end follow pysource-minimize's
``tests/test_remove_one.py``: on real standard-library modules, rendering
without edits gives the text back byte for byte, dropping any single
droppable node gives a module that parses (unless the sequence needs the
element), and single proposals of every transform mostly parse.
"""

from __future__ import annotations

import ast
import bisect
import dataclasses
import functools
import importlib
import inspect
import pkgutil
import random
import shlex
import sysconfig
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import astreduce.transforms
from astreduce.cli import main
from astreduce.oracles import Verdict
from astreduce.run import Run
from astreduce.run.trace import Tracer
from astreduce.outcome import Outcome
from astreduce.source.render import DROP, NodeReducer
from astreduce.reduce.single import reduce_source
from astreduce.search.unit_passes import splice_text
from astreduce.transforms import TextTransform, Transform, load_transforms, registered_transforms
from astreduce.transforms.constants import ValueFromTrace
from astreduce.source.foreign import ForeignParser
from astreduce.source.syntax import syntax_interpreter
from astreduce.source.tree import Tree, parse

DATA = Path(__file__).parent / "data" / "transforms"
#: Share of a case's candidates that must parse. A sequence with a minimum
#: count (an import's names, a ``with``'s items) may meet its minimum only in
#: combination, so a few tried-together edits legitimately break syntax; one
#: such candidate is tolerated even in a case too small for 10% to allow it.
#: Single proposals, on the other hand, must all parse.
CANDIDATES_PARSING = 0.90
#: Share of single proposals per transform that must parse on real modules.
PROPOSALS_PARSING = 0.95


# --- cases --------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Case:
    path: Path
    transform: str
    source: str
    expected: str
    require: tuple[str, ...]
    strategy: str
    python: str | None = None


def read_case(path: Path) -> Case:
    with path.open(encoding="utf-8", newline="") as file:
        text = file.read()
    lines = text.splitlines(keepends=True)
    require: list[str] = []
    strategy = "auto"
    python = None
    if lines and lines[0].startswith("# flags:"):
        args = shlex.split(lines.pop(0)[len("# flags:") :])
        while args:
            option = args.pop(0)
            if option == "--require" and args:
                require.append(args.pop(0))
            elif option == "--strategy" and args:
                strategy = args.pop(0)
            elif option == "--python" and args:
                python = args.pop(0)
            else:
                raise ValueError(f"{path}: unknown flag {option!r}")
    markers = [i for i, line in enumerate(lines) if line.rstrip("\r\n") == "# output"]
    if len(markers) != 1:
        raise ValueError(f"{path}: needs exactly one '# output' line")
    (marker,) = markers
    return Case(
        path=path,
        transform=path.parent.name,
        source="".join(lines[:marker]),
        expected="".join(lines[marker + 1 :]),
        require=tuple(require),
        strategy=strategy,
        python=python,
    )


def case_paths() -> list[Path]:
    return sorted(DATA.glob("*/*.py"))


class RequireOracle:
    """In-process synthetic oracle: FAIL when the candidate compiles and holds every required text.

    Candidates are compiled, never executed. Every candidate it sees is recorded.
    """

    def __init__(self, require: tuple[str, ...], valid: Callable[[str], bool] | None = None) -> None:
        self.require = require
        self.valid = valid or compiles
        self.seen: list[str] = []

    @property
    def identity(self) -> str:
        return "require:" + "\0".join(self.require)

    def judge(self, text: str) -> Verdict:
        self.seen.append(text)
        if not self.valid(text):
            return Verdict(Outcome.UNRESOLVED, Run("syntax", "SyntaxError"))
        if all(required in text for required in self.require):
            return Verdict(Outcome.FAIL, Run("exception", "Interesting"))
        return Verdict(Outcome.PASS, Run("ok"))


def compiles(text: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a candidate's SyntaxWarnings are not the test's
            compile(text, "<candidate>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def parses(text: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def reduce_case(case: Case, text: str) -> tuple[str, list[str]]:
    oracle = RequireOracle(case.require, syntax(case.python).parses if case.python else None)
    result = reduce_source(
        text, oracle, strategy=case.strategy, transforms=[case.transform], format=False, python=case.python
    )
    return result.text, oracle.seen


class Syntax:
    """Parsing as one interpreter does: this one, or another through :class:`ForeignParser` (``--python``)."""

    def __init__(self, python: str | None) -> None:
        path = syntax_interpreter(python)
        self.parser = ForeignParser(path) if path is not None else None

    def parses(self, text: str) -> bool:
        if self.parser is None:
            return parses(text)
        try:
            self.parser.parse(text)
        except (SyntaxError, ValueError):
            return False
        return True

    def tree(self, text: str) -> Tree:
        return parse(text) if self.parser is None else self.parser.parse(text)


    def close(self) -> None:
        if self.parser is not None:
            self.parser.close()


@functools.cache
def syntax(python: str | None) -> Syntax:
    return Syntax(python)


@pytest.fixture(scope="module", autouse=True)
def _close_parsers() -> Iterator[None]:
    yield
    for python in {p for p in (read_case(path).python for path in case_paths()) if p}:
        syntax(python).close()
    syntax.cache_clear()


def case_params() -> list[object]:
    params: list[object] = []
    for path in case_paths():
        params.append(pytest.param(path, id=f"{path.parent.name}/{path.stem}"))
    return params


@pytest.mark.parametrize("path", case_params())
def test_transform_case(path: Path) -> None:
    case = read_case(path)
    assert case.transform in registered_transforms(), f"{path.parent.name} is not a registered transform"
    checker = syntax(case.python)
    assert (checker.parses if case.python else compiles)(case.source), "the case's input must compile"
    output, seen = reduce_case(case, case.source)
    assert output == case.expected, f"reduced:\n{output!r}\nexpected:\n{case.expected!r}"

    invalid = [c for c in dict.fromkeys(seen) if not checker.parses(c)]
    distinct = len(dict.fromkeys(seen))
    tolerated = max(1.0, (1 - CANDIDATES_PARSING) * distinct)
    assert len(invalid) <= tolerated + 1e-9, (
        f"{len(invalid)} of {distinct} candidates do not parse:\n" + "\n---\n".join(invalid)
    )

    tree = checker.tree(case.source)
    reducer = NodeReducer(tree)
    transform = load_transforms([case.transform])[0]
    if isinstance(transform, TextTransform):
        singles = [splice_text(case.source, list(o.edits)) for o in transform.text_opportunities(tree)]
    else:
        singles = [reducer.render(o.edits) for o in transform.opportunities(tree)]
    broken = [c for c in singles if not checker.parses(c)]
    assert not broken, "single proposals that do not parse:\n" + "\n---\n".join(broken)

    again, _ = reduce_case(case, output)
    assert again == output, "a second run on the output changed it"


#: Families whose every transform has at least three data cases (other
#: families test themselves elsewhere, or add cases here as they settle).
COVERED_FAMILIES = frozenset(
    f"astreduce.transforms.{family}"
    for family in ("statements", "classic", "hoisting", "expressions", "simplify", "definitions", "renaming")
)


def test_every_registered_transform_has_cases() -> None:
    covered: dict[str, int] = {}
    for path in case_paths():
        covered[path.parent.name] = covered.get(path.parent.name, 0) + 1
    unknown = set(covered) - set(registered_transforms())
    assert not unknown, f"case directories name no transform: {sorted(unknown)}"
    thin = {
        name: covered.get(name, 0)
        for name, cls in registered_transforms().items()
        if cls.__module__ in COVERED_FAMILIES and covered.get(name, 0) < 3
    }
    assert not thin, f"transforms with fewer than 3 cases: {thin}"


def test_case_files_are_well_formed() -> None:
    for path in case_paths():
        case = read_case(path)
        assert case.expected, f"{path}: empty expected output"
        assert path.stem.isidentifier(), f"{path}: name cases after a situation, as an identifier"


# --- the registry ------------------------------------------------------------


def transform_classes() -> set[type[Transform]]:
    """Every Transform subclass defined in a module of ``astreduce.transforms``."""
    found: set[type[Transform]] = set()
    for info in pkgutil.iter_modules(astreduce.transforms.__path__, "astreduce.transforms."):
        module = importlib.import_module(info.name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, Transform) and value.__module__ == module.__name__:
                found.add(value)
    return found


def test_every_transform_class_is_registered() -> None:
    registry = registered_transforms()
    classes = transform_classes()
    assert classes, "no transform classes found"
    # a class without a name is a base for others in the package; any other must be registered
    bases = {base for cls in classes for base in cls.__mro__[1:]}
    nameless = {cls.__qualname__ for cls in classes if not cls.name and cls not in bases}
    assert not nameless, f"Transform subclasses without a name: {sorted(nameless)}"
    missing = {cls.__qualname__ for cls in classes if cls.name and registry.get(cls.name) is not cls}
    assert not missing, f"Transform subclasses not registered under their name: {sorted(missing)}"
    built_in = {cls for cls in registry.values() if cls.__module__.startswith("astreduce.transforms.")}
    assert built_in <= classes


def test_transform_names_are_stable_kebab_case() -> None:
    for name, cls in registered_transforms().items():
        assert name == cls.name
        assert name.replace("-", "").isalpha() and name == name.lower(), name
        assert cls.summary(), f"{name} has no docstring summary"


def test_cli_lists_every_transform_with_a_description() -> None:
    result = CliRunner().invoke(main, ["transforms"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    registry = registered_transforms()
    assert len(lines) == len(registry)
    for name, cls in registry.items():
        (line,) = [line for line in lines if line.split()[0] == name]
        assert line.endswith(cls.summary()), line
        assert len(cls.summary()) > 10 and "\n" not in cls.summary()


# --- "remove one" on standard-library modules -----------------------------------

STDLIB = Path(sysconfig.get_paths()["stdlib"])
MODULES = (
    "abc.py", "asyncio/taskgroups.py", "asyncio/tasks.py", "base64.py", "bisect.py",
    "calendar.py", "contextlib.py", "copy.py", "csv.py", "dataclasses.py", "fractions.py",
    "functools.py", "gettext.py", "glob.py", "graphlib.py", "heapq.py", "json/decoder.py",
    "numbers.py", "operator.py", "pprint.py", "queue.py", "shlex.py", "statistics.py",
    "string.py", "textwrap.py", "timeit.py", "tokenize.py", "types.py", "enum.py", "ast.py",
)
DROPS_PER_MODULE = 200
PROPOSALS_PER_TRANSFORM = 12
RENAMES_PER_MODULE = 10


@functools.cache
def stdlib_modules() -> tuple[tuple[str, str, Tree], ...]:
    """(name, text, tree) of the sampled standard-library modules that exist here."""
    found = []
    for name in MODULES:
        path = STDLIB / name
        if path.exists():
            text = path.read_text(encoding="utf-8")
            found.append((name, text, parse(text)))
    return tuple(found)


class LocalParser:
    """Decides whether the tree's text, edited in one place, still parses, by parsing little.

    Parsing a whole large module per candidate costs 10-30 ms. Only the
    changed part needs it: when the change lies strictly inside a statement
    that begins a line, the candidate parses if and only if that statement's
    new text parses as a block at its indentation (``if 1:`` plus the
    statement; ``ast.parse`` does not check context such as ``return``
    outside a function). Changes at module level parse the top-level chunk
    between two statements that begin a line: the tokenizer is in a clean
    state there (no open bracket, no indentation).
    """

    def __init__(self, tree: Tree) -> None:
        self.tree = tree
        self.points = [0, len(tree.text)] + [
            tree.nodes[i].start for i in tree.fields[0].get("body", ()) if tree.indents.get(i) == ""
        ]
        self.points.sort()

    def parses(self, candidate: str, near: int) -> bool:
        """Whether ``candidate`` parses; ``near`` is a node id inside the change (a hint)."""
        text = self.tree.text
        limit = min(len(text), len(candidate))
        start = _common_length(text, candidate, limit, lambda a, n: a[:n])
        suffix = _common_length(text, candidate, limit - start, lambda a, n: a[len(a) - n :])
        end = len(text) - suffix
        delta = len(candidate) - len(text)
        nodes = self.tree.nodes
        for owner in (near, *self.tree.ancestors(near)):
            indent = self.tree.indents.get(owner)
            node = nodes[owner]
            is_elif = text.startswith("elif", node.start)  # an elif cannot stand alone
            if owner and indent and not is_elif and node.start < start and end < node.end:
                return parses("if 1:\n" + candidate[node.start - len(indent) : node.end + delta])
        points = self.points
        first = points[bisect.bisect_right(points, start) - 1]
        last = points[bisect.bisect_left(points, end)] if end < len(text) else len(text)
        return parses(candidate[first : last + delta])


def _common_length(a: str, b: str, limit: int, part: Callable[[str, int], str]) -> int:
    """Largest n <= limit with part(a, n) == part(b, n), by bisection (string compares run in C)."""
    low, high = 0, limit
    while low < high:
        middle = (low + high + 1) // 2
        if part(a, middle) == part(b, middle):
            low = middle
        else:
            high = middle - 1
    return low


def needed_element(tree: Tree, node_id: int) -> bool:
    """Whether the grammar forbids dropping the node alone, so "remove one" does not apply.

    That is the case for the element a sequence cannot lose (an import's only
    name) and for a positional default after another one (``def f(a=1, b=2)``
    cannot become ``def f(a=1, b)``; transforms drop the earlier ones too).
    """
    place = tree.element_of.get(node_id)
    if place is not None:
        sequence, _ = place
        return sequence.min_kept >= len(sequence.elements)
    node = tree.nodes[node_id]
    if node.field == "defaults":
        return tree.fields[node.parent]["defaults"][0] != node_id
    return False


@functools.cache
def remove_one_failures() -> tuple[str, ...]:
    """A description of every sampled single drop that does not parse."""
    failures: list[str] = []
    for name, text, tree in stdlib_modules():
        reducer = NodeReducer(tree)
        assert reducer.render({}) == text, f"{name}: rendering without edits changed the text"
        local = LocalParser(tree)
        droppable = [n.id for n in tree.nodes if tree.is_droppable(n.id) and not needed_element(tree, n.id)]
        rng = random.Random(f"remove-one:{name}")
        for node_id in rng.sample(droppable, min(DROPS_PER_MODULE, len(droppable))):
            candidate = reducer.render({node_id: DROP})
            if candidate != text and not local.parses(candidate, node_id):
                node = tree.nodes[node_id]
                where = f"{name}: dropping {node.kind} at {node.start} ({tree.source(node_id)[:40]!r})"
                failures.append(where)
    return tuple(failures)


def test_remove_one_on_stdlib_modules() -> None:
    started = time.process_time()
    assert len(stdlib_modules()) >= 25, "the standard library is not where sysconfig says"
    failures = remove_one_failures()
    assert not failures, f"{len(failures)} drops do not parse:\n" + "\n".join(failures[:20])
    assert time.process_time() - started < 30, "keep the property cheap (CPU seconds)"


@functools.cache
def proposal_rates(every: int = 1) -> tuple[dict[str, tuple[int, int, list[str]]], float]:
    """Per transform: (single proposals that parse, proposals tried, examples of failures) on every ``every``-th
    sampled module; CPU seconds."""
    started = time.process_time()
    transforms = load_transforms()
    for transform in transforms:
        if isinstance(transform, ValueFromTrace):
            transform.configure(recorder=Tracer())  # each module traced alone: what runs on its import
    rates: dict[str, tuple[int, int, list[str]]] = {t.name: (0, 0, []) for t in transforms}
    for name, text, tree in stdlib_modules()[::every]:
        reducer = NodeReducer(tree)
        local = LocalParser(tree)
        for transform in transforms:
            rng = random.Random(f"proposals:{name}:{transform.name}")
            if isinstance(transform, TextTransform):
                groups = [o.edits for o in transform.text_opportunities(tree)]
                sample = rng.sample(groups, min(RENAMES_PER_MODULE, len(groups)))
                # renaming edits many places at once: parse the whole candidate
                candidates = [(splice_text(text, list(g)), g[0][0], -1) for g in sample]
            else:
                proposals = list(transform.opportunities(tree))
                sample = rng.sample(proposals, min(PROPOSALS_PER_TRANSFORM, len(proposals)))
                candidates = [(reducer.render(o.edits), tree.nodes[o.target].start, o.target) for o in sample]
            good, tried, bad = rates[transform.name]
            for candidate, where, target in candidates:
                tried += 1
                if parses(candidate) if target < 0 else local.parses(candidate, target):
                    good += 1
                elif len(bad) < 5:
                    bad.append(f"{name}@{where}: {text[where:where + 60]!r}")
            rates[transform.name] = (good, tried, bad)
    return rates, time.process_time() - started


@pytest.mark.slow  # a table to read (pytest -s -m slow); test_single_proposals_parse checks each transform's rate
def test_single_proposals_parse_rate_table() -> None:
    """Prints the table (``pytest -s``); the whole sampling stays cheap."""
    rates, seconds = proposal_rates()
    print(f"\n{'transform':<22} {'parse':>6} {'tried':>6} {'rate':>7}")
    for name, (good, tried, _) in sorted(rates.items()):
        print(f"{name:<22} {good:>6} {tried:>6} {good / tried if tried else 1:>7.1%}")
    print(f"({seconds:.1f} CPU seconds for {len(stdlib_modules())} modules)")
    assert seconds < 30, "keep the property cheap (CPU seconds)"


def test_single_proposals_parse() -> None:
    """At least 95% of each transform's single proposals on standard-library modules parse (one test: the sample
    is drawn once, not once per xdist worker; half the modules, the table above reads them all)."""
    rates, _ = proposal_rates(every=2)
    assert set(rates) >= set(registered_transforms())
    low = {name: (good, tried, bad) for name, (good, tried, bad) in sorted(rates.items()) if tried and good / tried < PROPOSALS_PARSING}
    assert not low, "\n".join(f"{name}: {good}/{tried} parse; for example:\n" + "\n".join(bad) for name, (good, tried, bad) in low.items())
    silent = sorted(name for name, (_, tried, _) in rates.items() if not tried)
    assert len(silent) <= len(rates) // 4, f"these transforms proposed nothing on the sampled modules: {silent}"


def module_named(name: str) -> tuple[str, Tree]:
    (found,) = [(text, tree) for n, text, tree in stdlib_modules() if n == name]
    return found


def small_modules() -> list[tuple[str, str, Tree]]:
    return [m for m in stdlib_modules() if len(m[1]) < 40_000]


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_program_shrinks_one_node_at_a_time(data: st.DataObject) -> None:
    """pysource-minimize's property: any single drop parses (and :class:`LocalParser` agrees)."""
    name = data.draw(st.sampled_from([m[0] for m in small_modules()]), label="module")
    text, tree = module_named(name)
    reducer = NodeReducer(tree)
    droppable = [n.id for n in tree.nodes if tree.is_droppable(n.id) and not needed_element(tree, n.id)]
    node_id = data.draw(st.sampled_from(droppable), label="node")
    candidate = reducer.render({node_id: DROP})
    assert parses(candidate) == LocalParser(tree).parses(candidate, node_id)
    assert parses(candidate), f"{name}: dropping {tree.source(node_id)[:60]!r}"


@settings(max_examples=80, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_local_parsing_agrees_with_parsing_the_whole_module(data: st.DataObject) -> None:
    """:class:`LocalParser` gives the same answer as ``ast.parse`` on single proposals."""
    name = data.draw(st.sampled_from([m[0] for m in small_modules()]), label="module")
    text, tree = module_named(name)
    transform = data.draw(st.sampled_from([t for t in load_transforms() if not isinstance(t, TextTransform)]))
    proposals = list(transform.opportunities(tree))
    if not proposals:
        return
    opportunity = data.draw(st.sampled_from(proposals), label="proposal")
    candidate = NodeReducer(tree).render(opportunity.edits)
    assert parses(candidate) == LocalParser(tree).parses(candidate, opportunity.target)
