"""Number flow: where the values read from a module's integer buffers go, through its methods,
if each buffer read became the Python number it was built from.

A value that meets only integer arithmetic, number builtins, `math`'s namesakes of
`torch.ceil`/`floor`, `F.pad` and sizes can be that number (Dynamo then reads a constant, not a
tensor's value); one that meets code for tensors (`.device`, tensor arithmetic, storage on `self`)
cannot, and the flow raises NotConvertible saying where. buffer-as-number rewrites on its answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import libcst as cst

from graphweld.analysis.names import attribute_of, decorator_name
from graphweld.analysis.scopes import bound_names, target_names
from graphweld.walk import iter_nodes

# The integer dtypes a buffer built from Python numbers may hold.
INTEGER_DTYPES = frozenset(
    f"torch.{name}" for name in ("int64", "long", "int32", "int", "int16", "short", "int8", "uint8")
)
# What a value read from a buffer may meet and stay a number: arithmetic on integers.
INTEGER_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo)
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



def reads_buffers(method: cst.FunctionDef, buffers: dict[str, str]) -> bool:
    if not method.params.params:
        return False
    receiver = method.params.params[0].name.value
    return any(attribute_of(n, receiver) in buffers for n in iter_nodes(method.body))

@dataclass
class Converted:
    rewritten: dict[cst.FunctionDef, cst.FunctionDef] = field(default_factory=dict)
    # Statements whose values are numbers now (where the breaks were).
    touched: list[cst.CSTNode] = field(default_factory=list)
    uses_math: bool = False


class ClassConversion:
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
        self.result = Converted()
        # method name -> whether it returns a number once rewritten
        self.returns_number: dict[str, bool] = {}
        # (method, parameters given numbers) already found to take them as they are
        self.checked_callees: set[tuple[str, frozenset[str]]] = set()

    def run(self, readers: list[str]) -> Converted:
        """Each reading method rewritten, and the methods that get a number from one (a private
        method returning a number now) with them; repeated until what each returns is settled.
        A reading method whose values meet code for tensors (`self.stride.device`) is left as it
        is: it reads the buffers, which stay. The class is left alone when a method left so would
        get a number from a rewritten one."""
        names = list(readers)
        left: set[str] = set()
        while True:
            known = dict(self.returns_number)
            self.result = Converted()
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
        if method is None or reads_buffers(method, self.buffers):
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

    def __init__(self, conversion: ClassConversion, method: cst.FunctionDef, numbers: set[str], static: bool = False) -> None:
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
            if isinstance(node, cst.BinaryOperation) and not isinstance(node.operator, (*INTEGER_OPERATORS, cst.Divide)):
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
        return (arg.keyword is None or arg.keyword.value == "dtype") and self.conversion.qualify(arg.value) in INTEGER_DTYPES

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
