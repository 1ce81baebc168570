"""Profiling and timing code that must not enter a graph, end to end: NVTX ranges (stood in for on
a CPU build, real under `-m cuda`), a wall-clock pair, allocator statistics in logs, a timer context
manager and CUDA events. Each: the breaks (or the compile failure) it caused go, outputs are equal
and what the program prints is the same apart from the timing values."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_entry import EAGER, invoke

pytestmark = [pytest.mark.slow, pytest.mark.dynamo]


def _fix(entry: Path, *options: str) -> dict:
    result = invoke("fix", "--entry", str(entry), *options, str(entry), "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _printed(entry: Path, compiled: bool) -> str:
    """What the entry prints when its model is called once, compiled or not, numbers aside."""
    code = (
        "import sys, torch\n"
        f"sys.path.insert(0, {str(entry.parent)!r})\n"
        f"import {entry.stem} as entry\n"
        "model = entry.my_model_function().eval()\n"
        + ("model = torch.compile(model, backend='eager')\n" if compiled else "")
        + "with torch.no_grad():\n    model(entry.GetInput())\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
    return re.sub(r"\d+(\.\d+)?", "#", done.stdout + done.stderr)


def _compiles_whole(after: dict) -> None:
    assert after["compile_error"] is None
    assert (after["skipped_frames"], after["graph_breaks"], after["graphs"]) == (0, 0, 1)


@pytest.mark.parametrize("name", ["nvtx_entry.py", "perf_counter_entry.py", "memory_log_entry.py"])
def test_profiling_code_leaves_the_graph_and_the_program_prints_the_same(workdir: Path, name: str):
    entry = workdir / name
    eager = _printed(entry, compiled=False)
    data = _fix(entry, *EAGER)
    before = data["before"]
    assert before["compile_error"] or before["graph_breaks"] or before["skipped_frames"]
    _compiles_whole(data["after"])
    assert set(rules for rules in data["kept"][str(entry)]) <= {"profiling-guard", "isolate-io"}
    # The rewritten program, run as a user runs it: the same lines, timing values aside.
    assert _printed(entry, compiled=True) == eager
    assert _printed(entry, compiled=False) == eager
    again = invoke("fix", "--entry", str(entry), *EAGER, str(entry), "--check")
    assert again.exit_code == 0, again.output


def test_a_timer_context_manager_is_skipped_while_compiling_as_an_unsafe_fix(workdir: Path):
    entry = workdir / "timer_context_entry.py"
    original = entry.read_text()
    safe = _fix(entry, *EAGER)
    assert safe["kept"] == {} and entry.read_text() == original
    assert safe["before"]["skipped_frames"] == 1
    data = _fix(entry, *EAGER, "--unsafe-fixes")
    assert data["kept"] == {str(entry): ["profiling-guard"]}
    _compiles_whole(data["after"])
    assert "else contextlib.nullcontext()):" in entry.read_text()
    # Eagerly the timer still prints its line.
    assert "encoder took #" in _printed(entry, compiled=False)


@pytest.mark.cuda
@pytest.mark.parametrize("name", ["nvtx_entry.py", "cuda_events_entry.py", "memory_log_entry.py", "perf_counter_entry.py"])
def test_profiling_code_on_cuda(workdir: Path, name: str):
    entry = workdir / name
    data = _fix(entry, "--device", "cuda")
    assert data["device"].startswith("cuda")
    _compiles_whole(data["after"])


@pytest.mark.cuda
def test_dlpack_through_cupy_on_cuda(workdir: Path):
    pytest.importorskip("cupy")
    entry = workdir / "cupy_dlpack_entry.py"
    data = _fix(entry, "--device", "cuda")
    assert data["kept"] == {str(entry): ["dlpack-custom-op"]}
    _compiles_whole(data["after"])
    assert data["after"]["fullgraph"] is True
