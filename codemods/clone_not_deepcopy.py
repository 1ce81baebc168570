"""clone-not-deepcopy: a tensor is copied with `.detach().clone()`, not `copy.deepcopy`."""

from __future__ import annotations

import libcst as cst

from graphweld.call_rewrite import CallRewrite
from graphweld.rule import Rule, Safety


class CloneNotDeepcopy(CallRewrite, Rule):
    """Copy a tensor in a compiled region with `.detach().clone()` instead of `copy.deepcopy`.

    ## What it fixes
    In a compiled region, `copy.deepcopy(t)` (also `deepcopy(t)` imported from `copy`, or
    through an alias of the module) of one tensor: a snapshot of a state before it is updated, a
    target copied before it is modified, an exponential moving average's shadow taken in a step.
    The tensor is one the code shows (a factory's result, an annotated parameter, arithmetic on
    one), or any argument where a run saw the break at that line.

    ## Why the graph breaks
    Dynamo does not trace the deep-copy protocol on a tensor ("Attempted to copy.deepcopy a
    tensor", GB4198): the graph breaks there, and with `fullgraph=True` the compile fails.
    `clone()` is a tensor operation Dynamo puts in the graph; `detach()` first makes the copy,
    like the deep copy, a tensor no gradient flows back through.

    ## Example
    ```python
    @torch.compile(fullgraph=True)
    def fn(x):
        saved = copy.deepcopy(x)
        return x + saved
    ```
    becomes
    ```python
    @torch.compile(fullgraph=True)
    def fn(x):
        saved = x.detach().clone()
        return x + saved
    ```

    ## Safety
    Unsafe, so only applied with `--unsafe-fixes`: the copy has the same values, dtype, device
    and shape, and no gradient flows through it back to the original, as with `copy.deepcopy`.
    What differs: a deep copy of a tensor that requires grad requires grad too (a new leaf),
    where the clone of a detached tensor does not; a deep copy also copies the original's
    `.grad`, its Python attributes and its whole storage (a view's deep copy keeps the view's
    offset and strides into a copy of its base), and a `Parameter` stays a `Parameter`. Every
    change is verified by a run where there is one. Left alone: a copy with a `memo` argument, and
    a value not known to be a tensor (a module, a container of tensors) without a run that saw
    this break there.
    """

    id = "clone-not-deepcopy"
    reference = "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb4198.html"
    summary = "Copy a tensor with `.detach().clone()` instead of `copy.deepcopy` in a compiled region"
    # The docs' table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = "`copy.deepcopy(t)` of a tensor in a compiled region (GB4198)"
    rewrite = "`t.detach().clone()`"
    default = "unsafe: the copy of a tensor that requires grad no longer requires grad; `.grad` and attributes are not copied"
    trigger_words = ("deepcopy",)
    needs_breaker_call = False
    safety = Safety.UNSAFE

    def replacement(self, call: cst.Call, statement: cst.BaseStatement) -> cst.BaseExpression | None:
        if self.context.regions.imports.qualify(call.func) != "copy.deepcopy":
            return None
        if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
            return None
        value = call.args[0].value
        function = self.context.current_function
        known = function is not None and self.context.function_values(function).is_tensor(value)
        if not known and not self.context.breaks_per_run(statement):
            return None
        receiver = value
        if not isinstance(value, (cst.Name, cst.Attribute, cst.Subscript, cst.Call)) and not value.lpar:
            # `copy.deepcopy(a + b)` -> `(a + b).detach().clone()`
            receiver = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        detached = cst.Call(func=cst.Attribute(value=receiver, attr=cst.Name("detach")))
        return cst.Call(func=cst.Attribute(value=detached, attr=cst.Name("clone")))

    def message(self, call: cst.Call, statement: cst.BaseStatement) -> str:
        return (
            f"`{self.context.code(call)}` deep-copies a tensor, which Dynamo does not trace (GB4198); copy it with "
            "`.detach().clone()`, a graph operation (unsafe: the copy of a tensor that requires grad no longer requires "
            "grad, and its `.grad` and attributes are not copied)"
        )
