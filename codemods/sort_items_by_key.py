"""sort-items-by-key: a dict's items are sorted by their keys alone."""

from __future__ import annotations

import libcst as cst

from graphweld.analysis.names import bare_method_call
from graphweld.analysis.tensors import FunctionValues
from graphweld.rule import Rule, Safety


_KEY = cst.Arg(
    keyword=cst.Name("key"),
    value=cst.parse_expression("lambda item: item[0]"),
    equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
)


class SortItemsByKey(Rule):
    """Sort a dict's items by their keys alone: `sorted(kwargs.items(), key=lambda item: item[0])`.

    ## What it fixes
    In a compiled region, `sorted(d.items())` where `d` is a dict: the function's `**kwargs`, or
    a name it binds once to a dict display, comprehension or `dict(...)`. linear_operator (under
    gpytorch) sorts a `LinearOperator`'s keyword arguments this way in its constructor, so every
    operator a model builds in its forward breaks the graph.

    ## Why the graph breaks
    Sorting pairs compares tuples, and Dynamo sorts only what it can compare as constants: with a
    tensor among the values it stops ("sort with non-constant keys", GB0207), although the
    values are never compared. With the key given, Dynamo compares the dict's keys, strings or
    numbers it knows, and sorts while it traces. Dynamo 2.14 sorts such items itself: on torch
    2.14 and later the rule still rewrites (the file then compiles whole on every torch graphweld
    admits) and its message says the installed torch does not need it.

    ## Example
    ```python
    def __init__(self, *args, **kwargs):
        for name, val in sorted(kwargs.items()):
            ...
    ```
    becomes
    ```python
    def __init__(self, *args, **kwargs):
        for name, val in sorted(kwargs.items(), key=lambda item: item[0]):
            ...
    ```

    ## Safety
    Safe: a dict's keys are distinct, so two items compare by their keys and Python never reaches
    the values; sorting by the keys gives the same order (and the same error, when keys of
    different types cannot be compared). Left alone: a receiver not known to be a dict (a mapping
    of another kind may repeat keys), a name bound again in the function, and a call that gives
    `key=` already.
    """

    id = "sort-items-by-key"
    reference = "https://docs.pytorch.org/docs/stable/compile/programming_model.graph_breaks_index.html"
    summary = "Sort a dict's items by their keys alone"
    # Dynamo 2.14 sorts `kwargs.items()` with tensors among the values (measured on 2.14.1).
    unneeded_from_torch = (2, 14)
    # The README's table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = (
        "`sorted(d.items())` where `d` is a dict (`**kwargs`, or a name bound once to a dict): tensors among "
        "the values stop Dynamo's sort (GB0207; linear_operator under gpytorch)"
    )
    rewrite = "`sorted(d.items(), key=lambda item: item[0])`"
    default = "safe: a dict's keys are distinct, so the values were never compared"
    trigger_words = ("sorted",)
    needs_breaker_call = False
    node_types = (cst.SimpleStatementLine, cst.For, cst.If, cst.While)

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self._rewrite(node, node, lambda new: new)

    def visit_For(self, node: cst.For) -> None:
        self._rewrite(node, node.iter, lambda new: node.with_changes(iter=new))

    def visit_If(self, node: cst.If) -> None:
        if id(node) not in self.context.elif_nodes:
            self._rewrite(node, node.test, lambda new: node.with_changes(test=new))

    def visit_While(self, node: cst.While) -> None:
        self._rewrite(node, node.test, lambda new: node.with_changes(test=new))

    def _rewrite(self, statement: cst.BaseStatement, part: cst.CSTNode, rebuild) -> None:  # type: ignore[no-untyped-def]
        function = self.context.current_function
        if function is None or not self.context.in_compiled_region:
            return
        calls = [node for node in self.context.calls_in(statement, part) if self._sorts_dict_items(node, function)]
        if not calls:
            return
        replaced = part.visit(_AddKey({id(call) for call in calls}))
        code = self.context.code(calls[0])
        message = (
            f"`{code}` compares (key, value) tuples, which Dynamo cannot do with tensors among the values; the keys "
            "alone decide the order: sort by them"
        )
        self.propose(statement, [rebuild(replaced)], anchor=calls[0], message=message, safety=Safety.SAFE)

    def _sorts_dict_items(self, node: cst.CSTNode, function: cst.FunctionDef) -> bool:
        if not (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Name)
            and node.func.value == "sorted"
            and len(node.args) >= 1
            and node.args[0].keyword is None
            and node.args[0].star == ""
            and all(arg.keyword is not None and arg.keyword.value == "reverse" for arg in node.args[1:])
        ):
            return False
        mapping = bare_method_call(node.args[0].value, "items")
        if not isinstance(mapping, cst.Name):
            return False
        return _is_dict(mapping.value, function, self.context.function_values(function))


def _is_dict(name: str, function: cst.FunctionDef, values: FunctionValues) -> bool:
    """The function's `**name`, or a name it binds once, to a dict display, comprehension or
    `dict(...)`, and never again."""
    star = function.params.star_kwarg
    if star is not None and star.name.value == name:
        return name not in values.bindings
    value = values.single_value(name)
    return isinstance(value, (cst.Dict, cst.DictComp)) or (
        isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "dict"
    )


class _AddKey(cst.CSTTransformer):
    def __init__(self, calls: set[int]) -> None:
        self.calls = calls

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if id(original_node) not in self.calls:
            return updated_node
        args = list(updated_node.args)
        first = args[0].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        rest = args[1:]
        if rest:
            return updated_node.with_changes(args=[first, _KEY.with_changes(comma=first.comma), *rest])
        return updated_node.with_changes(args=[first, _KEY])
