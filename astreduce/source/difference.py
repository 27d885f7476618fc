"""Where two texts differ: their common prefix and suffix, found at C speed.

A candidate is its base with one change; what astreduce does with it (its
size, its change key, the cut of its statements) should cost the change,
not the text, and each begins by finding where the change is.
"""

from __future__ import annotations

__all__ = ["common_length"]


def common_length(a: str, b: str, limit: int, from_end: bool = False) -> int:
    """Length of the common prefix (or suffix) of ``a`` and ``b``, at most ``limit``.

    Compared a block at a time, at C speed, then bisected inside the first
    block that differs. A slice copies, so bisecting the whole of two 100 KB
    candidates copied them about 17 times over; this copies each about once.
    """
    done = 0
    size = 0
    while done < limit:
        size = min(_BLOCK, limit - done)
        if not _same(a, b, done, size, from_end):
            break
        done += size
    else:
        return limit
    # the block differs: bisect it, comparing only the part not yet known to agree (about one block copied
    # in all, where comparing from the block's start each time copied seven)
    low, high = 0, size  # the first ``low`` agree; one of the first ``high`` does not
    while high - low > 1:
        middle = (low + high) // 2
        if _same(a, b, done + low, middle - low, from_end):
            low = middle
        else:
            high = middle
    return done + low


#: The block :func:`common_length` compares at once.
_BLOCK = 16384


def _same(a: str, b: str, done: int, size: int, from_end: bool) -> bool:
    """Whether the ``size`` characters after the first ``done`` (from the end: before the last ``done``) agree
    (one of the two copied: the other is compared in place)."""
    if from_end:
        return a.endswith(b[len(b) - done - size : len(b) - done], 0, len(a) - done)
    return a.startswith(b[done : done + size], done)
