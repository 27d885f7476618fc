"""Build the stdlib_email case: the running interpreter's ``email`` package with one injected fault.

Usage: ``python build.py OUTDIR`` writes ``OUTDIR/input/``: the package
(``email/`` and ``email/mime/``, 29 modules in Python 3.11), a ``main.py``
that uses it as a program would, and a ``README.md``. The fault is in
``email/_parseaddr.py``: a numeric time zone's minutes are taken modulo
60 instead of 100, so ``+0130`` becomes 70 minutes ahead instead of 90.
The check (``check.py``, beside this script) reads a message with a
``Date`` header and converts it: it needs the parser, the message, the
date utilities and the address parser.
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
"""Print who wrote each message of a small mailbox, and when (UTC)."""
import datetime
import email
from email.utils import parseaddr, parsedate_to_datetime

MAILBOX = [
    "From: Ann <ann@example.com>\\nDate: Tue, 03 Nov 2026 10:00:00 +0000\\nSubject: hello\\n\\nhi\\n",
    "From: Bob <bob@example.org>\\nDate: Tue, 03 Nov 2026 11:30:00 +0130\\nSubject: re: hello\\n\\nhi again\\n",
]

for text in MAILBOX:
    message = email.message_from_string(text)
    name, address = parseaddr(message["From"])
    when = parsedate_to_datetime(message["Date"]).astimezone(datetime.timezone.utc)
    print(f"{when:%Y-%m-%d %H:%M} {name} <{address}>: {message['Subject']}")
'''

README = """\
# email

A copy of the standard library's email package, with the program main.py
that reads a small mailbox. Bob's message was sent at 10:00 UTC.
"""


def build(outdir: Path) -> None:
    source = sb.stdlib_path("email/__init__.py").parent
    target = outdir / "input" / "email"
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "architecture.rst"))
    path = target / "_parseaddr.py"
    text = path.read_text(encoding="utf-8")
    text = sb.replace(
        text, "(tzoffset % 100)*60", "(tzoffset % 60)*60", where="stdlib_email: email/_parseaddr.py"
    )
    path.write_text(text, encoding="utf-8")
    (outdir / "input" / "main.py").write_text(MAIN, encoding="utf-8")
    (outdir / "input" / "README.md").write_text(README, encoding="utf-8")


if __name__ == "__main__":
    build(Path(sys.argv[1]))
