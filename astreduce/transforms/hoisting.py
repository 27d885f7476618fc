"""Statement hoisting: a compound statement → one of its blocks; a statement → an expression it holds."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from astreduce.source.render import BlockHole, Edit, Hole, Replacement
from astreduce.source.tree import STATEMENTS, Node, Tree, is_statement
from astreduce.transforms import Transform
from astreduce.transforms.expressions import EXPRESSIONS, has_bare_line_break, is_enclosed, is_store

#: Blocks worth hoisting, per statement kind, in the order they are proposed.
_BLOCKS = {
    "For": ("body", "orelse"),
    "AsyncFor": ("body", "orelse"),
    "While": ("body", "orelse"),
    "With": ("body",),
    "AsyncWith": ("body",),
    "Try": ("body", "orelse", "finalbody"),
    "TryStar": ("body", "orelse", "finalbody"),
    "FunctionDef": ("body",),
    "AsyncFunctionDef": ("body",),
    "ClassDef": ("body",),
}


class HoistBlock(Transform):
    """Replace a loop, ``with``, ``try``, function or class with one of its blocks.

    Applies to: For, While, With, Try (body, each handler's body, ``else``,
    ``finally``), function and class definitions (their body), ``match``
    (each case's body).
    Yields: each block, re-indented to the statement's indentation.
    Notes: ``if`` belongs to ``if-to-body``.
    """

    name = "hoist-block"
    node_kinds = frozenset(_BLOCKS) | {"Match"}

    def replacements(self, node: Node, tree: Tree) -> Iterator[Edit | str]:
        fields = tree.fields[node.id]
        for block in _BLOCKS.get(node.kind, ()):
            if fields.get(block):
                yield Replacement((BlockHole(node.id, block),))
            if block == "body":
                for owner in fields.get("handlers", ()):
                    if (owner, "body") in tree.blocks:
                        yield Replacement((BlockHole(owner, "body"),))
        for case in fields.get("cases", ()):
            if (case, "body") in tree.blocks:
                yield Replacement((BlockHole(case, "body"),))


def held_expressions(tree: Tree, statement_id: int) -> list[int]:
    """The expressions a statement holds directly, in source order.

    Every expression whose nearest enclosing statement or expression is the
    statement, wherever ``ast`` keeps it: targets and values, tests,
    decorators, bases and keywords, parameter defaults and annotations, the
    return annotation, ``with`` items, ``except`` types, the ``match``
    subject and the values inside patterns, a ``raise``'s cause, type
    parameters. Nodes that are neither statements nor expressions
    (``arguments``, ``arg``, ``keyword``, ``withitem``, handlers, cases,
    patterns, type parameters) are looked through, so the positions come
    from ``ast`` itself, not from a list of fields. A starred expression is
    looked through as well: ``*x`` cannot stand alone, ``x`` can.
    """
    nodes = tree.nodes
    held: list[int] = []
    stack = list(tree.children(statement_id))
    while stack:
        current = stack.pop()
        kind = nodes[current].kind
        if is_statement(kind):
            continue
        if kind in EXPRESSIONS and kind != "Starred":
            held.append(current)
        else:
            stack.extend(tree.children(current))
    return sorted(held, key=lambda i: nodes[i].start)


def as_statement(tree: Tree, expression_id: int) -> Replacement:
    """The expression's text as a statement of its own, parenthesised where it could not stand bare.

    Parentheses go around ``:=`` (``x := 1`` is no statement) and around
    text that breaks lines outside brackets (only the enclosing statement's
    brackets made it valid).
    """
    source = tree.source(expression_id)
    kind = tree.nodes[expression_id].kind
    if not is_enclosed(source) and (kind == "NamedExpr" or has_bare_line_break(source)):
        return Replacement(("(", Hole(expression_id), ")"))
    return Replacement((Hole(expression_id),))


class StatementToExpression(Transform):
    """Replace a statement with an expression it holds, as a statement of its own.

    Applies to: every statement that holds an expression: ``needle ^= x`` →
    ``needle``; ``def f(a: T = d) -> R:`` → ``T``, ``d`` or ``R``; ``class C(B,
    metaclass=M):`` → ``B`` or ``M``; ``with open(p) as f:`` → ``open(p)``;
    ``except E:`` (through its ``try``) → ``E``; ``match s: case P(x=v):`` →
    ``s``, ``P(x=v)`` (a pattern that reads as an expression) or ``v``;
    ``raise A from B`` → ``A`` or ``B``; decorators, ``for`` targets, ``type``
    aliases, type parameters and their bounds (3.12+).
    Yields: each held expression, those it reads before those it binds (a
    target hoisted reads a name the statement no longer binds: a NameError,
    or another binding of that name, which changes what the program does),
    the shortest first (``hoist-expression`` then reaches the expressions
    inside it).
    Notes: pysource-minimize reaches the bare expression from every position;
    this is that step for statements.
    """

    name = "statement-to-expression"
    node_kinds = STATEMENTS

    def replacements(self, node: Node, tree: Tree) -> Iterator[Edit | str]:
        held = held_expressions(tree, node.id) + texts_as_expressions(tree, node.id)
        nodes = tree.nodes
        held.sort(key=lambda i: (is_store(tree, i), nodes[i].end - nodes[i].start, nodes[i].start))
        spans = {(node.start, node.end)}  # an expression statement is its expression already
        for expression_id in held:
            expression = tree.nodes[expression_id]
            if (expression.start, expression.end) not in spans:  # a value pattern is its value
                spans.add((expression.start, expression.end))
                yield as_statement(tree, expression_id)


def texts_as_expressions(tree: Tree, statement_id: int) -> list[int]:
    """The outermost patterns and type parameters of a statement whose text reads as an expression too.

    ``case needle:``, ``case ('', needle):``, ``case Point(x=needle):`` and
    ``case 1 | 2:`` are expressions as well as patterns, and so is the type
    parameter ``T`` of ``class C[T]:`` (3.12+); ``case a as b:``, ``*rest``
    and ``T: int`` are not, so the patterns inside them are tried instead
    (a bound is an expression the statement holds already).
    """
    fields = tree.fields
    found: list[int] = []
    stack = [c for case in fields[statement_id].get("cases", ()) for c in fields[case].get("pattern", ())]
    stack.extend(fields[statement_id].get("type_params", ()))
    while stack:
        current = stack.pop()
        if _reads_as_expression(tree.source(current)):
            found.append(current)
        else:
            stack.extend(c for c in tree.children(current) if tree.nodes[c].kind.startswith("Match"))
    return found


def _reads_as_expression(text: str) -> bool:
    try:
        ast.parse("(" + text + "\n)", mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True
