"""The slice as a listing: the program with the kept executions marked on each line (``6₂ 6₃``).

The paper shows a critical slice this way: each line of the program, and
beside it the executions of that line the slice keeps, as the line number
with the occurrence as a subscript. Lines of ``--include`` modules follow,
only those with kept executions, under a header naming the module.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from astreduce.slicing.search import SliceResult

_SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")

#: The widest source column before the marks.
WIDTH = 60


def mark(line: int, occurrence: int) -> str:
    """``6₂``: the second execution of line 6."""
    return f"{line}{str(occurrence).translate(_SUBSCRIPTS)}"


def render_listing(result: SliceResult) -> str:
    """The program, numbered, with the slice's events beside their lines."""
    marks: dict[int, dict[int, list[str]]] = defaultdict(lambda: defaultdict(list))
    for index, line, occurrence in result.events:
        marks[index][line].append(mark(line, occurrence))
    out = _numbered(result.text.splitlines(), marks[0], every=True)
    for index, module in enumerate(result.modules, start=1):
        if not marks[index]:
            continue
        try:
            lines = Path(result.files[index]).read_text(encoding="utf-8", errors="replace").splitlines()
        except (OSError, IndexError):
            lines = []
        out.append(f"==> {module} ({result.files[index] if index < len(result.files) else '?'}) <==")
        out += _numbered(lines, marks[index], every=False)
    return "\n".join(out) + "\n"


def _numbered(lines: list[str], marks: dict[int, list[str]], every: bool) -> list[str]:
    digits = len(str(max(len(lines), 1)))
    width = min(WIDTH, max((len(t.rstrip()) for t in lines), default=0))
    out = []
    for number, source in enumerate(lines, start=1):
        if not every and number not in marks:
            continue
        shown = " ".join(marks.get(number, []))
        row = f"{number:>{digits}}  {source.rstrip():<{width}}"
        out.append(f"{row}  {shown}".rstrip() if shown else row.rstrip())
    return out
