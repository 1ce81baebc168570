"""while-to-while-loop: a `while` loop on a tensor's value becomes `torch.while_loop`."""

from __future__ import annotations

import libcst as cst

from graphweld.analysis.blocks import block_statements
from graphweld.analysis.scopes import binds_plain_names, bound_outside, target_names
from graphweld.cst_fast import source
from graphweld.rule import Rule, Safety
from graphweld.walk import iter_nodes


class Refused(Exception):
    """The loop is not one this rule rewrites; the message says why."""


class WhileToWhileLoop(Rule):
    """Turn a `while` loop on a tensor's value into `torch.while_loop`.

    ## What it fixes
    A `while` loop in a compiled region whose condition is a tensor (known from the code, or where
    a run saw Dynamo stop on data-dependent branching there, GB0170) and whose body only assigns
    names: an iteration to a fixed point, as kornia's Canny hysteresis (`while ((old -
    edges).abs() != 0).any(): old = edges; edges = step(edges)`), a convergence loop, a
    bisection.

    ## Why the graph breaks
    Each test of the condition needs the tensor's value, which Dynamo does not know while it
    builds the graph: it breaks at every test ("Data-dependent branching", GB0170), and the number of iterations is baked into nothing.
    `torch.while_loop` is the control-flow operator for this: the condition and the body are
    traced once as subgraphs and the loop runs inside the graph.

    ## Example
    ```python
    edges_old = -torch.ones_like(edges)
    while ((edges_old - edges).abs() != 0).any():
        edges_old = edges
        edges = hysteresis_step(edges, kernels)
    ```
    becomes
    ```python
    edges_old = -torch.ones_like(edges)

    def _edges_old_while_cond(edges_old, edges):
        return ((edges_old - edges).abs() != 0).any()

    def _edges_old_while_body(edges_old, edges):
        edges_old = edges
        edges = hysteresis_step(edges, kernels)
        return edges_old.clone(), edges.clone()

    edges_old, edges = torch.while_loop(_edges_old_while_cond, _edges_old_while_body, (edges_old, edges))
    ```
    The names the body assigns are carried from one iteration to the next (each returned as a copy:
    the body may not return its inputs as they are); other names it reads are closures.

    ## Safety
    Always unsafe, so only applied with `--unsafe-fixes`; verify with `fix --entry`. Run eagerly,
    `torch.while_loop` runs the same iterations. Compiled, every carried value must be a tensor
    (or an integer) that keeps its shape and dtype from one iteration to the next, the body must
    not change anything outside it, and the loop is not differentiable on torch 2.13 (a training
    step through it fails): where these do not hold, the compiled run fails and `fix --entry`
    drops the change. Taken only for a body of assignments to plain names (no `break`,
    `continue`, `return`, `else`, writes to attributes or items, `del`, nested definitions), whose
    names are all bound before the loop.
    """

    id = "while-to-while-loop"
    reference = "https://docs.pytorch.org/docs/stable/higher_order_ops/while_loop.html"
    summary = "Turn a `while` loop on a tensor's value into `torch.while_loop`"
    # The README's table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = (
        "a `while` loop on a tensor's value whose body only assigns names (kornia's Canny hysteresis, Newton "
        "iterations)"
    )
    rewrite = (
        "the condition and the body become nested functions of the names the body assigns, run by "
        "`torch.while_loop` (each carried value returned as a copy)"
    )
    default = "unsafe: compiled, carried values must keep their shapes and dtypes; not differentiable"
    trigger_words = ("while",)
    needs_breaker_call = False
    node_types = (cst.While,)

    def visit_While(self, node: cst.While) -> None:
        context = self.context
        function = context.current_function
        if function is None or not context.in_compiled_region:
            return
        values = context.function_values(function)
        if not (values.is_tensor(node.test) or context.branches_on_tensor_per_run(node)):
            return
        torch_name = context.regions.imports.local_name("torch")
        if torch_name is None:
            return
        try:
            replacement = _rewrite(node, function, values, torch_name, context.module)
        except Refused as refusal:
            if context.branches_on_tensor_per_run(node):
                self.report(node, f"loop on a tensor's value `while {context.code(node.test)}:` is not rewritten: {refusal}")
            return
        replacement[0] = replacement[0].with_changes(leading_lines=(*node.leading_lines, *replacement[0].leading_lines))
        message = (
            f"loop on a tensor's value `while {context.code(node.test)}:` breaks the graph at every test; run it "
            f"inside the graph with `{torch_name}.while_loop` (unsafe: compiled, the carried values must keep their "
            "shapes and dtypes)"
        )
        self.propose(node, replacement, anchor=node, message=message, safety=Safety.UNSAFE)


def _rewrite(node: cst.While, function: cst.FunctionDef, values, torch_name: str, module: cst.Module) -> list[cst.BaseStatement]:  # type: ignore[no-untyped-def]
    if node.orelse is not None:
        raise Refused("it has an `else`")
    if any(isinstance(n, cst.NamedExpr) for n in iter_nodes(node.test)):
        raise Refused("its condition assigns a name")
    statements = block_statements(node.body)
    carried: list[str] = []
    for statement in statements:
        assign = _assignment(statement)
        if assign is None:
            raise Refused(f"`{source(statement, module).strip()[:40]}` is not an assignment to plain names")
        for target in assign.targets:
            carried.extend(name for name in target_names(target.target) if name not in carried)
    if not carried:
        raise Refused("its body assigns no name")
    before = bound_outside(function, node)
    unbound = [name for name in carried if name not in before]
    if unbound:
        raise Refused(f"`{unbound[0]}` is not bound before the loop")
    cond_name, body_name = values.unused_names(f"_{carried[0]}_while_cond", f"_{carried[0]}_while_body")
    names = ", ".join(carried)
    body = "".join(f"    {line}\n" for s in statements for line in source(s, module).splitlines())
    copies = ", ".join(f"{name}.clone()" for name in carried)
    cond = cst.parse_statement(f"def {cond_name}({names}):\n    return {source(node.test, module)}\n")
    loop = cst.parse_statement(f"def {body_name}({names}):\n{body}    return {copies}{',' if len(carried) == 1 else ''}\n")
    targets = f"({names},)" if len(carried) == 1 else names
    operands = f"({names},)" if len(carried) == 1 else f"({names})"
    call = cst.parse_statement(f"{targets} = {torch_name}.while_loop({cond_name}, {body_name}, {operands})\n")
    blank = [cst.EmptyLine(indent=False)]
    first = [] if block_statements(function.body)[:1] == [node] else blank
    return [cond.with_changes(leading_lines=first), loop.with_changes(leading_lines=blank), call.with_changes(leading_lines=blank)]


def _assignment(statement: cst.BaseStatement) -> cst.Assign | None:
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        small = statement.body[0]
        if isinstance(small, cst.Assign) and all(binds_plain_names(target.target) for target in small.targets):
            return small
    return None
