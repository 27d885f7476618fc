"""``isolate --node NODEID``: a pytest node as the oracle, run warm as ``astreduce pytest`` runs it.

The node is judged by :class:`~astreduce.pytest_node.oracle.PytestOracle`,
the oracle of ``astreduce pytest``: the same warm pytest processes
(zygotes), the same confinement, the same interpreter rules (``--python``,
else the project's own ``.venv``, else astreduce's). A candidate is
interesting when the node fails the same way as on NEW (same phase,
exception type and message as ``--match`` compares them); it passes when
the node passes, as on OLD; anything else (an import error, a collection
error) is UNRESOLVED.

The node's test file is the oracle, not one of the changes: every candidate
holds NEW's version of it (or, when it is outside NEW's folder, the file as
it is on disk, under its own name at the tree's root), so that OLD runs the
same test as NEW.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from astreduce.errors import NotReproducibleError, UsageError
from astreduce.files import FileTree
from astreduce.oracles.options import OracleOptions
from astreduce.pytest_node.oracle import PytestOracle
from astreduce.pytest_node.project import (
    Project,
    conftests_on_the_way,
    import_closure,
    project_python,
    search_roots,
    split_nodeid,
)


def node_files(nodeid: str, new: FileTree, new_root: Path) -> tuple[str, FileTree]:
    """The node id as it runs in a candidate, and the test file every candidate holds.

    Raises:
        UsageError: not a node id, or its file is neither in NEW nor on disk.
    """
    path, test = split_nodeid(nodeid)
    if path in new:
        return f"{path}::{test}", {path: new[path]}
    for candidate in (Path(path), new_root / path):
        if candidate.is_file():
            resolved = candidate.resolve()
            inside = new_root.resolve()
            if inside in resolved.parents:
                name = resolved.relative_to(inside).as_posix()
            else:
                name = resolved.name
            text = resolved.read_bytes().decode("utf-8", errors="surrogateescape")
            return f"{name}::{test}", {name: text}
    raise UsageError(f"--node {nodeid}: no file {path} in NEW ({new_root}) nor here")


def node_oracle(
    nodeid: str, new: FileTree, new_root: Path, options: OracleOptions, *, python: str | None, jobs: int,
    on_note: Callable[[str], None] | None = None,
) -> PytestOracle:
    """The pytest oracle for ``nodeid`` in NEW's tree (the test file included): not calibrated yet."""
    interpreter, origin = project_python(new_root, python)
    test_file = nodeid.partition("::")[0]
    roots = search_roots(dict(new), test_file)
    _, outside = import_closure(dict(new), [test_file, *conftests_on_the_way(dict(new), test_file)], roots)
    project = Project(
        root=new_root.resolve(), nodeid=nodeid, python=interpreter, python_origin=origin, tree=dict(new),
        reduced=frozenset(p for p in new if p.endswith(".py")),
        imports=tuple(sorted(n for n in outside if n.split(".")[0] != "__future__")),
    )
    return PytestOracle(project, timeout=options.timeout, jobs=jobs, on_note=on_note, limits=options.limits(), match=options.match)


def calibrate_node(oracle: PytestOracle, new: FileTree) -> None:
    """Run the node on NEW: its failure becomes the target.

    Raises:
        NotReproducibleError: the node does not fail on NEW, or not every time.
        UsageError: pytest is missing, or does not find the node.
    """
    try:
        oracle.calibrate(new)
    except NotReproducibleError as error:
        raise NotReproducibleError(f"NEW does not fail: {error}") from None
    except UsageError as error:
        if "does not fail" in str(error):
            raise NotReproducibleError(f"NEW does not fail: {error}") from None
        raise
