"""Build the stdlib_textwrap case: textwrap.py ignoring the subsequent indent's width.

Usage: ``python build.py OUTDIR`` writes ``OUTDIR/input.py``, the running
interpreter's ``textwrap.py`` with one injected fault, and ``OUTDIR/check.py``, the
test script that the case appends to every candidate (``--append check.py``):
a guard that raises ``RuntimeError`` when ordinary wrapping breaks, then a check that
fails with ``AssertionError: My Test``.  The guard re-raises *every* exception
as ``RuntimeError``, the target ``AssertionError`` included, so a module that
raises the target while the guard runs does not count.
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
# --- guard: ordinary wrapping, filling and dedenting must still work
def _guard():
    if wrap("The quick brown fox jumps", width=10) != ["The quick", "brown fox", "jumps"]:
        raise RuntimeError("wrap is broken")
    if fill("one two three", width=9, initial_indent="> ") != "> one two\\nthree":
        raise RuntimeError("fill is broken")
    # indents of equal width: continuation lines work unless the widths differ
    lines = wrap("one two three four", width=10, initial_indent="* ", subsequent_indent="  ")
    if lines != ["* one two", "  three", "  four"]:
        raise RuntimeError("subsequent_indent is broken")
    if dedent("    a\\n      b\\n") != "a\\n  b\\n":
        raise RuntimeError("dedent is broken")
    if shorten("Hello  world, how are you", width=16) != "Hello [...]":
        raise RuntimeError("shorten is broken")


try:
    _guard()
except Exception as exc:  # the target exception too: it must come from the check
    raise RuntimeError("guard failed: %r" % (exc,)) from exc
"""

CHECK = """\
# --- the failing check: continuation lines leave room for their indent
lines = wrap("aaa bbb ccc ddd", width=8, subsequent_indent="    ")
assert lines == ["aaa bbb", "    ccc", "    ddd"], "My Test"
"""


def build(outdir: str) -> Path:
    text = sb.read_stdlib("textwrap.py")
    text = sb.replace(
        text,
        "            width = self.width - len(indent)\n",
        "            width = self.width - len(self.initial_indent)\n",
        where="textwrap TextWrapper._wrap_chunks",
    )
    text = sb.strip_main_blocks(text)
    header = (
        f"textwrap.py from the Python {sb.version()} standard library, built by\n"
        "corpora/stdlib_textwrap/build.py. Injected fault: _wrap_chunks measures every\n"
        "line against the initial indent, so continuation lines overflow the width."
    )
    return sb.write_module_and_check(outdir, header, text, [GUARD, CHECK])


if __name__ == "__main__":
    sb.main(build)
