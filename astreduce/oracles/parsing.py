"""Candidates that parse: a result that does not parse is not the input's bug, whatever the oracle says.

A tool that rejects any file it cannot parse (black, a linter, a type
checker) ends the same way on ``if :`` as on the real crash when the oracle
only asks for its exit status: the reduction then "succeeds" with a syntax
error. So when the input parses, :class:`ParsingOnly` turns the FAIL of a
candidate that does not (for a tree: any of its Python files that parsed
at first) into UNRESOLVED, and says so in its traits, so that the text
passes propose no such candidate. It does not apply when the target is a
syntax error, when the input does not parse, or with
``--allow-syntax-errors``; :func:`syntax_rule` says which, for the run's
first line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TypeVar

from astreduce.oracles import Converted, Oracle, Pending, Traits, Verdict, Wrapper
from astreduce.outcome import Outcome

#: The candidates: a text, or a tree of files.
C = TypeVar("C")

__all__ = ["ParsingOnly", "syntax_rule"]

#: Texts whose parse :class:`ParsingOnly` remembers (a tree's files that did not change are asked again).
_REMEMBERED = 4096


def syntax_rule(*, allowed: bool, syntax_target: bool, input_parses: bool) -> tuple[bool, str]:
    """Whether candidates must parse, and the words that say so on the run's first line."""
    if allowed:
        return False, "candidates may have syntax errors (--allow-syntax-errors)"
    if syntax_target:
        return False, "candidates may have syntax errors (the target is one)"
    if not input_parses:
        return False, "candidates may have syntax errors (the input has one)"
    return True, "candidates must parse, as the input does (--allow-syntax-errors lifts this)"


class ParsingOnly(Wrapper[C]):
    """FAIL only for a candidate whose Python files parse (see the module docstring).

    Args:
        inner: the calibrated oracle.
        parses: whether a text parses (under the candidates' interpreter's grammar).
        files_of: a candidate's files, by path (a text: one file).
        checked: the paths that must parse (those that parsed in the input).
    """

    def __init__(
        self, inner: Oracle[C], parses: Callable[[str], bool], files_of: Callable[[C], Mapping[str, str]],
        checked: frozenset[str],
    ) -> None:
        super().__init__(inner)
        self.parses = parses
        self.files_of = files_of
        self.checked = checked
        self.rejected = 0
        """FAILs turned UNRESOLVED because a file did not parse."""
        self._known: dict[str, bool] = {}

    @property
    def identity(self) -> str:
        return f"{self.inner.identity}|parsing"

    @property
    def traits(self) -> Traits:
        return super().traits.passed_on(unparsable=False)

    def start(self, candidate: C) -> Pending:
        return Converted(self.inner.start(candidate), lambda verdict: self.gated(candidate, verdict))

    def judge(self, candidate: C) -> Verdict:
        return self.gated(candidate, self.inner.judge(candidate))

    def gated(self, candidate: C, verdict: Verdict) -> Verdict:
        """``verdict``, a FAIL turned UNRESOLVED when a file that must parse does not."""
        if verdict.outcome is not Outcome.FAIL:
            return verdict
        files = self.files_of(candidate)
        broken = next((path for path in sorted(self.checked) if path in files and not self._parses(files[path])), None)
        if broken is None:
            return verdict
        self.rejected += 1
        return Verdict(Outcome.UNRESOLVED, replace(verdict.run, rejected=f"{broken} does not parse"))

    def _parses(self, text: str) -> bool:
        known = self._known.get(text)
        if known is None:
            known = self._known[text] = self.parses(text)
            if len(self._known) > _REMEMBERED:
                del self._known[next(iter(self._known))]
        return known
