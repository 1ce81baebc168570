"""eager-progress-bar: a loop's progress bar (tqdm) wraps its iterable only when running eagerly."""

from __future__ import annotations

import libcst as cst

from graphweld.analysis.blocks import eager_only
from graphweld.analysis.scopes import fresh_name, mentioned_names
from graphweld.rule import Rule, Safety
from graphweld.walk import iter_nodes

# Progress bars that yield their iterable's items unchanged, and those that make a `range` first.
_WRAPPERS = frozenset((
    "tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm", "tqdm.std.tqdm", "tqdm.autonotebook.tqdm", "tqdm.rich.tqdm",
    "rich.progress.track",
))
_RANGES = frozenset(("tqdm.trange", "tqdm.auto.trange", "tqdm.notebook.trange", "tqdm.std.trange", "tqdm.autonotebook.trange"))


class EagerProgressBar(Rule):
    """Wrap a loop's iterable in its progress bar only when running eagerly.

    ## What it fixes
    In a compiled region, a `for` loop whose header calls a progress bar on the iterable:
    `for i in tqdm(range(5)):`, `tqdm.auto.tqdm(loader, desc="eval")`, `trange(n)`,
    `enumerate(tqdm(batches))`, rich's `track(steps)`. The iterable is bound to a name first, the
    bar wraps it under `if not torch.compiler.is_compiling():`, and the loop iterates the name.

    ## Why the graph breaks
    Dynamo skips tqdm's code ("Attempted to call function marked as skipped", GB0007): the call
    breaks the graph, and because it is in a loop's header the whole frame is skipped and runs
    eagerly (with `fullgraph=True` the compile fails). The registry's workaround is to call the
    skipped function only when `not torch.compiler.is_compiling()`; a bar yields its iterable's
    items unchanged, so the loop runs over the same values either way.

    ## Example
    ```python
    from tqdm import tqdm


    def fn(x):
        for i in tqdm(range(5)):
            x += i
        return x
    ```
    becomes
    ```python
    def fn(x):
        iterable = range(5)
        if not torch.compiler.is_compiling():
            iterable = tqdm(iterable)
        for i in iterable:
            x += i
        return x
    ```

    ## Safety
    Unsafe, so only applied with `--unsafe-fixes`: the loop computes what it did, and eager runs
    show the same bar, but a compiled run shows none (like isolate-io's guard, it is output that
    compiled code no longer writes). Left alone: a bar given its iterable by keyword
    (`tqdm(iterable=...)`), one inside a comprehension (its iterable may read the
    comprehension's names), and bars elsewhere than a loop's header.
    """

    id = "eager-progress-bar"
    reference = "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0007.html"
    summary = "Wrap a loop's iterable in its progress bar (tqdm) only when running eagerly"
    # The docs' table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = "`for i in tqdm(iterable):` (also `trange(n)`, `enumerate(tqdm(...))`, rich's `track`) in a compiled region (GB0007)"
    rewrite = "bind the iterable, wrap it in the bar under `if not torch.compiler.is_compiling():`, loop over the name"
    default = "unsafe: compiled runs show no progress bar"
    trigger_words = ("tqdm", "trange", "track")
    needs_breaker_call = False
    node_types = (cst.For,)

    def visit_For(self, node: cst.For) -> None:
        function = self.context.current_function
        if function is None or not self.context.in_compiled_region:
            return
        torch_name = self.context.torch_name()
        # iter_nodes prunes below its root only: a header that is a comprehension is left whole.
        headers = () if _is_nested(node.iter) else iter_nodes(node.iter, prune=_is_nested)
        found = next(((call, plain) for call in headers if (plain := self._plain_iterable(call)) is not None), None)
        if found is None or torch_name is None:
            return
        bar, plain = found
        name = fresh_name("iterable", mentioned_names([function]))
        eager_bar = bar if self._qualified(bar) in _RANGES else bar.with_changes(args=[bar.args[0].with_changes(value=cst.Name(name)), *bar.args[1:]])
        bind = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], plain)], leading_lines=node.leading_lines)
        wrap = eager_only(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], eager_bar)]), torch_name)
        loop = node.with_changes(iter=node.iter.deep_replace(bar, cst.Name(name)) if node.iter is not bar else cst.Name(name), leading_lines=())
        message = (
            f"`{self.context.code(bar)}` calls a progress bar Dynamo skips (GB0007) in a loop's header, so the whole frame "
            "runs eagerly; wrap the iterable in it only when not compiling (unsafe: compiled runs show no progress bar)"
        )
        self.propose(node, [bind, wrap, loop], anchor=bar, message=message, safety=Safety.UNSAFE)

    def _qualified(self, call: cst.Call) -> str | None:
        return self.context.regions.imports.qualify(call.func)

    def _plain_iterable(self, node: cst.CSTNode) -> cst.BaseExpression | None:
        """What a progress-bar call iterates without the bar: its first argument, or `range(...)` of
        a `trange`'s; None for anything else."""
        if not isinstance(node, cst.Call) or not node.args or node.args[0].keyword is not None or node.args[0].star:
            return None
        qualified = self._qualified(node)
        if qualified in _WRAPPERS:
            return node.args[0].value
        if qualified in _RANGES:
            positional = [arg for arg in node.args if arg.keyword is None and not arg.star]
            if len(positional) > 3:
                return None
            return cst.Call(func=cst.Name("range"), args=[arg.with_changes(comma=cst.MaybeSentinel.DEFAULT) if i == len(positional) - 1 else arg for i, arg in enumerate(positional)])
        return None


def _is_nested(node: cst.CSTNode) -> bool:
    return isinstance(node, (cst.Lambda, cst.FunctionDef, cst.ClassDef, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp))
