"""reduce-not-tolist: `sum(t.tolist())` becomes `t.sum()` (and `max`, `min`) in a compiled region."""

from __future__ import annotations

import libcst as cst

from graphweld.analysis.names import bare_method_call
from graphweld.call_rewrite import CallRewrite
from graphweld.rule import Rule, Safety

# The builtins over a tensor's Python list that the tensor's own reduction computes.
_REDUCTIONS = frozenset(("sum", "max", "min"))


class ReduceNotTolist(CallRewrite, Rule):
    """Reduce a tensor with its own method instead of over its `.tolist()` in a compiled region.

    ## What it fixes
    In a compiled region, `sum(t.tolist())`, `max(t.tolist())` or `min(t.tolist())`, whatever
    the expression `t` is, where a run saw the graph break at that line: a total of per-sample
    losses added back into a loss, the largest score a batch is normalised by, a critic's summed
    loss in a policy update. It becomes `t.detach().sum()`, `.max()` or `.min()`, a 0-dim tensor
    with the same value, computed in the graph. (An integer tensor's list traces, and its values are
    often sizes, `max(lengths.tolist())` for padding: without a break there it is left alone.)
    The tensor is detached first (`t.detach().sum()`), as its Python numbers were: no gradient
    flows through the result, before or after.

    ## Why the graph breaks
    Dynamo does not trace `tolist()` of a floating-point tensor ("Tensor.tolist() with
    non-integer tensor", GB0109): turning its values into Python numbers would read the
    tensor's contents while compiling. The graph breaks there, and with `fullgraph=True` the
    compile fails. The registry page's fix is to keep the data a tensor and reduce it with a
    tensor operation.

    ## Example
    ```python
    @torch.compile(fullgraph=True)
    def fn(x):
        return x + sum(x.tolist())
    ```
    becomes
    ```python
    @torch.compile(fullgraph=True)
    def fn(x):
        return x + x.detach().sum()
    ```

    ## Safety
    Unsafe, so only applied with `--unsafe-fixes`: the result is a 0-dim tensor, not a Python
    number, so code that formats it, branches on it or passes it where an `int` is required
    sees a tensor; and the tensor's sum is computed in its own dtype, where Python adds the
    values as doubles (the last bits of a float32 total can differ). Of a tensor of more than one
    dimension, the builtins work on its rows (`max` picks the largest row as a list, `sum`
    fails), the method on its elements. Every change is verified by a run where there is one. Left alone: a start
    value (`sum(t.tolist(), 0.0)`), a `key=` or `default=` argument, and more than one argument.
    """

    id = "reduce-not-tolist"
    reference = "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0109.html"
    summary = "Reduce a tensor with its own method instead of over its `.tolist()` in a compiled region"
    # The docs' table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = "`sum(t.tolist())`, `max(t.tolist())` or `min(t.tolist())` in a compiled region (GB0109)"
    rewrite = "`t.detach().sum()` (`max`, `min`): a 0-dim tensor with the same value, and no gradient, as before"
    default = "unsafe: the result is a tensor, not a Python number, and a float32 sum is not added in doubles"
    trigger_words = ("tolist",)
    needs_breaker_call = False
    safety = Safety.UNSAFE

    def replacement(self, call: cst.Call, statement: cst.BaseStatement) -> cst.BaseExpression | None:
        if not isinstance(call.func, cst.Name) or call.func.value not in _REDUCTIONS:
            return None
        if self.context.regions.imports.qualify(call.func) != call.func.value:
            return None  # `sum` imported from somewhere else: not the builtin
        if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
            return None
        if not self.context.breaks_per_run(statement):
            return None
        tensor = bare_method_call(call.args[0].value, "tolist")
        if tensor is None:
            return None
        if bare_method_call(tensor, "detach") is None:
            # A Python number carries no gradient: neither does the reduction of the detached tensor.
            tensor = cst.Call(func=cst.Attribute(value=tensor, attr=cst.Name("detach")))
        return cst.Call(func=cst.Attribute(value=tensor, attr=cst.Name(call.func.value)))

    def message(self, call: cst.Call, statement: cst.BaseStatement) -> str:
        reduction = call.func.value  # type: ignore[attr-defined]
        return (
            f"`{self.context.code(call)}` reads a tensor's values into Python, which Dynamo does not trace for a "
            f"floating-point tensor (GB0109); reduce it in the graph with `.detach().{reduction}()` (unsafe: the "
            "result is a 0-dim tensor, not a Python number)"
        )

