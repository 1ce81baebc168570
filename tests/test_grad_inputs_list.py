"""Gradients with respect to a generator of parameters, end to end: a trust-region policy update's
Fisher-vector product and a meta-learning inner step (`tests/entries/grad_generator_entry.py`).
Before, Dynamo gives up on both helpers (it cannot hand the generator to the eager call at the
break); after grad-inputs-list, the helpers hand `torch.autograd.grad` lists, nonstrict-helper
then traces them whole, and a training step is one graph. A program that compiles itself with
`trace_autograd_ops` and `fullgraph=True` fails before and runs after, printing what the original
printed eagerly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from program_runs import assert_fails_then_runs
from test_entry import EAGER, invoke

pytestmark = [pytest.mark.slow, pytest.mark.dynamo]


def test_a_training_step_through_both_helpers_is_one_graph(workdir: Path):
    entry = workdir / "grad_generator_entry.py"
    result = invoke("fix", "--entry", str(entry), *EAGER, "--train", str(entry), "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    before, after = data["before"], data["after"]
    assert (before["skipped_frames"], before["graph_breaks"], before["fullgraph"]) == (3, 6, False)
    assert data["kept"][str(entry)] == ["grad-inputs-list"] * 3 + ["nonstrict-helper"] * 2
    assert (after["graphs"], after["graph_breaks"], after["skipped_frames"], after["fullgraph"]) == (1, 0, 0, True)
    text = entry.read_text()
    assert "torch.autograd.grad(kl, list(policy.parameters()), create_graph=True)" in text
    assert "torch.autograd.grad(loss, list(trainable), create_graph=True)" in text
    again = invoke("fix", "--entry", str(entry), *EAGER, "--train", str(entry), "--check")
    assert again.exit_code == 0, again.output


RUN = """import torch
from grad_generator_entry import my_model_function, GetInput

torch._dynamo.config.trace_autograd_ops = True
model = torch.compile(my_model_function(), fullgraph=True, backend="eager")
print(f"{model(*GetInput()).item():.5f}")
"""


def test_a_program_compiled_with_fullgraph_runs_after_the_fix(workdir: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(workdir)
    assert_fails_then_runs(workdir, "grad_generator_entry", RUN, "autograd.grad with unsupported argument type")
