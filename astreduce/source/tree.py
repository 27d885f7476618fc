"""The tree model: parse a module once, number its nodes, record their exact spans.

A :class:`Tree` is plain data computed from the standard ``ast`` of one text:
every node has an id (pre-order), a kind (the ``ast`` class name), a parent,
the field it sits in, and a span of character offsets into the text. On top
of the nodes the model records what the renderer needs to splice text
without regenerating code (a candidate must cost microseconds,
not a deep copy or a code generation):

* **sequences** — runs of sibling elements with the text between them:
  statements of a block, call arguments, collection items, parameters,
  decorators, imported names, ``with`` items, ``except`` handlers,
  comprehension conditions, boolean operands. Dropping elements joins the
  kept ones with the original separators; an emptied block becomes ``pass``.
* **drop spans** — optional parts that go together with some text around
  them: a default value with its ``=``, an annotation with its ``:``, a
  return annotation with its ``->``, ``as name`` of a ``with`` item, the
  message of an ``assert``, the cause of a ``raise``.
* **indentation** of statements that begin a line, for re-indenting hoisted
  blocks.

Nothing here knows about transforms; :mod:`astreduce.source.render` renders edits
against this model. Because the model is data, another interpreter computes
it for syntax newer than ours (:mod:`astreduce.source.wire` runs this file
there, with the standard library only).
"""

from __future__ import annotations

import ast
import sys
import warnings
from collections.abc import Iterator
from typing import Any

try:
    from astreduce.source.fstrings import part_spans
    from astreduce.source.model import STATEMENTS as STATEMENTS
    from astreduce.source.model import Element as Element
    from astreduce.source.model import Item as Item
    from astreduce.source.model import Node as Node
    from astreduce.source.model import Sequence as Sequence
    from astreduce.source.model import Tree as Tree
    from astreduce.source.model import is_fstring_part as is_fstring_part
    from astreduce.source.model import is_statement as is_statement
    from astreduce.source.spans import SPACE, Positions, forward, star_before, synthetic_span, widen
except ImportError:  # run alone as a script by another interpreter (wire.py): the sibling modules
    from fstrings import part_spans  # type: ignore[import-not-found,no-redef]  # the script's folder is on sys.path
    from model import STATEMENTS, Element, Item, Node, Sequence, Tree  # type: ignore[import-not-found,no-redef]  # idem
    from spans import SPACE, Positions, forward, star_before, synthetic_span, widen  # type: ignore[import-not-found,no-redef]  # idem

#: ``ast`` classes that are not nodes of the model: they carry no position.
SKIPPED = (ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop, ast.type_ignore)

#: Nodes whose descendants are not modelled: none. The parts of an f-string
#: are (before 3.12 with spans from :mod:`astreduce.source.fstrings`).
OPAQUE: tuple[type[ast.AST], ...] = ()

def parse(text: str, filename: str = "<input>", like: Tree | None = None) -> Tree:
    """Parse ``text`` into a :class:`Tree`.

    ``like``: the tree of an earlier text (the base of a change): the
    statements of its module's and its classes' bodies that ``text`` has
    unchanged are copied, their ids, offsets and depth moved, instead of
    numbered again. A statement's nodes and spans are in its own text (no
    span reaches past it), so the copy is the tree a whole parse makes. The
    ``ast`` nodes of a copied statement are the earlier tree's: their line
    numbers are the earlier text's, and nothing reads them.

    Raises:
        SyntaxError: the text is not a valid module for this interpreter.
        RecursionError: the nesting is too deep for the parser (callers report it).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SyntaxWarnings belong to the candidate, not to us
        module = ast.parse(text, filename=filename, type_comments=False)
    return _Builder(text).build(module, like if like is not None and like.syntax is not None else None)


class _Builder:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = Positions(text)
        self.nodes: list[Node] = []
        self.fields: list[dict[str, tuple[int, ...]]] = []
        self.asts: list[ast.AST] = []
        self.located: dict[int, tuple[int, int]] = {}
        """``id()`` of a node inside an f-string → its span (before 3.12, where the parser's are not exact)."""
        self.like: Tree | None = None
        """The earlier tree statements are copied from (see :func:`parse`)."""
        self.known: dict[str, tuple[int, int]] = {}
        """Its statements (of the module's and its classes' bodies) by their text: first id and the id after."""

    # --- numbering -------------------------------------------------------

    def build(self, module: ast.Module, like: Tree | None = None) -> Tree:
        if like is None:
            self._number(numbered(module))
        else:
            self._number_like(module, like)
        self._settle()
        tree = Tree(
            text=self.text,
            nodes=self.nodes,
            fields=self.fields,
            items=[() for _ in self.nodes],
            element_of={},
            drop_spans={},
            indents={},
            syntax=self.asts,
        )
        _Structure(self, tree).build()
        return tree

    def _number_like(self, module: ast.Module, like: Tree) -> None:
        """Number ``module``, copying from ``like`` each statement of the module's or a class's body whose
        text it has (see :func:`parse`): a pass that changed one method numbers that method."""
        self.like, self.known = like, _statements_by_text(like)
        self._number(iter([(module, -1, "", -1, 0)]))
        self._body(module.body, 0, 1)

    def _body(self, body: list[ast.stmt], parent: int, depth: int) -> None:
        for index, statement in enumerate(body):
            start, end = self._span(statement, type(statement))
            found = self.known.get(self.text[start:end])
            if found is not None:
                body[index] = self._copy(*found, start, parent, index, depth)  # the tree holds the nodes numbered
            elif type(statement) is ast.ClassDef:
                self._class(statement, parent, index, depth)
            else:
                self._number(numbered(statement, (statement, parent, "body", index, depth), len(self.nodes)))

    def _class(self, statement: ast.ClassDef, parent: int, index: int, depth: int) -> None:
        """A class numbered as :func:`numbered` would (its fields in order, each child's nodes before the
        next child's), its body statement by statement."""
        class_id = len(self.nodes)
        self._number(iter([(statement, parent, "body", index, depth)]))
        for name in statement._fields:
            value: Any = getattr(statement, name, None)
            if name == "body":
                self._body(value, class_id, depth + 1)
            elif type(value) is list:
                for i, item in enumerate(value):
                    if _modelled(item):
                        self._number(numbered(item, (item, class_id, name, i, depth + 1), len(self.nodes)))
            elif _modelled(value):
                self._number(numbered(value, (value, class_id, name, -1, depth + 1), len(self.nodes)))

    def _copy(self, old_id: int, old_end: int, start: int, parent: int, index: int, depth: int) -> ast.stmt:
        """Append the nodes of the earlier tree's statement ``old_id`` (its nodes up to ``old_end``), moved to
        ``start`` in this text, as statement ``index`` of ``parent``'s body; its ``ast`` node."""
        nodes, fields, asts, like = self.nodes, self.fields, self.asts, self.like
        assert like is not None  # set by _number_like
        new_id = len(nodes)
        moved = new_id - old_id
        shift = start - like.nodes[old_id].start
        deeper = depth - like.nodes[old_id].depth
        old_fields, old_asts = like.fields, like.syntax
        assert old_asts is not None
        gathering: dict[str, Any] = fields[parent]  # lists while gathering
        gathering.setdefault("body", []).append(new_id)
        if moved == shift == deeper == 0:  # before the change: the same nodes (trees are never changed)
            nodes.extend(like.nodes[old_id:old_end])
            fields.extend(old_fields[old_id:old_end])
        else:
            make = tuple.__new__  # a named tuple's own __new__ is a Python call: a third of the copy
            for node in like.nodes[old_id:old_end]:
                nodes.append(make(Node, (
                    node.id + moved, node.kind, node.parent + moved, node.field, node.index, node.start + shift,
                    node.end + shift, node.depth + deeper, node.name, node.constant,
                )))
                entry = old_fields[node.id]
                fields.append({name: tuple([child + moved for child in ids]) for name, ids in entry.items()} if entry else {})
        asts.extend(old_asts[old_id:old_end])
        nodes[new_id] = nodes[new_id]._replace(parent=parent, index=index)
        return asts[new_id]  # type: ignore[return-value]  # a statement's

    def _number(self, entries: Iterator[tuple[ast.AST, int, str, int, int]]) -> None:
        # the hot loop of every parse (a large module has tens of thousands of nodes): locals, and each
        # child's id appended to its parent's field as it comes (pre-order: in id order)
        nodes, fields, asts, span = self.nodes, self.fields, self.asts, self._span
        make = tuple.__new__  # a named tuple's own __new__ is a Python call
        for node, parent, field_name, index, depth in entries:
            node_id = len(nodes)
            kind = type(node)
            start, end = span(node, kind)
            constant = type(node.value).__name__ if kind is ast.Constant else None  # type: ignore[attr-defined]  # a Constant
            name_field = _NAME_FIELDS.get(kind)
            name = None if name_field is None else _name_of(node, name_field)
            nodes.append(make(Node, (node_id, kind.__name__, parent, field_name, index, start, end, depth, name, constant)))
            fields.append({})
            asts.append(node)
            if parent >= 0:
                entry: dict[str, Any] = fields[parent]  # lists while gathering, tuples once all are in
                ids = entry.get(field_name)
                if ids is None:
                    entry[field_name] = [node_id]
                else:
                    ids.append(node_id)

    def _settle(self) -> None:
        """Each field's children gathered as lists, as tuples in the text's order (copied ones are tuples)."""
        nodes = self.nodes
        for entry in self.fields:
            gathering: dict[str, Any] = entry
            for name, gathered in gathering.items():
                if type(gathered) is list:
                    entry[name] = tuple(sorted(gathered, key=lambda i: nodes[i].start) if len(gathered) > 1 else gathered)

    def span_of(self, node: ast.AST) -> tuple[int, int]:
        return self._span(node, type(node))

    def _span(self, node: ast.AST, kind: type) -> tuple[int, int]:
        shape = _SHAPES.get(kind)
        if shape is None:
            shape = _SHAPES[kind] = _shape(kind)
        if shape is _MODULE:
            return 0, len(self.text)
        located = self.located.get(id(node)) if self.located else None
        if located is not None:
            start, end = located
        else:
            try:
                line, column = node.lineno, node.col_offset  # type: ignore[attr-defined]  # absent: caught
                end_line, end_column = node.end_lineno, node.end_col_offset  # type: ignore[attr-defined]  # idem
            except AttributeError:
                return synthetic_span(self.text, node, self.span_of)
            if end_column is None:
                return synthetic_span(self.text, node, self.span_of)
            pos = self.pos
            if pos.ascii:
                starts = pos.line_starts
                start, end = starts[line - 1] + column, starts[end_line - 1] + end_column
            else:
                start, end = pos.offset(line, column), pos.offset(end_line, end_column)
        if shape is _FSTRING:
            self.located.update(part_spans(self.text, start, end, node))  # type: ignore[arg-type]  # a JoinedStr
        if shape is _EXPRESSION or shape is _FSTRING:
            return widen(self.text, start, end)
        if shape is _DEFINITION and node.decorator_list:  # type: ignore[attr-defined]  # a def or class
            first = node.decorator_list[0]  # type: ignore[attr-defined]  # idem
            at = self.text.rfind("@", 0, self.pos.offset(first.lineno, first.col_offset))
            start = min(start, at)
        return start, end


#: How :meth:`_Builder._span` treats a node, by the node's exact type (worked out once per type).
_MODULE, _EXPRESSION, _FSTRING, _DEFINITION, _OTHER = "module", "expression", "f-string", "definition", "other"
_SHAPES: dict[type, str] = {}


def _statements_by_text(tree: Tree) -> dict[str, tuple[int, int]]:
    """The statements of ``tree``'s module body and of its classes' bodies, by their text: each one's id and
    the id after its last node (a node's descendants follow it in pre-order, deeper than it)."""
    nodes = tree.nodes
    ends = [len(nodes)] * len(nodes)
    open_: list[int] = []
    for node in nodes:
        while open_ and nodes[open_[-1]].depth >= node.depth:
            ends[open_.pop()] = node.id
        open_.append(node.id)
    known: dict[str, tuple[int, int]] = {}
    text = tree.text
    for node in nodes:
        if node.field == "body" and (node.parent == 0 or nodes[node.parent].kind == "ClassDef"):
            known.setdefault(text[node.start : node.end], (node.id, ends[node.id]))
    return known


def _shape(kind: type) -> str:
    if issubclass(kind, ast.Module):
        return _MODULE
    if issubclass(kind, ast.JoinedStr) and sys.version_info < (3, 12):
        return _FSTRING  # its parts' spans come from the text: the parser's are not exact before 3.12
    if issubclass(kind, ast.expr):
        return _EXPRESSION
    if issubclass(kind, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return _DEFINITION
    return _OTHER


def numbered(
    module: ast.AST, first: tuple[ast.AST, int, str, int, int] | None = None, first_id: int = 0
) -> Iterator[tuple[ast.AST, int, str, int, int]]:
    """The model's nodes in id order (pre-order): (ast node, parent id, field, index, depth).

    The one numbering: :class:`Tree` is built from it, and the scope analysis
    numbers its own parse of a tree's text with it. Iterative: deep expressions
    must not hit the recursion limit. ``first`` and ``first_id``: a subtree's
    root entry and id (a module's statement numbered on its own).
    """
    stack: list[tuple[ast.AST, int, str, int, int]] = [first or (module, -1, "", -1, 0)]
    node_id = first_id
    modelled = _modelled
    while stack:
        entry = stack.pop()
        yield entry
        node, depth = entry[0], entry[4] + 1
        if OPAQUE and isinstance(node, OPAQUE):
            node_id += 1
            continue
        children: list[tuple[ast.AST, int, str, int, int]] = []
        for name in node._fields:
            value: Any = getattr(node, name, None)
            if type(value) is list:
                children.extend((item, node_id, name, i, depth) for i, item in enumerate(value) if modelled(item))
            elif modelled(value):
                children.append((value, node_id, name, -1, depth))
        children.reverse()
        stack.extend(children)
        node_id += 1


def _modelled(value: object) -> bool:
    """Whether a field's value is a node of the model (a node with text: not an operator, nor an empty
    ``arguments``), by its exact type, once per type."""
    kind = type(value)
    known = _MODELLED.get(kind)
    if known is None:
        known = _MODELLED[kind] = issubclass(kind, ast.AST) and not issubclass(kind, SKIPPED)
    return known and (kind is not ast.arguments or not is_empty_arguments(value))  # type: ignore[arg-type]


_MODELLED: dict[type, bool] = {}


def is_empty_arguments(node: ast.AST) -> bool:
    """Whether ``node`` is a ``def f():`` parameter list, which has no text and so no node."""
    return isinstance(node, ast.arguments) and not (
        node.posonlyargs or node.args or node.vararg or node.kwonlyargs or node.kwarg
    )


def _name_of(node: ast.AST, field_name: str) -> str | None:
    if field_name == "asname":  # an alias: its ``as`` name, else the imported name
        return node.asname or node.name  # type: ignore[attr-defined, no-any-return]
    return getattr(node, field_name)  # type: ignore[no-any-return]


#: The field that holds a node's name, by the node's exact type.
_NAME_FIELDS: dict[type, str] = {
    ast.Name: "id", ast.FunctionDef: "name", ast.AsyncFunctionDef: "name", ast.ClassDef: "name",
    ast.arg: "arg", ast.alias: "asname", ast.keyword: "arg", ast.Attribute: "attr",
}


class _Structure:
    """Computes sequences, drop spans and indentation for a numbered tree."""

    def __init__(self, builder: _Builder, tree: Tree) -> None:
        self.b = builder
        self.tree = tree
        self.text = builder.text
        self.sequences: list[Sequence] = []

    def build(self) -> None:
        tree = self.tree
        nodes, all_items, indents, text = tree.nodes, tree.items, tree.indents, self.text

        def start_of(item: Item) -> int:
            return nodes[item].start if isinstance(item, int) else item.start

        for node, fields in zip(nodes, tree.fields):
            if fields:  # a leaf has no items, no sequence and nothing to drop
                kind = node.kind
                if kind in _SEQUENCE_OWNERS:
                    sequences = list(self._sequences(node.id))
                    in_sequence = {i for s in sequences for e in s.elements for i in e.nodes}
                    items: list[Item] = [c for ids in fields.values() for c in ids if c not in in_sequence]
                    items.extend(sequences)
                else:  # most nodes: their children, in the text's order
                    items = [c for ids in fields.values() for c in ids]
                if len(items) > 1:
                    items.sort(key=start_of)
                all_items[node.id] = tuple(items)
                if kind in _DROP_OWNERS:
                    self._drop_spans(node.id)
            if node.kind in STATEMENTS:
                start = self.b.pos.line_start(node.start)
                prefix = text[start : node.start]
                if prefix.strip(" \t\f") == "":
                    indents[node.id] = prefix

    # --- sequences -------------------------------------------------------

    def _seq(self, owner: int, kind: str, elements: list[Element], empty: str = "") -> Sequence | None:
        if not elements:
            return None
        if kind in ("comma", "tuple"):
            last = elements[-1]
            after = last.end
            while after < len(self.text) and self.text[after] in SPACE:
                after += 1
            owner_end = self.tree.nodes[owner].end
            if after < owner_end and self.text[after] == ",":  # a trailing comma goes with the last one
                elements[-1] = Element(last.key, last.start, after + 1, last.nodes)
        owner_kind = self.tree.nodes[owner].kind
        min_kept = 1 if kind in _NEEDS_ONE or (kind == "comma" and owner_kind in _NEEDS_ONE) else 0
        sequence = Sequence(len(self.sequences), owner, kind, tuple(elements), empty, min_kept)
        self.sequences.append(sequence)
        for position, element in enumerate(elements):
            self.tree.element_of[element.key] = (sequence, position)
        return sequence

    def _simple(self, ids: tuple[int, ...]) -> list[Element]:
        nodes = self.tree.nodes
        return [Element(i, nodes[i].start, nodes[i].end, (i,)) for i in ids]

    def _sequences(self, node_id: int) -> Iterator[Sequence]:
        tree = self.tree
        node = tree.nodes[node_id]
        kind = node.kind
        f = tree.fields[node_id]
        made: list[Sequence | None] = []
        for block in ("body", "orelse", "finalbody"):
            if block in f and tree.nodes[f[block][0]].kind in STATEMENTS:
                empty = "" if kind == "Module" else "pass"
                sequence = self._seq(node_id, "block", self._simple(f[block]), empty)
                if sequence is not None:
                    tree.blocks[(node_id, block)] = sequence
                made.append(sequence)
        if "handlers" in f:
            made.append(self._seq(node_id, "handlers", self._simple(f["handlers"])))
        if "cases" in f:
            made.append(self._seq(node_id, "cases", self._simple(f["cases"])))
        if kind in ("Call", "ClassDef"):
            ids = f.get("args", ()) + f.get("bases", ()) + f.get("keywords", ())
            ids = tuple(sorted(ids, key=lambda i: tree.nodes[i].start))
            made.append(self._seq(node_id, "comma", self._simple(ids), "()" if self._owns_parentheses(node_id) else ""))
        if kind in ("List", "Set", "Tuple", "Delete", "Import", "ImportFrom", "With", "AsyncWith"):
            field_name = {"Delete": "targets", "Import": "names", "ImportFrom": "names"}.get(
                kind, "items" if kind in ("With", "AsyncWith") else "elts"
            )
            seq_kind = "tuple" if kind == "Tuple" else "comma"
            elements = self._simple(f.get(field_name, ()))
            bare = kind == "Tuple" and bool(elements) and elements[0].start == node.start  # ``a, b`` (no brackets)
            made.append(self._seq(node_id, seq_kind, elements, "()" if bare else ""))
        if kind == "Dict":
            made.append(self._seq(node_id, "comma", self._dict_elements(node_id)))
        if kind == "BoolOp":
            made.append(self._seq(node_id, "boolop", self._simple(f.get("values", ()))))
        if kind == "comprehension" and "ifs" in f:
            made.append(self._seq(node_id, "ifs", self._if_elements(f["ifs"])))
        if kind in ("ListComp", "SetComp", "GeneratorExp", "DictComp"):
            made.append(self._seq(node_id, "generators", self._simple(f.get("generators", ()))))
        if kind == "arguments":
            made.append(self._seq(node_id, "comma", self._parameter_elements(node_id)))
        if kind in ("FunctionDef", "AsyncFunctionDef", "ClassDef") and "decorator_list" in f:
            made.append(self._seq(node_id, "decorators", self._decorator_elements(node_id)))
        yield from (s for s in made if s is not None)

    def _owns_parentheses(self, node_id: int) -> bool:
        """``f(x for x in y)``: the generator's span holds the call's parentheses, which stay when it goes."""
        f = self.tree.fields[node_id]
        nodes = self.tree.nodes
        args = f.get("args", ())
        if self.tree.nodes[node_id].kind != "Call" or len(args) != 1 or f.get("keywords"):
            return False
        argument = nodes[args[0]]
        return argument.kind == "GeneratorExp" and self.text[nodes[f["func"][0]].end : argument.start].strip() == ""

    def _dict_elements(self, node_id: int) -> list[Element]:
        dict_ast = self.b.asts[node_id]
        assert isinstance(dict_ast, ast.Dict)
        values = self.tree.fields[node_id].get("values", ())
        keys = iter(self.tree.fields[node_id].get("keys", ()))
        nodes = self.tree.nodes
        elements = []
        for key_ast, value in zip(dict_ast.keys, values):
            if key_ast is None:
                start = self.text.rfind("**", 0, nodes[value].start)
                elements.append(Element(value, start, nodes[value].end, (value,)))
            else:
                key = next(keys)
                elements.append(Element(value, nodes[key].start, nodes[value].end, (key, value)))
        return elements

    def _if_elements(self, ids: tuple[int, ...]) -> list[Element]:
        nodes = self.tree.nodes
        return [Element(i, self.text.rfind("if", 0, nodes[i].start), nodes[i].end, (i,)) for i in ids]

    def _parameter_elements(self, node_id: int) -> list[Element]:
        args_ast = self.b.asts[node_id]
        assert isinstance(args_ast, ast.arguments)
        f = self.tree.fields[node_id]
        nodes = self.tree.nodes
        text = self.text
        elements: list[Element] = []
        positional = f.get("posonlyargs", ()) + f.get("args", ())
        positional = tuple(sorted(positional, key=lambda i: nodes[i].start))
        defaults = f.get("defaults", ())
        first_default = len(positional) - len(defaults)
        for i, arg in enumerate(positional):
            members: tuple[int, ...] = (arg,) if i < first_default else (arg, defaults[i - first_default])
            if len(members) == 2:
                self.tree.drop_spans[members[1]] = (nodes[arg].end, nodes[members[1]].end)
            end = nodes[members[-1]].end
            if args_ast.posonlyargs and i == len(args_ast.posonlyargs) - 1:
                end = text.index("/", end) + 1  # the marker goes with the last positional-only one
            elements.append(Element(arg, nodes[arg].start, end, members))
        vararg = f.get("vararg", ())
        kwonly = f.get("kwonlyargs", ())
        kw_defaults = iter(f.get("kw_defaults", ()))
        if vararg:
            start = star_before(text, nodes[vararg[0]].start)
            elements.append(Element(vararg[0], start, nodes[vararg[0]].end, vararg))
        for i, arg in enumerate(kwonly):
            has_default = args_ast.kw_defaults[i] is not None
            members = (arg,)
            if has_default:
                default = next(kw_defaults)
                members = (arg, default)
                self.tree.drop_spans[default] = (nodes[arg].end, nodes[default].end)
            start = nodes[arg].start
            if i == 0 and not vararg:
                start = star_before(text, start)  # a bare * goes with the first keyword-only one
            elements.append(Element(arg, start, nodes[members[-1]].end, members))
        kwarg = f.get("kwarg", ())
        if kwarg:
            start = text.rfind("**", 0, nodes[kwarg[0]].start)
            elements.append(Element(kwarg[0], start, nodes[kwarg[0]].end, kwarg))
        return elements

    def _decorator_elements(self, node_id: int) -> list[Element]:
        nodes = self.tree.nodes
        ids = self.tree.fields[node_id]["decorator_list"]
        header = self._header_start(node_id)
        elements = []
        for position, dec in enumerate(ids):
            start = self.text.rfind("@", 0, nodes[dec].start)
            end = (
                self.text.rfind("@", 0, nodes[ids[position + 1]].start)
                if position + 1 < len(ids)
                else header
            )
            elements.append(Element(dec, start, end, (dec,)))
        return elements

    def _header_start(self, node_id: int) -> int:
        """Offset of ``def``/``class``/``async`` of a decorated definition: what follows its last decorator
        (read in the text: a statement copied from an earlier tree has that tree's ``ast`` positions)."""
        return forward(self.text, self.tree.nodes[self.tree.fields[node_id]["decorator_list"][-1]].end)

    # --- drop spans ------------------------------------------------------

    def _drop_spans(self, node_id: int) -> None:
        tree = self.tree
        nodes = tree.nodes
        node = nodes[node_id]
        f = tree.fields[node_id]
        drops = tree.drop_spans
        text = self.text

        def only(name: str) -> int | None:
            ids = f.get(name, ())
            return ids[0] if ids else None

        if node.kind == "arg" and (ann := only("annotation")) is not None:
            drops[ann] = (node.start + len(node.name or ""), nodes[ann].end)
        elif node.kind in ("FunctionDef", "AsyncFunctionDef") and (ret := only("returns")) is not None:
            arrow = text.rfind("->", 0, nodes[ret].start)
            close = text.rfind(")", 0, arrow) + 1
            drops[ret] = (close, nodes[ret].end)
        elif node.kind == "AnnAssign" and (value := only("value")) is not None:
            drops[value] = (nodes[f["annotation"][0]].end, nodes[value].end)
        elif node.kind == "withitem" and (names := only("optional_vars")) is not None:
            drops[names] = (nodes[f["context_expr"][0]].end, nodes[names].end)
        elif node.kind == "Assert" and (msg := only("msg")) is not None:
            drops[msg] = (nodes[f["test"][0]].end, nodes[msg].end)
        elif node.kind == "Raise" and (cause := only("cause")) is not None:
            drops[cause] = (nodes[f["exc"][0]].end, nodes[cause].end)
        elif node.kind in ("Return", "Yield") and (value := only("value")) is not None:
            drops[value] = (node.start + len("return" if node.kind == "Return" else "yield"), nodes[value].end)
        elif node.kind == "Slice":
            for part in ("lower", "upper", "step"):
                if (child := only(part)) is not None:
                    drops[child] = (nodes[child].start, nodes[child].end)
        elif node.kind == "ExceptHandler" and (exc := only("type")) is not None:
            keyword_end = node.start + len("except")
            if text[keyword_end : nodes[exc].start].strip().startswith("*"):
                return  # ``except*`` needs its type
            colon = text.index(":", nodes[exc].end)
            drops[exc] = (keyword_end, colon)


#: Node kinds that may own a sequence (:meth:`_Structure._sequences`): a block, handlers, cases, or a kind named there.
_SEQUENCE_OWNERS = frozenset(
    name
    for name in dir(ast)
    if isinstance(getattr(ast, name), type) and issubclass(getattr(ast, name), ast.AST)
    and {"body", "orelse", "finalbody", "handlers", "cases"} & set(getattr(ast, name)._fields)
) | {
    "Call", "ClassDef", "List", "Set", "Tuple", "Delete", "Import", "ImportFrom", "With", "AsyncWith", "Dict",
    "BoolOp", "comprehension", "ListComp", "SetComp", "GeneratorExp", "DictComp", "arguments",
    "FunctionDef", "AsyncFunctionDef", "TryStar", "Match", "match_case", "TypeAlias",
}

#: Node kinds that may give a child a drop span (:meth:`_Structure._drop_spans`).
_DROP_OWNERS = frozenset(
    {"arg", "FunctionDef", "AsyncFunctionDef", "AnnAssign", "withitem", "Assert", "Raise", "Return", "Yield", "Slice",
     "ExceptHandler"}
)

#: Sequence kinds and owners that need at least one element to stay valid syntax.
_NEEDS_ONE = frozenset(
    {"handlers", "boolop", "generators", "cases", "Import", "ImportFrom", "Delete", "With", "AsyncWith"}
)

def parse_or_none(text: str, like: Tree | None = None) -> Tree | None:
    """Parse (``like``: see :func:`parse`), or ``None`` when the text is not valid or nests too deeply."""
    try:
        return parse(text, like=like)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


if sys.version_info < (3, 10):  # pragma: no cover
    raise ImportError("astreduce's tree model needs Python 3.10 or newer")
