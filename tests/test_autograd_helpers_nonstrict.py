"""Helpers that take gradients with `torch.autograd.grad`, end to end: a physics-informed residual's
differential operators (torchphysics' form: `laplacian` takes a gradient defaulting to `None`) and
an attribution's input gradient through a helper handed the forward function (captum's form,
`target_ind=None`), in `tests/entries/derivative_helpers_entry.py`. Dynamo breaks at each
`autograd.grad` (GB9186) unless `trace_autograd_ops` is on; nonstrict-helper traces the helpers
non-strictly, which records the gradients' operations in the caller's graph: a training step
(second-order: the residual's derivatives are differentiated again) is one graph, outputs and
gradients equal, with no Dynamo setting. A helper with a `None` default is taken where the run
saw it break: its calls leave the default alone; `laplacian`'s parameter `grad` is not a use of
the helper `grad`, which is decorated, not wrapped at its call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_entry import EAGER, invoke

pytestmark = [pytest.mark.slow, pytest.mark.dynamo]


def test_a_training_step_through_the_gradient_helpers_is_one_graph(workdir: Path):
    entry = workdir / "derivative_helpers_entry.py"
    result = invoke("fix", "--entry", str(entry), *EAGER, "--train", str(entry), "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    before, after = data["before"], data["after"]
    # 6 breaks on torch 2.13, 4 on 2.15 (it counts the helpers' breaks once).
    assert before["graph_breaks"] >= 4 and before["fullgraph"] is False
    assert data["kept"][str(entry)] == ["nonstrict-helper"] * 3
    assert (after["graphs"], after["graph_breaks"], after["skipped_frames"], after["fullgraph"]) == (1, 0, 0, True)
    text = entry.read_text()
    assert "@torch._dynamo.nonstrict_trace\ndef grad(model_out, *derivative_variable):" in text
    assert "@torch._dynamo.nonstrict_trace\ndef laplacian(model_out, *derivative_variable, grad=None):" in text
    assert "@torch._dynamo.nonstrict_trace\ndef compute_gradients(forward_fn, inputs, target_ind=None):" in text
    again = invoke("fix", "--entry", str(entry), *EAGER, "--train", str(entry), "--check")
    assert again.exit_code == 0, again.output
