"""Re-expressing a patch against OLD: NEW's lines as edits of OLD's own lines, down to single tokens.

A patch found by the levels of :mod:`astreduce.isolate.search` is made of
NEW's text. When NEW moved and rewrote the code around the faulty line, that
text can only be added *beside* OLD's (a whole rewritten block next to the
old one, a new module that shadows the old), and every one of its lines is
needed for it to fail: it is 1-minimal, and many times the cause. The cause
itself is most often one of OLD's lines edited in place.

:func:`proposals` reads the patch's added lines and, for each, the OLD lines
most like it (difflib's ratio of their words, :data:`LINE_ALIKE` or more)
that NEW changed or removed — in the same file or, for a file NEW added,
in the OLD file it most resembles (moved code: a module turned into a
package, a file renamed). Each such OLD line, edited in place, gives
proposals: the whole NEW line (reindented to OLD's block), and each single
token-level edit of it (a changed call, a changed name, a changed
condition), so that ``value = float(l[i])`` may become ``value =
Decimal(l[i])`` where NEW's line was ``value = Decimal(tokens[idx + 2])``.
A proposal that uses a name OLD's file does not define takes NEW's import
of it along (added to OLD's import from the same module when there is one,
else a line after OLD's imports); one that needs another definition is
dropped. With coverage (:mod:`astreduce.isolate.coverage`), only lines the
runs executed are read: the OLD line in OLD's run, the NEW line in NEW's.

The search tries the proposals in order, each alone on OLD; the first that
fails as NEW does replaces the patch, which is then minimised by lines again
(:mod:`astreduce.isolate.search`). Those that bring in a name NEW imports
come first, smallest first: a new dependency is a likely cause (dateutil
2.7.0's ``Decimal``, Pygments 2.11.0's ``Whitespace``), and they are few
where NEW rewrote the code around the cause (on dateutil, about ten of
some two hundred, where the cause came among the last by likeness alone). OLD's import lines are not edited
in place (a name is added to them instead).
"""

from __future__ import annotations

import ast
import builtins
import difflib
import itertools
import keyword
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from astreduce.files import FileTree
from astreduce.isolate.align import parse_python
from astreduce.isolate.changes import Change, Edit, matcher
from astreduce.isolate.coverage import Coverage
from astreduce.run.coverage import python_file

#: An OLD line is an in-place candidate for a NEW line when their words are at least this alike.
LINE_ALIKE = 0.5

#: OLD lines tried for each NEW line of the patch, most alike first.
MATCHES_PER_LINE = 3

#: A NEW file's OLD counterpart (for a file NEW added) must share at least this part of its lines.
FILE_ALIKE = 0.3

#: A line with more token-level edits than this is tried whole only.
MAX_TOKEN_EDITS = 8

_TOKEN = re.compile(r"\s*(\w+|'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|\S)")
_NAME = re.compile(r"[A-Za-z_]\w*")
_USE = re.compile(r"(\.[ \t]*)?\b([A-Za-z_]\w*)")
_BUILTINS = frozenset(dir(builtins)) | frozenset(keyword.kwlist) | frozenset({"self", "cls", "__name__", "__file__"})


@dataclass(frozen=True)
class Proposal:
    """A patch on OLD made of OLD lines edited in place (and the imports they need)."""

    changes: tuple[Change, ...]
    lines: int
    """Its changed lines: one per edited OLD line, one per import added or edited."""
    label: str
    rank: tuple[int, int, float, int]
    """The order of trial after :attr:`lines`: lines executed by neither run last, more alike first, a whole line before its parts."""


def _line_words(line: str) -> list[str]:
    """The words of a line's code: its names and punctuation, its comment left out (a comment is not the change)."""
    code = _code_of(line)
    return _NAME.findall(code) + re.findall(r"[^\w\s]", code)


def _spaced_tokens(text: str) -> list[tuple[str, str]]:
    """``text`` as (space before, token) pairs; what no pattern reads stays with the next token."""
    found = []
    position = 0
    for match in _TOKEN.finditer(text):
        start = match.start(1)
        found.append((text[position:start], match.group(1)))
        position = match.end()
    if position < len(text) and found:
        space, token = found[-1]
        found[-1] = (space, token + text[position:])
    return found


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def variants(old_line: str, new_line: str) -> Iterator[tuple[str, int]]:
    """``old_line`` edited toward ``new_line`` (without its end of line): the whole NEW text with OLD's indentation,
    then each single token-level edit of OLD's text; each with 0 (whole) or 1 (one edit)."""
    indent = _indent(old_line)
    old_text, new_text = old_line.strip(), new_line.strip()
    yield indent + new_text, 0
    old_tokens, new_tokens = _spaced_tokens(old_text), _spaced_tokens(_without_comment(new_text))
    opcodes = [op for op in difflib.SequenceMatcher(None, [t for _, t in old_tokens], [t for _, t in new_tokens], autojunk=False).get_opcodes() if op[0] != "equal"]
    if len(opcodes) <= 1 or len(opcodes) > MAX_TOKEN_EDITS:
        return
    for _, i1, i2, j1, j2 in opcodes:
        pieces = old_tokens[:i1] + new_tokens[j1:j2] + old_tokens[i2:]
        if i1 == 0 and pieces and j2 > j1:
            pieces[0] = ("", pieces[0][1])
        text = "".join(space + token for space, token in pieces).strip()
        if text and text != old_text:
            yield indent + text, 1


class _File:
    """One OLD file as lines, with its words, its names and its top-level imports."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text
        self.lines = text.splitlines(keepends=True)
        self.offsets = [0]
        for line in self.lines:
            self.offsets.append(self.offsets[-1] + len(line))
        self.words = [_line_words(line) for line in self.lines]
        self.stripped = [line.strip() for line in self.lines]
        self.names = set(_NAME.findall(text))
        self.imports: dict[tuple[int, str], ast.ImportFrom] = {}
        """Top-level ``from M import ...`` statements by (level, module)."""
        self.after_imports = 0
        """The line (0-based) after the last top-level import."""
        self.module_bound: set[str] | None = None
        """Names the module binds at its top level (None when it does not parse: every name of the file counts)."""
        self.scopes: list[tuple[int, int, set[str]]] = []
        """Each function's lines (first, last, 1-based) and the names it binds (parameters, assignments, imports)."""
        tree = parse_python(text)
        if tree is not None:
            for node in tree.body:
                if isinstance(node, ast.ImportFrom):
                    self.imports[(node.level, node.module or "")] = node
                if isinstance(node, (ast.Import, ast.ImportFrom)) and node.end_lineno is not None:
                    self.after_imports = node.end_lineno
            self.module_bound = _bound_in(tree.body)
            for function in ast.walk(tree):
                if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and function.end_lineno is not None:
                    arguments = function.args
                    names = {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}
                    names |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
                    body: list[ast.AST] = list(function.body) if isinstance(function.body, list) else [function.body]
                    self.scopes.append((function.lineno, function.end_lineno, names | _bound_in(body)))

    def bound_at(self, index: int) -> set[str] | None:
        """The names a line (0-based) can use without a new binding: the module's and its enclosing functions'."""
        if self.module_bound is None:
            return None
        names = set(self.module_bound)
        for first, last, bound in self.scopes:
            if first <= index + 1 <= last:
                names |= bound
        return names

    def line_edit(self, index: int, text: str, order: int) -> Edit:
        """Replace line ``index`` by ``text``, its end of line kept."""
        line = self.lines[index]
        ending = line[len(line.rstrip("\r\n")) :]
        return Edit(self.offsets[index], self.offsets[index + 1], text + ending, order)


def _bound_in(body: Sequence[ast.AST]) -> set[str]:
    """Names a block binds, nested blocks included but not the functions and classes it defines (only their names)."""
    names: set[str] = set()
    todo: list[ast.AST] = list(body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            names.update(node.names)
        todo.extend(ast.iter_child_nodes(node))
    return names


def _bindings(text: str) -> dict[str, tuple[int, str, str | None, str]]:
    """Names NEW's file binds by a top-level import: name → (level, module or '', imported name or None for ``import``, source line)."""
    tree = parse_python(text)
    found: dict[str, tuple[int, str, str | None, str]] = {}
    if tree is None:
        return found
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name != "*":
                    shown = alias.name if alias.asname is None else f"{alias.name} as {alias.asname}"
                    line = f"from {'.' * node.level}{node.module or ''} import {shown}"
                    found[alias.asname or alias.name] = (node.level, node.module or "", shown, line)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                shown = alias.name if alias.asname is None else f"{alias.name} as {alias.asname}"
                found[alias.asname or alias.name.split(".")[0]] = (0, alias.name, None, f"import {shown}")
    return found


def _import_edit(file: _File, binding: tuple[int, str, str | None, str], order: int) -> Edit:
    """OLD's import from the same module with the name added, or NEW's import line after OLD's imports."""
    level, module, shown, line = binding
    existing = file.imports.get((level, module)) if shown is not None else None
    if existing is not None and existing.end_lineno is not None and existing.end_col_offset is not None:
        last = existing.names[-1]
        end_line = last.end_lineno if last.end_lineno is not None else existing.end_lineno
        end_col = last.end_col_offset if last.end_col_offset is not None else existing.end_col_offset
        index = end_line - 1
        raw = file.lines[index]
        column = len(raw.encode("utf-8")[:end_col].decode("utf-8", errors="replace"))
        body = raw.rstrip("\r\n")
        return file.line_edit(index, f"{body[:column]}, {shown}{body[column:]}", order)
    at = file.offsets[min(file.after_imports, len(file.lines))]
    return Edit(at, at, line + "\n", order)


def counterpart(path: str, text: str, old: FileTree) -> str | None:
    """The OLD file ``text`` (a file NEW added at ``path``) most resembles: where its code came from, or None.

    Python files only, sharing at least :data:`FILE_ALIKE` of the added file's distinct lines. A file the
    patch keeps as it is in OLD counts too: NEW's ``dateutil/parser/_parser.py`` came from OLD's
    ``dateutil/parser.py``, which a patch that adds the package need not remove.
    """
    if not python_file(path):
        return None
    lines = {line.strip() for line in text.splitlines() if len(line.strip()) > 3}
    if not lines:
        return None
    best, best_share = None, FILE_ALIKE
    for candidate, body in old.items():
        if not python_file(candidate):
            continue
        share = len(lines & {line.strip() for line in body.splitlines()}) / len(lines)
        if share > best_share:
            best, best_share = candidate, share
    return best


def proposals(old: FileTree, new: FileTree, target: FileTree, coverage: Coverage | None, *, most: int = 400) -> list[Proposal]:
    """In-place edits of OLD lines toward the NEW lines ``target`` adds (see the module docstring), smallest first."""
    found: dict[tuple[tuple[str, int, int, str], ...], Proposal] = {}
    measured = coverage is not None and coverage.measured
    for path in sorted(target):
        text = target[path]
        if old.get(path) == text:
            continue
        source = path if path in old else counterpart(path, text, old)
        if source is None:
            continue
        file = _File(source, old[source])
        new_text = new.get(path, text)
        bindings = _bindings(new_text)
        new_lines = new_text.splitlines()
        new_executed = coverage.new.get(path, frozenset()) if coverage is not None else frozenset()
        new_by_text: dict[str, list[int]] = {}
        for number, line in enumerate(new_lines, 1):
            new_by_text.setdefault(line.strip(), []).append(number)
        kept_in_new = set(new_by_text)
        old_executed = coverage.old.get(source, frozenset()) if coverage is not None else frozenset()
        candidates = [
            i for i, stripped in enumerate(file.stripped)
            if stripped and not stripped.startswith(("#", "import ", "from ")) and stripped not in kept_in_new
            and (not measured or i + 1 in old_executed)
        ]
        added = _added_lines(old.get(path, ""), text)
        finder: difflib.SequenceMatcher[str] = difflib.SequenceMatcher(None, autojunk=False)
        for line in added:
            stripped = line.strip()
            if len(stripped) < 3 or stripped.startswith("#"):
                continue
            runs_in_new = any(n in new_executed for n in new_by_text.get(stripped, ()))
            if measured and python_file(path) and not runs_in_new:
                continue
            finder.set_seq2(_line_words(stripped))
            scored = []
            for index in candidates:
                finder.set_seq1(file.words[index])
                if finder.real_quick_ratio() < LINE_ALIKE or finder.quick_ratio() < LINE_ALIKE:
                    continue
                ratio = finder.ratio()
                if ratio >= LINE_ALIKE:
                    scored.append((ratio, index))
            scored.sort(key=lambda item: (-item[0], item[1]))
            for ratio, index in scored[:MATCHES_PER_LINE]:
                for proposal in _proposals_for(file, index, line, ratio, bindings, executed=measured):
                    key = tuple(sorted((c.path, e.start, e.end, e.text) for c in proposal.changes for e in c.edits))
                    if key not in found:
                        found[key] = proposal
    ordered = sorted(found.values(), key=lambda p: (p.lines == 1, p.lines, p.rank))  # an import along first
    return ordered[:most]


def _added_lines(before: str, after: str) -> list[str]:
    """The lines ``after`` adds to ``before`` (inserted or replacing), as the patch shows them."""
    a, b = before.splitlines(), after.splitlines()
    return [line for tag, _, _, j1, j2 in matcher(a, b).get_opcodes() if tag != "equal" for line in b[j1:j2]]


def _proposals_for(
    file: _File, index: int, new_line: str, ratio: float, bindings: Mapping[str, tuple[int, str, str | None, str]], *, executed: bool
) -> Iterator[Proposal]:
    """The proposals that edit OLD's line ``index`` toward ``new_line``."""
    old_line = file.lines[index].rstrip("\r\n")
    old_names = set(_NAME.findall(old_line))
    usable = file.bound_at(index)
    if usable is None:
        usable = file.names
    for text, part in variants(old_line, new_line):
        needed = [n for n in dict.fromkeys(_used_names(_code_of(text))) if n not in old_names and n not in usable and n not in _BUILTINS]
        if any(n not in bindings for n in needed):
            continue  # a name neither the line's scope nor NEW's imports bind (NEW's local, renamed): a NameError
        edits = [file.line_edit(index, text, 0)]
        for order, name in enumerate(needed, 1):
            edits.append(_import_edit(file, bindings[name], order))
        if _overlap(edits):
            continue
        changes = tuple(Change(file.path, (edit,), f"line {index + 1} edited in place: `{text.strip()[:60]}`" if n == 0 else f"import of {needed[n - 1]}")
                        for n, edit in enumerate(edits))
        label = f"{file.path}:{index + 1}: `{old_line.strip()[:50]}` -> `{text.strip()[:50]}`"
        if needed:
            label += f" (with {', '.join(needed)} imported)"
        yield Proposal(changes, len(edits), label, (0 if executed else 1, part, -ratio, index))


def _used_names(code: str) -> list[str]:
    """The names a line's code looks up (an attribute after a dot is not one)."""
    return [m.group(2) for m in _USE.finditer(code) if not m.group(1)]


def _without_comment(line: str) -> str:
    """A line without its trailing comment (its strings kept)."""
    code = _code_of(line)
    if "#" not in line or len(code.rstrip()) == len(line.rstrip()):
        return line
    kept = len(line) - len(line.lstrip())
    for match in _TOKEN.finditer(line):
        if match.group(1).startswith("#"):
            break
        kept = match.end()
    return line[:kept].rstrip()


def _code_of(line: str) -> str:
    """A line without its strings and comment (names inside them are not uses)."""
    text = re.sub(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"", "''", line)
    return text.split("#", 1)[0]


def _overlap(edits: list[Edit]) -> bool:
    spans = sorted((e.start, e.end) for e in edits if e.end > e.start)
    return any(b[0] < a[1] for a, b in itertools.pairwise(spans))
