"""Comparing outputs: pytree-aware, exact for integers and bools, dtype-aware for floats.

NaNs compare equal to NaNs; shapes, dtypes and structure must match. Every leaf gets a line with
its maximum absolute and relative difference, so a failed verification says where and by how much.

Compiling can itself move a float leaf beyond the dtype's tolerance (inductor's fused kernels
reorder sums; a training step's gradients add those differences up). Where the compiled original
already differs from eager at a leaf, that difference is the leaf's noise floor: a rewrite's leaf
within twice it is equal, since the comparison with eager cannot tell a change there from the
compiler's own rounding. Leaves the compiled original gets right keep the dtype's tolerance.
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


# A leaf whose difference is within this many times the compiled original's is equal.
NOISE_FACTOR = 2.0


def _leaves(expected: Any, actual: Any, path: str, noise: dict[str, float]) -> Iterator[LeafComparison]:
    import torch

    if isinstance(expected, torch.Tensor) or isinstance(actual, torch.Tensor):
        yield _compare_tensors(expected, actual, path, noise.get(path, 0.0))
    elif isinstance(expected, dict) and isinstance(actual, dict):
        if set(expected) != set(actual):
            yield LeafComparison(path, False, f"keys differ: {sorted(map(str, expected))} vs {sorted(map(str, actual))}")
            return
        for key in expected:
            yield from _leaves(expected[key], actual[key], f"{path}[{key!r}]", noise)
    elif isinstance(expected, (list, tuple)) and isinstance(actual, (list, tuple)):
        if len(expected) != len(actual):
            yield LeafComparison(path, False, f"length {len(expected)} vs {len(actual)}")
            return
        for index, (left, right) in enumerate(zip(expected, actual)):
            yield from _leaves(left, right, f"{path}[{index}]", noise)
    elif isinstance(expected, float) and isinstance(actual, float):
        both_nan = expected != expected and actual != actual
        equal = both_nan or abs(expected - actual) <= 1e-6 * max(1.0, abs(expected))
        yield LeafComparison(path, equal, "" if equal else f"{expected!r} vs {actual!r}", abs(expected - actual) if not both_nan else 0.0)
    else:
        equal = type(expected) is type(actual) and expected == actual
        yield LeafComparison(path, equal, "" if equal else f"{expected!r} vs {actual!r}")


def _compare_tensors(expected: Any, actual: Any, path: str, noise: float = 0.0) -> LeafComparison:
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
    if noise > 0:
        equal = equal or max_abs <= NOISE_FACTOR * noise
        detail += f"; the compiled original's own: max abs diff {noise:.3g}"
    return LeafComparison(path, equal, detail, max_abs, max_rel)


def compare_outputs(expected: Any, actual: Any, noise: dict[str, float] | None = None) -> list[LeafComparison]:
    """One comparison per leaf; the outputs are equal when every leaf is. `noise` maps a leaf's
    path to the compiled original's difference from eager there, where that is beyond the dtype's
    tolerance (`noise_floor`)."""
    return list(_leaves(expected, actual, "output", noise or {}))


def noise_floor(expected: Any, compiled_original: Any) -> dict[str, float]:
    """The leaves where compiling the unchanged program already differs from eager beyond the
    dtype's tolerance, with its largest absolute difference there."""
    return {leaf.path: leaf.max_abs for leaf in compare_outputs(expected, compiled_original) if not leaf.equal and leaf.max_abs > 0}


def outputs_equal(expected: Any, actual: Any) -> bool:
    return all(leaf.equal for leaf in compare_outputs(expected, actual))
