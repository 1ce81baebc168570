"""isolate-io: keep I/O out of compiled graphs while it still happens."""

from __future__ import annotations

import re

import libcst as cst

from graphweld.analysis.blocks import eager_only
from graphweld.analysis.breakers import IO_BREAKERS, LOGGING_METHODS
from graphweld.analysis.deferral import (
    STDLIB_LOGGING_METHODS,
    WRAPPER_MARK,
    WRAPPER_PREFIX,
    Deferral,
    Refused,
    plan,
    same_call,
)
from graphweld.analysis.names import dotted_name
from graphweld.analysis.torch_api import IS_COMPILING
from graphweld.rule import Rule, Safety
from graphweld.analysis.scopes import bound_names
from graphweld.walk import iter_nodes

# Calls deferred through a wrapper, besides logger methods and the configured io-functions.
DEFERRABLE_IO = frozenset({"print", "warnings.warn", "torch.save"})


class IsolateIO(Rule):
    """Keep I/O out of compiled graphs while it still happens.

    ## What it fixes
    Impure I/O in a compiled region: `print`, logging calls (`logger.warning`, transformers'
    `logger.warning_once`, ...), `warnings.warn`, `torch.save`/`torch.load`, `open`, `pickle`,
    `time.sleep`, and the `io-functions` of the configuration.

    ## Why the graph breaks
    `torch.compile` compiles tensor computation; it cannot put I/O in a graph, so each I/O call
    breaks the graph (`print`: "Failed to trace builtin operator", GB0059; a logger's method,
    GB0291; `warnings.warn` and other functions Dynamo skips, GB0007), and inside a loop, `with`
    or `try`, the whole frame is skipped. PyTorch's
    docs ("Strategy 3: Don't compile the code") prescribe moving it out of the compiled region.

    ## Example
    Strategy **split**, for I/O at the top level of a function decorated with `torch.compile`:
    ```python
    @torch.compile(fullgraph=True)
    def f(x):
        y = x ** 2 / 2
        torch.save(y, "foo.pt")
        z = y ** 3 / 6
        return z
    ```
    becomes compiled pure pieces with the I/O run eagerly between them (the seed's form):
    ```python
    def f(x):
        y = _f_part1(x)
        torch.save(y, "foo.pt")
        return _f_part2(y)


    @torch.compile(fullgraph=True)
    def _f_part1(x):
        y = x ** 2 / 2
        return y


    @torch.compile(fullgraph=True)
    def _f_part2(y):
        z = y ** 3 / 6
        return z
    ```
    Strategy **defer**, for `print`, logger methods (`%`-style arguments included),
    `warnings.warn`, `torch.save` and the configured `io-functions`, in a function where
    compilation starts (one the module compiles, and no region of the module calls): the call goes
    through a module-level wrapper registered in
    `torch._dynamo.config.reorderable_logging_functions`, which Dynamo runs after the graph
    instead of breaking it. The graph computes the arguments' values; what turns them into text
    (`.item()`, `.tolist()`, `float(t)`, f-strings, `%` and `.format`) and the call's keywords move
    into the wrapper, which takes the values positionally (Dynamo drops the keywords of a deferred
    call, and passes only tensors and constants):
    ```python
    class Model(nn.Module):
        def forward(self, x):
            h = self.linear(x)
            print(f"hidden norm: {h.norm().item():.3f}")
            return h.relu()


    model = torch.compile(Model())
    ```
    becomes
    ```python
    @torch.compiler.disable
    def _deferred_print_hidden_norm(norm):
        \"\"\"graphweld isolate-io: `print`, run after the compiled graph.\"\"\"
        print(f"hidden norm: {norm.item():.3f}")


    torch._dynamo.config.reorderable_logging_functions.add(_deferred_print_hidden_norm)
    ...
            _deferred_print_hidden_norm(h.norm())
    ```
    A device or allocator query the output reads (`torch.cuda.memory_allocated()`,
    `max_memory_allocated() / 2**20`, `get_device_name()`, also through a name bound to one and read
    only there) is made by the wrapper itself, after the graph: Dynamo cannot put it in a graph
    ("torch.* op returned non-Tensor", GB0208), and compiled, the statistic shown is the one after
    the graph ran rather than at that line (the message says so).
    The wrapper is never traced (`torch.compiler.disable`): the compiled code calls it after the
    graph, and Dynamo would otherwise trace it there and break on the I/O inside it (a `print`,
    `torch.save`'s own frames), showing breaks in code graphweld wrote. Each wrapper has a
    one-line docstring saying what it is (a later run recognises it by it). One wrapper serves
    every call of the same shape; calls that pass their arguments as they are share
    `_deferred_print(*args)` (one per callee). All the module's wrappers go in one spot: after its
    last import and the last module-level statement binding a name it logs through (the
    `logger = logging.getLogger(__name__)` line). A deferred log record or warning names the
    original call's line when the call runs eagerly; compiled, Dynamo runs it after the graph,
    where the record names the compiled function's first line (measured on torch 2.13). A tensor argument written in place later in the function (`h.mul_(2)`, `out=h`,
    through a view of it) is passed as `h.detach().clone()`; a size (`x.shape`) is formatted in the
    graph and passed as text. A read such as `value = t.item()` earlier in the block, whose name
    nothing else uses, moves into the wrapper too (that statement goes). A loop whose only break
    was the deferred call is then left alone (rules apply in registry order).
    Strategy **guard** (unsafe), for any other I/O statement: `if not torch.compiler.is_compiling():`.
    Callees listed in the `guard-functions` setting (e.g. `["warnings.warn"]` for deprecation
    warnings in library code) are guarded without `--unsafe-fixes`: the user chose it.

    ## Safety
    split is safe: the same statements run in the same order, the I/O eagerly between compiled
    pieces. It applies to module-level functions decorated with `torch.compile` whose top level
    holds the I/O, to methods decorated so (the pieces are methods called through `self`), and to
    functions compiled by a module-level `name = torch.compile(f, ...)` (the options move to the
    pieces and the name then refers to `f`); not to bodies with `yield`, nested `return`s,
    `global`/`nonlocal` or nested functions.
    defer is safe when the printed text, log records, warnings and written files are those of the
    eager program, in the same order, which holds when: the call is in a function where compilation
    starts (torch 2.13 silently drops a deferred call made in a function Dynamo traces inline into
    its caller's graph, so there the guard is offered instead); the values
    passed are computed where the call was, and none is a mutable Python object (a list, dict or
    set, `self`: reported, not deferred) or something written later that is not known to be a
    tensor (`buf[0] = ...`, `buf += ...` on a parameter: reported); tensors written in place later
    are snapshots. The deferred calls run in their original order, after the graph's computation
    and before anything after the graph (so a call made before an error the graph raises does not
    run). What changes: a log record or warning names the wrapper's caller (the wrapper passes
    `stacklevel` + 2, for itself and `torch.compiler.disable`'s frame), which is the original line
    when the function runs eagerly and the compiled function's `def` line when it runs compiled;
    a warning filter that matches on the line number,
    or the once-per-location `default` action with two identical warnings in one function, can then
    see one location instead of two. Not seen: a write to a passed tensor inside a function it is
    later passed to. `logger.exception` and calls with `exc_info`/`stack_info` are not deferred
    (they read the stack and the exception being handled where the call is).
    guard is unsafe: under compilation the I/O no longer happens at all; it is applied only with
    `--unsafe-fixes`.
    """

    id = "isolate-io"
    reference = "https://docs.pytorch.org/docs/stable/compile/programming_model.fullgraph_true.html"
    summary = "Keep I/O out of compiled graphs: split the function, defer the I/O after the graph, or guard it"
    # The README's table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = (
        "I/O: `print`, logging (incl. `logger.warning_once`), `warnings.warn`, `torch.save`/`load`, `open`, "
        "`pickle`, `time.sleep`, configured `io-functions`"
    )
    rewrite = (
        "**split** a function decorated with `torch.compile` into compiled pieces with the I/O run eagerly "
        "between them; else **defer** the call, where compilation starts, through a wrapper registered in "
        "`torch._dynamo.config.reorderable_logging_functions` that turns the values the graph computed into "
        "output; else **guard** it with `if not torch.compiler.is_compiling():`"
    )
    default = "split and defer are safe; guard is unsafe (compiled runs skip the I/O)"
    trigger_words = tuple(sorted({name.rsplit(".", 1)[-1] for name in IO_BREAKERS} | LOGGING_METHODS))
    node_types = (cst.FunctionDef, cst.If, cst.SimpleStatementLine)

    def __init__(self, context) -> None:  # type: ignore[no-untyped-def]
        super().__init__(context)
        # Where the module's wrappers go (see `_insertion_point`), found once.
        self._spot: tuple[cst.CSTNode | None] | None = None
        # Statements already handled: by a split of their function, or guarded already.
        self._handled: set[int] = set()
        # Why the statement being visited is not deferred, for the guard's message.
        self._not_deferred = ""
        # Wrappers proposed in this pass, by name: their definition (two shapes never share one).
        self._planned_wrappers: dict[str, str] = {}

    def visit_If(self, node: cst.If) -> None:
        """Statements under `if not torch.compiler.is_compiling():` never run compiled."""
        test = node.test
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            inner = test.expression
            if isinstance(inner, cst.Call) and self.context.regions.imports.qualify(inner.func) in IS_COMPILING:
                self._handled.update(id(node) for node in iter_nodes(node.body))

    # -- split ----------------------------------------------------------------------------------

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        context = self.context
        if node.name.value.startswith(WRAPPER_PREFIX) and WRAPPER_MARK in (node.get_docstring() or ""):
            # graphweld's own wrapper: Dynamo never traces it (it is registered as reorderable).
            self._handled.update(id(inner) for inner in iter_nodes(node))
            return
        body = context.splitter.body(node)
        if body is None:
            return
        io_ids = {id(s) for s in body if self._io_kind(s) is not None}
        if not io_ids or not self.allows("split", next(s for s in body if id(s) in io_ids)):
            return  # nothing to split, or ruled out: each I/O statement is deferred or guarded instead
        split = context.splitter.split(node, lambda s: id(s) in io_ids)
        if split is None:
            return
        self._handled.update(io_ids)
        function_name = node.name.value
        names = ", ".join(f"`{context.code(s)}`" for s in split.cuts)
        self.propose(
            node,
            [split.driver, *split.pieces],
            anchor=split.cuts[0],
            message=(
                f"{names} in compiled `{function_name}`: I/O cannot be compiled and breaks the graph; split "
                f"`{function_name}` into {len(split.pieces)} compiled piece(s) with the I/O run eagerly between them"
            ),
            safety=Safety.SAFE,
            extra=split.extra,
            form="split",
            ends_region=True,
        )

    # -- defer and guard ------------------------------------------------------------------------

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        context = self.context
        if id(node) in self._handled or not context.in_compiled_region:
            return
        kind = self._io_kind(node)
        if kind is None:
            return
        call = _lone_call(node)
        if call is None:
            self.report(
                node,
                f"`{context.code(node)}` breaks the graph (I/O); it is not a plain call statement, so it is "
                "not rewritten: move it out of the compiled region",
            )
            return
        self._not_deferred = ""
        deferred = self._defer(node, call, kind) if self.allows("defer", node) else None
        if deferred is not None:
            return
        if not self.allows("guard", node):
            return
        torch_name = context.torch_name()
        if torch_name is None:
            self.report(node, f"`{context.code(node)}` breaks the graph (I/O); `torch` names something else here, so it is not guarded")
            return
        callee = context.regions.imports.qualify(call.func) or ""
        chosen = callee in context.settings.guard_functions
        guard = eager_only(node, torch_name)
        self.propose(
            node,
            [guard],
            anchor=node,
            message=(
                f"`{context.code(node)}` breaks the graph (I/O); skip it under compilation "
                + ("(chosen in guard-functions: compiled runs skip this I/O)" if chosen else
                   "(unsafe: compiled runs no longer perform this I/O)")
                + (f"; not deferred: {self._not_deferred}" if self._not_deferred else "")
            ),
            safety=Safety.SAFE if chosen else Safety.UNSAFE,
            form="guard",
        )

    def _defer(self, node: cst.SimpleStatementLine, call: cst.Call, kind: str) -> bool | None:
        """Route the call through a module-level wrapper Dynamo runs after the graph: the graph
        computes the arguments' values, the wrapper turns them into text and does the I/O.
        None when the call is not deferrable (the guard is offered instead)."""
        context = self.context
        imports = context.regions.imports
        function = context.current_function
        if context.torch_name() != "torch" or function is None:
            return None
        qualified = imports.qualify(call.func) or ""
        if qualified in context.settings.guard_functions:
            return None  # the user chose to guard these
        if any(arg.keyword is not None and arg.keyword.value in ("exc_info", "stack_info") for arg in call.args):
            return None  # they read the stack and the exception being handled where the call is
        receiver_root: str | None = None
        add_stacklevel = False
        if qualified in DEFERRABLE_IO or qualified in context.settings.io_functions:
            add_stacklevel = qualified == "warnings.warn"
        elif qualified.startswith("logging.") and qualified.rsplit(".", 1)[-1] in STDLIB_LOGGING_METHODS:
            add_stacklevel = True
        elif (
            isinstance(call.func, cst.Attribute)
            and call.func.attr.value in LOGGING_METHODS - {"exception"}
            and kind == "logging"
        ):
            receiver = dotted_name(call.func.value)
            if receiver is None or "." in receiver or receiver.startswith("self"):
                return None
            receiver_root = receiver
            add_stacklevel = call.func.attr.value in STDLIB_LOGGING_METHODS
        else:
            return None
        if not context.regions.is_frame_root(function):
            # Dynamo runs a deferred call only where its frame starts: made in a function traced
            # inline into a caller's graph, it is dropped without a trace (torch 2.13).
            self._not_deferred = f"`{function.name.value}` is not where compilation starts, and a deferred call there would be dropped"
            return None
        callee = context.module.code_for_node(call.func).strip()
        try:
            deferral = plan(
                call,
                callee,
                statement=node,
                function=function,
                imports=imports,
                module_names=context.regions.module_names,
                add_stacklevel=add_stacklevel,
                # warnings.warn(message, category, stacklevel)
                stacklevel_position=2 if qualified == "warnings.warn" else None,
            )
        except Refused as refusal:
            self.report(node, f"`{context.code(node)}` breaks the graph (I/O); not deferred: {refusal}")
            return True
        anchor_statement = self._insertion_point(receiver_root)
        if anchor_statement is None:
            return None
        wrapper, existing = self._wrapper_name(deferral)
        extra = []
        if not existing:
            definition = cst.parse_module(
                deferral.wrapper_code(wrapper)
                + f"\n\ntorch._dynamo.config.reorderable_logging_functions.add({wrapper})\n"
            ).body
            spaced = [definition[0].with_changes(leading_lines=(cst.EmptyLine(), cst.EmptyLine())), *definition[1:]]
            extra.append((anchor_statement, [anchor_statement, *spaced]))
        replaced = node.with_changes(
            body=[node.body[0].with_changes(value=_wrapper_call(call, wrapper, deferral.call_args()))]
        )
        # A read such as `value = t.item()` that only fed this call now happens in the wrapper.
        extra.extend((statement, []) for statement in deferral.moved_reads)
        snapshots = [context.code(hole.expression) for hole in deferral.holes if hole.snapshot]
        details = []
        if deferral.holes and not deferral.generic:
            details.append("the graph computes " + ", ".join(f"`{context.code(h.expression)}`" for h in deferral.holes) + f" and `{wrapper}` turns it into I/O")
        if deferral.moved_reads:
            details.append("moving " + ", ".join(f"`{context.code(s)}`" for s in deferral.moved_reads) + " into it")
        if snapshots:
            details.append("passing a snapshot of " + ", ".join(f"`{s}`" for s in snapshots) + " (written in place later)")
        if deferral.queries:
            details.append(
                "it reads " + ", ".join(f"`{context.code(q)}`" for q in deferral.queries) + " itself, after the graph: "
                "compiled, the statistic is the one after the graph ran, not at this line"
            )
        message = (
            f"`{context.code(node)}` breaks the graph (I/O); defer it: call it through `{wrapper}`, which "
            "Dynamo runs after the graph (reorderable_logging_functions)" + ("; " + "; ".join(details) if details else "")
        )
        self.propose(node, [replaced], anchor=node, message=message, safety=Safety.SAFE, extra=extra, form="defer")
        return True

    def _wrapper_name(self, deferral: Deferral) -> tuple[str, bool]:
        """The wrapper's name, and whether the module already defines it (the same call shape)."""
        context = self.context
        base = deferral.wrapper_name()
        shape = deferral.wrapper_code("_")
        name, number = base, 2
        while True:
            planned = self._planned_wrappers.get(name)
            if planned == shape:
                return name, False  # proposed in this pass too: the same definition, inserted once
            existing = context.regions.module_function(name) if name in context.regions.module_names else None
            if existing is not None and _same_wrapper(existing.node, deferral, context.module):
                return name, True
            if planned is None and name not in context.regions.module_names:
                self._planned_wrappers[name] = shape
                return name, False
            name, number = f"{base}_{number}", number + 1

    def _insertion_point(self, receiver: str | None) -> cst.CSTNode | None:
        """The module-level statement after which the wrappers go, one spot for all of a module's
        wrappers: after the last top-level import and the last simple statement binding a name
        the module logs through (`logger = logging.getLogger(__name__)`). None when the receiver
        of this call is bound by no simple module-level statement."""
        if self._spot is None:
            module, text = self.context.module, self.context.text or self.context.module.code
            logs_through = re.compile(r"\b(\w+)\s*\.\s*(?:" + "|".join(sorted(LOGGING_METHODS)) + r")\s*\(")
            receivers = set(logs_through.findall(text))
            found = None
            for statement in module.body:
                if not isinstance(statement, cst.SimpleStatementLine):
                    continue
                if any(isinstance(small, (cst.Import, cst.ImportFrom)) for small in statement.body) or (
                    receivers & bound_names([statement])
                ):
                    found = statement
            self._spot = (found,)
        if receiver is not None and not any(
            isinstance(statement, cst.SimpleStatementLine) and receiver in bound_names([statement])
            for statement in self.context.module.body
        ):
            return None
        return self._spot[0]

    def _io_kind(self, statement: cst.CSTNode) -> str | None:
        breaker = self.context.breakers.statement_breaker(statement)
        return breaker.kind if breaker is not None and breaker.kind in ("io", "logging") else None


def _lone_call(node: cst.SimpleStatementLine) -> cst.Call | None:
    if len(node.body) == 1 and isinstance(node.body[0], cst.Expr) and isinstance(node.body[0].value, cst.Call):
        return node.body[0].value
    return None


def _same_wrapper(function: cst.FunctionDef, deferral: Deferral, module: cst.Module) -> bool:
    """Whether a module-level function is graphweld's wrapper for this call shape."""
    if WRAPPER_MARK not in (function.get_docstring() or ""):
        return False
    statements = function.body.body if isinstance(function.body, cst.IndentedBlock) else []
    last = statements[-1] if statements else None
    if not (isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[0], cst.Expr)):
        return False
    params = function.params
    if deferral.generic:
        # The pass-through wrapper (earlier versions also took **kwargs; positional calls match).
        return not params.params and isinstance(params.star_arg, cst.Param)
    names = [param.name.value for param in params.params]
    return names == deferral.params and same_call(last.body[0].value, deferral.body)


def _wrapper_call(call: cst.Call, wrapper: str, args: list[cst.Arg]) -> cst.Call:
    """The call of the wrapper, laid out like the original call when it passes as many arguments
    (a call split over lines stays split), else on one line."""
    if len(args) == len(call.args):
        laid_out = [
            original.with_changes(value=new.value, keyword=None, equal=cst.MaybeSentinel.DEFAULT)
            for original, new in zip(call.args, args)
        ]
        return call.with_changes(func=cst.Name(wrapper), args=laid_out)
    one_line = [
        arg.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")) if i < len(args) - 1 else cst.MaybeSentinel.DEFAULT)
        for i, arg in enumerate(args)
    ]
    return cst.Call(func=cst.Name(wrapper), args=one_line)
