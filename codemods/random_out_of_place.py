"""random-out-of-place: `t.random_(low, high)` becomes `t = torch.randint_like(t, low, high)`."""

from __future__ import annotations

import libcst as cst

from graphweld.analysis.blocks import statement_before
from graphweld.analysis.tensors import FACTORIES
from graphweld.rule import Rule, Safety

# Factories whose result shares memory with nothing (`torch.as_tensor` may share its input's).
_FRESH = FACTORIES - {"torch.as_tensor"}


class RandomOutOfPlace(Rule):
    """Draw random integers with `torch.randint_like` instead of `Tensor.random_` in a compiled region.

    ## What it fixes
    In a compiled region, a statement `t.random_(high)` or `t.random_(low, high)` (also
    `t.random_(low, to=high)`) on a name: noise drawn into a buffer made for it, random token ids
    or class labels for masking and augmentation. It becomes `t = torch.randint_like(t, low,
    high)`, which draws from the same generator in the same way (the same numbers, measured on
    torch 2.13) into a new tensor of `t`'s dtype, shape, device and strides.

    ## Why the graph breaks
    Dynamo does not trace `Tensor.random_` ("Tensor.random_ op", GB0107; its aten op's name,
    `random_.from`, collides with a Python keyword), so the graph breaks there, and with
    `fullgraph=True` the compile fails. The registry's workaround is the out-of-place factory,
    which Dynamo puts in the graph. (`uniform_`, `normal_` and the other in-place draws trace.)

    ## Example
    ```python
    @torch.compile(fullgraph=True)
    def fn(x):
        noise = torch.zeros_like(x)
        noise.random_(0, 10)
        return x + noise
    ```
    becomes
    ```python
    @torch.compile(fullgraph=True)
    def fn(x):
        noise = torch.zeros_like(x)
        noise = torch.randint_like(noise, 0, 10)
        return x + noise
    ```

    ## Safety
    Safe where `t` was made by a torch factory (`torch.zeros_like`, `torch.empty`, ...) in the
    statement just before, so that nothing else refers to that tensor: the name then holds the
    same numbers as the in-place draw left in it. Unsafe otherwise: another name, a view or a
    caller holding the tensor saw the draw in place and now keeps the old values. Left alone:
    `random_()` without bounds (its range depends on the dtype), a `generator=` argument
    (`randint_like` takes none), and a draw whose result is used as a value.
    """

    id = "random-out-of-place"
    reference = "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0107.html"
    summary = "Draw random integers with `torch.randint_like` instead of `Tensor.random_` in a compiled region"
    # The docs' table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = "`t.random_(low, high)` (or `t.random_(high)`) as a statement in a compiled region (GB0107)"
    rewrite = "`t = torch.randint_like(t, low, high)`: the same draw, into a new tensor"
    default = "safe where `t` was just made by a factory; unsafe otherwise (other references keep the old values)"
    trigger_words = ("random_",)
    needs_breaker_call = False
    node_types = (cst.SimpleStatementLine,)

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        if len(node.body) != 1 or not isinstance(node.body[0], cst.Expr):
            return
        call = node.body[0].value
        if not (
            isinstance(call, cst.Call)
            and isinstance(call.func, cst.Attribute)
            and call.func.attr.value == "random_"
            and isinstance(call.func.value, cst.Name)
        ):
            return
        if self.context.current_function is None or not self.context.in_compiled_region:
            return
        bounds = _bounds(call)
        torch_name = self.context.torch_name()
        if bounds is None or torch_name is None:
            return
        name = call.func.value
        draw = cst.Call(
            func=cst.Attribute(value=cst.Name(torch_name), attr=cst.Name("randint_like")),
            args=[cst.Arg(name), *bounds],
        )
        statement = node.with_changes(body=[cst.Assign(targets=[cst.AssignTarget(cst.Name(name.value))], value=draw)])
        fresh = self._made_just_before(node, name.value)
        message = (
            f"`{self.context.code(call)}` draws in place, which Dynamo does not trace (GB0107); draw into a new tensor with "
            f"`torch.randint_like`, the same numbers"
            + ("" if fresh else f" (unsafe: another reference to the tensor `{name.value}` holds keeps the old values)")
        )
        self.propose(node, [statement], anchor=call, message=message, safety=Safety.SAFE if fresh else Safety.UNSAFE)

    def _made_just_before(self, statement: cst.SimpleStatementLine, name: str) -> bool:
        """Whether the statement before this one, in the same block, is `name = <torch factory>(...)`."""
        function = self.context.current_function
        previous = statement_before(function, statement) if function is not None else None
        if not isinstance(previous, cst.SimpleStatementLine) or len(previous.body) != 1:
            return False
        assign = previous.body[0]
        if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
            return False
        target = assign.targets[0].target
        return (
            isinstance(target, cst.Name)
            and target.value == name
            and isinstance(assign.value, cst.Call)
            and self.context.regions.imports.qualify(assign.value.func) in _FRESH
        )


def _bounds(call: cst.Call) -> list[cst.Arg] | None:
    """`randint_like`'s (low, high) arguments for a `random_` call's, or None where there is no
    equivalent: no bounds, a generator, anything but one or two bounds."""
    positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
    keywords = {arg.keyword.value: arg for arg in call.args if arg.keyword is not None}
    if any(arg.star for arg in call.args) or set(keywords) - {"to"}:
        return None
    values = [arg.value for arg in positional] + ([keywords["to"].value] if "to" in keywords else [])
    if not 1 <= len(values) <= 2:
        return None
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    return [cst.Arg(value, comma=comma if i < len(values) - 1 else cst.MaybeSentinel.DEFAULT) for i, value in enumerate(values)]
