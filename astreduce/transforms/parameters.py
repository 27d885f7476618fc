"""Parameters: remove a parameter at the definition and its argument at every call site."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from astreduce.source.render import DROP, Edit
from astreduce.transforms import Function, FunctionTransform, Opportunity
from astreduce.source.scope import FUNCTIONS, Analysis, is_dunder, is_super_call, member_names, within

#: Decorators that keep a function's signature (anything else may call it differently).
_KEEPS_SIGNATURE = re.compile(
    r"^@?\s*(?:staticmethod|classmethod|(?:functools\s*\.\s*)?(?:lru_cache|cache)(?:\(.*\))?)\s*$"
)


class RemoveParameter(FunctionTransform):
    """Remove an unused parameter and the matching argument at every call site.

    Applies to: parameters of functions and methods defined in the file that
    their body never reads, ``*args`` and ``**kwargs`` included, when every
    use of the function is a call the transform can see: a function whose
    name is bound once and only ever called; a method (defined once in the
    file, in a class whose bases are the file's own) reached only through
    ``obj.name(...)`` (positions shift by one for ``self``) or
    ``Cls.name(...)``; ``__init__`` of a class only ever called.
    Yields: one proposal per parameter: the parameter (with its default)
    dropped, and at each call its positional argument (by position) or its
    keyword argument (by name); for ``*args`` the extra positional arguments,
    for ``**kwargs`` the extra keyword arguments.
    Notes: a call that passes ``*seq`` or ``**map`` where the parameter could
    come from leaves the parameter alone; so does a function the file never
    calls (an appended test may call it).
    """

    name = "remove-parameter"

    def proposals(self, a: Analysis, function: Function) -> Iterator[Opportunity]:
        sites = call_sites(a, function)
        if not sites:
            return  # never called here: dead (``delete`` takes it) or called by code we cannot see
        args = function.args
        positional = args.posonlyargs + args.args
        named = {p.arg for p in positional + args.kwonlyargs}
        scope = a.body_scope(function)
        static = _decorated(function, "staticmethod")
        implicit = 0 if static or not _is_method(a, function) else 1
        mentions_super = any(
            isinstance(n, ast.Name) and n.id == "super" for n in a.own_nodes(function)
        )
        for index, param in enumerate(
            positional + args.kwonlyargs + [x for x in (args.vararg, args.kwarg) if x]
        ):
            if (
                a.uses_of(scope, param.arg)
                or a.id(param) is None
                or a.bindings_of(scope, param.arg) != [param]
            ):
                continue
            if a.declared_nonlocal(param.arg):
                continue
            if index < implicit and param in positional:
                continue  # self / cls
            if index == 0 and mentions_super:
                continue
            if not _valid_without(args, param):
                continue
            edits: dict[int, Edit] = {a.id(param): DROP}  # type: ignore[dict-item]  # checked above
            complete = True
            for call, offset in sites:
                dropped = _arguments_for(call, offset, param, args, positional, named)
                if dropped is None:
                    complete = False
                    break
                for argument in dropped:
                    argument_id = a.id(argument)
                    if argument_id is None or not a.tree.is_droppable(argument_id):
                        complete = False
                        break
                    edits[argument_id] = DROP
                if not complete:
                    break
            if complete:
                yield Opportunity(self.name, a.id(param), edits)  # type: ignore[arg-type]  # checked above


def _decorated(function: ast.AST, name: str) -> bool:
    return any(
        isinstance(d, ast.Name) and d.id == name for d in getattr(function, "decorator_list", ())
    )


def _is_method(a: Analysis, function: ast.AST) -> bool:
    return isinstance(a.parent(function), ast.ClassDef)


def _valid_without(args: ast.arguments, param: ast.arg) -> bool:
    """Whether the parameter list still parses without ``param``.

    The tree drops a bare ``*`` together with the first keyword-only
    parameter, and ``*args`` takes the marker role with it: the keyword-only
    parameters left then become positional ones, which must not follow a
    default without one of their own.
    """
    if args.posonlyargs and param is args.posonlyargs[-1]:
        return False  # the tree leaves the ``/`` behind (``def f(a /)``): see the report of issue 8
    marker_goes = (param is args.vararg) or (
        args.vararg is None and args.kwonlyargs and param is args.kwonlyargs[0]
    )
    if not marker_goes:
        return True
    left = [i for i, p in enumerate(args.kwonlyargs) if p is not param]
    if not left:
        return True
    has_default = bool(args.defaults)
    return not has_default or all(args.kw_defaults[i] is not None for i in left)


def call_sites(
    a: Analysis, function: ast.FunctionDef | ast.AsyncFunctionDef
) -> list[tuple[ast.Call, int]] | None:
    """Every call that reaches ``function``, with the number of implicit leading arguments.

    ``None`` when some use of the function is not such a call (it is passed
    around, rebound, decorated, or a method the file cannot follow).
    """
    if any(not _KEEPS_SIGNATURE.match(a.source(d) or "") for d in function.decorator_list):
        return None
    owner = a.parent(function)
    if isinstance(owner, ast.ClassDef):
        return _method_sites(a, function, owner)
    scope = a.scope(function)
    if a.bindings_of(scope, function.name) != [function]:
        return None
    sites: list[tuple[ast.Call, int]] = []
    for use in a.uses_of(scope, function.name):
        call = a.parent(use)
        if not (isinstance(call, ast.Call) and call.func is use):
            return None
        sites.append((call, 0))
    return sites


def _method_sites(
    a: Analysis, function: ast.FunctionDef | ast.AsyncFunctionDef, cls: ast.ClassDef
) -> list[tuple[ast.Call, int]] | None:
    name = function.name
    if cls.decorator_list or not _own_hierarchy(a, cls):
        return None
    if name == "__init__":
        return _constructor_sites(a, cls)
    if is_dunder(name) or name in a.strings:
        return None
    # defined once among every class of the file (an override would keep the old signature)
    definitions: list[ast.AST] = []
    for (scope_key, bound_name), nodes in a.bindings.items():
        scope = a.scopes.get(scope_key)
        if bound_name == name and scope is not None and scope.is_class:
            definitions.extend(nodes)
    if definitions != [function] or a.uses_of(a.body_scope(cls), name):
        return None
    static = _decorated(function, "staticmethod")
    klass = _decorated(function, "classmethod")
    class_binding = a.scope(cls)
    sites: list[tuple[ast.Call, int]] = []
    for attribute in a.attributes.get(name, ()):
        call = a.parent(attribute)
        if not (isinstance(call, ast.Call) and call.func is attribute) or not isinstance(
            attribute.ctx, ast.Load
        ):
            return None
        receiver = attribute.value
        through_class = (
            isinstance(receiver, ast.Name)
            and receiver.id == cls.name
            and a.resolved.get(id(receiver)) is class_binding
        )
        if isinstance(receiver, ast.Name) and not through_class:
            home = a.resolved.get(id(receiver))
            receivers = a.bindings_of(home, receiver.id) if home is not None else []
            if any(isinstance(b, ast.alias) for b in receivers):
                return None  # ``module.name(...)``: somebody else's function
        if static:
            offset = 0
        elif klass:
            offset = 1
        else:
            offset = 0 if through_class else 1
        sites.append((call, offset))
    return sites


def _own_hierarchy(a: Analysis, cls: ast.ClassDef) -> bool:
    """Whether every base of ``cls`` is ``object`` or a class of the file (so nobody else calls its methods)."""
    if cls.keywords:
        return False
    for base in cls.bases:
        if not isinstance(base, ast.Name):
            return False
        if base.id == "object" and a.resolved.get(id(base)) is None:
            continue
        target = a.resolved.get(id(base))
        if target is None or not any(
            isinstance(b, ast.ClassDef) for b in a.bindings_of(target, base.id)
        ):
            return False
    return True


def _constructor_sites(a: Analysis, cls: ast.ClassDef) -> list[tuple[ast.Call, int]] | None:
    """Every call that runs ``cls.__init__``, with one implicit argument (``self``) each.

    Those are constructions of ``cls`` and of its subclasses that inherit its
    ``__init__``, ``super().__init__(...)`` in the subclasses whose next
    ``__init__`` it is, and ``Cls.__init__(self, ...)`` (no implicit
    argument). ``None`` when some other use may construct it.
    """
    inheritors = _inheritors(a, cls)
    if inheritors is None:
        return None
    sites: list[tuple[ast.Call, int]] = []
    for klass in inheritors:
        for use in a.uses_of(a.scope(klass), klass.name):
            call = a.parent(use)
            if isinstance(call, ast.ClassDef) and use in call.bases:
                continue  # a subclass: ``_inheritors`` followed it
            if isinstance(call, ast.Attribute):
                continue  # ``Cls.other`` does not construct; ``Cls.__init__`` is met below
            if not (isinstance(call, ast.Call) and call.func is use):
                return None  # isinstance, a registry, a factory: calls the file cannot see
            sites.append((call, 1))
    for attribute in a.attributes.get("__init__", ()):
        call = a.parent(attribute)
        if is_super_call(attribute.value):
            caller = _class_of_method(a, attribute)
            if caller is None:
                return None
            target, implicit = _next_init(a, caller.bases), 1
        elif (named := _file_class(a, attribute.value)) is not None:
            target, implicit = _init_owner(a, named), 0  # ``Cls.__init__(self, ...)``: self is explicit
        elif within(a, attribute, cls):
            continue  # ``x.__init__`` written in the class itself
        else:
            return None  # ``x.__init__`` elsewhere may reach this one
        if target is _UNKNOWN:
            return None
        if target is not cls:
            continue  # another class's ``__init__``
        if not (isinstance(call, ast.Call) and call.func is attribute):
            return None
        sites.append((call, implicit))
    return sites


#: ``_next_init``'s answer when the class whose ``__init__`` runs cannot be told.
_UNKNOWN = ast.ClassDef(name="<unknown>", bases=[], keywords=[], body=[], decorator_list=[])


def _inheritors(a: Analysis, cls: ast.ClassDef) -> list[ast.ClassDef] | None:
    """``cls`` and its subclasses (at any depth) that run ``cls.__init__`` when constructed.

    ``None`` when a class among them may construct differently: bound more
    than once, decorated, with ``__new__``, or derived from with other bases
    or keywords besides.
    """
    found: list[ast.ClassDef] = []
    pending = [cls]
    while pending:
        klass = pending.pop()
        scope = a.scope(klass)
        if a.bindings_of(scope, klass.name) != [klass] or klass in found:
            return None
        if any(isinstance(s, ast.FunctionDef) and s.name == "__new__" for s in klass.body):
            return None
        if klass is not cls and klass.decorator_list:
            return None
        found.append(klass)
        for use in a.uses_of(scope, klass.name):
            sub = a.parent(use)
            if not (isinstance(sub, ast.ClassDef) and use in sub.bases):
                continue
            if len(sub.bases) != 1 or sub.keywords:
                return None  # the MRO (or a metaclass) decides whose ``__init__`` runs
            if not _defines(sub, "__init__"):
                pending.append(sub)
    return found


def _next_init(a: Analysis, bases: list[ast.expr]) -> ast.ClassDef | None:
    """The class of the file whose ``__init__`` a class with these bases inherits.

    ``None`` when it comes from outside the file (``object``, a library
    class), ``_UNKNOWN`` when the file's classes take part in a multiple
    inheritance the search does not follow.
    """
    for _ in range(100):  # a bound on the depth of a hierarchy
        owners = [_file_class(a, base) for base in bases]
        if not any(owners):
            return None
        if len(bases) != 1:
            return _UNKNOWN
        (owner,) = owners
        assert owner is not None
        if _defines(owner, "__init__"):
            return owner
        bases = owner.bases
    return _UNKNOWN


def _init_owner(a: Analysis, cls: ast.ClassDef) -> ast.ClassDef | None:
    """The class whose ``__init__`` constructing ``cls`` runs (answers as :func:`_next_init`)."""
    return cls if _defines(cls, "__init__") else _next_init(a, cls.bases)


def _file_class(a: Analysis, base: ast.expr) -> ast.ClassDef | None:
    """The class of the file that ``base`` names, if it names one and only one."""
    if not isinstance(base, ast.Name):
        return None
    home = a.resolved.get(id(base))
    if home is None:
        return None
    bound = a.bindings_of(home, base.id)
    if len(bound) == 1 and isinstance(bound[0], ast.ClassDef):
        return bound[0]
    return None


def _defines(cls: ast.ClassDef, name: str) -> bool:
    return any(name in member_names(statement) for statement in cls.body)


def _class_of_method(a: Analysis, node: ast.AST) -> ast.ClassDef | None:
    """The class whose method (directly in its body) holds ``node``; ``super()`` works there."""
    current = a.parent(node)
    while current is not None and not isinstance(current, (*FUNCTIONS, ast.Lambda, ast.ClassDef)):
        current = a.parent(current)
    if not isinstance(current, FUNCTIONS):
        return None
    owner = a.parent(current)
    return owner if isinstance(owner, ast.ClassDef) else None


def _arguments_for(
    call: ast.Call,
    offset: int,
    param: ast.arg,
    args: ast.arguments,
    positional: list[ast.arg],
    named: set[str],
) -> list[ast.AST] | None:
    """The arguments of ``call`` that feed ``param`` (maybe none), or ``None`` when unknowable."""
    starred = next(
        (i for i, x in enumerate(call.args) if isinstance(x, ast.Starred)), len(call.args)
    )
    double_star = any(k.arg is None for k in call.keywords)
    if param is args.vararg:
        if starred < len(call.args):
            return None
        first_extra = max(len(positional) - offset, 0)
        return list(call.args[first_extra:])
    if param is args.kwarg:
        if double_star:
            return None
        return [k for k in call.keywords if k.arg not in named]
    by_keyword = [k for k in call.keywords if k.arg == param.arg]
    if param in positional:
        position = positional.index(param) - offset
        if position < 0:
            return None
        if position < starred:
            return [call.args[position]]
        if starred < len(call.args):
            return None  # a ``*seq`` may carry it
    if by_keyword:
        return list(by_keyword)
    if double_star:
        return None
    return []
