"""What a warm pytest (``_zygote.py``) learns once for its children: work every test's session would do again.

A child is forked from the zygote and dies with its test, and so does
whatever it compiled or looked up. These caches live in the zygote, which
its children inherit: the code of the project's modules (compiled once per
text), the regular expressions and the texts ``dataclasses`` and ``typing``
compile as a test runs (reported by each child, compiled here after its
answer), which file is which module, and pytest's answers about the
plugins the zygote holds. Each one gives a child exactly what it would have
made itself, or leaves it to the child. Standard library only, and no
annotations: this file runs under any interpreter pytest supports, loaded
by path by ``_zygote.py``.
"""

import os
import sys

class CompiledSources(object):
    """The code of the project's Python modules, compiled here, in the zygote, once per text: a child that
    imports a module whose file holds a text compiled here takes its code instead of compiling it again (the
    children inherit this cache, and a candidate changes a file or two of a tree of dozens). Keyed by the exact
    path the import system loads and checked against the file's bytes, so a file that differs, or a module
    loaded another way (pytest's assertion rewriting of tests and conftests), compiles as usual."""

    #: Texts kept per file: the best's, and the candidates' that may come back.
    PER_FILE = 3

    def __init__(self, root):
        self.prefix = root.rstrip(os.sep) + os.sep
        self.code = {}  # path -> [(bytes, code)], the latest last
        self.loader = None  # SourceFileLoader, once installed

    def add(self, path, data):
        """Compile ``data``, the text of the file at ``path`` (absolute), unless it is known or does not compile."""
        kept = self.code.setdefault(path, [])
        if any(known == data for known, _ in kept):
            return
        try:
            code = compile(data, path, "exec", dont_inherit=True)
        except Exception:  # the child meets the same error where it counts
            return
        kept.append((data, code))
        del kept[:-self.PER_FILE]

    def add_file(self, path):
        try:
            with open(path, "rb") as handle:
                self.add(path, handle.read())
        except OSError:
            pass

    def written(self, paths):
        """A request wrote these files (relative): the modules a child loaded before are compiled for the next."""
        for path in paths:
            path = os.path.abspath(path)
            if path in self.code:
                self.add_file(path)

    def loaded(self, names):
        """Of the modules ``names``, the project's files a ``SourceFileLoader`` loaded that are not known here."""
        found = []
        for name in names:
            spec = getattr(sys.modules.get(name), "__spec__", None)
            path = getattr(spec, "origin", None)
            if (self.loader is not None and isinstance(getattr(spec, "loader", None), self.loader)
                    and isinstance(path, str) and path.startswith(self.prefix) and path not in self.code):
                found.append(path)
        return found

    def code_for(self, path, data):
        for known, code in self.code.get(path, ()):
            if known == data:
                return code
        return None

    def install(self):
        """Let every ``SourceFileLoader`` look here first (inherited by every child forked from now on)."""
        try:
            from importlib.machinery import SourceFileLoader
        except ImportError:  # Python 2: every child compiles what it imports
            return
        compiled = self
        plain = SourceFileLoader.get_code

        def get_code(self, fullname):
            path = self.get_filename(fullname)
            if path in compiled.code:
                try:
                    code = compiled.code_for(path, self.get_data(path))
                except OSError:
                    code = None
                if code is not None:
                    return code
            return plain(self, fullname)

        SourceFileLoader.get_code = get_code
        self.loader = SourceFileLoader


def warm_caches():
    """Fill caches every session would fill again: which file is which module (a failure's
    traceback looks a frame's module up through every imported module: 20 ms with hypothesis)."""
    import inspect

    try:
        inspect.getmodule(compile("", "<astreduce-warm-up>", "exec"))
    except Exception:  # only a cache
        pass


class Patterns(object):
    """The regular expressions the children compiled, compiled here once: ``re`` keeps what it compiled in a
    cache of its own, which dies with each child, and a project that compiles its patterns as it imports
    or runs (pint's definition parser) compiles them in every test again: a tenth of a pint test. A
    pattern compiled here is the object the child's ``re`` would have made, taken from the cache the
    children inherit; one that warns as it compiles, or asks for ``re.DEBUG``'s output, is left to them."""

    #: Patterns a child reports at most (``re`` keeps 512).
    MOST = 256

    def __init__(self):
        self.known = set(self.cached())

    @staticmethod
    def cached():
        """The (pattern, flags) of the text patterns in ``re``'s cache."""
        import re

        found = []
        for key in list(getattr(re, "_cache", {})):
            if (isinstance(key, tuple) and len(key) == 3 and isinstance(key[1], str) and isinstance(key[2], int)
                    and not isinstance(key[2], bool)):
                found.append((key[1], key[2]))
        return found

    def new(self):
        """In a child: the patterns it compiled that are not compiled here."""
        return [list(key) for key in self.cached() if key not in self.known][:self.MOST]

    def add(self, patterns):
        import re
        import warnings

        for pattern, flags in patterns:
            key = (pattern, flags)
            if key in self.known or not isinstance(pattern, str) or not isinstance(flags, int) or flags & re.DEBUG:
                continue
            self.known.add(key)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    re.compile(pattern, flags)
                except Exception:  # the child compiled it: only a cache
                    continue
            if caught:  # the child's own compile must warn it
                for cache in (getattr(re, "_cache", {}), getattr(re, "_cache2", {})):
                    try:
                        del cache[type(pattern), pattern, flags]
                    except Exception:
                        pass


class CodeStrings(object):
    """The source texts the standard library compiles as a program runs, compiled once: ``dataclasses`` execs
    the text of every method it writes for a class (``__init__``, ``__repr__``, ``__eq__``...), and
    ``typing`` compiles every forward reference (a string annotation) it evaluates. The texts are the same
    in every test of a tree, yet each child compiled them again: on pint as released, 16,000 forward
    references and 405 methods, a third of a test. Here ``dataclasses``'s ``exec``
    and ``typing``'s ``compile`` (their module globals, nobody else's) look a text up first, and a text a
    child compiled is reported and compiled here after its answer, as :class:`Patterns`. The code is what
    the plain call would have made (neither module imports ``__future__`` features their calls could pass
    on); anything but a plain text (flags, bytes, a code object) goes to the builtin."""

    #: Texts a child reports at most, and texts kept here.
    MOST = 512
    KEPT = 20000

    def __init__(self):
        self.code = {}  # (text, filename, mode) -> code
        self.fresh = []  # in a child: the keys it compiled that were not known here

    def compiled(self, text, filename, mode):
        key = (text, filename, mode)
        code = self.code.get(key)
        if code is None:
            code = compile(text, filename, mode, 0, True)
            if len(self.code) < self.KEPT:
                self.code[key] = code
                if len(self.fresh) < self.MOST:
                    self.fresh.append(key)
        return code

    def install(self):
        """Put the look-ups in ``dataclasses`` and ``typing`` (inherited by every child forked from now on).
        Written to parse under Python 2 too (where ``exec`` is a statement), which has neither to look in."""
        import __future__

        if sys.version_info[0] < 3:
            return
        import builtins

        plain_exec, plain_compile = getattr(builtins, "exec"), builtins.compile
        strings = self

        def exec_(source, *args, **kwargs):
            if type(source) is str and args and args[0] is not None:
                source = strings.compiled(source, "<string>", "exec")
            return plain_exec(source, *args, **kwargs)

        def compile_(source, filename, mode, flags=0, dont_inherit=False, optimize=-1, **kwargs):
            if type(source) is str and not flags and optimize == -1 and not kwargs:
                return strings.compiled(source, filename, mode)
            return plain_compile(source, filename, mode, flags, dont_inherit, optimize, **kwargs)

        for name, look_up in (("dataclasses", ("exec", exec_)), ("typing", ("compile", compile_))):
            try:
                module = __import__(name)
            except ImportError:  # before 3.7 there is no dataclasses
                continue
            if not any(isinstance(v, __future__._Feature) for v in vars(module).values()):
                setattr(module, *look_up)
        self.fresh = []

    def new(self):
        """In a child: the texts it compiled that are not compiled here."""
        return [list(key) for key in self.fresh]

    def add(self, keys):
        for key in keys:
            if len(self.code) >= self.KEPT:
                return
            try:
                self.compiled(*key)
            except Exception:  # the child compiled it: only a cache
                continue
        self.fresh = []


def known_unwrapped(config):
    """Answer once, here, the question pytest (since 9.2) asks of every attribute of every plugin in every
    session: is it a fixture hidden behind wrappers? ``FixtureManager._find_wrapped_fixture_def`` unwraps each
    one, 2,000 of them on pint's node, 9 of a warm test's 50 ms; the plugins registered while configuring
    are the same objects in every child, so their answer (none) is looked up by identity. Objects of the
    child's own (its conftests, its test module) are asked as before; the objects are kept alive here, so no
    other object takes their identity. The objects known, by identity (none: a pytest without that question)."""
    try:
        from _pytest.fixtures import FixtureManager
    except ImportError:
        return {}
    find = getattr(FixtureManager, "_find_wrapped_fixture_def", None)
    if find is None:
        return {}
    import types

    known = {}  # id -> the object, kept alive
    for plugin in config.pluginmanager.get_plugins():
        owners = [plugin] if isinstance(plugin, types.ModuleType) else list(getattr(
            plugin if isinstance(plugin, type) else type(plugin), "__mro__", ()))
        for owner in owners:
            for value in list(getattr(owner, "__dict__", {}).values()):
                if id(value) in known:
                    continue
                try:
                    if find(None, value) is None:
                        known[id(value)] = value
                except Exception:  # asked as before, in the child
                    continue

    def find_wrapped(self, obj):
        if id(obj) in known:
            return None
        return find(self, obj)

    FixtureManager._find_wrapped_fixture_def = find_wrapped
    return known


def quiet_plugin_names(config, known):
    """Leave out of the names pytest walks for fixtures, in every session, those of a plugin module held here
    that it would neither register (no fixture) nor warn about (``known``: hiding none). ``parsefactories``
    walks ``dir()`` of every plugin; the ``dir`` its module sees (its global, nobody else's) gives the
    other names of such a module, as long as its namespace holds the objects it held here (checked by
    identity each time; a name it would get otherwise is kept). pytest's walk since 9.2 only (``known``
    is empty before). The number of plugin modules so shortened."""
    try:
        import _pytest.fixtures as fixtures
        from _pytest.fixtures import FixtureFunctionDefinition
    except ImportError:
        return 0
    if not known or "dir" in vars(fixtures):
        return 0
    import types

    plain_dir = dir
    short = {}  # id -> (module, its namespace's items here, the names walked)
    for plugin in config.pluginmanager.get_plugins():
        if not isinstance(plugin, types.ModuleType):
            continue
        try:
            names = plain_dir(plugin)
        except Exception:
            continue
        space = vars(plugin)
        walked = [n for n in names if n not in space or id(space[n]) not in known
                  or type(space[n]) is FixtureFunctionDefinition]
        short[id(plugin)] = (plugin, list(space.items()), walked)

    def dir_(*args):
        if not args:  # the caller's names, as the builtin gives them
            return sorted(sys._getframe(1).f_locals)
        found = short.get(id(args[0])) if len(args) == 1 else None
        if found is not None and found[0] is args[0]:
            plugin, items, walked = found
            space = vars(plugin)
            if len(space) == len(items) and all(space.get(k, space) is v for k, v in items):
                return list(walked)
        return plain_dir(*args)

    fixtures.dir = dir_
    return len(short)


class Caches(object):
    """Every cache above as the zygote uses them: installed once before the first fork, what a child added
    reported with its answer, and learnt here (its modules before the answer is sent, its patterns and
    texts after)."""

    def __init__(self, root, config):
        self.compiled = CompiledSources(root)
        self.compiled.install()
        self.patterns = Patterns()
        self.strings = CodeStrings()
        self.strings.install()
        quiet_plugin_names(config, known_unwrapped(config))

    def written(self, paths):
        """A request wrote these files: the modules a child loaded before are compiled for the next."""
        self.compiled.written(paths)

    def report(self, result, names):
        """In a child, after its session (``names``: the modules it imported): what it compiled that the
        zygote has not."""
        result["sources"] = self.compiled.loaded(names)
        result["patterns"] = self.patterns.new()
        result["strings"] = self.strings.new()

    def take(self, answer):
        """A child's answer, in the zygote: the modules it compiled are compiled here now; its patterns and
        texts are taken out of the answer, for :meth:`learn` once it is sent."""
        for path in answer.pop("sources", None) or ():
            self.compiled.add_file(path)
        return answer.pop("patterns", None) or (), answer.pop("strings", None) or ()

    def learn(self, taken):
        patterns, strings = taken
        self.patterns.add(patterns)
        self.strings.add(strings)
