"""A rule that rewrites calls inside the statements of a compiled region, in place.

Most of the graph-break registry's workarounds replace one call with another
(`copy.deepcopy(t)` -> `t.detach().clone()`, `t.random_(a, b)` -> a new tensor): a rule
subclasses `CallRewrite` and `Rule` (`class R(CallRewrite, Rule)`: the prefilter reads the facts
of a class whose last base is `Rule`), says for a call what replaces it, and the statement holding
the calls (a simple line, or a compound statement's header) is proposed with them replaced.
"""

from __future__ import annotations

from typing import Callable

import libcst as cst

from graphweld.rule import RuleContext, Safety


class CallRewrite:
    """A mixin before `Rule`. Subclasses define `replacement(call, statement)` (the expression that replaces a call, or
    None), `message(call, statement)` and `safety`."""

    node_types = (cst.SimpleStatementLine, cst.For, cst.If, cst.While, cst.With)
    safety: Safety = Safety.UNSAFE
    # Whether only calls inside a compiled region are rewritten (False: calls anywhere, such as
    # the eager calls into a compiled function).
    in_compiled_code_only: bool = True
    context: RuleContext

    def replacement(self, call: cst.Call, statement: cst.BaseStatement) -> cst.BaseExpression | None:
        raise NotImplementedError

    def message(self, call: cst.Call, statement: cst.BaseStatement) -> str:
        raise NotImplementedError

    def definitions(self) -> list[tuple[cst.CSTNode, list[cst.BaseStatement]]]:
        """Edits elsewhere in the module that the replaced calls need (a helper they call, defined
        after the imports), as `Rule.propose`'s `extra`; none by default."""
        return []

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self._rewrite(node, node, lambda new: new)

    def visit_For(self, node: cst.For) -> None:
        self._rewrite(node, node.iter, lambda new: node.with_changes(iter=new))

    def visit_If(self, node: cst.If) -> None:
        if id(node) not in self.context.elif_nodes:
            self._rewrite(node, node.test, lambda new: node.with_changes(test=new))

    def visit_While(self, node: cst.While) -> None:
        self._rewrite(node, node.test, lambda new: node.with_changes(test=new))

    def visit_With(self, node: cst.With) -> None:
        self._rewrite(node, cst.Tuple([cst.Element(item.item) for item in node.items]), None)

    def _rewrite(self, statement: cst.BaseStatement, part: cst.CSTNode, rebuild: Callable | None) -> None:  # type: ignore[type-arg]
        if self.in_compiled_code_only and (self.context.current_function is None or not self.context.in_compiled_region):
            return
        replaced: dict[int, cst.BaseExpression] = {}
        first: cst.Call | None = None
        for node in self.context.calls_in(statement, part):
            new = self.replacement(node, statement)
            if new is not None:
                replaced[id(node)] = new
                first = first or node
        if first is None:
            return
        if rebuild is None:  # a `with` header: its items are rebuilt one by one
            items = [item.with_changes(item=with_calls_replaced(item.item, replaced)) for item in statement.items]  # type: ignore[attr-defined]
            new_statement = statement.with_changes(items=items)
        else:
            new_statement = rebuild(with_calls_replaced(part, replaced))
        self.propose(  # type: ignore[attr-defined]
            statement, [new_statement], anchor=first, message=self.message(first, statement), safety=self.safety,
            extra=self.definitions(),
        )


def with_calls_replaced(node: cst.CSTNode, replaced: dict[int, cst.BaseExpression]) -> cst.CSTNode:
    """`node` with each call whose `id` is a key of `replaced` replaced by its value."""
    return node.visit(_Replace(replaced))


class _Replace(cst.CSTTransformer):
    def __init__(self, replaced: dict[int, cst.BaseExpression]) -> None:
        self.replaced = replaced

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        return self.replaced.get(id(original_node), updated_node)
