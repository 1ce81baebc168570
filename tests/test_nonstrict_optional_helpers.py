"""Pure helpers that take an optional argument defaulting to `None`, end to end. Without a run
nonstrict-helper reports them (a call passing `None` breaks before torch 2.15, GB0236); where a run
saw them break, they are decorated and the run measures their calls, which leave the default
alone: a helper reading its own frame (`tests/entries/optional_helper_entry.py`), and the
differential operators of a physics-informed residual and an attribution's input gradient
(`tests/entries/derivative_helpers_entry.py`), whose `torch.autograd.grad` calls go with them into
the graph (a pure helper is traced whole before its calls alone are)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_entry import EAGER, invoke

pytestmark = [pytest.mark.slow, pytest.mark.dynamo]


def test_a_helper_with_a_none_default_is_traced_where_a_run_saw_it_break(workdir: Path):
    entry = workdir / "optional_helper_entry.py"
    unrun = invoke("fix", "--diff", str(entry))
    assert "may be called with `None` (`scale=None`)" in unrun.output and "+@torch._dynamo" not in unrun.output
    result = invoke("fix", "--entry", str(entry), *EAGER, "--train", str(entry), "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["before"]["graph_breaks"] > 0
    assert data["kept"][str(entry)] == ["nonstrict-helper"]
    after = data["after"]
    assert (after["graphs"], after["graph_breaks"], after["fullgraph"]) == (1, 0, True)
    assert "@torch._dynamo.nonstrict_trace\ndef scaled_tanh(x, scale=None):" in entry.read_text()


def test_the_differential_operators_and_an_attribution_gradient_are_one_graph(workdir: Path):
    # A physics-informed residual's operators (torchphysics' `grad` and `laplacian`, whose parameter
    # `grad` is not a use of the helper `grad`) and an input gradient through a helper handed the
    # forward function (captum's `compute_gradients`).
    entry = workdir / "derivative_helpers_entry.py"
    result = invoke("fix", "--entry", str(entry), *EAGER, "--train", str(entry), "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    # 6 breaks on torch 2.13, 4 on 2.15 (it counts the helpers' breaks once).
    assert data["before"]["graph_breaks"] >= 4 and data["before"]["fullgraph"] is False
    assert data["kept"][str(entry)] == ["nonstrict-helper"] * 3
    after = data["after"]
    assert (after["graphs"], after["graph_breaks"], after["skipped_frames"], after["fullgraph"]) == (1, 0, 0, True)
    text = entry.read_text()
    for helper in ("grad(model_out, *derivative_variable)", "laplacian(model_out, *derivative_variable, grad=None)",
                   "compute_gradients(forward_fn, inputs, target_ind=None)"):
        assert f"@torch._dynamo.nonstrict_trace\ndef {helper}:" in text
