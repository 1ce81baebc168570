"""Comparing outputs: pytree-aware, exact for integers and bools, dtype-aware for floats.

NaNs compare equal to NaNs; shapes, dtypes and structure must match. Every leaf gets a line with
its maximum absolute and relative difference, so a failed verification says where and by how much.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator


@dataclass(frozen=True)
class LeafComparison:
    path: str
    equal: bool
    detail: str
    max_abs: float = 0.0
    max_rel: float = 0.0


def _leaves(expected: Any, actual: Any, path: str) -> Iterator[LeafComparison]:
    import torch

    if isinstance(expected, torch.Tensor) or isinstance(actual, torch.Tensor):
        yield _compare_tensors(expected, actual, path)
    elif isinstance(expected, dict) and isinstance(actual, dict):
        if set(expected) != set(actual):
            yield LeafComparison(path, False, f"keys differ: {sorted(map(str, expected))} vs {sorted(map(str, actual))}")
            return
        for key in expected:
            yield from _leaves(expected[key], actual[key], f"{path}[{key!r}]")
    elif isinstance(expected, (list, tuple)) and isinstance(actual, (list, tuple)):
        if len(expected) != len(actual):
            yield LeafComparison(path, False, f"length {len(expected)} vs {len(actual)}")
            return
        for index, (left, right) in enumerate(zip(expected, actual)):
            yield from _leaves(left, right, f"{path}[{index}]")
    elif isinstance(expected, float) and isinstance(actual, float):
        both_nan = expected != expected and actual != actual
        equal = both_nan or abs(expected - actual) <= 1e-6 * max(1.0, abs(expected))
        yield LeafComparison(path, equal, "" if equal else f"{expected!r} vs {actual!r}", abs(expected - actual) if not both_nan else 0.0)
    else:
        equal = type(expected) is type(actual) and expected == actual
        yield LeafComparison(path, equal, "" if equal else f"{expected!r} vs {actual!r}")


def _compare_tensors(expected: Any, actual: Any, path: str) -> LeafComparison:
    import torch

    if not (isinstance(expected, torch.Tensor) and isinstance(actual, torch.Tensor)):
        return LeafComparison(path, False, f"{type(expected).__name__} vs {type(actual).__name__}")
    if expected.shape != actual.shape:
        return LeafComparison(path, False, f"shape {tuple(expected.shape)} vs {tuple(actual.shape)}")
    if expected.dtype != actual.dtype:
        return LeafComparison(path, False, f"dtype {expected.dtype} vs {actual.dtype}")
    if expected.numel() == 0:
        return LeafComparison(path, True, "")
    if not (expected.is_floating_point() or expected.is_complex()):
        equal = bool(torch.equal(expected, actual))
        mismatches = int((expected != actual).sum())
        return LeafComparison(path, equal, "" if equal else f"{mismatches} of {expected.numel()} elements differ (exact dtype {expected.dtype})")
    left, right = expected.to(torch.float64 if not expected.is_complex() else torch.complex128), actual.to(
        torch.float64 if not actual.is_complex() else torch.complex128
    )
    both_nan = torch.isnan(left) & torch.isnan(right)
    difference = (left - right).abs().masked_fill(both_nan, 0)
    difference = torch.nan_to_num(difference, nan=float("inf"))
    max_abs = float(difference.max())
    max_rel = float((difference / left.abs().clamp_min(1e-12)).masked_fill(both_nan, 0).max())
    try:
        torch.testing.assert_close(actual, expected, equal_nan=True)
        equal = True
    except AssertionError:
        equal = False
    detail = f"max abs diff {max_abs:.3g}, max rel diff {max_rel:.3g} ({expected.dtype})"
    return LeafComparison(path, equal, detail, max_abs, max_rel)


def compare_outputs(expected: Any, actual: Any) -> list[LeafComparison]:
    """One comparison per leaf; the outputs are equal when every leaf is."""
    return list(_leaves(expected, actual, "output"))


def outputs_equal(expected: Any, actual: Any) -> bool:
    return all(leaf.equal for leaf in compare_outputs(expected, actual))
