"""The result's last steps: run it again for real, in the form it is written (formatted by black, with its
lines' origins as comments), and black's formatting itself. Shared by files (:mod:`astreduce.reduce.single`) and
trees (:mod:`astreduce.reduce.tree`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from astreduce.files import newline_of
from astreduce.source.measure import measure

C = TypeVar("C")
"""A candidate: a text, or a tree of files."""

ANNOTATION_NOTE = "the result with its origins as comments no longer reproduces (the program reads its own source?); written without them"
FORMAT_NOTE = "black's formatting of the result no longer reproduces; kept it unformatted"
FLAKY_NOTE = "the final result did not reproduce when run again: the oracle may be flaky"


def verify_and_format(
    best: C, reproduces: Callable[[C], bool], pretty: Callable[[C], C | None] | None,
    annotate: Callable[[C], C] | None = None,
) -> tuple[C, bool, bool, list[str]]:
    """Re-run the result for real, in the form it is written: ``best``, formatted by ``pretty`` and with its lines'
    origins as comments by ``annotate`` (each optional).

    The whole form is run first: it reproduces almost always, and then one run
    verifies it (a plain pytest run costs seconds). Only when it does not is each
    step run alone, to keep what still reproduces and say what did not.

    Returns ``(best, verified, formatted, notes)``, the notes saying what the user should know.
    """
    shaped = pretty(best) if pretty is not None else None
    shaped = shaped if shaped is not None and shaped != best else None
    whole = annotate(shaped if shaped is not None else best) if annotate is not None else shaped
    whole = whole if whole is not None and whole != best else None
    if whole is not None and reproduces(whole):
        return whole, True, shaped is not None, []
    if not reproduces(best):
        return best, False, False, [FLAKY_NOTE]
    notes: list[str] = []
    formatted = False
    if shaped is not None:
        if shaped != whole and reproduces(shaped):
            best, formatted = shaped, True
        else:
            notes.append(FORMAT_NOTE)
    if annotate is not None:
        marked = annotate(best)
        if marked != best:
            if marked != whole and reproduces(marked):
                best = marked
            else:
                notes.append(ANNOTATION_NOTE)
    return best, True, formatted, notes


def format_with_black(text: str, newline: str | None = None) -> str | None:
    """``text`` formatted by black, or ``None`` when black cannot format it or its text has more tokens.

    Black may add tokens (a trailing comma when it splits a call one argument a line, parentheses): a result
    is never larger than the text it formats, so that a budget-ended result is never larger than its input.

    Lines end as the first line of ``text`` ends; when ``text`` has no line
    ending at all (a reduction often drops the last one), with ``newline``
    (pass the original's, so that a CRLF file stays CRLF).
    """
    try:
        import black
    except ImportError:  # black is a dependency, but a stripped install may lack it
        return None
    newline = newline_of(text, newline or "\n")
    if newline == "\r":  # black knows \n and \r\n only
        return None
    try:
        pretty = black.format_str(text.replace("\r\n", "\n"), mode=black.Mode())
    except Exception:  # black raises many kinds of errors on odd input; formatting is optional
        return None
    if measure(pretty).tokens > measure(text).tokens:  # bytes and lines may grow: blank lines, indents
        return None
    return pretty.replace("\n", newline) if newline != "\n" else pretty
