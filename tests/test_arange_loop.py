"""Loops over `torch.arange(...)`, end to end in a training step: before, the frame is skipped
(no graph); after arange-loop, the step compiles into one graph with outputs and gradients equal
to the original program's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_entry import EAGER, invoke

pytestmark = [pytest.mark.slow, pytest.mark.dynamo]


def test_loops_over_arange_compile_into_one_graph(workdir: Path):
    entry = workdir / "arange_loop_entry.py"
    options = [*EAGER, "--train"]
    result = invoke("fix", "--entry", str(entry), *options, str(entry), "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    before, after = data["before"], data["after"]
    assert before["skipped_frames"] >= 1 and before["graphs"] == 0, before
    # Kept: verified, outputs and gradients equal to the original's.
    assert data["kept"][str(entry)] == ["arange-loop"] * 2
    assert (after["graphs"], after["graph_breaks"], after["skipped_frames"], after["fullgraph"]) == (1, 0, 0, True)
    text = entry.read_text()
    assert "for i in range(self.ngram):" in text and "for t in range(features.size(1)):" in text
    again = invoke("fix", "--entry", str(entry), *options, str(entry), "--check")
    assert again.exit_code == 0, again.output
