"""``auto``'s schedule, written as data: when each transform's proposals are tried, and how.

Transforms only propose. Which phase of a round a transform's passes run
in, in what order within the phase, and how a pass is searched is the
search's policy, and it is this table: the strategy reads it and tests no
transform's name. A transform added to ``transforms/`` gets one row here;
one without a row is a load error naming it (a transform of another
package adds its row when its module loads, :data:`DEFAULT_ROW` if nothing
more is needed).

A round runs the phases in :data:`PHASES` order, but for the ``last``
phase: its transforms edit the text's tokens (``TextTransform``: renaming),
which keeps the program's structure and so cannot enable the passes of a
round; they run once, after the rounds, in their order here. Within a phase the
transforms run by priority (higher first), then by name. A row's
``passes`` say what passes its proposals make:

* ``statements``: hierarchical statement deletion, module level first,
  then each nesting level (HDD's levels);
* ``elements``: deletion of the other elements, depth by depth;
* ``ranked``: one pass per rank of proposals (a transform's first choice
  everywhere, then its second...).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from astreduce.errors import TransformLoadError


@dataclass(frozen=True)
class Phase:
    """One phase of an ``auto`` round."""

    name: str
    cascading: bool = False
    """Whether its edits often become possible through a change far away (a definition goes once its
    last use has): its passes park stale single edits only until a confirming round tests them again."""
    after_rounds: bool = False
    """Whether its transforms run once, after the rounds, rather than in each round: the phase of the
    text transforms, and theirs only."""
    swept: bool = False
    """Whether a tree's last sweep runs its passes in every file before any file gets the other phases:
    the phases whose edits take off the most tokens a test (on pint, through the whole reduction:
    deletions 0.7 to 5 tokens a test, inlining and hoisting 0.5 to 33, against 0.3 for hoisting an
    expression and 0.03 for a constant)."""


#: The phases of one round, in order.
PHASES: tuple[Phase, ...] = (
    Phase("delete", cascading=True, swept=True),
    Phase("definitions", cascading=True, swept=True),
    Phase("classic", swept=True),
    Phase("hoist", swept=True),
    Phase("expressions"),
    Phase("simplify"),
    Phase("last", after_rounds=True),
)


@dataclass(frozen=True)
class Row:
    """One transform's place in the schedule."""

    phase: str = "expressions"
    priority: int = 0
    """Within a phase, higher runs first (then by name)."""
    passes: tuple[str, ...] = ("ranked",)
    """The passes its proposals make: ``statements``, ``elements``, ``ranked`` (see the module)."""
    far_reaching: bool = False
    """Whether a proposal that failed may later apply through a change far away (as a deletion does once
    the last use goes): searched as a cascading phase's are, confirmed in a confirming round."""
    slow: bool = False
    """Whether its passes take off little a test in a phase whose others take off much (under 0.3 tokens a test
    over a whole reduction of pint, against 0.5 to 33): left out of a tree's last sweep (:func:`swept`)."""
    fallback_ranks: bool = False
    """Whether the proposals after the first are a fallback for where the first does not fit (another
    constant where ``0`` has the wrong type): tried only in a confirming round, once the other passes are
    at their fixpoint."""

    @property
    def cascading(self) -> bool:
        """Whether its passes are searched as deletions are (see :attr:`Phase.cascading`)."""
        return self.far_reaching or any(p.name == self.phase and p.cascading for p in PHASES)


#: Name → row, one per transform of astreduce's own.
SCHEDULE: dict[str, Row] = {
    # delete: statements by level, then the other elements by depth
    "delete": Row("delete", priority=10, passes=("statements", "elements")),
    "delete-statements": Row("delete", passes=("statements",)),  # a tree's first sweep (reduce/tree.py)
    "delete-with-uses": Row("delete"),
    "drop-else": Row("delete"),
    "drop-uncalled-methods": Row("delete"),
    # definitions: what a program defines, and the names it binds
    "class-to-functions": Row("definitions"),
    "drop-annotation": Row("definitions"),
    "drop-async": Row("definitions"),
    "drop-bases": Row("definitions"),
    "drop-default": Row("definitions", slow=True),
    "drop-docstring": Row("definitions"),
    "drop-returned-position": Row("definitions"),
    "drop-tuple-pair": Row("definitions"),
    "import-to-stub": Row("definitions"),
    "merge-base": Row("definitions"),
    "name-to-constant": Row("definitions"),
    "remove-parameter": Row("definitions"),
    "return-value-drop": Row("definitions", slow=True),
    # classic: the design card's replacements
    "if-to-body": Row("classic", priority=10),
    "assign-to-pass": Row("classic"),
    "assign-to-value": Row("classic", slow=True),
    "boolop-to-operand": Row("classic"),
    "compare-to-bool": Row("classic", slow=True),
    # hoist: a block or a call replaced by what it holds
    "function-to-body": Row("hoist", priority=5),
    "inline-call": Row("hoist", priority=5),
    "hoist-block": Row("hoist"),
    "inline-variable": Row("hoist"),
    "loop-to-body": Row("hoist", slow=True),
    "statement-to-expression": Row("hoist", slow=True),
    "try-to-body": Row("hoist"),
    "with-to-body": Row("hoist"),
    # expressions
    "filter-to-element": Row("expressions"),
    "fstring-to-string": Row("expressions"),
    "hoist-expression": Row("expressions"),
    # simplify: smaller values
    # a value is the run's: a change anywhere may make it the one needed
    "value-from-trace": Row("simplify", priority=5, far_reaching=True),
    "drop-parentheses": Row("simplify"),
    "shorten-string": Row("simplify"),
    "simplify-number": Row("simplify"),
    # the second constant: 1,343 tests for 6 tokens on the corpora when tried every round
    "to-constant": Row("simplify", fallback_ranks=True),
    # last: shorter names, once the rounds are over
    "rename": Row("last"),
}

#: The row another package's transform may add for itself when nothing more is needed: its opportunities
#: ranked, in the expressions phase.
DEFAULT_ROW = Row()


def row(name: str) -> Row:
    """The schedule's row for the transform ``name``.

    Raises:
        TransformLoadError: the schedule has no row for it (a transform must say when it runs).
    """
    found = SCHEDULE.get(name)
    if found is None:
        raise TransformLoadError(
            f"transform {name!r} has no row in the schedule: add one (astreduce.search.schedule.SCHEDULE[{name!r}] = Row(...))"
        )
    return found


class Named(Protocol):
    @property
    def name(self) -> str: ...


N = TypeVar("N", bound=Named)


def ordered(transforms: Iterable[N]) -> list[N]:
    """``transforms`` in the order of a round: by phase, then priority (higher first), then name."""
    order = {phase.name: index for index, phase in enumerate(PHASES)}

    def key(transform: N) -> tuple[int, int, str]:
        scheduled = row(transform.name)
        return order.get(scheduled.phase, len(PHASES)), -scheduled.priority, transform.name

    return sorted(transforms, key=key)


def after_rounds(name: str) -> bool:
    """Whether the transform ``name`` runs once after the rounds (its row's phase says so)."""
    return any(phase.after_rounds and phase.name == row(name).phase for phase in PHASES)


def swept(name: str) -> bool:
    """Whether the transform ``name`` runs in a tree's last sweep: its row's phase is swept (:attr:`Phase.swept`)
    and the row is not :attr:`Row.slow`."""
    scheduled = row(name)
    return not scheduled.slow and any(phase.swept and phase.name == scheduled.phase for phase in PHASES)


def passes_of(transforms: Sequence[N]) -> list[tuple[str, N]]:
    """The passes of a round, in order: (kind, transform) for every pass kind of every transform's row."""
    return [(kind, transform) for transform in ordered(transforms) for kind in row(transform.name).passes]


__all__ = ["DEFAULT_ROW", "PHASES", "SCHEDULE", "Phase", "Row", "after_rounds", "ordered", "passes_of", "row", "swept"]
