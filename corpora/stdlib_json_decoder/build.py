"""Build the stdlib_json_decoder case: json/scanner.py + json/decoder.py, pure Python.

Usage: ``python build.py OUTDIR`` writes ``OUTDIR/input.py``: the running
interpreter's ``json/scanner.py`` and ``json/decoder.py`` as one script, with
the C accelerators cut out (so the Python code runs) and one injected fault in
``JSONObject``, a guard that raises ``RuntimeError`` when ordinary decoding
breaks, and a check that fails inside the module with ``JSONDecodeError`` and
a message the module computes (so the exception class and its ``__init__``
must survive reduction).
"""

import importlib.util
from pathlib import Path

# The shared helpers live in corpora/stdlib_build.py, one folder up.
_spec = importlib.util.spec_from_file_location(
    "stdlib_build", Path(__file__).resolve().parent.parent / "stdlib_build.py"
)
assert _spec is not None and _spec.loader is not None
sb = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sb)

GUARD = """\
# --- guard: ordinary documents (spaced objects, compact arrays) must still decode
def _guard():
    decoder = JSONDecoder()
    doc = '{"name": "x", "tags": [1,2.5,"three",null,true], "nested": {"k": false}}'
    want = {"name": "x", "tags": [1, 2.5, "three", None, True], "nested": {"k": False}}
    if decoder.decode(doc) != want:
        raise RuntimeError("decode is broken")
    if decoder.decode('"a\\\\u00e9\\\\n"') != "a\\u00e9\\n":
        raise RuntimeError("string escapes are broken")
    try:
        decoder.decode("[1, 2")
    except JSONDecodeError as exc:
        if exc.pos != 5:
            raise RuntimeError("error position is broken")
    else:
        raise RuntimeError("truncated input was accepted")


try:
    _guard()
except Exception as exc:
    raise RuntimeError("guard failed: %r" % (exc,)) from exc
"""

CHECK = """\
# --- the failing check: a compact object with two members
record = JSONDecoder().decode('{"a":1,"b":2}')
assert record == {"a": 1, "b": 2}, "My Test"
"""


def build(outdir: str) -> Path:
    scanner = sb.read_stdlib("json/scanner.py")
    scanner = sb.replace(
        scanner,
        "try:\n    from _json import make_scanner as c_make_scanner\n"
        "except ImportError:\n    c_make_scanner = None\n",
        "c_make_scanner = None  # the C accelerator is cut out\n",
        where="json/scanner.py accelerator import",
    )
    decoder = sb.read_stdlib("json/decoder.py")
    decoder = sb.replace(
        decoder, "from json import scanner\n", "", where="json/decoder.py scanner import"
    )
    decoder = sb.replace(
        decoder,
        "try:\n    from _json import scanstring as c_scanstring\n"
        "except ImportError:\n    c_scanstring = None\n",
        "c_scanstring = None  # the C accelerator is cut out\n",
        where="json/decoder.py accelerator import",
    )
    decoder = sb.replace(
        decoder,
        "scanner.make_scanner(self)",
        "make_scanner(self)",
        where="json/decoder.py JSONDecoder.__init__",
    )
    decoder = sb.replace(
        decoder,
        "        end = _w(s, end).end()\n        nextchar = s[end:end + 1]\n"
        "        end += 1\n        if nextchar != '\"':\n",
        "        end = _w(s, end + 1).end()\n        nextchar = s[end:end + 1]\n"
        "        end += 1\n        if nextchar != '\"':\n",
        where="json/decoder.py JSONObject",
    )
    header = (
        f"json/scanner.py and json/decoder.py from the Python {sb.version()} standard library,\n"
        "built by corpora/stdlib_json_decoder/build.py, C accelerators cut out. Injected\n"
        "fault: after a comma JSONObject skips one character before the whitespace, so\n"
        "the next key's opening quote is lost when there is no space after the comma."
    )
    return sb.write_input(
        outdir, header, [sb.strip_main_blocks(scanner), sb.strip_main_blocks(decoder), GUARD, CHECK]
    )


if __name__ == "__main__":
    sb.main(build)
