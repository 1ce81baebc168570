"""Adding through a boolean mask, end to end in a training step: Segment Anything's point
embeddings and a wrapped angle. Before, each update breaks the graph; after masked-accumulate,
the step compiles into one graph with outputs and gradients equal to the original program's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_entry import EAGER, invoke

pytestmark = [pytest.mark.slow, pytest.mark.dynamo]


def test_updates_through_a_mask_compile_into_one_graph(workdir: Path):
    entry = workdir / "masked_accumulate_entry.py"
    options = [*EAGER, "--train"]
    result = invoke("fix", "--entry", str(entry), *options, str(entry), "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    before, after = data["before"], data["after"]
    assert (before["graphs"], before["graph_breaks"]) == (5, 4)
    assert data["kept"][str(entry)] == ["masked-accumulate"] * 4
    assert (after["graphs"], after["graph_breaks"], after["skipped_frames"], after["fullgraph"]) == (1, 0, 0, True)
    text = entry.read_text()
    assert "angles.index_put_((angles < 0,), angles.new_tensor(2.0 * math.pi), accumulate=True)" in text
    assert "point_embedding[labels == -1] = 0.0" in text
    again = invoke("fix", "--entry", str(entry), *options, str(entry), "--check")
    assert again.exit_code == 0, again.output
