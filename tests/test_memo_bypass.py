"""Memoized calls whose cache key Dynamo cannot trace, end to end: a `@cached` method that pickles
its keyword arguments (GPyTorch's form) and a memoizing class that digests a tensor with hashlib
(a helper of the module makes the key). Before, each call breaks the compiled forward; after
memo-bypass, the forward compiles into one graph with outputs (and, training, gradients) equal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_entry import EAGER, invoke

pytestmark = [pytest.mark.slow, pytest.mark.dynamo]


@pytest.mark.parametrize("train", [False, True], ids=["inference", "training"])
def test_memoized_calls_compile_into_one_graph(workdir: Path, train: bool):
    entry = workdir / "memo_entry.py"
    options = [*EAGER, "--unsafe-fixes", *(["--train"] if train else [])]
    result = invoke("fix", "--entry", str(entry), *options, str(entry), "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    before, after = data["before"], data["after"]
    assert before["graph_breaks"] >= 2 and before["fullgraph"] is False
    assert "memo-bypass" in data["kept"][str(entry)]
    assert (after["graph_breaks"], after["skipped_frames"], after["fullgraph"]) == (0, 0, True)
    text = entry.read_text()
    assert text.count("if torch.compiler.is_compiling():") == 2
    assert "return method(self, *args, **kwargs)" in text and "return self.function(x)" in text
    again = invoke("fix", "--entry", str(entry), *options, str(entry), "--check")
    assert again.exit_code == 0, again.output


def test_without_unsafe_fixes_the_memoized_calls_are_left_alone(workdir: Path):
    entry = workdir / "memo_entry.py"
    original = entry.read_text()
    result = invoke("fix", "--entry", str(entry), *EAGER, str(entry), "--format", "json")
    assert result.exit_code == 0, result.output
    assert "is_compiling" not in original and "is_compiling" not in entry.read_text()
    assert "memo-bypass" not in json.dumps(json.loads(result.stdout)["kept"])
