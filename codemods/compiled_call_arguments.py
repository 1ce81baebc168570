"""compiled-call-arguments: a compiled function is given a list, not an iterator or a set of tensors."""

from __future__ import annotations

import libcst as cst

from graphweld.analysis.iterators import as_list, is_iterator_call, iterators_bound_before
from graphweld.call_rewrite import CallRewrite
from graphweld.rule import Rule, Safety
_COMPILE = "torch.compile"


class CompiledCallArguments(CallRewrite, Rule):
    """Give a compiled function a list instead of an iterator or a set of tensors.

    ## What it fixes
    A call, in a script's top-level code, of a compiled function (decorated with
    `@torch.compile`, or a name bound to `torch.compile(fn, ...)` in the module) that passes a lazy iterator, `zip(...)`, `map(...)`,
    `filter(...)`, `iter(...)`, `enumerate(...)` or `reversed(...)`, written in the call or bound
    to a name earlier in the same block and not used since; or a set display, `{a, b}`. The iterator is passed as `list(...)`,
    the set as the list `[a, b]`.

    ## Why the graph breaks
    Dynamo cannot take an iterator made outside the compiled function as an input
    ("Unsupported method call" on the iterator, GB0156; GB0811 on newer torch), nor a set of
    tensors, which has no order to trace over ("Attempted to wrap a set with tensors", GB0222):
    the frame falls back to eager, and with `fullgraph=True` the compile fails. A list is an input
    Dynamo traces; the registry pages' workaround is to pass `list(iterator)`, or a list for the
    set.

    ## Example
    ```python
    def fn(it):
        return [a + b for a, b in it]


    compiled_fn = torch.compile(fn, backend="eager", fullgraph=True)
    iterator = zip(range(5), range(10))
    result = compiled_fn(iterator)
    ```
    becomes
    ```python
    iterator = zip(range(5), range(10))
    result = compiled_fn(list(iterator))
    ```

    ## Safety
    Unsafe, so only applied with `--unsafe-fixes`. A list yields the iterator's items in the same
    order, but all of them are made before the call (a `map`'s function runs earlier, and an
    endless iterator never ends), the function can iterate it more than once, and `next()` on it
    fails. A set of tensors iterates in an order Python does not define; the list keeps the order
    written, so a sum over it can differ in its last bits. Left alone: calls of functions not
    compiled in the module, an iterator used between its binding and the call (it may be partly consumed),
    and calls inside functions that are not compiled (the scan does not enter them).
    """

    id = "compiled-call-arguments"
    reference = "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0156.html"
    summary = "Give a compiled function a list instead of an iterator or a set of tensors"
    # The docs' table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = "a script's call of a compiled function passing `zip(...)`, `map(...)`, an iterator bound before and unused since, or a set `{a, b}` (GB0156, GB0811, GB0222)"
    rewrite = "pass `list(...)`, or the set as a list `[a, b]`"
    default = "unsafe: the items are all made before the call, and a set's order becomes the written one"
    # The iterators' names, and `({` for a set passed first: `compile` alone would make every
    # file that compiles anything parse.
    trigger_words = ("zip", "map", "filter", "iter", "enumerate", "reversed", "({")
    needs_breaker_call = False
    in_compiled_code_only = False
    # The break is inside the compiled function; the change is at its caller, on the break's stack.
    fixes_from_callers = True
    safety = Safety.UNSAFE

    def replacement(self, call: cst.Call, statement: cst.BaseStatement) -> cst.BaseExpression | None:
        if not isinstance(call.func, cst.Name) or call.func.value not in self._compiled_names():
            return None
        iterators = iterators_bound_before(self.context.current_function or self.context.module, statement)
        changed = False
        args = []
        for arg in call.args:
            value = arg.value
            if arg.star:
                args.append(arg)
                continue
            if isinstance(value, cst.Set):
                value, changed = cst.List(elements=value.elements, lpar=value.lpar, rpar=value.rpar), True
            elif is_iterator_call(value) or (isinstance(value, cst.Name) and value.value in iterators):
                value, changed = as_list(value), True
            args.append(arg.with_changes(value=value))
        return call.with_changes(args=args) if changed else None

    def message(self, call: cst.Call, statement: cst.BaseStatement) -> str:
        return (
            f"`{self.context.code(call)}` passes the compiled function an iterator or a set of tensors, which Dynamo cannot "
            "take as an input (GB0156, GB0222); pass a list (unsafe: its items are made before the call, in the order written)"
        )

    def _compiled_names(self) -> set[str]:
        """The module's functions decorated with `torch.compile` and its names bound to `torch.compile(...)`."""
        cached = getattr(self, "_compiled", None)
        if cached is not None:
            return cached
        qualify = self.context.regions.imports.qualify
        names: set[str] = set()
        for statement in self.context.module.body:
            if isinstance(statement, cst.FunctionDef) and any(
                qualify(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator) == _COMPILE for d in statement.decorators
            ):
                names.add(statement.name.value)
            elif isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if (
                        isinstance(small, cst.Assign) and isinstance(small.value, cst.Call) and qualify(small.value.func) == _COMPILE
                        and small.value.args and small.value.args[0].keyword is None
                    ):
                        names.update(t.target.value for t in small.targets if isinstance(t.target, cst.Name))
        self._compiled = names
        return names
