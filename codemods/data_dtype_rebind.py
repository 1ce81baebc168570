"""data-dtype-rebind: `x.data = x.data.to(dtype)` becomes `x = x.detach().to(dtype)`."""

from __future__ import annotations

import libcst as cst

from graphweld.rule import Rule, Safety

# Tensor methods that convert to a fixed dtype.
_DTYPE_METHODS = frozenset(("half", "float", "double", "bfloat16", "int", "long", "short", "bool", "char", "byte"))
# Conversions whose dtype is an argument.
_CONVERSIONS = frozenset(("to", "type"))


class DataDtypeRebind(Rule):
    """Convert a tensor's dtype into a new tensor instead of assigning to its `.data` in a compiled region.

    ## What it fixes
    In a compiled region, `x.data = x.data.to(torch.int32)` (also `x.data = x.half()`,
    `x.data = x.data.type(torch.float64)`, `x.to(dtype=...)`) on a name: a tensor cast in place of
    itself, as quantisation and mixed-precision helpers write it. The statement becomes
    `x = x.detach().to(torch.int32)`: the name holds the converted tensor, and the code after it
    reads that.

    ## Why the graph breaks
    Dynamo models assigning to `.data` a tensor of the same dtype, but not one of another dtype
    ("Failed to mutate tensor data attribute to different dtype", GB0220): the tensor's type
    would change partway through the graph. The graph breaks, and with `fullgraph=True` the
    compile fails. A new tensor of the target dtype is plain tracing; `detach()` keeps what
    `.data` gave, a tensor no gradient flows back through.

    ## Example
    ```python
    @torch.compile(fullgraph=True)
    def fn(x):
        x.data = x.data.to(torch.int32)
        return x + 1
    ```
    becomes
    ```python
    @torch.compile(fullgraph=True)
    def fn(x):
        x = x.detach().to(torch.int32)
        return x + 1
    ```

    ## Safety
    Unsafe, so only applied with `--unsafe-fixes`: the function computes what it did, but the
    tensor object it was given keeps its dtype and values, where the original converted it for
    its caller and every other holder too; and the name now holds a tensor that does not require
    grad (the original kept a leaf that did, if it was one). Left alone: a conversion that does
    not name a dtype (`x.data = x.data.to(device)`, which Dynamo traces) unless a run saw this
    break there, an attribute's `.data` (`self.weight.data = ...`: the module's own state), and
    a value converted from another tensor.
    """

    id = "data-dtype-rebind"
    reference = "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0220.html"
    summary = "Convert a tensor's dtype into a new tensor instead of assigning to its `.data` in a compiled region"
    # The docs' table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = "`x.data = x.data.to(dtype)` (or `.half()`, `.type(dtype)`) on a name in a compiled region (GB0220)"
    rewrite = "`x = x.detach().to(dtype)`: later reads use the new tensor"
    default = "unsafe: the caller's tensor is no longer converted"
    trigger_words = (".data",)
    needs_breaker_call = False
    node_types = (cst.SimpleStatementLine,)

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        if len(node.body) != 1 or not isinstance(node.body[0], cst.Assign) or len(node.body[0].targets) != 1:
            return
        assign = node.body[0]
        target = assign.targets[0].target
        if not (isinstance(target, cst.Attribute) and target.attr.value == "data" and isinstance(target.value, cst.Name)):
            return
        if self.context.current_function is None or not self.context.in_compiled_region:
            return
        name = target.value.value
        value = assign.value
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)):
            return
        method = value.func.attr.value
        receiver = value.func.value
        on_itself = isinstance(receiver, cst.Name) and receiver.value == name
        on_its_data = isinstance(receiver, cst.Attribute) and receiver.attr.value == "data" and isinstance(receiver.value, cst.Name) and receiver.value.value == name
        if not (on_itself or on_its_data) or method not in _DTYPE_METHODS | _CONVERSIONS:
            return
        if not (method in _DTYPE_METHODS or self._names_dtype(value) or self.context.breaks_per_run(node)):
            return
        detached = cst.Call(func=cst.Attribute(value=cst.Name(name), attr=cst.Name("detach")))
        converted = value.with_changes(func=value.func.with_changes(value=detached))
        statement = node.with_changes(body=[assign.with_changes(targets=[cst.AssignTarget(cst.Name(name))], value=converted)])
        message = (
            f"`{self.context.code(node)}` changes a tensor's dtype through `.data`, which Dynamo does not (GB0220); bind "
            f"`{name}` to the converted tensor instead (unsafe: the caller's tensor is no longer converted)"
        )
        self.propose(node, [statement], anchor=node, message=message, safety=Safety.UNSAFE)

    def _names_dtype(self, call: cst.Call) -> bool:
        """Whether a `.to(...)`/`.type(...)` call gives a dtype: `dtype=`, or a `torch.<dtype>` argument."""
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value == "dtype":
                return True
            qualified = self.context.regions.imports.qualify(arg.value) if arg.keyword is None else None
            if qualified is not None and qualified.startswith("torch.") and qualified.count(".") == 1 and _is_dtype_name(qualified[6:]):
                return True
        return False


def _is_dtype_name(name: str) -> bool:
    return name in {
        "float", "float16", "float32", "float64", "double", "half", "bfloat16", "int", "int8", "int16", "int32", "int64",
        "long", "short", "uint8", "bool", "complex64", "complex128", "cfloat", "cdouble",
    }
