"""Which rules run and how: the rules the settings select, one walk of the tree that runs them
all, and their precedence when two rules' changes overlap."""

from __future__ import annotations

from typing import Callable, Iterable, Sequence

import libcst as cst

from graphweld.changes import Change
from graphweld.codemods import RULES, RULES_BY_ID
from graphweld.rule import Rule, RuleContext
from graphweld.settings import Settings
from graphweld.walk import walk


class RuleSelectionError(ValueError):
    pass


def selected_rules(settings: Settings) -> tuple[type[Rule], ...]:
    """The rules the settings select, in registry order; unknown ids are an error."""
    for rule_id in (*settings.select, *settings.ignore):
        if rule_id != "ALL" and rule_id not in RULES_BY_ID:
            raise RuleSelectionError(f"unknown rule id '{rule_id}' (known: {', '.join(RULES_BY_ID)})")
    chosen = RULES if not settings.select or "ALL" in settings.select else tuple(
        rule for rule in RULES if rule.id in settings.select
    )
    return tuple(rule for rule in chosen if rule.id not in settings.ignore)


class RuleDispatcher:
    """Runs every rule in one walk and keeps the stack of enclosing functions.

    Functions that are neither compiled regions nor hold one are not entered; neither are
    expressions when every rule asks only for statements, nor lines of simple statements when
    no rule asks for what is inside them.
    """

    def __init__(self, context: RuleContext, rules: Sequence[Rule]) -> None:
        self.context = context
        self.handlers: dict[type, list[Callable[[cst.CSTNode], None]]] = {}
        for rule in rules:
            for node_type in rule.node_types:
                self.handlers.setdefault(node_type, []).append(getattr(rule, f"visit_{node_type.__name__}"))
        self.statements_only = all(
            issubclass(node_type, (cst.BaseStatement, cst.BaseSmallStatement)) for node_type in self.handlers
        )
        # Nothing inside a line of simple statements is asked for unless a rule visits those.
        self.lines_are_leaves = self.statements_only and not any(
            issubclass(node_type, cst.BaseSmallStatement) for node_type in self.handlers
        )

    def run(self, module: cst.Module) -> None:
        walk(module, self._enter, self._leave, skip_expressions=self.statements_only)

    def _enter(self, node: cst.CSTNode) -> bool:
        if type(node) is cst.FunctionDef:
            if not self.context.regions.worth_entering(node):
                return False
            self.context.function_stack.append(node)
        if type(node) is cst.If and type(node.orelse) is cst.If:
            # An `elif` is the `orelse` of its `if`: it cannot be replaced by statements.
            self.context.elif_nodes.add(id(node.orelse))
        for handler in self.handlers.get(type(node), ()):
            handler(node)
        return not (self.lines_are_leaves and type(node) is cst.SimpleStatementLine)

    def _leave(self, node: cst.CSTNode) -> None:
        stack = self.context.function_stack
        if stack and stack[-1] is node:
            stack.pop()


# Where each rule stands among the rules (registry order): of two changes to the same code, the
# one of the earlier rule is applied.
_PRECEDENCE = {rule.id: index for index, rule in enumerate(RULES)}


def precedence(rule_id: str) -> int:
    """Where a rule stands among the rules (registry order; after them all, one not registered)."""
    return _PRECEDENCE.get(rule_id, len(RULES))


def offer_order(change: Change) -> tuple[int, int, int]:
    """The order a person is offered changes in (the review, the language server's quick fixes):
    by place, and at one place the change `fix` would apply first."""
    return change.location.line, change.location.column, precedence(change.rule)


def non_overlapping(changes: Iterable[Change]) -> list[Change]:
    """A greedy choice of changes whose edits do not overlap: by rule precedence (registry
    order), then earliest (and, at the same line, outermost) first."""
    chosen: list[Change] = []
    key = lambda c: (precedence(c.rule), c.edits[0].start_line, -c.edits[-1].end_line)  # noqa: E731
    for change in sorted(changes, key=key):
        if not any(change.overlaps(other) for other in chosen):
            chosen.append(change)
    return chosen
