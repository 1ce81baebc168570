"""one-hot-fixed-classes: a one-hot sized by its indices' maximum, then cut to a length, is made at that length."""

from __future__ import annotations

from typing import Callable

import libcst as cst

from graphweld.analysis.scopes import own_statements
from graphweld.rule import Rule, Safety
from graphweld.walk import iter_nodes

_ONE_HOT = frozenset(("torch.nn.functional.one_hot", "torch.one_hot"))
# Expressions that take `.clamp(...)` or `+ 1` without parentheses.
_ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer)


class OneHotFixedClasses(Rule):
    """Make a one-hot cut to a length at that length, not at its indices' maximum.

    ## What it fixes
    In a compiled function, `F.one_hot(indexes, max(bound, length))[..., :length]`, where the
    class count is Python's `max` of something taken from the indices (`indexes.max() + 1`) and
    the length the result is cut to, written in the call or through a local bound to it: the
    "safe one-hot" of mixture-of-experts layers ported from Mesh TensorFlow (lucidrains'
    mixture-of-experts and ST-MoE), whose positions past an expert's capacity must give a row of
    zeros rather than an error.

    ## Why the graph breaks
    The class count is the indices' maximum, a value only the data has: the one-hot's shape
    depends on it, and Python's `max` decides on the tensor. Dynamo stops there ("Data dependent
    operator", GB0033, or "Data-dependent branching", GB0170) at every call, inside the gate of
    every layer.

    ## Example
    ```python
    def safe_one_hot(indexes, max_length):
        max_index = indexes.max() + 1
        return F.one_hot(indexes, max(max_index + 1, max_length))[..., :max_length]
    ```
    becomes
    ```python
    def safe_one_hot(indexes, max_length):
        return F.one_hot(indexes.clamp(max=max_length), max_length + 1)[..., :max_length]
    ```
    An index at or past the length becomes the length itself, whose column is cut off: its row
    is zeros, as before, and every shape is known while tracing. Locals that only fed the class
    count (`max_index`, `one_hot_classes`) go with it.

    ## Safety
    Safe: wherever the original returns, the result is the same tensor (values, dtype, shape).
    Where it raised, because the class count was not above every index (a bound not taken from
    the indices), the rewrite returns zeros for the indices past the length instead; a negative
    index raises in both. The indices' maximum is no longer computed, so an empty tensor of
    indices gives an empty one-hot instead of an error from `max()`. Left alone: a class count
    that is not `max(..., length)` with the same `length` as the cut, a cut other than `[...,
    :length]`, and a local bound more than once or read elsewhere. Reported, not rewritten:
    `F.one_hot(labels)` without `num_classes` (or with `-1`), which breaks the graph too (GB0246,
    its output's shape decided by the largest label); an explicit class count changes the
    output's shape unless it equals the largest label + 1, so the message gives the registry's
    advice instead.
    """

    id = "one-hot-fixed-classes"
    reference = "https://docs.pytorch.org/docs/stable/compile/programming_model.graph_breaks_index.html"
    summary = "Make a one-hot cut to a length at that length, not at its indices' maximum"
    # The README's table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = (
        "`F.one_hot(i, max(i.max() + 1, n))[..., :n]` in a compiled function, the class count written in the call or "
        "through a local (the safe one-hot of mixture-of-experts gates)"
    )
    rewrite = "`F.one_hot(i.clamp(max=n), n + 1)[..., :n]`, and drop the locals that only fed the class count"
    default = "safe"
    trigger_words = ("one_hot",)
    needs_breaker_call = False
    # Calls, not functions: the scan looks at a function only when it calls `one_hot`.
    node_types = (cst.Call,)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else None
        if name == "one_hot":
            function = self.compiled_function_once()
            if function is not None:
                self._fix_function(function)

    def _fix_function(self, node: cst.FunctionDef) -> None:
        context = self.context
        statements = own_statements(node)
        values = context.function_values(node)
        # The line of each plain `name = value`, by its value: a name bound once is removed whole.
        lines = {
            id(line.body[0].value): line
            for line in statements
            if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 and isinstance(line.body[0], cst.Assign)
        }

        def assignment(name: str) -> cst.SimpleStatementLine | None:
            """The line binding `name`, when the function binds it once, by a plain assignment."""
            value = values.single_value(name)
            return lines.get(id(value)) if value is not None else None

        for statement in statements:
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            self._report_unsized(statement)
            for cut in iter_nodes(statement):
                found = self._cut_one_hot(cut, assignment)
                if found is None:
                    continue
                call, indexes, length, classes = found
                rewritten = cut.with_changes(value=call.with_changes(args=[
                    call.args[0].with_changes(value=_clamped(indexes, length)),
                    call.args[1].with_changes(value=cst.BinaryOperation(_atom(length), cst.Add(), cst.Integer("1"))),
                ]))
                new_statement = statement.deep_replace(cut, rewritten)
                dead = _dead_assignments(node, assignment, statement, classes)
                if isinstance(classes, cst.Name) and assignment(classes.value) not in dead:
                    continue  # the local is read elsewhere: its `max` would still decide on the tensor
                message = (
                    f"`{context.code(cut)}` sizes a one-hot by its indices' maximum, which Dynamo does not know "
                    f"(GB0033); make it at the length it is cut to: `{context.code(rewritten)}`"
                )
                self.propose(
                    statement, [new_statement], anchor=statement, message=message, safety=Safety.SAFE,
                    extra=[(dead_statement, []) for dead_statement in dead],
                )  # fmt: skip
                break

    def _report_unsized(self, statement: cst.SimpleStatementLine) -> None:
        """Report each `F.one_hot(labels)` without a class count: no rewrite keeps its shape."""
        for call in iter_nodes(statement):
            if not isinstance(call, cst.Call) or self.context.regions.imports.qualify(call.func) != "torch.nn.functional.one_hot":
                continue
            count = next((arg for arg in call.args[1:2] if arg.keyword is None), None) or next(
                (arg for arg in call.args if arg.keyword is not None and arg.keyword.value == "num_classes"), None
            )
            unsized = count is None or (
                isinstance(count.value, cst.UnaryOperation) and isinstance(count.value.operator, cst.Minus)
                and isinstance(count.value.expression, cst.Integer) and count.value.expression.value == "1"
            )
            if unsized and not any(arg.star for arg in call.args):
                self.report(call, (
                    f"`{self.context.code(call)}` has no `num_classes`: its last dimension is the largest label + 1, which "
                    "Dynamo does not know while tracing (GB0246); not rewritten, as a fixed `num_classes` changes the output's "
                    "shape unless it equals the largest label + 1: pass the class count the labels range over "
                    "(`num_classes=N`), as the registry's page advises, if that is the shape the code means"
                ))

    def _cut_one_hot(
        self, node: cst.CSTNode, assignment: Callable[[str], cst.SimpleStatementLine | None]
    ) -> tuple[cst.Call, cst.BaseExpression, cst.BaseExpression, cst.BaseExpression] | None:
        """For `one_hot(i, K)[..., :n]` with K `max(x, n)` (or a local bound once to it): the call,
        `i`, `n` and the class count as written in the call."""
        if not isinstance(node, cst.Subscript) or not isinstance(node.value, cst.Call) or len(node.slice) != 2:
            return None
        call = node.value
        if self.context.regions.imports.qualify(call.func) not in _ONE_HOT or len(call.args) != 2:
            return None
        if any(arg.star or (arg.keyword is not None and arg.keyword.value not in ("tensor", "num_classes")) for arg in call.args):
            return None
        if call.args[0].keyword is not None and call.args[0].keyword.value != "tensor":
            return None
        ellipsis, cut = (element.slice for element in node.slice)
        if not (isinstance(ellipsis, cst.Index) and isinstance(ellipsis.value, cst.Ellipsis)):
            return None
        if not isinstance(cut, cst.Slice) or cut.lower is not None or cut.step is not None or cut.upper is None:
            return None
        length = cut.upper
        classes = call.args[1].value
        count = classes
        line = assignment(count.value) if isinstance(count, cst.Name) else None
        if line is not None:
            count = line.body[0].value  # type: ignore[attr-defined]
        if not (isinstance(count, cst.Call) and isinstance(count.func, cst.Name) and count.func.value == "max"):
            return None
        if len(count.args) != 2 or any(arg.star or arg.keyword is not None for arg in count.args):
            return None
        if not any(arg.value.deep_equals(length) for arg in count.args):
            return None
        return call, call.args[0].value, length, classes


def _dead_assignments(
    function: cst.FunctionDef,
    assignment: Callable[[str], cst.SimpleStatementLine | None],
    changed: cst.SimpleStatementLine,
    classes: cst.BaseExpression,
) -> list[cst.SimpleStatementLine]:
    """The lines binding a local once that only fed the class count: the local is read nowhere
    but in the class count (or in another such line), so the line goes with it."""
    removed_reads = [classes]
    dead: list[cst.SimpleStatementLine] = []
    while removed_reads:
        expression = removed_reads.pop()
        for name in {n.value for n in iter_nodes(expression) if isinstance(n, cst.Name)}:
            place = assignment(name)
            if place is None or place in dead or place is changed:
                continue
            excluded = [classes, *(d.body[0] for d in dead), place.body[0].targets[0]]  # type: ignore[attr-defined]
            if _reads(function, name, excluded):
                continue
            dead.append(place)
            removed_reads.append(place.body[0].value)  # type: ignore[attr-defined]
    return dead


def _reads(function: cst.FunctionDef, name: str, excluded: list[cst.CSTNode]) -> bool:
    """Whether `name` is read in the function outside the excluded nodes."""
    skip = {id(node) for root in excluded for node in iter_nodes(root)}
    return any(isinstance(node, cst.Name) and node.value == name and id(node) not in skip for node in iter_nodes(function.body))


def _atom(expression: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(expression, _ATOMS) or expression.lpar:
        return expression
    return expression.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _clamped(indexes: cst.BaseExpression, length: cst.BaseExpression) -> cst.Call:
    """`indexes.clamp(max=length)`."""
    return cst.Call(
        func=cst.Attribute(value=_atom(indexes), attr=cst.Name("clamp")),
        args=[cst.Arg(value=length, keyword=cst.Name("max"), equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))],
    )
