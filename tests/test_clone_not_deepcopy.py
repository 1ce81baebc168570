"""clone-not-deepcopy, compiled: a deep copy of a tensor fails a `fullgraph=True` compile
(GB4198, the registry page's program); the clone compiles whole, with the same outputs and
gradients."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from compile_stats import compile_stats, golden_modules

# Depends on what Dynamo does: run again on the current torch release by CI (docs/development.md).
pytestmark = pytest.mark.dynamo

GOLDEN = Path(__file__).parent / "golden" / "clone-not-deepcopy"


def test_the_registry_page_program_compiles_with_fullgraph_and_the_same_result():
    original, fixed = golden_modules(GOLDEN / "registry_page.in.py")
    x = torch.randn(3)
    with pytest.raises(torch._dynamo.exc.Unsupported, match="deepcopy"):
        torch._dynamo.reset()
        torch.compile(original.fn, fullgraph=True, backend="eager")(x)
    torch._dynamo.reset()
    got = torch.compile(fixed.fn, fullgraph=True, backend="eager")(x)
    torch.testing.assert_close(got, original.fn(x), rtol=0, atol=0)


@pytest.mark.parametrize(
    "case, call",
    [
        ("imported_name_in_method", lambda module, x: module.Sampler()(x, 3)),
        ("module_alias_annotated_parameter", lambda module, x: module.td_target(x, x * 0.5 + 1, 0.9)[0]),
    ],
)
def test_each_form_compiles_whole_with_the_same_outputs(case: str, call):
    # A deep copy works on tensors that need no gradient (or are leaves): an activation that
    # requires grad makes `copy.deepcopy` raise, eagerly too.
    original, fixed = golden_modules(GOLDEN / f"{case}.in.py")
    before = compile_stats(lambda t: call(original, t), torch.linspace(-1.0, 1.0, 5))
    after = compile_stats(lambda t: call(fixed, t), torch.linspace(-1.0, 1.0, 5))
    assert before.graphs > 1 or before.skipped_frames > 0, "the deep copy breaks the original's graph"
    assert after.graphs == 1 and after.skipped_frames == 0
    torch.testing.assert_close(after.result, before.result, rtol=0, atol=0)


def test_a_leaf_that_requires_grad_gets_the_same_gradient():
    original, fixed = golden_modules(GOLDEN / "registry_page.in.py")
    grads = []
    for module in (original, fixed):
        x = torch.linspace(-1.0, 1.0, 4, requires_grad=True)
        torch._dynamo.reset()
        (torch.compile(module.fn, backend="eager")(x) ** 2).sum().backward()
        grads.append(x.grad)
    # The deep copy is a leaf of its own, the clone of a detached tensor a constant: no gradient
    # reaches `x` through either.
    torch.testing.assert_close(grads[1], grads[0], rtol=0, atol=0)
