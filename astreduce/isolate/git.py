"""``isolate --git GOOD BAD``: two revisions of a repository, each checked out in a folder of astreduce's own.

Each revision is written by ``git checkout-index`` from an index of its own
(``GIT_INDEX_FILE`` in a temporary folder, filled by ``git read-tree``) into
a temporary folder: the user's working tree, index, branches, refs and
worktree list are never written, and the files are what a checkout would
write (line endings, filters). The two folders are then OLD and NEW, and
are removed at the end, whatever happens.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from astreduce.errors import UsageError


def _git(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    try:
        done = subprocess.run(
            ["git", "-C", str(repo), *args], capture_output=True, text=True, check=False, env=env, stdin=subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise UsageError("--git needs the git program, which is not on PATH") from None
    if done.returncode != 0:
        said = (done.stderr.strip().splitlines() or [f"git {args[0]} failed"])[-1]
        raise UsageError(f"git {args[0]}: {said.removeprefix('fatal: ')}")
    return done.stdout


def resolve(repo: Path, revision: str) -> str:
    """The commit ``revision`` names in ``repo`` (its full hash).

    Raises:
        UsageError: not a repository, or no such revision.
    """
    if not repo.is_dir():
        raise UsageError(f"--repo {repo}: no such folder")
    _git(repo, "rev-parse", "--git-dir")
    try:
        return _git(repo, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}").strip()
    except UsageError:
        raise UsageError(f"--git: {revision!r} names no commit in {repo}") from None


def checkout(repo: Path, commit: str, folder: Path) -> None:
    """Write ``commit``'s files into the empty ``folder``, through an index file of its own."""
    with tempfile.TemporaryDirectory(prefix="astreduce-git-index-") as private:
        env = {**os.environ, "GIT_INDEX_FILE": os.path.join(private, "index")}
        env.pop("GIT_WORK_TREE", None)
        _git(repo, "read-tree", commit, env=env)
        _git(repo, "checkout-index", "--all", "--force", f"--prefix={folder}{os.sep}", env=env)


@contextmanager
def revisions(repo: Path, good: str, bad: str) -> Iterator[tuple[Path, Path, str, str]]:
    """GOOD and BAD checked out in two temporary folders: (old, new, good's commit, bad's commit); removed after."""
    good_commit, bad_commit = resolve(repo, good), resolve(repo, bad)
    if good_commit == bad_commit:
        raise UsageError(f"--git: {good} and {bad} are the same commit: there are no changes to isolate")
    top = Path(_git(repo, "rev-parse", "--show-toplevel").strip())
    base = Path(tempfile.mkdtemp(prefix="astreduce-revisions-"))
    try:
        old, new = base / "good", base / "bad"
        for commit, folder in ((good_commit, old), (bad_commit, new)):
            folder.mkdir()
            checkout(top, commit, folder)
        yield old, new, good_commit, bad_commit
    finally:
        shutil.rmtree(base, ignore_errors=True)
