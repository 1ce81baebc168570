"""constant-requires-grad: a constant made in a compiled function is made without `requires_grad=True`."""

from __future__ import annotations

import libcst as cst

from graphweld.analysis.scopes import own_statements
from graphweld.analysis.tensors import FACTORIES
from graphweld.rule import Rule, Safety
from graphweld.walk import iter_nodes, parents_of

# Tensor methods that make such a tensor like the one they are called on.
_NEW_METHODS = frozenset(("new_tensor", "new_zeros", "new_ones", "new_full", "new_empty"))
# Conversions that may follow the factory (`torch.tensor(0., requires_grad=True).to(device)`).
_CONVERSIONS = frozenset(("to", "cuda", "cpu", "float", "double", "half", "bfloat16", "type", "type_as"))
# Operators whose result is a new tensor: an operand's own flag and `.grad` are never read there.
_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Power, cst.MatrixMultiply)


class ConstantRequiresGrad(Rule):
    """Make a constant in a compiled function without `requires_grad=True`.

    ## What it fixes
    In a compiled function, a tensor made from values or a shape by one of torch's factories
    (`torch.tensor`, `torch.zeros`, `torch.ones`, `torch.full`, `torch.empty`, their `_like`
    forms, `x.new_zeros(...)` and the other `new_` methods) with `requires_grad=True`, bound to a
    local name that is then only combined arithmetically (`loss = loss + term`) or returned: a
    loss accumulator started at zero (an L1/L2 penalty summed over parameters, a ranking loss
    summed over a batch) or an auxiliary loss that is zero unless a branch computes it (the
    compressive transformer's memory reconstruction loss).

    ## Why the graph breaks
    Dynamo does not make a tensor that requires grad inside a graph: "Attempted to use tensor
    creation function with requires_grad=True" (GB0225), whose own hint is "Do not set
    `requires_grad=True`". In a layer called from a loop the whole frame is skipped, once per
    call. Calling `.requires_grad_()` on it instead breaks as well.

    ## Example
    ```python
    def forward(self, x):
        penalty = torch.tensor(0.0, requires_grad=True)
        for weight in self.weights:
            penalty = penalty + weight.norm()
        return self.head(x), penalty
    ```
    becomes
    ```python
    def forward(self, x):
        penalty = torch.tensor(0.0)
        for weight in self.weights:
            penalty = penalty + weight.norm()
        return self.head(x), penalty
    ```

    ## Safety
    Unsafe, so only applied with `--unsafe-fixes`. Every value is the same, and so is every
    gradient a parameter or an input gets: the constant is a leaf of the graph that nothing else
    holds, so its own gradient was never read. What changes is whether a result requires grad when
    nothing else in it does (nothing that requires grad added to the accumulator, or the constant
    returned as it was made): it was a tensor that requires grad, and is now a constant, so
    `.backward()` on it alone raises instead of doing nothing. Left alone: a name read any other
    way (passed to a call, its `.grad` or `.requires_grad` read, indexed, updated in place), one
    declared `global` or `nonlocal`, a tensor assigned to an attribute or subscript (it outlives
    the call), and a `requires_grad` that is not the literal `True`.
    """

    id = "constant-requires-grad"
    reference = "https://docs.pytorch.org/docs/stable/compile/programming_model.graph_breaks_index.html"
    summary = "Make a constant in a compiled function without `requires_grad=True`"
    # The README's table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = (
        "`acc = torch.tensor(0., requires_grad=True)` (or `torch.zeros(...)`, `x.new_zeros(...)`...) in a compiled "
        "function, the name then only combined arithmetically or returned (a loss accumulator, an auxiliary loss)"
    )
    rewrite = "make the constant without `requires_grad=True`"
    default = "unsafe: a result that gets nothing else requiring grad no longer requires grad"
    trigger_words = ("requires_grad",)
    needs_breaker_call = False
    # Calls, not functions: the scan looks at a function only when a call in it passes the flag.
    node_types = (cst.Call,)

    def visit_Call(self, node: cst.Call) -> None:
        if any(arg.keyword is not None and arg.keyword.value == "requires_grad" for arg in node.args):
            function = self.compiled_function_once()
            if function is not None:
                self._fix_function(function)

    def _fix_function(self, node: cst.FunctionDef) -> None:
        context = self.context
        statements = own_statements(node)
        declared = {
            name.name.value
            for statement in statements
            for small in (statement.body if isinstance(statement, cst.SimpleStatementLine) else ())
            if isinstance(small, (cst.Global, cst.Nonlocal))
            for name in small.names
        }
        for statement in statements:
            if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
                continue
            assign = statement.body[0]
            if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
                continue
            target = assign.targets[0].target
            if not isinstance(target, cst.Name) or target.value in declared:
                continue
            factory = self._factory(assign.value)
            flag = _requires_grad_argument(factory) if factory is not None else None
            if flag is None or not _only_combined_or_returned(node, target.value):
                continue
            call = factory.with_changes(args=_without(factory.args, flag))  # type: ignore[union-attr]
            value = assign.value.deep_replace(factory, call) if assign.value is not factory else call
            new_statement = statement.with_changes(body=[assign.with_changes(value=value)])
            message = (
                f"`{context.code(factory)}` makes a tensor that requires grad inside the compiled function, which "
                f"Dynamo does not (GB0225); make it without `requires_grad=True`: `{target.value}` is only combined "
                "and returned, so values and gradients stay the same (unsafe: a result that gets nothing else "
                "requiring grad no longer requires grad)"
            )
            self.propose(statement, [new_statement], anchor=statement, message=message, safety=Safety.UNSAFE)

    def _factory(self, value: cst.BaseExpression) -> cst.Call | None:
        """The factory call a value is made by, itself or under conversions (`.to(device)`)."""
        qualify = self.context.regions.imports.qualify
        while isinstance(value, cst.Call):
            func = value.func
            if qualify(func) in FACTORIES or (isinstance(func, cst.Attribute) and func.attr.value in _NEW_METHODS):
                return value
            if not isinstance(func, cst.Attribute) or func.attr.value not in _CONVERSIONS:
                return None
            value = func.value
        return None


def _requires_grad_argument(call: cst.Call) -> cst.Arg | None:
    """The call's `requires_grad=True` argument (the literal only); None without it or with a
    `**options` that might set it too."""
    found = None
    for arg in call.args:
        if arg.star == "**":
            continue
        if arg.keyword is not None and arg.keyword.value == "requires_grad":
            if not (isinstance(arg.value, cst.Name) and arg.value.value == "True"):
                return None
            found = arg
    return found


def _without(args: tuple[cst.Arg, ...] | list[cst.Arg], dropped: cst.Arg) -> list[cst.Arg]:
    """The arguments without `dropped`; dropped last, the one before it takes its comma (none, or
    the trailing comma of a call written one argument a line)."""
    kept = [arg for arg in args if arg is not dropped]
    if kept and args[-1] is dropped:
        kept[-1] = kept[-1].with_changes(comma=dropped.comma)
    return kept


def _only_combined_or_returned(function: cst.FunctionDef, name: str) -> bool:
    """Whether every read of `name` in the function (nested functions and lambdas included) is
    an operand of arithmetic or what a `return` gives back (itself or an element of a returned
    tuple), and it is never updated in place (`name += ...`) or deleted."""
    parents = parents_of(function.body)
    for node in iter_nodes(function.body):
        if isinstance(node, (cst.AugAssign, cst.Del)) and isinstance(node.target, cst.Name) and node.target.value == name:
            return False
        if not isinstance(node, cst.Name) or node.value != name:
            continue
        parent = parents.get(id(node))
        if isinstance(parent, cst.AssignTarget):
            continue
        # An attribute or a keyword of the same name is not a read of it.
        if (isinstance(parent, cst.Attribute) and parent.attr is node) or (isinstance(parent, cst.Arg) and parent.keyword is node):
            continue
        if isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, _ARITHMETIC):
            continue
        if isinstance(parent, cst.Return):
            continue
        if isinstance(parent, cst.Element) and isinstance(parents.get(id(parent)), cst.Tuple):
            returned = parents.get(id(parents[id(parent)]))
            if isinstance(returned, cst.Return):
                continue
        return False
    return True

