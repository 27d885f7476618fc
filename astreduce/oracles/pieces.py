"""A candidate's module code made of its top-level statements' code, each compiled once per reduction.

Compiling a 2,600-line candidate for its test costs a test of stdlib_argparse
about 2 ms, more than the rest of astreduce's work on it. A module's code is
its top-level statements' code run one after the other in one namespace, and
a statement compiles the same alone (see :mod:`astreduce.source.statements`),
so :class:`ModuleCode` compiles each statement once, keeps its code by its
text, and moves its line numbers to where the statement stands in each
candidate: a candidate that changes one function compiles that function.
A large class is made the same way from its methods' code
(:class:`ClassCode`): a candidate that changes one method compiles that
method and the class's outline.

What runs is what the whole would run: the same statements, names, file
name and line numbers. The byte code differs in one way only: a method
called on a module imported by another statement is looked up as a method
(``LOAD_METHOD``) where the whole, which sees the import, looks it up as an
attribute; the call and any error are the same. A statement after the first that starts with a string is
compiled after ``pass`` (a no-op), so that it does not become the module's
docstring. A text this cannot cut for sure is compiled whole: one with a
``__future__`` import (it changes how the rest compiles) or with a name
declared ``global`` or ``nonlocal`` at module level, one whose start is not
a statement's, and one with a statement that does not compile (the whole
compile then reports the error).
"""

from __future__ import annotations

import functools
import re
import sys
import types
import warnings
from collections import OrderedDict
from collections.abc import Callable
from typing import TypeVar

from astreduce.source.statements import (
    class_parts,
    declares_global,
    incomplete,
    member_starts,
    starts,
)

__all__ = ["ClassCode", "ModuleCode", "shift_lines"]

#: Characters of statements kept with their code (and again with their code moved to a line), the least
#: recently used dropped first: a large class changed by one candidate after another is kept once a version.
_KEPT_CHARS = 4 << 20
#: A statement that starts with a string (its prefix, then a quote): alone, it would be a docstring.
_STRING_FIRST = re.compile(r"[rRbBuUfF]{0,2}['\"]")


class ModuleCode:
    """The code objects of a candidate's top-level statements, for its test to run in turn (see the module docstring)."""

    def __init__(self, filename: str) -> None:
        self.filename = filename
        self._compiled: _Kept[str, types.CodeType | None | _Incomplete] = _Kept(len)
        self._moved: _Kept[tuple[str, int], types.CodeType] = _Kept(lambda key: len(key[0]))
        self.compiled = 0
        """Statements compiled so far (the cache's misses), for benchmarks."""
        self._classes = ClassCode(filename)

    def codes(self, text: str) -> list[types.CodeType] | None:
        """The code of each top-level statement of ``text``, its lines where they are in ``text``;
        None when ``text`` must be compiled whole."""
        if "__future__" in text or "__annotations__" in text:  # how the rest compiles; made before the first statement
            return None
        cuts = starts(text)
        if cuts and cuts[-1] == len(text):  # the end of the text after its last newline: no statement
            cuts.pop()
        if not cuts:
            return None
        if cuts[0] != 0:  # comments and blank lines before the first statement go with it; anything else is an error
            if any(line.strip() and not line.lstrip().startswith("#") for line in text[: cuts[0]].splitlines()):
                return None
            cuts[0] = 0
        ends = [*cuts[1:], len(text)]
        codes: list[types.CodeType] = []
        index = line = done = 0  # done: where ``line`` was counted to
        while index < len(cuts):
            width = 1
            while True:
                last = min(len(cuts), index + width) - 1
                piece = text[cuts[index] : ends[last]]
                before = "pass\n" if index and _STRING_FIRST.match(piece) else ""
                code = self._compile(before + piece)
                if code is None:
                    return None
                if not isinstance(code, _Incomplete):
                    break
                if last == len(cuts) - 1:
                    return None  # the text ends first: it does not compile whole either
                width *= 2
            line += text.count("\n", done, cuts[index])
            done = cuts[index]
            codes.append(self._moved_to(before + piece, code, line - (1 if before else 0)))
            index = last + 1
        return codes

    def statement(self, piece: str, first: bool) -> types.CodeType | None | bool:
        """The code of one top-level statement (``first``: the text's first, which may be its docstring),
        as :meth:`codes` compiles it for a test and keeps it (its lines from 1): the alike key
        (:class:`~astreduce.oracles.alike.CodeKey`) reads it, and the test that follows compiles nothing
        more. False when more lines may complete ``piece``; None when it must be compiled whole: an
        error, or a name declared ``global``."""
        unit = "pass\n" + piece if not first and _STRING_FIRST.match(piece) else piece
        code = self._compile(unit)
        return False if isinstance(code, _Incomplete) else code

    def _compile(self, unit: str) -> types.CodeType | None | _Incomplete:
        """``unit`` compiled at line 1 (cached); None if it has an error or must not be compiled alone.
        A large class is assembled from its methods' code (:class:`ClassCode`)."""
        if unit in self._compiled:
            return self._compiled.hit(unit)
        code: types.CodeType | None | _Incomplete
        code = self._classes.assembled(unit) if len(unit) >= _CLASS_FROM else None
        try:
            if code is None:
                code = _compile_unit(unit, self.filename)
            if ("global" in unit or "nonlocal" in unit) and declares_global(unit):
                code = None
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            code = _INCOMPLETE if incomplete(unit) else None
        self.compiled += 1
        self._compiled.keep(unit, code)
        return code

    def _moved_to(self, unit: str, code: types.CodeType, line: int) -> types.CodeType:
        if line == 0:
            return code
        key = (unit, line)
        if key in self._moved:
            return self._moved.hit(key)
        moved = shift_lines(code, line)
        self._moved.keep(key, moved)
        return moved


class ClassCode:
    """A large class's code assembled from its methods' code, each method compiled once per reduction.

    A candidate that changes one method of a 40 KB class changes one
    constant of the class's code: that method's code object. What is left,
    the class body, is small: its names, decorators, defaults, the order of
    its members. So the class is compiled with each method's body cut to one
    line (its *outline*: the same members on the same lines, every header
    evaluated as before), each method is compiled once under the class's
    header (names mangle and ``super()`` binds as in the class), and each
    method's code, its lines moved to where it stands, replaces its stub's.
    On stdlib_argparse, classes of 2 KB or more were 98 % of the parent's
    compile time: 7 s of a 55 s run at ``-j 1``.

    The result equals the class compiled whole, code object for code object
    (a test compares them). A method's code depends on its class only
    through the class's name and through ``super()``, which needs the
    class's cell: a stub names ``__class__`` when its method's code does, so
    the class body makes the cell as before. A stub is compiled alone once,
    under the class's header, to be sure its method's header was cut at its
    colon. What this cannot cut for sure is compiled whole: a stub not found
    in the outline's code where it stands (a "method" inside a string), a
    method with other free names, a generic class (``class C[T]``, whose
    body is nested), and every class from Python 3.13, whose code lists the
    attributes its methods set (``__static_attributes__``), which a stub
    does not.
    """

    def __init__(self, filename: str) -> None:
        self.filename = filename
        self._members: _Kept[tuple[str, str], _Member] = _Kept(lambda key: len(key[1]))
        self._outlines: _Kept[str, types.CodeType | None] = _Kept(len)
        self.assembled_classes = 0
        """Classes assembled so far, for tests and benchmarks."""

    def assembled(self, unit: str) -> types.CodeType | None:
        """The code of ``unit``, a class statement, from its outline's and methods' code; None when it
        must be compiled whole (not a class this can cut, or an error somewhere)."""
        if not _ASSEMBLES:
            return None
        parts = class_parts(unit)
        if parts is None:
            return None
        header, indent, name = parts
        body = unit[len(header) :]
        cuts = starts(body, *member_starts(indent))
        if not cuts or cuts[0] != 0:
            return None
        ends = [*cuts[1:], len(body)]
        outline = [header]
        methods: dict[tuple[str, int], types.CodeType] = {}
        offset = header.count("\n")  # how far down each member's code must move: the lines before it
        index = 0
        while index < len(cuts):
            last = index
            while last + 1 < len(cuts) and body.startswith("@", cuts[last] + len(indent)):
                last += 1  # a decorator goes with what it decorates
            text = body[cuts[index] : ends[last]]
            key = (header, text)
            member = self._members.hit(key) if key in self._members else self._member(key, name, indent)
            outline.append(member.stub)
            if member.code is not None:
                moved = member.moved_to(offset)
                methods[(moved.co_name, moved.co_firstlineno)] = moved
            offset += member.lines
            index = last + 1
        if not methods:
            return None
        code = self._outline("".join(outline))
        if code is None:
            return None
        assembled = _with_class_body(code, name, lambda class_body: _with_methods(class_body, methods))
        self.assembled_classes += assembled is not None and not methods
        return None if methods else assembled  # a stub left over was not where its method stands

    def _member(self, key: tuple[str, str], name: str, indent: str) -> _Member:
        """A member of class ``name`` (``key``: the class's header and the member's text), with its stub
        and, for a method, its code compiled under the header (kept)."""
        header, text = key
        member = _Member(text, None, text.count("\n"))
        found = _method_line(indent).search(text)
        if found is not None and (found.start() == 0 or text.startswith(indent + "@")):
            member = self._method(header, name, text, found) or member
        self._members.keep(key, member)
        return member

    def _method(self, header: str, name: str, text: str, found: re.Match[str]) -> _Member | None:
        """A method's member: its code, compiled under ``header``, and its stub, one statement that ends
        where the body ends (the class's code keeps each member's span); None when this cannot cut it
        (a one-line method, a body with lines less indented than its first, free names other than the
        class's cell)."""
        colon = _HEADER_END.search(text, found.end())
        if colon is None:
            return None
        opened = colon.end() + 1  # the body's first line
        first = _FIRST_BODY_LINE.search(text, opened)
        indent = text[: len(text) - len(text.lstrip(" \t"))]
        if first is None or not first.group(1).startswith(indent) or first.group(1) == indent:
            return None
        body_indent = first.group(1)
        if _outdented(body_indent).search(text, opened) is not None:
            return None  # a line less indented than the body's (a string's, or the next statement's)
        try:
            module = _compile_unit(header + text, self.filename)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        class_body = _only(module, name)
        code = _only(class_body, found.group(1))
        if class_body is None or code is None or code.co_freevars not in ((), ("__class__",)):
            return None
        lines = header.count("\n")
        code = shift_lines(code, -lines)  # its lines from the member's first, to be moved where it stands
        cell = "__class__;" if code.co_freevars else ""  # the class body makes the cell as before
        body_line = text.count("\n", 0, opened)
        end = _end(class_body, lines + 1)
        if end is None:  # before 3.11 the class's code keeps a member's first line only
            blank, stub = 0, cell + "pass"
        else:
            end_line, end_column = end
            room = end_column - len(body_indent) - len(cell)
            if end_line < body_line or room < 1:
                return None
            blank, stub = end_line - body_line, cell + ("0" * room if room < 3 else "(0" + " " * (room - 3) + ")")
        after = text.count("\n", opened) - blank
        stub = text[:opened] + "\n" * blank + body_indent + stub + "\n" * max(after, 0)
        try:  # the stub is a whole member (the header was cut at its colon, not inside a string)
            outline = _only(_only(_compile_unit(header + stub, self.filename), name), found.group(1))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        if outline is None or outline.co_freevars != code.co_freevars:
            return None
        if outline.co_firstlineno != code.co_firstlineno + lines:
            return None
        return _Member(stub, code, text.count("\n"))

    def _outline(self, text: str) -> types.CodeType | None:
        if text in self._outlines:
            return self._outlines.hit(text)
        try:
            code: types.CodeType | None = _compile_unit(text, self.filename)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            code = None
        self._outlines.keep(text, code)
        return code


class _Member:
    """A class member as :class:`ClassCode` assembles it: the text the outline holds for it (a method's stub,
    else the member itself), a method's code (its lines from the member's first line, 1) and the copies of
    that code moved to where the member stood in the classes seen, and the member's line count."""

    __slots__ = ("code", "lines", "moved", "stub")

    def __init__(self, stub: str, code: types.CodeType | None, lines: int) -> None:
        self.stub, self.code, self.lines = stub, code, lines
        self.moved: dict[int, types.CodeType] = {}

    def moved_to(self, offset: int) -> types.CodeType:
        """The method's code, its lines ``offset`` further down (kept: a few places per member)."""
        assert self.code is not None
        if offset not in self.moved:
            if len(self.moved) >= 8:
                self.moved.clear()
            self.moved[offset] = shift_lines(self.code, offset)
        return self.moved[offset]


def _end(class_body: types.CodeType, first: int) -> tuple[int, int] | None:
    """Where the one member of ``class_body`` ends, its lines counted from ``first``: the largest end of
    its instructions' positions (None before 3.11, whose code keeps lines only)."""
    positions = getattr(class_body, "co_positions", None)
    if positions is None:
        return None
    ends = [
        (end_line, end_column)
        for _, end_line, _, end_column in positions()
        if end_line is not None and end_column is not None
    ]
    if not ends:
        return None
    end_line, end_column = max(ends)
    return end_line - first, end_column


def _compile_unit(unit: str, filename: str) -> types.CodeType:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the whole compile in the test's child warns as a plain run does
        return compile(unit, filename, "exec", dont_inherit=True)


def _only(code: types.CodeType | None, name: str) -> types.CodeType | None:
    """The one code object named ``name`` among ``code``'s constants; None if there is none or more."""
    if code is None:
        return None
    found = [c for c in code.co_consts if type(c) is types.CodeType and c.co_name == name]
    return found[0] if len(found) == 1 else None


def _with_class_body(
    module: types.CodeType, name: str, body: Callable[[types.CodeType], types.CodeType | None]
) -> types.CodeType | None:
    """``module`` (a class statement's code) with the body of class ``name`` replaced by ``body(it)``;
    None if there is not exactly one such body, or ``body`` says None."""
    at = [i for i, c in enumerate(module.co_consts) if type(c) is types.CodeType and c.co_name == name]
    replaced = body(module.co_consts[at[0]]) if len(at) == 1 else None
    if replaced is None:
        return None
    return module.replace(co_consts=(*module.co_consts[: at[0]], replaced, *module.co_consts[at[0] + 1 :]))


def _with_methods(class_body: types.CodeType, methods: dict[tuple[str, int], types.CodeType]) -> types.CodeType | None:
    """``class_body`` (the outline's) with each stub whose (name, first line) ``methods`` holds replaced by
    that method's code, taken out of ``methods``; None if one's free names are not its stub's."""
    consts = list(class_body.co_consts)
    for index, const in enumerate(consts):
        if type(const) is types.CodeType:
            method = methods.pop((const.co_name, const.co_firstlineno), None)
            if method is not None:
                if method.co_freevars != const.co_freevars:
                    return None
                consts[index] = method
    return class_body.replace(co_consts=tuple(consts))


def shift_lines(code: types.CodeType, offset: int) -> types.CodeType:
    """``code`` with every line number ``offset`` further down (nested functions and classes too)."""
    consts = tuple(shift_lines(c, offset) if isinstance(c, types.CodeType) else c for c in code.co_consts)
    return code.replace(co_firstlineno=code.co_firstlineno + offset, co_consts=consts)


K = TypeVar("K")
V = TypeVar("V")


class _Kept(OrderedDict[K, V]):
    """A cache that drops its least recently used entries past :data:`_KEPT_CHARS` characters of
    statements (``size``: a key's)."""

    def __init__(self, size: Callable[[K], int]) -> None:
        super().__init__()
        self.size = size
        self.chars = 0

    def hit(self, key: K) -> V:
        """The value of ``key``, which is kept: it becomes the most recent."""
        self.move_to_end(key)
        return self[key]

    def keep(self, key: K, value: V) -> None:
        self[key] = value
        self.chars += self.size(key)
        while self.chars > _KEPT_CHARS and len(self) > 1:
            self.chars -= self.size(self.popitem(last=False)[0])


#: Top-level statements this long or longer are assembled from their methods' code when they are classes
#: (:class:`ClassCode`); a shorter class compiles faster whole.
_CLASS_FROM = 2048
#: Whether this Python's class code can be assembled (3.13 puts what the methods set in the class's code).
_ASSEMBLES = sys.version_info < (3, 13)
#: The colon that ends a method's header: the last character of its line but blanks and a comment.
_HEADER_END = re.compile(r":[ \t]*(?:#[^\n]*)?(?=\n)")
#: A method body's first line that says something (not blank, not a comment): its indentation.
_FIRST_BODY_LINE = re.compile(r"^([ \t]*)[^\s#]", re.MULTILINE)


@functools.lru_cache(maxsize=16)
def _method_line(indent: str) -> re.Pattern[str]:
    """A member's ``def`` line at ``indent``, with the method's name."""
    return re.compile("^" + re.escape(indent) + r"(?:async[ \t]+)?def[ \t]+(\w+)", re.MULTILINE)


@functools.lru_cache(maxsize=16)
def _outdented(body_indent: str) -> re.Pattern[str]:
    """A line that says something, less indented than a method body at ``body_indent``."""
    return re.compile(r"^(?![ \t]*(?:#|$)|" + re.escape(body_indent) + ")", re.MULTILINE)


class _Incomplete:
    """A statement's piece that more lines may complete (it takes the next piece)."""


_INCOMPLETE = _Incomplete()
