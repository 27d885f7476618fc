"""The first rounds of a tree's reduction: cheap sweeps over every file, level by level.

Before the full strategy runs file by file, every file loses what it can by
deleting statements alone: first down to :data:`SHALLOW_SWEEP` (module level,
class and function bodies), then at every level. The budget goes where the
tokens are across the whole tree, not into the deep levels of the first file.
Then :data:`SWEPT_ROUNDS` sweeps give every file a round of the phases of
``auto`` that take off the most a test (deletions of any element,
definitions, the classic replacements, hoisting) before the full rounds give
any file the others.
When coverage was measured, a sweep does not propose a module's statements
whose names the run reads (:func:`narrowed`): deleting one fails for sure,
and every chunk holding one fails with it. The full rounds still try them.

Two kinds of edit go before the sweeps, across every file at once
(:data:`ACROSS_FILES`): type annotations, then the imported names no file
uses. Each is one group tried in one test and split only where it fails
(a dataclass's fields, a parser that reads its classes' annotations); the
full rounds would drop them one file and one round at a time, and what only
annotations used (``typing`` imports, type variables) then goes in the
sweeps already.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from astreduce.reduce.unexecuted import member_key, statement_key
from astreduce.search.greedy import name_counts
from astreduce.search.schedule import swept
from astreduce.search.strategies import Plan, statement_levels
from astreduce.source.imports import ImportGraph, modules_of, parse_module, references
from astreduce.source.render import DROP, Edit, NodeReducer
from astreduce.source.tree import Node, Tree, is_statement
from astreduce.transforms import Opportunity, Transform
from astreduce.transforms.definitions import DropAnnotation


class StatementDeletion(Transform):
    """The ``delete`` transform restricted to statements (nested at most ``deepest`` deep): the first, cheap
    sweeps over every file.

    Its row in the schedule (:mod:`astreduce.search.schedule`) makes ``auto``
    run it as hierarchical statement deletion only (module level, then each
    nesting level). Not registered: it exists only inside a multi-file
    reduction's first rounds.
    """

    name = "delete-statements"

    def __init__(self, inner: Transform, deepest: int | None = None, needed: frozenset[str] = frozenset()) -> None:
        self.inner = inner
        self.deepest = deepest
        self.needed = needed
        """Keys (:func:`~astreduce.reduce.unexecuted.statement_key`) of the module's statements not to propose: the
        run reads what they bind (:func:`~astreduce.reduce.unexecuted.needed_statements`)."""

    def opportunities(self, tree: Tree) -> Iterator[Opportunity]:
        levels = statement_levels(tree) if self.deepest is not None or self.needed else {}
        for opportunity in self.inner.opportunities(tree):
            target = opportunity.target
            if not is_statement(tree.nodes[target].kind) or self.deepest is not None and levels[target] > self.deepest:
                continue
            if self.needed and self._needed(tree, target, levels):
                continue
            yield opportunity

    def _needed(self, tree: Tree, target: int, levels: dict[int, int]) -> bool:
        """A module-level statement, or a method of a module-level class, among :attr:`needed`."""
        node = tree.nodes[target]
        if levels[target] == 0:
            return statement_key(node.kind, node.name, tree.text[node.start:node.end]) in self.needed
        owner = tree.nodes[node.parent]
        return (
            levels[target] == 1 and owner.kind == "ClassDef" and levels.get(owner.id) == 0 and node.name is not None
            and member_key(owner.name or "", node.kind, node.name) in self.needed
        )


#: The first sweep deletes statements down to this nesting level in every file (module level, and the bodies of
#: classes and functions), before the second goes deeper: level by level over the tree, so that a file whose
#: deep levels cost many tests (pint's vendored parser: 130 s for 600 tokens) does not hold the others up.
SHALLOW_SWEEP = 1

#: Rounds of the swept phases every file gets before any file gets the others: a second one parks what failed
#: alone in the first (tested once, together) and takes what the other files' first round made possible. Pint
#: through ``astreduce pytest``, -j 2: 1/20 of its tokens at 177 and 185 s instead of 200 and 210, the fixpoint
#: 1,642 tokens instead of 1,661; the guard's smaller trees end the same, with 4 to 8% more tests.
SWEPT_ROUNDS = 2


def sweep_plans(plan: Plan, strategy: str) -> list[Plan]:
    """The first rounds' cheap plans, or none when the strategy is not ``auto`` or has no ``delete``: shallow
    statements, then all statements, then :data:`SWEPT_ROUNDS` rounds of the phases that take off the most a
    test (:func:`~astreduce.search.schedule.swept`: deletions, definitions, the classic replacements,
    hoisting, but for their slow transforms).

    The last sweeps give every file those passes before any file gets the slow ones (an expression hoisted,
    a constant): a tree's full rounds give a file every phase at each visit, and on pint the first file
    visited spent 75 s of a 300-s budget on them, for 400 tokens, while the registry waited with the code
    whose callers those passes delete, which coverage then cuts whole (with a cheaper warm test: 6,006 and 6,159
    tokens at 300 s against 7,015, 1/20 of the input at 401 and 413 s against 424).
    """
    delete = next((t for t in plan.transforms if t.name == "delete"), None)
    if strategy != "auto" or delete is None:
        return []
    settings: dict[str, Any] = {
        "rounds": 1, "extras": False, "parse": plan.parse, "foreign_parser": plan.foreign_parser, "exhaustive": plan.exhaustive,
    }
    statements = [Plan.of([StatementDeletion(delete, deepest)], **settings) for deepest in (SHALLOW_SWEEP, None)]
    return [*statements, *[Plan.of([t for t in plan.transforms if swept(t.name)], **settings)] * SWEPT_ROUNDS]


def narrowed(plan: Plan, needed: frozenset[str]) -> Plan:
    """A sweep's plan for one file that proposes none of the module's statements ``needed`` (their keys): the run
    reads what they bind, so deleting one alone fails for sure, and a chunk holding one fails with it."""
    if not any(isinstance(t, StatementDeletion) for t in plan.transforms):
        return plan
    return replace(plan, transforms=tuple(
        StatementDeletion(t.inner, t.deepest, needed) if isinstance(t, StatementDeletion) else t for t in plan.transforms
    ))


@dataclass
class AcrossFiles:
    """Edits of one kind in every file of a tree, as one keep-list: the pass named :attr:`name`."""

    name: str
    best: Mapping[str, str]
    trees: dict[str, Tree] = field(default_factory=dict)
    edits: list[tuple[str, Mapping[int, Edit]]] = field(default_factory=list)
    """Each change: the file, and its edits of that file's tree."""

    def render(self, applied: frozenset[int]) -> dict[str, str]:
        """The tree with the ``applied`` changes (by index)."""
        by_path: dict[str, list[Mapping[int, Edit]]] = {}
        for index in sorted(applied):
            path, edits = self.edits[index]
            by_path.setdefault(path, []).append(edits)
        return {**self.best, **{path: NodeReducer(self.trees[path]).render_opportunities(e) for path, e in by_path.items()}}


def annotations_pass(best: Mapping[str, str], reducible: Callable[[str], bool], parse: Callable[[str], Tree | None]) -> AcrossFiles:
    """Every annotation of a parameter or a return value, and of an assignment with a value outside a class body,
    in every file: a class's annotated assignments are fields (dataclasses, named tuples) more often than not."""
    found = AcrossFiles("annotations across files", best)
    transform = DropAnnotation()
    for path, tree in _trees(best, reducible, parse, found):
        found.edits += [
            (path, o.edits) for o in transform.opportunities(tree)
            if o.rank == 0 and not (tree.nodes[o.target].kind == "AnnAssign" and tree.nodes[tree.nodes[o.target].parent].kind == "ClassDef")
        ]
    return found


def unused_imports_pass(best: Mapping[str, str], reducible: Callable[[str], bool], parse: Callable[[str], Tree | None]) -> AcrossFiles:
    """Every imported name its file names nowhere else and no file importing that file names, but in its imports
    from outside the tree (a word count: strings and comments count as uses); an import none of whose names is
    used goes whole. ``__future__`` imports stay, and so do those in a ``try``, whose ``ImportError`` may be what
    the program needs."""
    found = AcrossFiles("imports unused across files", best)
    graph = ImportGraph.of(best)
    modules = modules_of(best)
    trees = dict(_trees(best, reducible, parse, found))
    counts = {path: name_counts(text) for path, text in best.items()}
    own: dict[str, Counter[str]] = {}  # each file's uses but in its own imports
    foreign: dict[str, Counter[str]] = {}  # each file's uses but in its imports from outside the tree
    for path, tree in trees.items():
        own[path], foreign[path] = Counter(counts[path]), Counter(counts[path])
        # the lines of its imports of the tree's modules (a file this interpreter cannot parse: all of them)
        of_tree = {r.line for r in references(path, tree.text, modules)} if parse_module(tree.text) else None
        for node in tree.of_kinds(_IMPORTS):
            names = name_counts(tree.text[node.start:node.end])
            own[path].subtract(names)
            if of_tree is not None and tree.text.count("\n", 0, node.start) + 1 not in of_tree:
                foreign[path].subtract(names)
    for path, tree in trees.items():
        importers = [foreign.get(p, counts[p]) for p in graph.importers(path)]
        for node in tree.of_kinds(_IMPORTS):
            if _guarded(tree, node) or node.kind == "ImportFrom" and tree.text[node.start:node.end].split()[1] == "__future__":
                continue
            aliases = [tree.nodes[a] for a in tree.fields[node.id].get("names", ())]
            unused = [a for a in aliases if _unused((a.name or "*").split(".")[0], own[path], importers)]
            if len(unused) == len(aliases):
                found.edits.append((path, {node.id: DROP}))
            else:
                found.edits += [(path, {a.id: DROP}) for a in unused]
    return found


def _guarded(tree: Tree, node: Node) -> bool:
    return any(tree.nodes[a].kind in _TRIES for a in tree.ancestors(node.id))


def _unused(name: str, uses: Counter[str], importers: list[Counter[str]]) -> bool:
    return name != "*" and uses[name] <= 0 and not any(c[name] > 0 for c in importers)


def _trees(
    best: Mapping[str, str], reducible: Callable[[str], bool], parse: Callable[[str], Tree | None], found: AcrossFiles,
) -> Iterator[tuple[str, Tree]]:
    """Each file that may change and parses, with its tree (kept in ``found`` for rendering)."""
    for path in sorted(best):
        if reducible(path) and (tree := parse(best[path])) is not None:
            found.trees[path] = tree
            yield path, tree


_IMPORTS = frozenset({"Import", "ImportFrom"})
_TRIES = frozenset({"Try", "TryStar"})

#: The passes across every file, in their order: each is made on the tree the one before left.
ACROSS_FILES = (annotations_pass, unused_imports_pass)
