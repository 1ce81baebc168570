"""`torch.autograd.grad` in a compiled model's methods, some handed generators of parameters, end
to end: a trust-region policy update's Fisher-vector product, a meta-learning inner step and an
interatomic potential's forces (`tests/entries/grad_generator_entry.py`). Before, Dynamo breaks at
every call and gives up on the methods (it cannot hand the generator to the eager call at the
break); after
traced-autograd-grad, every call goes through one `nonstrict_trace` wrapper, handed lists, and a
training step (second-order: the Fisher-vector product's gradient is differentiated again) is one
graph with no Dynamo setting. A program that compiles itself with `trace_autograd_ops` and
`fullgraph=True` fails before (the generator) and runs after, printing what the original printed
eagerly. Where Dynamo refuses the wrapper (the gradient of activations an eager method computed,
GB0251), the wrapper is not kept, though the rewrites it was verified with made the picture
better."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from program_runs import assert_fails_then_runs
from test_entry import EAGER, invoke

pytestmark = [pytest.mark.slow, pytest.mark.dynamo]


def test_a_training_step_through_every_gradient_is_one_graph(workdir: Path):
    entry = workdir / "grad_generator_entry.py"
    result = invoke("fix", "--entry", str(entry), *EAGER, "--train", str(entry), "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    before, after = data["before"], data["after"]
    # 7 breaks on torch 2.13, 6 on 2.15; Dynamo gives up on the frames either way.
    assert before["graph_breaks"] >= 6 and before["skipped_frames"] >= 3 and before["fullgraph"] is False
    assert data["kept"][str(entry)] == ["traced-autograd-grad"] * 4
    assert (after["graphs"], after["graph_breaks"], after["skipped_frames"], after["fullgraph"]) == (1, 0, 0, True)
    text = entry.read_text()
    assert "_autograd_grad(kl, list(self.policy.parameters()), create_graph=True)" in text
    assert "forces = -_autograd_grad(energy, positions, create_graph=True)[0]" in text
    assert "_autograd_grad(loss, list(trainable), create_graph=True)" in text
    assert text.count("def _autograd_grad(") == 1
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


def test_a_wrapper_dynamo_refuses_is_not_kept_beside_fixes_that_verify(workdir: Path):
    entry = workdir / "refused_wrapper_entry.py"
    result = invoke("fix", "--entry", str(entry), *EAGER, str(entry), "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    # The prints deferred, the gradient left to break where it did: two breaks fewer.
    assert data["kept"][str(entry)] == ["isolate-io", "isolate-io"]
    assert data["after"]["graph_breaks"] == data["before"]["graph_breaks"] - 2
    assert not any(site["gb"] == "GB0251" for site in data["remaining"])
    why = [item["why"] for item in data["tried"] if item["rule"] == "traced-autograd-grad" and not item["kept"]]
    assert any("a reason of its own" in reason for reason in why), why
    assert "_autograd_grad" not in entry.read_text()
