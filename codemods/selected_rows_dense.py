"""selected-rows-dense: a write back through a selection computes every row, kept by the mask."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from graphweld.analysis.blocks import block_statements
from graphweld.analysis.names import ImportTable, dotted_name
from graphweld.analysis.scopes import fresh_name, mentioned_names
from graphweld.analysis.tensors import FunctionValues, any_of
from graphweld.cst_fast import call_code, source
from graphweld.rule import Rule, Safety
from graphweld.walk import iter_nodes

# The widest a written call is on one line (the statement's indentation comes on top).
_CALL_WIDTH = 88
# What makes an index vector of the positions a 1-D mask selects a flat vector.
_FLATTENING = frozenset(("view", "reshape", "flatten", "squeeze"))
# Writes of rows given by an index vector along dim 0: accumulating or replacing.
_INDEX_WRITES = {"index_add_": True, "index_copy_": False}


@dataclass(frozen=True)
class _Selection:
    """What an `if` tests for being empty: a boolean `mask`, or an `index` vector bound once to
    the positions of a boolean condition (`(species == i).nonzero().view(-1)`), whose binding
    statement `bound_at` becomes the mask's."""

    name: str
    mask: cst.BaseExpression
    bound_at: cst.SimpleStatementLine | None = None

    @property
    def is_index(self) -> bool:
        return self.bound_at is not None


class SelectedRowsDense(Rule):
    """Compute every row and keep the selected ones with `torch.where`, instead of gathering the rows a mask selects.

    ## What it fixes
    In a compiled region, an `if` that skips a write back through a selection when it selects
    nothing (`if mask.any():`, `if idx.shape[0] > 0:`, `numel()`, `len(...)`), where the block
    computes from the selected rows and writes the result back to them:
    `output[mask] = expert(x[mask])` (or `+=`) in a mixture-of-experts loop, and the
    index form of atomistic models that run one network per chemical element, as TorchANI's
    `ANINetworks` does: `idx = (species == i).nonzero().view(-1)`, `x.index_select(0, idx)`,
    `out.index_add_(0, idx, net(rows))`. (The same test around a write of a value through the mask
    alone, `logits[1:][neg_is_pos] = float("-inf")`, is `equality-shortcut`'s: the write traces,
    only the test breaks.)

    ## Why the graph breaks
    The number of rows a mask selects is known only from its values: `x[mask]`, `nonzero()` and
    `torch.where(cond)` are "Dynamic shape operators" (GB0036), and deciding on `mask.any()` or on
    the selection's size asks for a value Dynamo does not have ("Data-dependent branching",
    GB0170; with `capture_dynamic_output_shape_ops`, "Could not guard on data-dependent
    expression"). Computing on every row and masking the result is the dense form PyTorch's docs
    suggest for data-dependent shapes: every shape is the input's, and the block is one graph with
    the code around it.

    ## Example
    ```python
    for i, net in enumerate(self.atomics.values()):
        selected = (species == i).nonzero().view(-1)
        if selected.shape[0] > 0:
            rows = aev.index_select(0, selected)
            energies.index_add_(0, selected, net(rows).view(-1))
    ```
    becomes
    ```python
    for i, net in enumerate(self.atomics.values()):
        selected_mask = species == i
        rows = aev
        update = net(rows).view(-1)
        selected_mask_rows = selected_mask.view(selected_mask.shape + (1,) * (update.dim() - selected_mask.dim()))
        energies.add_(torch.where(selected_mask_rows, update, 0))
    ```
    An assignment (`output[mask] = ...`, `index_copy_`) becomes `output.copy_(torch.where(mask,
    update, output))`, in place as before; `-=` becomes `sub_`.

    ## Safety
    Unsafe: it is exact only where the block computes each
    selected row from that row alone (a linear layer, an MLP, elementwise math, as atomic
    networks and experts do), not where rows meet (a batch norm in training, attention over the
    selected rows, a reduction); it runs the computation on every row, once per mask (the cost of
    the rows not selected, and in a loop over experts or elements, per expert); and a value that
    is not finite on a row not selected (a logarithm of padding) leaves the output alone but may
    make a gradient NaN. In training, a network no row selects (an element absent from the batch,
    an expert no token is routed to) gets zero gradients where it got none (`None`), which an
    optimizer with momentum or weight decay treats differently. `fix --entry` keeps it only where the compiled outputs (and, with
    `--train`, gradients) equal eager's. Names the block binds must not be read after it, the
    index must be used nowhere else, and the selection may be used in the block only to select
    rows; anything else is left alone.
    """

    id = "selected-rows-dense"
    reference = "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0036.html"
    summary = "Compute every row and keep the selected ones with torch.where, instead of gathering the rows a mask selects"
    # The README's table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = (
        "`if mask.any():` / `if idx.shape[0] > 0:` around a write back through the selection: "
        "`out[mask] = f(x[mask])` (experts), `out.index_add_(0, idx, f(x.index_select(0, idx)))` with "
        "`idx = (species == i).nonzero().view(-1)` (atomic networks)"
    )
    rewrite = (
        "compute `f` on every row and write `torch.where(mask, update, out)` in place (`add_` for `+=` and "
        "`index_add_`)"
    )
    default = "unsafe: exact where each row is computed from itself alone; the rows not selected are computed too"
    trigger_words = (".any(", "numel(", "shape[0]", "size(0)", "len(")
    needs_breaker_call = False
    node_types = (cst.If,)

    def visit_If(self, node: cst.If) -> None:
        context = self.context
        subject = _tested_for_rows(node.test, context.regions.imports)
        if subject is None or node.orelse is not None:
            return
        function = context.current_function
        if function is None or id(node) in context.elif_nodes or not context.in_compiled_region:
            return
        statements = block_statements(node.body)
        if not statements or not all(isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1 for s in statements):
            return
        values = context.function_values(function)
        selection = _selection(subject, values, function)
        if selection is None:
            return
        smalls = [s.body[0] for s in statements]  # type: ignore[attr-defined]
        if selection.is_index:
            # `idx.sum() > 0` is false for the index vector [0]: not a test of selecting anything.
            if _sums(node.test):
                return
            # The index now names a mask: it may be read only by the test and the block.
            if _reads(function, selection.name, skip=(node, selection.bound_at)):
                return
        elif not (any_of(node.test, values.imports) or values.is_tensor(cst.Name(selection.name)) or context.breaks_per_run(node)):
            return  # `len(mask) > 0` of a list of booleans: Python's, no break (only an array has `any()`)
        self._dense(node, function, statements, smalls, selection)

    def _dense(self, node: cst.If, function: cst.FunctionDef, statements, smalls, selection: _Selection) -> None:
        context = self.context
        module = context.module
        torch_name = context.torch_name()
        if torch_name is None or not self.allows("dense", node):
            return
        *prefix, last = smalls
        write = _write(last, selection)
        if write is None or write[0] is None:
            return
        target, accumulate, value = write
        # The block's own names: bound once by a plain assignment, read nowhere after it.
        own: set[str] = set()
        for small in prefix:
            if not (isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name)):
                return
            own.add(small.targets[0].target.value)
        if own & {selection.name} or any(_reads(function, name, skip=(node,)) for name in own):
            return
        rows = _RowsOfSelection(selection)
        dense_prefix = [small.with_changes(value=small.value.visit(rows)) for small in prefix]
        dense_value = value.visit(rows)
        if not rows.replaced or selection.name in mentioned_names([*dense_prefix, dense_value]):
            return  # the selection is used other than to pick rows (a count, another index)
        taken = mentioned_names([function]) | own
        mask_name = fresh_name(f"{selection.name}_mask", taken) if selection.is_index else selection.name
        taken.add(mask_name)
        if isinstance(dense_value, cst.Name):
            update_name, update_statements = dense_value.value, []
        else:
            update_name = fresh_name("update", taken)
            update_statements = [cst.parse_statement(f"{update_name} = {source(dense_value, module)}")]
        kept = fresh_name(f"{mask_name}_rows", taken | {update_name})
        # The mask, one size-1 dimension for each of the update's beyond its own.
        update_statements.append(
            cst.parse_statement(f"{kept} = {mask_name}.view({mask_name}.shape + (1,) * ({update_name}.dim() - {mask_name}.dim()))")
        )
        target_code = source(target, module)
        if accumulate is None:
            call = call_code(f"{target_code}.copy_", [f"{torch_name}.where({kept}, {update_name}, {target_code})"], _CALL_WIDTH)
        else:
            method = "add_" if accumulate else "sub_"
            call = call_code(f"{target_code}.{method}", [f"{torch_name}.where({kept}, {update_name}, 0)"], _CALL_WIDTH)
        replacement = [
            *(statement.with_changes(body=[small]) for statement, small in zip(statements, dense_prefix)),
            *update_statements,
            cst.parse_statement(call),
        ]
        replacement[0] = _with_leading_lines(replacement[0], node, statements[0])
        extra = []
        resolves: list[cst.CSTNode] = []
        if selection.bound_at is not None:
            binding = selection.bound_at
            extra.append((binding, [binding.with_changes(body=[cst.Assign(
                targets=[cst.AssignTarget(target=cst.Name(mask_name))], value=selection.mask,
            )])]))
            resolves.append(binding)
        test = context.code(node.test)
        message = (
            f"`if {test}:` and the rows it selects have a size known only from the data (GB0036, GB0170): compute "
            "every row and keep the selected ones with `torch.where`, in place (unsafe: exact where each row is "
            "computed from itself alone; the rows not selected are computed too)"
        )
        self.propose(node, replacement, anchor=node, message=message, safety=Safety.UNSAFE, extra=extra, resolves=resolves, form="dense")


def _with_leading_lines(statement: cst.BaseStatement, test: cst.If, first: cst.BaseStatement) -> cst.BaseStatement:
    """The statement with the `if`'s blank lines and comments above it and the block's first
    statement's own."""
    return statement.with_changes(leading_lines=[*test.leading_lines, *first.leading_lines])  # type: ignore[call-arg]


def _tested_for_rows(test: cst.BaseExpression, imports: ImportTable) -> str | None:
    """The name an `if` tests for selecting anything: `m.any()`, `torch.any(m)`, `x.numel()`,
    `x.shape[0]`, `x.size(0)`, `len(x)`, `x.sum()`, alone or compared `> 0`, `!= 0` or `>= 1`."""
    if isinstance(test, cst.Comparison):
        if len(test.comparisons) != 1:
            return None
        comparison = test.comparisons[0]
        right = comparison.comparator
        if not isinstance(right, cst.Integer):
            return None
        operator = comparison.operator
        if not (
            (isinstance(operator, (cst.GreaterThan, cst.NotEqual)) and right.value == "0")
            or (isinstance(operator, cst.GreaterThanEqual) and right.value == "1")
        ):
            return None
        return _size_of(test.left)
    return any_of(test, imports) or _size_of(test)


def _sums(test: cst.BaseExpression) -> bool:
    left = test.left if isinstance(test, cst.Comparison) else test
    return isinstance(left, cst.Call) and isinstance(left.func, cst.Attribute) and left.func.attr.value == "sum"


def _size_of(node: cst.BaseExpression) -> str | None:
    """`x` of `x.numel()`, `x.sum()`, `x.size(0)`, `x.shape[0]` or `len(x)`, for a name `x`."""
    if isinstance(node, cst.Call):
        if isinstance(node.func, cst.Name) and node.func.value == "len" and len(node.args) == 1:
            arg = node.args[0].value
            return arg.value if isinstance(arg, cst.Name) else None
        if isinstance(node.func, cst.Attribute) and isinstance(node.func.value, cst.Name):
            name, args = node.func.attr.value, node.args
            if (name in ("numel", "sum") and not args) or (name == "size" and len(args) == 1 and _is_zero(args[0].value)):
                return node.func.value.value
        return None
    if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
        shape = node.value
        if isinstance(shape, cst.Attribute) and shape.attr.value == "shape" and isinstance(shape.value, cst.Name):
            return shape.value.value if _is_zero(node.slice[0].slice.value) else None
    return None


def _is_zero(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Integer) and node.value == "0"


def _selection(name: str, values: FunctionValues, function: cst.FunctionDef) -> _Selection | None:
    """A boolean mask by that name, or an index vector bound once to a boolean condition's
    positions by a statement of its own."""
    if values.is_boolean(cst.Name(name)):
        return _Selection(name, cst.Name(name))
    value = values.single_value(name)
    if value is None:
        return None
    condition = _positions_of(value, values)
    if condition is None or not values.is_boolean(condition):
        return None
    for statement in iter_nodes(function):
        if (
            isinstance(statement, cst.SimpleStatementLine)
            and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Assign)
            and statement.body[0].value is value
        ):
            targets = statement.body[0].targets
            if len(targets) == 1 and isinstance(targets[0].target, cst.Name):
                return _Selection(name, _unparenthesized(condition), statement)
    return None


def _positions_of(value: cst.BaseExpression, values: FunctionValues) -> cst.BaseExpression | None:
    """The condition whose positions along its one dimension the value is: `c.nonzero()` or
    `torch.nonzero(c)` made flat (`.view(-1)`, `.flatten()`, `.squeeze()`), `torch.where(c)[0]`,
    `c.nonzero(as_tuple=True)[0]`."""
    if isinstance(value, cst.Subscript):
        if len(value.slice) != 1 or not isinstance(value.slice[0].slice, cst.Index) or not _is_zero(value.slice[0].slice.value):
            return None
        inner = value.value
        if not isinstance(inner, cst.Call):
            return None
        qualified = values.imports.qualify(inner.func)
        if qualified == "torch.where" and len(inner.args) == 1:
            return inner.args[0].value
        if _as_tuple(inner):
            return _nonzero_operand(inner, values, allow_as_tuple=True)
        return None
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value in _FLATTENING:
        return _nonzero_operand(value.func.value, values, allow_as_tuple=False)
    return None


def _nonzero_operand(node: cst.BaseExpression, values: FunctionValues, *, allow_as_tuple: bool) -> cst.BaseExpression | None:
    if not isinstance(node, cst.Call) or (_as_tuple(node) and not allow_as_tuple):
        return None
    positional = [arg.value for arg in node.args if arg.keyword is None]
    if isinstance(node.func, cst.Attribute) and node.func.attr.value == "nonzero" and not positional:
        return node.func.value
    if values.imports.qualify(node.func) in ("torch.nonzero", "torch.argwhere") and len(positional) == 1:
        return positional[0]
    if isinstance(node.func, cst.Attribute) and node.func.attr.value == "argwhere" and not positional:
        return node.func.value
    return None


def _as_tuple(call: cst.Call) -> bool:
    return any(arg.keyword is not None and arg.keyword.value == "as_tuple" and dotted_name(arg.value) == "True" for arg in call.args)


def _unparenthesized(node: cst.BaseExpression) -> cst.BaseExpression:
    return node.with_changes(lpar=[], rpar=[]) if getattr(node, "lpar", None) else node


def _write(small: cst.BaseSmallStatement, selection: _Selection):
    """(target, accumulate, value) of a write back through the selection: `t[s] = v` (None),
    `t[s] += v` (True), `t[s] -= v` (False), and for an index `t.index_add_(0, s, v)` (True) and
    `t.index_copy_(0, s, v)` (None); None when the statement is not one. The target is None
    where it is not a name or an attribute (it is read again by the dense form)."""
    name = selection.name
    if isinstance(small, (cst.Assign, cst.AugAssign)):
        if isinstance(small, cst.Assign):
            if len(small.targets) != 1:
                return None
            target, accumulate = small.targets[0].target, None
        elif isinstance(small.operator, (cst.AddAssign, cst.SubtractAssign)):
            target, accumulate = small.target, isinstance(small.operator, cst.AddAssign)
        else:
            return None
        if not (isinstance(target, cst.Subscript) and len(target.slice) == 1 and _is_name(target.slice[0].slice, name)):
            return None
        written = target.value
        return (written if dotted_name(written) is not None else None), accumulate, small.value
    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) and selection.is_index:
        call = small.value
        func = call.func
        if not (isinstance(func, cst.Attribute) and func.attr.value in _INDEX_WRITES and len(call.args) == 3):
            return None
        if any(arg.keyword is not None for arg in call.args) or not _is_zero(call.args[0].value):
            return None
        if not (isinstance(call.args[1].value, cst.Name) and call.args[1].value.value == name):
            return None
        written = func.value
        return (written if dotted_name(written) is not None else None), (True if _INDEX_WRITES[func.attr.value] else None), call.args[2].value
    return None


def _is_name(index: cst.BaseSlice, name: str) -> bool:
    return isinstance(index, cst.Index) and isinstance(index.value, cst.Name) and index.value.value == name


def _reads(function: cst.FunctionDef, name: str, skip: tuple[cst.CSTNode | None, ...]) -> bool:
    """Whether the function mentions the name outside the skipped statements (and not as the
    target it binds there)."""
    skipped = {id(node) for node in skip if node is not None}
    return any(
        isinstance(n, cst.Name) and n.value == name
        for n in iter_nodes(function.body, prune=lambda n: id(n) in skipped)
        if id(n) not in skipped
    )


class _RowsOfSelection(cst.CSTTransformer):
    """Every row instead of the selected ones: `x[mask]` -> `x`, `w[mask, k]` -> `w[:, k]`, and for
    an index `x[idx]` and `x.index_select(0, idx)` -> `x`."""

    def __init__(self, selection: _Selection) -> None:
        self.name = selection.name
        self.index = selection.is_index
        self.replaced = 0

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        elements = list(updated.slice)
        at = [i for i, element in enumerate(elements) if _is_name(element.slice, self.name)]
        if len(at) != 1:
            return updated
        self.replaced += 1
        if len(elements) == 1:
            return updated.value
        elements[at[0]] = elements[at[0]].with_changes(slice=cst.Slice(lower=None, upper=None))
        return updated.with_changes(slice=elements)

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        func = updated.func
        if (
            self.index
            and isinstance(func, cst.Attribute)
            and func.attr.value == "index_select"
            and len(updated.args) == 2
            and all(arg.keyword is None for arg in updated.args)
            and _is_zero(updated.args[0].value)
            and isinstance(updated.args[1].value, cst.Name)
            and updated.args[1].value.value == self.name
        ):
            self.replaced += 1
            return func.value
        return updated

