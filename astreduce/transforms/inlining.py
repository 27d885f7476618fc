"""Inlining: a function called once → its body; a variable assigned once → its value; an import → a stub."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from astreduce.source.precedence import stands_alone, wrap
from astreduce.source.render import DROP, BlockHole, Edit, Hole, Part, Replacement
from astreduce.source.scope import Analysis, Scope, is_dunder, shrinks
from astreduce.source.tree import Tree
from astreduce.transforms import Opportunity, ScopeTransform
from astreduce.transforms.constants import is_constant

#: Expressions that cannot move to another place of the program as they are.
_UNMOVABLE = (ast.Yield, ast.YieldFrom, ast.Await, ast.NamedExpr, ast.Starred)


@dataclass(frozen=True)
class Site:
    """The only call of a function (or method) of the file."""

    function: ast.FunctionDef
    call: ast.Call
    receiver: ast.expr | None = None
    """For a method called as ``x.m(...)``: ``x``, which takes the place of ``self``."""


class CallInliner(ScopeTransform[Site]):
    """Base of the transforms that put a function's body in place of its only call (see :func:`single_calls`)."""

    node_kinds = frozenset({"FunctionDef"})

    def walk(self, a: Analysis) -> Iterator[Site]:
        return single_calls(a)


class InlineCall(CallInliner):
    """Replace the only call of a function or method with its return expression or its body.

    Applies to: a plain function defined in the file (no decorators, not a
    generator, not async) whose name is bound once and used once, as a call
    without ``*``/``**`` arguments; a method defined once in the file and
    used once, as ``x.m(...)`` (``x`` takes the place of ``self``; no
    ``super()`` or private names inside).
    Yields: when the body is a single ``return EXPR``, the call → ``EXPR``
    with each parameter replaced by its argument (or default), parenthesised
    where needed; when the call is a statement (``f(...)`` or ``x = f(...)``)
    inside a function, the body in its place — parameters bound by
    assignments first, a final ``return v`` → ``x = v`` (or ``v``),
    re-indented. The definition goes in the same proposal.
    Notes: a call statement at module level belongs to ``function-to-body``;
    a proposal that would not shrink the program is not made.
    """

    name = "inline-call"

    def proposals(self, a: Analysis, site: Site) -> Iterator[Opportunity]:
        edits = inline_expression(a, site)
        if edits is None and a.scope(site.call).node is not a.module:
            edits = inline_statements(a, site)
        if edits is not None and shrinks(a, edits, parse=True):
            yield Opportunity(self.name, a.id(site.function), edits)  # type: ignore[arg-type]  # numbered


def single_calls(a: Analysis) -> Iterator[Site]:
    """The only call of every plain function, and every method, of the file called exactly once."""
    for function in a.asts:
        if not isinstance(function, ast.FunctionDef) or function.decorator_list:
            continue
        scope = a.scope(function)
        if isinstance(scope.node, ast.ClassDef):
            site = _method_call(a, function, scope.node)
        else:
            site = _function_call(a, function)
        if site is None or a.id(site.call) is None or _nested_in(a, site.call, function):
            continue  # in an f-string; or recursion: the call goes with the definition
        if any(
            isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await, ast.Nonlocal))
            for n in a.own_nodes(function)
        ):
            continue
        yield site


def _function_call(a: Analysis, function: ast.FunctionDef) -> Site | None:
    scope = a.scope(function)
    if a.bindings_of(scope, function.name) != [function]:
        return None
    uses = a.uses_of(scope, function.name)
    if len(uses) != 1:
        return None
    call = a.parent(uses[0])
    if not isinstance(call, ast.Call) or call.func is not uses[0]:
        return None
    return Site(function, call)


def _method_call(a: Analysis, method: ast.FunctionDef, cls: ast.ClassDef) -> Site | None:
    """``x.m(...)``, the only use of method ``m`` (defined once in the file), with ``x`` for ``self``."""
    name = method.name
    if name.startswith("__") or name in a.strings or any(n == name for (_, n) in a.uses):
        return None
    if [b for (_, n), nodes in a.bindings.items() if n == name for b in nodes] != [method]:
        return None
    attributes = a.attributes.get(name, [])
    params = method.args.posonlyargs + method.args.args
    if len(attributes) != 1 or not params:
        return None
    attribute = attributes[0]
    call = a.parent(attribute)
    if not (isinstance(call, ast.Call) and call.func is attribute):
        return None
    receiver = attribute.value
    if isinstance(receiver, ast.Name) and receiver.id == cls.name:
        return None  # ``Cls.m(obj, ...)``
    for node in ast.walk(method):
        if isinstance(node, ast.Name) and node.id in ("super", "__class__"):
            return None
        spelled = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
        if isinstance(spelled, str) and spelled.startswith("__") and not is_dunder(spelled):
            return None  # a private name is mangled with the class's name
    self_uses = len(a.uses_of(a.body_scope(method), params[0].arg))
    if self_uses > 1 and not _is_dotted_name(receiver):
        return None  # the receiver would be evaluated more than once
    return Site(method, call, receiver)


def _is_dotted_name(node: ast.AST) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _nested_in(a: Analysis, node: ast.AST, root: ast.AST) -> bool:
    current = a.parent(node)
    while current is not None:
        if current is root:
            return True
        current = a.parent(current)
    return False


def bind_arguments(site: Site) -> dict[str, ast.expr] | None:
    """Parameter name → the expression it gets at the call (an argument, a default, the receiver)."""
    function, call = site.function, site.call
    args = function.args
    if args.vararg or args.kwarg or any(isinstance(x, ast.Starred) for x in call.args):
        return None
    if any(k.arg is None for k in call.keywords):
        return None
    positional = args.posonlyargs + args.args
    given = list(call.args) if site.receiver is None else [site.receiver, *call.args]
    if len(given) > len(positional):
        return None
    bound: dict[str, ast.expr] = {}
    for param, argument in zip(positional, given):
        bound[param.arg] = argument
    keyword_names = {p.arg for p in args.args + args.kwonlyargs}
    for keyword in call.keywords:
        if keyword.arg not in keyword_names or keyword.arg in bound:
            return None
        bound[keyword.arg] = keyword.value
    defaults = dict(
        zip([p.arg for p in positional[len(positional) - len(args.defaults) :]], args.defaults)
    )
    defaults.update((p.arg, d) for p, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None)
    for param in positional + args.kwonlyargs:
        if param.arg not in bound:
            if param.arg not in defaults:
                return None
            bound[param.arg] = defaults[param.arg]
    return bound


def body_statements(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.stmt]:
    """The body without its docstring."""
    body = list(function.body)
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        body = body[1:]
    return body


def _substitute(
    a: Analysis, function: ast.FunctionDef, root: ast.AST, bound: dict[str, ast.expr]
) -> dict[int, Edit] | None:
    """Edits replacing each read of a parameter inside ``root`` by its argument's text."""
    scope = a.body_scope(function)
    edits: dict[int, Edit] = {}
    for node in ast.walk(root):
        if isinstance(node, ast.Name) and a.resolved.get(id(node)) is scope:
            argument = bound.get(node.id)
            node_id, argument_id = a.id(node), a.id(argument) if argument is not None else None
            if argument is None or node_id is None or argument_id is None:
                return None
            before, after = wrap(a, argument, a.source(argument), node)
            edits[node_id] = Replacement((before, Hole(argument_id), after))
    return edits


def inline_expression(a: Analysis, site: Site) -> dict[int, Edit] | None:
    """The call → the function's single return expression, parameters substituted."""
    function, call = site.function, site.call
    body = body_statements(function)
    if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
        return None
    expression = body[0].value
    if any(isinstance(n, _UNMOVABLE) for n in ast.walk(expression)):
        return None
    scope = a.body_scope(function)
    if any(
        a.bindings_of(scope, n.id) and not isinstance(a.bindings_of(scope, n.id)[0], ast.arg)
        for n in ast.walk(expression)
        if isinstance(n, ast.Name)
    ):
        return None
    if not a.same_meaning(expression, scope, a.scope(call)):
        return None
    bound = bind_arguments(site)
    if bound is None:
        return None
    edits = _substitute(a, function, expression, bound)
    expression_id, call_id, function_id = a.id(expression), a.id(call), a.id(function)
    if edits is None or expression_id is None or call_id is None or function_id is None:
        return None
    before, after = wrap(a, expression, a.source(expression), call)
    edits[call_id] = Replacement((before, Hole(expression_id), after))
    edits[function_id] = DROP
    return edits


def inline_statements(a: Analysis, site: Site) -> dict[int, Edit] | None:
    """The call statement → the function's body, parameters bound first, re-indented.

    The call must be a whole statement (``f(...)`` or ``target = f(...)``)
    that begins a line; a ``return`` may only end the body. A method's body
    comes in only where ``self`` means the same (``self.m(...)`` in a method
    whose own first parameter is ``self``).
    """
    function, call = site.function, site.call
    statement = a.parent(call)
    if isinstance(statement, ast.Expr):
        target = None
    elif isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
    else:
        return None
    tree = a.tree
    statement_id, function_id = a.id(statement), a.id(function)
    if statement_id is None or function_id is None or not _owns_line(tree, statement_id):
        return None
    if isinstance(a.scope(statement).node, ast.ClassDef):
        return None
    body = body_statements(function)
    if not body:
        return None
    first_id = a.id(body[0])
    if first_id is None or first_id not in tree.indents or (function_id, "body") not in tree.blocks:
        return None
    last = body[-1]
    for node in a.own_nodes(function):
        if isinstance(node, (ast.Return, ast.Global)) and node is not last:
            return None
    scope = a.body_scope(function)
    for node in body:
        if not a.same_meaning(node, scope, a.scope(statement)):
            return None
    bound = bind_arguments(site)
    if bound is None:
        return None
    if site.receiver is not None:
        first = (function.args.posonlyargs + function.args.args)[0].arg
        receiver = site.receiver
        if not (isinstance(receiver, ast.Name) and receiver.id == first):
            return None
    indent = tree.indents[statement_id]
    parts: list[Part] = []
    for param, argument in bound.items():
        argument_id = a.id(argument)
        if not a.uses_of(scope, param):
            continue
        if isinstance(argument, ast.Name) and argument.id == param:
            continue  # ``x = x``: the name already holds the value there
        if argument_id is None:
            return None
        text = a.source(argument)
        bare = "\n" not in text.strip() or stands_alone(argument, text)
        opening, closing = (
            ("", "") if bare and not isinstance(argument, (ast.Tuple, *_UNMOVABLE)) else ("(", ")")
        )
        parts += [f"{param} = {opening}", Hole(argument_id), f"{closing}\n{indent}"]
    parts.append(BlockHole(function_id, "body"))
    edits: dict[int, Edit] = {}
    if len(body) < len(function.body):
        docstring = a.id(function.body[0])
        if docstring is not None:
            edits[docstring] = DROP
    target_id = a.id(target) if target is not None else None
    if target is not None and target_id is None:
        return None
    last_id = a.id(last)
    if isinstance(last, ast.Return) and last_id is not None:
        value_id = a.id(last.value) if last.value is not None else None
        if target_id is None:
            edits[last_id] = Replacement((Hole(value_id),)) if value_id is not None else DROP
        else:
            value: Part = Hole(value_id) if value_id is not None else "None"
            edits[last_id] = Replacement((Hole(target_id), " = ", value))
    elif target_id is not None:
        parts += [f"\n{indent}", Hole(target_id), " = None"]
    edits[statement_id] = Replacement(tuple(parts))
    edits[function_id] = DROP
    return edits


class InlineVariable(ScopeTransform[ast.Assign]):
    """Replace the uses of a variable assigned once with its value, and drop the assignment.

    Applies to: a name bound only by one plain assignment ``name = EXPR``
    (in a function, or in the module when the value is not a constant:
    that is ``name-to-constant``'s), read at least once, where every name
    ``EXPR`` reads means the same at each use; also the one name a
    function reads out of an unpacking ``a, name = EXPR``.
    Yields: every use → ``EXPR`` (parenthesised where needed; ``EXPR[i]``
    for the unpacking), the assignment dropped, in one proposal.
    Notes: a proposal that would not shrink the program is not made.
    """

    name = "inline-variable"
    node_kinds = frozenset({"Assign"})

    def proposals(self, a: Analysis, statement: ast.Assign) -> Iterator[Opportunity]:
        if len(statement.targets) != 1:
            return
        target, index = _read_target(a, statement.targets[0])
        if target is None:
            return
        scope = a.scope(target)
        if isinstance(scope.node, ast.ClassDef) or a.bindings_of(scope, target.id) != [target]:
            return
        if a.declared_nonlocal(target.id):
            return
        value = statement.value
        if scope.node is a.module and is_constant(value):
            return
        edits = inline_variable(a, scope, target.id, statement, value, index)
        if edits is not None and shrinks(a, edits):
            yield Opportunity(self.name, a.id(statement), edits)  # type: ignore[arg-type]  # numbered


def _read_target(a: Analysis, target: ast.expr) -> tuple[ast.Name | None, int | None]:
    """The name an assignment's uses read, and its position when the target unpacks.

    ``a, b = pair`` with ``a`` a local that is never read: ``b`` at 1, so
    that ``b`` can become ``pair[1]``. ``(None, None)`` when nothing fits.
    """
    if isinstance(target, ast.Name):
        return target, None
    if not isinstance(target, (ast.Tuple, ast.List)) or not all(isinstance(e, ast.Name) for e in target.elts):
        return None, None
    scope = a.scope(target)
    if not scope.is_function:
        return None, None  # module names may be read by an appended test
    read = [i for i, e in enumerate(target.elts) if a.uses_of(scope, e.id) or e.id in scope.globals or a.declared_nonlocal(e.id)]  # type: ignore[attr-defined]  # Names, checked above
    if len(read) != 1:
        return None, None
    return target.elts[read[0]], read[0]  # type: ignore[return-value]  # a Name, checked above


def inline_variable(
    a: Analysis, scope: Scope, name: str, statement: ast.stmt, value: ast.expr, index: int | None = None
) -> dict[int, Edit] | None:
    """Edits that replace every read of ``name`` with ``value`` (or ``value[index]``) and drop ``statement``."""
    if index is not None and not isinstance(value, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)):
        return None  # ``value[index]`` would need parentheses: not worth it
    uses = a.uses_of(scope, name)
    statement_id, value_id = a.id(statement), a.id(value)
    if (
        not uses
        or statement_id is None
        or value_id is None
        or not a.tree.is_droppable(statement_id)
    ):
        return None
    if any(isinstance(n, _UNMOVABLE) for n in ast.walk(value)):
        return None
    for node in ast.walk(value):
        if isinstance(node, ast.Name):
            home = a.resolved.get(id(node))
            if home is not None and home.is_function and len(a.bindings_of(home, node.id)) != 1:
                return None  # a local that changes: its value at a use may differ
    text = a.source(value)
    edits: dict[int, Edit] = {statement_id: DROP}
    for use in uses:
        use_id = a.id(use)
        if use_id is None or _nested_in(a, use, statement):
            return None
        if not a.same_meaning(value, a.scope(statement), a.scope(use)):
            return None
        if index is not None:
            edits[use_id] = Replacement((Hole(value_id), f"[{index}]"))
            continue
        before, after = wrap(a, value, text, use)
        edits[use_id] = Replacement((before, Hole(value_id), after))
    return edits


class ImportToStub(ScopeTransform[ast.Import]):
    """Replace ``import m`` whose only use is ``m.f`` with ``from m import f``, or with a stub of ``f``.

    Applies to: an ``import m`` (one name, not dotted) whose every use is the
    same attribute ``m.f``, where ``f`` is not a name of the file.
    Yields: ``from m import f`` with ``m.f`` → ``f``; then a local stub
    ``def f(*a, **k): pass`` instead of the import (that changes behaviour:
    the oracle decides).
    Notes: a proposal that would not shrink the program is not made.
    """

    name = "import-to-stub"
    node_kinds = frozenset({"Import"})
    ranked = True

    def proposals(self, a: Analysis, statement: ast.Import) -> Iterator[Opportunity]:
        if len(statement.names) != 1:
            return
        alias = statement.names[0]
        if "." in alias.name:
            return
        bound = alias.asname or alias.name
        scope = a.scope(statement)
        if a.bindings_of(scope, bound) != [alias]:
            return
        uses = a.uses_of(scope, bound)
        attributes = [a.parent(u) for u in uses]
        if not uses or not all(
            isinstance(x, ast.Attribute) and x.value is u and isinstance(x.ctx, ast.Load)
            for x, u in zip(attributes, uses)
        ):
            return
        names = {x.attr for x in attributes if isinstance(x, ast.Attribute)}
        if len(names) != 1:
            return
        (member,) = names
        if any(n == member for (_, n) in a.bindings) or any(n == member for (_, n) in a.uses):
            return
        statement_id = a.id(statement)
        attribute_ids = [a.id(x) for x in attributes if x is not None]
        if statement_id is None or None in attribute_ids:
            return
        renamed: dict[int, Edit] = {
            i: Replacement.text(member) for i in attribute_ids if i is not None
        }
        texts = [f"from {alias.name} import {member}"]
        if _owns_line(a.tree, statement_id):
            texts.append(f"def {member}(*a, **k): pass")
        rank = 0
        for text in texts:
            edits = dict(renamed)
            edits[statement_id] = Replacement.text(text)
            if shrinks(a, edits):
                yield Opportunity(self.name, statement_id, edits, rank)
                rank += 1


def _owns_line(tree: Tree, node_id: int) -> bool:
    """Whether the statement begins its line and nothing but a comment follows it there."""
    if node_id not in tree.indents:
        return False
    end = tree.nodes[node_id].end
    newline = tree.text.find("\n", end)
    rest = tree.text[end : newline if newline >= 0 else len(tree.text)].strip()
    return not rest or rest.startswith("#")
