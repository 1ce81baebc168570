"""numpy-on-numbers: NumPy arithmetic on Python numbers in compiled code is done with Python's own functions."""

from __future__ import annotations

import libcst as cst

from graphweld.analysis.names import ImportTable, attribute_of, written_attributes
from graphweld.analysis.scopes import bound_names, mentioned_names, own_statements
from graphweld.analysis.tensors import FunctionValues
from graphweld.rule import Rule, RuleContext, Safety
from graphweld.walk import iter_nodes

# NumPy functions with a Python equivalent that gives the same number for Python numbers (or a
# flat sequence of them): (the equivalent's module, None for a builtin; its name; how many
# positional arguments the call takes).
_EQUIVALENTS: dict[str, tuple[str | None, str, int]] = {
    "numpy.lcm": ("math", "lcm", 2),
    "numpy.gcd": ("math", "gcd", 2),
    "numpy.sum": (None, "sum", 1),
    "numpy.prod": ("math", "prod", 1),
}
# Arguments that are NumPy arrays or tensors (a NumPy call's result, a tensor the code shows):
# Python's functions read those differently (`sum` of a 2-D array adds its rows).
_ARRAY_MAKERS = ("numpy.", "torch.")


class NumpyOnNumbers(Rule):
    """Compute with Python's own functions where compiled code gives NumPy Python numbers.

    ## What it fixes
    In a compiled region, `np.lcm(a, b)`, `np.gcd(a, b)`, `np.sum(numbers)` and
    `np.prod(numbers)` called on Python numbers or a flat sequence of them (a list, a slice of
    one, a tensor's `shape`): BigBird's random-attention plan sizes an array with
    `np.sum(plan_num_rand_blocks[: max_plan_idx + 1])`, Reformer pads to
    `np.lcm(lsh_chunk_length, local_chunk_length)`, and many modules flatten with
    `x.view(-1, np.prod(x.shape[1:]))`. They become `sum(...)`, `math.lcm`, `math.gcd` and
    `math.prod` (`import math` is added where the module lacks it). The same round trip through
    torch: `torch.arange(...).tolist()` of Python integers (literals, `len(...)`, `.ndim`, `.dim()`,
    `.shape[i]`, `.size(i)` and their arithmetic), monai's losses listing their spatial axes with
    `torch.arange(2, len(input.shape)).tolist()`, becomes `list(range(...))`: the same list.

    The same NumPy numbers made while the module is built, and kept on it for compiled code to
    read: `__init__` storing `self.total_upsample = np.prod(config.upsample_rates + ...)`
    (Qwen3-Omni's code-to-wave decoder in transformers; normflows' `self.d = np.prod(shape)`),
    read by a compiled method of the class, stores Python's number (`math.prod`). And a flag a
    parent computed with NumPy (`i >= np.log2(ratio)` is a `numpy.bool_`: HunyuanImage's refiner
    VAE in diffusers) and passed as an argument annotated `bool`, `int` or `float`, which
    `__init__` stores as given (`self.add_temporal_downsample = add_temporal_downsample`): where a
    run saw Dynamo break at a method deciding on it, `__init__` stores `bool(...)` (or `int`,
    `float`), the Python value the annotation promises.

    ## Why the graph breaks
    Dynamo traces NumPy calls as tensor operations (`torch._numpy`), so even on constants their
    result is a tensor whose value is not known while the graph is built. Used as a size it is a
    "Data dependent operator" (GB0033), in a condition a data-dependent branch (GB0170), and the
    frame is often skipped: BigBird's attention plan breaks 11 times in a 2-layer model. Python's
    functions on Python numbers give Python numbers, which Dynamo folds into the graph. A NumPy
    number kept on a module is the same tensor to Dynamo: HunyuanImage's refiner VAE breaks 20
    times (every up- and downsampling block skips its frame), and compiles into one graph with
    its flags stored as `bool`.

    ## Example
    ```python
    rand_attn = [
        np.zeros((num_blocks, np.sum(plan_num_rand_blocks[: max_plan_idx + 1])), dtype=np.int32)
        for i in range(num_heads)
    ]
    ```
    becomes
    ```python
    rand_attn = [
        np.zeros((num_blocks, sum(plan_num_rand_blocks[: max_plan_idx + 1])), dtype=np.int32)
        for i in range(num_heads)
    ]
    ```

    ## Safety
    Always unsafe, so only applied with `--unsafe-fixes`; verify with `fix --entry`. On Python
    integers the numbers are equal (NumPy's are `int64`, which overflow where Python's do not);
    on floats `np.sum` adds pairwise and `sum` in order, which can differ in the last bits.
    graphweld cannot see that an argument is not an array: `math.lcm`, `math.gcd` and
    `math.prod` of arrays raise or differ, and `sum` of a 2-D array adds its rows where `np.sum`
    adds everything. `list(range(...))` is exactly the list `torch.arange(...).tolist()` gives on
    Python integers; a call with a `dtype=` (floats) or an argument the code does not show is a
    Python integer is left alone. Left alone too: an argument the code shows is an array or a tensor (made by a
    NumPy or torch call in the function), calls with keywords (`axis=`, `dtype=`), calls that are
    not in a simple statement, and modules that bind `math` to something else. With `fix
    --entry`, a rewrite in a helper whose result breaks the graph only in its caller (Reformer's
    `np.lcm`, tested by the caller's `if`) is not at a break the run saw, so it is dropped as
    buying nothing, untried. The construction forms change what the module keeps: code outside
    the class reading the attribute gets the Python number or `bool` (the same value: `~` and
    arithmetic on a `numpy.bool_` differ from a `bool`'s, so a flag is taken only where every read
    of it in the class is a truth test, and a number only where none reads its attributes or
    uses `~`), and a tensor of several values passed for a `bool` now raises when the module is
    built. An argument is taken only with a run's word (a break at a method reading it), since
    nothing in the code shows that the caller passes other than its annotation says; a stored
    NumPy call only where a compiled method (or a break a run saw) reads it, and not when a method
    rebinds the attribute.
    """

    id = "numpy-on-numbers"
    reference = "https://docs.pytorch.org/docs/stable/torch.compiler_faq.html#does-numpy-work-with-torch-compile"
    summary = "Compute with Python's own functions where compiled code gives NumPy Python numbers"
    # The README's table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = (
        "`np.lcm(a, b)`, `np.gcd(a, b)`, `np.sum(numbers)`, `np.prod(numbers)` in compiled code, on Python numbers "
        "or a flat sequence of them (BigBird's attention plan, Reformer's chunk length, `np.prod(x.shape[1:])`); "
        "`torch.arange(...).tolist()` of Python integers (monai's losses); the same NumPy numbers kept on a module "
        "in `__init__` for compiled code, and a NumPy flag passed as an argument annotated `bool` and stored as given "
        "(HunyuanImage's refiner VAE)"
    )
    rewrite = (
        "`math.lcm`, `math.gcd`, `sum`, `math.prod` (and `import math` where the module lacks it); "
        "`list(range(...))`; `self.flag = bool(flag)` (or `int`, `float`, as annotated)"
    )
    default = "unsafe: graphweld cannot see that the arguments are not arrays"
    trigger_words = ("lcm", "gcd", "sum", "prod", "arange", "bool", "int", "float")
    needs_breaker_call = False
    node_types = (cst.FunctionDef, cst.ClassDef)

    def __init__(self, context: RuleContext) -> None:
        super().__init__(context)
        # Every form is a NumPy call or `.tolist()`, or (a flag stored as annotated) needs a run's
        # word: a module with neither is not walked (the scan of a whole package).
        text = context.text
        self._may_apply = (
            text is None or "numpy" in text or "tolist" in text
            or bool(context.evidence.break_lines or context.evidence.data_dependent_lines)
        )

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        context = self.context
        if not self._may_apply or context.current_function is not node or not context.in_compiled_region:
            return
        imports = context.regions.imports
        math_name = imports.local_name("math")
        if math_name is None and "math" in imports.aliases:
            return  # `math` names something else here
        values = context.function_values(node)
        # One change per function: its lines and, where the module lacks it, `import math` once.
        found = []
        for statement in _own_lines(node):
            calls = [call for call in iter_nodes(statement) if self._replaceable(call, imports, values)]
            if calls:
                found.append((statement, calls))
        if not found:
            return
        calls = [call for _, line_calls in found for call in line_calls]
        extra: list[tuple[cst.CSTNode, list[cst.BaseStatement]]] = []
        if math_name is None and any(
            _arange_of_ints(call, imports) is None and _EQUIVALENTS[imports.qualify(call.func)][0] == "math"  # type: ignore[index]
            for call in calls
        ):
            anchor = _numpy_import(context.module)
            if anchor is None:
                return
            extra.append((anchor, [anchor, cst.parse_statement("import math\n")]))
        equivalents = _Equivalents({id(call) for call in calls}, imports, math_name or "math")
        extra += [(statement, [statement.visit(equivalents)]) for statement, _ in found[1:]]
        names = ", ".join(dict.fromkeys(f"`{context.code(call.func)}`" for call in calls))
        message = (
            f"{names} on Python numbers: Dynamo traces NumPy as tensors, whose values it does not know while it "
            "builds the graph; compute with Python's own function (unsafe: graphweld cannot see that the "
            "arguments are not arrays)"
        )
        first = found[0][0]
        self.propose(
            first,
            [first.visit(equivalents)],
            anchor=calls[0],
            message=message,
            safety=Safety.UNSAFE,
            extra=extra,
            resolves=_readers([statement for statement, _ in found], node),
        )

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        """The construction forms: what `__init__` stores on the module, read by its other methods."""
        if not self._may_apply:
            return
        context = self.context
        methods = [s for s in node.body.body if isinstance(s, cst.FunctionDef)] if isinstance(node.body, cst.IndentedBlock) else []
        init = next((m for m in methods if m.name.value == "__init__"), None)
        if init is None or not init.params.params:
            return
        receiver = init.params.params[0].name.value
        others = [m for m in methods if m is not init]
        imports = context.regions.imports
        math_name = imports.local_name("math")
        # An argument is taken only with a run's word (`_store_as_annotated`).
        annotated = _annotated_arguments(init) if context.evidence.break_lines or context.evidence.data_dependent_lines else {}
        for statement in _own_lines(init):
            stored = _stored_attribute(statement, receiver)
            if stored is None:
                continue
            attribute, value = stored
            # Neither form (an annotated argument, a NumPy call): the class's methods are not read.
            if not (isinstance(value, cst.Name) and value.value in annotated) and not (
                isinstance(value, cst.Call) and imports.qualify(value.func) in _EQUIVALENTS
            ):
                continue
            if any(attribute in written_attributes(m, _self_of(m)) for m in others):
                continue  # a method rebinds it: what `__init__` stored is not what they read
            reads = [(m, line) for m in others for line in _deciding_lines(m) if _reads_attribute(line, _self_of(m), attribute)]
            if not reads:
                continue
            seen = [line for _, line in reads if context.breaks_per_run(line) or context.branches_on_tensor_per_run(line)]
            if isinstance(value, cst.Name) and value.value in annotated:
                self._store_as_annotated(statement, attribute, value.value, annotated[value.value], reads, seen)
                continue
            # The stored value is the NumPy number itself (`self.d = np.prod(shape)`); one only
            # passed to something else (`nn.Linear(int(np.prod(shape)), n)`) is not kept.
            calls = [value] if self._replaceable(value, imports, context.function_values(init)) else []
            compiled = any(context.regions.is_compiled(m) for m, _ in reads)
            if not calls or not (seen or compiled) or (math_name is None and "math" in imports.aliases):
                continue
            extra: list[tuple[cst.CSTNode, list[cst.BaseStatement]]] = []
            if math_name is None and any(_EQUIVALENTS[imports.qualify(call.func)][0] == "math" for call in calls):  # type: ignore[index]
                numpy_line = _numpy_import(context.module)
                if numpy_line is None:
                    continue
                extra.append((numpy_line, [numpy_line, cst.parse_statement("import math\n")]))
                math_name = "math"  # one import for the module, however many stores
            equivalents = _Equivalents({id(call) for call in calls}, imports, math_name or "math")
            names = ", ".join(dict.fromkeys(f"`{context.code(call.func)}`" for call in calls))
            self.propose(
                statement,
                [statement.visit(equivalents)],
                anchor=calls[0],
                message=(
                    f"`{receiver}.{attribute}` keeps what {names} gives on Python numbers, a NumPy number, and "
                    f"compiled `{reads[0][0].name.value}` reads it: Dynamo traces NumPy numbers as tensors, whose values "
                    "it does not know while it builds the graph; store Python's own number (unsafe: graphweld cannot "
                    "see that the arguments are not arrays)"
                ),
                safety=Safety.UNSAFE,
                extra=extra,
                resolves=[line for _, line in reads],
            )

    def _store_as_annotated(
        self, statement: cst.SimpleStatementLine, attribute: str, argument: str, kind: str,
        reads: list[tuple[cst.FunctionDef, cst.CSTNode]], seen: list[cst.CSTNode],
    ) -> None:
        """`self.flag = flag`, `flag: bool`, where a run saw Dynamo break at a method deciding on
        `self.flag`: what the caller passed is not the Python value the annotation promises (a
        parent's `i >= np.log2(ratio)` is a `numpy.bool_`, a tensor to Dynamo). Stored as
        `bool(flag)`, it is a constant while tracing."""
        if not seen:
            return  # without a run, nothing shows that the argument is not what its annotation says
        if not all(_uses_as(kind, m, _self_of(m), attribute) for m, _ in reads):
            return
        stored = cst.ensure_type(statement.body[0], cst.Assign)
        coerced = stored.with_changes(value=cst.Call(cst.Name(kind), [cst.Arg(stored.value)]))
        self.propose(
            statement,
            [statement.with_changes(body=[coerced])],
            anchor=stored.value,
            message=(
                f"`{self.context.code(statement)}` stores the argument `{argument}: {kind}` as the caller passed it, and a "
                f"run saw Dynamo break where `{reads[0][0].name.value}` reads it: a NumPy value passed for it (such as "
                "a parent's `i >= np.log2(ratio)`, a `numpy.bool_`) is a tensor to Dynamo; store the Python "
                f"`{kind}` the annotation promises (unsafe: code elsewhere reading the attribute gets that `{kind}`, "
                "and a tensor of several values now raises when the module is built)"
            ),
            safety=Safety.UNSAFE,
            resolves=seen,
        )

    def _replaceable(self, node: cst.CSTNode, imports: ImportTable, values: FunctionValues) -> bool:
        if not isinstance(node, cst.Call):
            return False
        if _arange_of_ints(node, imports) is not None:
            return True
        equivalent = _EQUIVALENTS.get(imports.qualify(node.func) or "")
        if equivalent is None:
            return False
        if len(node.args) != equivalent[2] or any(arg.keyword is not None or arg.star for arg in node.args):
            return False
        return not any(_array_like(arg.value, imports, values) for arg in node.args)


def _arange_of_ints(node: cst.Call, imports: ImportTable) -> cst.Call | None:
    """`torch.arange(...)` of `<...>.tolist()` when its numbers are Python integers the code shows
    (literals, `len(...)`, `.ndim`, `.dim()`, a `.shape[i]` or `.size(i)`, and their arithmetic)
    and it has no keyword but `device=`: monai's losses, `torch.arange(2, len(input.shape)).tolist()`,
    the same list as `list(range(2, len(input.shape)))`; else None."""
    if not (isinstance(node.func, cst.Attribute) and node.func.attr.value == "tolist" and not node.args):
        return None
    made = node.func.value
    if not (isinstance(made, cst.Call) and imports.qualify(made.func) == "torch.arange"):
        return None
    numbers = [arg for arg in made.args if arg.keyword is None]
    if not 1 <= len(numbers) <= 3 or any(arg.star for arg in made.args):
        return None
    if any(arg.keyword is not None and arg.keyword.value != "device" for arg in made.args):
        return None
    return made if all(_python_int(arg.value) for arg in numbers) else None


def _python_int(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.Integer):
        return True
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        return _python_int(node.expression)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide)):
        return _python_int(node.left) and _python_int(node.right)
    if isinstance(node, cst.Attribute):
        return node.attr.value == "ndim"
    if isinstance(node, cst.Subscript):
        # `x.shape[i]`: one index, an integer literal.
        return (
            isinstance(node.value, cst.Attribute) and node.value.attr.value == "shape" and len(node.slice) == 1
            and isinstance(node.slice[0].slice, cst.Index) and _python_int(node.slice[0].slice.value)
        )
    if isinstance(node, cst.Call):
        if isinstance(node.func, cst.Name) and node.func.value == "len" and len(node.args) == 1:
            return True
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "dim" and not node.args:
            return True
        return isinstance(node.func, cst.Attribute) and node.func.attr.value == "size" and len(node.args) == 1 and _python_int(node.args[0].value)
    return False


def _array_like(node: cst.BaseExpression, imports: ImportTable, values: FunctionValues) -> bool:
    """Whether the code shows the value is an array or a tensor: made by a NumPy or torch call
    (directly, or through a name bound once), or a tensor by the function's values."""
    if values.is_tensor(node):
        return True
    if isinstance(node, cst.Name):
        bound = values.single_value(node.value)
        if bound is None:
            return False
        node = bound
    while isinstance(node, cst.Subscript):
        node = node.value
    if isinstance(node, cst.Call):
        qualified = imports.qualify(node.func) or ""
        return qualified.startswith(_ARRAY_MAKERS)
    return False


def _readers(statements: list[cst.SimpleStatementLine], function: cst.FunctionDef) -> list[cst.SimpleStatementLine]:
    """The function's other lines that read a name the statements bind: where a NumPy result is
    used as a size or tested (`width = np.prod(...)`, then `x.reshape(n, width)`), the break is
    at the reader."""
    bound = bound_names(statements)
    if not bound:
        return []
    own = {id(statement) for statement in statements}
    return [
        line
        for line in _own_lines(function)
        if id(line) not in own and bound & mentioned_names([line])
    ]


def _own_lines(function: cst.FunctionDef) -> list[cst.SimpleStatementLine]:
    """The function's simple statement lines, not those of functions or classes nested in it."""
    return [statement for statement in own_statements(function) if isinstance(statement, cst.SimpleStatementLine)]


def _numpy_import(module: cst.Module) -> cst.SimpleStatementLine | None:
    """The module-level line that imports NumPy (`import math` goes after it)."""
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.Import) and any(
                isinstance(alias.name, cst.Name) and alias.name.value == "numpy" for alias in small.names
            ):
                return statement
    return None


class _Equivalents(cst.CSTTransformer):
    def __init__(self, calls: set[int], imports: ImportTable, math_name: str) -> None:
        self.calls, self.imports, self.math_name = calls, imports, math_name

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if id(original) not in self.calls:
            return updated
        arange = _arange_of_ints(original, self.imports)
        if arange is not None:
            numbers = [cst.Arg(arg.value) for arg in arange.args if arg.keyword is None]
            return cst.Call(cst.Name("list"), [cst.Arg(cst.Call(cst.Name("range"), numbers))])
        module, name, _ = _EQUIVALENTS[self.imports.qualify(original.func)]
        func: cst.BaseExpression = cst.Name(name) if module is None else cst.Attribute(cst.Name(self.math_name), cst.Name(name))
        return updated.with_changes(func=func)


# The annotations whose Python value `__init__` can store in place of what the caller passed.
_PYTHON_KINDS = frozenset({"bool", "int", "float"})


def _annotated_arguments(init: cst.FunctionDef) -> dict[str, str]:
    """`__init__`'s arguments annotated `bool`, `int` or `float` that its body never rebinds."""
    rebound = bound_names(own_statements(init))
    found = {}
    for param in (*init.params.params, *init.params.kwonly_params):
        annotation = param.annotation.annotation if param.annotation is not None else None
        if isinstance(annotation, cst.Name) and annotation.value in _PYTHON_KINDS and param.name.value not in rebound:
            found[param.name.value] = annotation.value
    return found


def _self_of(method: cst.FunctionDef) -> str | None:
    """The name a method calls its instance (its first argument), None for a static method."""
    if any(isinstance(d.decorator, cst.Name) and d.decorator.value in ("staticmethod", "classmethod") for d in method.decorators):
        return None
    return method.params.params[0].name.value if method.params.params else None


def _stored_attribute(statement: cst.SimpleStatementLine, receiver: str) -> tuple[str, cst.BaseExpression] | None:
    """`self.name = value` (one target), as (name, value)."""
    if len(statement.body) != 1 or not isinstance(statement.body[0], cst.Assign) or len(statement.body[0].targets) != 1:
        return None
    target = statement.body[0].targets[0].target
    attribute = attribute_of(target, receiver)
    return None if attribute is None else (attribute, statement.body[0].value)


def _deciding_lines(method: cst.FunctionDef) -> list[cst.CSTNode]:
    """The method's simple lines and `if`/`while` statements (a break there is at their test)."""
    return [statement for statement in own_statements(method) if isinstance(statement, (cst.SimpleStatementLine, cst.If, cst.While))]


def _reads_attribute(line: cst.CSTNode, receiver: str | None, attribute: str) -> bool:
    """Whether the line reads the attribute (a compound statement: in its test)."""
    read = line.test if isinstance(line, (cst.If, cst.While)) else line
    return any(attribute_of(node, receiver) == attribute for node in iter_nodes(read))


def _uses_as(kind: str, method: cst.FunctionDef, receiver: str | None, attribute: str) -> bool:
    """Whether every read of the attribute in the method uses it as its annotation says: a `bool`
    only as a truth value (`if`, `while`, a conditional expression, `not`, `and`, `or`), a number
    anywhere but through its own attributes (`.item()`) or `~`."""
    reads = {id(node) for node in iter_nodes(method) if attribute_of(node, receiver) == attribute}
    if kind == "bool":
        truth: set[int] = set()
        for node in iter_nodes(method):
            if isinstance(node, (cst.If, cst.While, cst.IfExp)):
                truth.update(_truth_operands(node.test))
        return reads <= truth
    for node in iter_nodes(method):
        if isinstance(node, cst.Attribute) and id(node.value) in reads:
            return False
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.BitInvert) and id(node.expression) in reads:
            return False
    return True


def _truth_operands(test: cst.BaseExpression) -> list[int]:
    """The expressions a test asks for their truth: itself, or the operands of `not`, `and`, `or`."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _truth_operands(test.expression)
    if isinstance(test, cst.BooleanOperation):
        return _truth_operands(test.left) + _truth_operands(test.right)
    return [id(test)]
