"""buffer-as-number: an integer buffer a module builds from Python numbers is read as that number in
its shape arithmetic."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import libcst as cst

from graphweld.analysis.blocks import binds_at_module_level, definitions_anchor
from graphweld.analysis.names import attribute_of, written_attributes
from graphweld.analysis.number_flow import INTEGER_DTYPES, INTEGER_OPERATORS, ClassConversion, NotConvertible, reads_buffers
from graphweld.analysis.scopes import bound_names, fresh_name
from graphweld.rule import Rule, Safety
from graphweld.walk import iter_nodes

class BufferAsNumber(Rule):
    """Read an integer buffer built from Python numbers as that number in the module's shape arithmetic.

    ## What it fixes
    A module whose `__init__` makes integer buffers out of Python numbers, `stride =
    torch.tensor(self.conv.stride[0], dtype=torch.int64)` then `self.stride = nn.Buffer(stride,
    persistent=False)` (or `register_buffer`), and whose methods use them for shape arithmetic: the
    padding of a convolution from its stride and kernel size (Encodec's `EncodecConv1d`, and Mimi,
    WavTokenizer and the other audio codecs built on it). `__init__` keeps each number beside its
    buffer (`self.stride_int`), and the methods read the numbers: `torch.ceil(x).to(torch.int64)`
    on them becomes `math.ceil(x)`, `.item()` goes. An attribute `__init__` computes from the
    buffers by integer arithmetic (Mimi's `self.padding_right = self.padding_total // 2`) gets its
    number beside it too. The mechanism is the module's, not a library's: a number the module
    knows while it is built, kept only as a tensor.

    ## Why the graph breaks
    A buffer is an input of the graph: Dynamo knows its shape, not its value. Padding computed from
    it is a 0-dim tensor, so a Python decision on it (`if length <= max_pad:`) is data-dependent
    branching (GB0170), and `F.pad` with it needs its value (`.item()`, GB0124); each convolution
    skips its frame. Read as Python numbers, the same arithmetic is done while tracing and the pads
    are constants of the graph.

    ## Example
    ```python
    class Conv1d(nn.Module):
        def __init__(self, kernel_size, stride):
            super().__init__()
            self.conv = nn.Conv1d(1, 1, kernel_size, stride)
            stride = torch.tensor(stride, dtype=torch.int64)
            kernel_size = torch.tensor(kernel_size, dtype=torch.int64)
            self.stride = nn.Buffer(stride, persistent=False)
            self.padding_total = nn.Buffer(kernel_size - stride, persistent=False)

        def forward(self, x):
            n_frames = (x.shape[-1] + self.padding_total) / self.stride
            extra = torch.ceil(n_frames).to(torch.int64) * self.stride - x.shape[-1]
            return self.conv(F.pad(x, (self.padding_total, extra)))
    ```
    becomes
    ```python
            stride_int = stride
            stride = torch.tensor(stride, dtype=torch.int64)
            kernel_size_int = kernel_size
            kernel_size = torch.tensor(kernel_size, dtype=torch.int64)
            self.stride = nn.Buffer(stride, persistent=False)
            self.stride_int = stride_int
            self.padding_total = nn.Buffer(kernel_size - stride, persistent=False)
            self.padding_total_int = kernel_size_int - stride_int

        def forward(self, x):
            n_frames = (x.shape[-1] + self.padding_total_int) / self.stride_int
            extra = math.ceil(n_frames) * self.stride_int - x.shape[-1]
            return self.conv(F.pad(x, (self.padding_total_int, extra)))
    ```

    ## Safety
    Unsafe. The buffers stay (the state dict, `.to()`, `_init_weights` writing them), but the
    methods read the numbers kept in `__init__`: a later write to a buffer is not seen by them.
    A true division of the numbers is a Python float (double precision) where the tensors divided
    in float32: the frame count is the same for lengths below 2**23 and exact above, where float32
    rounds. A method that returned a 0-dim tensor returns a number, so only a private one (`_name`)
    called from methods of the class that are rewritten too. Taken only when every use of a value
    read from a buffer is integer arithmetic, a comparison, `max`/`min`, `torch.ceil`/`torch.floor`,
    `.to(<integer dtype>)`, `.item()`, a slice bound, `F.pad`'s pad, or an argument of a method of
    the class that does only these. A method where one meets anything else (`.device`, another
    torch call: Mimi's `_get_output_length`) is left as it is, reading the buffers; the class is
    left alone when such a method would get a number from a rewritten one, or when a method other
    than `__init__` rebinds one of the attributes (its number would go stale).
    """

    id = "buffer-as-number"
    reference = "https://docs.pytorch.org/docs/stable/compile/programming_model.graph_breaks_index.html"
    summary = "Read an integer buffer built from Python numbers as that number in the module's shape arithmetic"
    # The README's table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = (
        "integer buffers a module makes from Python numbers (`self.stride = nn.Buffer(torch.tensor(stride, "
        "dtype=torch.int64))`, or `register_buffer`) and reads in shape arithmetic: a convolution's padding "
        "(Encodec, Mimi and the audio codecs built on them), and attributes computed from them"
    )
    rewrite = (
        "keep each number beside its buffer in `__init__` (`self.stride_int`) and read the numbers in the "
        "methods (`torch.ceil(x).to(torch.int64)` becomes `math.ceil(x)`)"
    )
    default = "unsafe: a later write to a buffer is not seen; division in double precision, not float32"
    trigger_words = ("Buffer", "register_buffer")
    needs_breaker_call = False
    node_types = (cst.ClassDef,)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        context = self.context
        qualify = context.regions.imports.qualify
        methods = {s.name.value: s for s in node.body.body if isinstance(s, cst.FunctionDef)}  # type: ignore[union-attr]
        init = methods.get("__init__")
        if init is None or not isinstance(init.body, cst.IndentedBlock) or not init.params.params:
            return
        attributes = {n.attr.value for n in iter_nodes(node) if isinstance(n, cst.Attribute)}
        plan = _plan_init(init, qualify, {n.value for n in iter_nodes(init) if isinstance(n, cst.Name)}, attributes)
        if not plan.buffers:
            return
        if any(_assigns(m, plan.buffers) for name, m in methods.items() if name != "__init__"):
            return  # a method rebinds one: the number kept in `__init__` would go stale
        readers = [name for name, m in methods.items() if name != "__init__" and reads_buffers(m, plan.buffers)]
        if not readers or not any(context.regions.is_compiled(m) for m in methods.values()):
            return
        try:
            converted = ClassConversion(context.module, node, methods, plan.buffers, qualify).run(readers)
        except NotConvertible:
            return
        if not converted.rewritten:
            return
        new_init = init.with_changes(body=init.body.with_changes(body=plan.body))
        extra: list[tuple[cst.CSTNode, list[cst.BaseStatement]]] = [
            (method, [replacement]) for method, replacement in converted.rewritten.items() if method is not init
        ]
        if converted.uses_math and not binds_at_module_level(context.module, "math"):
            anchor = definitions_anchor(context.module)
            if anchor is None:
                return
            extra.append((anchor, [anchor, cst.parse_statement("import math\n")]))
        names = ", ".join(f"`{name}`" for name in plan.buffers)
        message = (
            f"{names}: integer buffers made from Python numbers, read in shape arithmetic (Dynamo sees a "
            "buffer's value only at run time: a decision or a pad on it breaks the graph); read the numbers "
            "kept beside them instead"
        )
        self.propose(
            init, [new_init], anchor=plan.first_buffer, message=message, safety=Safety.UNSAFE, extra=extra,  # type: ignore[arg-type]
            resolves=converted.touched,
        )  # fmt: skip


# -- __init__: the numbers beside the buffers ---------------------------------------------------


@dataclass
class _InitPlan:
    body: list[cst.BaseStatement] = field(default_factory=list)
    # buffer attribute -> the attribute holding its number
    buffers: dict[str, str] = field(default_factory=dict)
    first_buffer: cst.CSTNode | None = None


def _plan_init(init: cst.FunctionDef, qualify: Callable, taken: set[str], attributes: set[str]) -> _InitPlan:
    """`__init__`'s statements with the numbers kept: `NAME_int = E` before each `NAME =
    torch.tensor(E, dtype=<integer>)`, `self.BUF_int = <number>` after each buffer made of those."""
    receiver = init.params.params[0].name.value
    plan = _InitPlan()
    numbers: dict[str, str] = {}  # local tensor -> the local holding its number
    for statement in init.body.body:  # type: ignore[union-attr]
        before: list[cst.BaseStatement] = []
        after: list[cst.BaseStatement] = []
        made = _tensor_of_number(statement, qualify)
        buffer = _buffer_of(statement, receiver, qualify)
        if made is not None and _mentions(made[1], numbers):
            made = None  # a number computed from a tensor local: a tensor
        if made is not None:
            name, value = made
            twin = fresh_name(f"{name}_int", taken)
            taken.add(twin)
            # The number goes first, with the statement's comments and blank lines above both.
            before.append(_assign(cst.Name(twin), value).with_changes(leading_lines=statement.leading_lines))
            statement = statement.with_changes(leading_lines=())
            numbers[name] = twin
        else:
            for name in bound_names([statement]):
                numbers.pop(name, None)  # bound to something else now
        derived = _derived_of(statement, receiver, plan.buffers, numbers) if buffer is None else None
        if derived is not None:
            # `self.padding_right = self.padding_total // 2`: a tensor computed from buffers only.
            attribute, twin_value = derived
            twin = fresh_name(f"{attribute}_int", attributes)
            attributes.add(twin)
            after.append(_assign(cst.Attribute(cst.Name(receiver), cst.Name(twin)), twin_value))
            plan.buffers[attribute] = twin
        if buffer is not None:
            attribute, value = buffer
            twin_value = _number_of(value, numbers)
            inline = _tensor_call_number(value, qualify)
            if twin_value is None and inline is not None and not _mentions(inline, numbers):
                twin_value = inline  # `register_buffer("stride", torch.tensor(stride, dtype=...))`
            if twin_value is not None:
                twin = fresh_name(f"{attribute}_int", attributes)
                attributes.add(twin)
                after.append(_assign(cst.Attribute(cst.Name(receiver), cst.Name(twin)), twin_value))
                plan.buffers[attribute] = twin
                if plan.first_buffer is None:
                    plan.first_buffer = statement
        plan.body += [*before, statement, *after]
    return plan


def _derived_of(
    statement: cst.BaseStatement, receiver: str, buffers: dict[str, str], numbers: dict[str, str]
) -> tuple[str, cst.BaseExpression] | None:
    """`self.ATTR = E` with E integer arithmetic of the buffers kept so far (and numbers): (ATTR,
    E read on the numbers), so the methods can read ATTR's number too."""
    assign = _single_assign(statement)
    if assign is None:
        return None
    attribute = attribute_of(assign.targets[0].target, receiver)
    if attribute is None or attribute in buffers:
        return None

    def number(value: cst.BaseExpression) -> cst.BaseExpression | None:
        read = attribute_of(value, receiver)
        if read is not None:
            twin = buffers.get(read)
            return None if twin is None else value.with_changes(attr=cst.Name(twin))  # type: ignore[union-attr]
        if isinstance(value, cst.Integer):
            return value
        if isinstance(value, cst.Name):
            return cst.Name(numbers[value.value]) if value.value in numbers else None
        if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, INTEGER_OPERATORS):
            left, right = number(value.left), number(value.right)
            return None if left is None or right is None else value.with_changes(left=left, right=right)
        return None

    value = number(assign.value)
    reads_buffer = any(attribute_of(n, receiver) in buffers for n in iter_nodes(assign.value))
    return (attribute, value) if value is not None and reads_buffer else None


def _assign(target: cst.BaseAssignTargetExpression, value: cst.BaseExpression) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(target)], value)])


def _tensor_of_number(statement: cst.BaseStatement, qualify: Callable) -> tuple[str, cst.BaseExpression] | None:
    """`NAME = torch.tensor(E, dtype=<integer dtype>)` with E a pure expression of numbers: (NAME, E)."""
    assign = _single_assign(statement)
    if assign is None or not isinstance(assign.targets[0].target, cst.Name):
        return None
    value = _tensor_call_number(assign.value, qualify)
    return None if value is None else (assign.targets[0].target.value, value)


def _tensor_call_number(call: cst.BaseExpression, qualify: Callable) -> cst.BaseExpression | None:
    """E, for `torch.tensor(E, dtype=<integer dtype>)` with E a pure expression of numbers."""
    if not isinstance(call, cst.Call) or qualify(call.func) != "torch.tensor" or not call.args or call.args[0].keyword:
        return None
    dtype = next((a.value for a in call.args[1:] if a.keyword is not None and a.keyword.value == "dtype"), None)
    if dtype is None or qualify(dtype) not in INTEGER_DTYPES or any(
        a.keyword is None or a.keyword.value not in ("dtype", "device") for a in call.args[1:]
    ):
        return None
    value = call.args[0].value
    return value if _pure(value) else None


def _pure(value: cst.BaseExpression) -> bool:
    """Names, attributes, subscripts with constant indices, integers and integer arithmetic: an
    expression evaluated twice to the same number."""
    if isinstance(value, (cst.Name, cst.Integer)):
        return True
    if isinstance(value, cst.Attribute):
        return _pure(value.value)
    if isinstance(value, cst.Subscript):
        return _pure(value.value) and all(
            isinstance(e.slice, cst.Index) and isinstance(e.slice.value, cst.Integer) for e in value.slice
        )
    if isinstance(value, cst.BinaryOperation):
        return isinstance(value.operator, INTEGER_OPERATORS) and _pure(value.left) and _pure(value.right)
    if isinstance(value, cst.UnaryOperation):
        return isinstance(value.operator, cst.Minus) and _pure(value.expression)
    return False


def _buffer_of(statement: cst.BaseStatement, receiver: str, qualify: Callable) -> tuple[str, cst.BaseExpression] | None:
    """`self.BUF = nn.Buffer(VALUE, ...)` or `self.register_buffer("BUF", VALUE, ...)`: (BUF, VALUE)."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        target, call = small.targets[0].target, small.value
        attribute = attribute_of(target, receiver)
        if (
            attribute is not None
            and isinstance(call, cst.Call)
            and qualify(call.func) == "torch.nn.Buffer"
            and call.args
            and call.args[0].keyword is None
        ):
            return attribute, call.args[0].value
    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        call = small.value
        if (
            attribute_of(call.func, receiver) == "register_buffer"
            and len(call.args) >= 2
            and all(a.keyword is None for a in call.args[:2])
            and isinstance(call.args[0].value, cst.SimpleString)
        ):
            name = call.args[0].value.evaluated_value
            if isinstance(name, str) and name.isidentifier():
                return name, call.args[1].value
    return None


def _number_of(value: cst.BaseExpression, numbers: dict[str, str]) -> cst.BaseExpression | None:
    """The number a buffer's value is, from the locals' numbers; None when it is not one."""
    if isinstance(value, cst.Name):
        return cst.Name(numbers[value.value]) if value.value in numbers else None
    if isinstance(value, cst.Integer):
        return value
    if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, INTEGER_OPERATORS):
        left, right = _number_of(value.left, numbers), _number_of(value.right, numbers)
        if left is None or right is None or not (_mentions(value.left, numbers) or _mentions(value.right, numbers)):
            return None
        return value.with_changes(left=left, right=right)
    return None


def _mentions(value: cst.BaseExpression, numbers: dict[str, str]) -> bool:
    return any(isinstance(n, cst.Name) and n.value in numbers for n in iter_nodes(value))


def _single_assign(statement: cst.BaseStatement) -> cst.Assign | None:
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        small = statement.body[0]
        if isinstance(small, cst.Assign) and len(small.targets) == 1:
            return small
    return None


def _assigns(method: cst.FunctionDef, buffers: dict[str, str]) -> bool:
    """Whether the method binds `self.BUF` (`=`, augmented, annotated) for one of the buffers."""
    if not method.params.params:
        return False
    return bool(written_attributes(method.body, method.params.params[0].name.value) & buffers.keys())
