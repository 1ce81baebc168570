"""masked-accumulate: add to the elements a boolean mask selects without reading them out."""

from __future__ import annotations

import libcst as cst

from graphweld.analysis.names import dotted_name
from graphweld.analysis.tensors import FunctionValues
from graphweld.cst_fast import call_code, source
from graphweld.rule import Rule, Safety

# Names of `math` whose values are numbers: a value made of these and literals is a number.
_MATH_CONSTANTS = frozenset(("pi", "e", "tau", "inf"))
# How a boolean mask's name begins, besides holding "mask".
_MASK_PREFIXES = ("is_", "has_", "valid", "keep")
# The widest the call is written on one line (the statement's indentation comes on top).
_CALL_WIDTH = 88
# Methods of an array that give an array.
_ARRAY_METHODS = frozenset(("copy", "astype", "reshape", "ravel", "flatten", "squeeze", "transpose", "clip"))
_NUMBER_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Power, cst.Modulo)


class MaskedAccumulate(Rule):
    """Add to the elements a boolean mask selects with `index_put_(..., accumulate=True)`.

    ## What it fixes
    In a compiled region, `x[mask] += value` or `x[mask] -= value` where the mask is boolean: a
    comparison (`labels == -1`, `oris < 0`, `row == col`), `~`, `&`, `|` of those, a name bound to
    one, or, where a run saw the line break, a name that says it is a mask (`audio_token_mask`,
    `~is_stopped`). Segment Anything's prompt encoder adds a learned embedding to the points of
    each label (`point_embedding[labels == -1] += self.not_a_point_embed.weight`, as kornia's and
    MONAI's copies of it do), kornia wraps angles (`oris[oris < 0] += 2.0 * math.pi`,
    `diff[diff >= 180] -= 360`), PyTorch Geometric weighs a graph's self-loops
    (`edge_weight[row == col] += self.diag_lambda * deg_inv`, a value per selected element, and
    `edge_weight[loop_mask] -= 1`), and a text decoder counts the tokens of the sequences not yet
    stopped (`seq_lengths[~is_stopped] += 1`).

    ## Why the graph breaks
    `x[mask] += value` reads `x[mask]` first, and the number of elements a boolean mask selects is
    known only from its values (`aten.nonzero`, "Dynamic shape operator", GB0036): Dynamo breaks
    the graph there, or skips the frame. Writing through the mask alone does not need that number,
    so `x.index_put_((mask,), value, accumulate=True)` traces into the graph: it adds the value to
    the selected elements in place, each once, as the original did.

    ## Example
    ```python
    point_embedding[labels == -1] += self.not_a_point_embed.weight
    oris[oris < 0] += 2.0 * math.pi
    ```
    becomes
    ```python
    point_embedding.index_put_(
        (labels == -1,),
        torch.as_tensor(self.not_a_point_embed.weight, dtype=point_embedding.dtype, device=point_embedding.device),
        accumulate=True,
    )
    oris.index_put_((oris < 0,), oris.new_tensor(2.0 * math.pi), accumulate=True)
    ```

    ## Safety
    Safe: the same elements change by the same value, in place, and the gradients are the same
    (measured, of the tensor and of the value). `index_put_` takes a tensor of the target's dtype,
    so a number becomes one with `x.new_tensor(...)` and any other value is passed through
    `torch.as_tensor(..., dtype=x.dtype, device=x.device)`, which returns a tensor of that dtype
    itself (a float added to an integer tensor, which the original refuses, is truncated to
    it). Where the value has a wider dtype than the target (a float32 weight added to a bfloat16
    tensor under autocast), it is rounded to the target's dtype before the addition, where the
    original added in the wider dtype and rounded once: results may differ in the last bit. Only a
    mask that is boolean is taken: an integer index with repeats would add its value more than
    once, so an index that is neither boolean by construction nor named as a mask where a run saw
    it break is left alone, and so are `*=`, `/=` and a target that is not a name or an attribute.
    Without a run's word, the code must show the target is a tensor: a NumPy array's `a[mask] +=
    1` reads the same and has no `index_put_`. With it, a target or mask the code shows is a NumPy
    array (a NumPy function's result, a tensor's `.numpy()`) is still left alone: Dynamo traces
    arrays too, and their updates break the same way.
    """

    id = "masked-accumulate"
    reference = "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0036.html"
    summary = "Add to the elements a boolean mask selects with index_put_(..., accumulate=True)"
    # The README's table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = "`x[mask] += v` / `x[mask] -= v` with a boolean mask (SAM's prompt embeddings, angle wrapping, self-loop weights), in a compiled region"
    rewrite = "`x.index_put_((mask,), v, accumulate=True)` (`-v` for `-=`), the value made a tensor of `x`'s dtype"
    default = "safe; under mixed precision the value is rounded to `x`'s dtype before the addition"
    trigger_words = ("+=", "-=")
    needs_breaker_call = False
    node_types = (cst.SimpleStatementLine,)

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        context = self.context
        function = context.current_function
        if function is None or len(node.body) != 1 or not isinstance(node.body[0], cst.AugAssign):
            return
        update = node.body[0]
        if not isinstance(update.operator, (cst.AddAssign, cst.SubtractAssign)):
            return
        selection = _selection(update.target)
        if selection is None:
            return
        target, mask = selection
        seen_breaking = context.breaks_per_run(node)
        values = context.function_values(function)
        # Without a run's word, the code must show the target is a tensor: a NumPy array's
        # `a[mask] += 1` reads the same (wav2vec2's negative sampling) and has no index_put_.
        if not (seen_breaking or (context.regions.is_compiled(function) and values.is_tensor(target))):
            return
        # A run's word that the line breaks does not make the target a tensor: Dynamo traces NumPy
        # arrays too, and the same update of one breaks the same way.
        if _is_array(target, values) or _is_array(mask, values):
            return
        if not (values.is_boolean(mask) or (seen_breaking and _is_named(mask))):
            return
        torch_name = context.torch_name()
        if torch_name is None:
            return
        target_code, value_code, mask_code = (source(part, context.module) for part in (target, update.value, mask))
        if isinstance(update.operator, cst.SubtractAssign):
            value_code = _negated(update.value, value_code)
        if _is_number(update.value):
            made = f"{target_code}.new_tensor({value_code})"
        else:
            made = f"{torch_name}.as_tensor({value_code}, dtype={target_code}.dtype, device={target_code}.device)"
        call = call_code(f"{target_code}.index_put_", [f"({mask_code},)", made, "accumulate=True"], _CALL_WIDTH)
        replacement = node.with_changes(body=[cst.Expr(value=cst.parse_expression(call), semicolon=update.semicolon)])
        message = (
            f"`{context.code(update)}` reads the elements a boolean mask selects, whose number is known only from the mask's "
            "values (GB0036): add to them in place with `index_put_(..., accumulate=True)`, which needs no such read"
        )
        self.propose(node, [replacement], anchor=node, message=message, safety=Safety.SAFE)


def _selection(target: cst.BaseAssignTargetExpression) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """`x` and `mask` of `x[mask]`, where `x` is a name or an attribute chain (read again for its
    dtype and device) and the index is one expression, not a slice."""
    if not isinstance(target, cst.Subscript) or len(target.slice) != 1:
        return None
    element = target.slice[0].slice
    if not isinstance(element, cst.Index) or element.star is not None:
        return None
    if dotted_name(target.value) is None:
        return None
    return target.value, element.value


def _is_array(node: cst.BaseExpression, values: FunctionValues, seen: frozenset[str] = frozenset()) -> bool:
    """Whether the code shows a NumPy array: a NumPy function's result, a tensor's `.numpy()`,
    a comparison, arithmetic or selection of one, or a name bound to one of these."""
    if isinstance(node, cst.Name):
        value = values.single_value(node.value)
        return value is not None and node.value not in seen and _is_array(value, values, seen | {node.value})
    if isinstance(node, cst.Call):
        qualified = values.imports.qualify(node.func)
        if qualified is not None and qualified.startswith("numpy."):
            return True
        return isinstance(node.func, cst.Attribute) and (
            node.func.attr.value == "numpy" or (node.func.attr.value in _ARRAY_METHODS and _is_array(node.func.value, values, seen))
        )
    if isinstance(node, cst.Comparison):
        return _is_array(node.left, values, seen) or any(_is_array(part.comparator, values, seen) for part in node.comparisons)
    if isinstance(node, cst.BinaryOperation):
        return _is_array(node.left, values, seen) or _is_array(node.right, values, seen)
    if isinstance(node, cst.UnaryOperation):
        return _is_array(node.expression, values, seen)
    if isinstance(node, cst.Subscript):
        return _is_array(node.value, values, seen)
    return False


def _is_named(mask: cst.BaseExpression) -> bool:
    """A mask given by a name or an attribute, or its `~`, whose name says it is one (`*mask*`,
    `is_*`, `has_*`, `valid*`, `keep*`): taken where a run saw the line break (an integer index
    selects without breaking, but the line may break for another reason)."""
    if isinstance(mask, cst.UnaryOperation) and isinstance(mask.operator, cst.BitInvert):
        mask = mask.expression
    if isinstance(mask, cst.Attribute):
        mask = mask.attr
    if not isinstance(mask, cst.Name):
        return False
    name = mask.value.lower()
    return "mask" in name or name.startswith(_MASK_PREFIXES)


def _is_number(node: cst.BaseExpression) -> bool:
    """Literals, `math` constants and arithmetic of them: a Python number whatever runs."""
    if isinstance(node, (cst.Integer, cst.Float)):
        return True
    if isinstance(node, cst.UnaryOperation):
        return isinstance(node.operator, (cst.Minus, cst.Plus)) and _is_number(node.expression)
    if isinstance(node, cst.BinaryOperation):
        return isinstance(node.operator, _NUMBER_OPERATORS) and _is_number(node.left) and _is_number(node.right)
    return (
        isinstance(node, cst.Attribute)
        and isinstance(node.value, cst.Name)
        and node.value.value == "math"
        and node.attr.value in _MATH_CONSTANTS
    )


def _negated(node: cst.BaseExpression, code: str) -> str:
    """`-value`, parenthesized where the value is an operation a unary minus would bind into."""
    return f"-({code})" if isinstance(node, (cst.BinaryOperation, cst.UnaryOperation)) and not node.lpar else f"-{code}"
