"""The documentation: the README's shape, a strict MkDocs build, and every ```python block run as written.

Each Python block of README.md and docs/*.md runs in a fresh interpreter, in a temporary folder
that holds a link to the repository's ``corpora/`` (the shipped data a block may read), so a block
may write files of its own there. Blocks must be self-contained: what they need is made inline or
shipped in the repository.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
MARKUP = ROOT / "corpora" / "markup_stripping"


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    """The line of the opening fence, counted from 1."""
    code: str

    @property
    def id(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def fenced_blocks(page: Path, language: str) -> list[Block]:
    """The fenced blocks of ``language`` in ``page``, with the line of their opening fence."""
    blocks = []
    lines = page.read_text(encoding="utf-8").splitlines()
    start = None
    for number, line in enumerate(lines, 1):
        if start is None:
            if line.strip() == f"```{language}":
                start = number
        elif line.strip() == "```":
            blocks.append(Block(page, start, "\n".join(lines[start:number - 1]) + "\n"))
            start = None
    assert start is None, f"{page.name}:{start}: a fence that never closes"
    return blocks


PYTHON_BLOCKS = [block for page in PAGES for block in fenced_blocks(page, "python")]


def test_there_are_python_blocks_to_run() -> None:
    pages = {block.page.name for block in PYTHON_BLOCKS}
    assert {"api.md", "compare.md", "literature.md", "slice.md", "trees.md"} <= pages
    assert len(PYTHON_BLOCKS) >= 8


@pytest.mark.parametrize("block", PYTHON_BLOCKS, ids=lambda block: block.id)
def test_python_block_runs_as_written(block: Block, tmp_path: Path) -> None:
    (tmp_path / "corpora").symlink_to(ROOT / "corpora", target_is_directory=True)
    script = tmp_path / "block.py"
    script.write_text(block.code, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    done = subprocess.run(
        [sys.executable, script.name], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, f"{block.id}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"


def test_the_docs_build_in_strict_mode(tmp_path: Path) -> None:
    """A broken link or anchor, or a page missing from the nav, is a warning: --strict fails on it."""
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "site" / "index.html").is_file()


def test_the_readme_links_resolve() -> None:
    """The README is not part of the site, so its relative links are checked here."""
    text = README.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    local = [t for t in targets if "://" not in t]
    assert local, "the README links to no page"
    missing = [t for t in local if not (ROOT / t).exists()]
    assert not missing, missing


def test_every_docs_page_is_linked_from_the_readme() -> None:
    text = README.read_text(encoding="utf-8")
    unlinked = [p.name for p in PAGES[1:] if f"(docs/{p.name})" not in text]
    assert not unlinked, unlinked


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_no_reference_to_files_outside_the_repository(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    for name in ("DESIGN.md", "SPEC.md"):
        assert name not in text, f"{page.name} names {name}, which is not in the repository"
    paths = re.findall(r"`((?:astreduce|tests|bench|corpora|docs)/[\w./-]*)`", text)
    missing = sorted({p for p in paths if not (ROOT / p).exists()})
    assert not missing, f"{page.name} names paths that do not exist: {missing}"


def test_no_source_cites_a_document_outside_the_repository() -> None:
    """What a docstring leans on must be readable by whoever reads the code: docs/, not the team's notes."""
    citing = [
        f"{path.relative_to(ROOT)}:{number}"
        for folder in ("astreduce", "bench", "corpora", "tests")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if path.name != "test_docs.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if re.search(r"\b(DESIGN|SPEC|STYLE)\.md\b", line)
    ]
    assert not citing, f"these cite a document that is not in the repository: {citing}"


# --- the README's shape ----------------------------------------------------------------------


def test_the_readme_is_short() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 300, f"README.md has {len(lines)} lines"


def test_the_readme_opens_with_a_before_after_example() -> None:
    """Within its first 40 lines: an excerpt of the input, the command, and the whole result."""
    head = README.read_text(encoding="utf-8").splitlines()[:40]
    start = head.index("```console")
    end = head.index("```", start)  # the example closes within the first 40 lines
    example = head[start + 1 : end]

    # before: lines of the input, as `sed -n A,Bp` prints them
    sed = re.fullmatch(r"\$ sed -n (\d+),(\d+)p corpora/markup_stripping/input\.py", example[0])
    assert sed is not None, example[0]
    first, last = int(sed.group(1)), int(sed.group(2))
    source = (MARKUP / "input.py").read_text(encoding="utf-8").splitlines()
    assert example[1 : 2 + last - first] == source[first - 1 : last]

    # the command
    command = next(line for line in example if line.startswith("$ astreduce reduce"))
    assert "corpora/markup_stripping/input.py" in command
    assert "--append corpora/markup_stripping/check.py" in command
    assert "--expect 'AssertionError:My Test'" in command

    # after: the whole result, which still holds the bug
    cat = example.index("$ cat markup.reduced.py")
    result = "\n".join(example[cat + 1 :]) + "\n"
    namespace: dict[str, Any] = {}
    exec(compile(result, "markup.reduced.py", "exec"), namespace)  # noqa: S102  # the README's result, to call it
    strip = namespace["remove_html_markup"]
    assert strip("<b>x</b>") == "x" and strip("a<i>yz</i>") == "ayz"
    assert strip('<a title="x>y">z</a>') == "z"
    assert strip('"foo"') == "foo"  # the bug: a double quote outside a tag is dropped
    with pytest.raises(AssertionError, match="My Test"):
        exec(compile(result + (MARKUP / "check.py").read_text(encoding="utf-8"), "check", "exec"), {})  # noqa: S102
