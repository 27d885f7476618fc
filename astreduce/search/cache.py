"""The persistent outcome cache behind ``--resume``.

Outcomes are stored in SQLite, keyed by the oracle's identity and a digest of
the candidate's text, so a rerun of an interrupted reduction answers the
tests it already ran from disk and, since the search is deterministic, walks
the same path to the same output. One file serves many reductions: the
identity keeps their outcomes apart.
"""

from __future__ import annotations

import copy
import hashlib
import os
import sqlite3
from pathlib import Path

from astreduce.outcome import Outcome

_SCHEMA = """
create table if not exists outcomes (
    oracle blob not null,
    candidate blob not null,
    outcome text not null,
    primary key (oracle, candidate)
) without rowid
"""


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/astreduce`` (``~/.cache/astreduce``)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "astreduce"


class OutcomeStore:
    """Outcomes of one oracle, on disk."""

    def __init__(self, folder: str | Path, identity: str) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.path = self.folder / "outcomes.sqlite"
        self.oracle = hashlib.blake2b(identity.encode("utf-8", errors="surrogateescape"), digest_size=20).digest()
        self._db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        self._db.execute("pragma journal_mode=wal")
        self._db.execute("pragma synchronous=normal")
        self._db.execute(_SCHEMA)
        self._hits = [0]  # shared with the scoped views

    @property
    def hits(self) -> int:
        """Outcomes answered from disk, by this store and its scoped views."""
        return self._hits[0]

    def scoped(self, scope: str) -> OutcomeStore:
        """A view of the same file for one part of a reduction (one file of a tree, with the rest as it is):
        its own keys, the same connection and hit count. Closing the store closes its views."""
        view = copy.copy(self)
        view.oracle = hashlib.blake2b(self.oracle + scope.encode("utf-8", errors="surrogateescape"), digest_size=20).digest()
        return view

    def get(self, candidate: bytes) -> Outcome | None:
        row = self._db.execute(
            "select outcome from outcomes where oracle = ? and candidate = ?", (self.oracle, candidate)
        ).fetchone()
        if row is None:
            return None
        self._hits[0] += 1
        return Outcome(row[0])

    def put(self, candidate: bytes, outcome: Outcome) -> None:
        self._db.execute(
            "insert or replace into outcomes values (?, ?, ?)", (self.oracle, candidate, outcome.value)
        )

    def close(self) -> None:
        self._db.close()
