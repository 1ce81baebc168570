"""moe-dense-dispatch: an expert loop that gathers each expert's tokens runs every expert on every token, masked."""

from __future__ import annotations

import libcst as cst

from graphweld.analysis.blocks import block_statements, with_statements
from graphweld.analysis.names import ImportTable
from graphweld.analysis.scopes import bound_names, fresh_name, mentioned_names
from graphweld.analysis.tensors import FunctionValues
from graphweld.cst_fast import call_code, source
from graphweld.rule import Rule, Safety
from graphweld.walk import children, iter_nodes

# Generated calls longer than this put their arguments one per line (99 columns, less room for
# the statement's indentation).
_CALL_WIDTH = 91
# Expressions that need no parentheses before a comparison operator.
_ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript)


class MoeDenseDispatch(Rule):
    """Run every expert on every token, masked by its routing, instead of gathering each expert's tokens (MoE).

    ## What it fixes
    The mixture-of-experts loop of Mixtral, Switch Transformers, GPT-OSS and their many copies,
    in a compiled region: a `for` over the experts (the rows of `hit.nonzero()`, or a `range`)
    whose body finds the expert's tokens with `top_k_pos, token_idx = torch.where(mask)`, runs the
    expert on `hidden_states[token_idx]`, and adds the weighted result back with
    `final.index_add_(0, token_idx, result)`. `torch.where(mask)` becomes the positions of every
    token (`torch.arange`) and whether it is routed to the expert at all; what the expert returns
    for a token not routed to it is set to 0 before it is added. A routing weight read as
    `weights[token_idx, slot, None]` becomes the token's weight summed over the slots that route
    it to the expert (`(weights * routed.t()).sum(-1)`), so a token that reaches one expert from
    several slots gets all of them, as the loop gave it: NLLB-MoE's router, whose mask columns are
    the slots and which drops tokens over an expert's capacity, routes that way. Where the slot is
    read otherwise, it is the token's first slot (`argmax` of the mask). The loop runs over every expert (`range(hit.shape[0])`),
    with the expert's number as a Python `int`, which is what `expert_idx[0]`, `expert_idx.item()`
    and `mask[expert_idx]` read from the row of `nonzero()` before. The split may be the only
    statement of a `with` block (DBRX and GPT-OSS's training path find the tokens under
    `torch.no_grad()`): the mask and the indices are found there, the routing weights after it,
    where the loop read them, so they keep their gradient. The rows may be `hit.nonzero()[:]`.
    Where the mask is `one_hot(..., num_classes=n + 1)`, its last row is a class past the experts
    (where expert parallelism sends the tokens of other ranks' experts) that the router never
    picks: the loop skips it itself (`if expert_idx == self.num_experts: continue`, Mixtral) or,
    where it does not (DBRX), the dense loop is `range(n)`, since expert `n` does not exist.

    ## Why the graph breaks
    `nonzero()` and `torch.where(mask)` return as many indices as the data selects: an output
    shape known only from the values ("Dynamic shape operator", GB0036). Dynamo stops there, and
    since the stop is inside a loop, it skips the whole frame: every MoE layer runs eagerly. With
    every token in every expert, the shapes are those of the input, and the layer compiles into
    the graph around it. This is the dense masked dispatch the PyTorch docs suggest for
    data-dependent shapes (compute on the full size, then mask).

    ## Example
    ```python
    expert_hit = torch.greater(expert_mask.sum(dim=(-1, -2)), 0).nonzero()
    for expert_idx in expert_hit:
        expert_layer = self.experts[expert_idx[0]]
        idx, top_x = torch.where(expert_mask[expert_idx].squeeze(0))
        current_state = hidden_states[None, top_x].reshape(-1, hidden_dim)
        current_hidden_states = expert_layer(current_state) * routing_weights[top_x, idx, None]
        final_hidden_states.index_add_(0, top_x, current_hidden_states.to(hidden_states.dtype))
    ```
    becomes
    ```python
    expert_hit = torch.greater(expert_mask.sum(dim=(-1, -2)), 0)
    for expert_idx in range(expert_hit.shape[0]):
        expert_layer = self.experts[expert_idx]
        routed = expert_mask[[expert_idx]].squeeze(0) != 0
        top_x = torch.arange(routed.shape[1], device=routed.device)
        token_routed = routed.any(0)
        token_weight = (routing_weights * routed.t()).sum(-1)
        current_state = hidden_states[None, top_x].reshape(-1, hidden_dim)
        current_hidden_states = expert_layer(current_state) * token_weight[top_x, None]
        routed_output = current_hidden_states.to(hidden_states.dtype)
        final_hidden_states.index_add_(
            0,
            top_x,
            routed_output.masked_fill(~token_routed.view(-1, *[1] * (routed_output.dim() - 1)), 0),
        )
    ```

    ## Safety
    Always unsafe, so only applied with `--unsafe-fixes`; verify with `fix --entry`. Every expert
    now runs on every token: the experts' FLOPs grow by the number of experts over the number
    each token is routed to (E/k: 8 for Mixtral's 8 experts, top 2), which can make the compiled
    model slower than the eager one with its breaks; measure the step time before keeping it
    (`benchmarks/RESULTS.md` records both for the models it fixes). An expert given a larger
    batch may round differently. An expert no token was routed to now has a zero gradient where
    it had none (an optimizer with momentum or weight decay then updates it). Where the slot is
    read other than in the weight, a token routed to the same expert from two slots (possible
    only if the routing repeats, never with `topk`) is counted once. The mask must have one row
    per routing slot and one column per token, as `torch.where` unpacked into two names implies,
    and `hit` one entry per expert (one more for the class past the experts, as above: were that
    class ever routed to, the original would call an expert `n` and the rewrite skips it). Left
    alone: a loop whose body uses the row of `nonzero()` other than as `row[0]`, `row.item()`,
    `int(row)` or an index, rebinds the indices, or has no `index_add_` along dimension 0 with
    the token indices; an `else` on the loop.
    """

    id = "moe-dense-dispatch"
    reference = "https://docs.pytorch.org/docs/stable/compile/programming_model.graph_breaks_index.html"
    summary = "Run every expert on every token, masked by its routing, instead of gathering each expert's tokens (MoE)"
    # The README's table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = (
        "a mixture-of-experts loop over `hit.nonzero()` (or a `range`) that gathers each expert's tokens with"
        " `slot, token = torch.where(mask)` (also under `no_grad`) and adds the result back with `final.index_add_(0, token, "
        "result)` (Mixtral, Switch Transformers, GPT-OSS, DBRX, LongCat and their copies)"
    )
    rewrite = (
        "every expert runs on every token: the indices become `torch.arange`, each token's weight the sum "
        "over the slots routing it to the expert, and what a token not routed to the expert gets is set to 0 "
        "before it is added"
    )
    default = "unsafe: E/k times the experts' FLOPs (E experts, k per token); measure the step time"
    trigger_words = ("index_add_",)
    needs_breaker_call = False
    node_types = (cst.For,)

    def visit_For(self, node: cst.For) -> None:
        context = self.context
        function = context.current_function
        if function is None or not context.in_compiled_region:
            return
        if node.orelse is not None or node.asynchronous is not None or not isinstance(node.target, cst.Name):
            return
        imports = context.regions.imports
        torch_name = imports.local_name("torch")
        if torch_name is None:
            return
        statements = block_statements(node.body)
        split = _find_split(statements, imports)
        if split is None:
            return
        where_at, (slot, token, _) = split
        add_at = _find_index_add(statements, where_at, token.value)
        if add_at is None:
            return
        others = [s for i, s in enumerate(statements) if i != where_at]
        if {slot.value, token.value} & bound_names(others):
            return

        extra: list[tuple[cst.CSTNode, list[cst.BaseStatement]]] = []
        new_loop = node
        rows = _expert_rows(node.iter, function, context.function_values(function), context.module)
        if rows is not None:
            hit, hit_statement = rows
            converted = _as_expert_number(statements, node.target.value)
            if converted is None:
                return
            number, statements, dropped = converted
            where_at, add_at = where_at - dropped, add_at - dropped
            if hit_statement is not None:
                extra.append((hit_statement, [_without_nonzero(hit_statement)]))
            # A one-hot with a class past the experts (DBRX) is never routed to, but a dense loop
            # over every row would call expert n, which does not exist, unless the body skips it.
            mask = _where_parts(_unwrapped(statements[where_at]), imports)[2]  # type: ignore[index]
            experts = _sentinel_experts(mask, context.function_values(function), imports, context.module)
            bound = f"{hit}.shape[0]"
            if experts is not None and not _skips(statements, number, experts, context.module):
                bound = experts
            new_loop = node.with_changes(target=cst.Name(number), iter=cst.parse_expression(f"range({bound})"))
        elif not _is_range(node.iter):
            return

        module = context.module
        taken = mentioned_names([function])
        routed = fresh_name("routed", taken)
        token_routed = fresh_name("token_routed", taken | {routed})
        output = fresh_name("routed_output", taken | {routed, token_routed})
        where_statement, add_statement = statements[where_at], statements[add_at]
        mask = _where_parts(_unwrapped(where_statement), imports)[2]  # type: ignore[index]
        mask_code = source(mask, module) if isinstance(mask, _ATOMS) else f"({source(mask, module)})"
        # A weight read as `weights[token, slot, None]` is summed over the slots that route the
        # token to this expert, so a token routed to one expert from two slots (NLLB-MoE's
        # capacity-limited routing) gets both; where the slot is read otherwise, its first slot.
        summed = _SlotWeights(token.value, slot.value, taken | {routed, token_routed, output})
        statements = [s if i == where_at else s.visit(summed) for i, s in enumerate(statements)]
        add_statement = statements[add_at]
        slot_read = any(n.value == slot.value for i, st in enumerate(statements) if i != where_at for n in _name_reads(st))
        found_tokens = [
            f"{routed} = {mask_code} != 0",
            *([f"{slot.value} = {routed}.int().argmax(0)"] if slot_read else []),
            f"{token.value} = {torch_name}.arange({routed}.shape[1], device={routed}.device)",
            f"{token_routed} = {routed}.any(0)",
        ]
        # The weights are read where the loop read them, outside any `with` that found the tokens
        # (under `no_grad` they would lose their gradient).
        weight_sums = [f"{name} = ({weights} * {routed}.t()).sum(-1)" for weights, name in summed.names.items()]
        if where_statement is _unwrapped(where_statement):
            dense = _parsed(found_tokens + weight_sums, where_statement)
        else:
            inner = _parsed(found_tokens, _unwrapped(where_statement))
            block = where_statement.with_changes(body=with_statements(where_statement.body, inner))  # type: ignore[attr-defined]
            dense = [block, *(cst.parse_statement(line) for line in weight_sums)]
        receiver, contribution = _index_add_parts(add_statement)  # type: ignore[misc]
        added = []
        if isinstance(contribution, cst.Name):
            output = contribution.value
        else:
            added.append(f"{output} = {source(contribution, module)}")
        masked = f"{output}.masked_fill(~{token_routed}.view(-1, *[1] * ({output}.dim() - 1)), 0)"
        added.append(call_code(f"{source(receiver, module)}.index_add_", ["0", token.value, masked], _CALL_WIDTH))
        body = [
            *statements[:where_at],
            *dense,
            *statements[where_at + 1 : add_at],
            *_parsed(added, add_statement),
            *statements[add_at + 1 :],
        ]
        replacement = new_loop.with_changes(body=with_statements(node.body, body))
        message = (
            f"the expert loop gathers each expert's tokens with `{torch_name}.where` (a data-dependent shape): run "
            "every expert on every token and mask what it adds (unsafe: E/k times the experts' FLOPs, for E experts "
            "and k per token)"
        )
        self.propose(node, [replacement], anchor=node, message=message, safety=Safety.UNSAFE, extra=extra)


def _find_split(
    statements: list[cst.BaseStatement], imports: ImportTable
) -> tuple[int, tuple[cst.Name, cst.Name, cst.BaseExpression]] | None:
    """The one top-level `slot, token = torch.where(mask)` of the loop body, and where it is; also
    as the only statement of a `with` block (DBRX and GPT-OSS find the tokens under `no_grad`)."""
    found = [
        (i, parts) for i, s in enumerate(statements) if (parts := _where_parts(_unwrapped(s), imports)) is not None
    ]
    return found[0] if len(found) == 1 else None


def _unwrapped(statement: cst.BaseStatement) -> cst.BaseStatement:
    """The only statement of a plain `with` block, or the statement itself."""
    if isinstance(statement, cst.With) and statement.asynchronous is None:
        inner = block_statements(statement.body)
        if len(inner) == 1:
            return inner[0]
    return statement


def _where_parts(
    statement: cst.BaseStatement, imports: ImportTable
) -> tuple[cst.Name, cst.Name, cst.BaseExpression] | None:
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    assign = statement.body[0]
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
        return None
    target = assign.targets[0].target
    if not isinstance(target, (cst.Tuple, cst.List)) or len(target.elements) != 2:
        return None
    slot, token = (element.value for element in target.elements)
    if not isinstance(slot, cst.Name) or not isinstance(token, cst.Name) or slot.value == token.value:
        return None
    call = assign.value
    if not isinstance(call, cst.Call) or imports.qualify(call.func) != "torch.where":
        return None
    if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
        return None
    return slot, token, call.args[0].value


def _find_index_add(statements: list[cst.BaseStatement], after: int, token: str) -> int | None:
    """The one top-level `final.index_add_(0, token, result)` after the split, when the body
    calls `index_add_` nowhere else."""
    found = [i for i, s in enumerate(statements) if i > after and _index_add_parts(s, token) is not None]
    calls = sum(
        1 for s in statements for n in iter_nodes(s) if isinstance(n, cst.Attribute) and n.attr.value == "index_add_"
    )
    return found[0] if len(found) == 1 and calls == 1 else None


def _index_add_parts(
    statement: cst.BaseStatement, token: str | None = None
) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """`final` and `result` of a statement `final.index_add_(0, token, result)`."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    expression = statement.body[0]
    if not isinstance(expression, cst.Expr) or not isinstance(expression.value, cst.Call):
        return None
    call = expression.value
    if not isinstance(call.func, cst.Attribute) or call.func.attr.value != "index_add_":
        return None
    args = call.args
    if len(args) != 3 or any(arg.keyword is not None or arg.star for arg in args):
        return None
    dim, index = args[0].value, args[1].value
    if not (isinstance(dim, cst.Integer) and dim.value == "0" and isinstance(index, cst.Name)):
        return None
    if token is not None and index.value != token:
        return None
    return call.func.value, args[2].value


def _is_range(iterable: cst.BaseExpression) -> bool:
    return isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and iterable.func.value == "range"


def _nonzero_receiver(expression: cst.BaseExpression | None) -> cst.BaseExpression | None:
    """`hit` for `hit.nonzero()` (or `hit.nonzero(as_tuple=False)`): rows of one index each."""
    if not isinstance(expression, cst.Call) or not isinstance(expression.func, cst.Attribute):
        return None
    if expression.func.attr.value != "nonzero":
        return None
    for arg in expression.args:
        if arg.keyword is None or arg.keyword.value != "as_tuple":
            return None
        if not (isinstance(arg.value, cst.Name) and arg.value.value == "False"):
            return None
    return expression.func.value


def _expert_rows(
    iterable: cst.BaseExpression, function: cst.FunctionDef, values: FunctionValues, module: cst.Module
) -> tuple[str, cst.SimpleStatementLine | None] | None:
    """For a loop over the rows of `hit.nonzero()`: the code that stands for `hit` after the
    rewrite, and the statement binding the rows to a name (None when the loop calls `nonzero()`
    itself). The name must be bound once and read only by the loop."""
    if _is_full_slice(iterable):
        iterable = iterable.value  # type: ignore[attr-defined]
    direct = _nonzero_receiver(iterable)
    if direct is not None:
        code = source(direct, module)
        return (code if isinstance(direct, _ATOMS) else f"({code})"), None
    if not isinstance(iterable, cst.Name) or _nonzero_receiver(values.single_value(iterable.value)) is None:
        return None
    name = iterable.value
    binding = None
    for statement in iter_nodes(function.body):
        if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
            assign = statement.body[0]
            if isinstance(assign, cst.Assign) and len(assign.targets) == 1:
                target = assign.targets[0].target
                if isinstance(target, cst.Name) and target.value == name:
                    binding = statement
    reads = sum(1 for n in _name_reads(function.body) if n.value == name)
    return (name, binding) if binding is not None and reads == 1 else None


def _is_full_slice(expression: cst.BaseExpression) -> bool:
    """`rows[:]`: every row (GPT-OSS loops over `expert_hit[:]`)."""
    if not isinstance(expression, cst.Subscript) or len(expression.slice) != 1:
        return False
    part = expression.slice[0].slice
    return isinstance(part, cst.Slice) and part.lower is None and part.upper is None and part.step is None


def _sentinel_experts(
    mask: cst.BaseExpression, values: FunctionValues, imports: ImportTable, module: cst.Module
) -> str | None:
    """`n` when the mask is built by `one_hot(..., num_classes=n + 1)`: its last row is no expert
    (the class expert parallelism sends other ranks' tokens to), so the dense loop stops before it."""
    root = mask
    while isinstance(root, (cst.Subscript, cst.Attribute, cst.Call)):
        root = root.func if isinstance(root, cst.Call) else root.value
    if not isinstance(root, cst.Name):
        return None
    for value in values.bindings.get(root.value, []):
        if value is None:
            continue
        for node in iter_nodes(value):
            if not isinstance(node, cst.Call) or imports.qualify(node.func) != "torch.nn.functional.one_hot":
                continue
            for arg in node.args:
                classes = arg.value
                if arg.keyword is not None and arg.keyword.value == "num_classes" and _plus_one(classes):
                    return source(classes.left, module)  # type: ignore[attr-defined]
    return None


def _plus_one(expression: cst.BaseExpression) -> bool:
    return (
        isinstance(expression, cst.BinaryOperation)
        and isinstance(expression.operator, cst.Add)
        and isinstance(expression.right, cst.Integer)
        and expression.right.value == "1"
    )


def _skips(statements: list[cst.BaseStatement], number: str, bound: str, module: cst.Module) -> bool:
    """Whether the loop body skips expert `bound` itself: `if number == bound: continue`."""
    for statement in statements:
        if not isinstance(statement, cst.If) or statement.orelse is not None:
            continue
        test = statement.test
        if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
            continue
        if not isinstance(test.comparisons[0].operator, cst.Equal):
            continue
        sides = {source(test.left, module), source(test.comparisons[0].comparator, module)}
        body = block_statements(statement.body)
        if sides == {number, bound} and len(body) == 1 and isinstance(body[0], cst.SimpleStatementLine):
            if len(body[0].body) == 1 and isinstance(body[0].body[0], cst.Continue):
                return True
    return False


def _name_reads(root: cst.CSTNode) -> list[cst.Name]:
    """The names a subtree reads or binds, without attribute and keyword names."""
    found: list[cst.Name] = []
    stack: list[cst.CSTNode] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            found.append(node)
        elif isinstance(node, cst.Attribute):
            stack.append(node.value)
        elif isinstance(node, cst.Arg):
            stack.append(node.value)
        elif isinstance(node, cst.AssignTarget):
            continue
        else:
            stack.extend(children(node))
    return found


def _without_nonzero(statement: cst.SimpleStatementLine) -> cst.SimpleStatementLine:
    assign = statement.body[0]
    return statement.with_changes(body=[assign.with_changes(value=assign.value.func.value)])  # type: ignore[attr-defined]


def _row_read(node: cst.CSTNode, row: str) -> cst.Name | None:
    """The row's name when `node` reads the expert's number from it: `row[0]`, `row.item()`, `int(row)`."""
    if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and node.value.value == row:
        if len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            index = node.slice[0].slice.value
            if isinstance(index, cst.Integer) and index.value == "0":
                return node.value
    if isinstance(node, cst.Call) and not node.args and isinstance(node.func, cst.Attribute):
        func = node.func
        if func.attr.value == "item" and isinstance(func.value, cst.Name) and func.value.value == row:
            return func.value
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "int" and len(node.args) == 1:
        value = node.args[0].value
        if isinstance(value, cst.Name) and value.value == row:
            return value
    return None


def _row_index(node: cst.CSTNode, row: str) -> cst.Name | None:
    """The row's name when `node` indexes with it: `mask[row]`."""
    if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
        index = node.slice[0].slice.value
        if isinstance(index, cst.Name) and index.value == row:
            return index
    return None


class _RowToNumber(cst.CSTTransformer):
    """`row[0]`, `row.item()` and `int(row)` become the expert's number; `x[row]` becomes `x[[number]]`."""

    def __init__(self, row: str, number: str) -> None:
        self.row = row
        self.number = number

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        if _row_read(original, self.row) is not None:
            return cst.Name(self.number)
        if _row_index(original, self.row) is not None:
            as_list = cst.Index(cst.List([cst.Element(cst.Name(self.number))]))
            return updated.with_changes(slice=[updated.slice[0].with_changes(slice=as_list)])
        return updated

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        return cst.Name(self.number) if _row_read(original, self.row) is not None else updated


def _as_expert_number(
    statements: list[cst.BaseStatement], row: str
) -> tuple[str, list[cst.BaseStatement], int] | None:
    """The loop body reading the expert's number where it read the row of `nonzero()`: the
    number's name, the statements, and how many were dropped from the front (a first statement
    that only names the number, `expert_idx = int(row.item())`, goes and its name is the number's).
    None when the body uses the row some other way."""
    first = statements[0]
    if isinstance(first, cst.SimpleStatementLine) and len(first.body) == 1 and isinstance(first.body[0], cst.Assign):
        assign = first.body[0]
        value = assign.value
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "int" and len(value.args) == 1:
            value = value.args[0].value
        target = assign.targets[0].target if len(assign.targets) == 1 else None
        if isinstance(target, cst.Name) and _row_read(value, row) is not None:
            rest = statements[1:]
            if target.value != row and any(n.value == row for s in rest for n in _name_reads(s)):
                return None
            return target.value, rest, 1
    # Every read of the row must be one the rewrite turns into the number.
    known = {
        id(name)
        for s in statements
        for n in iter_nodes(s)
        if (name := _row_read(n, row) or _row_index(n, row)) is not None
    }
    if any(n.value == row and id(n) not in known for s in statements for n in _name_reads(s)):
        return None
    return row, [s.visit(_RowToNumber(row, row)) for s in statements], 0


class _SlotWeights(cst.CSTTransformer):
    """`w[token, slot, None]` (or `w[token, slot]`) becomes `token_weight[token, None]`, where
    `token_weight = (w * routed.t()).sum(-1)`: each token's weight summed over the slots that
    route it to the expert (`names`: the weights' code and the name each sum gets)."""

    def __init__(self, token: str, slot: str, taken: set[str]) -> None:
        self.token, self.slot, self.taken = token, slot, set(taken)
        self.names: dict[str, str] = {}

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        indices = [element.slice for element in original.slice]
        if not all(isinstance(index, cst.Index) for index in indices) or len(indices) not in (2, 3):
            return updated
        values = [index.value for index in indices]  # type: ignore[union-attr]
        if not (
            isinstance(values[0], cst.Name) and values[0].value == self.token
            and isinstance(values[1], cst.Name) and values[1].value == self.slot
            and (len(values) == 2 or (isinstance(values[2], cst.Name) and values[2].value == "None"))
        ):  # fmt: skip
            return updated
        weights = cst.Module([]).code_for_node(updated.value)
        if weights not in self.names:
            self.names[weights] = name = fresh_name("token_weight", self.taken)
            self.taken.add(name)
        rest = ", None" if len(values) == 3 else ""
        return cst.parse_expression(f"{self.names[weights]}[{self.token}{rest}]")


def _parsed(lines: list[str], replaced: cst.BaseStatement) -> list[cst.BaseStatement]:
    """The lines as statements, the first keeping the replaced statement's leading lines."""
    statements = list(cst.parse_module("\n".join(lines) + "\n").body)
    statements[0] = statements[0].with_changes(leading_lines=replaced.leading_lines)  # type: ignore[union-attr]
    return statements
