"""The crash cases of corpora/crash_*: real, fixed bugs of CPython and tools.

Each case is built at test time (a real standard-library module with the
trigger placed inside), reduced through ``python -m astreduce`` with the
oracle its case.toml holds, and the result must still crash the same way
(the case's ``expect_signature``) within its token ceiling. Cases whose tool
needs a virtual environment of a pinned old release are ``slow``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("crash_tools", ROOT / "corpora" / "crash_tools.py")
assert _spec is not None and _spec.loader is not None
crash_tools = importlib.util.module_from_spec(_spec)
sys.modules["crash_tools"] = crash_tools
_spec.loader.exec_module(crash_tools)

CASES = crash_tools.load_crash_cases(ROOT / "corpora")


@pytest.mark.parametrize(
    "case", [pytest.param(c, id=c.name, marks=[pytest.mark.slow] if c.slow else []) for c in CASES]
)
def test_crash_case_reduces_and_still_crashes(case: object, tmp_path: Path) -> None:
    try:
        env = crash_tools.prepare_tool(case)
    except crash_tools.ToolUnavailable as missing:
        pytest.skip(str(missing))
    source = crash_tools.materialise(case, tmp_path / "input")
    output, report = crash_tools.reduce_case(case, source, env, tmp_path)
    ok, what = crash_tools.reproduces(case, output, env)
    assert ok, what
    assert report["verified"]
    assert report["output"]["tokens"] <= case.max_tokens, output.read_text()
    assert report["input"]["lines"] >= 300
