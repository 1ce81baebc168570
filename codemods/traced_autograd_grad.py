"""traced-autograd-grad: `torch.autograd.grad` in a compiled region is traced non-strictly."""

from __future__ import annotations

import libcst as cst

from graphweld.analysis.blocks import binds_at_module_level, definitions_anchor
from graphweld.analysis.iterators import as_list, is_lazy_iterable, iterators_bound_before
from graphweld.analysis.scopes import fresh_name
from graphweld.analysis.torch_api import NONSTRICT_TRACE
from graphweld.call_rewrite import CallRewrite
from graphweld.rule import Rule, Safety
from graphweld.walk import iter_nodes

# The functions rewritten, by qualified name, and their tensor arguments by position and keyword.
GRAD_FUNCTIONS = frozenset(("torch.autograd.grad",))
TENSOR_ARGUMENTS = ("outputs", "inputs", "grad_outputs")
# Keywords whose `None` is also their default: dropped from a wrapped call (torch before 2.15
# breaks at a `nonstrict_trace` call handed `None`, GB0236).
NONE_DEFAULTS = frozenset(("grad_outputs", "retain_graph", "allow_unused"))
# The wrapper's name, made fresh in the module; one wrapper serves every call there.
WRAPPER = "_autograd_grad"
WRAPPER_DOC = "torch.autograd.grad, traced into the caller's graph (graphweld traced-autograd-grad)."


class TracedAutogradGrad(CallRewrite, Rule):
    """Trace `torch.autograd.grad` in a compiled region through a `nonstrict_trace` wrapper.

    ## What it fixes
    In a compiled region, a call of `torch.autograd.grad` (also `grad` imported from
    `torch.autograd`): forces as the negative gradient of an energy (`-torch.autograd.grad(energy,
    positions, create_graph=True)[0]`), a physics-informed residual's derivatives, a trust-region
    policy update's Fisher-vector product (`torch.autograd.grad(kl, policy.parameters(),
    create_graph=True)`), an attribution's input gradient, a structured model's marginals as the
    gradient of its log-partition. Its tensor arguments handed as generators or lazy iterators
    (`model.parameters()`, a generator expression, `filter(...)`, `itertools.chain(...)`, a dict's
    `values()`, or a name bound to one just before) become lists. A pure module-level helper a run
    saw break is `nonstrict-helper`'s first, traced whole with its calls (a check such as
    `grad.grad_fn is None` on a result then stays out of Dynamo's sight too); this rule takes the
    calls where that does not apply: in methods and `forward`, and without a run.

    ## Why the graph breaks
    Dynamo does not trace `torch.autograd.grad` unless `torch._dynamo.config.trace_autograd_ops`
    is on (GB9186): the graph breaks at every call, and a call inside a loop makes Dynamo skip the
    whole function. The setting is global to the process, so graphweld writes it only where the
    program compiles itself. PyTorch's escape hatch for a pure function of tensors,
    `torch._dynamo.nonstrict_trace`, needs no setting: Dynamo records one call and non-strict
    tracing captures the gradient's operations into the caller's graph, `create_graph=True` and a
    training step's backward through the gradient included (measured on torch 2.13 and 2.15:
    outputs and gradients equal, eager and inductor, `fullgraph=True` compiles). A generator
    cannot cross into it (nor into Dynamo's own `autograd.grad` with the setting on: "unsupported
    argument type"; without it the break cannot rebuild the generator, GB8335, and Dynamo gives
    up on the frame), so those arguments become lists; `autograd.grad` makes a tuple of what it is
    given before it reads it.

    ## Example
    ```python
    @torch.compile
    def fisher_vector_product(policy, states, vector):
        kl = policy.kl(states)
        grads = torch.autograd.grad(kl, policy.parameters(), create_graph=True)
        return grads
    ```
    becomes
    ```python
    @torch._dynamo.nonstrict_trace
    def _autograd_grad(*args, **kwargs):
        \"\"\"torch.autograd.grad, traced into the caller's graph (graphweld traced-autograd-grad).\"\"\"
        return torch.autograd.grad(*args, **kwargs)


    @torch.compile
    def fisher_vector_product(policy, states, vector):
        kl = policy.kl(states)
        grads = _autograd_grad(kl, list(policy.parameters()), create_graph=True)
        return grads
    ```
    A generator expression becomes the list comprehension it spells:
    `(p for p in model.parameters() if p.requires_grad)` -> `[p for p in model.parameters() if p.requires_grad]`.
    A keyword passed as `None`, its default (`grad_outputs=None`), is left out of the wrapped call.

    ## Safety
    Safe: the wrapper calls `torch.autograd.grad` with the same arguments (eagerly, it is that
    call), a list of the same tensors in the same order is what `autograd.grad` makes of a
    generator, and the generator is consumed at the same point. Compiled, the gradient is part of
    the graph: a graph `autograd.grad` frees eagerly (`retain_graph=False`) is not freed early, so
    a second backward through it that raises eagerly may not raise compiled. Only values the code
    shows to be generators or lazy iterators become lists (`list()` of a tensor would split it into
    rows). Not wrapped, only listed: a call with `allow_unused=True` or `is_grads_batched=True`, or
    a `None` or `*args` in its positions (torch before 2.15 refuses a `None` crossing into
    `nonstrict_trace`, and an unused input's gradient is `None`).
    """

    id = "traced-autograd-grad"
    reference = "https://docs.pytorch.org/docs/stable/compile/programming_model.dynamo_nonstrict_trace.html"
    summary = "Trace torch.autograd.grad in a compiled region through a nonstrict_trace wrapper, its generators made lists"
    # The docs' table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = (
        "`torch.autograd.grad` in a compiled region (GB9186 unless `trace_autograd_ops` is on), and its arguments "
        "handed as generators: `model.parameters()`, a generator expression, `filter(...)`, `itertools.chain(...)` "
        "(Dynamo gives up on the frame, GB8335)"
    )
    rewrite = (
        "call it through a module-level `@torch._dynamo.nonstrict_trace` wrapper of `torch.autograd.grad`, "
        "generators made lists (`list(model.parameters())`)"
    )
    default = "safe (the wrapper is the same call; autograd.grad makes a tuple of what it is given)"
    trigger_words = ("autograd",)
    needs_breaker_call = False
    safety = Safety.SAFE

    def __init__(self, context) -> None:  # type: ignore[no-untyped-def]
        super().__init__(context)
        self._wrapper: str | None = None
        # The calls wrapped (by id), and whether one of the statement's calls was, until its
        # definitions are asked for.
        self._wrapped_calls: set[int] = set()
        self._statement_wrapped = False

    def replacement(self, call: cst.Call, statement: cst.BaseStatement) -> cst.BaseExpression | None:
        qualify = self.context.regions.imports.qualify
        if qualify(call.func) not in GRAD_FUNCTIONS:
            return None
        listed = self._listed_arguments(call, statement)
        wrapper = self._wrapper_name() if _wrappable(listed) else None
        if wrapper is None:
            return call.with_changes(args=listed) if listed != list(call.args) else None
        kept = [arg for arg in listed if not (arg.keyword is not None and arg.keyword.value in NONE_DEFAULTS and _is_none(arg.value))]
        if kept:
            kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        self._wrapped_calls.add(id(call))
        self._statement_wrapped = True
        return call.with_changes(func=cst.Name(wrapper), args=kept)

    def message(self, call: cst.Call, statement: cst.BaseStatement) -> str:
        function = self.context.current_function
        where = f" in compiled `{function.name.value}`" if function is not None else ""
        if id(call) in self._wrapped_calls:
            return (
                f"`{self.context.code(call.func)}`{where}: Dynamo breaks at it unless `trace_autograd_ops` is on (GB9186); "
                f"call it through `{self._wrapper}`, a `{NONSTRICT_TRACE}` wrapper that records the gradient's operations "
                "in the graph (generators it is handed become lists)"
            )
        return (
            f"`{self.context.code(call.func)}`{where} is handed a generator, which Dynamo cannot take (it gives up on the "
            "frame, GB8335; with `trace_autograd_ops`, \"autograd.grad with unsupported argument type\"); hand it a list "
            "of the same tensors (not wrapped in a nonstrict_trace call: it may return or be handed `None`)"
        )

    def definitions(self) -> list[tuple[cst.CSTNode, list[cst.BaseStatement]]]:
        wrapped, self._statement_wrapped = self._statement_wrapped, False
        if not wrapped or self._wrapper is None or self._defined(self._wrapper):
            return []
        anchor = definitions_anchor(self.context.module)
        assert anchor is not None  # _wrapper_name found one
        definition = cst.parse_statement(
            f"@{NONSTRICT_TRACE}\ndef {self._wrapper}(*args, **kwargs):\n"
            f'    """{WRAPPER_DOC}"""\n    return torch.autograd.grad(*args, **kwargs)\n'
        )
        definition = definition.with_changes(leading_lines=(cst.EmptyLine(), cst.EmptyLine()))
        if not binds_at_module_level(self.context.module, "torch", before=anchor):
            # The wrapper names torch: import it with the wrapper (`from torch.autograd import grad` alone).
            return [(anchor, [anchor, cst.parse_statement("import torch\n"), definition])]
        return [(anchor, [anchor, definition])]

    # -- the arguments ----------------------------------------------------------------------------

    def _listed_arguments(self, call: cst.Call, statement: cst.BaseStatement) -> list[cst.Arg]:
        """The call's arguments, each generator or lazy iterator among its tensor arguments made a list."""
        qualify = self.context.regions.imports.qualify
        bound: set[str] | None = None
        args = list(call.args)
        # After a `*args` the positions are unknown; `**kwargs` holds no argument shown here.
        starred = False
        for index, arg in enumerate(args):
            if arg.star:
                starred = starred or arg.star == "*"
                continue
            if arg.keyword is not None:
                name = arg.keyword.value
            else:
                name = "" if starred or index >= len(TENSOR_ARGUMENTS) else TENSOR_ARGUMENTS[index]
            if name not in TENSOR_ARGUMENTS:
                continue
            value = arg.value
            if isinstance(value, cst.Name):
                if bound is None:
                    scope = self.context.current_function or self.context.module
                    bound = iterators_bound_before(scope, statement, lazy=lambda found: is_lazy_iterable(found, qualify))
                if value.value not in bound:
                    continue
            elif not is_lazy_iterable(value, qualify):
                continue
            args[index] = arg.with_changes(value=_as_sequence(value))
        return args

    # -- the wrapper ------------------------------------------------------------------------------

    def _wrapper_name(self) -> str | None:
        """The wrapper's name in this module (an existing one reused), or None when there is no
        import line to define it after."""
        if self._wrapper is None:
            if definitions_anchor(self.context.module) is None:
                return None
            existing = self._existing_wrapper()
            taken = {node.value for node in iter_nodes(self.context.module) if isinstance(node, cst.Name)}
            self._wrapper = existing or fresh_name(WRAPPER, taken)
        return self._wrapper

    def _existing_wrapper(self) -> str | None:
        for statement in self.context.module.body:
            if isinstance(statement, cst.FunctionDef) and self._is_wrapper(statement):
                return statement.name.value
        return None

    def _defined(self, name: str) -> bool:
        return any(isinstance(s, cst.FunctionDef) and s.name.value == name for s in self.context.module.body)

    @staticmethod
    def _is_wrapper(function: cst.FunctionDef) -> bool:
        body = function.body.body if isinstance(function.body, cst.IndentedBlock) else ()
        first = body[0] if body else None
        return (
            isinstance(first, cst.SimpleStatementLine)
            and isinstance(first.body[0], cst.Expr)
            and isinstance(first.body[0].value, cst.SimpleString)
            and WRAPPER_DOC in first.body[0].value.value
        )


def _wrappable(args: list[cst.Arg]) -> bool:
    """Whether a `nonstrict_trace` call can take these arguments on every torch graphweld admits:
    no `*args` in the positions, no positional `None`, and no gradients that may be `None`
    (`allow_unused`) or batched."""
    for arg in args:
        if arg.star == "*":
            return False
        if arg.keyword is None and not arg.star and _is_none(arg.value):
            return False
        if arg.keyword is not None and arg.keyword.value in ("allow_unused", "is_grads_batched"):
            if not (isinstance(arg.value, cst.Name) and arg.value.value in ("False", "None")):
                return False
    return True


def _is_none(value: cst.BaseExpression) -> bool:
    return isinstance(value, cst.Name) and value.value == "None"


def _as_sequence(value: cst.BaseExpression) -> cst.BaseExpression:
    """The list a lazy iterable yields: a generator expression's list comprehension, else `list(value)`."""
    if isinstance(value, cst.GeneratorExp):
        return cst.ListComp(elt=value.elt, for_in=value.for_in)
    return as_list(value)
