"""Exact spans for the parts of an f-string, for Pythons before 3.12.

Before 3.12 the parser gives every part of an f-string (its literal pieces,
its replacement fields, their format specs) the position of the whole string,
and the expressions in a field positions that are exact only in simple cases.
Without exact spans no transform can reach inside a field, and
``f"avg: {average(v):.2f}"`` stays whole where ``"avg: {:.2f}".format(average(v))``
reduces to ``average()``. 3.12 parses fields as expressions of their own, with
exact positions; here, each field's text is found by scanning the string
literals and reparsed, and the positions are mapped back to the module's text.

The tree model calls :func:`part_spans` for each f-string; it needs only the
standard library, because ``tree.py`` also runs alone under another
interpreter (:mod:`astreduce.source.foreign`).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass, field

_PREFIX = re.compile(r"[A-Za-z]*")
_OPENING = "([{"
#: The nodes with a position that an expression may hold.
_POSITIONED = (ast.expr, ast.keyword, ast.arg)
_CLOSING = ")]}"


@dataclass
class Field:
    """One replacement field ``{expression!r:spec}``: offsets into the module's text."""

    start: int
    end: int
    expression: tuple[int, int]
    spec: tuple[int, int] | None = None
    nested: list[Field] = field(default_factory=list)
    """The fields inside the format spec: ``{x:{width}}``."""


def part_spans(text: str, start: int, end: int, joined: ast.JoinedStr) -> dict[int, tuple[int, int]]:
    """``id()`` of every node inside the f-string at ``text[start:end]`` → its span.

    Empty when the fields cannot be matched with the tree (the caller keeps
    the parser's spans then).
    """
    fields = _fields(text, start, end)
    if fields is None:
        return {}
    spans: dict[int, tuple[int, int]] = {}
    if not _assign(text, joined, fields, start, end, spans):
        return {}
    return spans


def _assign(
    text: str, joined: ast.JoinedStr, fields: list[Field], start: int, end: int, spans: dict[int, tuple[int, int]]
) -> bool:
    """Spans for ``joined``'s values from ``fields`` (in order); literal pieces get the text between fields."""
    formatted = [v for v in joined.values if isinstance(v, ast.FormattedValue)]
    if len(formatted) != len(fields):
        return False
    position = start
    pending: list[ast.AST] = []
    taken = iter(fields)
    for value in joined.values:
        if not isinstance(value, ast.FormattedValue):
            pending.append(value)
            continue
        found = next(taken)
        _literals(pending, position, found.start, spans)
        pending = []
        spans[id(value)] = (found.start, found.end)
        if not _expression(text, value.value, found.expression, spans):
            return False
        spec = value.format_spec
        if isinstance(spec, ast.JoinedStr):
            if found.spec is None:
                return False
            spans[id(spec)] = found.spec
            if not _assign(text, spec, found.nested, found.spec[0], found.spec[1], spans):
                return False
        position = found.end
    _literals(pending, position, end, spans)
    return True


def _literals(pieces: list[ast.AST], start: int, end: int, spans: dict[int, tuple[int, int]]) -> None:
    """The literal pieces between two fields: the first takes the text between them, others nothing."""
    for piece in pieces:
        spans[id(piece)] = (start, end)
        start = end


def _expression(text: str, node: ast.expr, span: tuple[int, int], spans: dict[int, tuple[int, int]]) -> bool:
    """Map the positions of the field's expression, reparsed alone, onto ``node`` and its descendants."""
    source = text[span[0] : span[1]]
    wrapped = "(" + source + "\n)"
    try:
        parsed = ast.parse(wrapped, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    mine = [n for n in ast.walk(node) if isinstance(n, _POSITIONED)]
    theirs = [n for n in ast.walk(parsed) if isinstance(n, _POSITIONED)]
    if [type(n) for n in mine] != [type(n) for n in theirs]:
        return False
    lines = wrapped.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(line: int, column: int) -> int:
        encoded = lines[line - 1].encode("utf-8", errors="surrogateescape")
        characters = len(encoded[:column].decode("utf-8", errors="ignore"))
        return span[0] + starts[line - 1] + characters - 1  # the "(" that was put before

    for original, located in zip(mine, theirs):
        if located.end_lineno is None or located.end_col_offset is None:
            continue
        spans[id(original)] = (
            offset(located.lineno, located.col_offset),
            offset(located.end_lineno, located.end_col_offset),
        )
    return True


def _fields(text: str, start: int, end: int) -> list[Field] | None:
    """The replacement fields of every f-string literal in ``text[start:end]``, in order."""
    source = "(" + text[start:end] + "\n)"
    lines = source.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    fields: list[Field] = []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    for token in tokens:
        if token.type != tokenize.STRING:
            continue
        literal_start = start + starts[token.start[0] - 1] + token.start[1] - 1
        prefix = _PREFIX.match(token.string)
        letters = prefix.group().lower() if prefix else ""
        if "f" not in letters:
            continue
        body = len(letters)
        quote = token.string[body : body + 3] if token.string[body : body + 3] in ('"""', "'''") else token.string[body]
        found = _scan(text, literal_start + body + len(quote), literal_start + len(token.string) - len(quote), "r" in letters)
        if found is None:
            return None
        fields.extend(found[0])
    return fields


def _scan(text: str, position: int, end: int, raw: bool, in_spec: bool = False) -> tuple[list[Field], int] | None:
    """Fields from ``position`` to ``end`` (or, in a format spec, to its closing ``}``)."""
    fields: list[Field] = []
    while position < end:
        character = text[position]
        if character == "\\" and not raw:
            if text.startswith("N{", position + 1):
                closing = text.find("}", position)
                if closing < 0:
                    return None
                position = closing + 1
            else:
                position += 2
        elif character in "{}" and not in_spec and text.startswith(character * 2, position):
            position += 2
        elif character == "{":
            found = _field(text, position, end, raw)
            if found is None:
                return None
            fields.append(found)
            position = found.end
        elif character == "}" and in_spec:
            return fields, position
        else:
            position += 1
    return (None if in_spec else (fields, position))


def _field(text: str, start: int, end: int, raw: bool) -> Field | None:
    """The field that opens at ``text[start] == "{"``."""
    position = start + 1
    depth = 0
    while position < end:
        character = text[position]
        if character in "'\"":
            position = _skip_string(text, position, end)
            if position < 0:
                return None
            continue
        if character in _OPENING:
            depth += 1
        elif character in _CLOSING and depth:
            depth -= 1
        elif depth == 0 and (
            character == "}"
            or character == ":"
            or (character == "!" and text[position + 1 : position + 2] != "=")
            or (character == "=" and text[position + 1 : position + 2] != "=" and text[position - 1] not in "=!<>")
        ):
            return _after_expression(text, start, position, end, raw)
        position += 1
    return None


def _after_expression(text: str, start: int, position: int, end: int, raw: bool) -> Field | None:
    """Read ``=``, ``!conversion`` and ``:spec`` after a field's expression, up to its ``}``."""
    expression = (start + 1, position)
    if text[position] == "=":
        position += 1
        while position < end and text[position] in " \t\r\n":
            position += 1
    if position < end and text[position] == "!":
        position += 2
    if position < end and text[position] == ":":
        found = _scan(text, position + 1, end, raw, in_spec=True)
        if found is None:
            return None
        nested, closing = found
        return Field(start, closing + 1, expression, (position + 1, closing), nested)
    if position < end and text[position] == "}":
        return Field(start, position + 1, expression)
    return None


def _skip_string(text: str, position: int, end: int) -> int:
    """The offset after the string literal that starts at ``position`` (inside a field); -1 when unclosed."""
    quote = text[position : position + 3] if text[position : position + 3] in ('"""', "'''") else text[position]
    closing = text.find(quote, position + len(quote), end)
    return -1 if closing < 0 else closing + len(quote)


def token_count(literal: str) -> int:
    """How many tokens 3.12's tokenizer makes of one string literal (an f-string is more than one).

    Before 3.12 an f-string is one STRING token however much code its fields
    hold, so ``f"{average(v):.2f}"`` would count as smaller than
    ``average(v)`` and no reduction would take the field out of its string.
    Counting as 3.12 does (start, each literal piece, ``{``, the field's
    tokens, ``!r``, ``:``, the spec, ``}``, end) makes sizes agree across
    interpreters.
    """
    prefix = _PREFIX.match(literal)
    letters = prefix.group().lower() if prefix else ""
    if "f" not in letters:
        return 1
    body = len(letters)
    quote = literal[body : body + 3] if literal[body : body + 3] in ('"""', "'''") else literal[body : body + 1]
    if not quote or not literal.endswith(quote) or len(literal) < body + 2 * len(quote):
        return 1
    start, end = body + len(quote), len(literal) - len(quote)
    found = _scan(literal, start, end, "r" in letters)
    if found is None:
        return 1
    return 2 + _pieces(literal, found[0], start, end)


def _pieces(literal: str, fields: list[Field], start: int, end: int) -> int:
    """Tokens of a run of literal text and fields (an f-string's body or a format spec)."""
    count = 0
    position = start
    for found in fields:
        count += found.start > position
        count += 2 + _expression_tokens(literal[found.expression[0] : found.expression[1]])
        closing = found.spec[0] - 1 if found.spec is not None else found.end - 1
        between = literal[found.expression[1] : closing]
        count += ("=" in between.split("!")[0]) + 2 * ("!" in between)
        if found.spec is not None:
            count += 1 + _pieces(literal, found.nested, found.spec[0], found.spec[1])
        position = found.end
    return count + (end > position)


def _expression_tokens(source: str) -> int:
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO("(" + source + "\n)").readline))
    except (tokenize.TokenError, SyntaxError):
        return len(source.split())
    ignored = (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT)
    strings = sum(token_count(t.string) for t in tokens if t.type == tokenize.STRING)
    others = sum(1 for t in tokens if t.type not in ignored and t.type != tokenize.STRING)
    return strings + others - 2  # the parentheses put around it
