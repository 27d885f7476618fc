"""Helpers for the ``build.py`` scripts of cases made from standard-library modules.

A case built at test time reads a module from the running interpreter's standard
library (``sysconfig.get_paths()["stdlib"]``), injects one fault by exact text
replacement, and writes either

- one standalone script (``write_input``): the module's code, then a guard
  that raises a *different* exception when the module is broken in some other
  way, then the failing check; or
- the module alone as ``input.py`` and the guard and the check as ``check.py``
  (``write_module_and_check``), for a case run with ``--append check.py``:
  only the module is reduced, so the guard cannot be deleted.

The program is exec'd as ``__main__``, so ``if __name__ == "__main__":``
blocks are cut out of the module text.

Every replacement must match exactly the expected number of times; otherwise
the build stops with a message naming the case, the file and the Python
version, so a changed standard library is noticed at once instead of silently
producing an input that does not reproduce.
"""

from __future__ import annotations

import ast
import sys
import sysconfig
from collections.abc import Callable
from pathlib import Path


class BuildError(Exception):
    """The standard-library text did not look as the build script expects."""


def version() -> str:
    """The running interpreter's version as ``X.Y.Z``."""
    return ".".join(map(str, sys.version_info[:3]))


def stdlib_path(relpath: str) -> Path:
    """The path of a module file in the running interpreter's standard library."""
    path = Path(sysconfig.get_paths()["stdlib"]) / relpath
    if not path.is_file():
        raise BuildError(f"{relpath} not found in the Python {version()} standard library: {path}")
    return path


def read_stdlib(relpath: str) -> str:
    """The text of a standard-library module file, with ``\\n`` line endings."""
    return stdlib_path(relpath).read_text(encoding="utf-8")


def replace(text: str, old: str, new: str, *, where: str, count: int = 1) -> str:
    """Replace ``old`` by ``new``; fail loudly unless ``old`` occurs exactly ``count`` times."""
    found = text.count(old)
    if found != count:
        raise BuildError(
            f"{where}: expected {count} occurrence(s) of {old!r} in the Python {version()} "
            f"standard library, found {found}; the fault injection must be updated"
        )
    return text.replace(old, new)


def strip_main_blocks(text: str) -> str:
    """Remove every top-level ``if __name__ == "__main__":`` block from a module's text."""
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    cut: list[tuple[int, int]] = []
    for node in tree.body:
        if (
            isinstance(node, ast.If)
            and isinstance(node.test, ast.Compare)
            and isinstance(node.test.left, ast.Name)
            and node.test.left.id == "__name__"
        ):
            assert node.end_lineno is not None
            cut.append((node.lineno - 1, node.end_lineno))
    for start, end in reversed(cut):
        del lines[start:end]
    return "".join(lines)


def write_input(outdir: str, header: str, parts: list[str], name: str = "input.py") -> Path:
    """Join ``parts`` into one script under a comment header and write it to ``outdir/name``.

    The result is compiled once here so that a broken build fails at build time.
    """
    body = "\n\n".join(part.rstrip("\n") + "\n" for part in parts)
    comment = "".join(f"# {line}\n".replace("# \n", "#\n") for line in header.splitlines())
    text = comment + body
    compile(text, name, "exec")
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / name
    path.write_text(text, encoding="utf-8")
    return path


def write_module_and_check(
    outdir: str,
    header: str,
    module: str,
    test_parts: list[str],
    *,
    name: str = "input.py",
    check_name: str = "check.py",
) -> Path:
    """Write the module to ``outdir/name`` and the guard and check to ``outdir/check_name``.

    For a case run with ``--append check_name``: the reducer sees the module
    only and appends the test script, unchanged, to every candidate.  Both
    files open with the comment header; the program that runs (module, then
    test script) is compiled once here so that a broken build fails at build
    time.

    Returns:
        The path of the module file.
    """
    comment = "".join(f"# {line}\n".replace("# \n", "#\n") for line in header.splitlines())
    module_text = comment + module.rstrip("\n") + "\n"
    check_text = (
        comment
        + "#\n# The test script appended to every candidate (only the module is reduced).\n\n"
        + "\n\n".join(part.rstrip("\n") + "\n" for part in test_parts)
    )
    compile(module_text + check_text, name, "exec")
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    (out / check_name).write_text(check_text, encoding="utf-8")
    path = out / name
    path.write_text(module_text, encoding="utf-8")
    return path


def main(build: Callable[[str], Path]) -> None:
    """Run a case's ``build(outdir)`` from the command line: ``python build.py OUTDIR``."""
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} OUTDIR")
    try:
        path = build(sys.argv[1])
    except BuildError as exc:
        sys.exit(f"build failed: {exc}")
    print(path)
