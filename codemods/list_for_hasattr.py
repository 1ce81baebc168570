"""list-for-hasattr: a helper that tests its argument with `hasattr` is given a list, not a lazy iterator."""

from __future__ import annotations

import libcst as cst

from graphweld.analysis.iterators import as_list, is_iterator_call, iterators_bound_before
from graphweld.analysis.scopes import SCOPE_TYPES
from graphweld.call_rewrite import CallRewrite
from graphweld.rule import Rule, Safety
from graphweld.walk import nodes_of_types

_CALL = frozenset({cst.Call})

# The lazy iterators Dynamo cannot answer `hasattr` on (measured on torch 2.13 and 2.15:
# `enumerate`, `reversed` and `iter` of a list answer it).
_OPAQUE = frozenset(("map", "filter", "zip"))


class ListForHasattr(CallRewrite, Rule):
    """Give a helper that tests its argument with `hasattr` a list instead of a lazy iterator, in a compiled region.

    ## What it fixes
    In a compiled region, a call of a function of the module (or one nested in the caller)
    whose argument is a `map(...)`, `filter(...)` or `zip(...)` iterator, written in the call
    or bound to a name just before and not used since, where the callee calls
    `hasattr(<that parameter>, ...)`: the duck-typing of collate and batching helpers
    (`if hasattr(values, "__len__")`), of converters that ask `hasattr(x, "shape")`. The
    argument becomes `list(...)`.

    ## Why the graph breaks
    Dynamo cannot inspect a lazy builtin iterator's attributes ("Unsupported hasattr call",
    GB0150): the graph breaks at the `hasattr`, and with `fullgraph=True` the compile fails. The
    registry page's workaround is to materialise the iterator into a list, which Dynamo answers
    `hasattr` on.

    ## Example
    ```python
    def collate(values):
        if hasattr(values, "__len__"):
            return torch.zeros(len(values))
        return torch.zeros(1)


    @torch.compile(fullgraph=True)
    def fn(x):
        doubled = map(lambda v: v * 2, [1.0, 2.0, 3.0])
        return x + collate(doubled).sum()
    ```
    becomes
    ```python
    def collate(values):
        if hasattr(values, "__len__"):
            return torch.zeros(len(values))
        return torch.zeros(1)


    @torch.compile(fullgraph=True)
    def fn(x):
        doubled = map(lambda v: v * 2, [1.0, 2.0, 3.0])
        return x + collate(list(doubled)).sum()
    ```

    ## Safety
    Unsafe, so only applied with `--unsafe-fixes`: the helper's `hasattr` may now answer
    otherwise (a list has `__len__`, a `map` has not), so it can take another branch, as the
    page's example does; the iterator's items are all made at the call, and the name is
    exhausted after it even where the helper did not consume it. Every change is verified by a
    run where there is one. Left alone: an iterator Dynamo answers `hasattr` on (`enumerate`,
    `reversed`, `iter`), a name used between its binding and the call, and a callee the module
    does not define.
    """

    id = "list-for-hasattr"
    reference = "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0150.html"
    summary = "Give a helper that tests its argument with `hasattr` a list instead of a lazy iterator, in a compiled region"
    # The docs' table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = "a `map`/`filter`/`zip` iterator passed in a compiled region to a helper that calls `hasattr` on it (GB0150)"
    rewrite = "`list(...)` of the iterator, at the call"
    default = "unsafe: the helper's `hasattr` may answer otherwise, and the iterator's items are all made at the call"
    trigger_words = ("hasattr",)
    needs_breaker_call = False
    safety = Safety.UNSAFE

    def replacement(self, call: cst.Call, statement: cst.BaseStatement) -> cst.BaseExpression | None:
        callee = self._callee(call)
        if callee is None:
            return None
        tested = _hasattr_parameters(callee)
        if not tested:
            return None
        iterators = iterators_bound_before(self.context.current_function or self.context.module, statement, _OPAQUE)
        positional = [*callee.params.posonly_params, *callee.params.params]
        changed = False
        args = []
        for index, arg in enumerate(call.args):
            parameter = arg.keyword.value if arg.keyword is not None else (positional[index].name.value if index < len(positional) else None)
            value = arg.value
            if not arg.star and parameter in tested and (
                is_iterator_call(value, _OPAQUE) or (isinstance(value, cst.Name) and value.value in iterators)
            ):
                arg, changed = arg.with_changes(value=as_list(value)), True
            args.append(arg)
        return call.with_changes(args=args) if changed else None

    def message(self, call: cst.Call, statement: cst.BaseStatement) -> str:
        return (
            f"`{self.context.code(call)}` passes a lazy iterator to a helper that tests it with `hasattr`, which Dynamo "
            "cannot answer on one (GB0150); pass `list(...)` of it (unsafe: the helper's `hasattr` may answer otherwise, "
            "and the items are all made at the call)"
        )

    def _callee(self, call: cst.Call) -> cst.FunctionDef | None:
        """The plain function a call by plain name calls: one nested in the caller (or an
        enclosing function), or the module's own; not a module instance's `forward`."""
        function = self.context.current_function
        if not isinstance(call.func, cst.Name) or function is None:
            return None
        found = self.context.regions.resolve_call(call, function)
        return found[0].node if len(found) == 1 and found[0].cls is None else None


def _hasattr_parameters(function: cst.FunctionDef) -> set[str]:
    """The parameters the function's own code calls `hasattr` on (`hasattr(values, "__len__")`)."""
    parameters = {param.name.value for param in (*function.params.posonly_params, *function.params.params, *function.params.kwonly_params)}
    tested: set[str] = set()
    for node in nodes_of_types(function.body, _CALL, SCOPE_TYPES):
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Name)
            and node.func.value == "hasattr"
            and node.args
            and isinstance(node.args[0].value, cst.Name)
            and node.args[0].value.value in parameters
        ):
            tested.add(node.args[0].value.value)
    return tested
