"""How narrowly a Dynamo switch can be set, as docs/commands.md says it (measured on torch 2.13 and
2.15): `torch._dynamo.config.patch` as a decorator of the function Dynamo compiles holds for that
function alone, while nothing written inside a compiled region does, which is why graphweld writes
a switch where the program compiles and never into the helper that needs it."""

from __future__ import annotations

import pytest
import torch
import torch._dynamo

from compile_stats import compile_stats

# Depends on what Dynamo does: run again on the current torch release by CI (docs/development.md).
pytestmark = pytest.mark.dynamo


def scaled(x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    return x * t.max().item() + 1


@torch._dynamo.patch_dynamo_config(capture_scalar_outputs=True)
def scaled_in_scope(x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    return x * t.max().item() + 1


def test_the_decorated_compiled_function_captures_the_scalar_and_its_neighbour_still_breaks():
    x, t = torch.randn(8), torch.randn(4)

    @torch._dynamo.config.patch(capture_scalar_outputs=True)
    def within(x, t):
        return scaled(x.sin(), t).cos()

    def beside(x, t):
        return scaled(x.sin(), t).cos()

    inside, outside = compile_stats(within, x, t), compile_stats(beside, x, t)
    assert inside.graphs == 1 and outside.graphs >= 2
    torch.testing.assert_close(inside.result, beside(x, t))


def test_a_switch_traced_inside_the_region_does_not_capture_the_scalar():
    # Dynamo traces `patch_dynamo_config` (it admits `capture_scalar_outputs` and
    # `nested_graph_breaks`, not `allow_rnn` or `capture_dynamic_output_shape_ops`), but the fake
    # tensors' shape environment took the setting when the compile began: the `.item()` breaks
    # ("Data dependent operator", GB0033).
    x, t = torch.randn(8), torch.randn(4)
    stats = compile_stats(lambda x, t: scaled_in_scope(x.sin(), t).cos(), x, t)
    assert stats.graphs >= 2
    torch.testing.assert_close(stats.result, scaled(x.sin(), t).cos())


def test_nested_graph_breaks_scoped_to_a_helper_fails_the_compile():
    def inner(x):
        y = x.sin()
        torch._dynamo.graph_break()
        return y.cos()

    @torch._dynamo.patch_dynamo_config(nested_graph_breaks=True)
    def helper(x):
        return inner(x * 2) + x

    with pytest.raises(Exception, match="nested_graph_breaks"):
        compile_stats(lambda x: helper(x.exp()).tanh(), torch.randn(8))
