"""Expression hoisting (grammar-based reduction): an expression → one of its sub-expressions."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator

from astreduce.source.render import DROP, Edit, Hole, Replacement
from astreduce.transforms import Opportunity, ScopeTransform, Transform
from astreduce.source.precedence import wrap
from astreduce.source.scope import Analysis, shrinks
from astreduce.source.tree import Node, Tree, is_fstring_part, is_statement

EXPRESSIONS = frozenset(
    name for name in dir(ast) if isinstance(getattr(ast, name), type) and issubclass(getattr(ast, name), ast.expr)
)
#: Fields whose expressions are assigned to, not evaluated.
STORE_FIELDS = frozenset({"targets", "target", "optional_vars", "name"})  # ``name``: ``type X = ...`` (3.12 on), the only node there
#: How far below a node a replacement may come from, and how many are proposed.
_DEPTH = 2
_LIMIT = 6


def sub_expressions(tree: Tree, node_id: int, depth: int = _DEPTH) -> list[int]:
    """Expression descendants of ``node_id`` up to ``depth`` levels, nearest first.

    Nodes that are not expressions (keywords, comprehensions, a lambda's
    parameters) and the parts of an f-string (its fields and format specs) are
    looked through: ``f(x=a)`` offers ``a``, ``f"{a:{b}}"`` offers ``a`` and
    ``b``. Within a level, the targets an expression binds (``[e for t in
    xs]``, ``(t := v)``) come after the values.
    """
    found: list[int] = []
    level = [node_id]
    for _ in range(depth):
        following = [child for current in level for child in _expression_children(tree, current)]
        nodes = tree.nodes
        following.sort(key=lambda i: nodes[i].field in STORE_FIELDS)
        found.extend(following)
        level = following
    return found


def is_store(tree: Tree, node_id: int) -> bool:
    """Whether the expression is assigned to: a target, or an element of a target tuple or list."""
    nodes = tree.nodes
    current = nodes[node_id]
    while True:
        if current.field in STORE_FIELDS:
            return True
        if current.parent < 0 or nodes[current.parent].kind not in ("Tuple", "List", "Starred"):
            return False
        current = nodes[current.parent]


# --- putting a sub-expression in its ancestor's place ----------------------------

#: Binding strength, low to high (the precedence table of the Python reference).
#: Unparenthesised tuples, ``:=`` and ``yield`` bind loosest of all.
_LOOSEST, _LAMBDA, _IFEXP, _OR, _AND, _NOT, _COMPARE = 0, 1, 2, 3, 4, 5, 6
_UNARY, _POWER, _AWAIT, _PRIMARY, _ATOM = 13, 14, 15, 16, 17
_BINARY = {
    "|": 7, "^": 8, "&": 9, "<<": 10, ">>": 10, "+": 11, "-": 11,
    "*": 12, "/": 12, "//": 12, "%": 12, "@": 12, "**": _POWER,
}
_KINDS = {
    "Tuple": _LOOSEST, "NamedExpr": _LOOSEST, "Yield": _LOOSEST, "YieldFrom": _LOOSEST,
    "Starred": _LOOSEST, "Slice": _LOOSEST, "Lambda": _LAMBDA, "IfExp": _IFEXP,
    "Compare": _COMPARE, "Await": _AWAIT, "Call": _PRIMARY, "Attribute": _PRIMARY, "Subscript": _PRIMARY,
}
_NUMBERS = frozenset({"int", "float", "complex"})
_OPERATOR = re.compile(r"\*\*|//|<<|>>|[|^&+\-*/%@]")
_COMMENT = re.compile(r"#[^\r\n]*")
#: Positions that accept a looser binding than the node standing there may have:
#: (parent kind, field) → the loosest binding accepted without parentheses.
_ACCEPTS = {
    ("Call", "args"): _LAMBDA, ("keyword", "value"): _LAMBDA, ("List", "elts"): _LAMBDA,
    ("Set", "elts"): _LAMBDA, ("Tuple", "elts"): _LAMBDA, ("Dict", "values"): _LAMBDA,
    ("Dict", "keys"): _IFEXP, ("Subscript", "slice"): _LAMBDA, ("Lambda", "body"): _LAMBDA,
    ("IfExp", "orelse"): _LAMBDA, ("comprehension", "iter"): _OR, ("comprehension", "ifs"): _OR,
    ("Starred", "value"): _BINARY["|"],
}


def _tokens(text: str) -> list[tokenize.TokenInfo] | None:
    try:
        return list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return None


def is_enclosed(text: str) -> bool:
    """Whether ``text`` is one bracketed atom: ``(...)``, ``[...]`` or ``{...}``, whole."""
    if not text or text[0] not in "([{" or text[-1] not in ")]}":
        return False
    tokens = _tokens(text)
    if tokens is None:
        return False
    depth = 0
    for position, token in enumerate(tokens):
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth -= 1
            if depth == 0:
                return all(t.type in _TRAILING for t in tokens[position + 1 :])
    return False


_TRAILING = frozenset({tokenize.NEWLINE, tokenize.NL, tokenize.COMMENT, tokenize.DEDENT, tokenize.ENDMARKER})


def has_bare_line_break(text: str) -> bool:
    """Whether ``text`` breaks a line outside brackets and strings (valid only inside brackets)."""
    if "\n" not in text and "\r" not in text:
        return False
    tokens = _tokens(text)
    if tokens is None:
        return True
    depth = 0
    for token in tokens:
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth -= 1
        elif token.type in (tokenize.NEWLINE, tokenize.NL) and token.string and depth == 0:
            return True
    return False


def binding(tree: Tree, node_id: int, bare: bool = False) -> int:
    """How tightly the expression's text binds where it stands (an enclosed one is an atom).

    ``bare``: how the text inside its outermost pair of parentheses binds.
    """
    node = tree.nodes[node_id]
    source = tree.source(node_id)
    if bare:
        source = source[1:-1].strip()
    if node.kind in ("Tuple", "GeneratorExp") and is_enclosed(source):
        return _ATOM
    if source[:1] == "(" and is_enclosed(source):
        return _ATOM
    text = tree.text
    children = list(tree.children(node_id))
    if node.kind == "BoolOp" and len(children) >= 2:
        gap = _COMMENT.sub("", text[tree.nodes[children[0]].end : tree.nodes[children[1]].start])
        return _OR if re.search(r"\bor\b", gap) else _AND
    if node.kind == "UnaryOp":
        return _NOT if source.startswith("not") else _UNARY
    if node.kind == "BinOp" and len(children) == 2:
        gap = _COMMENT.sub("", text[tree.nodes[children[0]].end : tree.nodes[children[1]].start])
        found = _OPERATOR.search(gap)
        return _BINARY[found.group()] if found else _LOOSEST
    return _KINDS.get(node.kind, _ATOM)


def _accepted(tree: Tree, node_id: int) -> int:
    """The loosest binding the place of ``node_id`` accepts without parentheses."""
    node = tree.nodes[node_id]
    own = binding(tree, node_id)
    parent = tree.nodes[node.parent]
    if parent.kind not in EXPRESSIONS and parent.kind not in ("keyword", "comprehension"):
        return min(own, _LAMBDA)  # a statement's or a definition's expression
    return min(own, _ACCEPTS.get((parent.kind, node.field), own))


def stands_bare(tree: Tree, node_id: int) -> bool:
    """Whether a parenthesised expression may lose its outermost parentheses where it stands.

    Not when its inside binds more loosely than the place accepts (``(a or
    b) and c``, ``(y := f()) is not None``), breaks lines outside brackets,
    or is a number before an attribute (``(1).real``).
    """
    node = tree.nodes[node_id]
    inside = tree.source(node_id)[1:-1].strip()
    if has_bare_line_break(inside):
        return False
    if node.constant in _NUMBERS and node.field == "value" and tree.nodes[node.parent].kind == "Attribute":
        return False
    return binding(tree, node_id, bare=True) >= _accepted(tree, node_id)


def owns_call_parentheses(tree: Tree, node_id: int) -> bool:
    """Whether the node is a generator expression that is a call's only argument: ``f(x for x in y)``.

    Its span then starts and ends with the call's parentheses, so whatever
    replaces it must bring a pair of its own.
    """
    node = tree.nodes[node_id]
    if node.kind != "GeneratorExp" or tree.nodes[node.parent].kind != "Call":
        return False
    callee = tree.child(node.parent, "func")
    return callee is not None and tree.text[tree.nodes[callee].end : node.start].strip() == ""


def hoisted(tree: Tree, node_id: int, child_id: int) -> Replacement | None:
    """``child_id`` (a descendant expression) in the place of ``node_id``, parenthesised if needed.

    Parentheses go around the child when it binds more loosely than the place
    accepts (``f(a if b else c).x`` → ``(a if b else c).x``), when its text breaks
    lines outside brackets (only the ancestor's brackets made that valid), when
    the place is a generator expression that is a call's only argument (its
    parentheses are the call's), and for a number before an attribute (``1.real``
    reads as the float ``1.``). ``None`` when no text can stand there: slices
    and starred expressions. Binding is judged conservatively: the place accepts
    what the replaced node binds at least as tightly as, or what its position
    is known to accept (a call argument, a statement's expression).
    """
    child = tree.nodes[child_id]
    if child.kind in ("Starred", "Slice"):
        return None
    source = tree.source(child_id)
    if child.kind == "Tuple" and not is_enclosed(source):
        if any(tree.nodes[e].kind in ("Slice", "Starred") for e in tree.children(child_id)):
            return None
    node = tree.nodes[node_id]
    enclosed = is_enclosed(source)
    wrap = not enclosed and (
        binding(tree, child_id) < _accepted(tree, node_id)
        or has_bare_line_break(source)
        or owns_call_parentheses(tree, node_id)
        or (child.constant in _NUMBERS and node.field == "value"
            and tree.nodes[node.parent].kind == "Attribute")
    )
    return Replacement(("(", Hole(child_id), ")")) if wrap else Replacement((Hole(child_id),))


def _expression_children(tree: Tree, node_id: int) -> Iterator[int]:
    nodes = tree.nodes
    for child in tree.children(node_id):
        kind = nodes[child].kind
        if is_statement(kind):
            continue
        if kind in EXPRESSIONS and not is_fstring_part(tree, child):
            yield child
        else:
            yield from _expression_children(tree, child)


class HoistExpression(Transform):
    """Replace an expression with one of its sub-expressions (GRABR, Perses).

    Applies to: every expression that is not an assignment target: a call →
    an argument or the callee, ``a + b`` → ``a`` or ``b``, subscript and
    attribute → their value, a conditional expression → a branch, a lambda →
    its body, ``await x`` → ``x``, a collection → one of its items.
    Yields: sub-expressions one level down first, then two levels down.
    """

    name = "hoist-expression"
    node_kinds = EXPRESSIONS

    def replacements(self, node: Node, tree: Tree) -> Iterator[Edit | str]:
        if is_store(tree, node.id) or is_fstring_part(tree, node.id):
            return
        proposed = 0
        for child in sub_expressions(tree, node.id):
            replacement = hoisted(tree, node.id, child)
            if replacement is not None:
                yield replacement
                proposed += 1
                if proposed == _LIMIT:
                    return


class FStringToString(Transform):
    """Replace an f-string with a plain string of its literal parts.

    Applies to: JoinedStr.
    Yields: the literal text without the replacement fields, as a plain string.
    """

    name = "fstring-to-string"
    node_kinds = frozenset({"JoinedStr"})

    def replacements(self, node: Node, tree: Tree) -> Iterator[Edit | str]:
        try:
            # parenthesised: an implicit concatenation may span lines
            parsed = ast.parse("(" + tree.source(node.id) + ")", mode="eval").body
        except SyntaxError:
            return
        if isinstance(parsed, ast.JoinedStr):
            literal = "".join(
                v.value for v in parsed.values if isinstance(v, ast.Constant) and isinstance(v.value, str)
            )
            yield repr(literal)


class FilterToElement(ScopeTransform[ast.ListComp | ast.SetComp | ast.GeneratorExp]):
    """Make a comprehension's condition its element: ``[e for x in xs if c]`` → ``[c for x in xs]``.

    Applies to: list and set comprehensions and generator expressions with
    an ``if`` condition (not dictionary comprehensions, whose element is a pair).
    Yields: the element replaced by the first condition, which is dropped,
    when that is smaller (one proposal per comprehension: the element is
    one node; the next round takes the next condition). What a crash needs
    is often only that an expression is evaluated inside the comprehension,
    not where.
    """

    name = "filter-to-element"
    node_kinds = frozenset({"ListComp", "SetComp", "GeneratorExp"})

    def proposals(
        self, a: Analysis, node: ast.ListComp | ast.SetComp | ast.GeneratorExp
    ) -> Iterator[Opportunity]:
        element_id = a.id(node.elt)
        if element_id is None:
            return
        conditions = [c for g in node.generators for c in g.ifs]
        condition_id = a.id(conditions[0]) if conditions else None
        if condition_id is None or not a.tree.is_droppable(condition_id):
            return
        text = a.source(conditions[0])
        before, after = wrap(a, conditions[0], text, node.elt)
        edits: dict[int, Edit] = {element_id: Replacement.text(before + text + after), condition_id: DROP}
        if shrinks(a, edits):
            yield Opportunity(self.name, condition_id, edits)
