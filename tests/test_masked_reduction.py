"""masked-reduction, compiled: a reduction over a boolean mask's selection breaks the graph
(GB0036: the selection's size depends on the data); over the whole tensor with `torch.where`,
each form compiles into one graph with the same value and, for the loss, the same gradients."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from compile_stats import compile_stats, golden_modules

# Depends on what Dynamo does: run again on the current torch release by CI (docs/development.md).
pytestmark = pytest.mark.dynamo

GOLDEN = Path(__file__).parent / "golden" / "masked-reduction"


def test_a_token_loss_keeps_its_value_and_gradients():
    original, fixed = golden_modules(GOLDEN / "token_loss_mean.in.py")
    torch.manual_seed(0)
    logits = torch.randn(2, 5, 7, requires_grad=True)
    labels = torch.randint(0, 7, (2, 5))
    labels[0, :2] = -100
    expected = original.TokenLoss()(logits, labels)
    (expected_grad,) = torch.autograd.grad(expected, logits)
    before = compile_stats(lambda: original.TokenLoss()(logits, labels))
    after = compile_stats(lambda: fixed.TokenLoss()(logits, labels))
    assert before.graphs > 1, "the boolean selection breaks the original's graph"
    assert after.graphs == 1 and after.frames == 1
    torch.testing.assert_close(after.result, expected)
    (got_grad,) = torch.autograd.grad(after.result, logits)
    torch.testing.assert_close(got_grad, expected_grad)


@pytest.mark.parametrize(
    "case, call",
    [
        ("reward_sum_functional", lambda m: m.episode_return(torch.arange(6.0), torch.tensor([0, 0, 1, 0, 1, 0]), torch.tensor([0, 0, 0, 0, 0, 1]))),
        ("finite_error_mean", lambda m: m.masked_l1(torch.arange(6.0), torch.tensor([1.0, float("inf"), 2.0, 0.5, float("inf"), 3.0]))),
    ],
)
def test_each_form_compiles_whole_with_the_same_value(case: str, call):
    original, fixed = golden_modules(GOLDEN / f"{case}.in.py")
    expected = call(original)
    before = compile_stats(lambda: call(original))
    after = compile_stats(lambda: call(fixed))
    assert before.graphs > 1 or before.frames > 1
    assert after.graphs == 1 and after.frames == 1
    torch.testing.assert_close(after.result, expected)
