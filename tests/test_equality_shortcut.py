"""Shortcuts chosen by comparing tensor values, end to end: a kernel's `torch.equal` flag
(GPyTorch's form) and an all-ones attention mask dropped (Hugging Face's form). Before, each test
breaks the compiled forward; after equality-shortcut, it compiles into one graph with outputs (and,
training, gradients) equal to the original program's, which takes the shortcuts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_entry import EAGER, invoke

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("train", [False, True], ids=["inference", "training"])
def test_equality_shortcuts_take_the_general_path_while_compiling(workdir: Path, train: bool):
    entry = workdir / "equality_shortcut_entry.py"
    options = [*EAGER, "--unsafe-fixes", *(["--train"] if train else [])]
    result = invoke("fix", "--entry", str(entry), *options, str(entry), "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    before, after = data["before"], data["after"]
    assert before["graph_breaks"] >= 2 and before["fullgraph"] is False
    assert set(data["kept"][str(entry)]) == {"equality-shortcut"}
    assert (after["graph_breaks"], after["skipped_frames"], after["graphs"], after["fullgraph"]) == (0, 0, 1, True)
    text = entry.read_text()
    assert "x1_eq_x2 = not torch.compiler.is_compiling() and torch.equal(x1, x2)" in text
    assert "(not torch.compiler.is_compiling() and torch.all(attention_mask == 1))" in text
    again = invoke("fix", "--entry", str(entry), *options, str(entry), "--check")
    assert again.exit_code == 0, again.output
