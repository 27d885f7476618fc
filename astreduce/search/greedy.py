"""Searches over a keep-list: which of a pass's opportunities to apply.

A pass (:mod:`astreduce.search.strategies`) finds ``count`` opportunities on
one parse of the current best and a ``render`` that turns a set of them into
a candidate text; a search picks the set to apply by asking the session
which candidates FAIL. :func:`apply_greedily` is astreduce's own search,
:func:`apply_by_dd` the literature's (CDD by default, ddmin in :func:`apply_by_ddmin`).

Invariants the greedy search keeps:

* **Progress is deterministic.** Candidates are tested in a fixed order
  derived from the opportunities only, and handed to the session in that
  order; with ``-j`` > 1 the scheduler may run them ahead, but the first
  FAIL in that order wins, so the applied set does not depend on ``-j``.
* **Indices stay valid after a success.** Opportunities are numbered once
  per pass; a FAIL only adds indices to the applied set, and every later
  candidate is rendered from the same tree with that set, so no index moves.
* **Big changes first.** All of the open opportunities at once, then halves,
  then single ones; each chunk that FAILs is kept.
* **Batches that adapt.** Chunks halve while they still apply; a level of
  four chunks or more that applies nothing goes straight to single ones. A
  pass whose chunks of several opportunities have almost never applied in
  this reduction (:meth:`Memory.chunks_pay`) starts with single ones: like
  CDD's skipped complements, those tests rarely succeed.
  Singles whose change (:func:`change_key`) already failed alone are parked
  and tried once, together, at the end: later rounds test what changed. A
  confirming round tests a parked deletion again only if a name it touches
  occurs more or less often than when it failed (:func:`names_key`).
"""

from __future__ import annotations

import hashlib
import keyword
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Literal, Protocol

from astreduce.dd.minimise import DEFAULT, minimise
from astreduce.errors import DDPreconditionError
from astreduce.outcome import Outcome
from astreduce.search.session import Session
from astreduce.source.difference import common_length


#: A pass family's chunk tests start to count once there are this many of them ...
CHUNK_TRIES = 4
#: ... and chunks are skipped while fewer than one in this many FAILed.
CHUNK_ODDS = 8


def _family(name: str) -> str:
    """A pass's family: ``hoist-expression #3`` → ``hoist-expression``, ``delete, depth 4`` → ``delete``."""
    return name.split(",")[0].split(" #")[0]


@dataclass
class Memory:
    """What the greedy searches of one strategy's run remember from pass to pass (the strategy owns it).

    ``stale``: the change keys (:func:`change_key`) of single edits that did
    not FAIL alone, each with what its names looked like then
    (:func:`names_key`), parked in later passes; ``chunks``: per pass family,
    its tests of chunks of several opportunities and how many FAILed.
    """

    retry_stale: bool = False
    """Test stale single edits one by one again (``--exhaustive``): slower, 1-minimal in every round."""
    stale: dict[bytes, bytes] = field(default_factory=dict)
    chunks: dict[str, tuple[int, int]] = field(default_factory=dict)
    outside: Counter[str] = field(default_factory=Counter)
    """How often names occur where the program goes on (a tree's files related to this one): counted with the
    text's own in :func:`names_key`, so that a use gone in another file makes its definition's deletion new."""

    def chunks_pay(self, pass_name: str) -> bool:
        """Whether a pass should try chunks of several opportunities first: not once :data:`CHUNK_TRIES`
        of its family's applied fewer than one in :data:`CHUNK_ODDS`."""
        tries, successes = self.chunks.get(_family(pass_name), (0, 0))
        return tries < CHUNK_TRIES or successes * CHUNK_ODDS >= tries

    def count_chunks(self, pass_name: str, tries: int, success: bool) -> None:
        """Record a pass's chunk tests (see :meth:`chunks_pay`)."""
        if tries:
            old = self.chunks.get(_family(pass_name), (0, 0))
            self.chunks[_family(pass_name)] = (old[0] + tries, old[1] + success)


@dataclass(frozen=True)
class _Level:
    """Where a greedy search stands: one chunk size over the opportunities still open."""

    applied: frozenset[int]
    parked: frozenset[int]
    chunk: int
    remaining: tuple[int, ...]
    keys: dict[int, bytes]
    """Change keys of single opportunities (chunk 1 only), for parking stale ones."""
    names: dict[int, bytes] = field(default_factory=dict, compare=False)
    """What the names each single opportunity touches look like in the program (:func:`names_key`)."""
    changed: bool = False
    position: int = 0
    texts: dict[int, str] = field(default_factory=dict, compare=False)
    """The candidates of single opportunities, rendered for their keys: tested as they are while ``applied`` is unchanged."""


@dataclass(frozen=True)
class _Step:
    """One candidate of a greedy search: chunk ``start`` of ``level``, or all its parked ones at once."""

    level: _Level
    start: int = 0
    parked: bool = False

    def stale_key(self) -> bytes | None:
        if self.parked or not self.level.keys:
            return None
        return self.level.keys[self.level.remaining[self.start]]

    def names_key(self) -> bytes:
        return self.level.names[self.level.remaining[self.start]]


#: Which stale single opportunities a greedy search parks: every one (``"stale"``), those whose
#: names are as they were when they failed (``"unchanged"``: a confirming round), or none.
Parking = Literal["stale", "unchanged", "never"]


def apply_greedily(
    session: Session, count: int, render: Callable[[frozenset[int]], str], park: Parking = "stale", repeat: bool = True,
    lookahead: Callable[[str], str | None] | None = None, memory: Memory | None = None,
) -> frozenset[int]:
    """Apply as many of ``count`` opportunities as the oracle allows; return the applied set.

    Chunks of the not-yet-applied opportunities are tried in order, from all
    of them at once down to single ones; each FAIL is kept. Candidates are
    handed to the session lazily in the order a sequential search would test
    them, assuming the earlier ones fail, through every chunk size up to the
    search's end in one stream, so a parallel executor can run ahead across
    levels and only a FAIL makes it start over.

    Single opportunities whose change (the changed lines with two lines of
    context, see :func:`change_key`) already failed alone earlier in the
    reduction are *stale* (``memory`` remembers them, from pass to pass: none
    without one): they are not tested one by one again but once, all
    together, at the end of the search (unless ``park`` is false or
    ``memory.retry_stale``). Later rounds of ``auto`` thus test what changed,
    not the whole program again. Deleting a use far away is what lets a
    definition go, so deletions that park must be confirmed: ``auto`` follows
    a round that changed nothing with one that parks only the deletions whose
    names are as they were when they failed (``park="unchanged"``, see
    :func:`names_key`), and stops only when that one changes nothing too
    (parking them without it cost stdlib_argparse 5% more tokens).
    ``park="never"`` tests every single one again (``--exhaustive``).

    The sweep of single opportunities repeats while one applies, unless
    ``repeat`` is false: then the search ends after one sweep, for a caller
    that runs the pass again anyway until nothing applies (``auto``'s rounds).

    ``lookahead``, given by a strategy that knows its next pass, maps the text
    this pass would end with to that pass's first candidate: the scheduler
    starts it while this pass's last tests run.
    """
    memory = memory if memory is not None else Memory()
    parking: Parking = "never" if memory.retry_stale else park
    pass_name = session.pass_name

    def is_stale(key: bytes, names: bytes, stale: set[bytes]) -> bool:
        if key in stale:
            return True
        if key not in memory.stale:
            return False
        return parking == "stale" or memory.stale[key] == names

    def enter(applied: frozenset[int], parked: frozenset[int], chunk: int, stale: set[bytes]) -> _Level | None:
        remaining = [i for i in range(count) if i not in applied and i not in parked]
        if not remaining:
            return None
        chunk = max(1, min(chunk, len(remaining)))
        keys: dict[int, bytes] = {}
        names: dict[int, bytes] = {}
        texts: dict[int, str] = {}
        if chunk == 1:
            base_text = render(applied)
            texts = {i: render(applied | {i}) for i in remaining}
            counts = name_counts(base_text)
            for i in remaining:
                keys[i], removed = _change(base_text, texts[i])
                names[i] = names_key(counts, removed, memory.outside)
            if parking != "never":
                parked = parked | {i for i in remaining if is_stale(keys[i], names[i], stale)}
                remaining = [i for i in remaining if i not in parked]
            texts = {i: texts[i] for i in remaining} if len(base_text) * len(remaining) <= _KEPT_TEXT else {}
        return _Level(applied, parked, chunk, tuple(remaining), keys, names, texts=texts)

    def next_chunk(level: _Level) -> int:
        """The chunk size a search goes on with when nothing more of ``level`` applies (0: it ends)."""
        if level.chunk == 1 and (not level.changed or not repeat):
            return 0
        # halving pays while chunks still apply; once a level of several chunks
        # applies nothing, halves rarely do either: go straight to single elements
        chunks = -(-len(level.remaining) // level.chunk)
        return 1 if not level.changed and chunks >= 4 else max(1, level.chunk // 2)

    def after(level: _Level, stale: set[bytes]) -> _Level | None:
        """The level a search goes on with when nothing more of ``level`` applies."""
        chunk = next_chunk(level)
        return enter(level.applied, level.parked, chunk, stale) if chunk else None

    def stream(level: _Level, steps: list[_Step]) -> Iterator[str]:
        stale: set[bytes] = set()  # singles passed earlier in this stream: stale if it gets that far
        last = level
        current: _Level | None = level
        while current is not None:
            last = current
            for start in range(current.position, len(current.remaining), current.chunk):
                step = _Step(current, start)
                steps.append(step)
                key = step.stale_key()
                if key is not None:
                    stale.add(key)
                if current.texts and current.position == 0 and not current.changed:  # applied is still enter()'s
                    yield current.texts[current.remaining[start]]
                else:
                    yield render(current.applied | frozenset(current.remaining[start : start + current.chunk]))
            current = after(current, stale)
        if last.parked:
            steps.append(_Step(last, parked=True))
            yield render(last.applied | last.parked)

    def failed(step: _Step) -> _Level:
        """Where the search goes on when ``step`` FAILs."""
        level = step.level
        chunk = level.remaining[step.start : step.start + level.chunk]
        return replace(level, applied=level.applied | frozenset(chunk), changed=True, position=step.start + level.chunk)

    def if_fails(steps: list[_Step], index: int) -> Iterator[str]:
        """The next candidates if step ``index`` FAILs, lazily, as far as they are cheap to know
        (up to a level of single opportunities, whose change keys would have to be computed)."""
        if steps[index].parked:
            return
        level: _Level | None = failed(steps[index])
        while level is not None:
            for start in range(level.position, len(level.remaining), level.chunk):
                yield render(level.applied | frozenset(level.remaining[start : start + level.chunk]))
            level = after(level, set()) if next_chunk(level) > 1 else None

    level = enter(frozenset(), frozenset(), count if not park or memory.chunks_pay(pass_name) else 1, set())
    while level is not None:
        steps: list[_Step] = []
        found = session.first_failing(
            stream(level, steps),
            lambda index: if_fails(steps, index),
            None if lookahead is None else partial(_looking_ahead, lookahead, render, level.applied),
        )
        tried = steps if found is None else steps[:found]
        for step in tried:
            key = step.stale_key()
            if key is not None:
                memory.stale[key] = step.names_key()
        memory.count_chunks(
            pass_name,
            sum(1 for step in steps[: len(tried) + 1] if not step.parked and step.level.chunk > 1),
            found is not None and not steps[found].parked and steps[found].level.chunk > 1,
        )
        if found is None:
            return level.applied
        step = steps[found]
        if step.parked:
            return step.level.applied | step.level.parked
        level = failed(step)
    return frozenset()


#: At most this many characters of single-opportunity candidates are kept per search level.
_KEPT_TEXT = 64 << 20


def _looking_ahead(
    lookahead: Callable[[str], str | None], render: Callable[[frozenset[int]], str], applied: frozenset[int]
) -> str | None:
    return lookahead(render(applied))


def apply_greedily_confirming(
    session: Session, count: int, render: Callable[[frozenset[int]], str], repeat: bool = True,
    lookahead: Callable[[str], str | None] | None = None, memory: Memory | None = None,
) -> frozenset[int]:
    """:func:`apply_greedily` testing again every stale single opportunity whose names changed
    since it failed: for deletions and other edits that a change far away makes possible."""
    return apply_greedily(session, count, render, park="unchanged", repeat=repeat, lookahead=lookahead, memory=memory)


def sweeping_once(search: Callable[..., frozenset[int]], memory: Memory) -> LookingAhead:
    """``search`` (:func:`apply_greedily` or :func:`apply_greedily_confirming`) with one
    sweep of single opportunities, remembering in ``memory``: for ``auto``'s passes, which its rounds
    repeat to a fixpoint.

    A second sweep within the pass tests every opportunity left again, and
    finds what the next round would find: on the corpora the repeated sweeps
    were about a fifth of all tests (stdlib_json_decoder 1,763 -> 1,315),
    with the same outputs.
    """
    return partial(search, repeat=False, memory=memory)


def change_key(before: str, after: str, context: int = 2) -> bytes:
    """A digest of how ``after`` differs from ``before``: the changed lines with ``context`` lines around.

    Equal keys mean the same local edit in the same surroundings, wherever the
    rest of the program has changed since.
    """
    return _change(before, after, context)[0]


def _change(before: str, after: str, context: int = 2) -> tuple[bytes, str]:
    """:func:`change_key`, and the text of ``before`` that the change replaces."""
    limit = min(len(before), len(after))
    prefix = common_length(before, after, limit)
    suffix = common_length(before, after, limit - prefix, from_end=True)
    start = before.rfind("\n", 0, prefix) + 1  # the changed line's start
    for _ in range(context):
        start = before.rfind("\n", 0, start - 1) + 1 if start > 0 else 0
    end_before, end_after = len(before) - suffix, len(after) - suffix
    tail = end_before
    for _ in range(context + 1):
        found = before.find("\n", tail)
        tail = len(before) if found < 0 else found + 1
    extra = tail - end_before
    digest = hashlib.blake2b(digest_size=16)
    digest.update(before[start:tail].encode("utf-8", "surrogateescape"))
    digest.update(b"\0")
    digest.update(after[start : end_after + extra].encode("utf-8", "surrogateescape"))
    return digest.digest(), before[prefix:end_before]


_NAME = re.compile(r"[^\W\d]\w*")
_KEYWORDS = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist)
#: Names used more often than this say nothing about one edit (``self``, ``len``): left out of :func:`names_key`.
COMMON_NAME = 24


def name_counts(text: str) -> Counter[str]:
    """How often each name occurs in ``text`` (a word count: strings and comments included)."""
    return Counter(_NAME.findall(text))


def names_key(counts: Counter[str], removed: str, outside: Counter[str] | None = None) -> bytes:
    """A digest of how often the names in ``removed`` occur in the whole program (``counts``, and ``outside``:
    the files around this one, counted once a round rather than added to every level's count).

    A deletion that failed may apply once a change far away has touched one of
    its names: its definition's last use gone, its value no longer read. One
    whose names occur as often as they did when it failed is unlikely to (a
    confirming round parks it); names used everywhere are left out, or every
    change would count.
    """
    digest = hashlib.blake2b(digest_size=16)
    for name in sorted(set(_NAME.findall(removed)) - _KEYWORDS):
        count = counts[name] + outside[name] if outside else counts[name]
        if count <= COMMON_NAME:
            digest.update(f"{name}:{count};".encode("utf-8", "surrogateescape"))
    return digest.digest()


def apply_by_dd(
    session: Session, count: int, render: Callable[[frozenset[int]], str], algorithm: str = DEFAULT
) -> frozenset[int]:
    """The literature's way: a minimiser (:mod:`astreduce.dd.minimise`; CDD unless told
    otherwise) minimises the keep-list; the rest is applied."""
    everything = frozenset(range(count))

    def text_of(kept: Sequence[int]) -> str:
        return render(everything - frozenset(kept))

    def test(kept: Sequence[int]) -> Outcome:
        return session.outcome(text_of(kept))

    def batch(configs: list[Sequence[int]]) -> Iterator[Outcome]:
        return session.outcomes(text_of(c) for c in configs)

    try:
        result = minimise(list(range(count)), test, algorithm, batch=batch)
    except DDPreconditionError:  # the current text no longer fails: nothing to apply
        return frozenset()
    return everything - frozenset(result.failing)


def apply_by_ddmin(session: Session, count: int, render: Callable[[frozenset[int]], str]) -> frozenset[int]:
    """:func:`apply_by_dd` with ddmin itself: the literature's baseline for comparisons."""
    return apply_by_dd(session, count, render, "ddmin")


#: A search over a keep-list: (session, number of opportunities, render) -> the applied set.
Search = Callable[[Session, int, Callable[[frozenset[int]], str]], frozenset[int]]


class LookingAhead(Protocol):
    """A :data:`Search` that can also be told the next pass's first candidate (``auto``'s passes)."""

    def __call__(
        self, session: Session, count: int, render: Callable[[frozenset[int]], str], *,
        lookahead: Callable[[str], str | None] | None = None,
    ) -> frozenset[int]: ...
