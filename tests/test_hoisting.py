"""Hoisting from every position (#16): the data cases cover every field, and a hidden name is always found.

* Every field that holds an expression, as ``ast`` itself declares it (the
  ASDL signature in each node class's docstring, under this interpreter and
  under 3.12 and 3.13 where pyenv has them), has a data case named
  ``<class>_<field>`` under ``tests/data/transforms/statement-to-expression/``
  or ``hoist-expression/``.
* The property: a name hidden at a random expression position of a random
  program (pysource-codegen) is what astreduce reduces the program to, under
  the oracle "compiles and holds the name exactly once". The default run
  takes a sample; ``-m slow`` runs 500 programs.
* f-string fields reduce like any expression: ``f"avg: {average(v):.2f}"``
  ends where its ``.format()`` spelling ends, and the spans of the parts of
  an f-string agree with 3.12's parser.
"""

from __future__ import annotations

import ast
import io
import json
import random
import re
import subprocess
import sys
import tokenize
import warnings
from pathlib import Path

import pytest

from astreduce import reduce_source
from astreduce.errors import UsageError
from astreduce.interpreters import resolve_python
from astreduce.source.measure import measure
from astreduce.oracles import Finished, Verdict
from astreduce.run import Run
from astreduce.outcome import Outcome
from astreduce.source.foreign import ForeignParser
from astreduce.source.fstrings import token_count
from astreduce.source.render import NodeReducer
from astreduce.source.tree import parse
from astreduce.transforms.hoisting import StatementToExpression

DATA = Path(__file__).parent / "data" / "transforms"
NEEDLE = "needle"

#: Fields that hold an expression but need no case: the expression of an
#: expression statement is the statement's text already; the other two are
#: roots of ``eval`` and type-comment parses, never inside a module.
EXEMPT = frozenset({("Expr", "value"), ("Expression", "body"), ("FunctionType", "argtypes"), ("FunctionType", "returns")})

_FIELDS_SCRIPT = r"""
import ast, json, re
found = []
for name in dir(ast):
    cls = getattr(ast, name)
    if not (isinstance(cls, type) and issubclass(cls, ast.AST)) or not cls.__doc__:
        continue
    signature = re.match(r"(\w+)\((.*)\)$", cls.__doc__.splitlines()[0].strip())
    if signature is None or signature.group(1) != name:
        continue
    for part in filter(None, signature.group(2).split(", ")):
        kind, field = part.split(" ")
        if kind.rstrip("*?") == "expr":
            found.append([name, field])
print(json.dumps(found))
"""


def expression_fields(python: str) -> set[tuple[str, str]]:
    """(class, field) of every field that holds an expression, as that interpreter's ``ast`` declares it."""
    out = subprocess.run([python, "-c", _FIELDS_SCRIPT], capture_output=True, text=True, check=True, timeout=60)
    return {(c, f) for c, f in json.loads(out.stdout)}


def interpreters() -> list[str]:
    found = [sys.executable]
    for version in ("3.12", "3.13"):
        path = installed(version)
        if path is not None:  # else the fields of the interpreters that are here still count
            found.append(path)
    return found


def installed(version: str) -> str | None:
    try:
        return resolve_python(version)
    except UsageError:
        return None


def test_every_expression_field_has_a_case() -> None:
    fields: set[tuple[str, str]] = set()
    for python in interpreters():
        fields |= expression_fields(python)
    assert ("AugAssign", "target") in fields and ("ClassDef", "bases") in fields, "the derivation found nothing"
    cases = {p.stem for d in ("statement-to-expression", "hoist-expression") for p in (DATA / d).glob("*.py")}
    missing = sorted(f"{c.lower()}_{f}" for c, f in fields - EXEMPT if f"{c.lower()}_{f}" not in cases)
    assert not missing, f"expression-holding fields without a data case: {missing}"


# --- the property ----------------------------------------------------------------


def needles(text: str) -> int:
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return 0
    return sum(1 for t in tokens if t.type == tokenize.NAME and t.string == NEEDLE)


class HoldsTheNameOnce:
    """FAIL iff the candidate compiles and holds the name exactly once (in process, compiled, never run)."""

    identity = "holds-needle-once"

    def judge(self, text: str) -> Verdict:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                compile(text, "<candidate>", "exec", dont_inherit=True)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return Verdict(Outcome.UNRESOLVED, Run("syntax", "SyntaxError"))
        return Verdict(Outcome.FAIL if needles(text) == 1 else Outcome.PASS, Run("ok"))

    def start(self, text: str) -> Finished:
        return Finished(self.judge(text))


def hidden(seed: int) -> str | None:
    """A random program with one of its expressions (chosen at random) replaced by the name."""
    pysource_codegen = pytest.importorskip("pysource_codegen")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = pysource_codegen.generate(seed, node_limit=150, depth_limit=6)
    try:
        module = ast.parse(text)
    except SyntaxError:  # the generator targets its own idea of the grammar
        return None
    parents = {id(c): (p, name) for p in ast.walk(module) for name, c in _children(p)}
    positions = [n for n in ast.walk(module) if isinstance(n, ast.expr) and id(n) in parents]
    rng = random.Random(seed)
    rng.shuffle(positions)
    for node in positions[:10]:
        parent, name = parents[id(node)]
        replacement = ast.Name(NEEDLE, getattr(node, "ctx", ast.Load()))
        _put(parent, name, node, replacement)
        try:
            candidate: str | None = ast.unparse(module)
        except (ValueError, TypeError, AttributeError, RecursionError):  # a shape unparse cannot write
            candidate = None
        _put(parent, name, replacement, node)
        if candidate is not None and HoldsTheNameOnce().judge(candidate).outcome is Outcome.FAIL:
            return candidate
    return None


def _children(node: ast.AST) -> list[tuple[str, ast.AST]]:
    found: list[tuple[str, ast.AST]] = []
    for name, value in ast.iter_fields(node):
        if isinstance(value, list):
            found.extend((name, v) for v in value if isinstance(v, ast.expr))
        elif isinstance(value, ast.expr):
            found.append((name, value))
    return found


def _put(parent: ast.AST, name: str, old: ast.AST, new: ast.AST) -> None:
    value = getattr(parent, name)
    if isinstance(value, list):
        value[value.index(old)] = new
    else:
        setattr(parent, name, new)


def reaches_the_name(seeds: range) -> tuple[int, list[str]]:
    """(programs tried, failures as 'seed: result')."""
    tried = 0
    failures: list[str] = []
    for seed in seeds:
        text = hidden(seed)
        if text is None:
            continue
        tried += 1
        result = reduce_source(text, HoldsTheNameOnce(), format=False)
        if result.text.strip() != NEEDLE:
            failures.append(f"{seed}: {result.text[:200]!r}")
    return tried, failures


@pytest.mark.parametrize("chunk", range(4))
def test_a_hidden_name_is_reached_from_any_position(chunk: int) -> None:
    tried, failures = reaches_the_name(range(1000 + chunk * 15, 1000 + (chunk + 1) * 15))
    assert tried >= 10
    assert not failures, "\n".join(failures)


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(10))
def test_a_hidden_name_is_reached_in_500_programs(chunk: int) -> None:
    tried, failures = reaches_the_name(range(chunk * 55, (chunk + 1) * 55))
    print(f"programs {chunk * 55}-{(chunk + 1) * 55 - 1}: {tried} with a hidden name, {len(failures)} not reduced to it")
    assert tried >= 50, tried
    assert not failures, "\n".join(failures)


# --- f-strings -----------------------------------------------------------------


class Contains:
    """FAIL iff the candidate compiles and contains the text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.identity = f"contains:{text}"

    def judge(self, text: str) -> Verdict:
        verdict = HoldsTheNameOnce().judge(text)
        if verdict.outcome is Outcome.UNRESOLVED:
            return verdict
        return Verdict(Outcome.FAIL if self.text in text else Outcome.PASS, Run("ok"))


AVERAGE = """\
def average(values):
    total = 0
    for value in values:
        total += value
    return total / len(values)


readings = [3.5, 4.25, 5.0]
print({call})
"""


def test_fstring_fields_reduce_like_format_calls() -> None:
    spelled = {
        "format": AVERAGE.format(call='"avg: {:.2f}".format(average(readings))'),
        "f-string": AVERAGE.format(call='f"avg: {average(readings):.2f}"'),
    }
    results = {name: reduce_source(text, Contains("average("), format=False).text for name, text in spelled.items()}
    assert results == {"format": "average()\n", "f-string": "average()\n"}


FSTRINGS = [
    'x = f"avg: {average(v)!r:>{w}.2f} and {y=}" "tail" f\'{z}\'\n',
    'x = (f"a{d[\'k\']}"  # note\n     f"""{\n  q + 1}\\N{EM DASH}{{}}""")\n',
    'x = f"{ x = !r:^10}" + f"{x:=^10}" + f"{(x:=1)}" + f"{a!=b}" + f"é{é}"\n',
    "x = f\"{f'{inner}'}\" + rf\"\\{a}\\N{b}\"\n",
    'def f(a=f"{b:{c}}"):\n    return f"{(lambda: 1)!r}" if a else f"{a[1:2]}"\n',
]


@pytest.mark.parametrize("text", FSTRINGS)
def test_fstring_parts_have_the_spans_of_312(text: str) -> None:
    """The code inside fields gets the spans 3.12's parser gives it (literal pieces and specs aside)."""
    ours = parse(text)
    python = installed("3.12")
    if python is None:
        pytest.skip("no Python 3.12 here")
    parser = ForeignParser(python)
    try:
        theirs = parser.parse(text)
    finally:
        parser.close()

    def spans(tree_nodes: list[object]) -> list[tuple[str, int, int]]:
        return [
            (n.kind, n.start, n.end)  # type: ignore[attr-defined]
            for n in tree_nodes
            if n.kind not in ("Constant", "JoinedStr") or n.field not in ("values", "format_spec")  # type: ignore[attr-defined]
        ]

    assert spans(ours.nodes) == spans(theirs.nodes)


@pytest.mark.parametrize(
    "literal",
    ['f"avg: {average(v)!r:>{w}.2f} and {y=}"', "f'{x}'", 'rf"\\{a}\\N{b}"', 'f"{ x = !r:^10}"',
     "f'''{f\"{y}\"}'''", "'plain'", 'b"bytes"'],
)
def test_fstring_tokens_count_as_312_counts_them(literal: str) -> None:
    script = (
        "import io, sys, tokenize\n"
        "tokens = tokenize.generate_tokens(io.StringIO(sys.argv[1]).readline)\n"
        "print(sum(1 for t in tokens if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER)))\n"
    )
    python = installed("3.12")
    if python is None:
        pytest.skip("no Python 3.12 here")
    out = subprocess.run([python, "-c", script, literal], capture_output=True, text=True, check=True, timeout=60)
    assert token_count(literal) == int(out.stdout)
    assert measure(literal).tokens == int(out.stdout)
    assert re.fullmatch(r"\d+", out.stdout.strip())


def test_a_statement_gives_what_it_reads_before_what_it_binds() -> None:
    """``args = rows[1:]`` → ``rows[1:]`` first: ``args`` hoisted would read a name the statement
    no longer binds (a NameError, or another binding of it: on stdlib_argparse an outer ``args``)."""
    for text, first in (("args = rows[1:]\n", "rows[1:]"), ("total += value\n", "value"), ("for item in items:\n    pass\n", "items")):
        tree = parse(text)
        ranked = sorted(StatementToExpression().opportunities(tree), key=lambda o: o.rank)
        rendered = [NodeReducer(tree).render(o.edits).strip() for o in ranked]
        assert rendered[0] == first, rendered
        assert len(rendered) == 2  # the target is still offered, second
