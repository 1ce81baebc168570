"""Lazy iterators made by builtins (`zip(...)`, `map(...)`, ...) and the names bound to them:
Dynamo can iterate them in a region, but not take them as a compiled function's input, nor
answer `hasattr` on some of them."""

from __future__ import annotations

from typing import Collection

import libcst as cst

from graphweld.walk import iter_nodes

# Builtins that make a lazy iterator, which Dynamo cannot take as an input.
LAZY_ITERATORS = frozenset(("zip", "map", "filter", "iter", "enumerate", "reversed"))


def is_iterator_call(value: cst.BaseExpression, makers: Collection[str] = LAZY_ITERATORS) -> bool:
    """Whether the expression is a call of one of the builtins `makers` (`zip(a, b)`)."""
    return isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value in makers


def as_list(value: cst.BaseExpression) -> cst.Call:
    """`list(value)`."""
    return cst.Call(func=cst.Name("list"), args=[cst.Arg(value)])


def iterators_bound_before(
    scope: cst.Module | cst.FunctionDef, statement: cst.BaseStatement, makers: Collection[str] = LAZY_ITERATORS
) -> set[str]:
    """The names bound to a lazy iterator earlier in the statement's block (the scope's top level)
    and not mentioned since: a use in the statement would be the first to consume them."""
    body = scope.body.body if isinstance(scope, cst.FunctionDef) and isinstance(scope.body, cst.IndentedBlock) else getattr(scope, "body", ())
    index = next((i for i, candidate in enumerate(body) if candidate is statement), None)
    if index is None:
        return set()
    found: set[str] = set()
    mentioned: set[str] = set()
    for previous in reversed(body[:index]):
        if isinstance(previous, cst.SimpleStatementLine) and len(previous.body) == 1 and isinstance(previous.body[0], cst.Assign):
            assign = previous.body[0]
            if is_iterator_call(assign.value, makers):
                found.update(
                    t.target.value for t in assign.targets if isinstance(t.target, cst.Name) and t.target.value not in mentioned
                )
        mentioned.update(node.value for node in iter_nodes(previous) if isinstance(node, cst.Name))
    return found
