"""When substituted text needs parentheses: atoms, one-line groups, operator precedence.

Transforms that put one expression in another's place (inlining a variable
or a call, a loop's first item, a comprehension's condition) ask :func:`wrap`
what to put around the text so that the candidate parses and keeps the
meaning it had: nothing where the text stands alone or binds at least as
tightly as its new place needs, parentheses everywhere else.
"""

from __future__ import annotations

import ast
import io
import tokenize

from astreduce.source.scope import Analysis

#: Expressions that are atoms: a substituted text of these needs no parentheses anywhere.
ATOMS = (
    ast.Name,
    ast.Constant,
    ast.Attribute,
    ast.Subscript,
    ast.Call,
    ast.List,
    ast.Dict,
    ast.Set,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.JoinedStr,
)
#: Bracketed atoms: their own brackets hold their lines together.
_BRACKETED = (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.SetComp, ast.DictComp)
#: (parent kind, field) where any expression but a tuple, a star, ``:=`` or ``yield`` may stand bare.
_FULL_SLOTS = frozenset(
    {
        ("Expr", "value"),
        ("Assign", "value"),
        ("AugAssign", "value"),
        ("AnnAssign", "value"),
        ("Return", "value"),
        ("keyword", "value"),
        ("Call", "args"),
        ("List", "elts"),
        ("Set", "elts"),
        ("Dict", "keys"),
        ("Dict", "values"),
        ("If", "test"),
        ("While", "test"),
        ("Assert", "test"),
        ("For", "iter"),
        ("withitem", "context_expr"),
        ("Raise", "exc"),
    }
)
_NEVER_BARE = (ast.Tuple, ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Starred, ast.Lambda)


def parenthesised(text: str) -> bool:
    """Whether ``text`` is one parenthesised group: ``(a + b)`` yes, ``(a) + (b)`` no."""
    text = text.strip()
    if not (text.startswith("(") and text.endswith(")")):
        return False
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return False
    brackets = [t.string for t in tokens if t.type == tokenize.OP and t.string in "()[]{}"]
    depth = 0
    for position, bracket in enumerate(brackets):
        depth += 1 if bracket in "([{" else -1
        if depth == 0 and position != len(brackets) - 1:
            return False
    return depth == 0


def stands_alone(node: ast.AST, text: str) -> bool:
    """Whether ``text`` (the source of expression ``node``) can stand wherever an atom can."""
    if "\n" in text.strip() and not (parenthesised(text) or isinstance(node, _BRACKETED)):
        return False
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, complex)):
        return False  # ``1.real`` does not parse: treated as not atomic, parenthesised where it matters
    return isinstance(node, ATOMS) or parenthesised(text)


def wrap(analysis: Analysis, node: ast.AST, text: str, target: ast.AST) -> tuple[str, str]:
    """What to put around ``text`` (the source of ``node``) so that it can replace ``target``."""
    if stands_alone(node, text):
        return "", ""
    target_id = analysis.id(target)
    parent = analysis.parent(target)
    if target_id is None or parent is None:
        return "(", ")"
    slot = (type(parent).__name__, analysis.tree.nodes[target_id].field)
    one_line = "\n" not in text.strip() or parenthesised(text)
    if isinstance(node, ast.Constant) and one_line and slot != ("Attribute", "value"):
        return "", ""
    if slot in _FULL_SLOTS and one_line and not isinstance(node, _NEVER_BARE):
        return "", ""
    if (
        slot in {("Assign", "value"), ("Return", "value"), ("Expr", "value")}
        and one_line
        and isinstance(node, ast.Tuple)
    ):
        return "", ""
    strength, needed = _precedence(node), _needed(parent, target)
    if one_line and strength is not None and needed is not None and strength >= needed:
        return "", ""
    return "(", ")"


_BINARY = {
    ast.BitOr: 7,
    ast.BitXor: 8,
    ast.BitAnd: 9,
    ast.LShift: 10,
    ast.RShift: 10,
    ast.Add: 11,
    ast.Sub: 11,
    ast.Mult: 12,
    ast.Div: 12,
    ast.FloorDiv: 12,
    ast.Mod: 12,
    ast.MatMult: 12,
    ast.Pow: 14,
}
_POWER = 14
_UNARY = 13


def _precedence(node: ast.AST) -> int | None:
    """How tightly an expression binds (Python's operator precedence, higher binds tighter)."""
    if isinstance(node, ast.Lambda):
        return 1
    if isinstance(node, ast.IfExp):
        return 2
    if isinstance(node, ast.BoolOp):
        return 3 if isinstance(node.op, ast.Or) else 4
    if isinstance(node, ast.UnaryOp):
        return 5 if isinstance(node.op, ast.Not) else _UNARY
    if isinstance(node, ast.Compare):
        return 6
    if isinstance(node, ast.BinOp):
        return _BINARY.get(type(node.op))
    if isinstance(node, ast.Await):
        return 15
    return None


def _needed(parent: ast.AST, target: ast.AST) -> int | None:
    """The least precedence an expression needs to stand bare in ``target``'s place."""
    if isinstance(parent, ast.BinOp):
        strength = _BINARY.get(type(parent.op))
        if strength is None:
            return None
        if strength == _POWER:
            return _POWER + 1 if parent.left is target else _UNARY
        return strength if parent.left is target else strength + 1
    if isinstance(parent, ast.UnaryOp):
        return 5 if isinstance(parent.op, ast.Not) else _UNARY
    if isinstance(parent, ast.BoolOp):
        return 3 if isinstance(parent.op, ast.Or) else 4
    if isinstance(parent, ast.Compare):
        return 7
    if isinstance(parent, ast.IfExp):
        return 2 if parent.orelse is target else 3
    return None
