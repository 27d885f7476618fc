"""Build the stdlib_shlex case: shlex.py leaving the quotes after an escaped quote.

Usage: ``python build.py OUTDIR`` writes ``OUTDIR/input.py``: the running
interpreter's ``shlex.py`` with one injected fault, a guard that raises
``RuntimeError`` when ordinary splitting and quoting break, and a check that
fails inside the module with ``ValueError: No closing quotation``.
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
    if split("echo 'a b' c\\\\ d # note", comments=True) != ["echo", "a b", "c d"]:
        raise RuntimeError("split of single quotes, escapes or comments is broken")
    if join(["rm", "-rf", "it's here"]) != "rm -rf 'it'\\"'\\"'s here'":
        raise RuntimeError("join/quote is broken")
    lexer = shlex("a && b", punctuation_chars=True)
    if list(lexer) != ["a", "&&", "b"]:
        raise RuntimeError("punctuation_chars is broken")


try:
    _guard()
except Exception as exc:
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
    return sb.write_input(outdir, header, [text, GUARD, CHECK])


if __name__ == "__main__":
    sb.main(build)
