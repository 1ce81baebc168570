"""grad-inputs-list: `torch.autograd.grad` is handed lists, not generators."""

from __future__ import annotations

import libcst as cst

from graphweld.analysis.iterators import as_list, is_lazy_iterable, iterators_bound_before
from graphweld.call_rewrite import CallRewrite
from graphweld.rule import Rule, Safety

# The functions whose tensor arguments Dynamo takes only as tensors or sequences of them, by
# qualified name, and those arguments: by position and by keyword.
GRAD_FUNCTIONS = frozenset(("torch.autograd.grad",))
TENSOR_ARGUMENTS = ("outputs", "inputs", "grad_outputs")


class GradInputsList(CallRewrite, Rule):
    """Hand `torch.autograd.grad` a list in a compiled region, not a generator.

    ## What it fixes
    In a compiled region, `torch.autograd.grad` (also `grad` imported from `torch.autograd`) whose
    `outputs`, `inputs` or `grad_outputs` is a generator or a lazy iterator rather than a
    sequence: a module's `parameters()` or `buffers()`, a generator expression filtering them
    (`(p for p in model.parameters() if p.requires_grad)`), `filter(...)`, `map(...)`,
    `itertools.chain(actor.parameters(), critic.parameters())`, a dict's `values()`, or a name
    bound to one of them just before the call. The natural-gradient and trust-region policy
    updates (a Fisher-vector product: `torch.autograd.grad(kl, policy.parameters(),
    create_graph=True)`), meta-learning's inner step and gradient-norm penalties are written so.

    ## Why the graph breaks
    Dynamo takes `torch.autograd.grad`'s tensor arguments only as tensors or sequences of tensors:
    a generator is "autograd.grad with unsupported argument type" where it traces the call
    (`torch._dynamo.config.trace_autograd_ops = True`), and where it does not, the graph breaks
    at the call with the generator already made, which Dynamo cannot rebuild for the eager call
    ("Generator reconstruction with mutations", GB8335): it gives up on the frame, and the whole
    function runs eagerly (torch 2.13 and 2.15: 0 graphs). `autograd.grad` makes a tuple of what it
    is given before it uses it, so a list of the same tensors is the same call: with it, the
    function compiles up to the call and after it, and, with `trace_autograd_ops`, whole.

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
    @torch.compile
    def fisher_vector_product(policy, states, vector):
        kl = policy.kl(states)
        grads = torch.autograd.grad(kl, list(policy.parameters()), create_graph=True)
        return grads
    ```
    A generator expression becomes the list comprehension it spells:
    `(p for p in model.parameters() if p.requires_grad)` -> `[p for p in model.parameters() if p.requires_grad]`.

    ## Safety
    Safe: `torch.autograd.grad` turns a generator into a tuple before it reads it, so a list of
    the same tensors in the same order computes the same gradients; the generator is consumed
    at the same point. Only values the code shows to be generators or lazy iterators are
    wrapped (a name only when it was bound to one earlier in the same block and not used since):
    `list()` of a tensor would split it into rows.
    """

    id = "grad-inputs-list"
    reference = "https://docs.pytorch.org/docs/stable/generated/torch.autograd.grad.html"
    summary = "Hand torch.autograd.grad a list in a compiled region, not a generator such as model.parameters()"
    # The docs' table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = (
        "`torch.autograd.grad` in a compiled region handed a generator: `model.parameters()`, a generator "
        "expression, `filter(...)`, `itertools.chain(...)`, a dict's `values()` (Dynamo skips the frame, GB8335)"
    )
    rewrite = "`list(model.parameters())`; a generator expression becomes a list comprehension"
    default = "safe (autograd.grad makes a tuple of what it is given)"
    trigger_words = ("autograd",)
    needs_breaker_call = False
    safety = Safety.SAFE

    def replacement(self, call: cst.Call, statement: cst.BaseStatement) -> cst.BaseExpression | None:
        qualify = self.context.regions.imports.qualify
        if qualify(call.func) not in GRAD_FUNCTIONS:
            return None
        bound: set[str] | None = None
        args = list(call.args)
        changed = False
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
            changed = True
        return call.with_changes(args=args) if changed else None

    def message(self, call: cst.Call, statement: cst.BaseStatement) -> str:
        return (
            f"`{self.context.code(call.func)}` is handed a generator, which Dynamo cannot take (it gives up on the frame, "
            "GB8335; with `trace_autograd_ops`, \"autograd.grad with unsupported argument type\"); hand it a list of the "
            "same tensors"
        )


def _as_sequence(value: cst.BaseExpression) -> cst.BaseExpression:
    """The list a lazy iterable yields: a generator expression's list comprehension, else `list(value)`."""
    if isinstance(value, cst.GeneratorExp):
        return cst.ListComp(elt=value.elt, for_in=value.for_in)
    return as_list(value)
