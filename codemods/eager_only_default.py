"""eager-only-default: a default built only when not compiling is built when compiling too."""

from __future__ import annotations

import libcst as cst

from graphweld.positions import node_spans
from graphweld.rule import Rule, Safety
from graphweld.analysis.scopes import loaded_names, target_names
from graphweld.walk import iter_nodes

# Calls that say whether the code runs under compilation (their last name): torch's, and the
# helpers libraries wrap them in (transformers' `is_torchdynamo_compiling`, `is_tracing`).
_COMPILING_CHECKS = frozenset(("is_compiling", "is_torchdynamo_compiling", "is_dynamo_compiling", "is_tracing"))


class EagerOnlyDefault(Rule):
    """Build a default for a missing argument when compiling too, as the eager program does.

    ## What it fixes
    `if attention_mask is None and not is_torchdynamo_compiling(): attention_mask = torch.ones(...)`
    (or `torch.compiler.is_compiling()`, `torch._dynamo.is_compiling()`, `is_tracing()`): a
    default built only when the code runs eagerly, where a run saw Dynamo break further on, on the
    way through a statement of the same function that reads the name. transformers writes it in
    18 modeling files; in LongT5 the mask left `None` under compilation reaches its local
    attention (`_split_into_blocks(None, ...)`), and in Pop2Piano (transformers 5.8) its encoder
    subscripts it (`attention_mask[:, None, None, :]`). The guard on compiling goes; the default
    is built in both modes.

    ## Why the graph breaks
    Under compilation the name stays `None` and the code after it fails on it while Dynamo
    traces (`'NoneType' object has no attribute 'shape'`). Dynamo sees the exception raised in
    traced code ("Observed exception", GB0088), gives up on the frame and runs it eagerly, where
    `is_torchdynamo_compiling()` is false and the default is built: the call works, but the
    frame (a whole encoder stack) runs without a graph, on every call.

    ## Example
    ```python
    if attention_mask is None and not is_torchdynamo_compiling():
        attention_mask = torch.ones(batch_size, mask_seq_length, device=inputs_embeds.device)
    ...
    causal_mask = _get_local_attention_mask(attention_mask, self.block_len, inputs_embeds.device)
    ```
    becomes
    ```python
    if attention_mask is None:
        attention_mask = torch.ones(batch_size, mask_seq_length, device=inputs_embeds.device)
    ```

    ## Safety
    Safe: the eager program is unchanged (the removed test was true there), and the compiled one
    now builds the same default the eager one builds, so it computes what the eager program
    computes. What the library skipped under compilation is a tensor the graph now makes (a mask
    of ones: an input-sized tensor and the masking it feeds). Only where a run saw a break on the
    way through a statement of the function that reads the name, after the `if`: elsewhere the
    library's `None` path may compile whole, and the rule leaves it alone. The `if` must test
    `NAME is None` and the compiling check, joined by `and`, and its body only bind names,
    `NAME` among them; an `elif` or `else` leaves it alone.
    """

    id = "eager-only-default"
    reference = "https://docs.pytorch.org/docs/stable/compile/programming_model.graph_breaks_index.html"
    summary = "Build a default for a missing argument when compiling too, as the eager program does"
    # The README's table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = (
        "`if x is None and not is_torchdynamo_compiling(): x = <default>` (or `torch.compiler.is_compiling()`), "
        "where a run saw a break further on through a statement reading `x` (LongT5's mask, Pop2Piano's)"
    )
    rewrite = "drop the compiling test: `if x is None: x = <default>`"
    default = "safe: eager is unchanged, and compiled builds the default eager builds"
    trigger_words = tuple(sorted(_COMPILING_CHECKS))
    needs_breaker_call = False
    fixes_from_callers = True
    node_types = (cst.If,)

    def visit_If(self, node: cst.If) -> None:
        context = self.context
        function = context.current_function
        if function is None or id(node) in context.elif_nodes or node.orelse is not None:
            return
        parts = _conjuncts(node.test)
        checks = [part for part in parts if _is_not_compiling(part)]
        tested = [name for part in parts if (name := _none_test(part)) is not None]
        if not checks or len(tested) != 1 or len(checks) + 1 != len(parts):
            return
        name = tested[0]
        if not _binds_only(node.body, name):
            return
        reader = self._reader_on_a_break(function, node, name)
        if reader is None:
            return
        test = next(part for part in parts if part not in checks)
        message = (
            f"`{context.code(node.test)}` builds `{name}` only when not compiling; compiled, `{name}` stays "
            "None and the code after it fails while Dynamo traces, so the frame runs eagerly: build it when "
            "compiling too"
        )
        self.propose(
            node, [node.with_changes(test=test)], anchor=checks[0], message=message, safety=Safety.SAFE, resolves=[reader]
        )

    def _reader_on_a_break(self, function: cst.FunctionDef, node: cst.If, name: str) -> cst.CSTNode | None:
        """The statement of the function after the `if` that reads `name` where a run saw a break,
        or a call on the way to one; None when there is none."""
        lines = self.context.evidence.stack_lines | self.context.evidence.break_lines
        if not lines or not isinstance(function.body, cst.IndentedBlock):
            return None
        # Simple statements reading the name, and compound ones reading it in their header (their
        # first line: a break further in their body is on a simple statement of its own).
        readers = [
            statement
            for statement in iter_nodes(function.body)
            if (isinstance(statement, cst.SimpleStatementLine) and name in loaded_names([statement]))
            or (isinstance(statement, (cst.If, cst.While)) and name in loaded_names([statement.test]))
            or (isinstance(statement, cst.For) and name in loaded_names([statement.iter]))
            or (isinstance(statement, cst.With) and name in loaded_names([item.item for item in statement.items]))
        ]
        spans = node_spans(self.context.module, [node, *readers], self.context.text)
        end = spans.get(id(node))
        if end is None:
            return None
        for statement in readers:
            span = spans.get(id(statement))
            if span is None or span.start_line <= end.end_line:
                continue
            last = span.end_line if isinstance(statement, cst.SimpleStatementLine) else span.start_line
            if any(span.start_line <= line <= last for line in lines):
                return statement
        return None


def _conjuncts(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return [*_conjuncts(test.left), *_conjuncts(test.right)]
    return [test]


def _is_not_compiling(part: cst.BaseExpression) -> bool:
    """`not is_torchdynamo_compiling()`, `not torch.compiler.is_compiling()`, ..."""
    if not (isinstance(part, cst.UnaryOperation) and isinstance(part.operator, cst.Not)):
        return False
    call = part.expression
    if not isinstance(call, cst.Call) or call.args:
        return False
    func = call.func
    last = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else None
    return last in _COMPILING_CHECKS


def _none_test(part: cst.BaseExpression) -> str | None:
    """NAME, for `NAME is None`."""
    if (
        isinstance(part, cst.Comparison)
        and isinstance(part.left, cst.Name)
        and len(part.comparisons) == 1
        and isinstance(part.comparisons[0].operator, cst.Is)
        and isinstance(part.comparisons[0].comparator, cst.Name)
        and part.comparisons[0].comparator.value == "None"
    ):
        return part.left.value
    return None


def _binds_only(body: cst.BaseSuite, name: str) -> bool:
    """Whether the body only assigns names (`NAME` among them)."""
    if not isinstance(body, cst.IndentedBlock):
        return False
    bound: set[str] = set()
    for statement in body.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            return False
        for small in statement.body:
            if isinstance(small, cst.Assign) and all(isinstance(t.target, cst.Name) for t in small.targets):
                bound |= {n for t in small.targets for n in target_names(t.target)}
            elif isinstance(small, cst.AnnAssign) and small.value is not None and isinstance(small.target, cst.Name):
                bound.add(small.target.value)
            else:
                return False
    return name in bound
