"""guard-to-check: `if <tensor condition>: raise Error(msg)` (or `assert <tensor condition>`) becomes a check inside the graph."""

from __future__ import annotations

import libcst as cst

from graphweld.analysis.blocks import block_statements
from graphweld.cst_fast import call_code, source
from graphweld.rule import Rule, Safety
from graphweld.analysis.scopes import is_nested_function, loaded_names
from graphweld.analysis.tensors import TENSOR_METHODS, FunctionValues, conjuncts
from graphweld.walk import iter_nodes


class GuardToCheck(Rule):
    """Turn a validation guard on a tensor's value into `torch._assert_async` (`torch._check` after `.item()`).

    ## What it fixes
    `if <condition>: raise SomeError("message")` in a compiled region, with no `else`, where the
    condition is a tensor: known from the code (`if (shapes[:, 0] * shapes[:, 1]).sum() != n:`
    after `shapes = torch.as_tensor(...)`), or because a run of the entry saw Dynamo stop on
    data-dependent branching (GB0170) at that `if`. The message must be a string literal (or
    absent), a literal formatted with `.format(...)` or `%`, or an f-string, whose text is kept
    without the values (formatting them would read the tensor the check is about; an f-string's
    fields are kept as their source: `f"t0={t0}"` becomes `"t0={t0}"`).

    ## Why the graph breaks
    Deciding whether to raise needs the tensor's value, which Dynamo does not know while it builds
    the graph: "Data-dependent branching" (GB0170) breaks the graph or skips the whole frame.
    `torch._assert_async(condition, message)` is an operator: it stays in the graph and raises
    when the condition does not hold, without a decision in Python.

    ## Example
    ```python
    if (spatial_shapes[:, 0] * spatial_shapes[:, 1]).sum() != sequence_length:
        raise ValueError("Make sure to align the spatial shapes with the sequence length")
    ```
    becomes
    ```python
    torch._assert_async(
        (spatial_shapes[:, 0] * spatial_shapes[:, 1]).sum() == sequence_length,
        "Make sure to align the spatial shapes with the sequence length",
    )
    ```
    `==` and `!=` are swapped; any other condition is negated with `torch.logical_not`, which
    keeps NaN comparisons exact (`not (x > 0)` is not `x <= 0` for NaN).

    ## Safety
    Always unsafe, so only applied with `--unsafe-fixes`. The error raised changes type: a failed
    check raises `RuntimeError` with the same message, so code that catches the original exception
    type no longer catches it. On CUDA the check is asynchronous: a failure surfaces later as a
    device-side assertion, which leaves the CUDA context unusable. The condition must have one
    element, as the `if` required. The condition is evaluated once, as before. A formatted message
    loses its values: the check says `"underflow in dt {}"`, not the number. Guards with other
    statements besides the `raise`, `else` branches and other messages (a name, a call) are
    left alone, and so are guards on sizes (`if x.shape[0] != n:`), which Dynamo decides while
    tracing without a break.

    An `assert` with a chained comparison (`assert t0 <= t <= t1`, torchsde's interpolation) is
    the `and` of its links: `t0 <= t` and `t <= t1`, each checked, the middle operand (a name, an
    attribute or a literal) read twice. An operand written with Python's `or` or `not` on tensors
    (torchdiffeq's `assert diff.all() or (~diff).all()`, `assert not x.isnan().any()`) asks for the
    value just as the `assert` does: it becomes `torch.logical_or` / `torch.logical_not` of the
    tensors (both sides now evaluated, as they are pure tensor reads). A flag bound to Python's
    `and`, `or` or `not` is `False` on one input and a tensor on another (pytorch-crf's
    `no_empty_seq = not self.batch_first and mask[0].all()`): it is read through `torch.as_tensor`.
    In a module that imports nothing (torchdiffeq's and
    torchsde's interpolation modules only call tensor methods), `import torch` is added above its
    first definition.

    A guard on a Python number read with `.item()` (`n = t.sum().item()` then `if n > 10: raise
    ...`) becomes `torch._check(torch.sym_not(n > 10), lambda: "message")`: with
    `capture_scalar_outputs`, Dynamo keeps it as a runtime assertion on the symbolic value instead
    of breaking the graph to decide the `if` (without the setting, the `.item()` itself breaks
    and the rewrite changes nothing else). Unsafe for the same change of exception type.

    An `assert` on a tensor's value (`assert x_max.isnan().sum() == 0 and x_min.isnan().sum() == 0,
    "NaN detected"`, IBert's activation observer in training) breaks the same way. It becomes one
    `torch._assert_async(operand, "message")` per operand of its `and`, in order: the first that
    fails raises, as the `and` stops at its first false operand. Only when every operand is known
    to be a tensor, or a run saw the break at the `assert` and no operand is a bare name or
    constant that may be a Python value (an operand that is not a tensor makes the run fail, and
    the rewrite is dropped), and the message is a string literal, a formatted one (its text kept)
    or absent. Unsafe: a failed check raises `RuntimeError` instead of `AssertionError`
    (asynchronously on CUDA), and the check now runs under `python -O` too.

    A run sees only the first such check of a frame: Dynamo stops there (in a loop it skips the
    whole frame), so the checks after it are never traced. piq's and speechbrain's input check,
    `assert lo <= t.min(), ...` then `assert t.max() <= hi, ...` in a loop over the inputs, breaks
    at the first only. A later `assert` or `if ...: raise` of the same function whose test calls a
    tensor-returning method (`max`, `sum`, `any`, ...) of a name the broken check read is taken as
    seen too; the rewrite is verified like any other (a name that is no tensor makes the run fail,
    and it is dropped).

    The mechanism is the same when an operand reads the tensor's value into Python with `.item()`
    only to test it (GB0124 at the `.item()`): `assert lengths.max().item() <= slen` (XLM and
    Flaubert), `assert torch.all(shifted_input_ids >= 0).item(), "..."` (ProphetNet and UDOP's
    decoder-input shift), `assert not t.isnan().any().item()`. The operand is tested on the tensor
    instead (`lengths.max() <= slen`, `torch.all(...)`, `torch.logical_not(...)`), so no value
    leaves the graph. Only when what `.item()` is called on is known to be a tensor (a numpy value
    has `.item()` too), is made by a `torch` function, or a run saw the graph break at the assert. Unsafe as above, and a comparison with a
    Python number is now made in the tensor's dtype: the same for integer tensors, but a float32
    value that only equals a Python float after rounding compares differently.

    A check written with torch's own helper, `torch._check_tensor_all(cond)` (or
    `torch._check_tensor_all_with(ErrorType, cond, message)`), reads the tensor's value with
    `.item()` inside torch, and breaks there (GB0124; transformers' `torch_compilable_check`, in
    the placeholder-token checks of its vision-language models). It becomes
    `torch._assert_async(torch.all(cond), "message")`: a string literal message is kept, any other
    (a callable, an f-string) is dropped, as the change's message says. Unsafe as above: a failed
    check raises `RuntimeError` (asynchronously on CUDA) with `_assert_async`'s message.
    """

    id = "guard-to-check"
    reference = "https://docs.pytorch.org/docs/stable/generated/torch._assert_async.html"
    summary = "Turn a validation guard on a tensor's value into `torch._assert_async` (`torch._check` after `.item()`)"
    # The README's table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = (
        '`if <tensor condition>: raise Error("message")` or `assert <tensor condition>, "message"` (known '
        "from the code, or seen by a run as GB0170), also one reading the value with `.item()` only to test "
        "it (`assert lengths.max().item() <= slen`); `torch._check_tensor_all(cond)`"
    )
    rewrite = (
        '`torch._assert_async(<negated condition>, "message")`, a check inside the graph (one per operand of '
        "an asserted `and`); a guard on a number read with `.item()` becomes "
        '`torch._check(torch.sym_not(...), lambda: "message")` (whole graph with `capture_scalar_outputs`)'
    )
    default = "unsafe: a failed check raises `RuntimeError` (asynchronously on CUDA)"
    trigger_words = ("raise", "assert", "_check_tensor_all", "_check_tensor_all_with")
    needs_breaker_call = False
    node_types = (cst.If, cst.SimpleStatementLine)

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        """`torch._check_tensor_all(cond)`: the check in the graph, without `.item()`. `assert
        <tensor condition>`: the same, with `torch._assert_async`."""
        context = self.context
        if len(node.body) == 1 and isinstance(node.body[0], cst.Assert) and context.in_compiled_region:
            self._assert_to_check(node, node.body[0])
            return
        if len(node.body) != 1 or not isinstance(node.body[0], cst.Expr) or not context.in_compiled_region:
            return
        call = node.body[0].value
        if not isinstance(call, cst.Call) or any(arg.star or arg.keyword is not None for arg in call.args):
            return
        qualified = context.regions.imports.qualify(call.func)
        arguments = [arg.value for arg in call.args]
        if qualified == "torch._check_tensor_all" and 1 <= len(arguments) <= 2:
            exception, condition, message = "RuntimeError", arguments[0], arguments[1:]
        elif qualified == "torch._check_tensor_all_with" and 2 <= len(arguments) <= 3:
            exception, condition, message = source(arguments[0], context.module), arguments[1], arguments[2:]
        else:
            return
        torch_name = context.torch_name()
        if torch_name is None:
            return
        literal = bool(message) and _is_string_literal(message[0])
        check = f"{torch_name}.all({source(condition, context.module)})"
        code = call_code(f"{torch_name}._assert_async", [check, source(message[0], context.module)] if literal else [check], 88)
        replacement = cst.parse_statement(code + "\n").with_changes(leading_lines=node.leading_lines)
        changes = "a failed check raises RuntimeError" + ("" if exception == "RuntimeError" else f" instead of {exception}")
        dropped = "; its message is dropped (not a string literal)" if message and not literal else ""
        self.propose(
            node,
            [replacement],
            anchor=node,
            message=(
                f"`{context.code(node)}` reads the tensor's value with `.item()` inside torch and breaks the graph; "
                f"check it in the graph with `{torch_name}._assert_async` (unsafe: {changes}, asynchronously on "
                f"CUDA{dropped})"
            ),
            safety=Safety.UNSAFE,
        )

    def _assert_to_check(self, node: cst.SimpleStatementLine, statement: cst.Assert) -> None:
        """`assert A and B, "message"` on tensors: one `torch._assert_async` per operand, in order."""
        context = self.context
        function = context.current_function
        if function is None:
            return
        values = context.function_values(function)
        torch_name = context.torch_name()
        if torch_name is None:
            return
        # An operand that reads a tensor's value with `.item()` only to test it is tested on the
        # tensor itself: `lengths.max().item() <= slen` -> `lengths.max() <= slen`.
        # A run that broke at the assert read a tensor with `.item()` there.
        seen_item = context.breaks_per_run(node)
        written = conjuncts(statement.test)
        read = [_tested_in_graph(operand, values, context.regions.imports, torch_name, seen_item) for operand in written]
        operands = [tested if tested is not None else operand for operand, tested in zip(written, read)]
        made = {id(tested) for tested in read if tested is not None}

        def is_tensor(operand: cst.BaseExpression) -> bool:
            return id(operand) in made or values.is_tensor(operand)

        seen_by_run = context.branches_on_tensor_per_run(node) or self._behind_a_check_the_run_saw(node, statement.test, function)
        # `A or B`, `not A` on tensors: Python's `or` and `not` ask for the value (and break), so
        # they become `torch.logical_or` / `logical_not` of the tensors.
        logical = [_logical(operand, values, context.module, torch_name, seen_by_run) for operand in operands]
        operands = [rewritten if rewritten is not None else operand for operand, rewritten in zip(operands, logical)]
        made |= {id(rewritten) for rewritten in logical if rewritten is not None}
        if not (seen_by_run or all(is_tensor(operand) for operand in operands)):
            return
        if any(isinstance(operand, _MAYBE_PYTHON) and not is_tensor(operand) for operand in operands):
            return  # a bare name or constant may be a Python value: `_assert_async` takes tensors only
        if any(isinstance(operand, cst.BooleanOperation) for operand in operands):
            return  # an `or` whose sides are not known tensors would still ask for a value
        message = statement.msg
        template = None if message is None else _message_template(message)
        if message is not None and template is None:
            self.report(node, f"assertion on a tensor's value `{context.code(node)}` is not rewritten: its message is not a string literal")
            return
        message_code = [] if template is None else [source(template.with_changes(lpar=[], rpar=[]), context.module)]
        item = any(tested is not None for tested in read)
        compared = any(isinstance(tested, cst.Comparison) for tested in read)
        self._propose_checks(node, operands, message_code, template is not message, torch_name, item, compared)

    def _propose_checks(
        self, node: cst.SimpleStatementLine, operands: list[cst.BaseExpression], message_code: list[str], formatted: bool,
        torch_name: str, item: bool, compared: bool,
    ) -> None:
        context = self.context
        lines = [call_code(f"{torch_name}._assert_async", [source(operand, context.module), *message_code], 88) for operand in operands]
        replacements = [cst.parse_statement(line + "\n") for line in lines]
        replacements[0] = replacements[0].with_changes(leading_lines=node.leading_lines)
        read = (
            "reads a tensor's value with `.item()` to test it and breaks the graph; test the tensor in the graph"
            if item else "breaks the graph; check it in the graph"
        )
        dtype = "; the comparison is now made in the tensor's dtype, not in Python's numbers" if compared else ""
        self.propose(
            node,
            replacements,
            anchor=node,
            message=(
                f"assertion on a tensor's value `{context.code(node)}` {read} with "
                f"`{torch_name}._assert_async` (unsafe: a failed check raises RuntimeError instead of AssertionError, "
                f"asynchronously on CUDA, and runs under `python -O` too{dtype}{_WITHOUT_VALUES if formatted else ''})"
            ),
            safety=Safety.UNSAFE,
        )

    def visit_If(self, node: cst.If) -> None:
        context = self.context
        function = context.current_function
        if function is None or node.orelse is not None or id(node) in context.elif_nodes or not context.in_compiled_region:
            return
        statements = block_statements(node.body)
        if len(statements) != 1 or not isinstance(statements[0], cst.SimpleStatementLine):
            return
        raised = statements[0].body[0] if len(statements[0].body) == 1 else None
        if not isinstance(raised, cst.Raise) or raised.exc is None:
            return
        values = context.function_values(function)
        on_tensor = (
            values.decides_on_tensor(node.test)
            or context.branches_on_tensor_per_run(node)
            or self._behind_a_check_the_run_saw(node, node.test, function)
        )
        on_scalar = not on_tensor and _reads_item(node.test, values)
        if not (on_tensor or on_scalar):
            return
        torch_name = context.torch_name()
        if torch_name is None:
            return
        guard = f"`if {context.code(node.test)}: raise ...`"
        exception, message, formatted = _exception_and_message(raised.exc)
        if message is None:
            self.report(
                node, f"guard on a tensor's value {guard} is not rewritten: its message is not a string literal"
            )
            return
        if on_tensor:
            function_name = f"{torch_name}._assert_async"
            check = _holds(node.test, torch_name, context.module, values)
            arguments = [check, message] if message else [check]
        else:
            # A Python scalar read with `.item()`: a symbolic value when Dynamo captures it.
            function_name = f"{torch_name}._check"
            check = f"{torch_name}.sym_not({source(node.test, context.module)})"
            arguments = [check, f"lambda: {message}"] if message else [check]
        code = call_code(function_name, arguments, 88)
        replacement = cst.parse_statement(code + "\n").with_changes(leading_lines=node.leading_lines)
        if on_tensor:
            changes = "a failed check fails asynchronously on CUDA"
            if exception != "RuntimeError":
                changes = f"a failed check raises RuntimeError instead of {exception}, asynchronously on CUDA"
            message_text = (
                f"guard on a tensor's value {guard} breaks the graph; check it in the graph with "
                f"`{torch_name}._assert_async` (unsafe: {changes}{_WITHOUT_VALUES if formatted else ''})"
            )
        else:
            changes = "" if exception == "RuntimeError" else f"a failed check raises RuntimeError instead of {exception}; "
            message_text = (
                f"guard on a value read with `.item()` {guard} breaks the graph; state it with `{torch_name}._check`, "
                f"which Dynamo keeps as a runtime assertion when it captures the value (unsafe: {changes}"
                f"the graph stays whole only with capture_scalar_outputs{_WITHOUT_VALUES if formatted else ''})"
            )
        self.propose(node, [replacement], anchor=node, message=message_text, safety=Safety.UNSAFE)

    def _behind_a_check_the_run_saw(self, node: cst.CSTNode, test: cst.BaseExpression, function: cst.FunctionDef) -> bool:
        """Whether an earlier check of the same function (an `assert` or an `if ...: raise`) is where
        a run saw Dynamo stop on a tensor's value, and this test calls a method of a name that check
        reads (piq's `assert t.max() <= hi` after `assert lo <= t.min()`). Dynamo never traced past
        that check (in a loop it skips the whole frame), so the run's silence here is no evidence;
        the earlier break says what the name holds. Verification judges the rewrite as any other."""
        context = self.context
        if not context.evidence.data_dependent_lines:
            return False
        receivers = _method_receivers(test)
        if not receivers:
            return False
        for check, checked in _checks_in(function):
            if check is node:
                return False
            if context.branches_on_tensor_per_run(check) and receivers & loaded_names([checked]):
                return True
        return False


def _checks_in(function: cst.FunctionDef) -> list[tuple[cst.CSTNode, cst.BaseExpression]]:
    """The function's checks in source order, each with the test it decides on: `assert <test>`
    lines and `if <test>:` statements (nested functions and classes left out)."""
    found: list[tuple[cst.CSTNode, cst.BaseExpression]] = []
    for node in iter_nodes(function.body, prune=is_nested_function):
        if isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1 and isinstance(node.body[0], cst.Assert):
            found.append((node, node.body[0].test))
        elif isinstance(node, cst.If):
            found.append((node, node.test))
    return found


def _method_receivers(test: cst.BaseExpression) -> set[str]:
    """Names whose tensor-returning methods the test calls (`t` in `t.max() <= hi`; not in
    `t.dim() >= 4`, a number Dynamo knows while tracing)."""
    return {
        node.func.value.value
        for node in iter_nodes(test, prune=is_nested_function)
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and isinstance(node.func.value, cst.Name)
        and node.func.attr.value in TENSOR_METHODS
    }  # fmt: skip


# Operands that may be Python values: `_assert_async` takes tensors only.
_MAYBE_PYTHON = (cst.Name, cst.BaseString, cst.UnaryOperation)


def _logical(
    operand: cst.BaseExpression, values: FunctionValues, module: cst.Module, torch_name: str, seen_by_run: bool
) -> cst.BaseExpression | None:
    """An operand written with Python's `or` or `not` (`diff.all() or (~diff).all()`, torchdiffeq's
    monotonic check; `not x.isnan().any()`) as `torch.logical_or` / `logical_not` of its tensors;
    None for any other operand, or one with a side that may be a Python value (known from the code
    not to be a tensor where no run saw the break; a bare name or constant either way)."""
    is_or = isinstance(operand, cst.BooleanOperation)  # `or`, or a parenthesized `and`
    is_not = isinstance(operand, cst.UnaryOperation) and isinstance(operand.operator, cst.Not)
    if not (is_or or is_not):
        return None
    leaves = _boolean_leaves(operand)
    if not all(values.is_tensor(leaf) or (seen_by_run and not isinstance(leaf, _MAYBE_PYTHON)) for leaf in leaves):
        return None
    if any(values.impurity(leaf) for leaf in leaves[1:]):
        return None  # a side the `or` did not always evaluate must be a pure tensor read
    return cst.parse_expression(values.boolean_source(operand, module, torch_name))


def _boolean_leaves(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        return _boolean_leaves(node.expression)
    if isinstance(node, cst.BooleanOperation):
        return _boolean_leaves(node.left) + _boolean_leaves(node.right)
    return [node]


def _tested_in_graph(
    operand: cst.BaseExpression, values: FunctionValues, imports, torch_name: str, seen_by_run: bool  # type: ignore[no-untyped-def]
) -> cst.BaseExpression | None:
    """An assert operand that reads a tensor's value with `.item()` only to test it, written on the
    tensor instead: `t.item()` -> `t`, `not t.item()` -> `torch.logical_not(t)`, `t.item() <= n` ->
    `t <= n` (one comparison, the other side not an `.item()` too); None for any other operand.
    The receiver must be known to be a tensor (a numpy value has `.item()` too), or a run must
    have seen the graph break at the assert, where only a tensor's `.item()` breaks."""

    def tensor_read(node: cst.BaseExpression) -> cst.BaseExpression | None:
        if not (isinstance(node, cst.Call) and not node.args and isinstance(node.func, cst.Attribute) and node.func.attr.value == "item"):
            return None
        receiver = node.func.value
        by_torch = isinstance(receiver, cst.Call) and (imports.qualify(receiver.func) or "").startswith("torch.")
        return receiver if by_torch or seen_by_run or values.is_tensor(receiver) else None

    if isinstance(operand, cst.UnaryOperation) and isinstance(operand.operator, cst.Not):
        inner = tensor_read(operand.expression)
        if inner is None:
            return None
        return cst.Call(cst.parse_expression(f"{torch_name}.logical_not"), [cst.Arg(inner)])
    if isinstance(operand, cst.Comparison) and len(operand.comparisons) == 1:
        comparison = operand.comparisons[0]
        if not isinstance(comparison.operator, _SCALAR_COMPARISONS):
            return None
        left, right = tensor_read(operand.left), tensor_read(comparison.comparator)
        if (left is None) == (right is None):
            return None
        if left is not None:
            return operand.with_changes(left=left)
        return operand.with_changes(comparisons=[comparison.with_changes(comparator=right)])
    return tensor_read(operand)


def _is_string_literal(node: cst.BaseExpression) -> bool:
    """A plain string literal, possibly implicitly concatenated (not an f-string, not bytes)."""
    return isinstance(node, (cst.SimpleString, cst.ConcatenatedString)) and isinstance(node.evaluated_value, str)


def _reads_item(test: cst.BaseExpression, values: FunctionValues) -> bool:
    """Whether the test compares a Python scalar read from a tensor with `.item()` (directly, or a
    name bound once to such a read) with something else."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return False
    if not isinstance(test.comparisons[0].operator, _SCALAR_COMPARISONS):
        return False

    def is_item(node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Name):
            value = values.single_value(node.value)
            return value is not None and is_item(value)
        return (
            isinstance(node, cst.Call)
            and not node.args
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "item"
        )

    return is_item(test.left) or is_item(test.comparisons[0].comparator)


_SCALAR_COMPARISONS = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual, cst.Equal, cst.NotEqual)


def _exception_and_message(exc: cst.BaseExpression) -> tuple[str, str | None, bool]:
    """The exception's name, its message's source text ("" for none; None when it is not a
    literal or a literal's `.format(...)` / `%`), and whether values formatted into it are left out."""
    if isinstance(exc, cst.Call):
        name = cst.Module([]).code_for_node(exc.func)
        if not exc.args:
            return name, "", False
        if len(exc.args) == 1 and exc.args[0].keyword is None and not exc.args[0].star:
            value = exc.args[0].value
            template = _message_template(value)
            if template is not None:
                return name, cst.Module([]).code_for_node(template.with_changes(lpar=[], rpar=[])).strip(), template is not value
        return name, None, False
    return cst.Module([]).code_for_node(exc), "", False


# Said of a message whose values are left out: the check's message is its text as written.
_WITHOUT_VALUES = "; the message keeps its text, without the values formatted into it"


def _message_template(message: cst.BaseExpression) -> cst.BaseExpression | None:
    """The string literal a message is, or is formatted from (`"underflow in dt {}".format(dt.item())`,
    `"... %s" % x`, `f"t0={t0} must precede t1={t1}"`): a check's message must be known while
    tracing, and formatting it would read the values the check is about. An f-string's template is
    its text with each field written as in the source (`"t0={t0} must precede t1={t1}"`). None for
    any other message (a name, a call)."""
    if _is_string_literal(message):
        return message
    if isinstance(message, (cst.FormattedString, cst.ConcatenatedString)):
        return _fstring_template(message)
    if (
        isinstance(message, cst.Call)
        and isinstance(message.func, cst.Attribute)
        and message.func.attr.value == "format"
        and _is_string_literal(message.func.value)
    ):
        return message.func.value
    if isinstance(message, cst.BinaryOperation) and isinstance(message.operator, cst.Modulo) and _is_string_literal(message.left):
        return message.left
    return None


def _holds(test: cst.BaseExpression, torch_name: str, module: cst.Module, values: FunctionValues) -> str:
    """Source of a tensor condition that is true exactly when `test` is false: `not t` holds when
    `t` does; `==` and `!=` are swapped; anything else is negated with `torch.logical_not`."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _as_tensor_condition(test.expression, torch_name, module, values)
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        operator = test.comparisons[0].operator
        swapped = {cst.Equal: "==", cst.NotEqual: "!="}.get(type(operator))
        if swapped is not None:
            opposite = "!=" if swapped == "==" else "=="
            left = source(test.left, module)
            right = source(test.comparisons[0].comparator, module)
            return f"{left} {opposite} {right}"
    return f"{torch_name}.logical_not({_as_tensor_condition(test, torch_name, module, values)})"


def _as_tensor_condition(test: cst.BaseExpression, torch_name: str, module: cst.Module, values: FunctionValues) -> str:
    """The condition as a tensor `torch._assert_async` and `torch.logical_not` take. A name or
    attribute not known to be a tensor (a run saw the branch, but the flag may be a Python bool
    there) goes through `torch.as_tensor`, which leaves a tensor as it is."""
    if isinstance(test, (cst.Name, cst.Attribute)):
        return source(test, module) if values.is_tensor(test) else f"{torch_name}.as_tensor({source(test, module)})"
    return values.boolean_source(test, module, torch_name)


def _fstring_template(message: cst.BaseExpression) -> cst.BaseExpression | None:
    """An f-string (or a concatenation of f-strings and literals) as a plain literal of its text,
    each field kept as its source between braces; None for bytes, or a field whose source would not
    fit in the literal's quotes."""
    if isinstance(message, cst.ConcatenatedString):
        left, right = _fstring_template(message.left), _fstring_template(message.right)
        if left is None or right is None:
            return None
        return message.with_changes(left=left, right=right)  # type: ignore[arg-type]
    if isinstance(message, cst.SimpleString):
        return message if isinstance(message.evaluated_value, str) else None
    if not isinstance(message, cst.FormattedString) or "b" in message.prefix.lower():
        return None
    quote = message.start[len(message.prefix):]
    text = []
    for part in message.parts:
        if isinstance(part, cst.FormattedStringText):
            text.append(part.value.replace("{{", "{").replace("}}", "}"))
            continue
        assert isinstance(part, cst.FormattedStringExpression)
        field = cst.Module([]).code_for_node(part.expression)
        if quote[0] in field or "\\" in field or "\n" in field:
            return None
        text.append("{" + field + "}")
    prefix = message.prefix.lower().replace("f", "")
    return cst.SimpleString(prefix + quote + "".join(text) + message.end, lpar=message.lpar, rpar=message.rpar)
