"""branch-to-cond: a branch on a tensor's value whose sides compute values becomes `torch.cond`."""

from __future__ import annotations

import libcst as cst

from graphweld.analysis.blocks import block_statements
from graphweld.cst_fast import source
from graphweld.rule import Rule, Safety
from graphweld.analysis.scopes import loaded_names, target_names
from graphweld.analysis.tensors import FunctionValues


class Refused(Exception):
    """The branch is not one this rule rewrites; the message says why."""


class BranchToCond(Rule):
    """Turn a branch on a tensor's value whose sides compute tensors into `torch.cond`.

    ## What it fixes
    An `if`/`else` in a compiled region whose condition is a tensor (known from the code, or
    where a run of the entry saw Dynamo stop on data-dependent branching, GB0170) and whose two
    sides only assign names, computing them differently (different statements, temporaries of
    their own). When the sides only select values, branch-to-where applies instead.

    ## Why the graph breaks
    Dynamo cannot decide a Python `if` on a value it does not know while it builds the graph: it
    breaks the graph or skips the frame ("Data-dependent branching", GB0170). `torch.cond` is the
    control-flow operator for this: both sides are traced as subgraphs and the condition picks one
    at run time, inside the graph.

    ## Example
    ```python
    total = torch.sum(x)
    if total > 0:
        scaled = x * 2
        out = scaled + y
    else:
        out = x - y.mean()
    ```
    becomes
    ```python
    total = torch.sum(x)

    def _out_if_true(x, y):
        scaled = x * 2
        out = scaled + y
        return out

    def _out_if_false(x, y):
        out = x - y.mean()
        return out

    out = torch.cond(total > 0, _out_if_true, _out_if_false, (x, y))
    ```
    The names both sides assign are the results (a tuple when there are several); the local names
    the sides read are passed as operands; a method's `self` and module-level names are read as
    closures.

    ## Safety
    Always unsafe, so only applied with `--unsafe-fixes`; verify with `fix --entry`, with inputs
    that take each side. Run eagerly, `torch.cond` calls exactly the side the condition picks, so
    the results are the branch's. Compiled, both sides are traced and must return tensors of the
    same shape and dtype, take tensors as operands and have one-element conditions; where they do
    not, compilation fails or breaks the graph instead of giving other values, and graphweld
    cannot check shapes or dtypes in the source. The rule takes only sides made of assignments to
    plain names whose values are known tensor operations on names, literals and constant indexes
    (no calls to other functions or modules, no I/O, no writes to attributes or items); a name
    assigned on one side only must not be read after the `if`.
    """

    id = "branch-to-cond"
    reference = "https://docs.pytorch.org/docs/stable/cond.html"
    summary = "Turn a branch on a tensor's value whose sides compute tensors into `torch.cond`"
    # The README's table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = (
        "an `if`/`else` on a tensor's value whose sides assign the same names by different computations "
        "(known tensor operations only, no calls to other functions or modules)"
    )
    rewrite = (
        "the sides become nested functions of the names they read, and `torch.cond(condition, if_true, "
        "if_false, operands)` assigns the results"
    )
    default = "unsafe: compiled, both sides must return tensors of the same shape and dtype"
    trigger_words = ("if",)
    needs_breaker_call = False
    generic_reports = True
    node_types = (cst.If,)

    def visit_If(self, node: cst.If) -> None:
        context = self.context
        decision = context.tensor_decision(node)
        if decision is None:
            return
        values, torch_name = decision
        function = context.current_function
        assert function is not None
        seen_by_run = context.branches_on_tensor_per_run(node)
        try:
            info = context.regions.function_info(function)
            params = function.params.params
            receiver = params[0].name.value if info is not None and info.cls is not None and params else None
            replacement = _rewrite(node, function, values, torch_name, context.module, receiver)
        except Refused as refusal:
            if seen_by_run:
                self.report(
                    node, f"branch on a tensor's value `if {context.code(node.test)}:` is not rewritten: {refusal}"
                )
            return
        replacement[0] = replacement[0].with_changes(leading_lines=(*node.leading_lines, *replacement[0].leading_lines))
        message = (
            f"branch on a tensor's value `if {context.code(node.test)}:` breaks the graph; take both sides into "
            f"the graph with `{torch_name}.cond` (unsafe: compiled, both sides must return tensors of the same "
            "shape and dtype)"
        )
        self.propose(node, replacement, anchor=node, message=message, safety=Safety.UNSAFE)


def _rewrite(
    node: cst.If,
    function: cst.FunctionDef,
    values: FunctionValues,
    torch_name: str,
    module: cst.Module,
    receiver: str | None,
) -> list[cst.BaseStatement]:
    if not isinstance(node.orelse, cst.Else):
        raise Refused("without `else` (or with `elif`), the sides do not both assign")
    reason = values.impurity(node.test)
    if reason:
        raise Refused(f"the condition is not a known tensor operation: {reason}")
    sides = [block_statements(node.body), block_statements(node.orelse.body)]
    assigned: list[list[str]] = []
    operands: list[str] = []
    for statements in sides:
        bound: list[str] = []
        for statement in statements:
            assign = _assignment(statement, module)
            reason = values.impurity(assign.value)
            if reason:
                raise Refused(f"a side computes something graphweld does not know to be pure: {reason}")
            for name in sorted(loaded_names([assign.value])):
                # The method's receiver (a module) is read as a closure; operands are tensors.
                if name in bound or not values.is_local(name) or name == receiver:
                    continue
                if name not in operands:
                    operands.append(name)
            for target in assign.targets:
                bound.extend(n for n in target_names(target.target) if n not in bound)
        assigned.append(bound)
    results = [name for name in assigned[0] if name in assigned[1]]
    if not results:
        raise Refused("the sides assign no name in common")
    one_sided = (set(assigned[0]) | set(assigned[1])) - set(results)
    read_elsewhere = loaded_names([function.body], skip=node) & one_sided
    if read_elsewhere:
        raise Refused(f"`{sorted(read_elsewhere)[0]}` is assigned on one side only and read elsewhere")

    condition = values.boolean_source(node.test, module, torch_name)
    names = values.unused_names(f"_{results[0]}_if_true", f"_{results[0]}_if_false")
    parameters = ", ".join(operands)
    returned = ", ".join(results)
    definitions = []
    for name, statements in zip(names, sides):
        body = "".join(f"    {line}\n" for s in statements for line in source(s, module).splitlines())
        definitions.append(cst.parse_statement(f"def {name}({parameters}):\n{body}    return {returned}\n"))
    operand_tuple = f"({parameters},)" if len(operands) == 1 else f"({parameters})"
    call = f"{torch_name}.cond({condition}, {names[0]}, {names[1]}, {operand_tuple})"
    assignment = cst.parse_statement(f"{returned} = {call}\n")
    blank = [cst.EmptyLine(indent=False)]
    # No blank line right after the function's own `def` line.
    first = [] if block_statements(function.body)[:1] == [node] else blank
    return [
        definitions[0].with_changes(leading_lines=first),
        definitions[1].with_changes(leading_lines=blank),
        assignment.with_changes(leading_lines=blank),
    ]


def _assignment(statement: cst.BaseStatement, module: cst.Module) -> cst.Assign:
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        small = statement.body[0]
        if isinstance(small, cst.Assign) and all(
            all(isinstance(element, cst.Name) for element in _elements(target.target)) for target in small.targets
        ):
            return small
    raise Refused(f"`{source(statement, module)[:40]}` is not an assignment to plain names")


def _elements(target: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(target, (cst.Tuple, cst.List)):
        return [element.value for element in target.elements]
    return [target]
