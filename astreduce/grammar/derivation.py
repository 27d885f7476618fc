"""Derivation trees of any input, by a Lark grammar: parse once, replace subtrees, render.

Lark's Earley parser reads any context-free grammar (left recursion and
ambiguity included), so the user's grammar needs no rewriting for an LALR
table. The input is parsed once, with every token kept
(``keep_all_tokens``) and its position; the tree is Lark's own, so rules
named ``_x``, and ``?x`` rules with one child, are inlined as Lark does.

Candidates are built on this tree without parsing again: a :class:`RuleNode`
is immutable, a replacement builds new nodes along one path, and
:func:`render` writes the tokens back. Every token of the input remembers
its index in the input's token sequence, so the text between two tokens
that were neighbours in the input (spaces, line breaks, ignored comments)
is kept exactly; where a token lost its left neighbour it keeps its own
leading spacing; a token the reducer made up (the shortest expansion of a
symbol) gets none, or one space when two word characters would otherwise
run together.

Two questions need the grammar itself: the shortest string a symbol
derives (:meth:`Grammar.shortest`, a fixpoint over Lark's compiled rules,
with each regular terminal's shortest sample found by trying short
strings), and whether a sequence of a node's children is still an
expansion of its symbol (:meth:`Grammar.derives`, which parses just that
node's text with the symbol as the start: every rule is a start symbol of
the parser).
"""

from __future__ import annotations

import itertools
import re
import string
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import lark
from lark.exceptions import LarkError, UnexpectedEOF, UnexpectedInput

from astreduce.errors import UsageError

__all__ = ["Grammar", "Leaf", "RuleNode", "render"]

#: Characters tried, in this order, for the shortest sample of a regular terminal.
_SAMPLE_ALPHABET = "0a1xA_ " + string.ascii_letters + string.digits + string.punctuation
_SAMPLE_LENGTH = 2


@dataclass(frozen=True, slots=True)
class Leaf:
    """A token: its terminal's name, its text, and its index among the input's tokens (None if made up)."""

    kind: str
    text: str
    index: int | None
    spacing: str = ""
    """A made-up token's spacing before it: that of the subtree it replaces."""


@dataclass(frozen=True, eq=False)
class RuleNode:
    """A rule's node: its symbol (the rule's name, or its alias) and its children."""

    symbol: str
    children: tuple[RuleNode | Leaf, ...]

    @cached_property
    def leaves(self) -> tuple[Leaf, ...]:
        out: list[Leaf] = []
        for child in self.children:
            if isinstance(child, Leaf):
                out.append(child)
            else:
                out.extend(child.leaves)
        return tuple(out)

    @cached_property
    def size(self) -> int:
        """Characters of its tokens: the measure of "smaller" between subtrees."""
        return sum(len(leaf.text) for leaf in self.leaves)

    def descendants(self) -> Iterator[tuple[int, RuleNode]]:
        """Every node below this one, with its depth (1 for a child), breadth first."""
        level: list[RuleNode] = [self]
        depth = 0
        while level:
            depth += 1
            level = [c for n in level for c in n.children if isinstance(c, RuleNode)]
            for node in level:
                yield depth, node


def _word(char: str) -> bool:
    return char.isalnum() or char == "_"


def render(root: RuleNode, gaps: tuple[str, ...], tail: str) -> str:
    """The text of ``root``'s tokens, with the input's spacing where it survives (see the module)."""
    out: list[str] = []
    previous: Leaf | None = None
    for leaf in root.leaves:
        is_neighbour = leaf.index is not None and previous is not None and previous.index == leaf.index - 1
        if leaf.index is None:
            gap = leaf.spacing if out else ""
        elif previous is None:
            gap = gaps[0] if leaf.index == 0 else ""
        else:
            gap = gaps[leaf.index]
        if not gap and not is_neighbour and out and leaf.text and _word(out[-1][-1:] or " ") and _word(leaf.text[0]):
            gap = " "
        out.append(gap)
        out.append(leaf.text)
        previous = leaf
    out.append(tail)  # the input's last line ending, whatever became of its last token
    return "".join(out)


@dataclass
class Grammar:
    """A Lark grammar loaded for reduction: its Earley parser and what reductions ask of it."""

    path: str
    start: str
    parser: lark.Lark
    origins: dict[str, str] = field(default_factory=dict)
    """A node's symbol (a rule's name or alias) to the rule it comes from."""

    @classmethod
    def load(cls, path: str | Path, start: str = "start") -> Grammar:
        """Read and compile the grammar at ``path``.

        Raises:
            UsageError: the file cannot be read, the grammar does not
                compile, or it has no rule ``start``.
        """
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise UsageError(f"cannot read the grammar {path}: {error}") from None
        try:
            probe = lark.Lark(text, parser="earley", start=start, keep_all_tokens=True)
            names = sorted({str(rule.origin.name) for rule in probe.rules})
            if start not in names:
                raise UsageError(f"the grammar {path} has no rule {start!r} (--start); its rules: {', '.join(names)}")
            parser = lark.Lark(text, parser="earley", start=names, keep_all_tokens=True, propagate_positions=True)
        except LarkError as error:
            if f"NonTerminal('{start}')" in str(error):
                raise UsageError(f"the grammar {path} has no rule {start!r} (--start)") from None
            first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            raise UsageError(f"the grammar {path} does not compile: {first}") from None
        origins: dict[str, str] = {}
        for rule in parser.rules:
            origin = str(rule.origin.name)
            origins.setdefault(str(rule.alias) if rule.alias else origin, origin)
        return cls(str(path), start, parser, origins)

    def parse(self, text: str, filename: str) -> tuple[RuleNode, tuple[str, ...], str]:
        """The derivation tree of ``text``, the spacing before each token, and the text after the last.

        Raises:
            UsageError: ``text`` does not parse; the message names the line and column.
        """
        # A file's last line ending is rarely part of a grammar: without it, it is kept as is.
        body = text.rstrip("\r\n")
        try:
            tree = self.parser.parse(text, start=self.start)
            body = text
        except UnexpectedInput as error:
            if body == text:
                raise self._parse_error(error, text, filename) from None
            try:
                tree = self.parser.parse(body, start=self.start)
            except UnexpectedInput as second:
                raise self._parse_error(second, body, filename) from None
        tokens: list[lark.Token] = []
        root = _convert(tree, tokens)
        gaps: list[str] = []
        end = 0
        for token in tokens:
            start = token.start_pos if token.start_pos is not None else end
            gaps.append(text[end:start])
            end = token.end_pos if token.end_pos is not None else start + len(token)
        return root, tuple(gaps), text[end:]

    def _parse_error(self, error: UnexpectedInput, text: str, filename: str) -> UsageError:
        """One line naming the line and column where ``text`` stops parsing."""
        line, column = error.line, error.column
        if isinstance(error, UnexpectedEOF) or line < 1:
            line = text.count("\n") + 1
            column = len(text) - (text.rfind("\n") + 1) + 1
        return UsageError(
            f"{filename}: line {line}, column {column}: the input does not parse with the grammar"
            f" {Path(self.path).name} (start {self.start}): {_reason(error)}"
        )

    def derives(self, symbol: str, text: str) -> bool:
        """Whether ``symbol`` derives ``text`` (a node's candidate text)."""
        origin = self.origins.get(symbol)
        if origin is None:
            return False
        try:
            self.parser.parse(text, start=origin)
        except LarkError:
            return False
        return True

    @cached_property
    def _shortest(self) -> dict[str, tuple[tuple[str, str], ...]]:
        """Each symbol's shortest derivation, as (terminal, text) pairs: a fixpoint over the rules."""
        samples = {str(t.name): s for t in self.parser.terminals if (s := _sample(t)) is not None}
        best: dict[str, tuple[tuple[str, str], ...]] = {}

        def length(parts: tuple[tuple[str, str], ...]) -> int:
            return sum(len(text) for _, text in parts)

        is_changing = True
        while is_changing:
            is_changing = False
            for rule in self.parser.rules:
                parts: list[tuple[str, str]] = []
                for symbol in rule.expansion:
                    name = str(symbol.name)
                    if symbol.is_term:
                        if name not in samples:
                            break
                        parts.append((name, samples[name]))
                    elif name in best:
                        parts.extend(best[name])
                    else:
                        break
                else:
                    origin = str(rule.origin.name)
                    found = tuple(parts)
                    if origin not in best or length(found) < length(best[origin]):
                        best[origin] = found
                        is_changing = True
        return best

    def shortest(self, symbol: str, spacing: str = "") -> RuleNode | None:
        """A node of ``symbol`` holding its shortest derivation's tokens (made up), or None if unknown.

        ``spacing`` goes before the first token (that of the subtree it replaces).
        """
        origin = self.origins.get(symbol)
        parts = self._shortest.get(origin) if origin is not None else None
        if parts is None:
            return None
        leaves = [Leaf(kind, text, None) for kind, text in parts]
        if leaves:
            leaves[0] = Leaf(leaves[0].kind, leaves[0].text, None, spacing)
        return RuleNode(symbol, tuple(leaves))


def _reason(error: UnexpectedInput) -> str:
    if isinstance(error, UnexpectedEOF):
        return "unexpected end of input"
    token = getattr(error, "token", None)
    if token is not None:
        return f"unexpected {str(token)!r}"
    char = getattr(error, "char", None)
    return f"unexpected {char!r}" if char is not None else type(error).__name__


def _convert(tree: lark.Tree[lark.Token], tokens: list[lark.Token]) -> RuleNode:
    children: list[RuleNode | Leaf] = []
    for child in tree.children:
        if isinstance(child, lark.Tree):
            children.append(_convert(child, tokens))
        elif isinstance(child, lark.Token):
            children.append(Leaf(str(child.type), str(child), len(tokens)))
            tokens.append(child)
    return RuleNode(str(tree.data), tuple(children))


def _sample(terminal: lark.lexer.TerminalDef) -> str | None:
    """The shortest text found that ``terminal`` matches (its literal, or a short match of its pattern)."""
    pattern = terminal.pattern
    if isinstance(pattern, lark.lexer.PatternStr):
        return str(pattern.value)
    try:
        compiled = re.compile(pattern.to_regexp())
    except re.error:
        return None
    for length in range(1, _SAMPLE_LENGTH + 1):
        for chars in itertools.product(_SAMPLE_ALPHABET, repeat=length):
            text = "".join(chars)
            if compiled.fullmatch(text):
                return text
    return None
