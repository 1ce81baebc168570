"""Rows a mask selects, computed on every row instead, end to end in a training step: TorchANI's
per-element networks (`nonzero`, `index_select`, `index_add_`) and a mixture of experts
(`output[mask] = expert(x[mask])`), each behind a test that the selection is not empty. Before,
Dynamo skips the frames; after selected-rows-dense, the step is one graph with outputs and
gradients equal to the original's. And where an element is absent from the batch, its network
gets zero gradients instead of none: the fix does not verify and is dropped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_entry import EAGER, invoke

pytestmark = [pytest.mark.slow, pytest.mark.dynamo]


def _fix(entry: Path):
    result = invoke("fix", "--entry", str(entry), *EAGER, "--train", "--unsafe-fixes", str(entry), "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_selected_rows_compile_into_one_graph(workdir: Path):
    entry = workdir / "selected_rows_entry.py"
    data = _fix(entry)
    before, after = data["before"], data["after"]
    assert (before["skipped_frames"], before["graph_breaks"]) == (2, 4)
    assert data["kept"][str(entry)] == ["selected-rows-dense"] * 2
    assert (after["graphs"], after["graph_breaks"], after["skipped_frames"], after["fullgraph"]) == (1, 0, 0, True)
    text = entry.read_text()
    assert "scalars.add_(torch.where(selected_idxs_mask_rows, update, 0))" in text
    assert "output.copy_(torch.where(mask_rows, update, output))" in text
    again = invoke("fix", "--entry", str(entry), *EAGER, "--train", "--unsafe-fixes", str(entry), "--check")
    assert again.exit_code == 0, again.output


def test_a_network_no_row_selects_keeps_its_test(workdir: Path):
    entry = workdir / "selected_rows_entry.py"
    # Element 2 absent: its network's gradients are None in the original, zeros in the dense form.
    text = entry.read_text().replace("torch.tensor([[0, 1, 2, 1], [2, 1, 0, 0]])", "torch.tensor([[0, 1, 0, 1], [1, 1, 0, 0]])")
    entry.write_text(text)
    data = _fix(entry)
    kept = data["kept"].get(str(entry), [])
    assert "selected_idxs.shape[0] > 0" in entry.read_text()
    dropped = [site for site in data["tried"] if site["rule"] == "selected-rows-dense" and not site["kept"]]
    assert [site["line"] for site in dropped] == [24]
    assert "atomic.atomics.2.0.weight']: NoneType vs Tensor" in dropped[0]["why"]
    assert kept == ["selected-rows-dense"]  # the experts' block, where every expert gets tokens
