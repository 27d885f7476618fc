"""What keeps a result the input's bug, for every job: the same place, and candidates that parse.

An oracle says whether a candidate fails *as* the original did; two checks
say whether it is still the *same* failure, and every job (one file, a
tree, a pytest node, a batch's bucket, the API) puts them around its
calibrated oracle with :func:`guard`:

* :class:`~astreduce.oracles.place.SamePlace`: the failure happens at the
  original's place (unless ``--anywhere``);
* :class:`~astreduce.oracles.parsing.ParsingOnly`: a candidate that does not
  parse is not interesting when the input parses, for an oracle that does not
  run the candidate as a Python program and match its exception (that one
  judges a syntax error UNRESOLVED itself, unless the target is one).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

from astreduce.oracles import Oracle, Verdict
from astreduce.oracles.options import OracleOptions
from astreduce.oracles.parsing import ParsingOnly, syntax_rule
from astreduce.oracles.place import Place, SamePlace, place_of
from astreduce.source.origins import Lineage

#: The candidates: a text, or a tree of files.
C = TypeVar("C")

__all__ = ["Guarded", "guard"]

#: How a syntax error's type starts a target's description.
_SYNTAX_ERRORS = ("SyntaxError", "IndentationError", "TabError")


@dataclass(frozen=True)
class Guarded(Generic[C]):
    """A job's oracle with its guards, the original's place (None: none, or not checked) and what to tell the user."""

    oracle: Oracle[C]
    place: Place | None
    note: str
    checks: tuple[Callable[[C, Verdict], Verdict], ...] = ()
    """The guards' judgements, innermost first: what :meth:`judged` applies to another judge's verdict."""

    def judged(self, judge: Callable[[C], Verdict]) -> Callable[[C], Verdict]:
        """``judge`` (another way of running the oracle, such as a plain pytest run) with the same guards."""
        def guarded(candidate: C) -> Verdict:
            verdict = judge(candidate)
            for check in self.checks:
                verdict = check(candidate, verdict)
            return verdict

        return guarded


def guard(
    oracle: Oracle[C], *, options: OracleOptions, lineage: Lineage, tree_of: Callable[[C], Mapping[str, str]],
    parses: Callable[[str], bool], python_files: Callable[[str], bool] = lambda path: True,
) -> Guarded[C]:
    """``oracle`` (calibrated on ``lineage.original``) with the checks of the module docstring.

    Args:
        options: ``--anywhere`` and ``--allow-syntax-errors``.
        lineage: the origins of the reduction's improvements (the job moves it on with each one).
        tree_of: a candidate as a tree of files (a text: one file, under the input's name).
        parses: whether a text parses, under the candidates' interpreter's grammar.
        python_files: which paths of the tree are Python (only those are checked).
    """
    traits = oracle.traits
    original = lineage.original
    checked = frozenset(path for path, text in original.items() if python_files(path) and parses(text))
    syntax_target = traits.target.split("(", 1)[0].rsplit(".", 1)[-1] in _SYNTAX_ERRORS
    must, note = syntax_rule(
        allowed=options.allow_syntax_errors, syntax_target=syntax_target,
        input_parses=bool(checked) and len(checked) == sum(1 for path in original if python_files(path)),
    )
    guarded: Oracle[C] = oracle
    checks: list[Callable[[C, Verdict], Verdict]] = []
    if must and traits.python is None and checked:
        parsing = ParsingOnly(guarded, parses, tree_of, checked)
        guarded = parsing
        checks.append(parsing.gated)
    place = None if options.anywhere else place_of(traits.raised_at, lineage, original)
    if place is not None:
        same = SamePlace(guarded, place, lineage, tree_of)
        guarded = same
        checks.append(same.placed)
        note += f"; failing at {place.describe()}"
    elif options.anywhere:
        note += "; failing anywhere (--anywhere)"
    return Guarded(guarded, place, note, tuple(checks))
