"""Input handling as a user meets it: odd files on disk, ``astreduce reduce`` in a subprocess.

Bad input ends with exit status 2 and one line (no traceback); an input
that raises nothing with 1. Encodings, BOMs, line endings and tabs survive
the round trip: the output is written the way the input was, and still
reproduces when run with ``python``. The input itself is never touched.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

ASTREDUCE = [sys.executable, "-m", "astreduce"]
#: Children print non-ASCII tracebacks; do not let the locale decide how.
ENV = {**os.environ, "PYTHONIOENCODING": "utf-8"}


def astreduce(*args: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ASTREDUCE, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=ENV)


def last_error(path: Path) -> str:
    """The last line of the traceback ``python path`` prints ('' when it raises nothing)."""
    process = subprocess.run(
        [sys.executable, path.name], cwd=path.parent, capture_output=True, text=True, timeout=30, env=ENV,
        encoding="utf-8",
    )
    lines = process.stderr.strip().splitlines()
    return lines[-1] if lines else ""


def one_line(stderr: str) -> str:
    """``stderr`` must be exactly one line, from astreduce, without a traceback."""
    assert "Traceback" not in stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("astreduce: "), stderr
    return lines[0]


class Untouched:
    """Remembers a file's bytes and mtime, to check that nothing rewrote it."""

    def __init__(self, path: Path) -> None:
        os.utime(path, ns=(1_000_000_000, 1_000_000_000))
        self.path = path
        self.data = path.read_bytes()

    def check(self) -> None:
        assert self.path.read_bytes() == self.data
        assert self.path.stat().st_mtime_ns == 1_000_000_000


# --- bad input: exit 2, one line --------------------------------------------------------


BAD_INPUTS: list[tuple[str, bytes, str]] = [
    ("does-not-parse", b"a = 1\nb = 2\nx = (1,\nc = 3\n", r"bad\.py:3:\d+: does not parse"),
    ("indentation-error", b"def f():\nreturn 1\n", r"bad\.py:2:\d+: does not parse"),
    ("null-bytes", b"x = 1\x00\nraise ValueError\n", r"bad\.py:1:\d+: .*null byte"),
    ("binary", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe\x00", r"bad\.py:1: not utf-8 text \(byte 0x89\): a binary file"),
    ("latin-1-without-cookie", 'x = 1\nname = "café"\n'.encode("latin-1"), r"bad\.py:2: not utf-8 text"),
    ("unknown-coding-cookie", b"# coding: no-such-codec\nraise ValueError\n", r"bad\.py: bad coding declaration"),
    ("bom-and-latin-1-cookie", b"\xef\xbb\xbf# coding: latin-1\nraise ValueError\n", r"bad\.py: bad coding declaration"),
    ("nested-too-deeply", ("x = " + "(" * 300 + "1" + ")" * 300 + "\n").encode(), r"bad\.py:1:\d+: does not parse"),
]


@pytest.mark.parametrize(("data", "expected"), [c[1:] for c in BAD_INPUTS], ids=[c[0] for c in BAD_INPUTS])
def test_bad_input_exits_2_with_one_line(tmp_path: Path, data: bytes, expected: str) -> None:
    path = tmp_path / "bad.py"
    path.write_bytes(data)
    untouched = Untouched(path)
    process = astreduce("reduce", "bad.py", "-q", cwd=tmp_path)
    assert process.returncode == 2, process.stderr
    line = one_line(process.stderr)
    assert re.search(expected, line), line
    assert process.stdout == ""
    untouched.check()
    assert [p.name for p in tmp_path.iterdir()] == ["bad.py"]


def test_missing_file_exits_2(tmp_path: Path) -> None:
    process = astreduce("reduce", "missing.py", "-q", cwd=tmp_path)
    assert process.returncode == 2
    line = one_line(process.stderr)
    assert "missing.py" in line and "No such file" in line
    assert list(tmp_path.iterdir()) == []


def test_directory_exits_2(tmp_path: Path) -> None:
    (tmp_path / "folder.py").mkdir()
    process = astreduce("reduce", "folder.py", "-q", cwd=tmp_path)
    assert process.returncode == 2
    line = one_line(process.stderr)
    assert "folder.py" in line and "directory" in line


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_file_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "secret.py"
    path.write_text("raise ValueError\n")
    path.chmod(0)
    try:
        process = astreduce("reduce", "secret.py", "-q", cwd=tmp_path)
    finally:
        path.chmod(0o644)
    assert process.returncode == 2
    line = one_line(process.stderr)
    assert "secret.py" in line and "Permission denied" in line


@pytest.mark.parametrize(
    "data", [b"", b"\n\n", b"# only a comment\n", b'"""only a docstring"""\n'], ids=["empty", "blank", "comment", "docstring"]
)
def test_input_without_a_failure_exits_1(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "quiet.py"
    path.write_bytes(data)
    untouched = Untouched(path)
    process = astreduce("reduce", "quiet.py", "-q", cwd=tmp_path)
    assert process.returncode == 1
    assert "no exception" in one_line(process.stderr)
    untouched.check()


def test_deeply_nested_expression_neither_crashes_nor_loses_work(tmp_path: Path) -> None:
    """1,000 nested unary minuses: no RecursionError, and the result is verified.

    The reduction ends in seconds now (300 levels once took 68 s); should it
    still run after a minute on a loaded machine, it is stopped, and the stop
    must leave a verified result too.
    """
    path = tmp_path / "deep.py"
    path.write_text("raise ValueError(" + "-" * 1000 + "1)\n")
    output = tmp_path / "deep.reduced.py"
    process = subprocess.Popen(
        [*ASTREDUCE, "reduce", "deep.py", "-q", "--no-format"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV,
    )
    try:
        try:
            _, stderr = process.communicate(timeout=60)
            stopped = False
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGTERM)
            _, stderr = process.communicate(timeout=60)
            stopped = True
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert "Traceback" not in stderr, stderr[-500:]
    assert process.returncode == (130 if stopped else 0), stderr
    assert last_error(output) == "ValueError: 1"


# --- encodings and line endings round trip -------------------------------------------------


def reduce_ok(tmp_path: Path, name: str, data: bytes, *options: str) -> bytes:
    path = tmp_path / name
    path.write_bytes(data)
    untouched = Untouched(path)
    process = astreduce("reduce", name, "-q", *options, cwd=tmp_path)
    assert process.returncode == 0, process.stderr
    untouched.check()
    output = tmp_path / name.replace(".py", ".reduced.py")
    result = output.read_bytes()
    assert len(result) < len(data)
    return result


def test_latin1_with_coding_cookie(tmp_path: Path) -> None:
    source = (
        "# -*- coding: latin-1 -*-\n"
        "# café au lait\n"
        'name = "café"\n'
        "other = name.upper()\n"
        'assert name == "tea", "café failed"\n'
    )
    output = reduce_ok(tmp_path, "latin.py", source.encode("latin-1"))
    assert "café failed".encode("latin-1") in output  # the message is the target: it must stay
    with pytest.raises(UnicodeDecodeError):
        output.decode("utf-8")  # written as latin-1, not re-encoded as UTF-8
    assert "café failed" in output.decode("latin-1")
    assert last_error(tmp_path / "latin.reduced.py") == "AssertionError: café failed"


def test_utf8_bom_is_kept(tmp_path: Path) -> None:
    source = '\ufeffname = "café"\nother = 1\nassert name == "tea", "My Test é"\n'
    output = reduce_ok(tmp_path, "bom.py", source.encode("utf-8"))
    assert output.startswith(b"\xef\xbb\xbf")
    assert not output[3:].startswith(b"\xef\xbb\xbf")
    assert "My Test é".encode() in output
    assert last_error(tmp_path / "bom.reduced.py") == "AssertionError: My Test é"


#: A function whose body must survive --same-frame: the message depends on the loop.
SUMMING = [
    "def check(items):",
    "\t# adds them up",
    "\ttotal = 0",
    "\tunused = len(items)",
    "\tfor item in items:",
    "\t\ttotal += item",
    '\traise ValueError(f"My Test {total}")',
    "",
    "check([1, 2])",
]


@pytest.mark.parametrize("format_option", ["--format", "--no-format"])
def test_crlf_is_kept(tmp_path: Path, format_option: str) -> None:
    # no line ending at the end: black adds one, and it must be CRLF too
    source = "\r\n".join(line.replace("\t", "    ") for line in SUMMING)
    output = reduce_ok(tmp_path, "crlf.py", source.encode(), "--same-frame", "--transforms", "delete", format_option)
    assert output.count(b"\n") >= 2, output
    assert output.count(b"\r\n") == output.count(b"\n"), output
    assert output.count(b"\r") == output.count(b"\n"), output
    assert last_error(tmp_path / "crlf.reduced.py") == "ValueError: My Test 3"


def test_tabs_are_kept(tmp_path: Path) -> None:
    source = "\n".join(SUMMING) + "\n"
    output = reduce_ok(tmp_path, "tabs.py", source.encode(), "--same-frame", "--transforms", "delete", "--no-format")
    text = output.decode()
    indented = [line for line in text.splitlines() if line[:1].isspace()]
    assert indented, text
    assert all(line.startswith("\t") for line in indented), text
    assert last_error(tmp_path / "tabs.reduced.py") == "ValueError: My Test 3"


def test_mixed_line_endings(tmp_path: Path) -> None:
    source = b"a = 1\r\nb = 2\nc = 3\r\nd = [a]\nraise KeyError(a)\r\n"
    output = reduce_ok(tmp_path, "mixed.py", source, "--no-format", "--transforms", "delete")
    assert b"\r" not in output.replace(b"\r\n", b"")  # no stray carriage returns
    assert last_error(tmp_path / "mixed.reduced.py") == "KeyError: 1"


# --- input that is not Python ----------------------------------------------------------------


@pytest.mark.parametrize("strategy", ["lines", "tokens"])
def test_line_and_token_strategies_reduce_input_that_does_not_parse(tmp_path: Path, strategy: str) -> None:
    path = tmp_path / "broken.py"
    path.write_text("a = 1\nb = 2\nx = (1,\nc = 3\n")
    process = astreduce(
        "reduce", "broken.py", "-q", "--no-format", "--strategy", strategy, "--expect", "SyntaxError", "--match", "type",
        cwd=tmp_path,
    )
    assert process.returncode == 0, process.stderr
    output = (tmp_path / "broken.reduced.py").read_text()
    assert len(output) < len(path.read_text())
    assert last_error(tmp_path / "broken.reduced.py").startswith("SyntaxError")


@pytest.mark.parametrize("kind", ["file", "tree"])
def test_a_write_clears_what_a_killed_writer_left_beside_the_output(tmp_path: Path, kind: str) -> None:
    """kill -9 between a temporary's creation and its rename leaves it behind (found by bench/chaos.py)."""
    from astreduce.writes import write_atomically, write_tree

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()  # its pid names a writer that is no longer alive
    name = "out.py" if kind == "file" else "out"
    stale_file = tmp_path / f".{name}.{gone.pid}-abc123.tmp"
    stale_file.write_text("half")
    stale_dir = tmp_path / f".{name}.{gone.pid}-old-xyz.tmp"
    (stale_dir / "sub").mkdir(parents=True)
    live = tmp_path / f".{name}.{os.getppid()}-def456.tmp"  # a writer still at work: left alone
    live.write_text("busy")
    other = tmp_path / f".other.py.{gone.pid}-abc.tmp"  # another output's: not ours to judge now
    other.write_text("x")
    if kind == "file":
        write_atomically(tmp_path / name, b"x = 1\n")
        assert (tmp_path / name).read_bytes() == b"x = 1\n"
    else:
        write_tree(tmp_path / name, {"a.py": "x = 1\n"})
        assert (tmp_path / name / "a.py").read_text() == "x = 1\n"
    assert not stale_file.exists() and not stale_dir.exists()
    assert live.exists() and other.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([name, live.name, other.name])


def test_the_latest_writer_leaves_the_newest_improvement_whole_on_disk(tmp_path: Path) -> None:
    from astreduce.writes import LatestWriter

    target = tmp_path / "out.py"
    writer = LatestWriter(target)
    texts = [(f"x = {i}\n" * (2000 - i)).encode() for i in range(200)]
    seen: set[bytes] = set()
    for text in texts:
        writer.put(text)
        if target.exists():
            seen.add(target.read_bytes())  # whatever moment it is read at: one whole improvement
    writer.close()
    assert target.read_bytes() == texts[-1]
    assert seen <= set(texts)
    assert writer._thread is not None and not writer._thread.is_alive()
    assert [p.name for p in tmp_path.iterdir()] == ["out.py"], "no temporary left behind"


def test_the_latest_writer_raises_a_failed_write_at_the_next_put_or_flush(tmp_path: Path) -> None:
    from astreduce.writes import LatestWriter

    writer = LatestWriter(tmp_path / "gone" / "out.py")  # its folder does not exist
    writer.put(b"x = 1\n")
    with pytest.raises(FileNotFoundError):
        writer.flush()
    writer.flush()  # raised once
    (tmp_path / "gone").mkdir()
    writer.put(b"x = 2\n")
    writer.flush()
    assert (tmp_path / "gone" / "out.py").read_bytes() == b"x = 2\n"


def test_a_run_refused_for_a_full_output_directory_still_clears_a_killed_runs_temporaries(tmp_path: Path) -> None:
    """The rerun after a kill finds the output written: it refuses to overwrite it, and clears the litter."""
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "main.py").write_text("raise ValueError('v')\n")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "main.py").write_text("raise ValueError('v')\n")
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    stale = tmp_path / f".out.{gone.pid}-abc.tmp"
    stale.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "astreduce", "reduce", "in", "--entry", "main.py", "-o", "out"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 2 and "not empty" in done.stderr
    assert not stale.exists() and (tmp_path / "out" / "main.py").exists()


def test_an_earlier_result_tree_inside_an_input_folder_is_never_read_as_input(tmp_path: Path) -> None:
    """Every result tree astreduce writes holds a mark (issue 47): read again as (part of) an input folder, whatever
    it was renamed to, it is left out; read as the input itself, its files are read, the mark is not."""
    from astreduce.files import OUTPUT_MARK, read_tree
    from astreduce.writes import write_tree

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "main.py").write_text("raise ValueError('x')\n")
    write_tree(tmp_path / "pkg" / "reduced", {"main.py": "raise ValueError\n", "sub/util.py": "x = 1\n"})
    assert (tmp_path / "pkg" / "reduced" / OUTPUT_MARK).is_file()
    os.rename(tmp_path / "pkg" / "reduced", tmp_path / "pkg" / "renamed")
    assert sorted(read_tree(tmp_path / "pkg")) == ["main.py"]
    assert sorted(read_tree(tmp_path / "pkg" / "renamed")) == ["main.py", "sub/util.py"]


def test_each_improvement_links_the_files_the_last_one_wrote_unchanged(tmp_path: Path) -> None:
    """The best tree changes a file or two at a time: the writer links the others from the result it wrote
    last (the same file, its mode kept), writes the changed ones, and the folder holds exactly the new tree."""
    from astreduce.files import OUTPUT_MARK, read_tree
    from astreduce.writes import TreeWriter

    out = tmp_path / "out"
    write = TreeWriter(out, {"run.py": 0o755})
    first = {"run.py": "print(1)\n", "pkg/a.py": "a = 1\n", "pkg/b.py": "b = 2\n"}
    write(first)
    inode = {p: (out / p).stat().st_ino for p in first}
    write({**first, "pkg/a.py": "a = 0\n", "new.py": "x\n"})
    write({p: t for p, t in {**first, "pkg/a.py": "a = 0\n", "new.py": "x\n"}.items() if p != "pkg/b.py"})
    assert read_tree(out) == {"run.py": "print(1)\n", "pkg/a.py": "a = 0\n", "new.py": "x\n"}
    assert (out / "run.py").stat().st_ino == inode["run.py"] and (out / "run.py").stat().st_mode & 0o777 == 0o755
    assert (out / OUTPUT_MARK).is_file() and "pkg" not in os.listdir(out / "..")
    (out / "run.py").unlink()  # a result removed under it: written again, not linked from nothing
    write({**first, "pkg/a.py": "a = 0\n"})
    assert read_tree(out) == {**first, "pkg/a.py": "a = 0\n"}
    write.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # the spare folder removed


@settings(max_examples=40, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(["a.py", "p/b.py", "p/q/c.py", "p/d.txt", "e.py"]),
                                st.sampled_from(["", "x = 1\n", "x = 2\n", "\u00e9\n"]), min_size=1), min_size=1, max_size=8))
def test_every_tree_written_is_the_output_folder_s_whole_content(trees: list[dict[str, str]]) -> None:
    """Whatever the trees written one after the other (files changed, gone, back; folders emptied), the output
    folder holds exactly the last one, and after ``close`` nothing else is left beside it; a file of an earlier
    result that changed is a new file, so the folder kept for the next write never changes the one on show."""
    import tempfile

    from astreduce.files import OUTPUT_MARK, read_tree
    from astreduce.writes import TreeWriter

    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "out"
        with TreeWriter(out, {"e.py": 0o755}) as write:
            for tree in trees:
                shown = {path: (out / path).open("rb") for path in read_tree(out)} if out.is_dir() else {}
                held = {path: handle.read() for path, handle in shown.items()}
                write(tree)
                assert read_tree(out) == tree and (out / OUTPUT_MARK).is_file()
                assert all(not d.endswith(("p", "q")) or os.listdir(d) for d, _, _ in os.walk(out))  # no empty folder
                assert "e.py" not in tree or (out / "e.py").stat().st_mode & 0o777 == 0o755
                for path, handle in shown.items():  # a file once on show is never written again
                    handle.seek(0)
                    assert handle.read() == held[path], path
                    handle.close()
        assert os.listdir(scratch) == ["out"]
