"""The README's first command, run as the README writes it: the result still holds the quote bug.

The showcase once reduced the markup example to ``return "x"``, a shortcut
that raised the target without the bug. The shipped check now rules the
shortcut out; this test keeps the README, the check and the reducer honest.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def first_command() -> list[str]:
    """The arguments of ``astreduce`` in the README's first shell block."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```sh\n(.*?)```", readme, re.DOTALL)
    assert block is not None
    words = shlex.split(block.group(1))
    start = next(i for i, word in enumerate(words) if word.endswith("/astreduce"))
    return words[start + 1 :]


def test_the_readme_first_command_leaves_the_quote_bug(tmp_path: Path) -> None:
    args = first_command()
    assert args[:2] == ["reduce", "corpora/markup_stripping/input.py"]
    output = args.index("-o") + 1
    assert args[output] == "markup.reduced.py"
    args[output] = str(tmp_path / "markup.reduced.py")  # the README's own path would land in the clone
    done = subprocess.run([sys.executable, "-m", "astreduce", *args], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "markup.reduced.py").read_text(encoding="utf-8")
    namespace: dict[str, Any] = {}
    exec(compile(text, "markup.reduced.py", "exec"), namespace)  # noqa: S102  # the reduced program, to call its function
    strip = namespace["remove_html_markup"]
    # still a markup stripper, not a constant ...
    assert strip("<b>x</b>") == "x" and strip("a<i>yz</i>") == "ayz"
    # ... with quote mode inside tags ...
    assert strip('<a title="x>y">z</a>') == "z"
    # ... and the quote bug itself: a double quote outside a tag toggles quote mode and is dropped
    assert strip('"foo"') == "foo"
    assert "'\"'" in text or '"\\""' in text
    assert re.search(r"not \w+", text), text  # the quote flag guards the end of a tag
