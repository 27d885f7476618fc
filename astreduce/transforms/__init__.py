"""Transforms: what may replace a node that is not kept, and the registry that finds them.

A :class:`Transform` proposes, for a node, zero or more edits, the most
removing first. It only proposes: it never runs the oracle, never mutates
shared state. Strategies turn proposals into :class:`Opportunity` records
(one keep-list element each) and let delta debugging decide which to apply.

Most transforms are *node-local* and implement :meth:`Transform.replacements`.
Whole-program rewrites override :meth:`Transform.opportunities` to propose
edits of several nodes at once; those that read names and scopes are
:class:`ScopeTransform` s, which share one analysis of the tree; others are
:class:`TextTransform` s that edit token spans directly.

The built-in transforms are listed in :data:`BUILT_IN` and found in the
package itself, installed or not; another package's register under the
entry-point group ``astreduce.transforms`` (see ``docs/ARCHITECTURE.md``).
:func:`load_transforms` loads both.
"""

from __future__ import annotations

import ast
import importlib
import importlib.metadata
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from typing import ClassVar, Generic, TypeAlias, TypeVar, cast

from astreduce.errors import TransformLoadError, UsageError
from astreduce.source.render import DROP, Edit, Hole, Replacement
from astreduce.source.scope import Analysis, analyse
from astreduce.source.tree import Node, Tree, is_fstring_part

ENTRY_POINT_GROUP = "astreduce.transforms"

#: The transforms astreduce ships: name → ``module:Class``, found in the package itself (a new one works
#: without reinstalling); another package's come through :data:`ENTRY_POINT_GROUP`.
BUILT_IN: dict[str, str] = {
    "delete": "astreduce.transforms.statements:Delete",
    "drop-else": "astreduce.transforms.statements:DropElse",
    "assign-to-pass": "astreduce.transforms.classic:AssignToPass",
    "assign-to-value": "astreduce.transforms.classic:AssignToValue",
    "compare-to-bool": "astreduce.transforms.classic:CompareToBool",
    "boolop-to-operand": "astreduce.transforms.classic:BoolOpToOperand",
    "if-to-body": "astreduce.transforms.classic:IfToBody",
    "hoist-block": "astreduce.transforms.hoisting:HoistBlock",
    "statement-to-expression": "astreduce.transforms.hoisting:StatementToExpression",
    "hoist-expression": "astreduce.transforms.expressions:HoistExpression",
    "fstring-to-string": "astreduce.transforms.expressions:FStringToString",
    "filter-to-element": "astreduce.transforms.expressions:FilterToElement",
    "to-constant": "astreduce.transforms.simplify:ExpressionToConstant",
    "simplify-number": "astreduce.transforms.simplify:SimplifyNumber",
    "shorten-string": "astreduce.transforms.simplify:ShortenString",
    "drop-annotation": "astreduce.transforms.definitions:DropAnnotation",
    "drop-default": "astreduce.transforms.definitions:DropDefault",
    "drop-docstring": "astreduce.transforms.definitions:DropDocstring",
    "drop-async": "astreduce.transforms.definitions:DropAsync",
    "drop-bases": "astreduce.transforms.definitions:DropBases",
    "rename": "astreduce.transforms.renaming:RenameIdentifiers",
    "drop-parentheses": "astreduce.transforms.parentheses:DropParentheses",
    "remove-parameter": "astreduce.transforms.parameters:RemoveParameter",
    "delete-with-uses": "astreduce.transforms.uses:DeleteWithUses",
    "inline-call": "astreduce.transforms.inlining:InlineCall",
    "inline-variable": "astreduce.transforms.inlining:InlineVariable",
    "import-to-stub": "astreduce.transforms.inlining:ImportToStub",
    "merge-base": "astreduce.transforms.classes:MergeBase",
    "class-to-functions": "astreduce.transforms.classes:ClassToFunctions",
    "drop-uncalled-methods": "astreduce.transforms.classes:DropUncalledMethods",
    "loop-to-body": "astreduce.transforms.control_flow:LoopToBody",
    "try-to-body": "astreduce.transforms.control_flow:TryToBody",
    "with-to-body": "astreduce.transforms.control_flow:WithToBody",
    "return-value-drop": "astreduce.transforms.control_flow:ReturnValueDrop",
    "function-to-body": "astreduce.transforms.control_flow:FunctionToBody",
    "name-to-constant": "astreduce.transforms.constants:NameToConstant",
    "value-from-trace": "astreduce.transforms.constants:ValueFromTrace",
    "drop-tuple-pair": "astreduce.transforms.tuples:DropTuplePair",
    "drop-returned-position": "astreduce.transforms.tuples:DropReturnedPosition",
}

@dataclass(frozen=True)
class Opportunity:
    """One keep-list element: a set of node edits proposed together."""

    transform: str
    target: int
    """The node the proposal is about (for ordering and reports)."""
    edits: Mapping[int, Edit]
    rank: int = 0
    """Which alternative of the transform this is (0 = the most removing)."""


@dataclass(frozen=True)
class TextOpportunity:
    """One keep-list element of a text transform: span replacements applied together."""

    transform: str
    edits: tuple[tuple[int, int, str], ...]


class Transform:
    """Base class of node transforms; subclasses set ``name`` and ``node_kinds``.

    ``node_kinds`` empty means every kind. A transform only proposes: when
    its proposals are tried, and how, is the search's schedule
    (:mod:`astreduce.search.schedule`, one row per transform).
    """

    name: ClassVar[str] = ""
    node_kinds: ClassVar[frozenset[str]] = frozenset()

    def replacements(self, node: Node, tree: Tree) -> Iterator[Edit | str]:
        """Edits for ``node``, most removing first; a ``str`` is literal text."""
        return iter(())

    def candidates(self, tree: Tree) -> list[Node]:
        """The nodes that may have proposals, in pre-order: by default those of ``node_kinds``."""
        return tree.of_kinds(self.node_kinds)

    def opportunities(self, tree: Tree) -> Iterator[Opportunity]:
        """Every proposal of this transform on ``tree``, in pre-order."""
        for node in self.candidates(tree):
            if is_fstring_part(tree, node.id):
                continue  # an f-string's own syntax is never replaced
            for rank, edit in enumerate(self.replacements(node, tree)):
                if isinstance(edit, str):
                    edit = Replacement.text(edit)
                edits = {node.id: edit}
                if not isinstance(edit, Replacement) or fits_fstrings(tree, edits):  # a drop writes no text
                    yield Opportunity(self.name, node.id, edits, rank)

    @classmethod
    def summary(cls) -> str:
        """The first line of the docstring, for ``astreduce transforms``."""
        return (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else ""


Subject = TypeVar("Subject")


class ScopeTransform(Transform, Generic[Subject]):
    """A whole-program transform that reads the scope analysis: proposals subject by subject.

    The analysis is made once per tree (``None``, when the text cannot be
    analysed, proposes nothing). :meth:`walk` says what the transform looks
    at, :meth:`proposals` what it proposes for one of them. ``ranked``: with
    second choices, every subject's first choice comes before any subject's
    second (:func:`rank_zero_first`).
    """

    ranked: ClassVar[bool] = False

    def opportunities(self, tree: Tree) -> Iterator[Opportunity]:
        a = analyse(tree)
        if a is None:
            return
        made = (p for subject in self.walk(a) for p in self.proposals(a, subject) if fits_fstrings(a.tree, p.edits))
        yield from rank_zero_first(made) if self.ranked else made

    def walk(self, a: Analysis) -> Iterable[Subject]:
        """The subjects, in order: by default every node of ``node_kinds``, in pre-order."""
        nodes = [a.asts[n.id] for n in a.tree.of_kinds(self.node_kinds)]
        return cast("list[Subject]", nodes)  # the kinds are those of the type a subclass names

    def proposals(self, a: Analysis, subject: Subject) -> Iterator[Opportunity]:
        """The proposals about ``subject``, most removing first."""
        return iter(())


Function: TypeAlias = ast.FunctionDef | ast.AsyncFunctionDef


class FunctionTransform(ScopeTransform[Function]):
    """A :class:`ScopeTransform` asked about every function and method of the file, in pre-order."""

    node_kinds = frozenset({"FunctionDef", "AsyncFunctionDef"})


class TextTransform(Transform):
    """A transform that edits token spans of the text rather than nodes (e.g. renaming)."""

    def text_opportunities(self, tree: Tree) -> Iterator[TextOpportunity]:
        return iter(())


def rank_zero_first(proposals: Iterable[Opportunity]) -> Iterator[Opportunity]:
    """Every rank-0 proposal as it comes, then the others in the order they were made.

    For whole-program transforms with second choices: ranks are dense (a pass
    of rank r runs only when some proposal has rank r - 1), and the first
    choice of every node is tried before any node's second.
    """
    later: list[Opportunity] = []
    for proposal in proposals:
        if proposal.rank == 0:
            yield proposal
        else:
            later.append(proposal)
    yield from later


#: An f-string's opening quote (after its prefix), for the quotes its fields may not hold.
_FSTRING_OPENING = re.compile(r"(?<![\w'\"])[rRbBuU]?[fF][rRbBuU]?(['\"])")


def fits_fstrings(tree: Tree, edits: Mapping[int, Edit]) -> bool:
    """Whether the literal text of ``edits`` may stand where it goes inside f-string fields.

    Before 3.12 a field may not hold a backslash, a comment, a line break
    (conservatively: even in a triple-quoted string) or the quote of any
    f-string around it: ``f"{INDENT}"`` cannot become ``f"{"  "}"``. The same
    limits are kept under 3.12 (a tree does not say which grammar parsed it):
    a proposal that would need them is not made at all, rather than costing a
    test that cannot parse.
    """
    nodes = tree.nodes
    for node_id, edit in edits.items():
        if not isinstance(edit, Replacement):
            continue
        quotes: set[str] = set()
        current = nodes[node_id].parent
        while current >= 0:
            if nodes[current].kind == "JoinedStr":
                quotes.update(_FSTRING_OPENING.findall(tree.source(current)))
            current = nodes[current].parent
        if not quotes:
            continue
        inserted = "".join(
            p if isinstance(p, str) else tree.source(p.node) for p in edit.parts if isinstance(p, (str, Hole))
        )
        if any(q in inserted for q in quotes) or any(c in inserted for c in "\\#\n\r"):
            return False
    return True


def drop(tree: Tree, node_id: int) -> Edit | None:
    """:data:`DROP` when ``node_id`` can be dropped from where it stands, else ``None``."""
    return DROP if tree.is_droppable(node_id) else None


def load_transforms(names: Iterable[str] | None = None) -> list[Transform]:
    """Instantiate registered transforms, in phase order: every one, only ``names``, or all but the names
    that start with ``-`` (``-rename``).

    Raises:
        TransformLoadError: an entry point fails to import or is not a Transform.
        UsageError: a name in ``names`` is not registered.
    """
    registry = registered_transforms()
    wanted = list(dict.fromkeys(names)) if names is not None else None
    excluded = [n[1:] for n in wanted or [] if n.startswith("-")]
    if wanted is not None and excluded and len(excluded) != len(wanted):
        raise UsageError("--transforms takes names to use (rename,delete) or names to leave out (-rename,-delete), not both")
    unknown = [n for n in (excluded or wanted or []) if n not in registry]
    if unknown:
        raise UsageError(f"unknown transform {', '.join(unknown)}; known: {', '.join(sorted(registry))}")
    chosen = wanted if wanted is not None and not excluded else [n for n in registry if n not in excluded]
    return [registry[n]() for n in chosen]


def registered_transforms() -> dict[str, type[Transform]]:
    """Name → class of every transform: the built-in ones (:data:`BUILT_IN`), then those other packages register
    under :data:`ENTRY_POINT_GROUP`.

    Raises:
        TransformLoadError: one fails to import, is not a Transform, is named otherwise than its class, or
            takes a built-in's name.
    """
    found = {name: _loaded(name, value, partial(_import, value)) for name, value in BUILT_IN.items()}
    for entry in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        if entry.value in BUILT_IN.values():  # an older install of astreduce's own metadata
            continue
        if entry.name in found:
            raise TransformLoadError(f"transform {entry.name!r} ({entry.value}) takes the name of a built-in transform")
        found[entry.name] = _loaded(entry.name, entry.value, entry.load)
    return found


def _import(value: str) -> object:
    module, _, name = value.partition(":")
    return getattr(importlib.import_module(module), name)


def _loaded(name: str, value: str, load: Callable[[], object]) -> type[Transform]:
    try:
        loaded = load()
    except Exception as error:  # a plugin may fail in any way: name it and stop
        raise TransformLoadError(f"transform {name!r} ({value}) failed to load: {error}") from error
    if not (isinstance(loaded, type) and issubclass(loaded, Transform)):
        raise TransformLoadError(f"transform {name!r} ({value}) is not a Transform class")
    if loaded.name != name:
        raise TransformLoadError(f"transform {name!r} ({value}) names a class whose name is {loaded.name!r}")
    return loaded
