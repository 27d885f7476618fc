"""Build the stdlib_argparse case: argparse.py with the append action reversing its items.

Usage: ``python build.py OUTDIR`` writes ``OUTDIR/input.py``: the running
interpreter's ``argparse.py`` with one injected fault, a guard that raises
``RuntimeError`` when ordinary parsing breaks, and a check that fails with
``AssertionError: My Test``.
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
    ns = parser.parse_args(["data.txt", "-n", "3", "--quiet", "-I", "lib"])
    if (ns.path, ns.count, ns.quiet, ns.includes) != ("data.txt", 3, True, ["lib"]):
        raise RuntimeError("unexpected namespace %r" % (ns,))
    if not parser.format_usage().startswith("usage: tool"):
        raise RuntimeError("usage is broken")


try:
    _guard()
except Exception as exc:
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
    return sb.write_input(outdir, header, [text, GUARD, CHECK])


if __name__ == "__main__":
    sb.main(build)
