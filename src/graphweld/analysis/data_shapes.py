"""Calls whose result's shape is decided by the values of a tensor (Dynamo's "Dynamic shape
operator", GB0036, unless `capture_dynamic_output_shape_ops` is on): `nonzero`, `unique`,
`masked_select`, `repeat_interleave` by a tensor of counts, `torch.where(mask)`, and the like.
"""

from __future__ import annotations

from typing import Callable

import libcst as cst

# Operators whose result's shape depends on tensor values (measured on torch 2.13: each breaks a
# default compile with GB0036).
DYNAMIC_SHAPE_OPS = frozenset(
    {"nonzero", "argwhere", "masked_select", "unique", "unique_consecutive", "bincount", "repeat_interleave"}
)


def sizes_by_data(call: cst.Call, qualify: Callable[[cst.BaseExpression], str | None]) -> bool:
    """Whether `call` (a torch function, or a method, as `x.nonzero()`) makes a tensor whose shape
    its inputs' values decide. `qualify` gives a callee's dotted name through the module's
    imports."""
    func = call.func
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else None
    qualified = qualify(func) or ""
    if qualified == "torch.where":
        return len(call.args) == 1  # torch.where(mask): the indices, as nonzero
    if name not in DYNAMIC_SHAPE_OPS or not (qualified.startswith("torch.") or isinstance(func, cst.Attribute)):
        return False
    if name == "repeat_interleave":
        return _repeats_not_literal(call, as_function=qualified == "torch.repeat_interleave")
    return True


def _repeats_not_literal(call: cst.Call, as_function: bool) -> bool:
    """`repeat_interleave` by counts that are not an integer literal (a tensor of counts makes the
    output's length data-dependent; `x.repeat_interleave(2)` does not). The counts are the first
    argument of the method, the second of `torch.repeat_interleave`, whose one-argument form
    repeats each index by the count its argument holds there (`torch.repeat_interleave(counts)`)."""
    keyword = [arg.value for arg in call.args if arg.keyword is not None and arg.keyword.value == "repeats"]
    positional = [arg.value for arg in call.args if arg.keyword is None]
    if as_function and len(positional) == 1 and not keyword:
        return True
    at = 1 if as_function else 0
    repeats = keyword[0] if keyword else (positional[at] if len(positional) > at else None)
    return repeats is not None and not isinstance(repeats, cst.Integer)
