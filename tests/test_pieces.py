"""A candidate's test runs its top-level statements' code, each compiled once: as the whole would run."""

from __future__ import annotations

import symtable
import sys
import textwrap
import types
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from astreduce.oracles import Target
from astreduce.oracles.execution import ExecOracle
from astreduce.oracles.pieces import ModuleCode
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
            found[f"{code.co_qualname}@{code.co_firstlineno}"] = code.co_firstlineno
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
