"""eager-helper: a helper that computes from tensor values runs eagerly, one break at its call."""

from __future__ import annotations

import re

import libcst as cst

from graphweld.analysis.breakers import TENSOR_VALUE_READS
from graphweld.analysis.regions import FunctionInfo
from graphweld.analysis.blocks import block_statements, definitions_anchor
from graphweld.analysis.data_shapes import sizes_by_data
from graphweld.analysis.eager_block import eager_block, extended_run, top_level_run
from graphweld.analysis.scopes import (
    SCOPE_NODES,
    bound_names,
    calls_where_written,
    fresh_name,
    loaded_names,
    mentioned_names,
    own_statements,
    parameter_names,
)
from graphweld.rule import Rule, RuleContext, Safety
from graphweld.walk import iter_nodes

# Without a run, a helper is taken only for `.item()`, `.tolist()` or `.numpy()` of a tensor: a
# module whose text has none of them is not walked (the scan of a whole package).
_VALUE_READ_TEXT = re.compile(r"\.\s*(?:item|tolist|numpy)\s*\(\s*\)")

COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
# Methods that are never worth running eagerly: the model's own entry points.
ENTRY_METHODS = frozenset({"forward", "__call__"})


class EagerHelper(Rule):
    """Run a helper that computes from tensor values eagerly, with `torch.compiler.disable`.

    ## What it fixes
    A helper (a module-level function, or a method other than `forward`) called from compiled code
    that reads the values of its tensors into Python or sizes a tensor by them: a loop over
    `grid_thw.tolist()` building position ids, `torch.repeat_interleave` by a tensor of counts,
    `torch.where(diff)[0]` picking thresholds, a boolean mask filtering edges. It fires where a
    run of the entry (`fix --entry`) saw Dynamo break inside the helper on such a line, or on a call
    Dynamo cannot trace at all, as the run's GB id says (a function it skips, GB0007/GB0008: NumPy's
    `SeedSequence`, `Generator.manual_seed`; an opaque object, GB0363: a `torch.Generator` seeded
    per call, as torchsde draws its Brownian increments; an unsupported method, GB0156) or raised an
    error of its own tracing a call there, so that the compiled run fails (InternalTorchDynamoError:
    PyKEEN's RotatE scoring), or, without
    a run, on a helper that reads the values of what the code shows is a tensor (a parameter
    annotated `torch.Tensor`, a torch result) twice or in a `for` header. On a run's evidence it
    takes only a helper that runs no model of its own: no `while` loop (an adaptive solver's step
    loop), no call of one of its parameters (a vector field passed in) or of a submodule. It is
    the last rule tried on a helper: a rule that keeps the value in the graph, and
    `nonstrict-helper` for a pure helper, come first.

    It also takes a helper that does little besides calling a function that already runs eagerly
    (disabled for Dynamo: by this rule in an earlier round of `fix --entry`, or by the library),
    where a run saw Dynamo break at that call (GB0098/GB0099): transformers'
    `get_vision_attention_seqlens`, kornia's color jitter `apply_transform`, torchmetrics'
    `_binary_auroc_compute`, the speech encoders' `_mask_hidden_states`. "Little" means no loop or
    comprehension, no call of an attribute of `self` that is not one of the class's methods (a
    submodule, a stored vector field), and no call of its own methods besides the eager call (a
    metric's `update`): a solver's step loop or a layer's work stays compiled.

    A helper that computes from tensor values but also runs a layer's work (a submodule, a layer
    taken from `self` into a local, a function passed in) is not run eagerly whole: the run of its
    top-level statements that holds what the run saw break, with the statements after it that go
    on computing from what it binds, moves into a module-level function of its own, run eagerly,
    when that run reads no `self` and calls no layer: ViLT's `visual_embed` samples a fixed number
    of patches per image over the pixel mask (`nonzero`, `unique`, `torch.multinomial`) between
    its patch embedding and its class token, and only the sampling leaves the graph. Names flow in
    as the function's arguments and out as its return value.

    And it takes a helper where a run saw Dynamo stop on data-dependent branching (GB0170) at an
    `if` whose sides pick Python objects or return early, which `branch-to-cond` and
    `branch-to-where` cannot express, when the helper runs no model of its own (no `while` loop,
    no call of one of its parameters or of a submodule): torchdiffeq's `_check_inputs`, which
    negates the times and wraps the vector field when they decrease, and linear_operator's
    `_psd_safe_cholesky`, which returns the factor unless its status says the factorization
    failed. A solver step that calls the vector field it is given is left alone.

    ## Why the graph breaks
    Dynamo cannot know a tensor's values while it builds the graph, so it breaks at each read
    ("Data dependent operator", GB0033; "Dynamic shape operator", GB0036). A break inside an
    inlined helper also splits its caller, and the helper's remaining pieces become graphs of
    their own, so one helper costs several breaks and graphs per call: Qwen3-VL's vision tower
    breaks 14 times in three such helpers of `transformers/vision_utils.py`. PyTorch's docs
    ("Strategy 3: don't compile the code") move code the compiler cannot help out of the compiled
    region; `torch.compiler.disable` does that for a function: Dynamo calls it eagerly, one break
    at the call. Measured on torch 2.13: those three helpers disabled, the tower breaks 6 times in
    7 graphs instead of 14 in 16. A break inside an inlined helper is also counted twice: in the
    caller's frame, which Dynamo splits at the helper's call, and again in the helper's own frame,
    which it then compiles; so a helper around a disabled call costs two breaks per call where,
    itself disabled, it costs one (transformers' vision towers, torch 2.13: 7 -> 6).

    ## Example
    ```python
    def vision_position_ids(grid_thw, merge):
        ids = []
        for t, h, w in grid_thw.tolist():
            ...
        return torch.cat(ids)
    ```
    becomes
    ```python
    @torch.compiler.disable
    def vision_position_ids(grid_thw, merge):
        ...
    ```

    ## Safety
    Safe: the helper runs exactly as it runs eagerly, side effects included, and autograd records
    its operations as in eager mode. What changes is performance: its tensor operations are no
    longer compiled, so the rule fires only where Dynamo breaks inside the helper anyway (a helper
    around an eager call only when it does little else), and
    `fix --entry` keeps the change only when the run has fewer skipped frames, breaks or graphs,
    and not when a layer's parameters (two or more) or most of the graphs' ops (of 20 or more)
    leave the graphs with it: part of the model would run eagerly (torchdyn's `odeint` disabled:
    parameters in graphs 4 -> 0, 420 ops -> 1; torchcde's, 103 ops -> 27).
    Under `capture_scalar_outputs` / `capture_dynamic_output_shape_ops` Dynamo may trace such a
    helper whole; disabled, it stays one break. So with `--unsafe-fixes`, where `fix --entry` writes
    a capture setting next to the entry's own `torch.compile`, it also measures the settings
    without this rule's changes and drops them when a setting then compiles better. Left alone: decorated helpers, generators and
    coroutines, functions `torch.compile` starts at, and modules where `torch` names something else
    (a module without `import torch` gets one). A run of statements moved into a function of its
    own is as safe: it runs the same statements on the same values, and what it binds that is
    read after it is returned; a run that returns, yields, calls `super()` or declares names
    global stays where it is. `fix --entry` refuses it, like a whole helper, when parameters leave
    the graphs (the ops that leave are not judged: they are those of the pieces Dynamo compiled
    between the run's breaks).
    """

    id = "eager-helper"
    reference = "https://docs.pytorch.org/docs/stable/compile/programming_model.fullgraph_true.html"
    summary = "Run a helper that computes from tensor values eagerly, with torch.compiler.disable"
    # The README's table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = (
        "a helper called from compiled code that reads its tensors' values into Python or sizes a tensor by them "
        "(`for t, h, w in grid_thw.tolist()`, `torch.repeat_interleave(x, counts)`, `torch.where(diff)[0]`), "
        "where a run saw Dynamo break inside it, or, without a run, that reads a known tensor's values twice or in a `for` header; "
        "a helper that does little besides calling a function that already runs eagerly, where a run saw that call break; "
        "a setup or fallback helper whose `if` on tensor values picks Python objects (torchdiffeq's reversed times, "
        "linear_operator's Cholesky fallback), where a run saw Dynamo stop there"
    )
    rewrite = (
        "decorate the helper with `@torch.compiler.disable`: Dynamo calls it eagerly, one break at the call; in a helper "
        "that also runs a layer, move the statements that compute from tensor values into a disabled function of their own"
    )
    default = "safe (the helper runs as it does eagerly); the last rule tried on a helper"
    # Without a run it looks for values read into Python; a run's breaks bring every rule to a file.
    trigger_words = ("tolist", "item", "numpy")
    needs_breaker_call = False
    node_types = (cst.FunctionDef,)

    def __init__(self, context: RuleContext) -> None:
        super().__init__(context)
        self._may_apply = (
            bool(context.evidence.break_lines or context.evidence.disabled_call_lines)
            or context.text is None
            or _VALUE_READ_TEXT.search(context.text) is not None
        )

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if not self._may_apply:
            return
        context = self.context
        regions = context.regions
        info = regions.function_info(node)
        if info is None or not _is_helper(info) or regions.is_compile_root(node):
            return
        torch_name = context.torch_name()
        if torch_name is None:
            return
        statements = own_statements(node)
        reads = [(statement, call) for statement in statements for call in self._value_calls(statement)]
        broken = [statement for statement in statements if context.breaks_per_run(statement)]
        # A call of a function that already runs eagerly (`torch.compiler.disable`: this rule's
        # own, or the library's) breaks in the helper's frame and again at the helper's call in its
        # caller's; a helper that does little else is worth running eagerly too: one break.
        eager_calls = (
            [statement for statement in statements if context.calls_disabled_per_run(statement)]
            if context.evidence.disabled_call_lines
            else []
        )
        if not reads and not broken and not eager_calls:
            return
        # Who calls it is asked last: the module's references are walked when first asked.
        seen_by_run = info.qualname in regions.called_names
        if not (seen_by_run or (info.cls is None and regions.has_compiled_caller(info.name))):
            return
        if _generator_or_coroutine(node):
            return
        value_lines = {id(statement) for statement, _ in reads}
        evidence = [statement for statement in broken if id(statement) in value_lines or _masks(statement)]
        # A call Dynamo cannot trace at all (a `torch.Generator` seeded per call, NumPy's
        # `SeedSequence`), as the run's GB id says: nothing in the helper's line keeps it traced.
        untraceable = [statement for statement in broken if context.untraceable_per_run(statement)]
        # An `if` on tensor values that branch-to-cond and branch-to-where cannot take (its sides
        # pick Python objects: a wrapped function, options, an early return), in a helper that
        # runs no model of its own: a setup or fallback step, eager at one break a call.
        branching = [statement for statement in broken if isinstance(statement, cst.If) and context.branches_on_tensor_per_run(statement)]
        if (evidence or untraceable or branching) and not _runs_no_model(statements, node, info):
            # The helper runs a layer's work too (ViLT's `visual_embed`: its patch embedding): only
            # the run of statements that computes from tensor values goes eager.
            # Any break a run saw counts there: the statements moved run as they did, and what
            # breaks at them (a comprehension over a tensor's values, an interpolation to sizes read
            # from a tensor) goes with the rest.
            if evidence or untraceable:
                self._propose_block(node, info, statements, [s for s in statements if context.breaks_within_per_run(s)], torch_name)
            return
        if evidence or untraceable:
            anchor, resolves = (evidence or untraceable)[0], [*evidence, *untraceable]
            what, why = "computes from tensor values", f"a run saw Dynamo break inside it (`{context.code(anchor)}`)"
            if not evidence:
                what = "calls what Dynamo cannot trace"
                why = f"a run saw Dynamo break or fail inside it on such a call (`{context.code(anchor)}`)"
        elif branching:
            anchor, resolves = branching[0], branching
            what = "branches on tensor values"
            why = f"a run saw Dynamo stop on data-dependent branching inside it (`{context.code(anchor)}`)"
        elif eager_calls:
            if not _little_else(statements, info, eager_calls):
                return
            anchor, resolves = eager_calls[0], eager_calls
            what = "calls a function that runs eagerly"
            why = (
                f"a run saw Dynamo break at that call (`{context.code(anchor)}`) in its frame and again where it is "
                "called"
            )
        else:
            # Without a run, only reads of what the code shows is a tensor (an annotated parameter,
            # a torch result): `.item()` of a NumPy value breaks nothing.
            values = context.function_values(node)
            value_reads = [
                (s, c) for s, c in reads
                if _method(c) in TENSOR_VALUE_READS and isinstance(c.func, cst.Attribute) and values.is_tensor(c.func.value)
            ]
            in_header = [s for s, _ in value_reads if isinstance(s, cst.For)]
            if len(value_reads) < 2 and not in_header:
                return
            anchor = (in_header or [value_reads[0][0]])[0]
            resolves = [s for s, _ in value_reads]
            what, why = "computes from tensor values", f"it reads tensor values into Python (`{context.code(anchor)}`)"
        if not self.allows("", anchor):
            return
        decorator = cst.Decorator(decorator=cst.parse_expression(f"{torch_name}.compiler.disable"))
        self.propose(
            node,
            [node.with_changes(decorators=(decorator, *node.decorators))],
            anchor=anchor,
            message=(
                f"`{info.name}` {what}: {why}, which also splits its compiled caller; run it "
                f"eagerly with `@{torch_name}.compiler.disable` (one break at the call)"
            ),
            safety=Safety.SAFE,
            resolves=resolves,
        )

    def _propose_block(
        self,
        node: cst.FunctionDef,
        info: FunctionInfo,
        statements: list[cst.BaseStatement],
        seen: list[cst.BaseStatement],
        torch_name: str,
    ) -> None:
        """Move the run of top-level statements holding what a run saw break into a function of its
        own, run eagerly, when the run calls no model (no submodule, parameter or `while`) and does
        not read `self`."""
        context = self.context
        run = top_level_run(node, seen)
        if not run or not self.allows("block", run[0]):
            return
        params = node.params.params
        forbidden = frozenset({params[0].name.value}) if info.cls is not None and params else frozenset()

        body = block_statements(node.body)
        at = next(i for i, s in enumerate(body) if s is run[0])
        # The function's own names: one called in the run may be a layer taken from `self` before it.
        local = parameter_names(node) | bound_names(body[:at])

        def movable(statement: cst.BaseStatement) -> bool:
            held = {id(n) for n in iter_nodes(statement)}
            called = {n.func.value for n in iter_nodes(statement) if isinstance(n, cst.Call) and isinstance(n.func, cst.Name)}
            return not (loaded_names([statement]) & forbidden) and not (called & local) and _runs_no_model(
                [s for s in statements if id(s) in held], node, info, loops_allowed=True
            )

        if not all(movable(statement) for statement in run):
            return
        # A selection just before the run that it reads (`valid_idx = x_mask.nonzero()`) goes too.
        while at > 0 and movable(body[at - 1]) and self._value_calls(body[at - 1]) and bound_names([body[at - 1]]) & loaded_names(run):
            at -= 1
            run = [body[at], *run]
        run = extended_run(node, run, movable)
        anchor = definitions_anchor(context.module)
        if anchor is None:
            return
        name = fresh_name(f"_{info.name.lstrip('_')}_eager", mentioned_names([context.module]))
        block = eager_block(node, run, name, torch_name, forbidden)
        if isinstance(block, str):
            return
        lines = f"{len(run)} statement{'s' if len(run) > 1 else ''}"
        self.propose(
            run[0],
            [block.call],
            anchor=run[0],
            extra=[*((statement, []) for statement in run[1:]), (anchor, [anchor, block.definition])],
            message=(
                f"`{info.name}` computes from tensor values (a run saw Dynamo break in it at `{context.code(seen[0])}`) "
                f"and runs a layer's work too: move the {lines} that compute from tensor values into `{name}`, run "
                f"eagerly with `@{torch_name}.compiler.disable` (one break at its call; the rest stays compiled)"
            ),
            safety=Safety.SAFE,
            resolves=seen,
            form="block",
        )

    def _value_calls(self, statement: cst.BaseStatement) -> list[cst.Call]:
        """The calls where the statement is written (and in its comprehensions) that read tensor
        values or size a tensor by them."""
        qualify = self.context.regions.imports.qualify
        calls = list(calls_where_written(statement))
        for nested in iter_nodes(statement, prune=lambda n: isinstance(n, (cst.IndentedBlock, cst.FunctionDef, cst.ClassDef, cst.Lambda))):
            if isinstance(nested, COMPREHENSIONS):
                calls += [n for n in iter_nodes(nested) if isinstance(n, cst.Call)]
        found = []
        for call in dict.fromkeys(calls):
            if (_method(call) in TENSOR_VALUE_READS and not call.args) or sizes_by_data(call, qualify):
                found.append(call)
        return found


def _is_helper(info: FunctionInfo) -> bool:
    """A module-level function or a method directly in a module-level class, undecorated, not an
    entry point (`forward`) or a dunder."""
    if info.parent is not None or info.decorators:
        return False
    if info.cls is not None:
        return info.outer is None and info.name not in ENTRY_METHODS and not info.name.startswith("__")
    return info.outer is None


def _method(call: cst.Call) -> str | None:
    func = call.func
    if isinstance(func, cst.Attribute):
        return func.attr.value
    if isinstance(func, cst.Name):
        return func.value
    return None


def _masks(statement: cst.BaseStatement) -> bool:
    """Whether the statement indexes with a name (a boolean mask `edges[:, mask]`): where a run saw
    it break, the mask selected by value."""
    for node in iter_nodes(statement, prune=lambda n: isinstance(n, (cst.IndentedBlock, *SCOPE_NODES))):
        if isinstance(node, cst.Subscript) and any(
            isinstance(element.slice, cst.Index) and isinstance(element.slice.value, (cst.Name, cst.UnaryOperation, cst.Subscript))
            for element in node.slice
        ):
            return True
    return False


def _little_else(statements: list[cst.BaseStatement], info: FunctionInfo, eager_calls: list[cst.BaseStatement]) -> bool:
    """Whether a helper does little besides its eager calls, so that running it eagerly moves no
    real work out of the graph: no loop (a solver's step loop, a comprehension), no call of an
    attribute of `self` that is not one of the class's methods (a submodule, a stored model), and
    no call of its own methods outside the eager calls' statements (a metric's `update`, a
    layer's work: torchmetrics' `Metric._forward_reduce_state_update` calls both)."""
    methods = info.cls.methods if info.cls is not None else {}
    eager = {id(statement) for statement in eager_calls}
    for statement in statements:
        for found in iter_nodes(statement, prune=lambda n: isinstance(n, (cst.IndentedBlock, *SCOPE_NODES))):
            if isinstance(found, (cst.For, cst.While, *COMPREHENSIONS)):
                return False
            if (
                isinstance(found, cst.Call)
                and isinstance(found.func, cst.Attribute)
                and isinstance(found.func.value, cst.Name)
                and found.func.value.value == "self"
                and (found.func.attr.value not in methods or id(statement) not in eager)
            ):
                return False
    return True


def _runs_no_model(
    statements: list[cst.BaseStatement], function: cst.FunctionDef, info: FunctionInfo, loops_allowed: bool = False
) -> bool:
    """Whether running the helper eagerly keeps the model's work in the graph: no `while` (an
    adaptive solver's step loop; allowed in a run of statements that reads no `self` and calls
    no parameter), no call of one of its parameters (a model or a vector field passed in) and no
    call of an attribute of `self` that is not one of the class's methods (a submodule)."""
    if not loops_allowed and any(isinstance(statement, cst.While) for statement in statements):
        return False
    params = function.params
    parameters = {param.name.value for param in (*params.posonly_params, *params.params, *params.kwonly_params)}
    methods = info.cls.methods if info.cls is not None else {}
    # Locals bound to a submodule (`score = self.score`, `layer = self.layers[i]`) call one too.
    layers = {
        target.target.value
        for assign in iter_nodes(function.body, prune=lambda n: isinstance(n, SCOPE_NODES))
        if isinstance(assign, cst.Assign) and _submodule(assign.value, methods)
        for target in assign.targets
        if isinstance(target.target, cst.Name)
    }
    for statement in statements:
        for found in iter_nodes(statement, prune=lambda n: isinstance(n, (cst.IndentedBlock, *SCOPE_NODES))):
            if not isinstance(found, cst.Call):
                continue
            if isinstance(found.func, cst.Name) and found.func.value in parameters | layers:
                return False
            if _submodule(found.func, methods):
                return False
    return True


def _submodule(node: cst.BaseExpression, methods) -> bool:  # type: ignore[no-untyped-def]
    """`self.x` or `self.layers[i]` (`self.experts[e][0]`): an attribute of `self` that is not one
    of the class's methods, or an item of one. (`self.embed.to(x)` calls a method of a tensor the
    helper reads, not a layer.)"""
    while isinstance(node, cst.Subscript):
        node = node.value
    return (
        isinstance(node, cst.Attribute)
        and isinstance(node.value, cst.Name)
        and node.value.value == "self"
        and node.attr.value not in methods
    )


def _generator_or_coroutine(node: cst.FunctionDef) -> bool:
    if node.asynchronous is not None:
        return True
    return any(
        isinstance(n, (cst.Yield, cst.Await))
        for n in iter_nodes(node.body, prune=lambda n: isinstance(n, (cst.FunctionDef, cst.ClassDef, cst.Lambda)))
    )
