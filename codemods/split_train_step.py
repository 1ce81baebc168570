"""split-train-step: backward and optimizer calls run eagerly between compiled pieces."""

from __future__ import annotations

import re

import libcst as cst

from graphweld.analysis.names import dotted_name
from graphweld.analysis.scopes import is_scope
from graphweld.rule import Rule, Safety
from graphweld.walk import iter_nodes

# Calls that construct what a training step steps: optimizers, schedulers, gradient scalers.
_TRAINING_CONSTRUCTORS = re.compile(r"^torch\.(optim\.|amp\.GradScaler$|cuda\.amp\.GradScaler$)")
_AUTOGRAD_CALLS = frozenset(("torch.autograd.backward", "torch.autograd.grad"))
# A receiver whose `.step()`/`.update()` is an optimizer's, scheduler's or gradient scaler's,
# by its name, when the module does not say what it was built from.
_STEPPER_NAMES = re.compile(r"(optim|optimizer|opt|scheduler|sched|scaler)$", re.IGNORECASE)
_STEPPER_METHODS = frozenset(("step", "update"))


class SplitTrainStep(Rule):
    """Run a compiled training step's backward and optimizer calls eagerly between compiled pieces.

    ## What it fixes
    A function compiled with `torch.compile` (decorated, or compiled by a module-level
    `step = torch.compile(train_step)`) whose top level runs the parts of a training step that are
    not the forward: `loss.backward()` (`torch.autograd.backward`/`grad`, a scaler's
    `scaler.scale(loss).backward()`), `optimizer.step()`, `optimizer.zero_grad()` (any
    `.zero_grad()`), a scheduler's or gradient scaler's `.step()`/`.update()`, and building an
    optimizer, scheduler or scaler (`torch.optim.SGD(...)`, also inside an `if` or `with`).

    ## Why the graph breaks
    Dynamo captures the forward; it does not trace a backward call into the graph ("Unsupported
    Tensor.backward() call", GB0123), and breaks on the optimizer's own code (its constructor,
    `zero_grad`, the `graph_break()` in `Optimizer.step`'s wrapper), often skipping the whole
    frame. PyTorch's guide: end the compiled region before them ("Strategy 3: Don't compile the
    code"); the backward still runs the compiled forward's compiled backward (AOTAutograd).

    ## Example
    ```python
    @torch.compile
    def train_step(model, optimizer, x, y):
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        return loss
    ```
    becomes
    ```python
    def train_step(model, optimizer, x, y):
        optimizer.zero_grad()
        loss = _train_step_part1(model, x, y)
        loss.backward()
        optimizer.step()
        return loss


    @torch.compile
    def _train_step_part1(model, x, y):
        loss = torch.nn.functional.mse_loss(model(x), y)
        return loss
    ```

    ## Safety
    Safe: the same statements run in the same order; those Dynamo ran eagerly at its breaks run
    eagerly, and the rest is compiled with the function's own options. An optimizer step that
    Dynamo compiled in part now runs eagerly: the same update, computed by the same eager kernels
    as without `torch.compile`. A top-level `if`, `with` or `try` holding one of these calls is
    run eagerly whole (the accumulation step `if step % k == 0: optimizer.step()`); I/O at the top
    level of the step is run eagerly between the pieces too, as isolate-io's split would. A loop
    holding one is reported with where the compiled region should end, not split; so are bodies
    with `yield`, nested `return`s, `global`/`nonlocal` or nested functions.
    """

    id = "split-train-step"
    reference = "https://docs.pytorch.org/docs/stable/compile/programming_model.fullgraph_true.html"
    summary = "Run a compiled training step's backward and optimizer calls eagerly between compiled pieces"
    # The README's table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = (
        "a compiled training step's `loss.backward()`, `optimizer.step()`, `zero_grad()`, scheduler and "
        "scaler steps, and an optimizer built inside it"
    )
    rewrite = "**split** the function: the forward is compiled, those calls run eagerly between the compiled pieces"
    default = "safe"
    trigger_words = ("backward", "zero_grad", "optim", "autograd")
    needs_breaker_call = False
    node_types = (cst.FunctionDef,)

    def __init__(self, context) -> None:  # type: ignore[no-untyped-def]
        super().__init__(context)
        self._steppers: set[str] | None = None

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        context = self.context
        body = context.splitter.body(node)
        if body is None:
            return
        calls = {id(s): call for s in body if (call := self._training_call(s)) is not None}
        if not calls:
            return
        function_name = node.name.value
        looped = next((s for s in body if id(s) in calls and isinstance(s, (cst.For, cst.While))), None)
        if looped is not None:
            self.report(
                calls[id(looped)],
                f"`{context.code(calls[id(looped)])}` in a loop in compiled `{function_name}`: end the compiled region "
                "before the loop, or compile the loop's body (the forward and the loss) and run backward and the "
                "optimizer outside it",
            )
            return
        # I/O in the same step is cut with them (isolate-io would split the function again).
        cut = set(calls) | {id(s) for s in body if self._is_io(s)}
        split = context.splitter.split(node, lambda s: id(s) in cut)
        if split is None:
            return
        names = ", ".join(f"`{context.code(calls[id(s)])}`" for s in split.cuts if id(s) in calls)
        self.propose(
            node,
            [split.driver, *split.pieces],
            anchor=next(s for s in split.cuts if id(s) in calls),
            message=(
                f"{names} in compiled `{function_name}`: Dynamo does not trace backward and optimizer calls into the "
                f"graph and breaks at each; split `{function_name}` into {len(split.pieces)} compiled piece(s) "
                "with these run eagerly between them"
            ),
            safety=Safety.SAFE,
            extra=split.extra,
            ends_region=True,
        )

    def _training_call(self, statement: cst.BaseStatement) -> cst.CSTNode | None:
        """The first training call a top-level statement makes (anywhere in it but nested
        functions): the statement is cut whole, `if`/`with`/`try` blocks included."""
        return next((n for n in iter_nodes(statement, prune=is_scope) if self._is_training_call(n)), None)

    def _is_io(self, statement: cst.BaseStatement) -> bool:
        breaker = self.context.breakers.statement_breaker(statement)
        return breaker is not None and breaker.kind in ("io", "logging")

    def _is_training_call(self, node: cst.CSTNode) -> bool:
        if not isinstance(node, cst.Call):
            return False
        if self._constructs(node):
            return True
        qualified = self.context.regions.imports.qualify(node.func) or ""
        if qualified in _AUTOGRAD_CALLS:
            return True
        func = node.func
        if not isinstance(func, cst.Attribute):
            return False
        method = func.attr.value
        if method in ("backward", "zero_grad"):
            return True
        receiver = dotted_name(func.value)
        return method in _STEPPER_METHODS and receiver is not None and self._is_stepper(receiver)

    def _constructs(self, node: cst.CSTNode) -> bool:
        if not isinstance(node, cst.Call):
            return False
        return bool(_TRAINING_CONSTRUCTORS.match(self.context.regions.imports.qualify(node.func) or ""))

    def _is_stepper(self, receiver: str) -> bool:
        if self._steppers is None:
            # Names the module binds to an optimizer, scheduler or scaler, wherever it does.
            self._steppers = set()
            for node in iter_nodes(self.context.module):
                if isinstance(node, cst.Assign) and self._constructs(node.value):
                    self._steppers.update(n for t in node.targets if (n := dotted_name(t.target)) is not None)
        return receiver in self._steppers or bool(_STEPPER_NAMES.search(receiver.rsplit(".", 1)[-1]))
