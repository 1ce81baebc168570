"""profiling-guard: profiling and timing code runs eagerly only, never inside a graph."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

import libcst as cst

from graphweld.analysis.blocks import binds_at_module_level, definitions_anchor, tests_not_compiling
from graphweld.analysis.clocks import (
    CLOCKS,
    CUDA_EVENTS,
    EVENT_READS,
    EVENT_STATEMENTS,
    SYNCHRONIZE,
    clock_decision,
    dotted,
    timing_events,
)
from graphweld.analysis.scopes import is_scope
from graphweld.rule import Rule, Safety
from graphweld.walk import iter_nodes

# NVTX ranges and marks, as torch and the `nvtx` package spell them: torch.cuda.nvtx's functions
# return a depth Dynamo cannot put in a graph (GB0208), or the compile fails where NVTX is missing.
NVTX_CALLS = frozenset(
    {
        "torch.cuda.nvtx.range_push", "torch.cuda.nvtx.range_pop", "torch.cuda.nvtx.mark",
        "torch.cuda.nvtx.range_start", "torch.cuda.nvtx.range_end",
        "nvtx.push_range", "nvtx.pop_range", "nvtx.mark", "nvtx.start_range", "nvtx.end_range",
        "torch.cuda.profiler.start", "torch.cuda.profiler.stop",
    }
)
NVTX_CONTEXTS = frozenset({"torch.cuda.nvtx.range", "nvtx.annotate"})
_PROFILING_NAMES = NVTX_CALLS | NVTX_CONTEXTS | set(CLOCKS) | CUDA_EVENTS | SYNCHRONIZE
# What the forms' text holds (a clock's or event's name, NVTX, a synchronize): looked for in the
# module's text before any function is walked.
_PROFILING_WORDS = re.compile(
    r"\bnvtx\b|perf_counter|\bmonotonic(?:_ns)?\b|default_timer|process_time|time_ns|\btime\(|\bEvent\b|\bsynchronize\b|cuda\.profiler"
)
# What every match of _PROFILING_WORDS contains.
_PROFILING_SUBSTRINGS = ("nvtx", "perf_counter", "monotonic", "default_timer", "process_time", "time_ns", "time(", "Event", "synchronize", "cuda.profiler")
_EVENT_METHODS = EVENT_STATEMENTS | set(EVENT_READS)


class ProfilingGuard(Rule):
    """Run profiling and timing code eagerly only: NVTX ranges, CUDA-event and wall-clock timers.

    ## What it fixes
    Code that observes a compiled function rather than computing it: NVTX ranges and marks
    (`torch.cuda.nvtx.range_push/range_pop/mark`, `with torch.cuda.nvtx.range(...)`, the `nvtx`
    package's `push_range`/`pop_range`/`annotate`), CUDA events that time a stage
    (`torch.cuda.Event(enable_timing=True)`, `.record()`, `torch.cuda.synchronize()`,
    `.elapsed_time(...)`), wall-clock reads (`time.perf_counter()`, `time.time()`,
    `time.monotonic()`, `timeit.default_timer()`), and timer context managers of the same module
    that read a clock (`with timer("encoder"):`).

    ## Why the graph breaks
    Dynamo cannot put any of them in a graph. An NVTX call returns a Python number ("torch.* op
    returned non-Tensor", GB0208) or, where NVTX is missing, fails the compile; a clock read is a
    builtin Dynamo skips (GB0007); CUDA events recorded while tracing make the compiled run raise
    (`both events must be recorded`); a timer context manager reading a clock is a `with` Dynamo
    cannot resume in, so the whole function runs eagerly. The fix the DeepSpeed and sglang
    projects applied by hand: skip the profiling code while compiling
    (`torch.compiler.is_compiling()`), which Dynamo folds away.

    ## Example
    ```python
    def forward(self, x):
        torch.cuda.nvtx.range_push("encoder")
        start = time.perf_counter()
        h = self.encoder(x)
        print(f"encoder: {time.perf_counter() - start:.3f} s")
        torch.cuda.nvtx.range_pop()
        return h
    ```
    becomes
    ```python
    def forward(self, x):
        if not torch.compiler.is_compiling():
            torch.cuda.nvtx.range_push("encoder")
        start = time.perf_counter() if not torch.compiler.is_compiling() else 0.0
        h = self.encoder(x)
        print(f"encoder: {(time.perf_counter() if not torch.compiler.is_compiling() else 0.0) - start:.3f} s")
        if not torch.compiler.is_compiling():
            torch.cuda.nvtx.range_pop()
        return h
    ```
    (`isolate-io` then keeps the `print` out of the graph.) An event is made only eagerly
    (`... else None`), its `record()`/`synchronize()` and `torch.cuda.synchronize()` run only
    eagerly, and `elapsed_time` reads `0.0` while compiling. A timer context manager becomes
    `with (timer("encoder") if not torch.compiler.is_compiling() else contextlib.nullcontext()):`.

    ## Safety
    The eager program is unchanged. Compiled, outputs are the same and what is lost is what a
    graph cannot give: no NVTX range for the code inside it (a profile shows the compiled graph
    instead), and timings inside it read 0 (the compiled graph has no stage boundaries to time:
    time the compiled call from its caller). Those fixes are safe: every line is still printed,
    with the timing values of a compiled run. A timer context manager is skipped whole while
    compiling, so a compiled run does not print its line: that fix is unsafe. A timer bound by
    `as` and read afterwards is reported.

    Only timing is touched. An event counts when it is made with `enable_timing=True` and used
    for nothing but `record()`, `synchronize()`, `query()` and `elapsed_time()`: one stored,
    passed on or waited on orders streams (DistributedDataParallel's copy events) and stays. A
    function's clocks are rewritten only when every reading feeds what is reported: a clock
    compared, tested, slept on or passed to `range` (a deadline, a timeout), a timestamp stored on
    an object, returned or handed to a call other than a print or a log, or a duration measured
    from a reading made elsewhere (`time.monotonic() - self.start`) is reported, not rewritten:
    reading 0 there would change what the program does. A comparison or choice whose value is only
    printed or logged (`ok={elapsed >= 0}` in an f-string, `"slow" if elapsed > 1 else "fast"`
    passed to `log.info`) is a report, not a decision. In a timer's `__enter__`, a reading stored
    on `self` where nothing in the module reads it (`self.start = time.perf_counter()`, `start`
    never read) reaches nothing: it reads 0.0 while compiling, a safe fix, and its `with` is then
    left as it is.
    """

    id = "profiling-guard"
    reference = "https://docs.pytorch.org/docs/stable/generated/torch.compiler.is_compiling.html"
    summary = "Run NVTX ranges, CUDA-event and wall-clock timers only eagerly, never inside a graph"
    # The README's table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = (
        "NVTX ranges and marks (`torch.cuda.nvtx.*`, the `nvtx` package), CUDA events and "
        "`torch.cuda.synchronize()` timing a stage, wall-clock reads (`time.perf_counter()`...), timer "
        "context managers of the module that read a clock"
    )
    rewrite = (
        "skip them while compiling: `if not torch.compiler.is_compiling():` around a statement, "
        "`<clock> if not torch.compiler.is_compiling() else 0.0` for a value, `contextlib.nullcontext()` "
        "for a timer's `with`"
    )
    default = "safe: outputs and printed lines unchanged, timings inside the graph read 0; unsafe for a timer's `with` (its line is not printed compiled)"
    trigger_words = ("nvtx", "perf_counter", "time", "monotonic", "default_timer", "Event", "synchronize")
    needs_breaker_call = False
    node_types = (cst.FunctionDef,)
    # A compiled run prints its timings as 0: lines that differ only in their numbers are its.
    varies_printed_numbers = True

    def __init__(self, context) -> None:  # type: ignore[no-untyped-def]
        super().__init__(context)
        # Every form writes one of these: a module without them has nothing to guard.
        text = context.text
        # Substrings first: the pattern's alternatives, tried at every position, cost more than a
        # module's whole walk on long files.
        self._may_profile = text is None or (
            any(word in text for word in _PROFILING_SUBSTRINGS) and _PROFILING_WORDS.search(text) is not None
        )
        # Clock reads of the function being visited that decide control flow (left as they are).
        self._clocks_kept: set[int] = set()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        context = self.context
        if not self._may_profile or not context.regions.is_compiled(node) or not isinstance(node.body, cst.IndentedBlock):
            return
        if _is_context_manager(node):
            # A timer's own clock reads: its `with` is skipped while compiling instead (Dynamo
            # traces a context manager's exit but drops the printing it defers there), unless a
            # reading is stored where nothing reads it.
            self._propose_unread_stamps(node)
            return
        nodes = list(iter_nodes(node.body, prune=_skipped))
        calls = [child for child in nodes if isinstance(child, cst.Call)]
        # An event method on an attribute (`self.start.record()`) may be an event the class made.
        on_attributes = any(
            isinstance(call.func, cst.Attribute) and call.func.attr.value in _EVENT_METHODS
            and isinstance(call.func.value, cst.Attribute) for call in calls
        )
        if (
            not any(self._qualify(call) in _PROFILING_NAMES for call in calls)
            and not on_attributes
            and not any(
                isinstance(child, cst.With) and any(self._skippable_context(item.item) for item in child.items)
                for child in nodes
            )
        ):
            return  # nothing of profiling here: most functions, said in one walk
        events = timing_events(node.body, context.regions.imports, local=True)
        if on_attributes:
            events |= self._event_attributes()
        clocks = [call for call in calls if self._qualify(call) in CLOCKS]
        deciding = clock_decision(nodes, clocks) if clocks else None
        if deciding is not None:
            # A deadline or a timeout, not a timer: reading 0 while compiling would change what
            # the function does. Its clocks stay (and so does any synchronize it makes).
            self._clocks_kept = {id(call) for call in clocks}
            self.report(clocks[0], f"`{context.code(clocks[0])}`: its value decides what the function does "
                                   f"(`{context.code(deciding)}`), not only what it reports; not a timer, not rewritten")
        else:
            self._clocks_kept = set()
        timing = any(self._is_timing(call, events) and id(call) not in self._clocks_kept for call in calls)
        for block in _blocks(node.body):
            self._guard_block(node, block, events, timing)

    # -- one block of statements ---------------------------------------------------------------

    def _guard_block(self, function: cst.FunctionDef, block: Sequence[cst.BaseStatement], events: set[str], timing: bool) -> None:
        run: list[cst.SimpleStatementLine] = []
        for statement in [*block, None]:
            kind = self._statement_kind(statement, events, timing) if statement is not None else None
            if kind is not None:
                run.append(statement)  # type: ignore[arg-type]
                continue
            if run:
                self._propose_guard(run)
                run = []
            if isinstance(statement, cst.SimpleStatementLine):
                self._propose_values(statement, events)
            elif isinstance(statement, cst.With):
                self._propose_with(function, statement)

    def _statement_kind(self, statement: cst.BaseStatement, events: set[str], timing: bool) -> str | None:
        """"nvtx" or "timing" for a statement that is only a call to skip while compiling."""
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            return None
        small = statement.body[0]
        if not isinstance(small, cst.Expr) or not isinstance(small.value, cst.Call):
            return None
        call = small.value
        name = self._qualify(call)
        if name in NVTX_CALLS:
            return "nvtx"
        if name in SYNCHRONIZE and timing and not call.args:
            return "timing"
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in EVENT_STATEMENTS and _receiver(func) in events:
            return "timing"
        return None

    def _propose_guard(self, run: list[cst.SimpleStatementLine]) -> None:
        torch = self.context.torch_name() or "torch"
        first = run[0]
        body = [first.with_changes(leading_lines=()), *run[1:]]
        guard = cst.ensure_type(cst.parse_statement(f"if not {torch}.compiler.is_compiling():\n    pass\n"), cst.If)
        guard = guard.with_changes(body=guard.body.with_changes(body=body), leading_lines=first.leading_lines)
        names = [self.context.code(statement) for statement in run]
        nvtx = any(self._qualify(_call_of(statement)) in NVTX_CALLS for statement in run)
        lost = (
            "compiled runs record no NVTX range or mark here (a profile shows the compiled graph instead)"
            if nvtx else "compiled runs do not record or wait on the timing events here (timings inside a graph read 0)"
        )
        shown = f"`{names[0]}`" + (f" and {len(names) - 1} more" if len(names) > 1 else "")
        message = (
            f"{shown}: profiling Dynamo cannot put in a graph (it breaks the graph, or the compile fails); "
            f"run it only eagerly: {lost}"
        )
        self.propose(first, [guard], anchor=first, message=message, safety=Safety.SAFE,
                     extra=[(statement, []) for statement in run[1:]], form="statement")

    def _propose_values(self, statement: cst.SimpleStatementLine, events: set[str]) -> None:
        """Clock reads, event construction and `elapsed_time` in a statement: a neutral value
        while compiling."""
        reads = {id(call): neutral for call in _own_calls(statement) if (neutral := self._neutral(call, events, statement)) is not None}
        if not reads:
            return
        torch = self.context.torch_name() or "torch"
        top = _assigned_value(statement)
        replaced = statement.visit(_Neutralise(reads, torch, top))
        first = next(call for call in _own_calls(statement) if id(call) in reads)
        message = (
            f"`{self.context.code(first)}`: a clock or CUDA event Dynamo cannot put in a graph (it breaks the graph, "
            "or the compiled run raises); read it only eagerly: while compiling it reads "
            f"{reads[id(first)]} (time the compiled call from its caller)"
        )
        self.propose(statement, [cst.ensure_type(replaced, cst.SimpleStatementLine)], anchor=first, message=message,
                     safety=Safety.SAFE, form="value")

    def _propose_unread_stamps(self, function: cst.FunctionDef) -> None:
        """`self.start = time.perf_counter()` in a timer's `__enter__`, where nothing in the module
        reads `start`: the reading reaches nothing, so it is made only eagerly (safe)."""
        unread = self._unread_stamps()
        if not unread or not isinstance(function.body, cst.IndentedBlock):
            return
        torch = self.context.torch_name() or "torch"
        for block in _blocks(function.body):
            for statement in block:
                if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
                    continue
                small = statement.body[0]
                if not (isinstance(small, cst.Assign) and id(small.value) in unread):
                    continue
                call = cst.ensure_type(small.value, cst.Call)
                neutral = CLOCKS[self._qualify(call) or ""]
                replaced = statement.visit(_Neutralise({id(call): neutral}, torch, call))
                attribute = self.context.code(small.targets[0].target)
                message = (
                    f"`{self.context.code(call)}` into `{attribute}`, which nothing reads: a clock Dynamo cannot trace (it "
                    f"skips the frame that enters this context manager); read it only eagerly: while compiling it reads {neutral}"
                )
                self.propose(statement, [cst.ensure_type(replaced, cst.SimpleStatementLine)], anchor=call, message=message,
                             safety=Safety.SAFE, form="value")

    def _unread_stamps(self) -> set[int]:
        """The ids of the module's clock reads assigned to `self.NAME` alone, where no code of the
        module reads an attribute `NAME`."""
        cached = getattr(self, "_stamps", None)
        if cached is not None:
            return cached
        module = self.context.module
        stores: set[int] = set()
        candidates: list[tuple[cst.Call, str]] = []
        attributes: list[cst.Attribute] = []
        for node in iter_nodes(module):
            if isinstance(node, cst.Assign):
                stores.update(id(target.target) for target in node.targets)
                if (
                    isinstance(node.value, cst.Call) and self._qualify(node.value) in CLOCKS and len(node.targets) == 1
                    and (name := dotted(node.targets[0].target)) is not None and name.startswith("self.")
                ):
                    candidates.append((node.value, name.partition(".")[2]))
            elif isinstance(node, cst.Attribute):
                attributes.append(node)
        read = {node.attr.value for node in attributes if id(node) not in stores}
        self._stamps: set[int] = {id(call) for call, name in candidates if name not in read}
        return self._stamps

    def _propose_with(self, function: cst.FunctionDef, statement: cst.With) -> None:
        """`with timer(...)` / `with torch.cuda.nvtx.range(...)`: a null context while compiling."""
        items = list(statement.items)
        chosen = [index for index, item in enumerate(items) if self._skippable_context(item.item)]
        if not chosen:
            return
        for index in chosen:
            item = items[index]
            if item.asname is not None:
                self.report(item, f"`{self.context.code(item.item)}` is a timer Dynamo cannot trace; not rewritten: "
                                  "its `as` name would be None while compiling")
                return
        contextlib = self._nullcontext()
        torch = self.context.torch_name() or "torch"
        new_items = []
        for index, item in enumerate(items):
            if index in chosen:
                code = self.context.module.code_for_node(item.item)
                skipped = cst.parse_expression(f"({code} if not {torch}.compiler.is_compiling() else {contextlib}())")
                item = item.with_changes(item=skipped)
            new_items.append(item)
        replaced = statement.with_changes(items=new_items)
        extra = []
        if contextlib == "contextlib.nullcontext" and not binds_at_module_level(self.context.module, "contextlib"):
            anchor = definitions_anchor(self.context.module)
            if anchor is None:
                self.report(statement, "a timer Dynamo cannot trace; not rewritten: no import line to add `import contextlib` after")
                return
            extra.append((anchor, [anchor, cst.parse_statement("import contextlib\n")]))
        nvtx = all(self._qualify(items[index].item) in NVTX_CONTEXTS for index in chosen if isinstance(items[index].item, cst.Call))
        first = items[chosen[0]].item
        if nvtx:
            message = (
                f"`with {self.context.code(first)}`: an NVTX range Dynamo cannot put in a graph; enter it only eagerly: "
                "compiled runs record no range here (a profile shows the compiled graph instead)"
            )
            safety = Safety.SAFE
        else:
            message = (
                f"`with {self.context.code(first)}`: a timer that reads a clock, which Dynamo cannot trace, so all of "
                f"`{function.name.value}` runs eagerly; enter it only eagerly (unsafe: compiled runs skip the timer, so "
                "its line is not printed; time the compiled call from its caller)"
            )
            safety = Safety.UNSAFE
        self.propose(statement, [replaced], anchor=first, message=message, safety=safety, extra=extra, form="with")

    # -- what is profiling ---------------------------------------------------------------------

    def _qualify(self, call: cst.CSTNode | None) -> str | None:
        if not isinstance(call, cst.Call):
            return None
        return self.context.regions.imports.qualify(call.func)

    def _is_timing(self, call: cst.Call, events: set[str]) -> bool:
        """A clock read, or a time read from a timing event."""
        func = call.func
        return self._qualify(call) in CLOCKS or (
            isinstance(func, cst.Attribute) and func.attr.value in EVENT_READS and _receiver(func) in events
        )

    def _neutral(self, call: cst.Call, events: set[str], statement: cst.SimpleStatementLine) -> str | None:
        """What the call reads as while compiling, when it is a clock, a timing event made or a
        time read."""
        name = self._qualify(call)
        if name in CLOCKS:
            return None if id(call) in self._clocks_kept else CLOCKS[name]
        if name in CUDA_EVENTS:
            small = statement.body[0]
            made = isinstance(small, cst.Assign) and small.value is call and any(
                dotted(target.target) in events for target in small.targets
            )
            return "None" if made else None
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in EVENT_READS and _receiver(func) in events:
            return EVENT_READS[func.attr.value]
        return None

    def _event_attributes(self) -> set[str]:
        """`self.NAME` the module's classes bind to a timing event (`self.start =
        torch.cuda.Event(enable_timing=True)`) and use only to time."""
        cached = getattr(self, "_attributes", None)
        if cached is None:
            cached = self._attributes = timing_events(self.context.module, self.context.regions.imports, local=False)
        return cached

    def _skippable_context(self, expression: cst.BaseExpression) -> bool:
        """An NVTX range, or a timer: a call of a function or class of this module that reads a clock."""
        if not isinstance(expression, cst.Call):
            return False
        if self._qualify(expression) in NVTX_CONTEXTS:
            return True
        if not isinstance(expression.func, cst.Name):
            return False
        name = expression.func.value
        unread = self._unread_stamps()
        for statement in self.context.module.body:
            if isinstance(statement, (cst.FunctionDef, cst.ClassDef)) and statement.name.value == name:
                # A clock read already made only eagerly, or stored where nothing reads it (fixed
                # in place, safely), does not make the context manager a timer to skip.
                return any(
                    self._qualify(call) in CLOCKS and id(call) not in unread
                    for call in iter_nodes(statement, prune=_eager_only) if isinstance(call, cst.Call)
                )
        return False

    def _nullcontext(self) -> str:
        """How the module names `contextlib.nullcontext` (imported, or through `contextlib`)."""
        imports = self.context.regions.imports
        for alias, target in imports.aliases.items():
            if target == "contextlib.nullcontext":
                return alias
            if target == "contextlib":
                return f"{alias}.nullcontext"
        return "contextlib.nullcontext"


class _Neutralise(cst.CSTTransformer):
    """Each call in `reads` (by id) becomes `(call if not torch.compiler.is_compiling() else V)`;
    the value of an assignment without parentheses."""

    def __init__(self, reads: dict[int, str], torch: str, top: cst.BaseExpression | None) -> None:
        self.reads = reads
        self.torch = torch
        self.top = top

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        neutral = self.reads.get(id(original_node))
        if neutral is None:
            return updated_node
        code = cst.Module([]).code_for_node(updated_node)
        expression = cst.parse_expression(f"({code} if not {self.torch}.compiler.is_compiling() else {neutral})")
        if original_node is self.top:
            expression = expression.with_changes(lpar=(), rpar=())
        return expression


def _blocks(body: cst.IndentedBlock) -> Iterator[Sequence[cst.BaseStatement]]:
    """The function's blocks of statements, compound bodies included, nested scopes and what
    already runs only eagerly (`if not torch.compiler.is_compiling():`) not."""
    yield body.body
    for statement in body.body:
        if _skipped(statement):
            continue
        for child in iter_nodes(statement, prune=_skipped):
            if isinstance(child, cst.IndentedBlock):
                yield child.body


def _own_calls(node: cst.CSTNode) -> list[cst.Call]:
    """Calls in the node outside nested scopes and what already runs only eagerly."""
    return [child for child in iter_nodes(node, prune=_skipped) if isinstance(child, cst.Call)]


def _skipped(node: cst.CSTNode) -> bool:
    """A nested scope, or code that runs only eagerly (`_eager_only`)."""
    return is_scope(node) or _eager_only(node)


def _eager_only(node: cst.CSTNode) -> bool:
    """The body of `if not ...is_compiling():` or of `... if not ...is_compiling() else ...` (the
    fix's own forms): code that runs only eagerly."""
    return isinstance(node, (cst.If, cst.IfExp)) and tests_not_compiling(node.test)


def _is_context_manager(function: cst.FunctionDef) -> bool:
    """`__enter__`/`__exit__`, or a generator decorated with `contextmanager`."""
    if function.name.value in ("__enter__", "__exit__", "__aenter__", "__aexit__"):
        return True
    for decorator in function.decorators:
        name = decorator.decorator
        leaf = name.attr.value if isinstance(name, cst.Attribute) else name.value if isinstance(name, cst.Name) else ""
        if leaf in ("contextmanager", "asynccontextmanager"):
            return True
    return False


def _call_of(statement: cst.SimpleStatementLine) -> cst.Call | None:
    small = statement.body[0]
    return small.value if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) else None


def _assigned_value(statement: cst.SimpleStatementLine) -> cst.BaseExpression | None:
    small = statement.body[0] if len(statement.body) == 1 else None
    return small.value if isinstance(small, (cst.Assign, cst.AnnAssign)) else None


def _receiver(func: cst.Attribute) -> str | None:
    """`start` for `start.record`, `self.start` for `self.start.record`."""
    value = func.value
    if isinstance(value, cst.Name):
        return value.value
    if isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name):
        return f"{value.value.value}.{value.attr.value}"
    return None
