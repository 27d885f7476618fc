"""Build the stdlib_xml case: the running interpreter's ``xml`` package with one injected fault.

Usage: ``python build.py OUTDIR`` writes ``OUTDIR/input/``: the package
(``xml/`` with ``dom``, ``etree``, ``parsers`` and ``sax``: 22 modules in
Python 3.11), a ``main.py`` that uses it as a program would, and a
``README.md``. The fault is in ``xml/dom/minidom.py``: ``_write_data`` no
longer escapes a double quote, so an attribute value holding one is
written as ``say=""hi""``, which no XML parser reads back (as
https://bugs.python.org/issue5752 reported of newlines in attribute values).
The check (``check.py``, beside this script) parses documents with
``minidom.parseString`` and writes them again: it needs the DOM, the
builder on top of expat and the writer.
"""

import importlib.util
import shutil
import sys
from pathlib import Path

# The shared helpers live in corpora/stdlib_build.py, two folders up.
_spec = importlib.util.spec_from_file_location("stdlib_build", Path(__file__).resolve().parents[2] / "stdlib_build.py")
assert _spec is not None and _spec.loader is not None
sb = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sb)

MAIN = '''\
"""Rewrite a small address book with every entry's nickname quoted."""
from xml.dom import minidom

BOOK = '<book><person name="Ann" nick="ann"/><person name="Bob" nick="bobby"/></book>'

document = minidom.parseString(BOOK)
for person in document.getElementsByTagName("person"):
    person.setAttribute("nick", '"' + person.getAttribute("nick") + '"')
print(document.documentElement.toxml())
'''

README = """\
# xml

A copy of the standard library's xml package, with the program main.py
that quotes the nicknames of an address book and writes it again.
"""


def build(outdir: Path) -> None:
    source = sb.stdlib_path("xml/__init__.py").parent
    target = outdir / "input" / "xml"
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    path = target / "dom" / "minidom.py"
    text = path.read_text(encoding="utf-8")
    text = sb.replace(text, '''replace("\\"", "&quot;").''', "", where="stdlib_xml: xml/dom/minidom.py")
    path.write_text(text, encoding="utf-8")
    (outdir / "input" / "main.py").write_text(MAIN, encoding="utf-8")
    (outdir / "input" / "README.md").write_text(README, encoding="utf-8")


if __name__ == "__main__":
    build(Path(sys.argv[1]))
