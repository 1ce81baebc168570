"""Lazy iterators made by builtins (`zip(...)`, `map(...)`, ...), generators, and the names bound
to them: Dynamo can iterate them in a region, but not take them as a compiled function's input,
nor answer `hasattr` on some of them, nor hand them to `torch.autograd.grad`."""

from __future__ import annotations

from typing import Callable, Collection, Sequence

import libcst as cst

from graphweld.walk import iter_nodes

# Builtins that make a lazy iterator, which Dynamo cannot take as an input.
LAZY_ITERATORS = frozenset(("zip", "map", "filter", "iter", "enumerate", "reversed"))


def is_iterator_call(value: cst.BaseExpression, makers: Collection[str] = LAZY_ITERATORS) -> bool:
    """Whether the expression is a call of one of the builtins `makers` (`zip(a, b)`)."""
    return isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value in makers


# Methods that return a generator or a view rather than a sequence: a module's `parameters()`
# and `buffers()`, a dict's `values()`.
LAZY_METHODS = frozenset(("parameters", "buffers", "values"))
# Functions of the standard library that return a lazy iterator, by qualified name.
LAZY_FUNCTIONS = frozenset(("itertools.chain", "itertools.chain.from_iterable", "itertools.islice"))


def is_lazy_iterable(value: cst.BaseExpression, qualify: Callable[[cst.BaseExpression], str | None]) -> bool:
    """Whether the expression makes a generator or a lazy iterator, not a sequence: a generator
    expression, a lazy builtin's call (`filter(...)`), `itertools.chain(...)` (`qualify` resolves
    the module's imports), or a call of one of LAZY_METHODS (`model.parameters()`)."""
    if isinstance(value, cst.GeneratorExp) or is_iterator_call(value):
        return True
    if not isinstance(value, cst.Call):
        return False
    if isinstance(value.func, cst.Attribute) and value.func.attr.value in LAZY_METHODS:
        return True
    return qualify(value.func) in LAZY_FUNCTIONS


def as_list(value: cst.BaseExpression) -> cst.Call:
    """`list(value)`."""
    return cst.Call(func=cst.Name("list"), args=[cst.Arg(value)])


def iterators_bound_before(
    scope: cst.Module | cst.FunctionDef,
    statement: cst.BaseStatement,
    makers: Collection[str] = LAZY_ITERATORS,
    lazy: Callable[[cst.BaseExpression], bool] | None = None,
) -> set[str]:
    """The names bound to a lazy iterator (a call of one of `makers`, or any value `lazy` says is
    one) earlier in the block of the scope that holds the statement (its top level, or a `with`
    or `if` block in it) and not mentioned since: a use in the statement would be the first to
    consume them."""
    lazy = lazy or (lambda value: is_iterator_call(value, makers))
    body = _block_holding(scope, statement)
    index = next((i for i, candidate in enumerate(body) if candidate is statement), None)
    if index is None:
        return set()
    found: set[str] = set()
    mentioned: set[str] = set()
    for previous in reversed(body[:index]):
        if isinstance(previous, cst.SimpleStatementLine) and len(previous.body) == 1 and isinstance(previous.body[0], cst.Assign):
            assign = previous.body[0]
            if lazy(assign.value):
                found.update(
                    t.target.value for t in assign.targets if isinstance(t.target, cst.Name) and t.target.value not in mentioned
                )
        mentioned.update(node.value for node in iter_nodes(previous) if isinstance(node, cst.Name))
    return found


def _block_holding(scope: cst.Module | cst.FunctionDef, statement: cst.BaseStatement) -> Sequence[cst.BaseStatement]:
    """The statements of the block of `scope` that holds `statement`; empty when none does."""
    if isinstance(scope, cst.Module):
        if any(candidate is statement for candidate in scope.body):
            return scope.body
    for node in iter_nodes(scope):
        if isinstance(node, cst.IndentedBlock) and any(candidate is statement for candidate in node.body):
            return node.body
    return ()
