"""Output comparison: exact for integers and bools, dtype-aware for floats, NaN equals NaN."""

from __future__ import annotations

import math

import torch

from graphweld.runs.compare import compare_outputs, outputs_equal


def test_float_tolerance_depends_on_dtype():
    x = torch.tensor([1.0, 2.0])
    assert outputs_equal(x, x + 1e-7)
    assert not outputs_equal(x, x + 1e-3)
    half = x.half()
    assert outputs_equal(half, half + torch.tensor(1e-4).half())
    assert not outputs_equal(x.double(), x.double() + 1e-6)


def test_integers_and_bools_are_exact():
    assert outputs_equal(torch.tensor([1, 2]), torch.tensor([1, 2]))
    leaf = compare_outputs(torch.tensor([1, 2]), torch.tensor([1, 3]))[0]
    assert not leaf.equal and "1 of 2 elements differ" in leaf.detail
    assert not outputs_equal(torch.tensor([True, False]), torch.tensor([True, True]))


def test_nan_equals_nan_but_not_a_number():
    nan = torch.tensor([math.nan, 1.0])
    assert outputs_equal(nan, nan.clone())
    assert not outputs_equal(nan, torch.tensor([0.0, 1.0]))
    assert outputs_equal(float("nan"), float("nan"))


def test_shape_and_dtype_must_match():
    assert "shape (2,) vs (1, 2)" in compare_outputs(torch.zeros(2), torch.zeros(1, 2))[0].detail
    assert "dtype torch.float32 vs torch.float64" in compare_outputs(torch.zeros(2), torch.zeros(2).double())[0].detail


def test_nested_outputs_report_the_failing_leaf():
    expected = {"logits": torch.ones(2), "extra": (torch.zeros(1), [torch.arange(3)]), "n": 3}
    actual = {"logits": torch.ones(2), "extra": (torch.zeros(1), [torch.tensor([0, 1, 5])]), "n": 3}
    leaves = compare_outputs(expected, actual)
    failing = [leaf for leaf in leaves if not leaf.equal]
    assert [leaf.path for leaf in failing] == ["output['extra'][1][0]"]
    assert not outputs_equal({"a": 1}, {"b": 1})
    assert not outputs_equal((torch.ones(1),), (torch.ones(1), torch.ones(1)))


def test_max_differences_are_reported():
    leaf = compare_outputs(torch.tensor([1.0, 4.0]), torch.tensor([1.5, 4.0]))[0]
    assert leaf.max_abs == 0.5 and leaf.max_rel == 0.5


def test_a_leaf_the_compiled_original_already_moves_is_held_to_that_difference():
    """Inductor's fused sums can move a training step's gradients beyond float32's tolerance
    before any rewrite; there the rewrite may differ by up to twice as much, and no more. A leaf
    the compiled original gets right keeps the dtype's tolerance."""
    from graphweld.runs.compare import noise_floor

    eager = {"grad": torch.tensor([1.0, 2.0]), "loss": torch.tensor(3.0)}
    compiled_original = {"grad": torch.tensor([1.0, 2.0 + 1e-3]), "loss": torch.tensor(3.0)}
    noise = noise_floor(eager, compiled_original)
    assert noise.keys() == {"output['grad']"} and math.isclose(noise["output['grad']"], 1e-3, rel_tol=1e-3)

    within = compare_outputs(eager, {"grad": torch.tensor([1.0 + 1.5e-3, 2.0]), "loss": torch.tensor(3.0)}, noise)
    assert all(leaf.equal for leaf in within)
    beyond = compare_outputs(eager, {"grad": torch.tensor([1.0, 2.0 + 3e-3]), "loss": torch.tensor(3.0)}, noise)
    (failing,) = [leaf for leaf in beyond if not leaf.equal]
    assert failing.path == "output['grad']" and "the compiled original's own: max abs diff 0.001" in failing.detail
    # The loss was right before: a rewrite that moves it is held to float32's tolerance.
    moved_loss = compare_outputs(eager, {"grad": torch.tensor([1.0, 2.0]), "loss": torch.tensor(3.0 + 1e-3)}, noise)
    assert [leaf.path for leaf in moved_loss if not leaf.equal] == ["output['loss']"]
