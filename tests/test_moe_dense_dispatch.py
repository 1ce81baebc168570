"""moe-dense-dispatch, compiled: the MoE layers of the goldens (Mixtral's loop over `expert_hit`,
GPT-OSS's `expert_idx[0]`, LongCat's `int(row.item())` with pass-through experts, Qwen2-MoE's loop
over `range`, DBRX's and GPT-OSS's training path's tokens found under `no_grad`) compile into one graph after the rewrite, with the original's outputs and
gradients, also when some experts get no token."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from compile_stats import compile_stats, golden_modules

# Depends on what Dynamo does: run again on the current torch release by CI (docs/development.md).
pytestmark = pytest.mark.dynamo


GOLDEN = Path(__file__).parent / "golden" / "moe-dense-dispatch"

CASES = [
    ("mixtral_expert_loop", "SparseMoeBlock"),
    ("gpt_oss_expert_number", "MoeBlock"),
    ("longcat_item_number", "MoeBlock"),
    ("range_over_experts", "SparseMoeBlock"),
    # NLLB-MoE: a token reaches one expert from several mask columns; its weights are summed.
    ("nllb_capacity_routing", "CapacityMoeBlock"),
    # DBRX: tokens found under `no_grad`, experts sliced from one parameter, a one-hot class past
    # the experts that the loop never skips (the dense loop must stop before it).
    ("dbrx_tokens_under_no_grad", "MoeBlock"),
    # GPT-OSS's training path (transformers 4.55): `expert_hit[:]`, `no_grad`, per-expert weights.
    ("gpt_oss_training_path", "MoeBlock"),
]


def modules(case: str) -> tuple[object, object]:
    return golden_modules(GOLDEN / f"{case}.in.py")


def outputs_and_gradients(block: torch.nn.Module, x: torch.Tensor) -> tuple[torch.Tensor, list[torch.Tensor]]:
    """The output and every parameter's gradient; an expert that got no token has none in the
    original and a zero one after the rewrite (it ran on every token, masked), compared as zeros."""
    block.zero_grad(set_to_none=True)
    out = block(x)
    out.square().sum().backward()
    return out.detach(), [p.grad.clone() if p.grad is not None else torch.zeros_like(p) for p in block.parameters()]


@pytest.mark.parametrize(("case", "block_class"), CASES)
def test_the_moe_layer_compiles_whole_with_the_original_results(case: str, block_class: str):
    before_module, after_module = modules(case)
    torch.manual_seed(0)
    before = getattr(before_module, block_class)()
    after = getattr(after_module, block_class)()
    after.load_state_dict(before.state_dict())
    x = torch.randn(2, 5, 8)

    original = compile_stats(before, x)
    rewritten = compile_stats(after, x)
    assert original.skipped_frames + original.frames - 1 >= 1  # the original breaks or skips a frame
    assert (rewritten.graphs, rewritten.skipped_frames, rewritten.frames) == (1, 0, 1)

    expected, expected_grads = outputs_and_gradients(before, x)
    got, got_grads = outputs_and_gradients(torch.compile(after, backend="eager"), x)
    torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-6)
    assert len(got_grads) == len(expected_grads)
    for grad, expected_grad in zip(got_grads, expected_grads):
        torch.testing.assert_close(grad, expected_grad, rtol=1e-5, atol=1e-6)


def test_an_expert_without_tokens_adds_nothing():
    before_module, after_module = modules("mixtral_expert_loop")
    torch.manual_seed(0)
    before = before_module.SparseMoeBlock()
    after = after_module.SparseMoeBlock()
    after.load_state_dict(before.state_dict())
    # Route every token to experts 0 and 1: experts 2 and 3 get none. An expert that returns
    # inf on a token it was not routed to must still add nothing there.
    with torch.no_grad():
        before.gate.weight.zero_()
        before.gate.weight[0] = 1.0
        before.gate.weight[1] = 0.5
        before.experts[3].bias.fill_(float("inf"))
    after.load_state_dict(before.state_dict())
    x = torch.rand(2, 3, 8) + 0.1
    expected = before(x)
    assert torch.isfinite(expected).all()
    torch.testing.assert_close(torch.compile(after, backend="eager")(x), expected, rtol=1e-5, atol=1e-6)
