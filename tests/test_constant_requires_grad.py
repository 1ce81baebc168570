"""constant-requires-grad, compiled: a zero made with `requires_grad=True` inside a compiled
function (the compressive transformer's auxiliary loss, a weight penalty summed from zero) breaks
the graph (GB0225, the layer's frame skipped); made without the flag, each training step is one
graph with the same outputs and the same gradients."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from compile_stats import compile_stats, golden_modules
from torch._dynamo.utils import counters

# Depends on what Dynamo does: run again on the current torch release by CI (docs/development.md).
pytestmark = pytest.mark.dynamo

GOLDEN = Path(__file__).parent / "golden" / "constant-requires-grad"


def _breaks() -> int:
    return sum(counters["graph_break"].values())


def _step(model: torch.nn.Module, *inputs: torch.Tensor):  # type: ignore[no-untyped-def]
    """A compiled training step: the outputs (flattened into one tensor), the graph count, the
    breaks and every parameter's gradient of the outputs' sum. The model itself is compiled, as a
    user compiles it."""
    model.zero_grad()
    stats = compile_stats(model, *inputs)
    breaks = _breaks()
    out = stats.result
    stats.result = torch.cat([t.reshape(-1) for t in out]) if isinstance(out, tuple) else out.reshape(-1)
    stats.result.sum().backward()
    return stats, breaks, [p.grad.clone() for p in model.parameters()]


def test_the_memory_layers_auxiliary_loss_trains_in_one_graph_with_the_same_gradients():
    before, after = golden_modules(GOLDEN / "memory_reconstruction_loss.in.py")
    x, memory = torch.linspace(-1, 1, 96).reshape(2, 6, 8), torch.linspace(1, -1, 64).reshape(2, 4, 8)
    results = []
    for module in (before, after):
        torch.manual_seed(0)
        results.append(_step(module.MemoryTransformer().train(), x, memory))
    (original, breaks_before, grads_before), (fixed, breaks_after, grads_after) = results
    assert breaks_before >= 1 and breaks_after == 0 and fixed.graphs == 1 and fixed.skipped_frames == 0
    torch.testing.assert_close(fixed.result, original.result, rtol=0, atol=0)
    torch.testing.assert_close(grads_after, grads_before)
    # In eval the auxiliary loss is the zero itself, returned as made: the same value, one graph.
    torch.manual_seed(0)
    evaluated = compile_stats(after.MemoryTransformer().eval(), x, memory)
    assert evaluated.graphs == 1 and _breaks() == 0
    assert float(evaluated.result[1]) == 0.0


def test_a_weight_penalty_summed_from_zero_compiles_whole_with_the_same_loss_and_gradients():
    before, after = golden_modules(GOLDEN / "weight_penalty_accumulator.in.py")
    inputs, targets = torch.linspace(-1, 1, 12).reshape(4, 3), torch.linspace(0, 1, 8).reshape(4, 2)
    results = []
    for module in (before, after):
        torch.manual_seed(0)
        results.append(_step(module.PenalizedRegression(), inputs, targets))
    (original, breaks_before, grads_before), (fixed, breaks_after, grads_after) = results
    assert breaks_before >= 1 and breaks_after == 0 and fixed.graphs == 1
    torch.testing.assert_close(fixed.result, original.result, rtol=0, atol=0)
    torch.testing.assert_close(grads_after, grads_before)
