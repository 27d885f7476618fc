"""Scope analysis shared by the whole-program transforms: names, their bindings and uses.

The tree model (:mod:`astreduce.source.tree`) is plain data and knows nothing of
scopes; the scope-aware families (parameters, uses, inlining, classes,
control flow, constants) need to know which ``x`` a ``Name`` refers to, how
often a name is bound, and which calls reach a function. :func:`analyse`
re-parses the tree's text with the standard ``ast`` (about as fast as the
tree itself was built, and cached per text, so the transforms of one pass
share it), numbers the nodes with the tree's own numbering
(:func:`astreduce.source.tree.numbered`), and resolves every
name to the scope that binds it, following Python's rules: function scopes
see enclosing function scopes but not class bodies, ``global`` and
``nonlocal`` redirect bindings, comprehensions have their own scope.

When the text does not parse with this interpreter (a tree parsed by
another one) or the numbering disagrees with the tree, :func:`analyse`
returns ``None`` and the transforms propose nothing: they never guess.

The analysis also renders edits, and :func:`shrinks` keeps a proposal only
when it makes the program smaller (:func:`astreduce.source.measure.size_change`: a
pass whose net result is not smaller is thrown away, so a proposal that
grows the program only costs tests). Where substituted text needs
parentheses is :mod:`astreduce.source.precedence`'s business.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from astreduce.source.measure import size_change
from astreduce.source.render import Edit, NodeReducer
from astreduce.source.syntax import parses_here
from astreduce.source.tree import OPAQUE, SKIPPED, Tree, is_empty_arguments, numbered

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


@dataclass
class Scope:
    """One scope: the module, a function or lambda, a class body, or a comprehension."""

    node: ast.AST
    parent: Scope | None
    bound: set[str] = field(default_factory=set)
    globals: set[str] = field(default_factory=set)
    nonlocals: set[str] = field(default_factory=set)

    @property
    def is_function(self) -> bool:
        return isinstance(self.node, (*FUNCTIONS, ast.Lambda, *_COMPREHENSIONS))

    @property
    def is_class(self) -> bool:
        return isinstance(self.node, ast.ClassDef)


@dataclass
class Analysis:
    """The ``ast`` of a tree's text, numbered like the tree, with names resolved.

    ``uses[(scope node, name)]`` lists the loading ``Name`` nodes that refer
    to the binding of ``name`` in that scope; ``bindings`` the nodes that bind
    it there (``Name`` stores and deletes, definitions, imported aliases,
    parameters, ``except ... as``, ``global`` declarations count as a
    binding too). Names that resolve to no scope are builtins or undefined.
    """

    tree: Tree
    module: ast.Module
    asts: list[ast.AST]
    ids: dict[int, int]
    """``id()`` of an ast node → its tree node id (nodes inside f-strings have none)."""
    parents: dict[int, ast.AST]
    scope_of: dict[int, Scope]
    """``id()`` of an ast node → the scope its code runs in."""
    uses: dict[tuple[int, str], list[ast.Name]] = field(default_factory=dict)
    bindings: dict[tuple[int, str], list[ast.AST]] = field(default_factory=dict)
    attributes: dict[str, list[ast.Attribute]] = field(default_factory=dict)
    strings: set[str] = field(default_factory=set)
    """Every str constant's value (``getattr(obj, "name")`` refers to a name by string)."""
    scopes: dict[int, Scope] = field(default_factory=dict)
    """``id()`` of a scope's node → the scope."""
    resolved: dict[int, Scope | None] = field(default_factory=dict)
    """``id()`` of a Name → the scope its name resolves to (``None``: builtin or undefined)."""
    _reducer: NodeReducer | None = None

    # --- identities ----------------------------------------------------------

    def id(self, node: ast.AST) -> int | None:
        """The tree node id of ``node`` (``None`` inside an f-string)."""
        return self.ids.get(id(node))

    def node(self, node_id: int) -> ast.AST:
        return self.asts[node_id]

    def parent(self, node: ast.AST) -> ast.AST | None:
        return self.parents.get(id(node))

    def source(self, node: ast.AST) -> str:
        node_id = self.id(node)
        return "" if node_id is None else self.tree.source(node_id)

    @property
    def reducer(self) -> NodeReducer:
        if self._reducer is None:
            self._reducer = NodeReducer(self.tree)
        return self._reducer

    # --- scopes ----------------------------------------------------------------

    @property
    def module_scope(self) -> Scope:
        return self.scopes[id(self.module)]

    def scope(self, node: ast.AST) -> Scope:
        """The scope in which ``node`` is evaluated."""
        return self.scope_of[id(node)]

    def body_scope(self, definition: ast.AST) -> Scope:
        """The scope that a function, lambda, class or comprehension opens."""
        return self.scopes[id(definition)]

    def lookup(self, scope: Scope, name: str) -> Scope | None:
        """The scope a load of ``name`` made in ``scope`` refers to (``None``: builtin or undefined)."""
        return _lookup(self.module_scope, scope, name)

    def same_meaning(self, root: ast.AST, inside: Scope, at: Scope) -> bool:
        """Whether every free name read in ``root`` (not bound in ``inside``) means the same at ``at``.

        Names bound in scopes nested in ``root`` (a lambda's parameters, a
        comprehension's variables) travel with it and are not checked.
        """
        for node in ast.walk(root):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                target = self.resolved.get(id(node))
                if target is inside or (target is not None and within(self, target.node, root)):
                    continue
                if self.lookup(at, node.id) is not target:
                    return False
        return True

    def declared_nonlocal(self, name: str) -> bool:
        """Whether some scope declares ``nonlocal name`` (its binding must then stay)."""
        return any(name in scope.nonlocals for scope in self.scopes.values())

    def binds_nonlocal(self, statement: ast.AST) -> bool:
        """Whether ``statement`` binds a name some scope declares ``nonlocal`` (dropping it may not compile)."""
        declared = {n for scope in self.scopes.values() for n in scope.nonlocals}
        if not declared:
            return False
        return any(
            isinstance(n, ast.Name)
            and not isinstance(n.ctx, ast.Load)
            and n.id in declared
            or isinstance(n, DEFINITIONS)
            and n.name in declared
            for n in ast.walk(statement)
        )

    def uses_of(self, scope: Scope, name: str) -> list[ast.Name]:
        return self.uses.get((id(scope.node), name), [])

    def bindings_of(self, scope: Scope, name: str) -> list[ast.AST]:
        return self.bindings.get((id(scope.node), name), [])

    def references(self, name: str) -> int:
        """How often ``name`` occurs at all: names, attributes, strings (a loose upper bound)."""
        count = sum(len(v) for (_, n), v in self.uses.items() if n == name)
        count += sum(len(v) for (_, n), v in self.bindings.items() if n == name)
        return count + len(self.attributes.get(name, ())) + (name in self.strings)

    # --- statements ----------------------------------------------------------------

    def statement_of(self, node: ast.AST) -> ast.stmt | None:
        """The nearest statement holding ``node`` (itself if it is one)."""
        current: ast.AST | None = node
        while current is not None and not isinstance(current, ast.stmt):
            current = self.parent(current)
        return current

    def own_nodes(self, root: ast.AST) -> Iterator[ast.AST]:
        """Descendants of ``root`` evaluated in its own scope (nested definitions' bodies left out)."""
        stack = list(ast.iter_child_nodes(root))
        while stack:
            current = stack.pop()
            yield current
            if isinstance(current, (*FUNCTIONS, ast.Lambda, ast.ClassDef)):
                # their decorators, defaults and bases run here; their bodies do not
                if isinstance(current, ast.ClassDef):
                    stack.extend(
                        current.bases + [k.value for k in current.keywords] + current.decorator_list
                    )
                elif isinstance(current, ast.Lambda):
                    stack.extend(current.args.defaults + [d for d in current.args.kw_defaults if d])
                else:
                    stack.extend(current.decorator_list + current.args.defaults)
                    stack.extend(d for d in current.args.kw_defaults if d)
                continue
            stack.extend(ast.iter_child_nodes(current))

    # --- size --------------------------------------------------------------------

    def render(self, edits: Mapping[int, Edit]) -> str:
        return self.reducer.render(edits)


_CACHE: dict[str, Analysis | None] = {}


def analyse(tree: Tree) -> Analysis | None:
    """The analysis of ``tree``, or ``None`` when it cannot be made.

    Cached on the tree itself (it lives as long as the tree: the transforms
    of a pass share it) and, for the last few texts, by text (the passes of
    a round parse the same text again).
    """
    attached = getattr(tree, _ATTRIBUTE, _NONE)
    if attached is None or isinstance(attached, Analysis):
        return attached
    if tree.text in _CACHE:
        cached = _CACHE[tree.text]
        if cached is None or cached.tree is tree or _same_tree(cached.tree, tree):
            _attach(tree, cached)
            return cached
    analysis = _build(tree)
    if len(_CACHE) >= 4:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[tree.text] = analysis
    _attach(tree, analysis)
    return analysis


def _attach(tree: Tree, analysis: Analysis | None) -> None:
    try:
        setattr(tree, _ATTRIBUTE, analysis)
    except AttributeError:  # a slotted tree: the text cache still serves
        pass


_ATTRIBUTE = "_astreduce_scope_analysis"
_NONE = object()


def _same_tree(a: Tree, b: Tree) -> bool:
    return len(a.nodes) == len(b.nodes)


def _build(tree: Tree) -> Analysis | None:
    asts = tree.syntax if tree.syntax is not None else _numbered_parse(tree)
    if asts is None:
        return None
    module = asts[0]
    assert isinstance(module, ast.Module)
    parents: dict[int, ast.AST] = {}
    for node_id, node in enumerate(asts):
        parent = tree.nodes[node_id].parent
        if parent >= 0:
            parents[id(node)] = asts[parent]
        if isinstance(node, _HOLDERS):
            _unnumbered_parents(node, parents)
    analysis = Analysis(
        tree=tree,
        module=module,
        asts=asts,
        ids={id(a): i for i, a in enumerate(asts)},
        parents=parents,
        scope_of={},
    )
    try:
        _Resolver(analysis).run()
    except RecursionError:
        return None
    return analysis


def _numbered_parse(tree: Tree) -> list[ast.AST] | None:
    """The ``ast`` nodes of a tree built by another interpreter, parsed here and numbered as the tree's
    (None: this interpreter cannot parse the text, or numbers it otherwise)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module = ast.parse(tree.text, type_comments=False)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    asts = [node for node, *_ in numbered(module)]
    if len(asts) != len(tree.nodes) or any(type(a).__name__ != n.kind for a, n in zip(asts, tree.nodes)):
        return None
    return asts


#: Nodes that may hold parts the numbering leaves out.
_HOLDERS = (*OPAQUE, *FUNCTIONS, ast.Lambda)


def _unnumbered_parents(node: ast.AST, parents: dict[int, ast.AST]) -> None:
    """Record the parents the numbering leaves out: an f-string's parts, an empty parameter list."""
    if isinstance(node, OPAQUE):
        stack: list[ast.AST] = [node]
        while stack:
            current = stack.pop()
            for child in ast.iter_child_nodes(current):
                if not isinstance(child, SKIPPED):
                    parents[id(child)] = current
                    stack.append(child)
    elif isinstance(node, (*FUNCTIONS, ast.Lambda)) and is_empty_arguments(node.args):
        parents[id(node.args)] = node


class _Resolver:
    """Two walks: collect each scope's bindings and declarations, then resolve every name."""

    def __init__(self, analysis: Analysis) -> None:
        self.a = analysis
        self.binders: list[tuple[Scope, str, ast.AST]] = []
        self.loads: list[tuple[Scope, ast.Name]] = []

    def run(self) -> None:
        a = self.a
        root = Scope(a.module, None)
        a.scopes[id(a.module)] = root
        self._walk(a.module, root)
        for scope, name, node in self.binders:
            target = self._binding_scope(scope, name)
            a.bindings.setdefault((id(target.node), name), []).append(node)
        for scope, name_node in self.loads:
            home = self._lookup(scope, name_node.id)
            a.resolved[id(name_node)] = home
            if home is not None:
                a.uses.setdefault((id(home.node), name_node.id), []).append(name_node)

    # --- collecting -------------------------------------------------------------

    def _bind(self, scope: Scope, name: str, node: ast.AST) -> None:
        scope.bound.add(name)
        self.binders.append((scope, name, node))

    def _walk(self, root: ast.AST, scope: Scope) -> None:
        a = self.a
        stack: list[tuple[ast.AST, Scope]] = [(root, scope)]
        while stack:
            node, scope = stack.pop()
            a.scope_of[id(node)] = scope
            if isinstance(node, ast.Name):
                if isinstance(node.ctx, ast.Load):
                    self.loads.append((scope, node))
                else:
                    self._bind(scope, node.id, node)
                continue
            if isinstance(node, ast.Attribute):
                a.attributes.setdefault(node.attr, []).append(node)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                a.strings.add(node.value)
            elif isinstance(node, ast.Global):
                scope.globals.update(node.names)
                for name in node.names:
                    self.binders.append((scope, name, node))
            elif isinstance(node, ast.Nonlocal):
                scope.nonlocals.update(node.names)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    if alias.name != "*":
                        self._bind(scope, (alias.asname or alias.name).split(".")[0], alias)
                    a.scope_of[id(alias)] = scope
                continue
            elif isinstance(node, ast.ExceptHandler) and node.name:
                self._bind(scope, node.name, node)
            elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
                self._bind(scope, node.name, node)
            elif isinstance(node, ast.MatchMapping) and node.rest:
                self._bind(scope, node.rest, node)
            if isinstance(node, DEFINITIONS):
                self._bind(scope, node.name, node)
                inner_scope = Scope(node, scope)
                a.scopes[id(node)] = inner_scope
                outer: list[ast.AST] = list(node.decorator_list)
                if isinstance(node, ast.ClassDef):
                    outer += [*node.bases, *node.keywords]
                else:
                    outer += [node.args] if not is_empty_arguments(node.args) else []
                    if node.returns is not None:
                        outer.append(node.returns)
                for child in outer:
                    if isinstance(child, ast.arguments):
                        self._arguments(child, scope, inner_scope, stack)
                    else:
                        stack.append((child, scope))
                for child in node.body:
                    stack.append((child, inner_scope))
                continue
            if isinstance(node, ast.Lambda):
                inner_scope = Scope(node, scope)
                a.scopes[id(node)] = inner_scope
                self._arguments(node.args, scope, inner_scope, stack)
                stack.append((node.body, inner_scope))
                continue
            if isinstance(node, _COMPREHENSIONS):
                inner_scope = Scope(node, scope)
                a.scopes[id(node)] = inner_scope
                for position, generator in enumerate(node.generators):
                    a.scope_of[id(generator)] = inner_scope
                    # the first iterable is evaluated in the enclosing scope
                    stack.append((generator.iter, scope if position == 0 else inner_scope))
                    stack.append((generator.target, inner_scope))
                    for condition in generator.ifs:
                        stack.append((condition, inner_scope))
                elements = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
                for element in elements:
                    stack.append((element, inner_scope))
                continue
            if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
                # := binds in the nearest scope that is not a comprehension
                target_scope = scope
                while (
                    isinstance(target_scope.node, _COMPREHENSIONS)
                    and target_scope.parent is not None
                ):
                    target_scope = target_scope.parent
                a.scope_of[id(node.target)] = scope
                self._bind(target_scope, node.target.id, node.target)
                stack.append((node.value, scope))
                continue
            for child in ast.iter_child_nodes(node):
                stack.append((child, scope))

    def _arguments(
        self,
        args: ast.arguments,
        outer: Scope,
        inner: Scope,
        stack: list[tuple[ast.AST, Scope]],
    ) -> None:
        a = self.a
        a.scope_of[id(args)] = outer
        for default in args.defaults + [d for d in args.kw_defaults if d is not None]:
            stack.append((default, outer))
        for arg in (
            args.posonlyargs
            + args.args
            + args.kwonlyargs
            + [x for x in (args.vararg, args.kwarg) if x]
        ):
            a.scope_of[id(arg)] = inner
            self._bind(inner, arg.arg, arg)
            if arg.annotation is not None:
                stack.append((arg.annotation, outer))

    # --- resolving ---------------------------------------------------------------

    def _binding_scope(self, scope: Scope, name: str) -> Scope:
        return _binding_scope(self.a.module_scope, scope, name)

    def _lookup(self, scope: Scope, name: str) -> Scope | None:
        return _lookup(self.a.module_scope, scope, name)


def _binding_scope(module: Scope, scope: Scope, name: str) -> Scope:
    """Where a binding of ``name`` made in ``scope`` lands."""
    if name in scope.globals:
        return module
    if name in scope.nonlocals:
        current = scope.parent
        while current is not None:
            if current.is_function and name in current.bound and name not in current.nonlocals:
                return current
            current = current.parent
    return scope


def _lookup(module: Scope, scope: Scope, name: str) -> Scope | None:
    """The scope a load of ``name`` in ``scope`` refers to (``None``: builtin or undefined)."""
    current: Scope | None = scope
    while current is not None:
        if current.is_class and current is not scope:  # a class body is seen from itself only
            current = current.parent
            continue
        if current is module:
            return module if name in module.bound else None
        if name in current.globals:
            return module if name in module.bound else None
        if name in current.nonlocals:
            return _binding_scope(module, current, name)
        if name in current.bound:
            return current
        current = current.parent
    return None


def within(a: Analysis, node: ast.AST, root: ast.AST) -> bool:
    current: ast.AST | None = node
    while current is not None:
        if current is root:
            return True
        current = a.parent(current)
    return False


def member_names(statement: ast.stmt) -> set[str]:
    """Names a class-body statement defines."""
    if isinstance(statement, (*FUNCTIONS, ast.ClassDef)):
        return {statement.name}
    targets: list[ast.AST] = []
    if isinstance(statement, ast.Assign):
        targets = list(statement.targets)
    elif isinstance(statement, (ast.AnnAssign, ast.AugAssign)):
        targets = [statement.target]
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


def is_super_call(node: ast.AST) -> bool:
    """``super()``, the zero-argument form."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "super"
        and not node.args
        and not node.keywords
    )


def is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def shrinks(analysis: Analysis, edits: Mapping[int, Edit], parse: bool = False) -> bool:
    """Whether rendering ``edits`` makes the program smaller in the session's order.

    With ``parse``, also whether the candidate parses: for the few proposals
    of a transform whose edits span distant parts of the program, where a
    flaw of the splicing would otherwise reach the oracle.
    """
    candidate = analysis.render(edits)
    if size_change(analysis.tree.text, candidate) >= (0, 0, 0):
        return False
    return not parse or parses_here(candidate)
