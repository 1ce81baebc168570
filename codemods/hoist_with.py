"""hoist-with: split a `with` block around a graph break that Dynamo cannot resume in."""

from __future__ import annotations

import libcst as cst

from graphweld.analysis.blocks import block_statements, compound_keyword, nested_breakers, split_at, with_statements
from graphweld.analysis.breakers import Breaker
from graphweld.rule import Rule, Safety
from graphweld.walk import iter_nodes

# Context managers that must not be entered twice: resources (a second `open` starts at offset
# 0), exception or output scopes (what they catch or redirect would change).
NOT_REENTERABLE = frozenset(
    {
        "open",
        "io.open",
        "contextlib.suppress",
        "contextlib.ExitStack",
        "contextlib.redirect_stdout",
        "contextlib.redirect_stderr",
        "tempfile.TemporaryDirectory",
        "tempfile.TemporaryFile",
        "tempfile.NamedTemporaryFile",
        "zipfile.ZipFile",
        "tarfile.open",
        "socket.socket",
        "subprocess.Popen",
        "warnings.catch_warnings",
    }
)


# A breaking statement, what breaks in it, and the node whose position reports it.
_Cut = tuple[cst.BaseStatement, Breaker, cst.CSTNode]


class HoistWith(Rule):
    """Split a `with` block around a graph break that Dynamo cannot resume in.

    ## What it fixes
    A graph-breaking statement (`torch._dynamo.graph_break()`, `print`, logging, ...) directly in
    the body of a `with` whose context manager Dynamo cannot resume in, inside a compiled region.
    Context managers Dynamo resumes in (`torch.no_grad`, `torch.enable_grad`,
    `torch.set_grad_enabled`, `torch.inference_mode`, `torch.autocast`, `contextlib.nullcontext`,
    profiler ranges, `sdpa_kernel`; extend with `resumable-context-managers`) are left alone, but a
    `with` of theirs nested in an unresumable one is split too, so the break leaves both.

    ## Why the graph breaks
    Dynamo can only resume tracing after a graph break when it can rebuild the state at the break.
    Inside most context managers it cannot, so it gives up on the whole frame and runs the
    function eagerly: nothing in it is compiled (PyTorch docs, "Skipped Functions").

    ## Example
    ```python
    @torch.compile
    def fn(x):
        with CustomCtxManager():
            x = x + 1
            torch._dynamo.graph_break()
            return x + 1
    ```
    becomes
    ```python
    @torch.compile
    def fn(x):
        with CustomCtxManager():
            x = x + 1
        torch._dynamo.graph_break()
        with CustomCtxManager():
            return x + 1
    ```

    ## Safety
    The context manager is entered once per piece and the breaking statement runs outside it.
    The fix is safe when the break is an explicit `graph_break()`/`skip_frame()` (it does nothing
    else), every context manager is created by a call (a fresh one per piece), and no `as` target
    is used after the break. It is unsafe when the breaking statement has effects that may observe
    the context (print or logging inside it), when the same context-manager object would be
    re-entered (`with ctx:`; a generator-based one cannot be), or when an `as` target is read
    after the break (it is bound to a new object). Context managers that must not be entered twice
    (`open`, `contextlib.suppress`, `redirect_stdout`, `ExitStack`, ...) are reported, not rewritten.
    """

    id = "hoist-with"
    reference = "https://docs.pytorch.org/docs/stable/compile/programming_model.skipped_functions.html"
    summary = "Split a `with` block around a graph break Dynamo cannot resume in"
    # The README's table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = "a graph-breaking statement directly inside a `with` whose context manager Dynamo cannot resume in"
    rewrite = "split the `with` around the break"
    default = (
        "safe for explicit breaks; unsafe when the break is I/O, an `as` target is read after it, or the same"
        " context-manager object would be re-entered"
    )
    trigger_words = ("with",)
    node_types = (cst.With,)

    def __init__(self, context) -> None:  # type: ignore[no-untyped-def]
        super().__init__(context)
        # Inner `with` statements already split as part of an enclosing one.
        self._covered: set[int] = set()
        # `with` blocks (at any nesting level) that would vanish: nothing but breaks inside.
        self._emptied: list[cst.With] = []

    def visit_With(self, node: cst.With) -> None:
        context = self.context
        if id(node) in self._covered or not context.in_compiled_region or node.asynchronous is not None:
            return
        if self._resumable(node):
            return
        cuts: list[_Cut] = []
        covered: list[cst.With] = []
        self._emptied = []
        pieces = self._split(node, cuts, covered)
        if pieces is None:
            self._report_nested(node)
            return
        self._covered.update(id(inner) for inner in covered)
        header = self._header(node)
        anchor = cuts[0][2]
        if self._emptied:
            self.report(
                anchor,
                f"every statement inside `{self._header(self._emptied[0])}` breaks the graph; splitting would remove "
                "the `with` and never enter the context manager, so it is not rewritten",
            )
            return
        refused = self._not_reenterable(node, covered)
        if refused is not None:
            self.report(
                anchor,
                f"graph break inside `{header}` is not rewritten: `{refused}(...)` must not be entered twice; "
                "move the breaking statement out of the block by hand",
            )
            return
        reasons = self._unsafe_reasons(node, covered, cuts)
        breaks = ", ".join(f"`{context.code(statement)}`" for statement, _, _ in cuts)
        message = (
            f"{breaks} inside `{header}`: Dynamo cannot resume in this context manager and skips the "
            f"whole frame; split the `with` around the break"
        )
        if reasons:
            message += f" (unsafe: {'; '.join(reasons)})"
        self.propose(
            node, pieces, anchor=anchor, message=message, safety=Safety.UNSAFE if reasons else Safety.SAFE
        )

    # -- the rewrite ----------------------------------------------------------------------------

    def _split(
        self, node: cst.With, cuts: list[_Cut], covered: list[cst.With]
    ) -> list[cst.BaseStatement] | None:
        """`node` as pieces around its breaking statements, or None when it has none at its top level.

        Nested `with` blocks (resumable or not) that hold a break at their own top level are split
        first, so the break comes out of every level.
        """
        catalog = self.context.breakers
        expanded: list[cst.BaseStatement] = []
        cut_ids: set[int] = set()
        for statement in block_statements(node.body):
            if isinstance(statement, cst.With) and statement.asynchronous is None:
                inner = self._split(statement, cuts, covered)
                if inner is not None:
                    covered.append(statement)
                    expanded.extend(inner)
                    cut_ids.update(id(cut) for cut, _, _ in cuts)
                    continue
            breaker = catalog.statement_breaker(statement)
            if breaker is not None:
                # A one-line suite's statements are rebuilt as lines, which have no source
                # position; the `with` itself is on that line.
                anchor = statement if isinstance(node.body, cst.IndentedBlock) else node
                cuts.append((statement, breaker, anchor))
                cut_ids.add(id(statement))
            expanded.append(statement)
        if not cut_ids:
            return None
        segments, breaking = split_at(expanded, lambda statement: id(statement) in cut_ids)
        if not any(segments):
            self._emptied.append(node)
        pieces: list[cst.BaseStatement] = []
        for index, segment in enumerate(segments):
            if segment:
                pieces.append(node.with_changes(body=with_statements(node.body, segment), leading_lines=()))
            if index < len(breaking):
                pieces.append(breaking[index])
        # Comments above the `with` stay above the first piece.
        pieces[0] = pieces[0].with_changes(leading_lines=(*node.leading_lines, *pieces[0].leading_lines))
        return pieces

    # -- checks ---------------------------------------------------------------------------------

    def _resumable(self, node: cst.With) -> bool:
        return all(self.context.breakers.is_resumable(item) for item in node.items)

    def _not_reenterable(self, node: cst.With, covered: list[cst.With]) -> str | None:
        imports = self.context.regions.imports
        for with_node in (node, *covered):
            for item in with_node.items:
                if isinstance(item.item, cst.Call):
                    name = imports.qualify(item.item.func)
                    if name in NOT_REENTERABLE:
                        return name
        return None

    def _unsafe_reasons(
        self,
        node: cst.With,
        covered: list[cst.With],
        cuts: list[_Cut],
    ) -> list[str]:
        reasons: list[str] = []
        effects = sorted({breaker.name for _, breaker, _ in cuts if breaker.has_side_effects})
        if effects:
            reasons.append(f"{', '.join(f'`{name}`' for name in effects)} would run outside the context manager")
        reused = [
            self.context.code(item.item)
            for with_node in (node, *covered)
            for item in with_node.items
            if not isinstance(item.item, cst.Call)
        ]
        if reused:
            reasons.append(f"the same context-manager object {', '.join(f'`{r}`' for r in reused)} would be re-entered")
        targets = {
            name.value
            for with_node in (node, *covered)
            for item in with_node.items
            if item.asname is not None
            for name in _names_in(item.asname.name)
        }
        first_cut = cuts[0][0]
        read_after = {name.value for statement in _after(node, first_cut) for name in _names_in(statement)}
        used_later = sorted(targets & read_after)
        if used_later:
            reasons.append(
                f"{', '.join(f'`{name}`' for name in used_later)} would be bound to a new object after the break"
            )
        return reasons

    def _report_nested(self, node: cst.With) -> None:
        """Breaks deeper in the block (inside an `if`, a loop, ...) are reported, not rewritten."""
        header = self._header(node)
        skip_inner = lambda inner: isinstance(inner, (cst.With, cst.Try)) and not (  # noqa: E731
            isinstance(inner, cst.With) and self._resumable(inner)
        )
        for statement, _, holder in nested_breakers(block_statements(node.body), self.context.breakers, skip_inner):
            self.report(
                statement,
                f"`{self.context.code(statement)}` inside `{compound_keyword(holder)}` in `{header}` is not at the "
                "top level of the block and is not rewritten; Dynamo skips the whole frame here",
            )

    def _header(self, node: cst.With) -> str:
        code = self.context.code
        items = ", ".join(
            code(item.item) + (f" as {code(item.asname.name)}" if item.asname is not None else "") for item in node.items
        )
        return f"with {items}:"


def _after(node: cst.With, first_cut: cst.BaseStatement) -> list[cst.CSTNode]:
    """What runs after `first_cut` inside `node`: later statements, through nested `with` blocks.

    The `as` targets of the nested blocks are left out; their context expressions are kept.
    """
    found: list[cst.CSTNode] = []
    seen_cut = False

    def walk(with_node: cst.With) -> None:
        nonlocal seen_cut
        for statement in block_statements(with_node.body):
            if statement is first_cut:
                seen_cut = True
            elif isinstance(statement, cst.With) and statement.asynchronous is None:
                if seen_cut:
                    found.extend(item.item for item in statement.items)
                walk(statement)
            elif seen_cut:
                found.append(statement)

    walk(node)
    return found


def _names_in(node: cst.CSTNode) -> list[cst.Name]:
    return [current for current in iter_nodes(node) if isinstance(current, cst.Name)]
