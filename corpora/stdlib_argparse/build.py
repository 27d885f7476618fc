"""Build the stdlib_argparse case: argparse.py with the append action reversing its items.

Usage: ``python build.py OUTDIR`` writes ``OUTDIR/input.py``, the running
interpreter's ``argparse.py`` with one injected fault, and ``OUTDIR/check.py``, the
test script that the case appends to every candidate (``--append check.py``):
a guard that raises ``RuntimeError`` when ordinary parsing breaks, then a check that
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
# --- guard: ordinary command lines must still parse (any other breakage -> RuntimeError)
def _guard():
    parser = ArgumentParser(prog="tool", description="Copy files.", exit_on_error=False)
    parser.add_argument("path", help="the input file")
    parser.add_argument("-n", "--count", type=int, default=1, help="how many copies")
    parser.add_argument("-q", "--quiet", action="store_true", help="say nothing")
    parser.add_argument("-I", "--include", action="append", dest="includes", help="search here")
    # a repeated option accumulates (equal values: the order cannot show)
    ns = parser.parse_args(["data.txt", "-n", "3", "--quiet", "-I", "lib", "-I", "lib"])
    if (ns.path, ns.count, ns.quiet, ns.includes) != ("data.txt", 3, True, ["lib", "lib"]):
        raise RuntimeError("unexpected namespace %r" % (ns,))
    if not parser.format_usage().startswith("usage: tool"):
        raise RuntimeError("usage is broken")
    # the check's own parser, with equal values (their order cannot show)
    same = ArgumentParser(prog="tool", exit_on_error=False)
    same.add_argument("-I", "--include", action="append", dest="includes")
    if same.parse_args(["-I", "a", "-I", "a"]).includes != ["a", "a"]:
        raise RuntimeError("an option given twice is broken")
    # every parse starts afresh from the defaults: nothing leaks from one to the next
    ns = parser.parse_args(["other.txt"])
    if (ns.path, ns.count, ns.quiet, ns.includes) != ("other.txt", 1, False, None):
        raise RuntimeError("defaults are broken, or a parse leaks into the next")


try:
    _guard()
except Exception as exc:  # the target exception too: it must come from the check
    raise RuntimeError("guard failed: %r" % (exc,)) from exc
"""

CHECK = """\
# --- the failing check: repeated -I options keep their order
parser = ArgumentParser(prog="tool", exit_on_error=False)
parser.add_argument("-I", "--include", action="append", dest="includes")
ns = parser.parse_args(["-I", "a", "-I", "b"])
assert ns.includes == ["a", "b"], "My Test"
"""


def build(outdir: str) -> Path:
    text = sb.read_stdlib("argparse.py")
    text = sb.replace(
        text,
        "        items = _copy_items(items)\n        items.append(values)\n",
        "        items = _copy_items(items)\n        items.insert(0, values)\n",
        where="argparse _AppendAction.__call__",
    )
    text = sb.strip_main_blocks(text)
    header = (
        f"argparse.py from the Python {sb.version()} standard library, built by\n"
        "corpora/stdlib_argparse/build.py. Injected fault: _AppendAction inserts each\n"
        "value at the front, so repeated options come out reversed."
    )
    return sb.write_module_and_check(outdir, header, text, [GUARD, CHECK])


if __name__ == "__main__":
    sb.main(build)
