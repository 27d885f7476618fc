"""Build the stdlib_shlex case: shlex.py leaving the quotes after an escaped quote.

Usage: ``python build.py OUTDIR`` writes ``OUTDIR/input.py``, the running
interpreter's ``shlex.py`` with one injected fault, and ``OUTDIR/check.py``, the
test script that the case appends to every candidate (``--append check.py``):
a guard that raises ``RuntimeError`` when ordinary splitting and quoting break,
then a check that fails inside the module with ``ValueError: No closing
quotation``.  The guard re-raises *every* exception as ``RuntimeError``, the
target ``ValueError`` included, so a module that raises the target while the
guard runs does not count.
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
# --- guard: ordinary splitting, joining and quoting must still work
def _guard():
    if split('cp "my file.txt" backup/') != ["cp", "my file.txt", "backup/"]:
        raise RuntimeError("split of double quotes is broken")
    # An escaped quote inside double quotes, then quotes placed so that the result
    # does not depend on the state after the escape: the escape itself must work.
    if split('x "a\\\\"b"c\\\\"d') != ["x", 'a"bc"d']:
        raise RuntimeError("escapes inside double quotes are broken")
    if split("echo 'a b' c\\\\ d # note", comments=True) != ["echo", "a b", "c d"]:
        raise RuntimeError("split of single quotes, escapes or comments is broken")
    if join(["rm", "-rf", "it's here"]) != "rm -rf 'it'\\"'\\"'s here'":
        raise RuntimeError("join/quote is broken")
    lexer = shlex("a && b", punctuation_chars=True)
    if list(lexer) != ["a", "&&", "b"]:
        raise RuntimeError("punctuation_chars is broken")


try:
    _guard()
except Exception as exc:  # the target exception too: it must come from the check
    raise RuntimeError("guard failed: %r" % (exc,)) from exc
"""

CHECK = """\
# --- the failing check: an escaped double quote inside double quotes
tokens = split('say "hi \\\\"there\\\\" now"')
assert tokens == ["say", 'hi "there" now'], "My Test"
"""


def build(outdir: str) -> Path:
    text = sb.read_stdlib("shlex.py")
    text = sb.replace(
        text,
        "                    escapedstate = self.state\n",
        "                    escapedstate = 'a'\n",
        where="shlex shlex.read_token",
    )
    text = sb.strip_main_blocks(text)
    header = (
        f"shlex.py from the Python {sb.version()} standard library, built by\n"
        "corpora/stdlib_shlex/build.py. Injected fault: after a backslash inside double\n"
        "quotes read_token returns to the word state instead of the quote state."
    )
    return sb.write_module_and_check(outdir, header, text, [GUARD, CHECK])


if __name__ == "__main__":
    sb.main(build)
