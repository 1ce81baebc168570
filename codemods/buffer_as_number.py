"""buffer-as-number: an integer buffer a module builds from Python numbers is read as that number in
its shape arithmetic."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import libcst as cst

from graphweld.analysis.blocks import binds_at_module_level, definitions_anchor
from graphweld.analysis.names import attribute_of, decorator_name, written_attributes
from graphweld.analysis.scopes import bound_names, fresh_name, target_names
from graphweld.rule import Rule, Safety
from graphweld.walk import iter_nodes

_INTEGER_DTYPES = frozenset(
    f"torch.{name}" for name in ("int64", "long", "int32", "int", "int16", "short", "int8", "uint8")
)
# What a value read from a buffer may meet and stay a number: arithmetic on integers.
_INTEGER_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo)
# Python builtins that take numbers and give one.
_NUMBER_BUILTINS = frozenset(("max", "min", "abs", "int", "round"))
# torch functions on a 0-dim tensor whose `math` namesake does the same on a number.
_ROUNDING = {"torch.ceil": "ceil", "torch.floor": "floor"}
_PADS = frozenset(("torch.nn.functional.pad",))


class NotConvertible(Exception):
    """A read of a buffer meets code that needs it to stay a tensor."""


# What an expression is once buffers are read as numbers: NUMBER (a tensor before, a number now),
# PLAIN (a Python number either way: a literal, a shape) or OTHER (anything else, a tensor say).
NUMBER, PLAIN, OTHER = "number", "plain", "other"


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
        readers = [name for name, m in methods.items() if name != "__init__" and _reads(m, plan.buffers)]
        if not readers or not any(context.regions.is_compiled(m) for m in methods.values()):
            return
        try:
            converted = _ClassConversion(context.module, node, methods, plan.buffers, qualify).run(readers)
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
        if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, _INTEGER_OPERATORS):
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
    if dtype is None or qualify(dtype) not in _INTEGER_DTYPES or any(
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
        return isinstance(value.operator, _INTEGER_OPERATORS) and _pure(value.left) and _pure(value.right)
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
    if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, _INTEGER_OPERATORS):
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


def _reads(method: cst.FunctionDef, buffers: dict[str, str]) -> bool:
    if not method.params.params:
        return False
    receiver = method.params.params[0].name.value
    return any(attribute_of(n, receiver) in buffers for n in iter_nodes(method.body))


# -- the methods: where the values read from buffers go ----------------------------------------


@dataclass
class _Converted:
    rewritten: dict[cst.FunctionDef, cst.FunctionDef] = field(default_factory=dict)
    # Statements whose values are numbers now (where the breaks were).
    touched: list[cst.CSTNode] = field(default_factory=list)
    uses_math: bool = False


class _ClassConversion:
    """Follows the values read from the buffers through the class's methods: each reading method
    is rewritten; a method given numbers as arguments must take them as they are."""

    def __init__(
        self, module: cst.Module, node: cst.ClassDef, methods: dict[str, cst.FunctionDef], buffers: dict[str, str], qualify: Callable
    ) -> None:
        self.module = module
        self.node = node
        self.methods = methods
        self.buffers = buffers
        self.qualify = qualify
        self.result = _Converted()
        # method name -> whether it returns a number once rewritten
        self.returns_number: dict[str, bool] = {}
        # (method, parameters given numbers) already found to take them as they are
        self.checked_callees: set[tuple[str, frozenset[str]]] = set()

    def run(self, readers: list[str]) -> _Converted:
        """Each reading method rewritten, and the methods that get a number from one (a private
        method returning a number now) with them; repeated until what each returns is settled.
        A reading method whose values meet code for tensors (`self.stride.device`) is left as it
        is: it reads the buffers, which stay. The class is left alone when a method left so would
        get a number from a rewritten one."""
        names = list(readers)
        left: set[str] = set()
        while True:
            known = dict(self.returns_number)
            self.result = _Converted()
            self.checked_callees = set()
            flows = {}
            for name in names:
                if name in left:
                    continue
                flow = _Flow(self, self.methods[name], numbers=set())
                try:
                    flow.run()
                except NotConvertible:
                    left.add(name)
                    self.returns_number[name] = False
                    continue
                flows[name] = flow
                self.returns_number[name] = bool(flow.returns_number)
            callers = []
            for name in names:
                if not self.returns_number[name]:
                    continue
                if not name.startswith("_") or name.startswith("__"):
                    raise NotConvertible(f"public `{name}` would return a number")
                if _called_outside(self.module, self.node, name):
                    raise NotConvertible(f"`{name}` is called outside its class")
                if any(_calls_method(self.methods[other], name) for other in left):
                    raise NotConvertible(f"`{name}` would return a number to a method left reading the buffers")
                callers += [other for other, m in self.methods.items() if other not in names and _calls_method(m, name)]
            if not callers and self.returns_number == known:
                break
            names += sorted(set(callers))
        if not flows:
            raise NotConvertible("no method reads the buffers as numbers only")
        for name, flow in flows.items():
            if flow.replacements:
                self.result.rewritten[self.methods[name]] = _apply(self.methods[name], flow.replacements)
        return self.result

    def callee_takes_numbers(self, name: str, positions: frozenset[int], keywords: frozenset[str]) -> bool:
        """Whether method `name` of the class works unchanged when the given arguments are numbers."""
        method = self.methods.get(name)
        if method is None or _reads(method, self.buffers):
            return False
        params = list(method.params.params)
        static = any(decorator_name(d) == "staticmethod" for d in method.decorators)
        if not static and params:
            params = params[1:]
        chosen = {params[i].name.value for i in positions if i < len(params)} | keywords
        if len(chosen) < len(positions) + len(keywords):
            return False
        key = (name, frozenset(chosen))
        if key in self.checked_callees:
            return True
        self.checked_callees.add(key)
        flow = _Flow(self, method, numbers=set(chosen), static=static)
        flow.run()
        return not flow.replacements and not flow.returns_number


def _calls_method(method: cst.FunctionDef, name: str) -> bool:
    return any(
        isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value == name for n in iter_nodes(method.body)
    )


def _called_outside(module: cst.Module, node: cst.ClassDef, name: str) -> bool:
    """Whether the module names the method as an attribute outside its class's methods."""
    inside = {id(n) for m in node.body.body if isinstance(m, cst.FunctionDef) for n in iter_nodes(m)}  # type: ignore[union-attr]
    return any(isinstance(n, cst.Attribute) and n.attr.value == name and id(n) not in inside for n in iter_nodes(module))


class _Flow:
    """One method's statements, in order, with the names that hold numbers (values read from the
    buffers, or computed from them); raises NotConvertible where one meets code for tensors."""

    def __init__(self, conversion: _ClassConversion, method: cst.FunctionDef, numbers: set[str], static: bool = False) -> None:
        self.conversion = conversion
        self.method = method
        self.numbers = numbers
        # Names holding Python numbers either way (a shape, a literal).
        self.plain: set[str] = set()
        params = method.params.params
        self.receiver = None if static or not params else params[0].name.value
        # id of a node -> how it changes: ("attribute", the number's attribute) for a buffer read,
        # ("math", "ceil") for torch.ceil, ("receiver", "") for `.item()` / `.to(dtype)` dropped.
        # A callee checked to take numbers as they are must need none (it reads no buffer).
        self.replacements: dict[int, tuple[str, str]] = {}
        self.returns_number: bool | None = None

    def run(self) -> None:
        self.block(self.method.body.body)  # type: ignore[union-attr]

    # -- statements

    def block(self, statements) -> None:  # type: ignore[no-untyped-def]
        for statement in statements:
            self.statement(statement)

    def statement(self, statement: cst.BaseStatement) -> None:
        if isinstance(statement, cst.SimpleStatementLine):
            kinds = [self.small(small) for small in statement.body]
            if NUMBER in kinds:
                self.conversion.result.touched.append(statement)
            return
        if isinstance(statement, cst.If):
            test = self.expression(statement.test)
            if test == NUMBER:
                self.conversion.result.touched.append(statement)
            numbers, plain = set(self.numbers), set(self.plain)
            self.block(statement.body.body)  # type: ignore[union-attr]
            numbers_in_body, plain_in_body = self.numbers, self.plain
            self.numbers, self.plain = numbers, plain
            if statement.orelse is not None:
                if isinstance(statement.orelse, cst.If):
                    self.statement(statement.orelse)
                else:
                    self.block(statement.orelse.body.body)  # type: ignore[union-attr]
            # A number on either path is followed as one; a plain number only when it is one on both.
            self.numbers |= numbers_in_body
            self.plain = (self.plain & plain_in_body) - self.numbers
            return
        # Loops, `with`, `try`, nested definitions: left alone unless no number reaches them; a
        # name they bind is no longer known to be a Python number.
        if self._mentions_numbers(statement):
            raise NotConvertible("a number reaches a loop, with, try or nested definition")
        self.plain -= bound_names([statement])

    def small(self, small: cst.BaseSmallStatement) -> str:
        if isinstance(small, cst.Assign):
            kind = self.expression(small.value)
            for target in small.targets:
                self.bind(target.target, kind)
            return kind
        if isinstance(small, cst.AnnAssign) and small.value is not None:
            kind = self.expression(small.value)
            self.bind(small.target, kind)
            return kind
        if isinstance(small, cst.Return):
            kind = OTHER if small.value is None else self.expression(small.value)
            returned = kind == NUMBER
            if self.returns_number is not None and self.returns_number != returned:
                raise NotConvertible("returns a number on some paths only")
            self.returns_number = returned
            return kind
        if isinstance(small, cst.Expr):
            return self.expression(small.value)
        if self._mentions_numbers(small):
            raise NotConvertible("a number reaches an unsupported statement")
        return OTHER

    def bind(self, target: cst.BaseExpression, kind: str) -> None:
        names = set(target_names(target))
        if not isinstance(target, (cst.Name, cst.Tuple, cst.List)):
            if kind == NUMBER:
                raise NotConvertible("a number stored in an attribute or item")
            self.expression(target)
            return
        self.numbers -= names
        self.plain -= names
        if kind == NUMBER:
            self.numbers |= names
        elif kind == PLAIN:
            self.plain |= names

    # -- expressions

    def require_other(self, node: cst.CSTNode) -> str:
        if self._mentions_numbers(node):
            raise NotConvertible("a number where a tensor is expected")
        return OTHER

    def expression(self, node: cst.BaseExpression) -> str:  # noqa: C901
        if isinstance(node, cst.Name):
            return NUMBER if node.value in self.numbers else PLAIN if node.value in self.plain else OTHER
        if isinstance(node, (cst.Integer, cst.Float)):
            return PLAIN
        if isinstance(node, cst.Attribute):
            if self._is_buffer(node):
                self.replacements[id(node)] = ("attribute", self.conversion.buffers[node.attr.value])
                return NUMBER
            return self.require_other(node.value)
        if isinstance(node, cst.Subscript):
            value = self.expression(node.value)
            if value == NUMBER:
                # An item of numbers (`paddings[0]`): a number.
                for element in node.slice:
                    self.index(element.slice)
                return NUMBER
            if isinstance(node.value, cst.Attribute) and node.value.attr.value == "shape":
                for element in node.slice:
                    self.index(element.slice)
                return PLAIN
            for element in node.slice:
                self.index(element.slice, slices_may_be_numbers=True)
            return OTHER
        if isinstance(node, (cst.BinaryOperation, cst.Comparison, cst.BooleanOperation)):
            parts = (
                [node.left, node.right]
                if not isinstance(node, cst.Comparison)
                else [node.left, *(target.comparator for target in node.comparisons)]
            )
            kinds = [self.expression(part) for part in parts]
            if NUMBER not in kinds:
                return PLAIN if all(kind == PLAIN for kind in kinds) else OTHER
            if OTHER in kinds:
                raise NotConvertible("a number meets a tensor in arithmetic")
            if isinstance(node, cst.BinaryOperation) and not isinstance(node.operator, (*_INTEGER_OPERATORS, cst.Divide)):
                raise NotConvertible("a number in an operation other than arithmetic")
            return NUMBER
        if isinstance(node, cst.UnaryOperation):
            kind = self.expression(node.expression)
            if kind == NUMBER and not isinstance(node.operator, (cst.Minus, cst.Plus, cst.Not)):
                raise NotConvertible("a number in an unsupported operation")
            return kind
        if isinstance(node, (cst.Tuple, cst.List)):
            kinds = [self.expression(element.value) for element in node.elements]
            return NUMBER if NUMBER in kinds else (PLAIN if kinds and all(k == PLAIN for k in kinds) else OTHER)
        if isinstance(node, cst.IfExp):
            self.expression(node.test)
            kinds = {self.expression(node.body), self.expression(node.orelse)}
            if NUMBER in kinds and OTHER in kinds:
                raise NotConvertible("a number on one side of a conditional expression only")
            return NUMBER if NUMBER in kinds else (PLAIN if kinds == {PLAIN} else OTHER)
        if isinstance(node, cst.Call):
            return self.call(node)
        if isinstance(node, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString, cst.Ellipsis)):
            return OTHER
        return self.require_other(node)

    def index(self, index: cst.BaseSlice, slices_may_be_numbers: bool = False) -> None:
        """An index or slice; a slice of a tensor may have numbers as bounds (`x[..., :end]`)."""
        if isinstance(index, cst.Slice):
            for bound in (index.lower, index.upper, index.step):
                if bound is not None and self.expression(bound) == NUMBER and not slices_may_be_numbers:
                    raise NotConvertible("a number as a slice bound")
        elif self.expression(index.value) == NUMBER:  # type: ignore[union-attr]
            raise NotConvertible("a number as an index")

    def call(self, node: cst.Call) -> str:  # noqa: C901
        func = node.func
        qualified = self.conversion.qualify(func) or ""
        args = [(arg, self.expression(arg.value)) for arg in node.args]
        numbers = [arg for arg, kind in args if kind == NUMBER]
        if isinstance(func, cst.Attribute) and not self._is_method_of_class(func):
            receiver = self.expression(func.value)
            if receiver == NUMBER:
                if func.attr.value == "item" and not node.args:
                    self.replacements[id(node)] = ("receiver", "")
                    return NUMBER
                if func.attr.value == "to" and len(node.args) == 1 and self._integer_dtype(node.args[0]):
                    self.replacements[id(node)] = ("receiver", "")
                    return NUMBER
                raise NotConvertible(f"`.{func.attr.value}` on a number")
        if qualified in _ROUNDING and len(args) == 1 and numbers:
            self.conversion.result.uses_math = True
            self.replacements[id(node)] = ("math", _ROUNDING[qualified])
            return NUMBER
        if isinstance(func, cst.Name) and func.value in _NUMBER_BUILTINS and qualified == func.value:
            kinds = {kind for _, kind in args}
            if NUMBER in kinds and OTHER in kinds:
                raise NotConvertible(f"`{func.value}` of a number and a tensor")
            return NUMBER if NUMBER in kinds else (PLAIN if kinds == {PLAIN} else OTHER)
        if isinstance(func, cst.Name) and func.value == "len":
            return PLAIN
        if isinstance(func, cst.Attribute) and func.attr.value in ("size", "dim") and not numbers:
            return PLAIN
        if qualified in _PADS:
            # The pad (second argument) may be numbers; the tensor and the rest may not.
            for index, (arg, kind) in enumerate(args):
                is_pad = arg.keyword.value == "pad" if arg.keyword is not None else index == 1
                if kind == NUMBER and not is_pad:
                    raise NotConvertible("a number where `pad` takes a tensor")
            return OTHER
        if self._is_method_of_class(func):
            name = func.attr.value if isinstance(func, cst.Attribute) else func.value  # type: ignore[union-attr]
            if numbers:
                positions = frozenset(i for i, (arg, kind) in enumerate(args) if kind == NUMBER and arg.keyword is None)
                keywords = frozenset(arg.keyword.value for arg, kind in args if kind == NUMBER and arg.keyword is not None)
                if not self.conversion.callee_takes_numbers(name, positions, keywords):
                    raise NotConvertible(f"`{name}` does not take numbers as they are")
                return OTHER
            return NUMBER if self.conversion.returns_number.get(name) else OTHER
        if numbers:
            raise NotConvertible(f"a number passed to `{qualified or 'a call'}`")
        return OTHER

    # -- helpers

    def _integer_dtype(self, arg: cst.Arg) -> bool:
        return (arg.keyword is None or arg.keyword.value == "dtype") and self.conversion.qualify(arg.value) in _INTEGER_DTYPES

    def _is_buffer(self, node: cst.Attribute) -> bool:
        return attribute_of(node, self.receiver) in self.conversion.buffers

    def _is_method_of_class(self, func: cst.BaseExpression) -> bool:
        """`self.method` (or `ClassName.method`) naming a method of the class."""
        if not isinstance(func, cst.Attribute) or not isinstance(func.value, cst.Name):
            return False
        owner = func.value.value
        return (owner == self.receiver or owner == self.conversion.node.name.value) and func.attr.value in self.conversion.methods

    def _mentions_numbers(self, node: cst.CSTNode) -> bool:
        for child in iter_nodes(node):
            if isinstance(child, cst.Name) and child.value in self.numbers:
                return True
            if isinstance(child, cst.Attribute) and self._is_buffer(child):
                return True
        return False


class _Replacer(cst.CSTTransformer):
    """Applies a flow's replacements (keyed on the original nodes) bottom up."""

    def __init__(self, replacements: dict[int, tuple[str, str]]) -> None:
        self.replacements = replacements

    def on_leave(self, original_node, updated_node):  # type: ignore[no-untyped-def]
        how, name = self.replacements.get(id(original_node), ("", ""))
        if how == "attribute":
            return updated_node.with_changes(attr=cst.Name(name))
        if how == "math":
            return updated_node.with_changes(func=cst.Attribute(cst.Name("math"), cst.Name(name)))
        if how == "receiver":
            return updated_node.func.value
        return updated_node


def _apply(method: cst.FunctionDef, replacements: dict[int, tuple[str, str]]) -> cst.FunctionDef:
    return method.visit(_Replacer(replacements))  # type: ignore[return-value]
