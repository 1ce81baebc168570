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
