"""What a change needs: the changes that define the names its text uses (a configuration's closure).

The change-isolation paper's second item of future work is to group changes
by what they affect; dd+ showed that grouping related changes cuts the tests
of inconsistent configurations most. Here a change *needs* another when its
NEW text uses a name that OLD does not provide and the other change defines:

* a plain name (``t.List``, ``_("...")``, a new helper) that NEW binds at
  the module level of the same file (a ``def``, a ``class``, an import or an
  assignment at the left margin) and OLD's version of the file does not;
* an attribute or an imported name (``ctx.set_parameter_source``, ``from
  .utils import _detect_program_name``) that occurs nowhere in OLD, and that
  a change defines (a ``def`` at any depth, ``self.name =``, or at the module
  level of any file).

Every configuration the search tests is closed under these needs
(:meth:`Needs.closure`): a use never comes without its definition, so fewer
candidates are broken and binary reduction (:mod:`astreduce.dd.binary`)
finds what fails in few tests. A local variable never makes a need (NEW
does not bind it at the module level). With the lines NEW's run executed,
only the uses on those lines count: a name on a line that never runs is
never looked up. Definitions are read by patterns (a change's text is often
a fragment); a missed need only makes a broken candidate, which the search
copes with, and a needless one a larger closure, which a finer level splits.
"""

from __future__ import annotations

import ast
import builtins
import keyword
import re
from collections.abc import Iterable, Mapping, Sequence

from astreduce.files import FileTree
from astreduce.isolate.align import parse_python
from astreduce.isolate.changes import Change, Edit
from astreduce.run.coverage import python_file

_NAME = re.compile(r"(\.[ \t]*)?\b([A-Za-z_]\w*)")
_STRING = re.compile(r"'''.*?'''|\"\"\".*?\"\"\"|'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"", re.DOTALL)
_COMMENT = re.compile(r"#[^\n]*")
_DEF = re.compile(r"^([ \t]*)(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)", re.MULTILINE)
_ASSIGN = re.compile(r"^([ \t]*)((?:[A-Za-z_][\w.]*[ \t]*,[ \t]*)*[A-Za-z_][\w.]*)[ \t]*(?::[^=\n]*)?=(?!=)", re.MULTILINE)
_IMPORT = re.compile(r"^([ \t]*)(from[ \t]+[\w.]+[ \t]+)?import[ \t]+(\([^)]*\)|[^\n]+)", re.MULTILINE)
_KNOWN = frozenset(dir(builtins)) | frozenset(keyword.kwlist) | frozenset({"self", "cls", "__name__", "__file__", "__doc__"})


def code_of(text: str) -> str:
    """``text`` without its strings and comments (the names in them are not uses)."""
    return _COMMENT.sub("", _STRING.sub("''", text))


def _names_imported(clause: str) -> list[tuple[str, str]]:
    """(bound name, imported name) of an import's names clause."""
    found = []
    for part in clause.strip("() \t\n").replace("\\\n", " ").split(","):
        words = part.split()
        if words:
            bound = words[-1] if len(words) >= 3 and words[-2] == "as" else words[0].split(".")[0]
            found.append((bound, words[0]))
    return found


def definitions(text: str) -> tuple[set[str], set[str]]:
    """The names ``text`` defines: (at the module level, as members: a ``def`` at any depth or ``self.name =``)."""
    code = code_of(text)
    module: set[str] = set()
    members: set[str] = set()
    for indent, name in _DEF.findall(code):
        (members if indent else module).add(name)
        members.add(name)
    for indent, targets in _ASSIGN.findall(code):
        for target in targets.split(","):
            target = target.strip()
            if target.startswith("self.") and target.count(".") == 1:
                members.add(target[5:])
            elif not indent and target and "." not in target:
                module.add(target)
    for indent, _, clause in _IMPORT.findall(code):
        if not indent:
            module.update(bound for bound, _ in _names_imported(clause))
    return module, members


def module_names(text: str) -> frozenset[str]:
    """The names a module binds at its top level (its defs, classes, imports and assignments)."""
    tree = parse_python(text)
    if tree is None:
        return frozenset(definitions(text)[0])
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            found.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                found.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        else:  # names bound inside a module-level if/try/with (a guarded import)
            for inner in ast.walk(node):
                if isinstance(inner, (ast.Import, ast.ImportFrom)):
                    found.update((a.asname or a.name).split(".")[0] for a in inner.names)
                elif isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    found.add(inner.name)
                elif isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store):
                    found.add(inner.id)
    return frozenset(found)


def names_in(tree: FileTree) -> frozenset[str]:
    """Every name that occurs in the tree's text (code or not: an attribute OLD mentions anywhere is not new)."""
    found: set[str] = set()
    for text in tree.values():
        found.update(m.group(2) for m in _NAME.finditer(text))
    return frozenset(found)


class Needs:
    """The needs between the changes of ``elements`` (groups opened), and the closure of a configuration of elements.

    ``known``: every name of OLD's text (:func:`names_in`), when the caller has it already; ``ran``: the lines
    NEW's run executed, by file (a change not located in NEW reads all of its lines).
    """

    def __init__(
        self, old: FileTree, elements: Sequence[Change], known: frozenset[str] | None = None,
        ran: Mapping[str, frozenset[int]] | None = None,
    ) -> None:
        self.elements = list(elements)
        self.members = [member for element in self.elements for member in element.members]
        self.position = {id(m): i for i, m in enumerate(self.members)}
        anywhere = known if known is not None else names_in(old)
        bound: dict[str, frozenset[str]] = {}
        plain_uses: list[set[str]] = []
        other_uses: list[set[str]] = []
        module_by: dict[tuple[str, str], list[int]] = {}
        member_by: dict[str, list[int]] = {}
        for index, member in enumerate(self.members):
            plain: set[str] = set()
            other: set[str] = set()
            defined: set[str] = set()
            for edit in member.edits:
                code = code_of(_lines_run(edit, _ran_in(ran, member.path)))
                for dot, name in _NAME.findall(code):
                    (other if dot else plain).add(name)
                for _, origin, clause in _IMPORT.findall(code):
                    if origin:
                        other.update(name for _, name in _names_imported(clause))
                module, members = definitions(edit.text)
                defined |= module | members
                for name in module:
                    module_by.setdefault((member.path, name), []).append(index)
                    module_by.setdefault(("", name), []).append(index)
                for name in members:
                    member_by.setdefault(name, []).append(index)
            plain_uses.append(plain - defined - _KNOWN)
            other_uses.append(other - defined - anywhere)
        self.needs: list[list[int]] = []
        for index, member in enumerate(self.members):
            path = member.path
            if path not in bound:
                bound[path] = module_names(old.get(path, "")) if path in old else frozenset()
            needed: set[int] = set()
            for name in plain_uses[index] - bound[path]:
                needed.update(module_by.get((path, name), ()))
            for name in other_uses[index]:
                needed.update(member_by.get(name) or module_by.get(("", name)) or ())
            needed.discard(index)
            self.needs.append(sorted(needed))

    def closure(self, config: Iterable[Change]) -> list[Change]:
        """The changes of ``config`` (groups opened) with every change they need, transitively, in order."""
        seen: set[int] = set()
        stack = [self.position[id(m)] for element in config for m in element.members]
        while stack:
            index = stack.pop()
            if index in seen:
                continue
            seen.add(index)
            stack.extend(self.needs[index])
        return [self.members[i] for i in sorted(seen)]

    def count(self) -> int:
        """How many needs there are in all."""
        return sum(len(n) for n in self.needs)


def _ran_in(ran: Mapping[str, frozenset[int]] | None, path: str) -> frozenset[int] | None:
    """The lines of ``path`` NEW's run executed: none of a Python file it never ran; None (unknown) for the rest."""
    if ran is None or not python_file(path):
        return None
    return ran.get(path, frozenset())


def _lines_run(edit: Edit, ran: frozenset[int] | None) -> str:
    """The lines of an edit's NEW text that NEW's run executed (all of them when that is not known)."""
    if ran is None or edit.new_line < 0:
        return edit.text
    lines = edit.text.splitlines(keepends=True)
    return "".join(line for number, line in enumerate(lines, edit.new_line + 1) if number in ran)
