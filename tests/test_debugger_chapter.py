"""The DeltaDebugger chapter of the Debugging Book, example by example, with the chapter's results.

Each test runs one of the chapter's examples and checks the result the
chapter prints (and, where the chapter shows it, the number of tests and
the tests themselves). The example functions are written here afresh; the
ones whose failure is an ``assert`` are compiled from text, so that pytest's
assertion rewriting (which puts the operands in the message) leaves them alone.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable

import pytest

from astreduce.debugger import DeltaDebugger
from astreduce.errors import DDPreconditionError, NotFailingError

# The chapter's fuzzed input: one "(" before one ")" among 26 characters.
FAILING_INPUT = 'V"/+!aF-(V4EOz*+s/Q,7)2@0_'


def mystery(inp: str) -> None:
    opening = inp.find("(")
    closing = inp.find(")")
    if opening >= 0 and closing >= 0 and opening < closing:
        raise ValueError("Invalid input")


def myeval(inp: str) -> object:
    return eval(inp)  # the chapter's subject: an evaluator that fails on its input


def list_error(l1: list[int], l2: list[int], maxlen: int) -> None:
    if len(l1) < len(l2) < maxlen:
        return
    raise AssertionError("invalid string length")


def string_error(s1: str, s2: str) -> None:
    if s1 in s2:
        raise AssertionError("no substrings")


# The markup stripper with its quote bug (a double quote outside a tag toggles
# quoting and is dropped); its postcondition is a bare assert.
MARKUP_SOURCE = """\
def remove_html_markup(s):  # type: ignore
    tag = False
    quote = False
    out = ""

    for c in s:
        if c == '<' and not quote:
            tag = True
        elif c == '>' and not quote:
            tag = False
        elif c == '"' or c == "'" and tag:
            quote = not quote
        elif not tag:
            out = out + c

    # postcondition
    assert '<' not in out and '>' not in out

    return out
"""

# A module around it: other definitions that the reductions must remove.
MODULE_SOURCE = f'''\
"""Helpers for a small text tool."""

import math


def square_root(x):  # type: ignore
    assert x >= 0
    y = x / 2
    while abs(y * y - x) > 1e-9:
        y = (y + x / y) / 2
    return y


def test_square_root():  # type: ignore
    for n in range(1, 10):
        assert abs(square_root(n) - math.sqrt(n)) < 1e-6


{MARKUP_SOURCE}

def words(text):  # type: ignore
    return [w for w in text.split() if w]


def shout(text):  # type: ignore
    return text.upper() + "!"
'''

FUNCTIONALITY_CHECK = (
    "if remove_html_markup('<foo>bar</foo>') != 'bar':\n"
    '    raise RuntimeError("Missing functionality")\n'
)
MY_TEST = "assert remove_html_markup('\"foo\"') == '\"foo\"', \"My Test\"\n"


def remove_html_markup(s: str) -> str:
    namespace: dict[str, object] = {}
    exec(compile(MARKUP_SOURCE, "<markup>", "exec"), namespace)  # noqa: S102  # the subject as text
    function = namespace["remove_html_markup"]
    assert callable(function)
    result = function(s)
    assert isinstance(result, str)
    return result


def compile_and_run(lines: list[str]) -> None:
    exec("".join(lines), {"__name__": "<string>"}, {})  # noqa: S102  # the chapter's subject


def compile_and_test_html_markup_simple(lines: list[str]) -> None:
    compile_and_run([*lines, "", MY_TEST])


def compile_and_test_html_markup(lines: list[str]) -> None:
    compile_and_run([*lines, "", FUNCTIONALITY_CHECK, MY_TEST])


# -- parentheses ------------------------------------------------------------------


def test_dd_gives_the_pair_and_the_empty_passing_input() -> None:
    with DeltaDebugger() as dd:
        mystery(FAILING_INPUT)
    assert dd.dd("inp", {"inp": FAILING_INPUT}) == ("", "()", "()")
    assert dd.tests == 24


# The inputs the chapter's log=2 trace tests, in its order, and its rounds.
TRACE_TESTS = [
    "", FAILING_INPUT, 'V"/+!aF-(V4EO', "z*+s/Q,7)2@0_", "-(V4EOz*+s/Q,7)2@0_",
    "*+s/Q,7)2@0_", "-(V4EOz7)2@0_", "7)2@0_", "-(V4EOz", "-(V47)2@0_", "-(V4@0_",
    "-(V47)2", "-7)2", "(V4", "-47)2", "-(V7)2", "-(V2", "(V7)", "7)", "(V", "(7)", "()",
    ")", "(",
]  # fmt: skip
TRACE_ROUNDS = [
    (FAILING_INPUT, 2), (FAILING_INPUT, 4), ("-(V4EOz*+s/Q,7)2@0_", 3), ("-(V4EOz7)2@0_", 2),
    ("-(V4EOz7)2@0_", 4), ("-(V47)2@0_", 3), ("-(V47)2", 2), ("-(V47)2", 4), ("-(V7)2", 3),
    ("(V7)", 2), ("(V7)", 4), ("(7)", 3), ("()", 2),
]  # fmt: skip


def test_log_2_traces_every_round_as_the_chapter_does(capsys: pytest.CaptureFixture[str]) -> None:
    with DeltaDebugger(log=2) as dd:
        mystery(FAILING_INPUT)
    capsys.readouterr()
    dd.dd("inp", {"inp": FAILING_INPUT})
    lines = capsys.readouterr().err.splitlines()
    tested = [line.split("mystery(inp=", 1)[1].rsplit("): ", 1)[0] for line in lines if line.startswith("Test #")]
    assert tested == [repr(t) for t in TRACE_TESTS]
    failing = [line.split(": ", 1)[1] for line in lines if line.startswith("Failing input:")]
    granularity = [int(line.split()[-1]) for line in lines if line.startswith("Granularity:")]
    assert list(zip(failing, granularity)) == [(repr(f), n) for f, n in TRACE_ROUNDS]
    assert all(line == "Passing input: ''" for line in lines if line.startswith("Passing input:"))
    assert lines.count("Reduce to complement") == 8
    assert lines.count("Increase granularity") == 4
    assert lines[-1] == "No reduction found"


def test_the_debugger_shows_the_minimal_call_in_24_tests(capsys: pytest.CaptureFixture[str]) -> None:
    with DeltaDebugger(log=True) as dd:
        mystery(FAILING_INPUT)
    assert repr(dd) == "mystery(inp='()')"
    assert dd.tests == 24
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == f"Observed mystery(inp={FAILING_INPUT!r}) raising ValueError: Invalid input"
    assert lines[1] == f"Test #1 mystery(inp={FAILING_INPUT!r}): FAIL (ValueError: Invalid input)"
    assert lines[2:4] == ["Processing inp...", "Test #2 mystery(inp=''): PASS"]
    assert lines[-3] == "Test #24 mystery(inp='('): PASS"
    assert lines[-2:] == ["Minimized inp to '()'", "Minimized failing call to mystery(inp='()')"]
    assert dd.args() == {"inp": FAILING_INPUT}
    assert dd.min_args() == {"inp": "()"}


def test_a_call_that_does_not_fail_is_refused() -> None:
    with pytest.raises(NotFailingError), DeltaDebugger():
        mystery("An input that does not fail")


def test_max_args_leaves_out_only_the_opening_parenthesis() -> None:
    with DeltaDebugger() as dd:
        mystery(FAILING_INPUT)
    assert dd.max_args() == {"inp": 'V"/+!aF-V4EOz*+s/Q,7)2@0_'}
    assert dd.tests == 8


def test_min_arg_diff_is_the_opening_parenthesis() -> None:
    with DeltaDebugger() as dd:
        mystery(FAILING_INPUT)
    assert dd.min_arg_diff() == (
        {"inp": "z*+s/Q,7)2@0_"},
        {"inp": "(z*+s/Q,7)2@0_"},
        {"inp": "("},
    )
    assert dd.tests == 9


# -- the other small examples -------------------------------------------------------


def test_markup_input_reduces_to_quote_and_angle_bracket_in_10_tests() -> None:
    with DeltaDebugger() as dd:
        remove_html_markup('"x > y"')
    assert dd.min_args() == {"s": '">'}
    assert dd.tests == 10


def test_two_strings_reduce_to_two_empty_strings() -> None:
    with DeltaDebugger() as dd:
        string_error("foo", "foobar")
    assert dd.min_args() == {"s1": "", "s2": ""}


def test_two_lists_reduce_to_empty_lists_and_the_int_stays() -> None:
    with DeltaDebugger() as dd:
        list_error(l1=[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], l2=[1, 2, 3], maxlen=5)
    assert repr(dd) == "list_error(l1=[], l2=[], maxlen=5)"


# -- myeval: the synopsis ---------------------------------------------------------------


def test_myeval_min_max_and_difference() -> None:
    with DeltaDebugger() as dd:
        myeval("1 + 2 * 3 / 0")
    assert repr(dd) == "myeval(inp='3/0')"
    assert dd.min_args() == {"inp": "3/0"}
    # eval('') is a SyntaxError: an UNRESOLVED empty start, which dd accepts.
    assert dd.max_args() == {"inp": "1 + 2 * 3  "}
    assert dd.min_arg_diff() == ({"inp": " 3 "}, {"inp": " 3 /0"}, {"inp": "/0"})
    assert (dd.function().__name__, dd.args()) == ("myeval", {"inp": "1 + 2 * 3 / 0"})


def test_only_a_failing_empty_start_is_refused() -> None:
    with DeltaDebugger() as dd:
        myeval("1 / 0 + 1")
    _, failing, _ = dd.dd("inp", dd.args(), mode="+-")
    assert failing == "1/ 0"
    with DeltaDebugger() as dd:
        string_error("a", "ab")  # string_error('', 'ab') fails
    with pytest.raises(DDPreconditionError, match="fails"):
        dd.dd("s1", dd.args(), mode="+")


# -- reducing program code: lines ---------------------------------------------------------


def module_lines() -> list[str]:
    return MODULE_SOURCE.splitlines(keepends=True)


def test_markup_code_by_lines_keeps_the_header_and_first_assignment() -> None:
    lines = module_lines()
    with DeltaDebugger() as dd:
        compile_and_test_html_markup_simple(lines)
    reduced = dd.min_args()["lines"]
    assert reduced == ["def remove_html_markup(s):  # type: ignore\n", "    tag = False\n"]


def test_a_functionality_check_keeps_the_whole_markup_function() -> None:
    lines = module_lines()
    with DeltaDebugger() as dd:
        compile_and_test_html_markup(lines)
    reduced = dd.min_args()["lines"]
    assert isinstance(reduced, list)
    expected = [
        line
        for line in MARKUP_SOURCE.splitlines(keepends=True)
        if line.strip() and not line.strip().startswith(("#", "assert"))
    ]
    assert reduced == expected


# -- reducing program code: syntax trees ----------------------------------------------------


def all_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node of ``tree``, parents before children, children in field order."""
    nodes = [tree]
    for child in ast.iter_child_nodes(tree):
        nodes += all_nodes(child)
    return nodes


class Pruner(ast.NodeTransformer):
    """Drops every node that is not kept; ``replacing`` turns on the chapter's four replacements."""

    def __init__(self, keep: set[int], *, replacing: bool) -> None:
        self.keep = keep
        self.replacing = replacing

    def visit(self, node: ast.AST) -> object:
        # The chapter's reducer looks its visitors up by name and finds
        # NodeVisitor's own visit_Constant, which only visits: its constants
        # are never deleted, so none of them needs keeping.
        if isinstance(node, (ast.Module, ast.Constant)) or id(node) in self.keep:
            return self.generic_visit(node)
        if not self.replacing:
            return None
        if isinstance(node, ast.Assign):
            return ast.Pass()
        if isinstance(node, ast.Compare):
            return ast.Constant(value=False)
        if isinstance(node, ast.BoolOp):
            return self.visit(node.values[0]) if id(node.values[0]) in self.keep else node.values[0]
        if isinstance(node, ast.If):
            return [self.visit(statement) for statement in node.body]
        return None


def pruned(tree: ast.Module, keep_list: list[ast.AST], *, replacing: bool) -> ast.Module:
    """A copy of ``tree`` with only the nodes of ``keep_list`` (which point into ``tree``)."""
    keep = {id(node) for node in keep_list}
    memo: dict[int, object] = {}
    new_tree = copy.deepcopy(tree, memo)
    new_keep = {id(memo[i]) for i in keep if i in memo}
    result = Pruner(new_keep, replacing=replacing).visit(new_tree)
    assert isinstance(result, ast.Module)
    return result


def ast_test(replacing: bool) -> Callable[[ast.Module, list[ast.AST], ast.Module], None]:
    def compile_and_test_ast(tree: ast.Module, keep_list: list[ast.AST], test_tree: ast.Module) -> None:
        new_tree = pruned(tree, keep_list, replacing=replacing)
        new_tree.body += test_tree.body
        try:
            code = compile(ast.fix_missing_locations(new_tree), "<string>", "exec")
        except Exception:  # noqa: BLE001  # any tree that does not compile is one failure
            raise SyntaxError("Cannot compile") from None
        exec(code, {}, {})  # noqa: S102  # the chapter's subject

    return compile_and_test_ast


def test_markup_tree_by_node_deletion_keeps_57_of_107_nodes() -> None:
    fun_tree = ast.parse(MARKUP_SOURCE)
    fun_nodes = all_nodes(fun_tree)
    test_tree = ast.parse(FUNCTIONALITY_CHECK + MY_TEST)
    assert len(fun_nodes) == 107
    compile_and_test_ast = ast_test(replacing=False)
    with DeltaDebugger() as dd:
        compile_and_test_ast(fun_tree, fun_nodes, test_tree)
    reduced = dd.min_args()["keep_list"]
    assert isinstance(reduced, list)
    # The chapter needs 310 tests: it caches no outcome for a list argument,
    # and 5 of its candidates are repeats, which the cache answers here.
    assert (len(reduced), dd.tests) == (57, 305)
    # The collected nodes point into the collected tree, not into fun_tree.
    collected = dd.args()
    assert all(any(node is other for other in ast.walk(collected["tree"])) for node in reduced)  # type: ignore[arg-type]
    text = ast.unparse(pruned(collected["tree"], reduced, replacing=False))  # type: ignore[arg-type]
    assert text == ast.unparse(ast.parse(MARKUP_SOURCE.replace(
        "\n    # postcondition\n    assert '<' not in out and '>' not in out\n", ""
    )))  # fmt: skip


def test_markup_tree_with_the_four_replacements_loses_quote() -> None:
    fun_tree = ast.parse(MARKUP_SOURCE)
    test_tree = ast.parse(FUNCTIONALITY_CHECK + MY_TEST)
    fun_nodes = all_nodes(fun_tree)
    compile_and_test_ast = ast_test(replacing=True)
    with DeltaDebugger() as dd:
        compile_and_test_ast(fun_tree, fun_nodes, test_tree)
    reduced = dd.min_args()["keep_list"]
    text = ast.unparse(pruned(dd.args()["tree"], reduced, replacing=True))  # type: ignore[arg-type]
    assert text == (
        "def remove_html_markup(s):\n"
        "    tag = False\n"
        "    pass\n"
        "    out = ''\n"
        "    for c in s:\n"
        "        if c == '<':\n"
        "            tag = True\n"
        "        elif c == '>':\n"
        "            tag = False\n"
        "        elif c == '\"':\n"
        "            pass\n"
        "        elif not tag:\n"
        "            out = out + c\n"
        "    return out"
    )
