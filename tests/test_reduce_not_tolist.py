"""reduce-not-tolist, compiled: `sum(x.tolist())` of a float tensor fails a `fullgraph=True`
compile (GB0109, the registry page's program); the tensor's own reduction compiles whole, with
the same values, and, as before, no gradient through the reduced value."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from compile_stats import compile_stats, golden_modules

# Depends on what Dynamo does: run again on the current torch release by CI (docs/development.md).
pytestmark = pytest.mark.dynamo

GOLDEN = Path(__file__).parent / "golden" / "reduce-not-tolist"


def test_the_registry_page_program_compiles_with_fullgraph_and_the_same_result():
    original, fixed = golden_modules(GOLDEN / "registry_page.in.py")
    x = torch.randn(4)
    torch._dynamo.reset()
    with pytest.raises(torch._dynamo.exc.Unsupported, match="tolist"):
        torch.compile(original.fn, fullgraph=True, backend="eager")(x)
    torch._dynamo.reset()
    got = torch.compile(fixed.fn, fullgraph=True, backend="eager")(x)
    # Python adds the float32 values as doubles, the tensor in float32: the last bits may differ.
    torch.testing.assert_close(got, original.fn(x))


@pytest.mark.parametrize(
    "case, call",
    [
        ("score_normalise_nested_helper", lambda m, x, w: m.score(x, w)),
        ("per_row_comprehension", lambda m, x, w: m.row_totals(x * w)),
    ],
)
def test_each_form_compiles_whole_with_the_same_values_and_gradients(case: str, call):
    original, fixed = golden_modules(GOLDEN / f"{case}.in.py")
    torch.manual_seed(0)
    x, w = torch.randn(5, 3), torch.randn(3, requires_grad=True)
    expected = call(original, x, w)
    before = compile_stats(lambda: call(original, x, w))
    after = compile_stats(lambda: call(fixed, x, w))
    assert before.graphs > 1 or before.frames > 1, "tolist breaks the original's graph"
    assert after.graphs == 1 and after.frames == 1
    torch.testing.assert_close(after.result, expected)
    # Gradients flow where they flowed (not through the reduced values, before or after).
    assert after.result.requires_grad == expected.requires_grad
    if expected.requires_grad:
        (expected_grad,) = torch.autograd.grad(expected.sum(), w)
        (got_grad,) = torch.autograd.grad(after.result.sum(), w)
        torch.testing.assert_close(got_grad, expected_grad)


def test_a_compiled_policy_update_keeps_its_loss_and_its_gradients():
    original, fixed = golden_modules(GOLDEN / "critic_loss_method.in.py")
    torch.manual_seed(0)
    before_model = original.Update()
    after_model = fixed.Update()
    after_model.load_state_dict(before_model.state_dict())
    states, lengths = torch.randn(6, 4), torch.tensor([3, 5])
    expected = before_model(states, lengths)
    torch._dynamo.reset()
    got = torch.compile(after_model, fullgraph=True, backend="eager")(states, lengths)
    torch.testing.assert_close(got, torch.as_tensor(expected))
    # The summed loss was a Python number: the critic got no gradient from it, and still does not.
    assert not got.requires_grad
