"""item-stays-tensor, compiled: a number read with `.item()` breaks the graph (GB0124) and makes
the code after it recompile for every new value; kept a 0-dim tensor, each form compiles into one
graph, compiled once for any value, with the same outputs and gradients."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from compile_stats import compile_stats, golden_modules
from torch._dynamo.utils import counters

# Depends on what Dynamo does: run again on the current torch release by CI (docs/development.md).
pytestmark = pytest.mark.dynamo

GOLDEN = Path(__file__).parent / "golden" / "item-stays-tensor"


def _graphs_over_two_values(target, inputs):  # type: ignore[no-untyped-def]
    """`target` compiled, called with each input (the second is where a specialised number
    recompiles): its outputs, how many graphs were made, and how many graph breaks were logged."""
    torch._dynamo.reset()
    counters.clear()
    graphs = []

    def counting(gm, example_inputs):  # type: ignore[no-untyped-def]
        graphs.append(gm)
        return gm.forward

    compiled = torch.compile(target, backend=counting)
    outputs = [compiled(*args) for args in inputs]
    return outputs, len(graphs), sum(counters["graph_break"].values())


@pytest.mark.parametrize(
    "case, target, inputs",
    [
        ("normalise_features", lambda m: m.Norm(), [(torch.randn(16),), (torch.randn(16) * 3,)]),
        ("advantage_in_place", lambda m: m.normalised_advantages, [(torch.randn(8), torch.zeros(8)), (torch.randn(8) * 2, torch.ones(8))]),
        ("loss_weight_buffer", lambda m: m.WeightedLoss(), [(torch.randn(4), torch.randn(4)), (torch.randn(4), torch.randn(4))]),
        ("inline_reads", lambda m: m.Head(), [(torch.randn(2, 3), torch.tensor([1.0, 0.0, 1.0])), (torch.randn(2, 3), torch.tensor([1.0, 1.0, 0.0]))]),
    ],
)
def test_each_form_compiles_once_into_one_graph_with_the_same_outputs(case: str, target, inputs):
    original, fixed = golden_modules(GOLDEN / f"{case}.in.py")
    expected = [target(original)(*(t.clone() for t in args)) for args in inputs]
    _, graphs_before, breaks_before = _graphs_over_two_values(target(original), [tuple(t.clone() for t in a) for a in inputs])
    got, graphs_after, breaks_after = _graphs_over_two_values(target(fixed), [tuple(t.clone() for t in a) for a in inputs])
    # The original breaks at .item(), and where the value changes, the code after it recompiles
    # (the weight's buffer holds one value: the break alone).
    assert breaks_before >= 1 and graphs_before >= (1 if case == "loss_weight_buffer" else 3)
    assert (graphs_after, breaks_after) == (1, 0)
    torch.testing.assert_close(got, expected)


def test_a_learned_temperature_keeps_the_logits_gradients_and_gives_none_to_itself():
    original, fixed = golden_modules(GOLDEN / "learned_temperature.in.py")
    torch.manual_seed(0)
    head = original.ContrastiveHead()
    image, text = torch.randn(4, 8, requires_grad=True), torch.randn(4, 8)
    expected = head(image, text)
    (expected_grad,) = torch.autograd.grad(expected.sum(), image)
    fixed_head = fixed.ContrastiveHead()
    fixed_head.load_state_dict(head.state_dict())
    after = compile_stats(lambda: fixed_head(image, text))
    assert after.graphs == 1 and after.frames == 1
    torch.testing.assert_close(after.result, expected)
    (got_grad,) = torch.autograd.grad(after.result.sum(), image)
    torch.testing.assert_close(got_grad, expected_grad)
    # The temperature was a number: no gradient reached its parameter, and none does.
    assert torch.autograd.grad(after.result.sum(), fixed_head.log_temperature, allow_unused=True) == (None,)
