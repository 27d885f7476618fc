"""A candidate's test runs its top-level statements' code, each compiled once: as the whole would run."""

from __future__ import annotations

import marshal
import symtable
import textwrap
import types
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from astreduce.oracles import Target
from astreduce.oracles.execution import ExecOracle
from astreduce.oracles.pieces import _ASSEMBLES, _CLASS_FROM, ClassCode, ModuleCode
from astreduce.source.statements import declares_global, starts

#: Programs whose statements are hard to cut: name -> text (each ends by raising from a function, so that
#: the traceback's lines say where every statement's code thinks it is).
PROGRAMS = {
    "docstring, then a string statement": '"""The docstring."""\nx = 1\n"""Not a docstring."""\ndef f():\n    raise ValueError(__doc__)\nf()\n',
    "comments before the first statement": "#!/usr/bin/env python\n# a comment\n\nimport os\ndef f():\n    raise ValueError(os.sep)\nf()\n",
    "decorators and a class": "import functools\n@functools.lru_cache\ndef g(x):\n    return x\nclass C:\n    'doc'\n    def m(self):\n        raise ValueError(g(1))\nC().m()\n",
    "else, except, finally at column 0": "try:\n    x = 1\nexcept KeyError:\n    pass\nelse:\n    y = 2\nfinally:\n    z = 3\nif x:\n    a = 1\nelif y:\n    a = 2\nelse:\n    a = 3\ndef f():\n    raise ValueError(a)\nf()\n",
    "a string with lines at column 0": 's = """\nx = 1\ndef g():\n"""\ndef f():\n    raise ValueError(s)\nf()\n',
    "brackets and a backslash across lines": "x = [\n1,\n2,\n]\ny = 1 + \\\n2\ndef f(\na,\n):\n    raise ValueError(a)\nf(y)\n",
    "a method of an imported module": "import textwrap\ndef f():\n    raise ValueError(textwrap.dedent('  x'))\nf()\n",
}

#: Texts compiled whole: what cutting could change.
WHOLE = {
    "future import": "from __future__ import annotations\nx: int = 1\n",
    "global at module level": "global x\nx = 1\n",
    "global after a block's colon": "if True: global x\nx = 1\n",
    "global after a semicolon": "y = 2;global x\nx = 1\n",
    "global after a backslash": "y = 2; \\\n\f global x\nx = 1\n",
    "global in a loop at module level": "for i in range(2):\n    global x\n    x = i\n",
    "annotations read before they are made": "print(__annotations__)\nx: int = 1\n",
    "a syntax error": "x = 1\ndef f(:\n    pass\n",
    "not a statement first": "    x = 1\n",
}


def _traceback(parts: list[types.CodeType] | types.CodeType) -> tuple[str, list[tuple[str, int]], object]:
    namespace: dict[str, object] = {"__name__": "__main__"}
    try:
        for code in parts if isinstance(parts, list) else [parts]:
            exec(code, namespace)
    except ValueError as error:
        frames, tb = [], error.__traceback__
        while tb is not None:
            frames.append((tb.tb_frame.f_code.co_name, tb.tb_lineno))
            tb = tb.tb_next
        return str(error), frames[1:], namespace.get("__doc__")
    raise AssertionError("the program did not raise")


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_the_statements_run_as_the_whole(name: str) -> None:
    text = PROGRAMS[name]
    parts = ModuleCode("prog.py").codes(text)
    assert parts is not None
    assert all(code.co_filename == "prog.py" for code in parts)
    assert _traceback(parts) == _traceback(compile(text, "prog.py", "exec"))


@pytest.mark.parametrize("name", sorted(WHOLE))
def test_what_cutting_could_change_is_compiled_whole(name: str) -> None:
    assert ModuleCode("prog.py").codes(WHOLE[name]) is None


@pytest.mark.parametrize(
    "unit",
    [
        "x = 1  # the global default\n",
        "s = 'global x'\n",
        "def f(a):\n    return a[1:global_]\n",
        "class C:\n    def m(self):\n        nonlocal_ = 1\n",
    ],
)
def test_what_only_mentions_global_is_cut(unit: str) -> None:
    assert ModuleCode("prog.py").codes(unit + "y = 2\n") is not None


@settings(max_examples=200, deadline=None)
@given(words=st.lists(st.sampled_from(["global x", "nonlocal x", "x = 1", "if x:", "pass", ";", ":", " ", "\\\n", "\n", "\t", "#", "'", "class C:", "def f():"]), max_size=12))
def test_no_global_declaration_escapes_the_quick_look(words: list[str]) -> None:
    """The regular expression that spares the symbol table never says "none" where the table finds one."""
    unit = "".join(words)
    try:
        table = symtable.symtable(unit, "<unit>", "exec")
    except (SyntaxError, ValueError):
        return
    scopes = [table, *(child for child in table.get_children() if child.get_type() == "class")]
    declared = any(symbol.is_declared_global() or symbol.is_nonlocal() for scope in scopes for symbol in scope.get_symbols())
    if declared:
        assert declares_global(unit, classes=True)


def test_a_changed_statement_is_all_that_compiles() -> None:
    module = ModuleCode("prog.py")
    text = "".join(f"def f{i}():\n    return {i}\n" for i in range(50))
    assert module.codes(text) is not None
    before = module.compiled
    changed = text.replace("return 7\n", "return 70\n")
    parts = module.codes(changed)
    assert parts is not None and module.compiled == before + 1
    lines = [code.co_firstlineno for code in parts]
    assert lines == [1 + 2 * i for i in range(50)]


_LIBRARY = Path(textwrap.__file__).parent


@settings(max_examples=40, deadline=None)
@given(module=st.sampled_from(["textwrap.py", "shlex.py", "json/decoder.py", "calendar.py", "configparser.py"]), data=st.data())
def test_statements_deleted_at_random_define_what_the_whole_defines(module: str, data: st.DataObject) -> None:
    text = (_LIBRARY / module).read_text()
    cuts = starts(text)
    kept = [i for i in range(len(cuts)) if data.draw(st.booleans())]
    ends = [*cuts[1:], len(text)]
    candidate = "".join(text[cuts[i] : ends[i]] for i in kept)
    parts = ModuleCode("cand.py").codes(candidate)
    try:
        whole = compile(candidate, "cand.py", "exec", dont_inherit=True)
    except SyntaxError:
        assert parts is None
        return
    if parts is None:
        return
    lines, whole_lines = _defined(parts), _defined([whole])
    assert lines == whole_lines


def _defined(codes: list[types.CodeType]) -> dict[str, int]:
    """Every function and class body compiled: its qualified name and first line."""
    found: dict[str, int] = {}
    stack = list(codes)
    while stack:
        code = stack.pop()
        if code.co_name != "<module>":
            found[f"{getattr(code, 'co_qualname', code.co_name)}@{code.co_firstlineno}"] = code.co_firstlineno
        stack += [c for c in code.co_consts if isinstance(c, types.CodeType)]
    return found


def test_a_long_candidate_is_judged_from_its_statements() -> None:
    # past the parent's whole compile: the test runs the statements' code, and a change compiles one
    oracle = ExecOracle(Target.parse("ValueError:9"), timeout=30)
    try:
        body = "".join(f"def f{i}():\n    return {i}\n" for i in range(2000))
        assert oracle.judge(body + "raise ValueError(f9())\n").outcome.name == "FAIL"
        assert oracle._statements is not None
        compiled = oracle._statements.compiled
        verdict = oracle.judge(body.replace("return 9\n", "return 8\n") + "raise ValueError(f9())\n")
        assert verdict.outcome.name == "UNRESOLVED" and verdict.run.message == "8"
        assert oracle._statements.compiled == compiled + 1
        assert verdict.run.frame == "<module>"
    finally:
        oracle.close()


def test_a_statements_run_reports_the_candidates_lines() -> None:
    oracle = ExecOracle(timeout=30)
    try:
        body = "".join(f"x{i} = {i}\n" for i in range(3000))
        run = oracle.run(body + "try:\n    1 / 0\nexcept ZeroDivisionError as error:\n    raise KeyError(error.__traceback__.tb_lineno)\n")
        assert (run.exception, run.message) == ("KeyError", "3002"), run
    finally:
        oracle.close()


def test_the_statements_kept_are_bounded_by_their_size(monkeypatch: pytest.MonkeyPatch) -> None:
    from astreduce.oracles import pieces

    monkeypatch.setattr(pieces, "_KEPT_CHARS", 2000)
    module = ModuleCode("prog.py")
    texts = ["".join(f"def f{i}_{v}():\n    return {i}\n" for i in range(20)) for v in range(5)]
    for text in texts:
        assert module.codes(text) is not None
    assert module._compiled.chars <= 2000 + max(len(t) for t in texts)
    compiled = module.compiled
    assert module.codes(texts[-1]) is not None and module.compiled == compiled  # the latest are kept
    assert module.codes(texts[0]) is not None and module.compiled > compiled  # the oldest were dropped


#: Classes whose methods are hard to cut from their class: name -> a class statement (each at least
#: ``_CLASS_FROM`` characters once padded with plain methods).
CLASSES = {
    "super() and __class__": "class C(Base):\n    def m(self):\n        return super().m()\n    def n(self):\n        return __class__\n",
    "super() in a nested function only": "class C(Base):\n    def m(self):\n        def inner():\n            return super(C, self)\n        return [super().m() for _ in ()]\n",
    "decorators over several lines": "class C:\n    @functools.lru_cache(\n        maxsize=2,\n    )\n    def m(self, x):\n        return x\n    @property\n    def p(self):\n        return 1\n    @p.setter\n    def p(self, value):\n        self._p = value\n",
    "a def inside a string at the class's indent": "class C:\n    def m(self):\n        s = '''\n    def fake(self):\n        return 1\n'''\n        return s\n    def n(self):\n        return 2\n",
    "a nested class and attributes": "class C:\n    x = 1\n    class Inner:\n        def m(self):\n            return 1\n    y = [i for i in range(3)]\n    def m(self, a=lambda: 0, *, b: int = 2) -> 'C':\n        return a\n",
    "one-line and async methods": "class C:\n    def m(self): return 1\n    async def n(self):\n        await self.m()\n    async def g(self):\n        yield 1\n",
    "comments, blank lines and a trailing comment": "class C:\n    # a comment\n\n    def m(self):  # the header's comment\n        x = 1  # a trailing comment\n\n        # a comment inside\n        return x  # the last line's comment\n\n# a comment at column 0\n    def n(self):\n        pass\n",
    "continuation lines in the body": "class C:\n    def m(self):\n        return f(\n            1,\n            2)\n    def n(self):\n        x = 1 + \\\n            2\n        return x\n",
    "non-ASCII on the last line": "class C:\n    def m(self):\n        return 'ééé' + \"日本\"\n    def n(self):\n        s = 'λ'\n        return s\n",
    "names mangled in the class": "class C:\n    __x = 1\n    def m(self):\n        return self.__x + C.__x\n    def __private(self):\n        return self.__y\n",
    "tabs for indentation": "class C:\n\tdef m(self):\n\t\treturn 1\n\tdef n(self):\n\t\tif self:\n\t\t\treturn 2\n",
    "a decorated class with a docstring": "@dataclasses.dataclass\nclass C(metaclass=Meta):\n    'The docstring.'\n    x: int = 1\n    def m(self):\n        'A method docstring.'\n        return self.x\n",
    "a method redefined": "class C:\n    def m(self):\n        return 1\n    def m(self):\n        return 2\n",
    "a one-statement body that ends early": "class C:\n    def m(self):\n        pass\n    def n(self):\n        return (1)\n",
    "a body that ends in a nested block": "class C:\n    def m(self):\n        for i in range(3):\n            if i:\n                continue\n    def n(self):\n        try:\n            pass\n        finally:\n            return 1\n",
}


def _padded(text: str) -> str:
    """``text`` with plain methods after it, so that it is long enough to be assembled."""
    indent = "\t" if "\n\t" in text else "    "
    plain = "".join(f"{indent}def plain{i}(self, a, b):\n{indent}{indent}return a + b * {i}\n" for i in range(60))
    return text + plain


def _same_code(assembled: types.CodeType, whole: types.CodeType) -> bool:
    """Whether two code objects are the same, nested ones too: equal (or, with a NaN constant, which
    equals nothing, the same marshalled), and with the same qualified names and file names."""
    if assembled != whole and marshal.dumps(assembled, 2) != marshal.dumps(whole, 2):
        return False
    if (getattr(assembled, "co_qualname", ""), assembled.co_filename) != (getattr(whole, "co_qualname", ""), whole.co_filename):
        return False
    inner = [[c for c in code.co_consts if isinstance(c, types.CodeType)] for code in (assembled, whole)]
    return len(inner[0]) == len(inner[1]) and all(_same_code(a, b) for a, b in zip(*inner))


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_a_large_class_is_assembled_as_compiled_whole(name: str) -> None:
    text = _padded(CLASSES[name])
    assembled = ClassCode("prog.py").assembled(text)
    if not _ASSEMBLES:
        assert assembled is None
        return
    assert assembled is not None
    assert _same_code(assembled, compile(text, "prog.py", "exec", dont_inherit=True))


def _classes(module: str) -> list[str]:
    text = (_LIBRARY / module).read_text()
    cuts = starts(text)
    ends = [*cuts[1:], len(text)]
    return [text[a:b] for a, b in zip(cuts, ends) if text.startswith(("class", "@"), a) and b - a >= _CLASS_FROM]


_STDLIB_CLASSES = [piece for module in ("argparse.py", "configparser.py", "fractions.py", "_pydecimal.py", "tarfile.py", "typing.py") for piece in _classes(module)]


@settings(max_examples=30, deadline=None)
@given(piece=st.sampled_from(_STDLIB_CLASSES), data=st.data())
def test_classes_with_lines_deleted_at_random_assemble_as_compiled_whole(piece: str, data: st.DataObject) -> None:
    """A reduction's candidates: lines of a standard library class deleted (those that still compile),
    then assembled by one ClassCode after another, its caches warm."""
    module = ModuleCode("cand.py")
    lines = piece.splitlines(keepends=True)
    for _ in range(3):
        kept = [line for line in lines if data.draw(st.integers(0, 9)) > 0]
        candidate = "".join(kept)
        try:
            whole = compile(candidate, "cand.py", "exec", dont_inherit=True)
        except SyntaxError:
            continue
        assembled = module._classes.assembled(candidate)
        if _ASSEMBLES and assembled is not None:
            assert _same_code(assembled, whole)
        elif not _ASSEMBLES:
            assert assembled is None


@pytest.mark.skipif(not _ASSEMBLES, reason="this Python's class code lists what its methods set")
def test_a_changed_method_is_all_that_compiles_of_its_class(monkeypatch: pytest.MonkeyPatch) -> None:
    from astreduce.oracles import pieces

    module = ModuleCode("prog.py")
    text = "class C:\n" + "".join(f"    def m{i}(self):\n        x = {i}\n        return x\n" for i in range(100))
    assert module.codes(text) is not None and module._classes.assembled_classes == 1
    compiled: list[str] = []
    plain = pieces._compile_unit
    monkeypatch.setattr(pieces, "_compile_unit", lambda unit, filename: compiled.append(unit) or plain(unit, filename))
    changed = text.replace("x = 7\n", "x = 70\n")
    parts = module.codes(changed)
    assert parts is not None and _same_code(parts[0], compile(changed, "prog.py", "exec", dont_inherit=True))
    method = "    def m7(self):\n        x = 70\n        return x\n"
    # the method, and its stub alone (the same as before: it ends where the body did, so the outline is kept)
    assert len(compiled) == 2 and compiled[0] == "class C:\n" + method and "x = " not in compiled[1]
    shorter = text.replace("        x = 7\n        return x\n", "        return 7\n")
    compiled.clear()
    parts = module.codes(shorter)
    assert parts is not None and _same_code(parts[0], compile(shorter, "prog.py", "exec", dont_inherit=True))
    assert compiled[0] == "class C:\n    def m7(self):\n        return 7\n"
    assert len(compiled) == 3 and "return" not in compiled[1] + compiled[2]  # its stub, and the outline: every body cut


@pytest.mark.skipif(not _ASSEMBLES, reason="this Python's class code lists what its methods set")
def test_a_method_whose_colon_line_is_inside_a_string_is_not_cut() -> None:
    """A one-line method whose string runs on over lines that end with a colon: cut there, its stub
    would leave the string open; it stays whole in the outline, and the class is still the whole's."""
    text = _padded('class C:\n    def m(self): return """\n        foo:\n        bar\n        """\n    def n(self):\n        """doc"""\n        return 1\n')
    module = ModuleCode("prog.py")
    assembled = module._classes.assembled(text)
    assert assembled is not None and _same_code(assembled, compile(text, "prog.py", "exec", dont_inherit=True))
    assert not any(member.code is not None and member.code.co_name == "m" for member in module._classes._members.values())
