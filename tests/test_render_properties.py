"""The renderer without known bugs (#19): every single proposal on random programs parses, and keeps comments.

Programs come from pysource-codegen (seeded), with a comment ``# cN`` added
at the end of every logical line. For every transform, every single
proposal is rendered alone, and

* the candidate parses (the tree model and the renderer never write broken
  text, whatever the transform asks for);
* a line that survives keeps its comment: a line of the program whose code
  is unique in it must not reappear in the candidate without the comment it
  had (``x = [1]  # keep me`` lost its comment when the statement after it,
  the last of its block, was dropped).
"""

from __future__ import annotations

import io
import tokenize
import warnings

import pytest
from test_transforms import parses

from astreduce.search.unit_passes import splice_text
from astreduce.source.render import NodeReducer
from astreduce.source.tree import parse_or_none
from astreduce.transforms import TextTransform, load_transforms

pysource_codegen = pytest.importorskip("pysource_codegen")

PROGRAMS = 60  # every proposal of each, rendered and parsed (120 took 14 s of a worker)
CHUNKS = 4
#: value-from-trace runs each program to record values: random programs may loop until its timeout.
UNTRACED = frozenset({"value-from-trace"})


def commented(seed: int) -> str | None:
    """A random program with ``  # cN`` at the end of each logical line N (or None if it does not parse here)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = pysource_codegen.generate(seed, node_limit=100, depth_limit=5)
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    lines = text.splitlines(keepends=True)
    for token in reversed(tokens):
        if token.type == tokenize.NEWLINE and token.string:
            row, column = token.start
            line = lines[row - 1]
            lines[row - 1] = line[:column] + f"  # c{row}" + line[column:]
    out = "".join(lines)
    return out if parse_or_none(out) is not None else None


def unique_code_lines(text: str) -> dict[str, str]:
    """Code (stripped, without its comment) → comment, for lines whose code occurs once and is not ``pass``."""
    counts: dict[str, int] = {}
    comments: dict[str, str] = {}
    for line in text.splitlines():
        code, marker, comment = line.rpartition("  # c")
        if not marker:
            continue
        code = code.strip()
        counts[code] = counts.get(code, 0) + 1
        comments[code] = "# c" + comment
    return {code: comment for code, comment in comments.items() if counts[code] == 1 and code != "pass"}


def lost_comments(original: dict[str, str], candidate: str) -> list[str]:
    return [line for line in candidate.splitlines() if line.strip() in original]


TRANSFORMS = [t for t in load_transforms() if t.name not in UNTRACED]


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_every_single_proposal_parses_and_keeps_comments(chunk: int) -> None:
    broken: list[str] = []
    checked = proposals = 0
    for seed in range(chunk * PROGRAMS // CHUNKS, (chunk + 1) * PROGRAMS // CHUNKS):
        text = commented(seed)
        if text is None:
            continue
        tree = parse_or_none(text)
        assert tree is not None
        checked += 1
        reducer = NodeReducer(tree)
        unique = unique_code_lines(text)
        for transform in TRANSFORMS:
            if isinstance(transform, TextTransform):
                candidates = [splice_text(text, list(o.edits)) for o in transform.text_opportunities(tree)]
            else:
                candidates = [reducer.render(o.edits) for o in transform.opportunities(tree)]
            proposals += len(candidates)
            for candidate in candidates:
                if not parses(candidate):
                    broken.append(f"seed {seed}, {transform.name}: does not parse:\n{candidate}")
                elif lost := lost_comments(unique, candidate):
                    broken.append(f"seed {seed}, {transform.name}: lost the comment of {lost}:\n{candidate}")
    assert checked >= PROGRAMS // CHUNKS // 2
    assert proposals > 0
    assert not broken, f"{len(broken)} of {proposals} proposals:\n" + "\n---\n".join(broken[:5])
