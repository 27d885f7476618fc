"""The first rounds of a tree's reduction: cheap sweeps of statement deletion over every file, level by level.

Before the full strategy runs file by file, every file loses what it can by
deleting statements alone: first down to :data:`SHALLOW_SWEEP` (module level,
class and function bodies), then at every level. The budget goes where the
tokens are across the whole tree, not into the deep levels of the first file.
When coverage was measured, a sweep does not propose a module's statements
whose names the run reads (:func:`narrowed`): deleting one fails for sure,
and every chunk holding one fails with it. The full rounds still try them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from astreduce.reduce.unexecuted import member_key, statement_key
from astreduce.search.strategies import Plan, statement_levels
from astreduce.source.tree import Tree, is_statement
from astreduce.transforms import Opportunity, Transform


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


def sweep_plans(plan: Plan, strategy: str) -> list[Plan]:
    """The first rounds' cheap plans (shallow statements, then all statements), or none when the strategy is not
    ``auto`` or has no ``delete``."""
    delete = next((t for t in plan.transforms if t.name == "delete"), None)
    if strategy != "auto" or delete is None:
        return []
    return [
        Plan.of(
            [StatementDeletion(delete, deepest)], rounds=1, extras=False, parse=plan.parse, foreign_parser=plan.foreign_parser,
            exhaustive=plan.exhaustive,
        )
        for deepest in (SHALLOW_SWEEP, None)
    ]


def narrowed(plan: Plan, needed: frozenset[str]) -> Plan:
    """A sweep's plan for one file that proposes none of the module's statements ``needed`` (their keys): the run
    reads what they bind, so deleting one alone fails for sure, and a chunk holding one fails with it."""
    if not any(isinstance(t, StatementDeletion) for t in plan.transforms):
        return plan
    return replace(plan, transforms=tuple(
        StatementDeletion(t.inner, t.deepest, needed) if isinstance(t, StatementDeletion) else t for t in plan.transforms
    ))
