"""Candidates alike by byte code, keyed at the cost of the change, not of the file.

Two programs with one byte code differ only in layout, comments and what
the compiler folds (parentheses, the spelling of a constant): an oracle
that runs the program in this interpreter (and matches the exception's
type, message and function, never its line) judges them alike, so a
candidate alike one already tested is not tested again.

Compiling a 2,600-line candidate to find its key costs more than the test
it may spare. A module's code is the code of its top-level statements one
after the other, and each statement compiles the same alone: its names at
module level are looked up at run time, its closures do not reach past it.
So :class:`CodeKey` splits a candidate at its top-level statements, keys
each one once (a cache by the statement's text) and joins the keys: a
candidate that changes one function compiles that function's statement,
not the file. A line taken for a statement's start that is not one
(inside a docstring or brackets, after a decorator or a backslash) leaves a
piece that does not compile: it takes the pieces after it until it does. A
text with a ``__future__`` import, which changes how the statements after
it compile, is keyed whole.
"""

from __future__ import annotations

import bisect
import dis
import hashlib
import marshal
import time
import types
import warnings
from collections.abc import Callable
from typing import Any

from astreduce.keys import digest
from astreduce.source.statements import Cut, Recut, class_parts, declares_global, incomplete, member_starts, recut
from astreduce.source.statements import starts as statement_starts

__all__ = ["CodeKey", "code_key"]

#: Statement texts keyed and kept (the oldest is dropped first).
_KEPT = 4096


def _compiled(text: str) -> types.CodeType | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a candidate's odd literals are not our warnings
            return compile(text, "<candidate>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def code_key(text: str) -> bytes | None:
    """A digest of ``text``'s byte code without positions (None if it does not compile), compiled whole."""
    return _whole_key(_compiled(text))


def _whole_key(code: types.CodeType | None) -> bytes | None:
    return None if code is None else _code_digest(code, b"whole")


def _code_digest(code: types.CodeType, kind: bytes, known: dict[int, tuple[types.CodeType, bytes]] | None = None) -> bytes:
    """A digest of what a code object does, its nested code objects included, without line or column
    numbers (``kind`` says what was compiled: a whole text, a statement...).

    Each code object's digest covers its byte code, then its names, flags, counts and constants, with
    a mark of which constants are code objects (their own digests stand in their place) or frozensets
    (whose elements are sorted, however the set iterates): one pass over the constants, marshal's
    format 2 for the rest. ``known`` keeps the digests of code objects seen (by identity, the object
    kept with it): a class whose code is put together from its methods' (see
    :class:`~astreduce.oracles.pieces.ClassCode`) digests the methods it changed.
    """
    return hashlib.blake2b(kind + _one_digest(code, known), digest_size=20).digest()


def _one_digest(code: types.CodeType, known: dict[int, tuple[types.CodeType, bytes]] | None) -> bytes:
    if known is not None:
        seen = known.get(id(code))
        if seen is not None and seen[0] is code:
            return seen[1]
    hashed = hashlib.blake2b(code.co_code, digest_size=20)
    constants: list[object] = []
    kinds = bytearray()  # 0 a value, 1 a code object (its digest), 2 a frozenset, 3 where a class starts
    where = _class_lines(code)
    for index, constant in enumerate(code.co_consts):
        if index in where:
            constants.append(None)
            kinds.append(3)
        elif type(constant) is types.CodeType:
            constants.append(_one_digest(constant, known))
            kinds.append(1)
        elif type(constant) is frozenset:
            constants.append(tuple(sorted(_serialised(v) for v in constant)))
            kinds.append(2)
        else:
            constants.append(constant)
            kinds.append(0)
    hashed.update(
        _serialised(
            (
                code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount, code.co_flags,
                code.co_name, code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars,
                getattr(code, "co_qualname", ""), getattr(code, "co_exceptiontable", b""),
                tuple(constants), bytes(kinds),
            )
        )
    )
    found = hashed.digest()
    if known is not None:
        if len(known) >= _KNOWN_CODES:
            known.clear()
        known[id(code)] = (code, found)
    return found


def _class_lines(code: types.CodeType) -> frozenset[int]:
    """The constants of a class body that only say on which line the class starts (``__firstlineno__``,
    3.13 on): layout, like the line numbers a digest leaves out. One the body also loads elsewhere (an
    equal number) stays: the code that uses it would be hidden too."""
    if "__firstlineno__" not in code.co_names:
        return frozenset()
    loads: dict[int, int] = {}
    stored: set[int] = set()
    previous: dis.Instruction | None = None
    for instruction in dis.get_instructions(code):
        if instruction.opname in ("LOAD_CONST", "RETURN_CONST") and instruction.arg is not None:
            loads[instruction.arg] = loads.get(instruction.arg, 0) + 1
        elif instruction.opname == "STORE_NAME" and instruction.argval == "__firstlineno__" and previous is not None:
            if previous.opname == "LOAD_CONST" and previous.arg is not None:
                stored.add(previous.arg)
        previous = instruction
    return frozenset(index for index in stored if loads[index] == 1)


#: Code objects whose digests a :class:`CodeKey` keeps (all forgotten at once past this many).
_KNOWN_CODES = 16384


def _serialised(value: Any) -> bytes:
    """``value``'s bytes, with its types (``1``, ``1.0`` and ``True`` differ): marshal's format 2 (no
    references, so equal values spell alike whoever holds them)."""
    try:
        return marshal.dumps(value, 2)
    except ValueError:  # a constant marshal does not know (a slice in a newer Python): its spelling
        return repr(value).encode("utf-8", "surrogateescape")


class CodeKey:
    """:func:`code_key` statement by statement, each statement's key computed once per reduction.

    A large class is keyed member by member the same way (each member
    compiled under the class's header, so names mangle and ``super()`` binds
    as in the whole), so a candidate that changes one method of a 38 KB
    class compiles that method, not the class.

    With ``statements`` (the exec oracle's, which keeps each statement's
    code for the tests), every top-level statement, a large class too, is
    keyed by the code its test will run: the oracle compiles it once, for
    both. (On stdlib_argparse a short candidate was compiled whole for its
    key and its test, 1.8 ms a test at ``-j 1``, and a method changed in a
    large class compiled the method for the key and the class for the test.)

    Equal keys mean the same byte code runs, as with :func:`code_key` (a
    statement whose code does nothing, or that follows one that never ends
    normally, is left out, as the whole text's compile drops such code); the
    keys of a text split and of a text compiled whole never meet (each says
    which it is).
    """

    def __init__(
        self, statements: Callable[[str, bool], types.CodeType | None | bool] | None = None, class_from: int = 2048,
    ) -> None:
        self._statements = statements
        self._class_from = class_from
        """Classes this long or longer are keyed member by member (a shorter one compiles faster than it splits)."""
        self.compile_seconds = 0.0
        """Seconds in ``statements``: the oracle's own compile, whose code a test of the candidate runs."""
        self._units: dict[tuple[str, bytes], bytes | None | _Mark] = {}
        self._stops: set[bytes] = set()
        """The keys of statements that never end normally (``raise``): the statements after them are dead code."""
        self.compiled = 0
        """Units (statements, class members) compiled so far (the cache's misses), for benchmarks."""
        self._idle: set[bytes | None | _Mark] = set()
        """The keys of statements whose code does nothing (``pass``, a constant): left out, as what a test runs
        is the same (the whole text's code has no trace of them either)."""
        self._known: dict[int, tuple[types.CodeType, bytes]] = {}
        """The digests of code objects seen, by identity (see :func:`_code_digest`)."""
        self._statement_keys: dict[int, tuple[types.CodeType, bytes]] = {}
        """The keys of statements' code objects seen, by identity: the oracle keeps one per statement text."""
        self._nothing = self._unit_key("")
        self._cut: Cut | None = None
        """The last text's cut into top-level pieces, and each piece's key: the next text's starts from it."""
        self._cut_keys: list[bytes] = []

    def __call__(self, text: str) -> bytes | None:
        if "__future__" in text:
            return code_key(text)
        keys = self._keys_of(text)
        if keys is _WHOLE:
            return code_key(text)
        if not isinstance(keys, list):
            return None
        kept: list[bytes] = []
        for key in keys:
            if key not in self._idle:
                kept.append(key)
            if key in self._stops:  # what follows never runs: the whole text's code drops it
                break
        return _join(b"split", kept)

    def _keys_of(self, text: str) -> list[bytes] | None | _Mark:
        """The keys of ``text``'s top-level statements (pieces), cut from the last text's (see
        :func:`~astreduce.source.statements.recut`): a candidate's pieces before and after its change are
        its base's, and so are their keys; only the changed middle is cut and looked up."""
        cut = self._cut
        again = recut(cut, text) if cut is not None else None
        if cut is not None and again is not None:
            keys = self._cut_keys[: again.head]
            places = list(cut.pieces[: again.head])
            found = self._pieces(text, again.starts, self._module_unit, -1, (keys, places), (again, cut, self._cut_keys))
            starts = [*cut.starts[: bisect.bisect_left(cut.starts, again.starts[0])], *again.starts]
        else:
            starts = statement_starts(text)
            first = 0
            if not starts or starts[0] != 0:  # comments and blank lines before the first statement, or an error
                if self._unit_key(text[: starts[0] if starts else len(text)]) != self._nothing:
                    return _WHOLE
                first = 1
                starts.insert(0, 0)
            keys, places = [], []
            found = self._pieces(text, starts, self._module_unit, first, (keys, places))
        if isinstance(found, list):
            self._cut = Cut(text, tuple(starts), tuple(places))
            self._cut_keys = keys
        return found

    def _module_unit(self, piece: str, first: bool) -> bytes | None | _Mark:
        """A top-level statement's key: only the module's first statement may be its docstring
        ("pass" before the others says so); from the oracle's code for its test, or else a large class
        member by member."""
        if self._statements is not None:  # the test compiles the statement whole anyway: one compile for both
            key = self._statement_key(piece, first)
            if key is not _WHOLE:
                return key
        elif len(piece) >= self._class_from:
            key = self._class_key(piece)
            if key is not _UNSPLIT:
                return key
        return self._unit_key(piece, "" if first else "pass\n")

    def _statement_key(self, piece: str, first: bool) -> bytes | None | _Mark:
        """A top-level statement's key from the code the oracle keeps for its test (:data:`_WHOLE`: the oracle
        says it must be compiled whole, an error or a global name, which :meth:`_unit_key` tells apart).
        The oracle keeps the statement's code by its text, and :func:`_code_digest` knows the digest of a
        code object seen: a statement seen before costs two lookups, no hash of its text here."""
        assert self._statements is not None
        started = time.monotonic()
        code = self._statements(piece, first)
        self.compile_seconds += time.monotonic() - started
        if not isinstance(code, types.CodeType):
            return _MORE if code is False else _WHOLE
        seen = self._statement_keys.get(id(code))
        if seen is not None and seen[0] is code:
            return seen[1]
        key = _code_digest(code, b"statement", self._known)
        self._learn(code, key)
        if len(self._statement_keys) >= _KNOWN_CODES:
            self._statement_keys.clear()
        self._statement_keys[id(code)] = (code, key)
        return key

    def _learn(self, code: types.CodeType, key: bytes | None | _Mark) -> None:
        """Note a statement key whose code does nothing, or never ends normally (see :meth:`__call__`)."""
        if _does_nothing(code):
            self._idle.add(key)
        elif isinstance(key, bytes) and not _falls_through(code):
            self._stops.add(key)

    def _keep(self, seen: tuple[str, bytes], key: bytes | None | _Mark) -> None:
        if len(self._units) >= _KEPT:
            del self._units[next(iter(self._units))]
        self._units[seen] = key

    def _class_key(self, piece: str) -> bytes | None | _Mark:
        """A class statement's key from its members' (:data:`_UNSPLIT`: not a class this can split; then
        the statement is keyed whole, as is one whose body declares a name ``global``)."""
        parts = class_parts(piece)
        if parts is None:
            return _UNSPLIT
        header, indent, _ = parts
        if not isinstance(self._unit_key(indent + "pass\n", header), bytes):  # a header over several lines, say
            return _UNSPLIT
        body_text = piece[len(header) :]
        starts = statement_starts(body_text, *member_starts(indent))
        if not starts or starts[0] != 0:
            return _UNSPLIT
        others = header + indent + "pass\n"  # only the first member may be the class's docstring
        keys = self._pieces(body_text, starts, lambda member, first: self._unit_key(member, header if first else others), 0)
        if not isinstance(keys, list):
            return keys
        return _join(b"class", keys)

    def _pieces(
        self, text: str, starts: list[int], unit: Callable[[str, bool], bytes | None | _Mark], first: int,
        found: tuple[list[bytes], list[int]] | None = None, again: tuple[Recut, Cut, list[bytes]] | None = None,
    ) -> list[bytes] | None | _Mark:
        """The keys of ``text`` cut at ``starts``: a piece that is incomplete ends inside a statement (a
        docstring's lines, a decorator), so it takes the next piece, then the next two, four... until it
        compiles; :data:`_MORE` if the text ends first, None if a piece has an error no more lines mend
        (then the text does not compile whole either).

        ``found``: the keys and the places of the pieces before ``starts[0]``, which the cut goes on (-1 as
        ``first``: none of these pieces is the text's first statement); ``again``: once a piece starts where
        one of the last cut's does in its unchanged end, the rest are that cut's (its pieces' keys given)."""
        ends = [*starts[1:], len(text)]
        keys, places = found if found is not None else ([], [])
        opening = index = first
        if first < 0:
            index = 0
        while index < len(starts):
            if again is not None and starts[index] in again[0].tail:
                recut_, cut, cut_keys = again
                known = recut_.tail[starts[index]]
                keys.extend(cut_keys[known:])
                places.extend(at + recut_.shift for at in cut.pieces[known:])
                return keys
            width = 1
            while True:
                last = min(len(starts), index + width) - 1
                key = unit(text[starts[index] : ends[last]], index == opening)
                if key is _WHOLE or key is None:
                    return key  # None: an error no line after it mends, so the text does not compile either
                if key is not _MORE:
                    break
                if last == len(starts) - 1:
                    return _MORE  # the text ends first: what comes after it (if anything) must complete it
                width *= 2
            assert isinstance(key, bytes)
            keys.append(key)
            places.append(starts[index])
            index = last + 1
        return keys

    def _unit_key(self, piece: str, before: str = "") -> bytes | None | _Mark:
        """The key of ``before + piece`` compiled: None if it does not compile, :data:`_MORE` if lines after
        it may complete it, :data:`_WHOLE` if it declares a name ``global`` at its own level (which changes
        how the statements after it compile). Looked up without joining the two (``before`` is short)."""
        seen = (before, digest(piece))
        if seen in self._units:
            return self._units[seen]
        unit = before + piece
        code = _compiled(unit)
        key: bytes | None | _Mark = None
        if code is None:
            key = _MORE if incomplete(unit) else None
        else:
            if ("global" in unit or "nonlocal" in unit) and declares_global(unit, classes=True):
                key = _WHOLE
            else:
                key = _code_digest(code, b"unit")
                if not before or before == "pass\n":  # a statement's, not a class member's
                    self._learn(code, key)
        self.compiled += 1
        self._keep(seen, key)
        return key


class _Mark:
    """What a unit or piece says when it has no key: :data:`_WHOLE`, :data:`_MORE` or :data:`_UNSPLIT`."""


_WHOLE = _Mark()
"""The text must be compiled whole."""
_MORE = _Mark()
"""The unit is incomplete: the piece takes the next."""
_UNSPLIT = _Mark()
"""Not a class :meth:`CodeKey._class_key` can key member by member."""

#: The opcodes that end a module's code normally (3.12 added RETURN_CONST).
_RETURNS = frozenset(dis.opmap[name] for name in ("RETURN_VALUE", "RETURN_CONST") if name in dis.opmap)


#: What a statement's module code that does nothing is made of (a constant statement leaves a NOP for its line).
_IDLE_OPS = frozenset(dis.opmap[name] for name in ("CACHE", "RESUME", "NOP", "LOAD_CONST", "RETURN_VALUE", "RETURN_CONST") if name in dis.opmap)


def _does_nothing(code: types.CodeType) -> bool:
    """Whether a statement's module code only returns None: no name, no other constant, no other operation."""
    return (
        not code.co_names and all(c is None for c in code.co_consts)
        and all(op in _IDLE_OPS for op in code.co_code[0::2])
    )


def _falls_through(code: types.CodeType) -> bool:
    """Whether a statement's module code can end normally, for the next statement to run: it has a return
    (word code: every even byte is an opcode). One that only raises or loops has none, and the compiler
    drops what follows it in the whole text as unreachable."""
    return any(op in _RETURNS for op in code.co_code[0::2])


def _join(kind: bytes, keys: list[bytes]) -> bytes:
    return hashlib.blake2b(kind + b"\0" + b"".join(keys), digest_size=20).digest()
