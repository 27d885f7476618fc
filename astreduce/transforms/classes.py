"""Classes: merge a base into its only subclass, turn a class into functions, drop uncalled methods."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from astreduce.source.render import DROP, BlockHole, Edit, Hole, Part, Replacement, Slice
from astreduce.source.scope import FUNCTIONS, Analysis, is_dunder, is_super_call, member_names, shrinks
from astreduce.transforms import Opportunity, ScopeTransform
from astreduce.transforms.definitions import closing_parenthesis
from astreduce.transforms.inlining import Site, inline_statements


def _docstring(body: list[ast.stmt]) -> ast.stmt | None:
    first = body[0] if body else None
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        return first
    return None


class MergeBase(ScopeTransform[ast.ClassDef]):
    """Merge a base class into its only subclass.

    Applies to: an undecorated class of the file that exactly one class of
    the file (in the same scope, undecorated) derives from.
    Yields: the base removed; its members that the subclass does not
    override copied to the top of the subclass; the subclass's reference to
    the base replaced by the base's own bases; other uses of the base's name
    → the subclass's name; ``super().m`` in the subclass → ``self.m`` for a
    copied ``m``; a statement ``super().m(...)`` for a method ``m`` that the
    subclass overrides → the base's ``m`` inlined there (parameters bound
    first, as ``inline-call`` does).
    Notes: not proposed when such a call cannot be inlined (used as a value
    inside an expression, an early ``return``, another name for ``self``)
    or the subclass uses ``super(...)`` with arguments.
    """

    name = "merge-base"
    node_kinds = frozenset({"ClassDef"})

    def proposals(self, a: Analysis, base: ast.ClassDef) -> Iterator[Opportunity]:
        edits = _merge(a, base)
        if edits is not None and shrinks(a, edits, parse=True):
            yield Opportunity(self.name, a.id(base), edits)  # type: ignore[arg-type]  # numbered


def _merge(a: Analysis, base: ast.ClassDef) -> dict[int, Edit] | None:
    if base.decorator_list:
        return None
    scope = a.scope(base)
    if a.bindings_of(scope, base.name) != [base]:
        return None
    uses = a.uses_of(scope, base.name)
    derived = [u for u in uses if isinstance(a.parent(u), ast.ClassDef) and u in a.parent(u).bases]  # type: ignore[union-attr]  # checked
    if len(derived) != 1:
        return None
    reference = derived[0]
    sub = a.parent(reference)
    assert isinstance(sub, ast.ClassDef)
    if sub.decorator_list or a.scope(sub) is not scope or a.bindings_of(scope, sub.name) != [sub]:
        return None
    position = sub.bases.index(reference)
    if base.keywords and (position != len(sub.bases) - 1 or sub.keywords):
        return None
    tree = a.tree
    base_id, sub_id, reference_id = a.id(base), a.id(sub), a.id(reference)
    if base_id is None or sub_id is None or reference_id is None or not tree.is_droppable(base_id):
        return None
    if (base_id, "body") not in tree.blocks or (sub_id, "body") not in tree.blocks:
        return None
    # what the subclass overrides, and what it asks of super()
    overridden: set[str] = set()
    for statement in sub.body:
        overridden |= member_names(statement)
    base_members: set[str] = set()
    for statement in base.body:
        base_members |= member_names(statement)
    edits: dict[int, Edit] = {base_id: DROP}
    for node in ast.walk(sub):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "super"
            and (node.args or node.keywords)
        ):
            return None
        if isinstance(node, ast.Attribute) and is_super_call(node.value):
            if node.attr in base_members:
                method = _enclosing_function(a, node)
                if method is None or not (method.args.posonlyargs + method.args.args):
                    return None
                self_name = (method.args.posonlyargs + method.args.args)[0].arg
                if node.attr in overridden:
                    inlined = _inline_super_call(a, base, node, self_name)
                    if inlined is None:
                        return None
                    edits.update(inlined)
                    continue
                call_id = a.id(node.value)
                if call_id is None:
                    return None
                edits[call_id] = Replacement.text(self_name)
    # the base's bases take its place in the subclass's list
    listed = base.bases + [k for k in base.keywords]
    if listed:
        parts: list[Part] = []
        for index, item in enumerate(listed):
            item_id = a.id(item)
            if item_id is None:
                return None
            parts += ([", "] if index else []) + [Hole(item_id)]
        edits[reference_id] = Replacement(tuple(parts))
    elif len(sub.bases) == 1 and not sub.keywords:
        # the list would be empty: ``class Sub(Base):`` → ``class Sub:``
        text = tree.text
        opening = text.rfind("(", tree.nodes[sub_id].start, tree.nodes[reference_id].start)
        closing = closing_parenthesis(text, tree.nodes[reference_id].end)
        if opening < 0 or closing < 0:
            return None
        edits[sub_id] = Replacement(
            (Slice(tree.nodes[sub_id].start, opening), Slice(closing + 1, tree.nodes[sub_id].end))
        )
    else:
        edits[reference_id] = DROP
    for use in uses:
        if use is not reference:
            use_id = a.id(use)
            if use_id is None:
                return None
            edits[use_id] = Replacement.text(sub.name)
    # copy the members the subclass does not override
    copied = 0
    for statement in base.body:
        statement_id = a.id(statement)
        if statement_id is None:
            return None
        names = member_names(statement)
        if (
            statement is _docstring(base.body)
            or isinstance(statement, ast.Pass)
            or (names and names <= overridden)
        ):
            edits[statement_id] = DROP
        else:
            copied += 1
    if copied:
        first_base = a.id(base.body[0])
        anchor = next((s for s in sub.body if s is not _docstring(sub.body)), None)
        if anchor is None or first_base not in tree.indents:
            return None
        anchor_id = a.id(anchor)
        if anchor_id is None or anchor_id not in tree.indents:
            return None
        anchor_node = tree.nodes[anchor_id]
        if isinstance(anchor, ast.Pass) or (
            isinstance(anchor, ast.Expr)
            and isinstance(anchor.value, ast.Constant)
            and anchor.value.value is Ellipsis
        ):
            edits[anchor_id] = Replacement((BlockHole(base_id, "body"),))
        else:
            indent = tree.indents[anchor_id]
            edits[anchor_id] = Replacement(
                (
                    BlockHole(base_id, "body"),
                    "\n" + indent,
                    Slice(anchor_node.start, anchor_node.end),
                )
            )
    return edits


def _inline_super_call(
    a: Analysis, base: ast.ClassDef, attribute: ast.Attribute, self_name: str
) -> dict[int, Edit] | None:
    """``super().m(...)`` as a statement → the body of the base's ``m``, which is going away."""
    call = a.parent(attribute)
    defined = [s for s in base.body if attribute.attr in member_names(s)]
    if not (isinstance(call, ast.Call) and call.func is attribute and len(defined) == 1):
        return None
    (method,) = defined
    if not isinstance(method, ast.FunctionDef) or method.decorator_list:
        return None
    if any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Nonlocal)) for n in a.own_nodes(method)):
        return None
    edits = inline_statements(a, Site(method, call, ast.Name(id=self_name, ctx=ast.Load())))
    if edits is None:
        return None
    method_id = a.id(method)
    edits.pop(method_id, None)  # type: ignore[arg-type]  # the merge drops the overridden member itself
    return edits


def _enclosing_function(
    a: Analysis, node: ast.AST
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    current = a.parent(node)
    while current is not None and not isinstance(current, FUNCTIONS):
        current = a.parent(current)
    return current


class ClassToFunctions(ScopeTransform[ast.ClassDef]):
    """Turn a class whose methods never use ``self`` into module-level functions.

    Applies to: an undecorated module-level class without bases whose body
    holds only methods (and a docstring) that are not dunder methods, carry
    no decorator but ``@staticmethod``, never read their first parameter,
    and whose names are free at module level; every use of the class is
    ``Cls().m(...)``, ``Cls.m(...)`` for a static method, or ``obj = Cls()``
    with ``obj`` bound once and only used as ``obj.m(...)``. Otherwise, the
    methods of a module-level class that never read ``self``, whose name is
    defined once in the file and only ever called as ``x.m(...)``.
    Yields: the whole class as functions (``Cls().m`` and ``obj.m`` → ``m``,
    ``obj = Cls()`` dropped) when it qualifies; else every such method moved
    after the class as a function without ``self``, each call
    ``x.m(...)`` → ``m(...)`` (``Cls.m(obj, ...)`` loses ``obj``); then each
    such method alone.
    """

    name = "class-to-functions"
    node_kinds = frozenset({"ClassDef"})
    ranked = True

    def walk(self, a: Analysis) -> list[ast.ClassDef]:
        """The classes of the module's own body (not those nested in a block or a class)."""
        return [cls for cls in a.module.body if isinstance(cls, ast.ClassDef)]

    def proposals(self, a: Analysis, cls: ast.ClassDef) -> Iterator[Opportunity]:
        cls_id = a.id(cls)
        assert cls_id is not None
        edits = _to_functions(a, cls)
        if edits is not None and shrinks(a, edits, parse=True):
            yield Opportunity(self.name, cls_id, edits)
            return
        movable = [m for m in cls.body if isinstance(m, FUNCTIONS) and _movable(a, cls, m)]
        together = _move_out(a, cls, movable)
        if together is not None and shrinks(a, together, parse=True):
            yield Opportunity(self.name, cls_id, together)
        if len(movable) > 1:
            for method in movable:
                alone = _move_out(a, cls, [method])
                if alone is not None:
                    yield Opportunity(self.name, a.id(method) or cls_id, alone, 1)


def _movable(
    a: Analysis, cls: ast.ClassDef, method: ast.FunctionDef | ast.AsyncFunctionDef
) -> bool:
    """Whether ``method`` can leave its class as a function (see :func:`_move_out`)."""
    name = method.name
    method_id = a.id(method)
    if method_id is None or method_id not in a.tree.indents or name.startswith("__"):
        return False
    if name in a.strings or any(n == name for (_, n) in a.uses):
        return False
    if [b for (_, n), nodes in a.bindings.items() if n == name for b in nodes] != [method]:
        return False
    decorators = method.decorator_list
    static = (
        len(decorators) == 1
        and isinstance(decorators[0], ast.Name)
        and decorators[0].id == "staticmethod"
    )
    if decorators and not static:
        return False
    if any(isinstance(n, ast.Name) and n.id in ("super", "__class__") for n in ast.walk(method)):
        return False
    if not static:
        params = method.args.posonlyargs + method.args.args
        if not params:
            return False
        scope = a.body_scope(method)
        if a.uses_of(scope, params[0].arg) or a.bindings_of(scope, params[0].arg) != [params[0]]:
            return False
    for attribute in a.attributes.get(name, ()):
        call = a.parent(attribute)
        if not (
            isinstance(call, ast.Call)
            and call.func is attribute
            and isinstance(attribute.ctx, ast.Load)
        ):
            return False
        receiver = attribute.value
        if isinstance(receiver, ast.Name):
            home = a.resolved.get(id(receiver))
            bound = a.bindings_of(home, receiver.id) if home is not None else []
            if any(isinstance(b, ast.alias) for b in bound):
                return False  # ``module.m(...)`` is somebody else's
            if (
                not static
                and bound == [cls]
                and (not call.args or isinstance(call.args[0], ast.Starred))
            ):
                return False  # ``Cls.m(*args)``: which one is the instance?
    return True


def _move_out(
    a: Analysis, cls: ast.ClassDef, methods: list[ast.FunctionDef | ast.AsyncFunctionDef]
) -> dict[int, Edit] | None:
    """Edits moving ``methods`` after ``cls`` as functions and rewriting their calls."""
    tree = a.tree
    cls_id = a.id(cls)
    if not methods or cls_id is None or cls_id not in tree.indents or tree.indents[cls_id]:
        return None
    edits: dict[int, Edit] = {}
    parts: list[Part] = [Slice(tree.nodes[cls_id].start, tree.nodes[cls_id].end)]
    for method in methods:
        method_id = a.id(method)
        if method_id is None:
            return None
        edits[method_id] = DROP
        static = bool(method.decorator_list)
        for decorator in method.decorator_list:
            decorator_id = a.id(decorator)
            if decorator_id is None:
                return None
            edits[decorator_id] = DROP
        if not static:
            first = a.id((method.args.posonlyargs + method.args.args)[0])
            if first is None:
                return None
            edits[first] = DROP
        for attribute in a.attributes.get(method.name, ()):
            call = a.parent(attribute)
            attribute_id = a.id(attribute)
            if not isinstance(call, ast.Call) or attribute_id is None:
                return None
            edits[attribute_id] = Replacement.text(method.name)
            receiver = attribute.value
            if not static and isinstance(receiver, ast.Name) and receiver.id == cls.name:
                home = a.resolved.get(id(receiver))
                if home is not None and a.bindings_of(home, receiver.id) == [cls]:
                    instance = a.id(call.args[0])
                    if instance is None or not tree.is_droppable(instance):
                        return None
                    edits[instance] = DROP
        parts += ["\n\n\n", Hole(method_id)]
    edits[cls_id] = Replacement(tuple(parts))
    return edits


def _to_functions(a: Analysis, cls: ast.ClassDef) -> dict[int, Edit] | None:
    tree = a.tree
    module = a.module_scope
    cls_id = a.id(cls)
    if cls.decorator_list or cls.keywords or cls_id is None or cls_id not in tree.indents:
        return None
    if any(not (isinstance(b, ast.Name) and b.id == "object") for b in cls.bases):
        return None
    if a.bindings_of(module, cls.name) != [cls] or (cls_id, "body") not in tree.blocks:
        return None
    docstring = _docstring(cls.body)
    methods: dict[str, bool] = {}
    edits: dict[int, Edit] = {}
    for statement in cls.body:
        statement_id = a.id(statement)
        if statement_id is None:
            return None
        if statement is docstring:
            edits[statement_id] = DROP
            continue
        if (
            not isinstance(statement, FUNCTIONS)
            or is_dunder(statement.name)
            or statement.name in methods
        ):
            return None
        static = False
        for decorator in statement.decorator_list:
            decorator_id = a.id(decorator)
            if (
                not (isinstance(decorator, ast.Name) and decorator.id == "staticmethod")
                or decorator_id is None
            ):
                return None
            static = True
            edits[decorator_id] = DROP
        name = statement.name
        if a.bindings_of(module, name) or any(n == name for (_, n) in a.uses) or name in a.strings:
            return None
        if not static:
            params = statement.args.posonlyargs + statement.args.args
            if not params:
                return None
            first_id = a.id(params[0])
            if first_id is None or a.uses_of(a.body_scope(statement), params[0].arg):
                return None
            if any(isinstance(n, ast.Name) and n.id == "super" for n in ast.walk(statement)):
                return None
            edits[first_id] = DROP
        methods[name] = static
    if not methods:
        return None
    first = a.id(cls.body[0])
    if first is None or first not in tree.indents:
        return None
    edits[cls_id] = Replacement((BlockHole(cls_id, "body"),))
    for use in a.uses_of(module, cls.name):
        if not _rewrite_use(a, use, methods, edits):
            return None
    return edits


def _rewrite_use(
    a: Analysis, use: ast.Name, methods: dict[str, bool], edits: dict[int, Edit]
) -> bool:
    """Rewrite one use of the class (``Cls().m``, ``Cls.m``, ``obj = Cls()``); False when it cannot be."""
    parent = a.parent(use)
    if isinstance(parent, ast.Attribute):  # Cls.m(...) for a static method
        return methods.get(parent.attr) is True and _call_through(a, parent, edits)
    if not (
        isinstance(parent, ast.Call)
        and parent.func is use
        and not parent.args
        and not parent.keywords
    ):
        return False
    outer = a.parent(parent)
    if isinstance(outer, ast.Attribute):  # Cls().m(...)
        return parent.func is use and outer.attr in methods and _call_through(a, outer, edits)
    if (
        isinstance(outer, ast.Assign)
        and len(outer.targets) == 1
        and isinstance(outer.targets[0], ast.Name)
    ):
        variable = outer.targets[0]
        scope = a.scope(variable)
        statement_id = a.id(outer)
        if a.bindings_of(scope, variable.id) != [variable] or statement_id is None:
            return False
        if not a.tree.is_droppable(statement_id):
            return False
        for reader in a.uses_of(scope, variable.id):
            attribute = a.parent(reader)
            if not (isinstance(attribute, ast.Attribute) and attribute.attr in methods):
                return False
            if not _call_through(a, attribute, edits):
                return False
        edits[statement_id] = DROP
        return True
    return False


def _call_through(a: Analysis, attribute: ast.Attribute, edits: dict[int, Edit]) -> bool:
    """``<receiver>.m(...)`` → ``m(...)``."""
    call = a.parent(attribute)
    attribute_id = a.id(attribute)
    if not (isinstance(call, ast.Call) and call.func is attribute) or attribute_id is None:
        return False
    edits[attribute_id] = Replacement.text(attribute.attr)
    return True


class DropUncalledMethods(ScopeTransform[ast.ClassDef]):
    """Drop the methods of a class that nothing in the file refers to by name.

    Applies to: methods (not dunder methods) whose name occurs nowhere else
    in the file: not as an attribute, a name, or a string.
    Yields: all such methods of a class at once, then (when there are
    several) each one alone.
    """

    name = "drop-uncalled-methods"
    node_kinds = frozenset({"ClassDef"})
    ranked = True

    def proposals(self, a: Analysis, cls: ast.ClassDef) -> Iterator[Opportunity]:
        uncalled: list[int] = []
        for statement in cls.body:
            statement_id = a.id(statement)
            if (
                not isinstance(statement, FUNCTIONS)
                or is_dunder(statement.name)
                or statement_id is None
            ):
                continue
            if not a.tree.is_droppable(statement_id) or _referenced(a, statement):
                continue
            uncalled.append(statement_id)
        if not uncalled:
            return
        yield Opportunity(self.name, uncalled[0], dict.fromkeys(uncalled, DROP), 0)
        if len(uncalled) > 1:
            for method in uncalled:
                yield Opportunity(self.name, method, {method: DROP}, 1)


def _referenced(a: Analysis, method: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    name = method.name
    if name in a.strings or a.attributes.get(name):
        return True
    return any(n == name for (_, n) in a.uses)
