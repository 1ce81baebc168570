"""item-stays-tensor: a scalar read with `.item()` that only re-enters tensor arithmetic stays a 0-dim tensor."""

from __future__ import annotations

import libcst as cst

from graphweld.analysis.names import bare_method_call
from graphweld.analysis.scopes import SCOPE_NODES
from graphweld.call_rewrite import with_calls_replaced
from graphweld.rule import Rule, Safety
from graphweld.walk import iter_nodes, parents_of

_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.Power)
_IN_PLACE = (cst.AddAssign, cst.SubtractAssign, cst.MultiplyAssign, cst.DivideAssign)
# Operands that are Python values for certain: arithmetic with them keeps a number a number.
_PYTHON_VALUES = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)


class ItemStaysTensor(Rule):
    """Keep a scalar read with `.item()` a 0-dim tensor where it only re-enters tensor arithmetic, in a compiled region.

    ## What it fixes
    In a compiled region, `v = t.item()` (whatever the expression `t` is) where every later
    use of `v` in the function is arithmetic (`+`, `-`, `*`, `/`, `**`, and `x += v` and the
    other in-place forms) that meets an operand other than Python literals (`x - v`,
    `x * (1 - v)`), and `t.item()` read inline as such an operand (`logits /
    self.temperature.item()`): a mean and a standard deviation read to normalise features, a
    temperature read from a learned log-temperature to scale logits, a loss weight read from a
    buffer, an advantage's mean in a policy update. Where an operand it meets is a tensor as the
    code shows (an annotated parameter, a factory's result), or where a run saw the graph break
    at the read; an operand that may be a Python number (a running total, a size) would make the
    tensor flow into Python code. It becomes `t.detach().reshape(())`: the same value as a
    0-dim tensor, as detached from autograd as the Python number was, and an error where `t`
    has more than one element, as `.item()` raises.

    ## Why the graph breaks
    Dynamo does not trace `Tensor.item()` with `capture_scalar_outputs` off, the default
    ("Unsupported Tensor.item() call with capture_scalar_outputs=False", GB0124): the graph
    breaks there, and the compiled code that uses the number specialises on it (Dynamo guards
    on the float it read), recompiling whenever it changes. Kept a tensor, the value flows
    through the graph.

    ## Example
    ```python
    class Norm(nn.Module):
        def forward(self, x):
            mean = x.mean().item()
            std = x.std().item()
            return (x - mean) / std


    model = torch.compile(Norm())
    ```
    becomes
    ```python
    class Norm(nn.Module):
        def forward(self, x):
            mean = x.mean().detach().reshape(())
            std = x.std().detach().reshape(())
            return (x - mean) / std


    model = torch.compile(Norm())
    ```

    ## Safety
    Unsafe, so only applied with `--unsafe-fixes`: a 0-dim tensor takes part in type promotion
    much as a Python number does (the dimensioned operand's dtype wins within a category), but
    not always: a float64 value times an integer tensor gives float64 where the number gave the
    default float dtype, and two 0-dim operands promote as tensors. A value read from a CUDA
    tensor stays on the GPU, where a CPU tensor operated with it fails. Every change is verified
    by a run where there is one. Left alone: a value used in any other way (a branch, a size, a
    call's argument, returned, formatted), used in a nested function, bound more than once, or
    meeting only literals (`steps.item() + 1`).
    """

    id = "item-stays-tensor"
    reference = "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0124.html"
    summary = "Keep a scalar read with `.item()` a 0-dim tensor where it only re-enters tensor arithmetic"
    # The docs' table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = "`v = t.item()` whose every use is tensor arithmetic, and `t.item()` read inline as its operand, in a compiled region (GB0124)"
    rewrite = "`v = t.detach().reshape(())`: the same value as a 0-dim tensor, no gradient, as before"
    default = "unsafe: a 0-dim tensor promotes types slightly differently from a Python number, and stays on its device"
    trigger_words = (".item()",)
    needs_breaker_call = False
    node_types = (cst.SimpleStatementLine,)

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        function = self.context.current_function
        if function is None or not self.context.in_compiled_region or len(node.body) != 1:
            return
        values = self.context.function_values(function)
        assign = node.body[0]
        bound = bare_method_call(assign.value, "item") if isinstance(assign, cst.Assign) else None
        if isinstance(assign, cst.Assign) and bound is not None:
            if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
                return
            name = assign.targets[0].target.value
            met = _operands_met(function, name) if values.single_value(name) is assign.value else None
            if not met or not self._evident(node, met, values):
                return
            replaced = node.with_changes(body=[assign.with_changes(value=_as_tensor(bound))])
            anchor, what = assign.value, f"`{name}` only re-enters"
        else:
            # `.item()` read inline as an operand of tensor arithmetic: `x / self.temperature.item()`.
            # The statement's calls (walked once for every rule) say first whether it reads one.
            if not any(bare_method_call(call, "item") is not None for call in self.context.calls_in(node, node)):
                return
            parents = parents_of(node)
            calls = {}
            for found in iter_nodes(node, prune=lambda n: isinstance(n, SCOPE_NODES)):
                tensor = bare_method_call(found, "item")
                other = _met_operand(found, parents) if tensor is not None else None
                if other is not None:
                    calls[id(found)] = (found, tensor, other)
            if not calls or not self._evident(node, [other for _, _, other in calls.values()], values):
                return
            replaced = with_calls_replaced(node, {key: _as_tensor(tensor) for key, (_, tensor, _) in calls.items()})
            anchor, what = next(iter(calls.values()))[0], "it only enters"
        self.propose(
            node,
            [replaced],
            anchor=anchor,
            message=(
                f"`{self.context.code(anchor)}` reads a number out of a tensor, which Dynamo does not trace (GB0124), and "
                f"{what} tensor arithmetic; keep it a 0-dim tensor, `.detach().reshape(())` (unsafe: a 0-dim tensor "
                "promotes types slightly differently from a Python number)"
            ),
            safety=Safety.UNSAFE,
        )

    def _evident(self, statement: cst.SimpleStatementLine, met: list[cst.BaseExpression], values) -> bool:  # type: ignore[no-untyped-def]
        """Whether the arithmetic is known to be a tensor's: an operand the code shows is a
        tensor, or a run that saw the graph break at the read (a number there would be read
        anyway, but a Python operand would make the 0-dim tensor flow into Python code)."""
        return any(values.is_tensor(other) for other in met) or self.context.breaks_per_run(statement)


def _as_tensor(tensor: cst.BaseExpression) -> cst.Call:
    """`tensor.detach().reshape(())`."""
    detached = cst.Call(func=cst.Attribute(value=tensor, attr=cst.Name("detach")))
    return cst.Call(func=cst.Attribute(value=detached, attr=cst.Name("reshape")), args=[cst.Arg(cst.Tuple([]))])


def _operands_met(function: cst.FunctionDef, name: str) -> list[cst.BaseExpression] | None:
    """For every read of `name` in the function, the operand its arithmetic meets (see
    `_met_operand`); None when a read is anything else or in a nested scope, or there is none."""
    parents = parents_of(function.body)
    not_reads: set[int] = set()
    met: list[cst.BaseExpression] = []
    for node in iter_nodes(function.body):
        if isinstance(node, SCOPE_NODES) and any(isinstance(n, cst.Name) and n.value == name for n in iter_nodes(node)):
            return None
        if isinstance(node, cst.Attribute):
            not_reads.add(id(node.attr))
        elif isinstance(node, (cst.AssignTarget, cst.AugAssign)):
            not_reads.add(id(node.target))
        elif isinstance(node, cst.Arg) and node.keyword is not None:
            not_reads.add(id(node.keyword))
        elif isinstance(node, cst.Name) and node.value == name and id(node) not in not_reads:
            other = _met_operand(node, parents, name)
            if other is None:
                return None
            met.append(other)
    return met or None


def _met_operand(read: cst.BaseExpression, parents: dict[int, cst.CSTNode], name: str | None = None) -> cst.BaseExpression | None:
    """The operand that the arithmetic `read` is an operand of meets, climbing through `1 - v`
    and the like (parentheses too), when it is not made of Python literals and `name` alone:
    `x` in `x - v`, `x * (1 - v)` and `x /= v`; None when the read is not such an operand."""
    node: cst.CSTNode = read
    while True:
        parent = parents.get(id(node))
        if isinstance(parent, cst.AugAssign):
            return parent.target if node is parent.value and isinstance(parent.operator, _IN_PLACE) else None
        if not (isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, _ARITHMETIC)):
            return None
        other = parent.right if node is parent.left else parent.left
        if not _made_of_literals(other, name):
            return other
        node = parent


def _made_of_literals(node: cst.BaseExpression, name: str | None) -> bool:
    """Whether the expression is Python literals (and `name`) combined by operators."""
    if isinstance(node, _PYTHON_VALUES) or (name is not None and _is_name(node, name)):
        return True
    if isinstance(node, cst.BinaryOperation):
        return _made_of_literals(node.left, name) and _made_of_literals(node.right, name)
    if isinstance(node, cst.UnaryOperation):
        return _made_of_literals(node.expression, name)
    return False


def _is_name(node: cst.BaseExpression, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name

