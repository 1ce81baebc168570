"""item-stays-tensor: a scalar read with `.item()` that only re-enters tensor arithmetic stays a 0-dim tensor."""

from __future__ import annotations

import libcst as cst

from graphweld.analysis.names import bare_method_call
from graphweld.analysis.scopes import SCOPE_NODES
from graphweld.rule import Rule, Safety
from graphweld.walk import iter_nodes

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
    `x * (1 - v)`): a mean and a
    standard deviation read to normalise features, a temperature read from a learned
    log-temperature to scale logits, a loss weight read from a buffer, an advantage's mean in a
    policy update. It becomes `v = t.detach().reshape(())`: the same value as a 0-dim tensor,
    as detached from autograd as the Python number was, and an error where `t` has more than
    one element, as `.item()` raises.

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
    call's argument, returned, formatted), used in a nested function, or bound more than once.
    """

    id = "item-stays-tensor"
    reference = "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0124.html"
    summary = "Keep a scalar read with `.item()` a 0-dim tensor where it only re-enters tensor arithmetic"
    # The docs' table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = "`v = t.item()` in a compiled region whose every use is tensor arithmetic (GB0124)"
    rewrite = "`v = t.detach().reshape(())`: the same value as a 0-dim tensor, no gradient, as before"
    default = "unsafe: a 0-dim tensor promotes types slightly differently from a Python number, and stays on its device"
    trigger_words = (".item()",)
    needs_breaker_call = False
    node_types = (cst.SimpleStatementLine,)

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        function = self.context.current_function
        if function is None or not self.context.in_compiled_region or len(node.body) != 1:
            return
        assign = node.body[0]
        if not isinstance(assign, cst.Assign) or len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
            return
        call = assign.value
        tensor = bare_method_call(call, "item")
        if tensor is None:
            return
        name = assign.targets[0].target.value
        values = self.context.function_values(function)
        if values.single_value(name) is not call or not _only_arithmetic_uses(function, name):
            return
        detached = cst.Call(func=cst.Attribute(value=tensor, attr=cst.Name("detach")))
        value = cst.Call(func=cst.Attribute(value=detached, attr=cst.Name("reshape")), args=[cst.Arg(cst.Tuple([]))])
        self.propose(
            node,
            [node.with_changes(body=[assign.with_changes(value=value)])],
            anchor=call,
            message=(
                f"`{self.context.code(call)}` reads a number out of a tensor, which Dynamo does not trace (GB0124), and `{name}` "
                "only re-enters tensor arithmetic; keep it a 0-dim tensor, `.detach().reshape(())` (unsafe: a 0-dim tensor "
                "promotes types slightly differently from a Python number)"
            ),
            safety=Safety.UNSAFE,
        )


def _only_arithmetic_uses(function: cst.FunctionDef, name: str) -> bool:
    """Whether every read of `name` in the function is an operand of tensor arithmetic, with at
    least one, and none in a nested scope. A read is one when the arithmetic it is an operand of
    (through `1 - v` and the like, parentheses too) meets an operand that is not made of Python
    literals and `name` alone: `x - v`, `x * (1 - v)`, `x /= v`."""
    parents: dict[int, cst.CSTNode] = {}
    not_reads: set[int] = set()
    reads: list[cst.Name] = []
    for node in iter_nodes(function.body):
        if isinstance(node, SCOPE_NODES) and any(isinstance(n, cst.Name) and n.value == name for n in iter_nodes(node)):
            return False
        for child in node.children:
            parents[id(child)] = node
        if isinstance(node, cst.Attribute):
            not_reads.add(id(node.attr))
        elif isinstance(node, (cst.AssignTarget, cst.AugAssign)):
            not_reads.add(id(node.target))
        elif isinstance(node, cst.Arg) and node.keyword is not None:
            not_reads.add(id(node.keyword))
        elif isinstance(node, cst.Name) and node.value == name and id(node) not in not_reads:
            reads.append(node)
    return bool(reads) and all(_meets_a_tensor(read, parents, name) for read in reads)


def _meets_a_tensor(read: cst.Name, parents: dict[int, cst.CSTNode], name: str) -> bool:
    node: cst.CSTNode = read
    while True:
        parent = parents.get(id(node))
        if isinstance(parent, cst.AugAssign):
            return node is parent.value and isinstance(parent.operator, _IN_PLACE)
        if not (isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, _ARITHMETIC)):
            return False
        other = parent.right if node is parent.left else parent.left
        if not _made_of_literals(other, name):
            return True
        node = parent


def _made_of_literals(node: cst.BaseExpression, name: str) -> bool:
    """Whether the expression is Python literals and `name` combined by operators."""
    if isinstance(node, _PYTHON_VALUES) or _is_name(node, name):
        return True
    if isinstance(node, cst.BinaryOperation):
        return _made_of_literals(node.left, name) and _made_of_literals(node.right, name)
    if isinstance(node, cst.UnaryOperation):
        return _made_of_literals(node.expression, name)
    return False


def _is_name(node: cst.BaseExpression, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name
