"""The grammar-based search: smaller subtrees of the same kind, breadth first from the root.

After the Fuzzing Book's GrammarReducer (and Perses): a candidate replaces
one subtree of the derivation tree, so every candidate is a sentence of the
grammar. For each node, visited breadth first from the root so that large
replacements come first, the candidates are, in this order:

1. **the shortest expansion** of the node's symbol (one test that, when it
   works, removes the most);
2. **a descendant that can stand in its place**: a node below it of the same
   symbol, or of a symbol the node's symbol derives by unit rules alone
   (``expr → term → factor``, so a parenthesised ``factor`` can replace a
   whole ``expr``); the nearest descendants first (depth 1, 2, ...), the way
   ddmin tries halves before quarters;
3. **deletion of optional and repeated parts**: contiguous runs of the
   node's children, longest runs first, kept only when the node's symbol
   still derives what is left (the grammar answers, without a test).

Only candidates smaller than the current text (by the session's measure)
are offered. The first that FAILs replaces the node, the same node is
visited again, and when a sweep of the whole tree changes nothing the
search ends. All tests go through the session, in this order, so ``-j``
speculation, the cache, progress and stop requests work as for Python.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator

from astreduce.errors import UsageError
from astreduce.grammar.derivation import Grammar, RuleNode, render
from astreduce.source.measure import measure
from astreduce.oracles.options import OracleOptions
from astreduce.search.session import Session

__all__ = ["GrammarSearch", "check_data_oracle"]

Path = tuple[int, ...]


def _at(root: RuleNode, path: Path) -> RuleNode:
    node = root
    for index in path:
        child = node.children[index]
        assert isinstance(child, RuleNode)
        node = child
    return node


def _replaced_at(root: RuleNode, path: Path, new: RuleNode) -> RuleNode:
    """``root`` with the node at ``path`` replaced by ``new`` (new nodes along the path only)."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    child = root.children[head]
    assert isinstance(child, RuleNode)
    children = list(root.children)
    children[head] = _replaced_at(child, rest, new)
    return RuleNode(root.symbol, tuple(children))


def check_data_oracle(options: OracleOptions) -> None:
    """Refuse the exec oracle: with ``--grammar`` the input is data, not a program to run.

    Raises:
        UsageError: no ``--run``, ``--test`` or ``--differential``.
    """
    if options.runs_python:
        raise UsageError(
            "--grammar reduces an input that is data: give the oracle with --run 'CMD {file}',"
            " --test SCRIPT or --differential 'CMD1 {file}' 'CMD2 {file}'"
        )


class GrammarSearch:
    """Reduces a session's text by its derivation tree under ``grammar`` (see the module)."""

    name = "grammar"

    def __init__(self, grammar: Grammar, text: str, filename: str) -> None:
        """Parse ``text``, the input, at once.

        Raises:
            UsageError: ``text`` does not parse (the message names the line and column).
        """
        self.grammar = grammar
        self.filename = filename
        self._text = text
        self._parsed = grammar.parse(text, filename)
        self._units = self._unit_closure()

    def _unit_closure(self) -> dict[str, frozenset[str]]:
        """Each rule to the rules it derives through unit rules (``a: b``), itself included."""
        direct: dict[str, set[str]] = {}
        for rule in self.grammar.parser.rules:
            origin = str(rule.origin.name)
            direct.setdefault(origin, {origin})
            if len(rule.expansion) == 1 and not rule.expansion[0].is_term:
                direct[origin].add(str(rule.expansion[0].name))
        closure: dict[str, frozenset[str]] = {}
        for origin in direct:
            seen = {origin}
            todo = [origin]
            while todo:
                for target in direct.get(todo.pop(), ()):
                    if target not in seen:
                        seen.add(target)
                        todo.append(target)
            closure[origin] = frozenset(seen)
        return closure

    def run(self, session: Session) -> None:
        """Reduce ``session.best`` until a sweep over the whole tree changes nothing."""
        parsed = self._parsed if session.best == self._text else self.grammar.parse(session.best, self.filename)
        root, gaps, tail = parsed
        is_changing = True
        while is_changing:
            stats = session.begin_pass(self.name)
            is_changing = False
            queue: deque[Path] = deque([()])
            while queue:
                path = queue.popleft()
                new_root = self._reduce_at(session, root, path, gaps, tail)
                if new_root is not None:
                    root, is_changing = new_root, True
                    queue.appendleft(path)  # the new subtree may shrink further
                    continue
                node = _at(root, path)
                queue.extend(path + (i,) for i, child in enumerate(node.children) if isinstance(child, RuleNode))
            session.end_pass(stats)

    def _reduce_at(self, session: Session, root: RuleNode, path: Path, gaps: tuple[str, ...], tail: str) -> RuleNode | None:
        """The tree with the node at ``path`` replaced by its first candidate that FAILs, or None."""
        current = measure(render(root, gaps, tail)).key
        offered: list[RuleNode] = []
        seen: set[str] = set()

        def candidates() -> Iterator[str]:
            for replacement in self._replacements(_at(root, path), gaps):
                new_root = _replaced_at(root, path, replacement)
                text = render(new_root, gaps, tail)
                if text in seen or measure(text).key >= current:
                    continue
                seen.add(text)
                offered.append(new_root)
                yield text

        index = session.first_failing(candidates())
        if index is None:
            return None
        new_root = offered[index]
        session.accept(render(new_root, gaps, tail))
        return new_root

    def _replacements(self, node: RuleNode, gaps: tuple[str, ...]) -> Iterator[RuleNode]:
        """The node's candidates in the module's order: shortest expansion, descendants, deletions."""
        first = node.leaves[0] if node.leaves else None
        spacing = "" if first is None else first.spacing if first.index is None else gaps[first.index]
        shortest = self.grammar.shortest(node.symbol, spacing)
        if shortest is not None:
            yield shortest
        origin = self.grammar.origins.get(node.symbol, node.symbol)
        fits = self._units.get(origin, frozenset({origin}))
        half = node.size / 2
        by_size = sorted(
            ((abs(d.size - half), depth, order), d)
            for order, (depth, d) in enumerate(node.descendants())
            if self.grammar.origins.get(d.symbol, d.symbol) in fits
        )
        yield from (descendant for _, descendant in by_size)
        count = len(node.children)
        runs = sorted({count - 1, 2, 1} | {(count - 1) >> shift for shift in range(1, count.bit_length())}, reverse=True)
        for run in (r for r in runs if 1 <= r < count):
            for start in range(0, count - run + 1, max(1, run // 2)):
                candidate = RuleNode(node.symbol, node.children[:start] + node.children[start + run :])
                if self.grammar.derives(node.symbol, render(candidate, gaps, "")):
                    yield candidate
