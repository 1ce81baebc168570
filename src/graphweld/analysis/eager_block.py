"""Moving a run of a function's top-level statements into a module-level function that runs
eagerly (`torch.compiler.disable`): PyTorch's "Strategy 3: don't compile the code" for the part of
a function Dynamo cannot compile, where the rest of it (a layer's work) stays compiled. Names flow
in as arguments and out as the return value."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import libcst as cst

from graphweld.analysis.blocks import block_statements
from graphweld.analysis.scopes import bound_names, loaded_names, parameter_names
from graphweld.walk import iter_nodes

# What a moved statement may not hold: it would mean something else in another function.
_UNMOVABLE = (cst.Return, cst.Yield, cst.Await, cst.Global, cst.Nonlocal)


@dataclass(frozen=True)
class EagerBlock:
    """The new function and the statement that calls it in place of the run."""

    definition: cst.FunctionDef
    call: cst.SimpleStatementLine


def top_level_run(function: cst.FunctionDef, statements: Sequence[cst.CSTNode]) -> list[cst.BaseStatement]:
    """The shortest run of the function's top-level statements holding all the given statements
    (each, or a statement it is nested in); empty when one is not in the function's body."""
    body = block_statements(function.body)
    holding: list[int] = []
    for wanted in statements:
        for index, statement in enumerate(body):
            if statement is wanted or any(node is wanted for node in iter_nodes(statement)):
                holding.append(index)
                break
        else:
            return []
    return body[min(holding) : max(holding) + 1] if holding else []


def extended_run(
    function: cst.FunctionDef, run: list[cst.BaseStatement], movable: Callable[[cst.BaseStatement], bool]
) -> list[cst.BaseStatement]:
    """The run with the `movable` top-level statements after it, up to the last that reads what
    the statements before it bind: a run saw only the first break of a frame (Dynamo stops there),
    and the statements that go on computing from its values would each break a round later."""
    body = block_statements(function.body)
    end = next(index for index, statement in enumerate(body) if statement is run[-1]) + 1
    stretch = list(run)
    while end < len(body) and movable(body[end]):
        stretch.append(body[end])
        end += 1
    kept = len(run)
    for index in range(len(run), len(stretch)):
        if loaded_names([stretch[index]]) & bound_names(stretch[:index]):
            kept = index + 1
    return stretch[:kept]


def eager_block(
    function: cst.FunctionDef, run: Sequence[cst.BaseStatement], name: str, torch_name: str, forbidden: frozenset[str] = frozenset()
) -> EagerBlock | str:
    """The run of top-level statements as the function `name`, run eagerly, or why it cannot move:
    it returns, yields or declares names global, reads one of `forbidden` (a method's `self`,
    which would carry the module's work with it), or binds nothing read after it."""
    body = block_statements(function.body)
    start = next((index for index, statement in enumerate(body) if statement is run[0]), None)
    if start is None or body[start : start + len(run)] != list(run):
        return "the statements are not a run of the function's body"
    for statement in run:
        for node in iter_nodes(statement):
            if isinstance(node, _UNMOVABLE):
                return f"it holds a `{type(node).__name__.lower()}`"
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "super":
                return "it calls `super()`"
    read = loaded_names(run)
    if read & forbidden:
        return f"it reads `{sorted(read & forbidden)[0]}`"
    before = body[:start]
    after = body[start + len(run) :]
    inputs = tuple(sorted(read & (parameter_names(function) | bound_names(before))))
    outputs = tuple(sorted(bound_names(run) & loaded_names(after)))
    if not outputs:
        return "nothing it binds is read after it"
    returned = outputs[0] if len(outputs) == 1 else ", ".join(outputs)
    definition = cst.FunctionDef(
        name=cst.Name(name),
        params=cst.Parameters(params=[cst.Param(name=cst.Name(value)) for value in inputs]),
        body=cst.IndentedBlock(
            body=[
                cst.parse_statement(
                    f'"""Part of `{function.name.value}`, run eagerly by graphweld (eager-helper): it computes from tensor '
                    'values."""'
                ),
                *run,
                cst.parse_statement(f"return {returned}"),
            ]
        ),
        decorators=[cst.Decorator(decorator=cst.parse_expression(f"{torch_name}.compiler.disable"))],
        leading_lines=[cst.EmptyLine(), cst.EmptyLine()],
    )
    call = cst.parse_statement(f"{returned} = {name}({', '.join(inputs)})")
    assert isinstance(call, cst.SimpleStatementLine)
    call = call.with_changes(leading_lines=run[0].leading_lines)
    return EagerBlock(definition, call)
