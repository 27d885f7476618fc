"""Grammar-based vs plain ddmin on a long random arithmetic expression (the Fuzzing Book's figure, docs/literature.md).

The literature's figure: reducing a long random arithmetic expression takes
grammar-based reduction 10 tests to a 3-character result, and plain ddmin
900 tests to a much larger one. This benchmark builds a comparable input —
a seeded random expression of integers, ``+ - * /`` and parentheses with
over 100 operators, with a ``/ (3 - 3)`` planted at its deepest leaf —
as a Python program, ``print(<expression>)``, and compares every strategy
with ``astreduce compare``'s machinery and the exec oracle:

* UNRESOLVED: the candidate is not ``print(E)`` with ``E`` an expression of
  the generator's grammar (integers, ``+ - * /``, parentheses): a syntax
  error, but also valid Python outside the grammar such as ``0(1 / 0)``
  (:class:`ArithmeticOracle` checks this before running anything, as the
  literature's checker rejects every input that is not a valid expression);
  or it raises something other than ZeroDivisionError;
* FAIL: it raises ZeroDivisionError (any message);
* PASS: it prints a number.

No other division in the expression divides by zero (the generator turns
such a ``/`` into ``*``), so the planted one is the only failure.

Run by hand from the repository root::

    python bench/compare_expression.py                 # seed 1, 120 + 2 operators, every strategy
    python bench/compare_expression.py --markdown --plot expr.png --log-x
    python bench/compare_expression.py --write expr.py # also save the program

The exit status is 1 when a tree-based strategy (``auto``, ``hdd``) does
not need at least 10x fewer tests than character ddmin, or does not reach
a smaller result (in tokens); otherwise 0.
"""

from __future__ import annotations

import argparse
import ast
import random
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

from astreduce.compare import (
    DEFAULT_STRATEGIES,
    compare,
    plot_comparison,
    render_table,
)
from astreduce.oracles import Oracle, Verdict
from astreduce.run import Run
from astreduce.outcome import Outcome

SEED = 1
OPERATORS = 120
#: Tree-based reduction must need at least this many times fewer tests than character ddmin.
RATIO = 10
_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2}


@dataclass(frozen=True)
class Term:
    """A node of the expression: a number (``op`` empty) or ``left op right``."""

    op: str = ""
    value: int = 0
    left: Term | None = None
    right: Term | None = None
    parenthesised: bool = False
    """Written with (redundant) parentheses even where precedence does not need them."""

    @property
    def operators(self) -> int:
        if not self.op:
            return 0
        assert self.left is not None and self.right is not None
        return 1 + self.left.operators + self.right.operators


def _evaluate(term: Term) -> float:
    """The value Python computes for the rendered term (same operations, same order)."""
    if not term.op:
        return term.value
    assert term.left is not None and term.right is not None
    a, b = _evaluate(term.left), _evaluate(term.right)
    if term.op == "+":
        return a + b
    if term.op == "-":
        return a - b
    if term.op == "*":
        return a * b
    return a / b


def _generate(rng: random.Random, operators: int) -> Term:
    if operators == 0:
        return Term(value=rng.randint(1, 99))
    left_count = rng.randint(0, operators - 1)
    left = _generate(rng, left_count)
    right = _generate(rng, operators - 1 - left_count)
    op = rng.choice("+-*/")
    if op == "/" and _evaluate(right) == 0:  # only the planted division may divide by zero
        op = "*"
    return Term(op, left=left, right=right, parenthesised=rng.random() < 0.2)


def _deepest_leaf(term: Term, depth: int = 0) -> tuple[int, list[str]]:
    """Depth of the deepest number and the path to it ('l'/'r' steps), leftmost first."""
    if not term.op:
        return depth, []
    assert term.left is not None and term.right is not None
    left = _deepest_leaf(term.left, depth + 1)
    right = _deepest_leaf(term.right, depth + 1)
    if right[0] > left[0]:
        return right[0], ["r", *right[1]]
    return left[0], ["l", *left[1]]


def _plant(term: Term, path: list[str]) -> Term:
    """Replace the number at ``path`` by ``(number / (3 - 3))``."""
    if not path:
        zero = Term("-", left=Term(value=3), right=Term(value=3))
        return Term("/", left=term, right=zero, parenthesised=True)
    assert term.left is not None and term.right is not None
    if path[0] == "l":
        return Term(
            term.op,
            left=_plant(term.left, path[1:]),
            right=term.right,
            parenthesised=term.parenthesised,
        )
    return Term(
        term.op,
        left=term.left,
        right=_plant(term.right, path[1:]),
        parenthesised=term.parenthesised,
    )


def render(term: Term, parent: str = "", side: str = "") -> str:
    """The term as Python source, with the parentheses precedence needs plus the redundant ones."""
    if not term.op:
        return str(term.value)
    assert term.left is not None and term.right is not None
    text = f"{render(term.left, term.op, 'l')} {term.op} {render(term.right, term.op, 'r')}"
    needed = bool(parent) and (
        _PRECEDENCE[term.op] < _PRECEDENCE[parent]
        or (side == "r" and _PRECEDENCE[term.op] == _PRECEDENCE[parent])
    )
    return f"({text})" if needed or (term.parenthesised and parent) else text


def expression(seed: int = SEED, operators: int = OPERATORS) -> str:
    """A random expression of ``operators`` operators, plus the planted ``/ (3 - 3)``."""
    rng = random.Random(seed)
    clean = _generate(rng, operators)
    _, path = _deepest_leaf(clean)
    text = render(_plant(clean, path))
    # the generator's own check: without the planted term the expression evaluates
    # (so the planted division is the only failure), and with it, it divides by zero
    eval(render(clean))
    try:
        eval(text)
    except ZeroDivisionError:
        return text
    raise AssertionError(f"seed {seed}: the planted division by zero did not raise")


def program(seed: int = SEED, operators: int = OPERATORS) -> str:
    """The input to reduce: ``print(<expression>)``."""
    return f"print({expression(seed, operators)})\n"


_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div)


def is_arithmetic(node: ast.expr) -> bool:
    """True if ``node`` is an expression of the grammar: integers, ``+ - * /``, parentheses."""
    if isinstance(node, ast.Constant):
        return type(node.value) is int
    if isinstance(node, ast.BinOp):
        return (
            isinstance(node.op, _OPERATORS)
            and is_arithmetic(node.left)
            and is_arithmetic(node.right)
        )
    return False


def is_arithmetic_program(text: str) -> bool:
    """True if ``text`` is exactly ``print(E)`` with ``E`` an arithmetic expression."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    if len(module.body) != 1 or not isinstance(module.body[0], ast.Expr):
        return False
    call = module.body[0].value
    return (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Name)
        and call.func.id == "print"
        and len(call.args) == 1
        and not call.keywords
        and is_arithmetic(call.args[0])
    )


class _Done:
    """A judged candidate, for the ``start``/``wait`` side of the oracle protocol."""

    def __init__(self, verdict: Verdict) -> None:
        self.verdict = verdict

    def wait(self) -> Verdict:
        return self.verdict

    def cancel(self) -> None:
        pass


class ArithmeticOracle:
    """The expression checker in front of another oracle.

    A candidate that is not an arithmetic program is UNRESOLVED (a syntax
    error, as the literature's checker reports); every other candidate is
    judged by ``inner``. Each candidate counts as one test either way.
    """

    def __init__(self, inner: Oracle) -> None:
        self.inner = inner

    @property
    def identity(self) -> str:
        return f"arithmetic|{self.inner.identity}"

    @property
    def target(self) -> object:
        return getattr(self.inner, "target", None)

    def judge(self, text: str) -> Verdict:
        if not is_arithmetic_program(text):
            return Verdict(
                Outcome.UNRESOLVED, Run("syntax", "SyntaxError", "not an arithmetic expression")
            )
        return self.inner.judge(text)

    def start(self, text: str) -> _Done:
        return _Done(self.judge(text))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument(
        "--operators", type=int, default=OPERATORS, help="random operators (2 more are planted)"
    )
    parser.add_argument("--strategies", default=",".join(DEFAULT_STRATEGIES))
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    parser.add_argument("--plot", type=Path, help="plot tokens over tests to this .png or .svg")
    parser.add_argument("--log-x", action="store_true", help="log-scale x axis in the plot")
    parser.add_argument("--write", type=Path, help="also write the program here")
    args = parser.parse_args(argv)

    from astreduce.reduce.single import make_exec_oracle

    text = program(args.seed, args.operators)
    if args.write is not None:
        args.write.write_text(text, encoding="utf-8")
    exec_oracle, _ = make_exec_oracle(text, expect="ZeroDivisionError", filename="expression.py")
    oracle = ArithmeticOracle(exec_oracle)
    strategies = tuple(s.strip() for s in args.strategies.split(",") if s.strip())
    print(
        f"seed {args.seed}: {args.operators + 2} operators, {len(text) - 8} characters of expression",
        file=sys.stderr,
    )
    rows = compare(
        text,
        oracle,
        strategies,
        filename="expression.py",
        on_row=lambda r: print(
            f"{r.strategy}: {r.tests} tests, {r.tokens} tokens", file=sys.stderr
        ),
    )
    print(render_table(rows, text, "markdown" if args.markdown else "plain"), end="")
    if args.plot is not None:
        plot_comparison(
            rows,
            args.plot,
            title=f"Random arithmetic expression (seed {args.seed}, "
            f"{args.operators + 2} operators)",
            subtitle="oracle: print(E), E arithmetic, raises ZeroDivisionError",
            log_x=args.log_x,
        )
    by_name = {r.strategy: r for r in rows}
    chars = by_name.get("chars")
    trees = [by_name[name] for name in ("auto", "hdd") if name in by_name]
    if chars is None or not trees:
        return 0
    ok = True
    print()
    for tree in trees:
        ratio = (chars.tests or 0) / max(1, tree.tests or 0)
        smaller = (tree.tokens or 0) < (chars.tokens or 0)
        print(
            f"chars / {tree.strategy}: {ratio:.1f}x the tests; {tree.strategy} {tree.tokens} tokens "
            f"{tree.text!r}, chars {chars.tokens} tokens {chars.text!r}"
        )
        ok = ok and ratio >= RATIO and smaller
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
