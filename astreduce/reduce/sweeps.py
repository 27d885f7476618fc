"""The first rounds of a tree's reduction: cheap sweeps of statement deletion over every file, level by level.

Before the full strategy runs file by file, every file loses what it can by
deleting statements alone: first down to :data:`SHALLOW_SWEEP` (module level,
class and function bodies), then at every level. The budget goes where the
tokens are across the whole tree, not into the deep levels of the first file.
"""

from __future__ import annotations

from collections.abc import Iterator

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

    def __init__(self, inner: Transform, deepest: int | None = None) -> None:
        self.inner = inner
        self.deepest = deepest

    def opportunities(self, tree: Tree) -> Iterator[Opportunity]:
        levels = statement_levels(tree) if self.deepest is not None else {}
        for opportunity in self.inner.opportunities(tree):
            if is_statement(tree.nodes[opportunity.target].kind) and (self.deepest is None or levels[opportunity.target] <= self.deepest):
                yield opportunity


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
