"""hoist-try: split a `try` block around a graph break, duplicating its handlers."""

from __future__ import annotations

import libcst as cst

from graphweld.analysis.blocks import block_statements, compound_keyword, nested_breakers, split_at, terminates, with_statements
from graphweld.rule import Rule, Safety


class HoistTry(Rule):
    """Split a `try` block around a graph break, duplicating its handlers.

    ## What it fixes
    A graph-breaking statement (`torch._dynamo.graph_break()`, `print`, logging, ...) directly in
    the body of a `try` inside a compiled region.

    ## Why the graph breaks
    Dynamo cannot resume tracing after a graph break inside a `try` block, so it skips the whole
    frame and runs the function eagerly: nothing in it is compiled (PyTorch docs, "Skipped
    Functions").

    ## Example
    ```python
    @torch.compile
    def fn(x):
        try:
            x = x + 1
            torch._dynamo.graph_break()
            return x + 1
        except Exception as e:
            pass
    ```
    becomes
    ```python
    @torch.compile
    def fn(x):
        try:
            x = x + 1
        except Exception as e:
            pass
        torch._dynamo.graph_break()
        try:
            return x + 1
        except Exception as e:
            pass
    ```
    The `else:` clause goes with the last piece (or follows the last break when nothing is left
    after it).

    ## Safety
    Safe when every handler ends in `raise`, `return`, `break` or `continue` and the break is an
    explicit `graph_break()`/`skip_frame()`, which cannot raise: then an exception in any piece
    leaves the block exactly as before. Otherwise unsafe: after a handler that falls through, the
    code after the break now runs where it used to be skipped (the PyTorch docs' own example is
    of this kind), and an exception raised by a breaking call such as `print` is no longer caught.
    A `try` with a `finally:` clause is reported and never rewritten: the `finally` block would run
    once per piece. `try`/`except*` is left alone.
    """

    id = "hoist-try"
    reference = "https://docs.pytorch.org/docs/stable/compile/programming_model.skipped_functions.html"
    summary = "Split a `try` block around a graph break, duplicating its handlers"
    # The README's table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = "a graph-breaking statement directly inside a `try` body"
    rewrite = "split the `try` around the break, duplicating the handlers"
    default = (
        "safe when every handler ends in `raise`/`return`/`break`/`continue` and the break is explicit; a "
        "`try` with `finally` is reported, never rewritten"
    )
    trigger_words = ("try",)
    node_types = (cst.Try,)

    def visit_Try(self, node: cst.Try) -> None:
        context = self.context
        if not context.in_compiled_region:
            return
        statements = block_statements(node.body)
        breakers = {id(statement): context.breakers.statement_breaker(statement) for statement in statements}
        cut_statements = [statement for statement in statements if breakers[id(statement)] is not None]
        if not cut_statements:
            self._report_nested(statements)
            return
        # A one-line suite's statements are rebuilt as lines without positions; the `try` is there.
        anchor = cut_statements[0] if isinstance(node.body, cst.IndentedBlock) else node
        if node.finalbody is not None:
            self.report(
                anchor,
                f"graph break `{context.code(cut_statements[0])}` inside `try` is not rewritten: splitting it "
                "would run the `finally` block once per piece",
            )
            return
        segments, cuts = split_at(statements, lambda statement: breakers[id(statement)] is not None)
        if not any(segments):
            # The handlers exist to guard the breaking call itself (`try: x = input() except EOFError`).
            self.report(
                anchor,
                f"every statement of this `try` body breaks the graph (`{context.code(cut_statements[0])}`); "
                "splitting would drop the handlers that guard it, so it is not rewritten",
            )
            return
        pieces: list[cst.BaseStatement] = []
        for index, segment in enumerate(segments):
            is_last = index == len(segments) - 1
            if segment:
                pieces.append(
                    node.with_changes(
                        body=with_statements(node.body, segment),
                        orelse=node.orelse if is_last else None,
                        leading_lines=(),
                    )
                )
            elif is_last and node.orelse is not None:
                # Nothing left to guard: the else block simply follows the last break.
                pieces.extend(block_statements(node.orelse.body))
            if index < len(cuts):
                pieces.append(cuts[index])
        pieces[0] = pieces[0].with_changes(leading_lines=(*node.leading_lines, *pieces[0].leading_lines))

        reasons: list[str] = []
        falling_through = [
            context.code(handler.type) if handler.type is not None else "bare except"
            for handler in node.handlers
            if not terminates(block_statements(handler.body))
        ]
        if falling_through:
            reasons.append(
                f"handler `except {', '.join(falling_through)}` does not end in raise/return, so after an "
                "exception the code after the break would now run"
            )
        effects = sorted({b.name for b in breakers.values() if b is not None and b.has_side_effects})
        if effects:
            reasons.append(f"an exception from {', '.join(f'`{name}`' for name in effects)} would no longer be caught")
        breaks = ", ".join(f"`{context.code(statement)}`" for statement in cut_statements)
        message = (
            f"{breaks} inside `try`: Dynamo cannot resume in a `try` block and skips the whole frame; "
            "split the `try` around the break"
        )
        if reasons:
            message += f" (unsafe: {'; '.join(reasons)})"
        self.propose(node, pieces, anchor=anchor, message=message, safety=Safety.UNSAFE if reasons else Safety.SAFE)

    def _report_nested(self, statements: list[cst.BaseStatement]) -> None:
        """Breaks deeper in the block (inside an `if`, a loop, ...) are reported, not rewritten."""
        resumable = self.context.breakers.is_resumable

        def skip_inner(inner: cst.CSTNode) -> bool:
            # Inner `try` and unresumable `with` blocks report their own breaks.
            if isinstance(inner, cst.With):
                return not all(resumable(item) for item in inner.items)
            return isinstance(inner, cst.Try)

        for statement, _, holder in nested_breakers(statements, self.context.breakers, skip_inner):
            self.report(
                statement,
                f"`{self.context.code(statement)}` inside `{compound_keyword(holder)}` in a `try` block is not at "
                "the top level of the block and is not rewritten; Dynamo skips the whole frame here",
            )
