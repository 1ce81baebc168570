"""block-diagonal-attention, compiled: the goldens' attention over packed segments (Qwen2-VL's
vision attention through an attention interface, GLM-4V's `else` branch, and a plain SDPA form
over packed documents) compiles into one graph after the rewrite, where the original skipped
the frame, with the original's outputs and gradients, for segments of different lengths and for
a single one."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from compile_stats import compile_stats, golden_modules

# Depends on what Dynamo does: run again on the current torch release by CI (docs/development.md).
pytestmark = pytest.mark.dynamo


GOLDEN = Path(__file__).parent / "golden" / "block-diagonal-attention"


def modules(case: str) -> tuple[object, object]:
    return golden_modules(GOLDEN / f"{case}.in.py")


def qwen_inputs(lengths: list[int]) -> tuple[torch.Tensor, torch.Tensor]:
    cu_seqlens = torch.nn.functional.pad(torch.tensor(lengths).cumsum(0, dtype=torch.int32), (1, 0))
    return torch.randn(sum(lengths), 16), cu_seqlens


def sdpa_inputs(lengths: list[int]) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.randn(1, sum(lengths), 16), torch.tensor(lengths)


CASES = [
    ("qwen_vl_vision_attention", "VisionAttention", qwen_inputs),
    ("sdpa_packed_documents", "PackedSelfAttention", sdpa_inputs),
    ("flash_branch_else", "GlmVisionAttention", qwen_inputs),
]


def outputs_and_gradients(layer: torch.nn.Module, x: torch.Tensor, lengths: torch.Tensor):
    layer.zero_grad(set_to_none=True)
    x = x.clone().requires_grad_()
    out = layer(x, lengths)
    out.square().sum().backward()
    return out.detach(), [x.grad, *(p.grad for p in layer.parameters())]


@pytest.mark.parametrize(("case", "layer_class", "inputs"), CASES)
@pytest.mark.parametrize("lengths", [[3, 5, 2], [6]])
def test_the_packed_attention_compiles_whole_with_the_original_results(case, layer_class, inputs, lengths):
    before_module, after_module = modules(case)
    torch.manual_seed(0)
    before = getattr(before_module, layer_class)()
    after = getattr(after_module, layer_class)()
    after.load_state_dict(before.state_dict())
    x, segments = inputs(lengths)

    original = compile_stats(before, x, segments)
    rewritten = compile_stats(after, x, segments)
    assert original.skipped_frames + original.frames - 1 >= 1  # the original breaks or skips a frame
    assert (rewritten.graphs, rewritten.skipped_frames, rewritten.frames) == (1, 0, 1)

    expected, expected_grads = outputs_and_gradients(before, x, segments)
    got, got_grads = outputs_and_gradients(torch.compile(after, backend="eager"), x, segments)
    torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-6)
    for grad, expected_grad in zip(got_grads, expected_grads, strict=True):
        torch.testing.assert_close(grad, expected_grad, rtol=1e-5, atol=1e-6)
