"""branch-to-where: a branch on a tensor's value that only selects values becomes `torch.where`."""

from __future__ import annotations

import libcst as cst

from graphweld.analysis.blocks import block_statements
from graphweld.cst_fast import call_code, source
from graphweld.rule import Rule, Safety
from graphweld.analysis.scopes import bound_names, fresh_name, loaded_names, mentioned_names, target_names
from graphweld.analysis.tensors import FunctionValues
from graphweld.walk import iter_nodes

# Generated calls longer than this put their arguments one per line (99 columns, less room for
# the statement's indentation).
_CALL_WIDTH = 91


class Refused(Exception):
    """The branch is not one this rule rewrites; the message says why."""


class BranchToWhere(Rule):
    """Turn a branch on a tensor's value that only selects values into `torch.where`.

    ## What it fixes
    An `if`/`else` in a compiled region whose condition is a tensor (`if seq_len > limit:` after
    `seq_len = torch.max(position_ids) + 1`, or any `if` where a run of the entry saw Dynamo stop
    on data-dependent branching, GB0170) and whose branches only choose values: each branch binds
    the same names, or makes the same call with different arguments (`self.register_buffer("inv_freq",
    ..., persistent=False)`). An `if` without `else` that rebinds names already bound is taken as
    selecting between the new and the old value; its temporaries (names it binds only there and
    that nothing outside it reads: RT-DETR's `clamp_value` in its training clamp) are computed
    first. An `if` without `else` whose one statement writes into part of a tensor (`t[index] =
    value`: FastSpeech 2's `if duration_labels.sum() == 0: duration_labels[rows.eq(0)] = 1`,
    gpytorch's `if z_is_small.sum() > 0: grad[z_is_small] = ...`) makes the write on a copy and
    takes the copy's values where the condition holds, in place (`t.copy_(torch.where(cond,
    t_updated, t))`), so whatever shares the tensor's memory sees what it saw before. A condition
    written with `not`, `and`, `or` becomes `torch.logical_not`, `logical_and`, `logical_or`. A
    value chosen by a Python option (`tensor.sigmoid() if normalization == "sigmoid" else
    torch.softmax(tensor, dim=1)`, torchmetrics' logits check) is as pure as its sides.
    An early return on a tensor's value (`if error_ratio == 0: return last_step * ifactor`,
    torchdiffeq's step size; a metric returning zero when there is nothing to count), followed only
    by assignments of pure values and a final `return`, becomes those assignments and one `return
    torch.where(condition, early, final)`; the condition and the early result are computed where
    the `if` was when the assignments rebind a name they read.
    Before the selection, a branch may fill a cache on an object (`if not
    hasattr(self, "long_inv_freq"): self.long_inv_freq = ...`) or move a cached tensor
    (`self.cache = self.cache.to(device)`); those statements are hoisted above the selection,
    since they do not depend on the condition.

    ## Why the graph breaks
    Dynamo cannot trace a Python decision on a tensor's value: the value is not known while the
    graph is built. It breaks the graph (or skips the frame) at the `if`: "Data-dependent
    branching" (GB0170), whose hint is to use `torch.where` or `torch.cond`. `torch.where`
    computes both sides and selects element by element, inside the graph.

    ## Example
    ```python
    seq_len = torch.max(position_ids) + 1
    if seq_len > original_max_position_embeddings:
        if not hasattr(self, "long_inv_freq"):
            self.long_inv_freq, _ = self.rope_init_fn(self.config, device, seq_len=original_max_position_embeddings + 1)
        self.register_buffer("inv_freq", self.long_inv_freq, persistent=False)
    else:
        self.original_inv_freq = self.original_inv_freq.to(device)
        self.register_buffer("inv_freq", self.original_inv_freq, persistent=False)
    ```
    becomes
    ```python
    seq_len = torch.max(position_ids) + 1
    if not hasattr(self, "long_inv_freq"):
        self.long_inv_freq, _ = self.rope_init_fn(self.config, device, seq_len=original_max_position_embeddings + 1)
    self.original_inv_freq = self.original_inv_freq.to(device)
    self.register_buffer(
        "inv_freq",
        torch.where(seq_len > original_max_position_embeddings, self.long_inv_freq, self.original_inv_freq),
        persistent=False,
    )
    ```

    ## Safety
    Always unsafe, so only applied with `--unsafe-fixes`; verify with `fix --entry`, with inputs
    that take each side. `torch.where` equals the branch only when both values have the same shape
    and dtype (it broadcasts and promotes) and the condition has one element (`if` raises on more),
    and graphweld cannot see shapes or dtypes in the source. Both sides are now computed on every
    input, and so are the temporaries: the rule refuses values that call anything but known tensor
    operations (and `torch.finfo`/`iinfo`; Python's `abs`, `max` and `min` of tensors, which
    Dynamo traces, and `float`/`int`: torchdiffeq's `(0.01 / max(d1, d2)) ** (1. / float(order +
    1))`), index by a value that may be a boolean mask (a
    data-dependent shape) or slice by a value; hoisted cache
    statements run on inputs that did not need them, which matters if what they call is
    expensive or has effects. The in-place form writes the tensor on every input (with its own
    values where the condition is false): autograd sees an in-place write either way, so a tensor
    saved for backward before it fails in backward where the branch was not taken before. After an
    early return, what follows now runs on inputs that returned early: a value only computed where
    the function did not return (a division by the ratio that was zero) may be infinite or NaN
    there, and its gradient through `torch.where` with it. A branch
    holding anything else (I/O, `raise`, a `return` other than the early return above, loops,
    different statements) is left alone; so is a branch on a value not known to be a tensor, and
    one that selects `None` (not a tensor: FSMT's `if not mask.any(): mask = None`).
    A buffer is registered again with the selected value, as the branches did, not written in
    place: measured on torch 2.13 (`fix --entry` calls the program three times and counts
    recompiles), registering it again makes no later call recompile, while `buf.copy_(...)` would
    write into whatever the buffer aliases (Phi-3's `original_inv_freq` is its `inv_freq`). A
    cache the hoisted statements fill on the first call (`self.long_inv_freq`) makes the second
    call recompile once, on its `hasattr` guard.
    """

    id = "branch-to-where"
    reference = "https://docs.pytorch.org/docs/stable/generated/torch.where.html"
    summary = "Turn a branch on a tensor's value that only selects values into `torch.where`"
    # The README's table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = (
        "an `if`/`else` on a tensor's value (known from the code, or where a run saw Dynamo stop on "
        "data-dependent branching, GB0170) whose branches bind the same names or make the same call with "
        "different arguments; an `if` without `else` that rebinds names or writes into part of a tensor "
        "(`t[mask] = v`); an early `return` followed by pure assignments and a `return`; a branch may first "
        "fill or move a cache on an object"
    )
    rewrite = (
        "hoist the cache statements, then select each value with `torch.where(condition, a, b)`; a write into"
        " part of a tensor is made on a copy, and `t.copy_(torch.where(condition, copy, t))`"
    )
    default = "unsafe: `torch.where` broadcasts and promotes, and both sides are computed on every input"
    trigger_words = ("if",)
    needs_breaker_call = False
    node_types = (cst.If,)

    def visit_If(self, node: cst.If) -> None:
        context = self.context
        decision = context.tensor_decision(node)
        if decision is None:
            return
        values, torch_name = decision
        function = context.current_function
        early = _returns_only(node) if node.orelse is None else None
        if early is not None:
            try:
                rewritten, reasons = _early_return(node, early, values, torch_name, context.module, function)
            except Refused:
                return  # branch-to-cond says why not
            message = (
                f"early return on a tensor's value `if {context.code(node.test)}: return ...` breaks the graph; "
                f"return `{torch_name}.where` of both results (unsafe: {'; '.join(reasons)})"
            )
            self.propose(function, [rewritten], anchor=node, message=message, safety=Safety.UNSAFE, form="early-return")
            return
        try:
            replacement, reasons = _rewrite(node, values, torch_name, context.module, context.current_function)
        except Refused:
            # branch-to-cond takes the branches that do more than select, or says why not.
            return
        replacement[0] = replacement[0].with_changes(leading_lines=(*node.leading_lines, *replacement[0].leading_lines))
        message = (
            f"branch on a tensor's value `if {context.code(node.test)}:` breaks the graph; select with "
            f"`{torch_name}.where` (unsafe: {'; '.join(reasons)})"
        )
        self.propose(node, replacement, anchor=node, message=message, safety=Safety.UNSAFE)


def _rewrite(
    node: cst.If, values: FunctionValues, torch_name: str, module: cst.Module, function: cst.FunctionDef
) -> tuple[list[cst.BaseStatement], list[str]]:
    reasons = [
        "torch.where equals the branch only when both values have the same shape and dtype and the "
        "condition has one element",
    ]
    condition = values.boolean_source(node.test, module, torch_name)
    reason = values.impurity(node.test)
    if reason:
        raise Refused(f"the condition would be computed anew: {reason}")

    taken = block_statements(node.body)
    taken_caches, taken_tail = _split_caches(taken)
    if node.orelse is None:
        other_caches, other_tail = [], None
    elif isinstance(node.orelse, cst.Else):
        other_caches, other_tail = _split_caches(block_statements(node.orelse.body))
    else:
        raise Refused("`elif` chains are not rewritten")
    caches = [*taken_caches, *other_caches]
    _check_caches(caches, module)
    if caches:
        reasons.append("the cache statements of both branches now run on every input")
    if not taken_tail:
        raise Refused("the branch selects no value")

    merged: list[cst.BaseStatement] = []
    written = _written_in_place(taken_tail, module) if other_tail is None else None
    if written is not None:
        replacement = _in_place(node, taken_tail[0], written, values, torch_name, condition, module, function)
        reasons.append(
            "the tensor is written in place on every input, with its own values where the condition is false "
            "(autograd sees an in-place write either way)"
        )
        return [*caches, *replacement], reasons
    if other_tail is None:
        temporaries = {id(statement) for statement in _temporaries(taken_tail, node, function, values, module)}
        if temporaries:
            reasons.append("the branch's temporaries are now computed on every input")
        # `x = torch.where(c, f, x)` reads `x`: bound before the `if`, or by a temporary above.
        available = _bound_before(node, function) | values.parameters
        for statement in taken_tail:
            target, value = _single_assignment(statement, module)
            _require_pure(value, values)
            if id(statement) in temporaries:
                merged.append(statement)  # computed first, as it was, and read by the selections below
                available |= set(target_names(target))
                continue
            if not isinstance(target, cst.Name) or target.value not in available:
                raise Refused("without `else`, the branch must rebind names already bound")
            merged.append(_assignment(statement, torch_name, condition, source(value, module), target.value, module))
        if len(temporaries) == len(taken_tail):
            raise Refused("the branch selects no value")
        _check_condition_unchanged(node.test, caches, merged, module)
        return [*caches, *merged], reasons

    if len(taken_tail) != len(other_tail):
        raise Refused("the branches do different things")
    for first, second in zip(taken_tail, other_tail):
        if source(first, module) == source(second, module) and isinstance(first, cst.SimpleStatementLine):
            merged.append(first)
            continue
        merged.append(_merge(first, second, values, torch_name, condition, module))
    _check_condition_unchanged(node.test, caches, merged, module)
    return [*caches, *merged], reasons


def _bound_before(node: cst.If, function: cst.FunctionDef) -> set[str]:
    """The names the function binds before `node` starts: by the statements above it (also
    inside earlier blocks), and the targets of the loops and `with`s around it. (omnigen's
    `if pad_l > 0: pad_mask = ...` binds `pad_mask` for the first time: no value to keep.)"""
    found: set[str] = set()
    nested = (cst.FunctionDef, cst.ClassDef, cst.Lambda)
    for current in iter_nodes(function.body, prune=lambda n: isinstance(n, nested)):
        if current is node:
            break
        if isinstance(current, cst.SimpleStatementLine):
            found |= bound_names([current])
        elif isinstance(current, cst.For):
            found |= set(target_names(current.target))
        elif isinstance(current, cst.WithItem) and current.asname is not None:
            found |= set(target_names(current.asname.name))
    return found


def _returns_only(node: cst.If) -> cst.BaseExpression | None:
    """The value an `if` whose only statement is `return <value>` returns, or None."""
    statements = block_statements(node.body)
    if len(statements) != 1:
        return None
    return _returned(statements[0])


def _returned(statement: cst.BaseStatement) -> cst.BaseExpression | None:
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        small = statement.body[0]
        if isinstance(small, cst.Return) and small.value is not None:
            return small.value
    return None


def _early_return(
    node: cst.If,
    early: cst.BaseExpression,
    values: FunctionValues,
    torch_name: str,
    module: cst.Module,
    function: cst.FunctionDef,
) -> tuple[cst.FunctionDef, list[str]]:
    """`if cond: return a`, then assignments of pure values, then `return b` (torchdiffeq's step
    size: `if error_ratio == 0: return last_step * ifactor`): the assignments, then
    `return torch.where(cond, a, b)`. The condition and `a` are computed where the `if` was when
    the assignments rebind a name they read."""
    if not isinstance(function.body, cst.IndentedBlock):
        raise Refused("the function is on one line")
    body = list(function.body.body)
    index = next((i for i, statement in enumerate(body) if statement is node), None)
    if index is None:
        raise Refused("the early return is not in the function's own body")
    if any(isinstance(n, (cst.Yield, cst.Await)) for n in iter_nodes(function.body, prune=lambda n: isinstance(n, (cst.FunctionDef, cst.Lambda, cst.ClassDef)))):
        raise Refused("the function is a generator or a coroutine")
    rest = body[index + 1 :]
    final = _returned(rest[-1]) if rest else None
    if final is None:
        raise Refused("the function does not end in a `return` of a value after the `if`")
    reason = values.impurity(node.test)
    if reason:
        raise Refused(f"the condition would be computed anew: {reason}")
    _require_pure(early, values)
    _require_pure(final, values)
    rebound: set[str] = set()
    for statement in rest[:-1]:
        target, value = _single_assignment(statement, module)
        if not isinstance(target, cst.Name):
            raise Refused(f"`{source(statement, module)[:40]}` does not bind a plain name")
        _require_pure(value, values)
        rebound.add(target.value)
    reasons = [
        "torch.where equals the early return only when both results have the same shape and dtype and the "
        "condition has one element",
        "what follows the `if` is now computed on every input (a value that was only computed where the "
        "function did not return early may be infinite or NaN there, and its gradient with it)",
    ]
    condition = values.boolean_source(node.test, module, torch_name)
    early_code = source(early, module)
    read = loaded_names([node.test, early])
    before: list[cst.BaseStatement] = []
    if read & rebound:
        taken = mentioned_names([function])
        condition_name = fresh_name("returns_early", taken)
        early_name = fresh_name("early_result", taken | {condition_name})
        before = [
            cst.parse_statement(f"{condition_name} = {condition}\n").with_changes(leading_lines=node.leading_lines),
            cst.parse_statement(f"{early_name} = {early_code}\n"),
        ]
        condition, early_code = condition_name, early_name
    where = call_code(f"{torch_name}.where", [condition, early_code, source(final, module)], _CALL_WIDTH, prefix="return ")
    middle = list(rest[:-1])
    if not before and middle:
        middle[0] = middle[0].with_changes(leading_lines=(*node.leading_lines, *middle[0].leading_lines))
    last = _statement(rest[-1], where)
    if not before and not middle:
        last = last.with_changes(leading_lines=(*node.leading_lines, *last.leading_lines))
    new_body = [*body[:index], *before, *middle, last]
    return function.with_changes(body=function.body.with_changes(body=new_body)), reasons


def _written_in_place(statements: list[cst.BaseStatement], module: cst.Module) -> cst.Subscript | None:
    """The target of a branch that is one write into part of a tensor (`t[index] = value`), or None."""
    if len(statements) != 1:
        return None
    try:
        target, _ = _single_assignment(statements[0], module)
    except Refused:
        return None
    return target if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name) else None


def _in_place(
    node: cst.If,
    statement: cst.BaseStatement,
    target: cst.Subscript,
    values: FunctionValues,
    torch_name: str,
    condition: str,
    module: cst.Module,
    function: cst.FunctionDef,
) -> list[cst.BaseStatement]:
    """`if cond: t[index] = value` (FastSpeech 2's `duration_labels[rows.eq(0)] = 1`): the write is
    made on a copy, and the tensor takes the copy's values where the condition holds, in place, so
    what shares its memory sees the same values as before."""
    tensor = cst.ensure_type(target.value, cst.Name)
    _, value = _single_assignment(statement, module)
    if not (values.is_tensor(tensor) or tensor.value in {n.value for n in iter_nodes(node.test) if isinstance(n, cst.Name)}):
        raise Refused(f"`{tensor.value}` is not known to be a tensor")
    _require_pure(value, values)
    for element in target.slice:
        reason = values.impurity(element.slice.value) if isinstance(element.slice, cst.Index) else None
        if reason:
            raise Refused(f"the index would be computed on every input, and {reason}")
    updated = fresh_name(f"{tensor.value}_updated", mentioned_names([function]))
    write = cst.ensure_type(statement, cst.SimpleStatementLine)
    assign = cst.ensure_type(write.body[0], cst.Assign)
    on_copy = write.with_changes(
        body=[assign.with_changes(targets=[assign.targets[0].with_changes(target=target.with_changes(value=cst.Name(updated)))])],
        leading_lines=(),
    )
    select = call_code(f"{tensor.value}.copy_", [f"{torch_name}.where({condition}, {updated}, {tensor.value})"], _CALL_WIDTH)
    return [
        _statement(write, f"{updated} = {tensor.value}.clone()"),
        on_copy,
        cst.parse_statement(select + "\n"),
    ]


def _temporaries(
    statements: list[cst.BaseStatement], node: cst.If, function: cst.FunctionDef, values: FunctionValues, module: cst.Module
) -> list[cst.BaseStatement]:
    """The branch's statements that bind a name only there, read nowhere outside the branch:
    values the branch computes for its own selections (RT-DETR's `clamp_value`), which can be
    computed on every input when they are pure."""
    outside = loaded_names([function.body], skip=node)
    found = []
    for statement in statements:
        target, _ = _single_assignment(statement, module)
        if (
            isinstance(target, cst.Name)
            and len(values.bindings.get(target.value, [])) == 1
            and target.value not in values.parameters
            and target.value not in outside
        ):
            found.append(statement)
    return found


def _check_condition_unchanged(
    test: cst.BaseExpression, caches: list[cst.BaseStatement], merged: list[cst.BaseStatement], module: cst.Module
) -> None:
    """Each `torch.where` computes the condition again: nothing before the last of them may change
    what it reads (the `if` read it once, before either side ran)."""
    read = {node.value for node in iter_nodes(test) if isinstance(node, cst.Name)}
    condition = source(test, module)
    for cache in caches:
        if _cache_attribute(cache, module) in condition:
            raise Refused("a cache statement writes what the condition reads")
    for statement in merged[:-1]:
        for node in iter_nodes(statement):
            if isinstance(node, cst.AssignTarget) and read & set(target_names(node.target)):
                raise Refused("a statement rebinds what the condition reads")


def _split_caches(statements: list[cst.BaseStatement]) -> tuple[list[cst.BaseStatement], list[cst.BaseStatement]]:
    """The leading statements that fill or move a cache on an object, and the rest."""
    count = 0
    while count < len(statements) and (_is_lazy_cache(statements[count]) or _is_cache_move(statements[count])):
        count += 1
    return statements[:count], statements[count:]


def _is_lazy_cache(statement: cst.BaseStatement) -> bool:
    """`if not hasattr(obj, "name"): obj.name = ...` (only assignments to that attribute)."""
    if not isinstance(statement, cst.If) or statement.orelse is not None:
        return False
    test = statement.test
    if not (isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)):
        return False
    call = test.expression
    if not (
        isinstance(call, cst.Call)
        and isinstance(call.func, cst.Name)
        and call.func.value == "hasattr"
        and len(call.args) == 2
    ):
        return False
    owner, attribute = call.args[0].value, call.args[1].value
    if not isinstance(owner, cst.Name) or not isinstance(attribute, cst.SimpleString):
        return False
    name = attribute.evaluated_value
    for inner in block_statements(statement.body):
        if (
            not isinstance(inner, cst.SimpleStatementLine)
            or len(inner.body) != 1
            or not isinstance(inner.body[0], cst.Assign)
        ):
            return False
        assign = inner.body[0]
        for target in assign.targets:
            elements = (
                [e.value for e in target.target.elements] if isinstance(target.target, cst.Tuple) else [target.target]
            )
            for element in elements:
                is_cache = (
                    isinstance(element, cst.Attribute)
                    and isinstance(element.value, cst.Name)
                    and element.value.value == owner.value
                    and element.attr.value == name
                )
                if not (is_cache or (isinstance(element, cst.Name) and element.value == "_")):
                    return False
    return True


def _is_cache_move(statement: cst.BaseStatement) -> bool:
    """`obj.name = obj.name.to(...)`: moving a cached tensor, the same on every repeat."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return False
    assign = statement.body[0]
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
        return False
    target, value = assign.targets[0].target, assign.value
    return (
        isinstance(target, cst.Attribute)
        and isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value == "to"
        and value.func.value.deep_equals(target)
    )


def _check_caches(caches: list[cst.BaseStatement], module: cst.Module) -> None:
    """The hoisted statements must not read what another of them writes."""
    written = [_cache_attribute(statement, module) for statement in caches]
    if len(set(written)) != len(written):
        raise Refused("both branches write the same cache")
    for statement, attribute in zip(caches, written):
        text = source(statement, module)
        if any(other != attribute and other in text for other in written):
            raise Refused("one cache statement reads what another writes")


def _cache_attribute(statement: cst.BaseStatement, module: cst.Module) -> str:
    if isinstance(statement, cst.If):
        call = statement.test.expression  # type: ignore[attr-defined]
        return f"{source(call.args[0].value, module)}.{call.args[1].value.evaluated_value}"
    return source(statement.body[0].targets[0].target, module)  # type: ignore[attr-defined]


def _single_assignment(
    statement: cst.BaseStatement, module: cst.Module
) -> tuple[cst.BaseExpression, cst.BaseExpression]:
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        small = statement.body[0]
        if (
            isinstance(small, cst.Assign)
            and len(small.targets) == 1
            and not isinstance(small.targets[0].target, (cst.Tuple, cst.List))
        ):
            return small.targets[0].target, small.value
    raise Refused(f"`{source(statement, module)[:40]}` is not an assignment of one value")


def _require_pure(value: cst.BaseExpression, values: FunctionValues) -> None:
    if isinstance(value, cst.Name) and value.value == "None":
        # FSMT's `if not mask.any(): mask = None`: no tensor to select, only a different type.
        raise Refused("one side is `None`, which `torch.where` cannot select")
    reason = values.impurity(value)
    if reason:
        raise Refused(f"both sides would be computed on every input, and {reason}")


def _merge(
    first: cst.BaseStatement,
    second: cst.BaseStatement,
    values: FunctionValues,
    torch_name: str,
    condition: str,
    module: cst.Module,
) -> cst.BaseStatement:
    """One statement doing what `first` (condition true) or `second` (false) did."""
    if not (isinstance(first, cst.SimpleStatementLine) and isinstance(second, cst.SimpleStatementLine)):
        raise Refused("the branches do different things")
    if len(first.body) != 1 or len(second.body) != 1:
        raise Refused("the branches do different things")
    one, two = first.body[0], second.body[0]
    if isinstance(one, cst.Assign) and isinstance(two, cst.Assign):
        target, value = _single_assignment(first, module)
        other_target, other_value = _single_assignment(second, module)
        if source(target, module) != source(other_target, module):
            raise Refused("the branches bind different names")
        _require_pure(value, values)
        _require_pure(other_value, values)
        return _assignment(
            first, torch_name, condition, source(value, module), source(other_value, module), module, target=target
        )
    if (
        isinstance(one, cst.Expr)
        and isinstance(two, cst.Expr)
        and isinstance(one.value, cst.Call)
        and isinstance(two.value, cst.Call)
    ):
        call, other = one.value, two.value
        if source(call.func, module) != source(other.func, module) or len(call.args) != len(other.args):
            raise Refused("the branches make different calls")
        arguments: list[str] = []
        for arg, other_arg in zip(call.args, other.args):
            keyword = arg.keyword.value if arg.keyword is not None else None
            if (
                keyword != (other_arg.keyword.value if other_arg.keyword is not None else None)
                or arg.star != other_arg.star
            ):
                raise Refused("the branches call with different arguments")
            text, other_text = source(arg.value, module), source(other_arg.value, module)
            if text != other_text:
                if arg.star:
                    raise Refused("the branches differ in a `*` argument")
                _require_pure(arg.value, values)
                _require_pure(other_arg.value, values)
                text = f"{torch_name}.where({condition}, {text}, {other_text})"
            prefix = f"{keyword}=" if keyword is not None else arg.star
            arguments.append(f"{prefix}{text}")
        if all(a.value.deep_equals(b.value) for a, b in zip(call.args, other.args)):
            raise Refused("the branches make the same call")
        return _statement(first, call_code(source(call.func, module), arguments, _CALL_WIDTH))
    raise Refused("the branches do different things")


def _assignment(
    statement: cst.BaseStatement,
    torch_name: str,
    condition: str,
    taken: str,
    other: str,
    module: cst.Module,
    target: cst.BaseExpression | None = None,
) -> cst.BaseStatement:
    target_code = source(target, module) if target is not None else other
    where = call_code(f"{torch_name}.where", [condition, taken, other], _CALL_WIDTH, prefix=f"{target_code} = ")
    return _statement(statement, where)


def _statement(original: cst.BaseStatement, code: str) -> cst.BaseStatement:
    """A statement parsed from `code`, keeping the comments around `original`."""
    parsed = cst.parse_statement(code + "\n")
    if isinstance(original, cst.SimpleStatementLine) and isinstance(parsed, cst.SimpleStatementLine):
        return parsed.with_changes(
            leading_lines=original.leading_lines, trailing_whitespace=original.trailing_whitespace
        )
    return parsed
