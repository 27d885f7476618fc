"""Lay out a release pair of ``astreduce isolate``: two PyPI releases of a library, its test, its check.

Usage::

    python corpora/isolate/releases/fetch.py PAIR OUTDIR [--wheels DIR]
    python corpora/isolate/releases/fetch.py --list

The library's source is not committed here: the two wheels are fetched from
PyPI with ``pip download`` (pinned versions), checked against the sha256
pinned below, and their package folder unpacked into ``OUTDIR/old`` and
``OUTDIR/new``. ``--wheels DIR`` looks for the wheel files in DIR (any depth)
first, for a machine without the network. Beside them go the pair's
``test_regression.py`` (one pytest test that fails on NEW), an empty
``pytest.ini`` (so that no configuration of a folder above applies), and
``check.sh``, the ``--test`` script: exit 0 when the test fails in the
candidate folder the way it fails on NEW. Then::

    astreduce isolate OUTDIR/old OUTDIR/new --test OUTDIR/check.sh -j 2
    astreduce isolate OUTDIR/old OUTDIR/new --node OUTDIR/test_regression.py::TEST -j 2

Standard library only (and pip, for the download).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Release:
    version: str
    wheel: str
    sha256: str


@dataclass(frozen=True)
class Pair:
    """Two releases of ``dist`` (the package folder ``package``), the test that tells them apart, the upstream story."""

    dist: str
    package: str
    old: Release
    new: Release
    test: str
    """The test's name in ``test_regression.py``."""
    failure: str
    """A line of pytest's output on NEW (``check.sh`` looks for it)."""
    bug: str
    fix: str


PAIRS = {
    "pygments_2.10.0_2.11.0": Pair(
        "pygments", "pygments",
        Release("2.10.0", "Pygments-2.10.0-py3-none-any.whl", "b8e67fe6af78f492b3c4b3e2970c0624cbf08beb1e493b2c99b9fa1b67a20380"),
        Release("2.11.0", "Pygments-2.11.0-py3-none-any.whl", "ac8098bfc40b8e1091ad7c13490c7f4797e401d0972e8fcfadde90ffb3ed4ea9"),
        "test_json_whitespace_before_colon_is_not_an_error",
        "AssertionError: assert [('Token.Error', ' ')] == []",
        "https://github.com/pygments/pygments/issues/2010",
        "https://github.com/pygments/pygments/commit/88ed195d6d3623b8bdc9c7590bccb5dfeb3a7cf7",
    ),
    "pyparsing_3.0.9_3.1.0": Pair(
        "pyparsing", "pyparsing",
        Release("3.0.9", "pyparsing-3.0.9-py3-none-any.whl", "5026bae9a10eeaefb61dab2f09052b9f4307d44aee4eda64b309723d8d206bbc"),
        Release("3.1.0", "pyparsing-3.1.0-py3-none-any.whl", "d554a96d1a7d3ddaf7183104485bc19fd80543ad6ac5bdb6426719d766fb06c1"),
        "test_word_min_is_respected",
        "Failed: DID NOT RAISE",  # newer pytest prints the class's name only
        "https://github.com/pyparsing/pyparsing/issues/502",
        "https://github.com/pyparsing/pyparsing/commit/1936b368",
    ),
    "click_7.1.2_8.0.0": Pair(
        "click", "click",
        Release("7.1.2", "click-7.1.2-py2.py3-none-any.whl", "dacca89f4bfadd5de3d7489b7c8a566eee0d3676333fbb50030263894c38c0dc"),
        Release("8.0.0", "click-8.0.0-py3-none-any.whl", "e90e62ced43dc8105fb9a26d62f0d9340b5c8db053a814e25d95c19873ae87db"),
        "test_add_command_name_used_for_default_map",
        "Error: Missing option '--qux'.",
        "https://github.com/pallets/click/issues/1895",
        "https://github.com/pallets/click/pull/1915",
    ),
    "pygments_2.15.1_2.16.0": Pair(
        "pygments", "pygments",
        Release("2.15.1", "Pygments-2.15.1-py3-none-any.whl", "db2db3deb4b4179f399a09054b023b6a586b76499d36965813c71aa8ed7b5fd1"),
        Release("2.16.0", "Pygments-2.16.0-py3-none-any.whl", "90e046f72a58b65edd7e6bd99926ffa1b9d19e23db166905046bea0069c0894d"),
        "test_native_style_is_listed",
        "AssertionError: assert 'native' in {",
        "https://github.com/napari/napari/issues/6121",
        "https://github.com/pygments/pygments/pull/2484",
    ),
    "dateutil_2.6.1_2.7.0": Pair(
        "python-dateutil", "dateutil",
        Release("2.6.1", "python_dateutil-2.6.1-py2.py3-none-any.whl", "95511bae634d69bc7329ba55e646499a842bc4ec342ad54a8cdb65645a0aad3c"),
        Release("2.7.0", "python_dateutil-2.7.0-py2.py3-none-any.whl", "07009062406cffd554a9b4135cd2ff167c9bf6b7aac61fe946c93e69fad1bbd8"),
        "test_malformed_time_raises_value_error",
        "decimal.InvalidOperation: [<class 'decimal.ConversionSyntax'>]",
        "https://github.com/dateutil/dateutil/issues/632",
        "https://github.com/dateutil/dateutil/pull/636",
    ),
}

#: The shipped example (docs/isolate.md walks through it).
SHIPPED = "pygments_2.10.0_2.11.0"

CHECK = """#!/bin/sh
# --test script of astreduce isolate: exit 0 when {test} fails in the folder $1 as it fails on NEW.
here="$(cd "$(dirname "$0")" && pwd)"
cd "${{1:?usage: check.sh CANDIDATE_DIR}}" || exit 2
out="$(PYTHONDONTWRITEBYTECODE=1 PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 PYTHONPATH="$PWD" \\
  timeout 60 "${{PYTHON:-{python}}}" -m pytest -q -x -p no:cacheprovider --color=no \\
  -c "$here/pytest.ini" --rootdir="$here" "$here/test_regression.py" 2>&1)"
[ $? -eq 1 ] || exit 1
printf '%s\\n' "$out" | grep -qF -- {failure}
"""


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def wheel(release: Release, dist: str, store: Path, wheels: Path | None) -> Path:
    """The release's wheel, from ``wheels`` or ``store`` when there, else downloaded by pip; its sha256 checked."""
    found = [*(wheels.rglob(release.wheel) if wheels is not None else []), *store.glob(release.wheel)]
    if not found:
        store.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--quiet", "--dest", str(store),
             f"{dist}=={release.version}"],
            check=True,
        )
        found = list(store.glob(release.wheel))
        if not found:
            raise SystemExit(f"pip downloaded no {release.wheel}")
    path = found[0]
    if _sha256(path) != release.sha256:
        raise SystemExit(f"{path}: sha256 {_sha256(path)}, not the pinned {release.sha256}")
    return path


def unpack(path: Path, package: str, folder: Path) -> None:
    """The wheel's package folder (only it) into ``folder``."""
    with zipfile.ZipFile(path) as archive:
        for name in archive.namelist():
            if name.startswith(f"{package}/") and not name.endswith("/"):
                target = folder / name
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(archive.read(name))


def lay_out(name: str, out: Path, wheels: Path | None = None, python: str = sys.executable) -> Pair:
    """``out/old``, ``out/new``, ``out/test_regression.py``, ``out/pytest.ini``, ``out/check.sh`` for the pair ``name``."""
    pair = PAIRS[name]
    out.mkdir(parents=True, exist_ok=True)
    store = out / "_wheels"
    for side, release in (("old", pair.old), ("new", pair.new)):
        shutil.rmtree(out / side, ignore_errors=True)
        unpack(wheel(release, pair.dist, store, wheels), pair.package, out / side)
    shutil.copy(HERE / name / "test_regression.py", out / "test_regression.py")
    (out / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    check = out / "check.sh"
    check.write_text(CHECK.format(test=pair.test, python=python, failure=_quoted(pair.failure)), encoding="utf-8")
    check.chmod(0o755)
    return pair


def _quoted(text: str) -> str:
    """``text`` as one single-quoted shell word."""
    return "'" + text.replace("'", "'\"'\"'") + "'"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pair", nargs="?", choices=sorted(PAIRS))
    parser.add_argument("out", nargs="?", type=Path)
    parser.add_argument("--wheels", type=Path, help="look for the wheel files here first")
    parser.add_argument("--list", action="store_true", help="list the pairs")
    args = parser.parse_args()
    if args.list or args.pair is None or args.out is None:
        for name, pair in PAIRS.items():
            print(f"{name}{' (shipped example)' if name == SHIPPED else ''}: {pair.bug}")
        return
    pair = lay_out(args.pair, args.out, args.wheels)
    print(f"{args.out}/old ({pair.dist} {pair.old.version}), {args.out}/new ({pair.new.version}), {args.out}/check.sh; "
          f"node: {args.out}/test_regression.py::{pair.test}", file=sys.stderr)


if __name__ == "__main__":
    os.umask(0o022)
    main()
