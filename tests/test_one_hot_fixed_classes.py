"""one-hot-fixed-classes, compiled: the safe one-hot of mixture-of-experts gates (lucidrains'
mixture-of-experts writes the class count in the call, ST-MoE through a local) sizes the one-hot
by its indices' maximum and breaks the graph; made at the length it is cut to, the gate is one
graph with the same outputs and gradients."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from compile_stats import compile_stats, golden_modules
from torch._dynamo.utils import counters

# Depends on what Dynamo does: run again on the current torch release by CI (docs/development.md).
pytestmark = pytest.mark.dynamo

GOLDEN = Path(__file__).parent / "golden" / "one-hot-fixed-classes"
# Positions 4, 5 and 6 are past the capacity of 4: their rows are zeros.
POSITIONS = torch.tensor([[0, 1, 2, 3, 4, 5], [2, 2, 0, 1, 6, 3]])


def test_the_capacity_dispatch_compiles_whole_with_the_same_outputs_and_gradients():
    before, after = golden_modules(GOLDEN / "capacity_one_hot_inline.in.py")
    results = []
    for module in (before, after):
        torch.manual_seed(0)
        model = module.CapacityDispatch()
        stats = compile_stats(model, POSITIONS)
        breaks = sum(counters["graph_break"].values())
        stats.result.sum().backward()
        results.append((stats, breaks, [p.grad for p in model.parameters()]))
    (original, breaks_before, grads_before), (fixed, breaks_after, grads_after) = results
    assert breaks_before >= 1 and breaks_after == 0 and fixed.graphs == 1
    torch.testing.assert_close(fixed.result, original.result, rtol=0, atol=0)
    torch.testing.assert_close(grads_after, grads_before, rtol=0, atol=0)


def test_a_class_count_bound_to_a_local_goes_with_the_rewrite():
    before, after = golden_modules(GOLDEN / "class_count_in_a_local.in.py")
    original = compile_stats(before.route, POSITIONS, 4)
    breaks_before = sum(counters["graph_break"].values())
    fixed = compile_stats(after.route, POSITIONS, 4)
    assert breaks_before >= 1 and sum(counters["graph_break"].values()) == 0 and fixed.graphs == 1
    assert torch.equal(fixed.result, original.result) and fixed.result.dtype == torch.int64
