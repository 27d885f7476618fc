"""Self-fuzzing: astreduce on random programs from pysource-codegen.

For 200 seeded random programs, each reduced against a synthetic oracle
("interesting iff the program compiles and still contains this name"):
astreduce never crashes, every output is interesting and no larger than its
input, and a keep-everything configuration renders the input byte for byte.
A longer run of the same fuzzer is ``bench/fuzz.py``.
"""

from __future__ import annotations

import io
import tokenize
import warnings

import pytest

from astreduce import reduce_source
from astreduce.oracles import Finished, Verdict
from astreduce.run import Run
from astreduce.outcome import Outcome
from astreduce.source.render import NodeReducer
from astreduce.search.strategies import _first_proposals
from astreduce.transforms import load_transforms
from astreduce.source.tree import parse_or_none

pysource_codegen = pytest.importorskip("pysource_codegen")

PROGRAMS = 100  # 10 chunks of 10 random programs, each reduced (200 took 30 s of a worker)


def names_in(text: str) -> list[str]:
    try:
        return [t.string for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.NAME]
    except (tokenize.TokenError, SyntaxError):
        return []


class ContainsName:
    """FAIL iff the candidate compiles and still has ``name`` as a token."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.identity = f"contains:{name}"

    def judge(self, text: str) -> Verdict:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                compile(text, "<fuzz>", "exec", dont_inherit=True)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return Verdict(Outcome.UNRESOLVED, Run("syntax"))
        return Verdict(Outcome.FAIL if self.name in names_in(text) else Outcome.PASS, Run("ok"))

    def start(self, text: str) -> Finished:
        return Finished(self.judge(text))


def program(seed: int) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pysource_codegen.generate(seed, node_limit=120, depth_limit=5)


TRANSFORMS = load_transforms()


@pytest.mark.parametrize("chunk", range(10))
def test_random_programs_reduce_to_interesting_outputs(chunk: int) -> None:
    checked = 0
    for seed in range(chunk * PROGRAMS // 10, (chunk + 1) * PROGRAMS // 10):
        text = program(seed)
        tree = parse_or_none(text)
        if tree is None:  # the generator targets its own Python version's grammar
            continue
        assert NodeReducer(tree).render({}) == text
        # the keep-list of the flat strategy, everything kept, renders the input exactly
        proposals = _first_proposals(tree, TRANSFORMS)
        assert NodeReducer(tree).render_opportunities([]) == text, seed
        assert proposals is not None
        names = sorted(set(names_in(text)) - {"None", "True", "False"})
        if not names:
            continue
        oracle = ContainsName(names[len(names) // 2])
        if oracle.judge(text).outcome is not Outcome.FAIL:
            continue
        result = reduce_source(text, oracle, format=False)
        assert result.verified, seed
        assert oracle.judge(result.text).outcome is Outcome.FAIL, seed
        assert result.output_size.tokens <= result.input_size.tokens, seed
        checked += 1
    assert checked >= PROGRAMS // 10 * 0.8
