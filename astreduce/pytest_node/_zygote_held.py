"""Selective re-import in a warm pytest (``_zygote.py``): the project's modules held imported, a child re-importing
only what its candidate changed.

A *holder* is a process forked from the zygote that imports the project's
modules of one tree (the current best, in effect) and then forks the tests'
children, as the zygote does. A child whose candidate differs from that
tree in a few files drops those modules, and every module that imports
them, from ``sys.modules`` before its session (:func:`drop_modules`): its test
re-imports them, and takes the rest as the holder imported them. A package
dropped while some of its submodules are kept gets them back as attributes
before its ``__init__`` runs again (:class:`Reattach`), as a full import
would have them by the time its body imports them.

What can make this differ from a full import: a module that, when it is
imported, changes the state of a module that is kept (a registry it
appends itself to, a hook it installs): the holder's import did it once
already. So a child imports its dropped modules again itself, before its
session (:func:`reimport`), and compares the *shape* of every kept module
before and after (the length of each dict, list and set among its globals
and its classes' attributes). The modules whose shape changed are
reported (``unsafe``): from then on the parent drops them whenever it drops
those modules (``held.py``), and the test runs again.

Standard library only, and no annotations: this file runs under any
interpreter pytest supports, loaded by path by ``_zygote.py``.
"""

import os
import sys


def rewritten(module):
    """Whether pytest's assertion rewriting loaded ``module`` (a test module, a conftest): never held."""
    loader = getattr(module, "__loader__", None)
    return type(loader).__name__ == "AssertionRewritingHook"


def project_modules(root):
    """The project's own modules imported now, as ``[name, relative path]`` in the order ``sys.modules`` has them
    (the order their imports began), without test modules and conftests."""
    prefix = root.rstrip(os.sep) + os.sep
    found = []
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if not isinstance(path, str) or name == "__main__" or name.startswith("_astreduce_"):
            continue
        path = os.path.abspath(path)
        if not path.startswith(prefix) or os.path.basename(path) == "conftest.py" or rewritten(module):
            continue
        found.append([name, os.path.relpath(path, root).replace(os.sep, "/")])
    return found


def shape(module):
    """The length of every dict, list and set among ``module``'s globals and its own classes' attributes."""
    found = []
    name = getattr(module, "__name__", None)
    for key, value in list(vars(module).items()):
        if key == "__builtins__":
            continue
        if isinstance(value, (dict, list, set)):
            found.append((key, len(value)))
        elif isinstance(value, type) and getattr(value, "__module__", None) == name:
            for attribute, inner in list(vars(value).items()):
                if isinstance(inner, (dict, list, set)):
                    found.append((key + "." + attribute, len(inner)))
    return found


def hold(modules, root):
    """Import ``modules`` (``[name, path]`` pairs) here; ``(held names, error)``: the error names the first module
    that failed to import or came from another file, and holding stops there."""
    import importlib

    held = []
    for name, path in modules:
        try:
            module = sys.modules.get(name) or importlib.import_module(name)
        except BaseException as error:  # the child meets the same error where it counts
            return held, "%s: %s: %s" % (name, type(error).__name__, str(error)[:200])
        where = getattr(module, "__file__", None)
        if not isinstance(where, str) or os.path.relpath(os.path.abspath(where), root).replace(os.sep, "/") != path:
            return held, "%s: imported from %s, not %s" % (name, where, path)
        held.append(name)
    return held, None


class Reattach(object):
    """A finder first on ``sys.meta_path``: a dropped package imported again gets its kept submodules as attributes
    before its body runs (``import pkg.sub`` then ``pkg.sub.f`` in the body works as in a full import)."""

    def __init__(self, children):
        self.children = children  # package name -> [(attribute, module)]

    def find_spec(self, name, path=None, target=None):
        kept = self.children.get(name)
        if not kept:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        run = getattr(loader, "exec_module", None)
        if run is None:
            return spec

        def exec_module(module):
            for attribute, child in kept:
                setattr(module, attribute, child)
            run(module)

        try:
            loader.exec_module = exec_module  # this spec's own loader object (a file finder makes one a spec)
        except AttributeError:
            return None
        return spec


def drop_modules(names):
    """Drop ``names`` (held modules a candidate changed, and their importers) from ``sys.modules``, in a child
    before its session: its test imports them again."""
    names = set(n for n in names if n in sys.modules)
    if not names:
        return
    children = {}
    for name in list(sys.modules):
        parent, _, last = name.rpartition(".")
        if parent in names and name not in names:
            children.setdefault(parent, []).append((last, sys.modules[name]))
    for name in names:
        module = sys.modules.pop(name, None)
        parent, _, last = name.rpartition(".")
        holder = sys.modules.get(parent) if parent and parent not in names else None
        if holder is not None and getattr(holder, last, None) is module:
            try:
                delattr(holder, last)  # a module the candidate no longer imports is not there either
            except AttributeError:
                pass
    if children:
        sys.meta_path.insert(0, Reattach(children))


def reimport(dropped, kept):
    """Import the ``dropped`` modules again (in the holder's order), in a child before its session; the ``kept``
    modules whose shape that changed. A module that fails to import fails again in the session, where it counts."""
    import importlib

    before = dict((name, shape(sys.modules[name])) for name in kept if name in sys.modules)
    for name in dropped:
        if name in sys.modules:
            continue
        try:
            importlib.import_module(name)
        except BaseException:
            break
    return [name for name, recorded in before.items() if name in sys.modules and shape(sys.modules[name]) != recorded]
