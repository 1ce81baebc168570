"""masked-reduction: `x[mask].sum()` and `x[mask].mean()` become reductions over the whole tensor, masked with `torch.where`."""

from __future__ import annotations

import libcst as cst

from graphweld.analysis.names import bare_method_call
from graphweld.call_rewrite import CallRewrite
from graphweld.rule import Rule, Safety

_REDUCTIONS = ("sum", "mean")


class MaskedReduction(CallRewrite, Rule):
    """Reduce over the whole tensor with the mask applied by `torch.where`, instead of over the elements a boolean mask selects, in a compiled region.

    ## What it fixes
    In a compiled region, `x[mask].sum()` or `x[mask].mean()` (also `torch.sum(x[mask])` and
    `torch.mean(x[mask])`) where `mask` is a boolean tensor as the code shows (a comparison such
    as `labels != -100`, `~`/`&`/`|` of those, `isfinite(...)`, a name bound to one) and a run
    saw the graph break there: a token-level loss averaged over the tokens that count, a
    reward or an error summed over valid entries, a masked mean of features. The sum becomes
    `torch.where(mask, x, 0).sum()`; the mean `(torch.where(mask, x, 0).sum() / mask.sum())`.
    Neither makes a tensor whose size depends on the data.

    ## Why the graph breaks
    Indexing with a boolean mask makes a tensor whose length is the number of `True`s, which
    Dynamo cannot know while compiling (`aten.nonzero`: "Dynamic shape operator", GB0036,
    with `capture_dynamic_output_shape_ops` off, the default): the graph breaks at the
    indexing, and with the switch on, the size becomes a symbol the rest of the graph must
    carry. A reduction over the whole tensor, with the masked-out elements made zero, has the
    same value and a fixed shape.

    ## Example
    ```python
    def forward(self, loss, labels):
        mask = labels != -100
        return loss[mask].mean()
    ```
    becomes
    ```python
    def forward(self, loss, labels):
        mask = labels != -100
        return (torch.where(mask, loss, 0).sum() / mask.sum())
    ```

    ## Safety
    Unsafe, so only applied with `--unsafe-fixes`, and only where a run saw the break: the
    rewrite is the same reduction when `mask` has `x`'s shape; a mask over `x`'s leading
    dimensions only (`hidden[mask]` selecting rows) broadcasts differently and the run rejects
    it (or, where the trailing sizes happen to match, its outputs differ). The sum adds the same
    values in another order (the last bits of a float total can differ), and a masked-out
    element that is infinite or NaN is replaced, not added; the mean of no elements is NaN in
    both. Left alone: a mask not known to be boolean (an integer index tensor gathers), a mean
    over a mask that is not a name or an attribute (it would be computed twice), reductions
    with arguments (`dim=`), and code without a run.
    """

    id = "masked-reduction"
    reference = "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0036.html"
    summary = "Reduce over the whole tensor with the mask applied by `torch.where`, instead of over a boolean mask's selection"
    # The docs' table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = "`x[mask].sum()` / `x[mask].mean()` with a boolean mask, in a compiled region, where a run saw the break (GB0036)"
    rewrite = "`torch.where(mask, x, 0).sum()`, and `/ mask.sum()` for the mean: a fixed shape"
    default = "unsafe: exact only where the mask has the tensor's shape; the sum's order differs"
    trigger_words = ("].sum()", "].mean()", "torch.sum(", "torch.mean(")
    needs_breaker_call = False
    safety = Safety.UNSAFE

    def replacement(self, call: cst.Call, statement: cst.BaseStatement) -> cst.BaseExpression | None:
        reduction, selected = self._reduced(call)
        if selected is None:
            return None
        index = selected.slice[0].slice if len(selected.slice) == 1 else None
        if not isinstance(index, cst.Index) or index.star is not None:
            return None
        mask, tensor = index.value, selected.value
        function = self.context.current_function
        torch_name = self.context.torch_name()
        if function is None or torch_name is None or not self.context.function_values(function).is_boolean(mask):
            return None
        if not (self.context.breaks_per_run(statement) or self.context.branches_on_tensor_per_run(statement)):
            return None
        if reduction == "mean" and not isinstance(mask, (cst.Name, cst.Attribute)):
            return None
        where = cst.Call(
            func=cst.Attribute(value=cst.Name(torch_name), attr=cst.Name("where")),
            args=[cst.Arg(mask, comma=_COMMA), cst.Arg(tensor, comma=_COMMA), cst.Arg(cst.Integer("0"))],
        )
        total = cst.Call(func=cst.Attribute(value=where, attr=cst.Name("sum")))
        if reduction == "sum":
            return total
        count = cst.Call(func=cst.Attribute(value=mask, attr=cst.Name("sum")))
        return cst.BinaryOperation(
            left=total, operator=cst.Divide(), right=count, lpar=[cst.LeftParen()], rpar=[cst.RightParen()]
        )

    def message(self, call: cst.Call, statement: cst.BaseStatement) -> str:
        return (
            f"`{self.context.code(call)}` reduces over the elements a boolean mask selects, a tensor whose size depends on the "
            "data, which breaks the graph (GB0036); reduce over the whole tensor with the mask applied by `torch.where` "
            "(unsafe: exact where the mask has the tensor's shape)"
        )

    def _reduced(self, call: cst.Call) -> tuple[str, cst.Subscript | None]:
        """The reduction and the masked selection it reduces: `x[m].sum()`, `torch.mean(x[m])`."""
        for reduction in _REDUCTIONS:
            receiver = bare_method_call(call, reduction)
            if isinstance(receiver, cst.Subscript):
                return reduction, receiver
            if (
                self.context.regions.imports.qualify(call.func) == f"torch.{reduction}"
                and len(call.args) == 1
                and call.args[0].keyword is None
                and not call.args[0].star
                and isinstance(call.args[0].value, cst.Subscript)
            ):
                return reduction, call.args[0].value
        return "", None


_COMMA = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
