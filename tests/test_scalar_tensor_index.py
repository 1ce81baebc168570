"""scalar-tensor-index, compiled: torchcde's spline and torchdiffeq's dense output, whose interval
search gives a 0-dim index, compile into one graph after the rewrite, with the original's values
and gradients, for one time and for a batch of times (the squeeze keeps any index's shape)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from compile_stats import compile_stats, golden_modules

# Depends on what Dynamo does: run again on the current torch release by CI (docs/development.md).
pytestmark = pytest.mark.dynamo


GOLDEN = Path(__file__).parent / "golden" / "scalar-tensor-index"


def spline(module) -> torch.nn.Module:  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    knots = torch.linspace(0.0, 1.0, 6)
    coeffs = [torch.randn(2, 5, 3, requires_grad=True) for _ in range(4)]
    return module.CubicSpline(knots, coeffs), coeffs


def test_the_spline_vector_field_compiles_whole_with_the_original_values_and_gradients():
    before, after = golden_modules(GOLDEN / "cubic_spline_interval.in.py")
    z = torch.randn(2, 3, requires_grad=True)
    t = torch.tensor(0.37, requires_grad=True)

    spline_before, coeffs_before = spline(before)
    original = compile_stats(before.vector_field, spline_before, t, z)
    assert original.frames > 1 or original.skipped_frames  # the 0-dim index breaks the graph

    spline_after, coeffs_after = spline(after)
    rewritten = compile_stats(after.vector_field, spline_after, t, z)
    assert (rewritten.graphs, rewritten.skipped_frames, rewritten.frames) == (1, 0, 1)

    expected = before.vector_field(spline_before, t, z)
    got = torch.compile(after.vector_field, backend="eager")(spline_after, t, z)
    torch.testing.assert_close(got, expected)
    wanted = torch.autograd.grad(expected.square().sum(), [t, z, *coeffs_before])
    found = torch.autograd.grad(got.square().sum(), [t, z, *coeffs_after])
    for grad, expected_grad in zip(found, wanted):
        torch.testing.assert_close(grad, expected_grad)


def test_the_spline_gives_the_original_values_for_a_batch_of_times():
    before, after = golden_modules(GOLDEN / "cubic_spline_interval.in.py")
    times = torch.tensor([[0.05, 0.5], [0.99, 0.3]])
    spline_before, _ = spline(before)
    spline_after, _ = spline(after)
    for name in ("evaluate", "derivative"):
        expected = getattr(spline_before, name)(times)
        torch.testing.assert_close(getattr(spline_after, name)(times), expected)


@pytest.mark.parametrize("t_eval", [torch.tensor(0.45), torch.tensor(0.95)])
def test_the_dense_output_compiles_whole_with_the_original_values(t_eval: torch.Tensor):
    before, after = golden_modules(GOLDEN / "dense_output_search.in.py")
    times = torch.tensor([0.0, 0.2, 0.5, 0.7, 1.0])
    interp_coeffs = torch.randn(5, 3, 2)
    expected = before.dense_output(times, interp_coeffs)(t_eval)

    original = compile_stats(before.dense_output(times, interp_coeffs), t_eval)
    assert original.frames > 1 or original.skipped_frames
    rewritten = compile_stats(after.dense_output(times, interp_coeffs), t_eval)
    assert (rewritten.graphs, rewritten.skipped_frames, rewritten.frames) == (1, 0, 1)
    torch.testing.assert_close(rewritten.result, expected)
