"""nonstrict-helper: trace a pure helper that Dynamo cannot trace with torch._dynamo.nonstrict_trace."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from graphweld.analysis.data_shapes import sizes_by_data
from graphweld.analysis.purity import HelperPurity, function_body
from graphweld.analysis.regions import FunctionInfo
from graphweld.rule import Rule, Safety
from graphweld.analysis.scopes import (
    bound_names,
    calls_where_written,
    nested_scope_or_expression,
    own_statements,
    parameter_names,
)
from graphweld.analysis.torch_api import NONSTRICT_TRACE
from graphweld.walk import iter_nodes

# Breaks that make a helper a candidate: Dynamo cannot trace it, though it may well be pure. I/O,
# logging and DLPack breaks belong to isolate-io and dlpack-custom-op.
CANDIDATE_KINDS = frozenset({"explicit", "untraceable", "configured"})


@dataclass(frozen=True)
class _Verdict:
    """Why a helper breaks (the statement and the call), and why it is not pure (None if it is)."""

    breaking: cst.CSTNode | None
    cause: str
    impurity: str | None


class NonstrictHelper(Rule):
    """Let Dynamo trace a pure helper it cannot trace, with `torch._dynamo.nonstrict_trace`.

    ## What it fixes
    A module-level function called from a compiled region whose body breaks the graph: an explicit
    `torch._dynamo.graph_break()`, frame introspection (`inspect.currentframe()`,
    `sys._getframe()`), a call from `extra-breakers`, or, with `--entry`, any break a run saw
    inside it (in any file under the given paths): a helper that takes gradients with
    `torch.autograd.grad` (a residual's differential operators, an attribution's input gradient)
    goes with them into the graph, its checks of their results included (`grad.grad_fn is None`);
    a call elsewhere is `traced-autograd-grad`'s, which traces the call alone.

    ## Why the graph breaks
    Dynamo traces Python bytecode and breaks the graph on what it cannot trace, splitting the
    caller in pieces. PyTorch's docs ("Strategy 2: pure functions can always be compiled via an
    escape hatch") prescribe `nonstrict_trace` for pure functions that use PyTorch tensor ops:
    Dynamo records one call and non-strict tracing (the tracer behind `torch.export`) captures
    its tensor operations into the same graph. Measured on torch 2.13: a helper calling
    `inspect.currentframe()` splits its caller into 3 graphs; through `nonstrict_trace`, 1.

    ## Example
    ```python
    def g(x):
        y = x.sin()
        torch._dynamo.graph_break()
        z = y.sin()
        return z


    @torch.compile(fullgraph=True)
    def f(x):
        w = x.sin()
        return g(w)
    ```
    becomes, when every caller of `g` in the module is compiled,
    ```python
    @torch._dynamo.nonstrict_trace
    def g(x):
        ...
    ```
    and otherwise (the seed's form) only the compiled call sites change:
    ```python
        return torch._dynamo.nonstrict_trace(g)(w)
    ```
    The rewrite writes `torch._dynamo.nonstrict_trace` whichever torch graphweld runs under, so the
    file runs on every torch graphweld admits (2.7 and later): the public spelling
    `torch.compiler.nonstrict_trace` does not exist before 2.14, and Dynamo 2.14 skips it at a call
    site (GB0007), while it traces `torch._dynamo.nonstrict_trace` in both forms (measured on 2.13,
    2.14 and 2.15; 2.15 traces both spellings alike).

    ## Safety
    Safe for pure helpers, which is what the rule checks: no I/O, no `global`/`nonlocal`, no
    writes to attributes or items of objects it did not create, no Python randomness or clocks,
    no reads of tensor values into Python (`.item()`, `.tolist()`), no reads of module-level
    variables (non-strict tracing treats them as constants), and a returned value. Helpers it
    calls in the same module are checked too. Anything else is reported, not rewritten: the docs
    give no soundness guarantee for impure functions. Eager runs are unchanged (`nonstrict_trace`
    only marks the function for Dynamo). A helper that may be called with `None` (a parameter
    defaulting to `None`, or annotated `Optional[...]` / `X | None`: torchmetrics'
    `thresholds: Optional[Tensor]`) is reported too, unless a run saw it break (`fix --entry`):
    before torch 2.15 `nonstrict_trace` takes tensors, numbers, strings and containers of them,
    and Dynamo breaks at every call that passes `None` ("Invalid input type for nonstrict_trace-ed
    function", GB0236, measured on torch 2.13 and 2.14); a call that leaves a `None` default alone
    traces whole, and torch 2.15 takes `None` (measured). Where a run saw it break, the helper is
    rewritten and the run measures its calls as they are. Also reported:
    a helper that returns a NamedTuple, a namedtuple or a dataclass of its module (by its return
    annotation or a `return Cls(...)`): Dynamo refuses those as a nonstrict_trace output ("Unsupported
    output type", measured on torch 2.13), so the rewrite would break in its own wrapper. So is a
    helper that calls an operator whose result's shape is decided by data (`torch.unique`,
    `nonzero`, `repeat_interleave` by a tensor of counts): non-strict tracing stops there whatever
    the helper returns (GB0036 inside it, or GB0251 at its call). So is
    a helper that makes a Python truth value of tensor comparisons (`all(x < y for x, y in
    zip(ts[:-1], ts[1:]))`, torchsde's check that times increase; `bool(a == b)`): non-strict
    tracing runs it on tensors that have no values, and Dynamo breaks at every call ("Unsupported
    output type for nonstrict_trace-ed function", GB0251). So is one that decides on a tensor
    reduced to one truth value (`if (x < 0).any():`, `... if bool(x.isfinite().all()) else ...`):
    deciding on a value-less tensor fails the compile ("Could not guard on data-dependent
    expression", measured on torch 2.13).
    """

    id = "nonstrict-helper"
    reference = "https://docs.pytorch.org/docs/stable/compile/programming_model.dynamo_nonstrict_trace.html"
    summary = "Trace a pure helper Dynamo cannot trace through torch._dynamo.nonstrict_trace"
    # The README's table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = (
        "a module-level helper called from a compiled region whose body breaks the graph "
        "(`torch._dynamo.graph_break()`, frame introspection such as `inspect.currentframe()`, configured "
        "`extra-breakers`, or, with `--entry`, any break a run saw inside it)"
    )
    rewrite = (
        "trace it with `torch._dynamo.nonstrict_trace`: decorate the helper when every caller in the module "
        "is compiled, else wrap the compiled call sites (`torch._dynamo.nonstrict_trace(g)(w)`)"
    )
    default = "safe for helpers it finds pure; impure ones are reported"
    # Words of the breaks it handles: explicit breaks and frame introspection (and, added by the
    # engine, the names in `extra-breakers`).
    # (`inspect.stack`/`inspect.currentframe` need `inspect` in the text; `stack` alone matched
    # every `torch.stack`.)
    trigger_words = ("graph_break", "skip_frame", "_getframe", "inspect")
    triggered_by_configured_breakers = True
    node_types = (cst.FunctionDef,)

    def __init__(self, context) -> None:  # type: ignore[no-untyped-def]
        super().__init__(context)
        self._verdicts: dict[str, _Verdict | None] = {}
        self._purity = HelperPurity(context)
        self._decorated: set[str] = set()
        self._breaking: set[str] | None = None
        self._records: dict[str, str] | None = None

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        regions = self.context.regions
        info = regions.function_info(node)
        if info is None:
            return
        if (
            _is_module_level(info)
            and info.qualname in regions.called_names
            and not regions.is_compile_root(node)
            and not regions.has_compiled_caller(node.name.value)
        ):
            # A run saw a break inside it; its compiled callers are in other modules.
            self._consider(node.name.value, caller=None, statement=None)
        if not regions.is_compiled(node) or not self._breaking_helpers():
            return
        local = parameter_names(node) | bound_names(function_body(node))
        wanted = self._breaking_helpers() - local
        for statement in own_statements(node):
            for call in calls_where_written(statement):
                if isinstance(call.func, cst.Name) and call.func.value in wanted:
                    self._consider(call.func.value, caller=node, statement=statement)

    def _breaking_helpers(self) -> set[str]:
        """Module-level functions whose body breaks the graph (the only calls worth a look)."""
        if self._breaking is None:
            self._breaking = {
                info.name for info in self.context.regions.module_functions() if self._verdict(info) is not None
            }
        return self._breaking

    # -- deciding ---------------------------------------------------------------------------------

    def _consider(self, name: str, caller: cst.FunctionDef | None, statement: cst.BaseStatement | None) -> None:
        helper = self.context.regions.module_function(name)
        if helper is None or helper.node is caller or self.context.regions.is_compile_root(helper.node):
            return
        verdict = self._verdict(helper)
        if verdict is None or name in self._decorated:
            return
        where = (
            f"called from compiled `{caller.name.value}`" if caller is not None
            else "which a run of the entry saw compiled from another module"
        )
        anchor = verdict.breaking or helper.node
        if verdict.impurity is not None:
            self._decorated.add(name)  # report once
            self.report(
                anchor,
                f"`{name}`, {where}, breaks the graph ({verdict.cause}), but {verdict.impurity}; not rewritten "
                "(nonstrict_trace is sound only for pure helpers that return their results)",
            )
            return
        api = NONSTRICT_TRACE
        takes_none = _may_take_none(helper.node, self.context.regions.imports.qualify)
        # A run measures what the calls pass: one that leaves a `None` default alone, or a torch
        # that takes `None` (2.15), traces whole; without one, a call might pass it.
        seen_by_run = helper.qualname in self.context.regions.called_names
        if takes_none is not None and not seen_by_run:
            self._decorated.add(name)
            self.report(
                anchor,
                f"`{name}` breaks the graph ({verdict.cause}), but it may be called with `None` ({takes_none}), "
                f"which {api} cannot take before torch 2.15 (Dynamo breaks at every such call, GB0236); not "
                "rewritten without a run (`fix --entry`) to measure its calls",
            )
            return
        none_note = (
            f" (it may be called with `None`, {takes_none}: before torch 2.15 Dynamo breaks at a call that passes it, "
            "GB0236; the run measures the calls)"
            if takes_none is not None
            else ""
        )
        decorate = caller is None or self.context.regions.only_compiled_calls(name)
        if decorate:
            self._decorated.add(name)
            decorator = cst.Decorator(decorator=cst.parse_expression(api))
            decorated = helper.node.with_changes(decorators=(decorator, *helper.node.decorators))
            self.propose(
                helper.node,
                [decorated],
                anchor=anchor,
                message=(
                    f"`{name}`, {where}, breaks the graph ({verdict.cause}); it is pure, so let Dynamo trace it "
                    f"non-strictly: decorate it with `@{api}`{none_note}"
                ),
                safety=Safety.SAFE,
            )
            return
        assert statement is not None
        wrapped = statement.visit(_WrapCalls(name, api))
        self.propose(
            statement,
            [wrapped],  # type: ignore[list-item]
            anchor=statement,
            message=(
                f"`{name}` breaks the graph ({verdict.cause}); it is pure, so call it through `{api}({name})` "
                f"in compiled `{caller.name.value if caller is not None else ''}` (it is also used outside compiled code)"
                f"{none_note}"
            ),
            safety=Safety.SAFE,
        )

    def _verdict(self, helper: FunctionInfo) -> _Verdict | None:
        name = helper.name
        if name not in self._verdicts:
            self._verdicts[name] = None  # recursion guard
            self._verdicts[name] = self._judge(helper)
        return self._verdicts[name]

    def _judge(self, helper: FunctionInfo) -> _Verdict | None:
        node = helper.node
        context = self.context
        qualify = context.regions.imports.qualify
        decorators = {qualify(d) for d in helper.decorators}
        breaking, cause = None, ""
        for statement in _simple_statements(node):
            breaker = context.breakers.statement_breaker(statement)
            if breaker is not None and breaker.kind in CANDIDATE_KINDS:
                breaking, cause = statement, f"`{context.code(statement)}`"
                break
        if breaking is None:
            if helper.qualname not in context.regions.called_names:
                return None
            only_other_kinds = any(context.breakers.statement_breaker(s) for s in _simple_statements(node))
            if only_other_kinds:
                return None  # its I/O or DLPack break is another rule's to fix
            cause = "a run of the entry saw a break inside it"
        if decorators:
            if any(d is not None and d.endswith(("nonstrict_trace", "allow_in_graph")) for d in decorators):
                return None
            return _Verdict(breaking, cause, f"it is decorated (`@{min(d or '?' for d in decorators)}`)")
        refused = self._refused_output(node) or self._sized_by_data(node)
        if refused is not None:
            return _Verdict(breaking, cause, refused)
        return _Verdict(breaking, cause, self._purity.impurity(helper))

    def _refused_output(self, node: cst.FunctionDef) -> str | None:
        """Why Dynamo would refuse what the helper returns from a nonstrict_trace call: a NamedTuple,
        a namedtuple or a dataclass of the module (measured on torch 2.13: "Unsupported output type"
        for a dataclass, an exception for the tuples), by its annotation or a `return Cls(...)`."""
        records = self._record_classes()
        returned = [node.returns.annotation] if node.returns is not None else []
        returned += [
            n.value.func for n in iter_nodes(node.body)
            if isinstance(n, cst.Return) and isinstance(n.value, cst.Call)
        ]
        for expression in returned:
            if isinstance(expression, cst.Name) and expression.value in records:
                return (
                    f"it returns `{expression.value}`, {records[expression.value]}, which Dynamo refuses as the "
                    "output of a nonstrict_trace call"
                )
        return None

    def _sized_by_data(self, node: cst.FunctionDef) -> str | None:
        """Why non-strict tracing breaks inside the helper: an operator whose result's shape its
        inputs' values decide (torchani's `torch.unique_consecutive(..., return_counts=True)`, a
        detector's `nonzero()` of the boxes it keeps). Non-strict tracing runs the helper on tensors
        without values and stops there, whatever the helper returns (measured on torch 2.13:
        "Dynamic shape operator", GB0036, inside the wrapper, or "Unsupported output type for
        nonstrict_trace-ed function", GB0251, at its call) unless `capture_dynamic_output_shape_ops`
        is on, which lets Dynamo trace the helper as it is."""
        qualify = self.context.regions.imports.qualify
        for call in iter_nodes(node.body):
            if isinstance(call, cst.Call) and sizes_by_data(call, qualify):
                func = call.func
                operator = f".{func.attr.value}()" if isinstance(func, cst.Attribute) and not (qualify(func) or "").startswith("torch.") else qualify(func)
                return (
                    f"it calls `{operator}`, whose result's shape is decided by data, and non-strict "
                    "tracing breaks there (GB0036 or GB0251) unless `capture_dynamic_output_shape_ops` is on"
                )
        return None

    def _record_classes(self) -> dict[str, str]:
        """The module's NamedTuples, namedtuples and dataclasses, by name, with what each is."""
        if self._records is None:
            qualify = self.context.regions.imports.qualify
            self._records = {}
            for statement in self.context.module.body:
                if isinstance(statement, cst.ClassDef):
                    if any(qualify(base.value) in ("typing.NamedTuple", "typing_extensions.NamedTuple") for base in statement.bases):
                        self._records[statement.name.value] = "a NamedTuple"
                    elif any(qualify(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator) == "dataclasses.dataclass"
                             for d in statement.decorators):
                        self._records[statement.name.value] = "a dataclass"
                elif isinstance(statement, cst.SimpleStatementLine):
                    for small in statement.body:
                        if (
                            isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name)
                            and isinstance(small.value, cst.Call)
                            and qualify(small.value.func) in ("collections.namedtuple", "typing.NamedTuple")
                        ):
                            self._records[small.targets[0].target.value] = "a namedtuple"
        return self._records

class _WrapCalls(cst.CSTTransformer):
    """`name(args)` -> `<api>(name)(args)` (the seed's call-site form)."""

    def __init__(self, name: str, api: str) -> None:
        super().__init__()
        self.name = name
        self.api = api

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> bool:
        return False  # statements in a compound statement's body are changes of their own

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if isinstance(original_node.func, cst.Name) and original_node.func.value == self.name:
            wrapper = cst.Call(func=cst.parse_expression(self.api), args=[cst.Arg(cst.Name(self.name))])
            return updated_node.with_changes(func=wrapper)
        return updated_node


def _is_module_level(info: FunctionInfo) -> bool:
    return info.cls is None and info.parent is None and info.outer is None


def _simple_statements(node: cst.FunctionDef) -> list[cst.BaseStatement]:
    """The function's simple statements (and compound statements with one-line suites), nested
    blocks included, nested functions and classes not: they do not run where they are written."""
    found: list[cst.BaseStatement] = []
    for current in iter_nodes(node.body, prune=nested_scope_or_expression):
        one_line_suite = isinstance(getattr(current, "body", None), cst.SimpleStatementSuite)
        if isinstance(current, cst.SimpleStatementLine) or (isinstance(current, cst.BaseCompoundStatement) and one_line_suite):
            found.append(current)
    return found


# How a parameter says it may be None: `Optional[X]`, `Union[X, None]`.
_OPTIONAL = frozenset({"typing.Optional", "Optional"})
_UNION = frozenset({"typing.Union", "Union"})


def _may_take_none(function: cst.FunctionDef, qualify) -> str | None:  # type: ignore[no-untyped-def]
    """The parameter of a helper that may be `None` (a `None` default, or an annotation that
    allows it: torchmetrics' `thresholds: Optional[Tensor]`), as written; None if none may be.
    `nonstrict_trace` takes tensors, numbers, strings and containers of them, not `None`
    (torch 2.13 and 2.14: "Invalid input type for nonstrict_trace-ed function", GB0236)."""
    params = function.params
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        if param.default is not None and isinstance(param.default, cst.Name) and param.default.value == "None":
            return f"`{param.name.value}=None`"
        annotation = param.annotation.annotation if param.annotation is not None else None
        if annotation is not None and _allows_none(annotation, qualify):
            return f"`{param.name.value}: {cst.Module([]).code_for_node(annotation)}`"
    return None


def _allows_none(annotation: cst.BaseExpression, qualify) -> bool:  # type: ignore[no-untyped-def]
    if isinstance(annotation, cst.Name) and annotation.value == "None":
        return True
    if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
        return _allows_none(annotation.left, qualify) or _allows_none(annotation.right, qualify)
    if isinstance(annotation, cst.Subscript):
        name = qualify(annotation.value) or cst.Module([]).code_for_node(annotation.value)
        if name in _OPTIONAL:
            return True
        if name in _UNION:
            return any(
                isinstance(element.slice, cst.Index) and _allows_none(element.slice.value, qualify) for element in annotation.slice
            )
    if isinstance(annotation, (cst.SimpleString, cst.ConcatenatedString)):
        text = annotation.evaluated_value if isinstance(annotation.evaluated_value, str) else ""
        return "Optional[" in text or "None" in text.replace(" ", "").split("|")
    return False
