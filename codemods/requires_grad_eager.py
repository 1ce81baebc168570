"""requires-grad-eager: a tensor made in the function is marked as requiring grad only eagerly."""

from __future__ import annotations

import re
from typing import Sequence

import libcst as cst

from graphweld.analysis.blocks import eager_only, runs_only_eagerly
from graphweld.analysis.names import ImportTable
from graphweld.analysis.scopes import SCOPE_TYPES, is_scope, target_names
from graphweld.rule import Rule, Safety
from graphweld.walk import iter_nodes, nodes_of_types

_RETURN = frozenset({cst.Return})


_FLAG_SET = re.compile(r"\.requires_grad\s*=\s*True|\.requires_grad_\(")


class RequiresGradEager(Rule):
    """Mark a tensor made in the function as requiring grad only when running eagerly.

    ## What it fixes
    In a compiled region, `h.requires_grad = True` (or `h.requires_grad_()` as a statement) on a
    tensor the function made itself, there so that reentrant gradient checkpointing sees an input
    that requires grad: Hugging Face's speech encoders (`hidden_states = input_values[:, None]` in
    Wav2Vec2, HuBERT, WavLM, SEW, UniSpeech, Data2VecAudio, SpeechT5), the T5 family's
    `position_bias` (T5, mT5, LongT5, UDOP, Pix2Struct, Pop2Piano, Switch Transformers) and
    MaskFormer's decoder queries. And a spiking neuron's first state: `state.v.requires_grad =
    True` on a field of a state the function builds by a call and returns (Norse's cells, LIF, LI,
    LSNN and the rest, in their `initial_state`; this form is taken from that one library).

    ## Why the graph breaks
    Dynamo does not trace setting a tensor's `requires_grad` ("setattr() on Tensor.requires_grad",
    GB0206), and `requires_grad_()` on a tensor made in the graph breaks too (GB8985). In a
    training step this skips the encoder's whole frame.

    ## Example
    ```python
    hidden_states = input_values[:, None]
    if self._requires_grad and self.training:
        hidden_states.requires_grad = True
    ```
    becomes
    ```python
    hidden_states = input_values[:, None]
    if self._requires_grad and self.training:
        if not torch.compiler.is_compiling():
            hidden_states.requires_grad = True
    ```

    and
    ```python
    state = LIFState(v=self.p.v_leak.detach(), i=torch.zeros_like(input_tensor))
    state.v.requires_grad = True
    return state
    ```
    becomes
    ```python
    state = LIFState(v=self.p.v_leak.detach(), i=torch.zeros_like(input_tensor))
    if not torch.compiler.is_compiling():
        state.v.requires_grad = True
    return state
    ```

    ## Safety
    Unsafe. While compiling, the tensor does not require grad. The gradients of the parameters do
    not change: Dynamo traces `torch.utils.checkpoint` as its own operator, reentrant or not, and
    that needs no input that requires grad (measured on torch 2.13: the same gradients with and
    without the flag). What differs is the flag itself, where the tensor is seen outside the
    function (returned, as T5 returns `position_bias`), and its own `.grad`. Eager runs set it as
    before. Only a flag set for training is taken (under an `if` on `self.training` or a
    checkpointing switch), on a name the function binds by assignment before it: a parameter (the
    caller's tensor), a loop variable (`for p in self.parameters()`, freezing weights) or an
    attribute is left alone, and so is `requires_grad = False`. The state form is taken without a
    training condition: the voltage is where the recurrence starts, and the gradients of the
    parameters flow through it either way (Norse's networks: outputs equal, and `--train`
    verifies the parameters' gradients); what is lost while compiling is the voltage's own
    gradient and, where nothing else requires grad, the output's flag. So only a field of a state
    the function builds by calling a class or function and returns bare is taken: a dictionary's
    entry (predictive coding differentiates with respect to `state["x"]`), a state the module
    keeps or one the function does not return is left alone.
    """

    id = "requires-grad-eager"
    reference = "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0206.html"
    summary = "Mark a tensor made in the function as requiring grad only when running eagerly"
    # The README's table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = (
        "`h.requires_grad = True` / `h.requires_grad_()` on a tensor the function made (for reentrant "
        "gradient checkpointing), or on a field of a neuron state it builds and returns, in a compiled region"
    )
    rewrite = "`if not torch.compiler.is_compiling():` around it: the flag is set in eager runs only"
    default = "unsafe: the tensor does not require grad while compiling"
    trigger_words = ("requires_grad",)
    needs_breaker_call = False
    node_types = (cst.FunctionDef,)

    def __init__(self, context) -> None:  # type: ignore[no-untyped-def]
        super().__init__(context)
        # Most modules that say `requires_grad` read it or pass it: only a flag set is walked for.
        text = context.text
        self._flags = text is None or _FLAG_SET.search(text) is not None

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        context = self.context
        if not self._flags or not isinstance(node.body, cst.IndentedBlock):
            return
        compiled = context.regions.is_compiled(node)
        for line in _flag_lines(node, context.regions.imports):
            if not (compiled or context.breaks_per_run(line)):
                continue
            torch_name = context.torch_name()
            if torch_name is None:
                return
            message = (
                f"`{context.code(line.body[0])}` marks a tensor as requiring grad, which Dynamo does not trace "
                "(GB0206); set it in eager runs only (unsafe: the tensor does not require grad while compiling, "
                "the parameters' gradients are the same)"
            )
            self.propose(line, [eager_only(line, torch_name)], anchor=line, message=message, safety=Safety.UNSAFE)


def _flag_lines(node: cst.FunctionDef, imports: ImportTable) -> list[cst.SimpleStatementLine]:
    """The function's own lines (not a nested function's) that flag a tensor the function made:
    one flag statement whose name an assignment before it binds, in its own block or one around
    it, either for training (under an `if` on `self.training` or a checkpointing switch) or on a
    field of a state the function builds by a call and returns (`state.v.requires_grad = True`
    before `return state`). Lines in an `if not torch.compiler.is_compiling():` block (this
    rule's own, on a second run) are left out."""
    found: list[cst.SimpleStatementLine] = []
    returned = _returned_names(node)

    def walk(statements: Sequence[cst.BaseStatement], made: frozenset[str], training: bool, built: frozenset[str]) -> None:
        made_here, built_here = set(made), set(built)
        for statement in statements:
            if isinstance(statement, cst.SimpleStatementLine):
                flagged = _flagged(statement.body[0]) if len(statement.body) == 1 else None
                if flagged is not None:
                    target, field = flagged
                    if (not field and target in made_here and training) or (field and target in built_here and target in returned):
                        found.append(statement)
                for small in statement.body:
                    if isinstance(small, cst.Assign):
                        names = {name for t in small.targets for name in target_names(t.target)}
                        made_here.update(names)
                        # A state built by a call of a class or function (not a method's, not an
                        # attribute read): a new object, whose fields the function made.
                        if isinstance(small.value, cst.Call) and isinstance(small.value.func, cst.Name):
                            built_here.update(names)
                        else:
                            built_here.difference_update(names)
            elif is_scope(statement) or runs_only_eagerly(statement, imports):
                continue
            elif isinstance(statement, cst.If):
                walk(_statements(statement.body), frozenset(made_here), training or _tests_training(statement.test), frozenset(built_here))
                if isinstance(statement.orelse, cst.If):
                    walk([statement.orelse], frozenset(made_here), training, frozenset(built_here))
                elif statement.orelse is not None:
                    walk(_statements(statement.orelse.body), frozenset(made_here), training, frozenset(built_here))
            else:
                # A loop's variable is the loop's, not made here (`for p in self.parameters()`).
                loop_names = set(target_names(statement.target)) if isinstance(statement, cst.For) else set()
                for block in _blocks(statement):
                    walk(block, frozenset(made_here - loop_names), training, frozenset(built_here - loop_names))

    walk(node.body.body, frozenset(), False, frozenset())
    return found


def _returned_names(node: cst.FunctionDef) -> frozenset[str]:
    """The names the function itself returns bare (`return state`), not a nested function's."""
    names = set()
    for inner in nodes_of_types(node.body, _RETURN, SCOPE_TYPES, skip_expressions=True):
        if isinstance(inner, cst.Return) and isinstance(inner.value, cst.Name):
            names.add(inner.value.value)
    return frozenset(names)


def _statements(suite: cst.BaseSuite) -> Sequence[cst.BaseStatement]:
    return suite.body if isinstance(suite, cst.IndentedBlock) else ()


def _tests_training(test: cst.BaseExpression) -> bool:
    """Whether an `if` test reads `training` (`self.training`) or a checkpointing switch."""
    for n in iter_nodes(test):
        name = n.attr.value if isinstance(n, cst.Attribute) else n.value if isinstance(n, cst.Name) else None
        if name is not None and (name == "training" or "checkpoint" in name):
            return True
    return False


def _blocks(statement: cst.BaseStatement) -> list[Sequence[cst.BaseStatement]]:
    """The statement lists of a compound statement's blocks (`if`/`elif`/`else`, loops, `with`, `try`)."""
    blocks = []
    part: object = statement
    while part is not None:
        body = getattr(part, "body", None)
        if isinstance(body, cst.IndentedBlock):
            blocks.append(body.body)
        for handler in getattr(part, "handlers", ()):
            if isinstance(handler.body, cst.IndentedBlock):
                blocks.append(handler.body.body)
        final = getattr(part, "finalbody", None)
        if final is not None and isinstance(final.body, cst.IndentedBlock):
            blocks.append(final.body.body)
        part = getattr(part, "orelse", None)
    return blocks


def _flagged(small: cst.BaseSmallStatement) -> tuple[str, bool] | None:
    """The name flagged by `name.requires_grad = True` or `name.requires_grad_()` / `(True)`, with
    False; for `name.field.requires_grad = True` (a field of a state, any depth), the name with True."""
    if isinstance(small, cst.Assign):
        if len(small.targets) != 1 or not (isinstance(small.value, cst.Name) and small.value.value == "True"):
            return None
        target = small.targets[0].target
        if not (isinstance(target, cst.Attribute) and target.attr.value == "requires_grad"):
            return None
        flagged, field = target.value, False
        while isinstance(flagged, cst.Attribute):
            flagged, field = flagged.value, True
        return (flagged.value, field) if isinstance(flagged, cst.Name) else None
    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        call = small.value
        if not (isinstance(call.func, cst.Attribute) and call.func.attr.value == "requires_grad_" and isinstance(call.func.value, cst.Name)):
            return None
        if call.args and not (len(call.args) == 1 and isinstance(call.args[0].value, cst.Name) and call.args[0].value.value == "True"):
            return None
        return call.func.value.value, False
    return None
