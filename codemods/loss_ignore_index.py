"""loss-ignore-index: a cross-entropy over the tokens a boolean mask selects counts them with its ignore_index."""

from __future__ import annotations

from typing import Sequence

import libcst as cst

from graphweld.analysis.names import ImportTable
from graphweld.analysis.scopes import is_nested_function, target_names
from graphweld.analysis.tensors import FunctionValues
from graphweld.cst_fast import source
from graphweld.rule import Rule, Safety
from graphweld.walk import DEFINITION_TYPES, iter_nodes, nodes_of_types

_LINE = frozenset({cst.SimpleStatementLine})
_ASSIGN = frozenset({cst.Assign})

_FUNCTIONAL = "torch.nn.functional.cross_entropy"
_MODULE = "torch.nn.CrossEntropyLoss"
_DEFAULT_IGNORE_INDEX = "-100"
# Calls that flatten a tensor to the rows a loss takes (`x.view(-1, n)`, `labels.view(-1)`).
_FLATTENING = ("view", "reshape")
# Expressions read twice by the rewrite (`x.reshape(-1, x.shape[-1])`): no call, nothing computed.
_PLAIN = (cst.Name, cst.Attribute, cst.Subscript)


class LossIgnoreIndex(Rule):
    """Count the tokens a cross-entropy takes with its `ignore_index`, instead of selecting them with a boolean mask.

    ## What it fixes
    In a compiled region, a cross-entropy over the tokens a boolean mask selects:
    `F.cross_entropy(logits[mask], labels[mask])` (a training step's loss over the real tokens),
    or the shifted language-modelling loss of Qwen2-Audio and Granite Speech, whose logits and
    labels are selected by the attention mask into names the loss then flattens:
    `shift_logits = logits[..., :-1, :][mask != 0].contiguous()`, `shift_labels = labels[...,
    1:][mask != 0].contiguous()`, `loss_fct(shift_logits.view(-1, shift_logits.size(-1)),
    shift_labels.view(-1))`. The logits keep every token, and the labels of the tokens the mask
    leaves out become the loss's `ignore_index` (`labels.masked_fill(~mask, -100)`).

    ## Why the graph breaks
    `x[mask]` with a boolean mask returns as many rows as the mask holds `True`s: a shape known
    only from the values ("Dynamic shape operator", GB0036, `nonzero` underneath), so Dynamo
    breaks the graph at the selection, and the loss and everything after it run in another graph.
    A cross-entropy already leaves out the targets equal to its `ignore_index`, and its mean is
    over the targets it kept: with every token and the others' labels set to it, the loss has
    the same terms and the shapes of the input.

    ## Example
    ```python
    loss = F.cross_entropy(logits[mask], labels[mask])
    ```
    becomes
    ```python
    loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.masked_fill(~mask, -100).reshape(-1))
    ```

    ## Safety
    Unsafe, so only applied with `--unsafe-fixes`; verify with `fix --entry`. The loss is the same
    mean (or sum) over the same tokens, summed in another order, and its gradient is the same (0
    for a token left out, as before). It holds for class indices as targets, which a name cannot
    show: targets given as probabilities would be filled with the ignore index. The mask must
    cover every dimension of the labels (the tokens), as `logits[mask]` feeding a loss implies.
    Taken with the loss's own `ignore_index` where it sets one. The mask must be a comparison or
    another boolean expression, or a name or attribute a run (`fix --entry`) saw break the graph
    where it selects (`data.train_mask`: an integer index would not break). Left alone:
    `reduction="none"` (the losses per token, as many as the mask selects), the selected names
    read anywhere but in the loss, and, for the
    names form, a loss that does not flatten them with `view(-1, ...)`/`reshape(-1, ...)`.
    """

    id = "loss-ignore-index"
    reference = "https://docs.pytorch.org/docs/stable/compile/programming_model.graph_breaks_index.html"
    summary = "Count the tokens a cross-entropy takes with its `ignore_index`, instead of selecting them with a boolean mask"
    # The README's table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = (
        "`F.cross_entropy(logits[mask], labels[mask])` (or an `nn.CrossEntropyLoss`), and the shifted loss whose "
        "logits and labels are selected by the attention mask into names it flattens (Qwen2-Audio, Granite Speech)"
    )
    rewrite = (
        "keep every token's logits and set the labels the mask leaves out to the loss's `ignore_index`: "
        "`labels.masked_fill(~mask, -100)`"
    )
    default = "unsafe: holds for class indices as targets; the same terms summed in another order"
    trigger_words = ("cross_entropy", "CrossEntropyLoss")
    needs_breaker_call = False
    node_types = (cst.FunctionDef,)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        context = self.context
        if not context.regions.is_compiled(node):
            return
        imports = context.regions.imports
        values = context.function_values(node)
        loss_modules = _loss_modules(node, imports)
        statements = nodes_of_types(node.body, _LINE, DEFINITION_TYPES | _LINE, skip_expressions=True)
        for statement in statements:
            for call in context.calls_in(statement, statement):
                ignore_index = _loss_ignore_index(call, imports, loss_modules)
                if ignore_index is None or len(call.args) < 2 or any(a.keyword is not None or a.star for a in call.args[:2]):
                    continue
                inputs, targets = call.args[0].value, call.args[1].value
                if self._inline(statement, call, inputs, targets, ignore_index, values):
                    return
                if self._named(node, statement, inputs, targets, ignore_index, values):
                    return

    def _inline(
        self,
        statement: cst.SimpleStatementLine,
        call: cst.Call,
        inputs: cst.BaseExpression,
        targets: cst.BaseExpression,
        ignore_index: str,
        values: FunctionValues,
    ) -> bool:
        """`loss(x[mask], y[mask])`: the selections are the call's own arguments."""
        module = self.context.module
        selected_inputs, selected_targets = _selection(inputs), _selection(targets)
        if selected_inputs is None or selected_targets is None:
            return False
        (logits, mask), (labels, target_mask) = selected_inputs, selected_targets
        if not isinstance(logits, _PLAIN) or source(mask, module) != source(target_mask, module):
            return False
        if not self._is_mask(mask, statement, values):
            return False
        logits_code, labels_code = source(logits, module), _atom(labels, module)
        new_inputs = cst.parse_expression(f"{logits_code}.reshape(-1, {logits_code}.shape[-1])")
        new_targets = cst.parse_expression(f"{labels_code}.masked_fill({_inverted(mask, module)}, {ignore_index}).reshape(-1)")
        args = list(call.args)
        args[0] = args[0].with_changes(value=new_inputs)
        args[1] = args[1].with_changes(value=new_targets)
        replacement = statement.visit(_ReplaceNode(call, call.with_changes(args=args)))
        self._propose(statement, [replacement], mask)  # type: ignore[list-item]
        return True

    def _named(
        self,
        function: cst.FunctionDef,
        statement: cst.SimpleStatementLine,
        inputs: cst.BaseExpression,
        targets: cst.BaseExpression,
        ignore_index: str,
        values: FunctionValues,
    ) -> bool:
        """`loss(a.view(-1, n), b.view(-1))`, `a = x[mask].contiguous()` and `b = y[mask].contiguous()`
        bound before it (the shifted language-modelling loss)."""
        module = self.context.module
        logits_name, labels_name = _flattened_name(inputs, rows=True), _flattened_name(targets, rows=False)
        if logits_name is None or labels_name is None or logits_name == labels_name:
            return False
        logits_binding, labels_binding = _selection_binding(function, logits_name), _selection_binding(function, labels_name)
        if logits_binding is None or labels_binding is None:
            return False
        logits_statement, (logits, mask), logits_targets = logits_binding
        labels_statement, (labels, label_mask), labels_targets = labels_binding
        if _read_outside(function, logits_name, statement, logits_targets) or _read_outside(function, labels_name, statement, labels_targets):
            return False
        if not (self._is_mask(mask, logits_statement, values) and self._is_mask(label_mask, labels_statement, values)):
            return False
        # One mask for both, moved to each tensor's device (`mask.to(logits.device) != 0`).
        if _without_moves(mask, module) != _without_moves(label_mask, module):
            return False
        new_logits = logits_statement.visit(_ReplaceNode(_subscript_of(logits_statement), logits))
        filled = cst.parse_expression(f"{_atom(labels, module)}.masked_fill({_inverted(label_mask, module)}, {ignore_index})")
        new_labels = labels_statement.visit(_ReplaceNode(_subscript_of(labels_statement), filled))
        self._propose(logits_statement, [new_logits], mask, extra=[(labels_statement, [new_labels])])  # type: ignore[list-item]
        return True

    def _is_mask(self, mask: cst.BaseExpression, statement: cst.BaseStatement, values: FunctionValues) -> bool:
        """A boolean expression, or one a run saw break the graph where it selects (a mask kept
        in an attribute, `data.train_mask`: an integer index would not break)."""
        return values.is_boolean(mask) or (
            isinstance(mask, (cst.Name, cst.Attribute)) and self.context.breaks_per_run(statement)
        )

    def _propose(self, statement: cst.BaseStatement, replacement, mask: cst.BaseExpression, extra=()) -> None:  # type: ignore[no-untyped-def]
        message = (
            f"selecting the loss's tokens with the boolean mask `{self.context.code(mask)}` gives a data-dependent shape "
            "(GB0036): keep every token and set the labels it leaves out to the loss's ignore_index (unsafe: holds for "
            "class indices as targets)"
        )
        self.propose(statement, replacement, anchor=statement, message=message, safety=Safety.UNSAFE, extra=extra)


def _loss_modules(function: cst.FunctionDef, imports: ImportTable) -> dict[str, str | None]:
    """Names the function binds once to `nn.CrossEntropyLoss(...)`, with the loss's ignore index
    (None for one that cannot be rewritten: `reduction="none"`, or bound more than once)."""
    found: dict[str, str | None] = {}
    for node in nodes_of_types(function.body, _ASSIGN, DEFINITION_TYPES, skip_expressions=True):
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            name = node.targets[0].target.value
            value = node.value
            if isinstance(value, cst.Call) and imports.qualify(value.func) == _MODULE:
                found[name] = None if name in found else _ignore_index(value.args)
    return found


def _ignore_index(args: Sequence[cst.Arg]) -> str | None:
    """The loss's ignore index as code (`-100` when its arguments set none); None with
    `reduction="none"` or arguments it cannot read (only the class weights may be positional)."""
    ignore = _DEFAULT_IGNORE_INDEX
    if sum(1 for arg in args if arg.keyword is None) > 1:
        return None
    for arg in args:
        if arg.star:
            return None
        keyword = arg.keyword.value if arg.keyword is not None else None
        if keyword == "reduction":
            if not (isinstance(arg.value, cst.SimpleString) and arg.value.evaluated_value in ("mean", "sum")):
                return None
        elif keyword == "ignore_index":
            if not isinstance(arg.value, (cst.Integer, cst.UnaryOperation)):
                return None
            ignore = cst.Module([]).code_for_node(arg.value)
    return ignore


def _loss_ignore_index(call: cst.Call, imports: ImportTable, loss_modules: dict[str, str | None]) -> str | None:
    """The ignore index of a cross-entropy call (functional or a loss module the function made)."""
    if imports.qualify(call.func) == _FUNCTIONAL:
        return _ignore_index(call.args[2:])
    if isinstance(call.func, cst.Name) and call.func.value in loss_modules and len(call.args) == 2:
        return loss_modules[call.func.value]
    return None


def _selection(expression: cst.BaseExpression) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """`x` and `mask` of `x[mask]` (one index, not a slice)."""
    if not isinstance(expression, cst.Subscript) or len(expression.slice) != 1:
        return None
    part = expression.slice[0].slice
    if not isinstance(part, cst.Index) or part.star is not None:
        return None
    return expression.value, part.value


def _flattened_name(expression: cst.BaseExpression, rows: bool) -> str | None:
    """`a` of `a.view(-1, n)` (rows) or `a.view(-1)` (not rows), with `.to(...)` after it allowed."""
    if isinstance(expression, cst.Call) and isinstance(expression.func, cst.Attribute) and expression.func.attr.value == "to":
        expression = expression.func.value
    if not (isinstance(expression, cst.Call) and isinstance(expression.func, cst.Attribute)):
        return None
    if expression.func.attr.value not in _FLATTENING or not isinstance(expression.func.value, cst.Name):
        return None
    args = expression.args
    if len(args) != (2 if rows else 1) or any(a.keyword is not None or a.star for a in args):
        return None
    first = args[0].value
    if not (isinstance(first, cst.UnaryOperation) and isinstance(first.operator, cst.Minus)):
        return None
    if not (isinstance(first.expression, cst.Integer) and first.expression.value == "1"):
        return None
    return expression.func.value.value


def _selection_binding(
    function: cst.FunctionDef, name: str
) -> tuple[cst.SimpleStatementLine, tuple[cst.BaseExpression, cst.BaseExpression], set[int]] | None:
    """The one statement `name = x[mask]` (or `x[mask].contiguous()`) binding the name, its
    selection, and the ids of every target naming it. Other bindings must be plain `name = ...`
    lines (the branch without a mask binds it unselected)."""
    found = None
    targets: set[int] = set()
    for statement in iter_nodes(function.body, prune=is_nested_function):
        if isinstance(statement, (cst.For, cst.CompFor, cst.AugAssign, cst.AnnAssign, cst.NamedExpr, cst.Del)):
            if name in target_names(statement.target):
                return None
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if not (isinstance(small, cst.Assign) and any(name in target_names(t.target) for t in small.targets)):
                continue
            target = small.targets[0].target
            if len(statement.body) != 1 or len(small.targets) != 1 or not isinstance(target, cst.Name):
                return None
            targets.add(id(target))
            subscript = _subscript_of(statement)
            selection = _selection(subscript) if subscript is not None else None
            if selection is not None:
                if found is not None:
                    return None
                found = (statement, selection)
    return (*found, targets) if found is not None else None


def _subscript_of(statement: cst.SimpleStatementLine) -> cst.BaseExpression | None:
    """`x[mask]` of `name = x[mask]` or `name = x[mask].contiguous()`."""
    value = statement.body[0].value  # type: ignore[attr-defined]
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "contiguous" and not value.args:
        value = value.func.value
    return value if isinstance(value, cst.Subscript) else None


def _read_outside(function: cst.FunctionDef, name: str, loss: cst.CSTNode, targets: set[int]) -> bool:
    """Whether the name is read anywhere but in the loss's statement."""
    inside = {id(n) for n in iter_nodes(loss)} | targets
    for node in iter_nodes(function.body):
        if isinstance(node, cst.Name) and node.value == name and id(node) not in inside:
            return True
    return False


def _without_moves(mask: cst.BaseExpression, module: cst.Module) -> str:
    """The mask's code without its `.to(...)` calls."""

    class _Unmoved(cst.CSTTransformer):
        def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
            func = updated.func
            return func.value if isinstance(func, cst.Attribute) and func.attr.value == "to" else updated

    return source(mask.visit(_Unmoved()), module)  # type: ignore[arg-type]


def _atom(expression: cst.BaseExpression, module: cst.Module) -> str:
    code = source(expression, module)
    return code if isinstance(expression, (*_PLAIN, cst.Call)) else f"({code})"


def _inverted(mask: cst.BaseExpression, module: cst.Module) -> str:
    code = source(mask, module)
    return f"~{code}" if isinstance(mask, (*_PLAIN, cst.Call)) else f"~({code})"


class _ReplaceNode(cst.CSTTransformer):
    def __init__(self, old: cst.CSTNode | None, new: cst.CSTNode) -> None:
        self.old, self.new = old, new

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode):  # type: ignore[override]
        return self.new if original_node is self.old else updated_node
