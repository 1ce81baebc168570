"""What a function's own code shows about its values: which expressions are tensors, and which
can be computed on every input without side effects.

The data-dependent control-flow rules (branch-to-where, guard-to-check) rewrite a Python decision
on a tensor into an operation in the graph; they need to know that the condition is a tensor
(a branch on a Python value is not data-dependent and must be left alone) and that what they move
out of a branch is pure. Both answers are conservative: "unknown" is "no".
"""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from graphweld.cst_fast import source
from graphweld.analysis.names import ImportTable
from graphweld.analysis.scopes import target_names
from graphweld.walk import children

# torch functions that return a tensor for any arguments.
TENSOR_FUNCTIONS = frozenset(
    f"torch.{name}"
    for name in (
        "abs acos add all amax amin any arange argmax argmin as_tensor asin atan atan2 bmm cat ceil "
        "cdist clamp clip cos count_nonzero cumsum deg2rad div dot einsum eq exp expm1 floor fmod full full_like ge gt "
        "isfinite isinf isnan "
        "isneginf isposinf le log log1p logical_and logical_not logical_or logsumexp lt matmul max maximum "
        "mean min minimum mm mul mv ne neg norm ones ones_like outer pow prod rad2deg reciprocal remainder round "
        "rsqrt sigmoid sign sin sqrt square stack std softmax log_softmax sub sum tan tanh tensor var where zeros "
        "zeros_like"
    ).split()
)
# torch functions that return something other than a tensor and have no effect: a dtype's limits.
# torch's functions that make a new tensor of given values or of a given shape.
FACTORIES = frozenset((
    "torch.tensor", "torch.as_tensor", "torch.scalar_tensor", "torch.zeros", "torch.ones", "torch.full", "torch.empty",
    "torch.zeros_like", "torch.ones_like", "torch.full_like", "torch.empty_like",
))
PURE_FUNCTIONS = frozenset(("torch.finfo", "torch.iinfo"))
# Python builtins that compute from their arguments alone (`_is_pure_builtin` says in which forms).
_PURE_BUILTINS = frozenset(("abs", "float", "int", "max", "min"))
# Tensor methods that return a tensor (not `item`, `tolist`, `size`, `dim`, `numel`, `nonzero`...).
TENSOR_METHODS = frozenset(
    (
        "abs add all amax amin any argmax argmin bool ceil clamp clip clone contiguous cos cumsum "
        "detach div dot double eq exp expand expand_as flatten float floor ge gt half int isfinite "
        "isinf isnan le log log1p logical_not logsumexp long lt max mean min mm mul mv ne neg norm outer permute pow prod "
        "reciprocal reshape round rsqrt sigmoid sign sin softmax log_softmax sqrt square squeeze "
        "std sub sum t tanh to transpose type_as unsqueeze var view view_as"
    ).split()
)
# Tensor attributes that are tensors.
TENSOR_ATTRIBUTES = frozenset(("T", "mT", "H", "mH", "data", "real", "imag"))
# Methods that return a boolean tensor on a tensor: conditions torch.where can take as they are.
BOOLEAN_METHODS = frozenset(
    ("all", "any", "bool", "eq", "ge", "gt", "isfinite", "isinf", "isnan", "le", "logical_not", "lt", "ne")
)
BOOLEAN_FUNCTIONS = frozenset(
    f"torch.{name}"
    for name in (
        "all any eq ge gt isfinite isinf isnan isneginf isposinf le logical_and logical_not "
        "logical_or lt ne"
    ).split()
)
TENSOR_ANNOTATIONS = frozenset(
    ("torch.Tensor", "torch.FloatTensor", "torch.LongTensor", "torch.BoolTensor", "torch.nn.Parameter")
)
_COMPARISONS = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual, cst.Equal, cst.NotEqual)
_ARITHMETIC = (
    cst.Add,
    cst.Subtract,
    cst.Multiply,
    cst.Divide,
    cst.FloorDivide,
    cst.Modulo,
    cst.Power,
    cst.MatrixMultiply,
    cst.BitAnd,
    cst.BitOr,
    cst.BitXor,
)


def truth_operands(test: cst.BaseExpression) -> set[int]:
    """The operands (by id) whose truth alone a test reads: the test, and the operands of its
    `and`, `or` and `not`."""
    found: set[int] = set()
    stack = [test]
    while stack:
        expression = stack.pop()
        if isinstance(expression, cst.BooleanOperation):
            stack += [expression.left, expression.right]
        elif isinstance(expression, cst.UnaryOperation) and isinstance(expression.operator, cst.Not):
            stack.append(expression.expression)
        else:
            found.add(id(expression))
    return found


def conjuncts(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    """`A and B and C` (without parentheses around it) as [A, B, C]: asserting or guarding each
    in order is the `and` (the first false one decides, the ones after it are not evaluated); any
    other test as itself. A chained comparison is the `and` of its links (`t0 <= t <= t1` is
    `t0 <= t and t <= t1`) where each inner operand is a name, an attribute or a literal, which
    reads the same value twice."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And) and not test.lpar:
        return conjuncts(test.left) + conjuncts(test.right)
    if isinstance(test, cst.Comparison) and len(test.comparisons) > 1 and not test.lpar:
        inner = [link.comparator for link in test.comparisons[:-1]]
        if all(_reads_same_twice(operand) for operand in inner):
            lefts = [test.left, *inner]
            return [cst.Comparison(left, [link]) for left, link in zip(lefts, test.comparisons)]
    return [test]


def _reads_same_twice(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.Attribute):
        return _reads_same_twice(node.value)
    return isinstance(node, (cst.Name, cst.Integer, cst.Float, cst.SimpleString))


def any_of(test: cst.BaseExpression, imports: ImportTable) -> str | None:
    """The name `M` of a test `M.any()` or `torch.any(M)`; None for any other test."""
    if not isinstance(test, cst.Call):
        return None
    if isinstance(test.func, cst.Attribute) and test.func.attr.value == "any" and not test.args:
        receiver = test.func.value
        return receiver.value if isinstance(receiver, cst.Name) else None
    if imports.qualify(test.func) == "torch.any" and len(test.args) == 1 and test.args[0].keyword is None:
        value = test.args[0].value
        return value.value if isinstance(value, cst.Name) else None
    return None


def _moves_only(call: cst.Call) -> bool:
    """`.to(x.device)`, `.to(device=...)`, `.to("cuda")`: a move that keeps the dtype."""
    for arg in call.args:
        if arg.keyword is not None:
            if arg.keyword.value not in ("device", "non_blocking"):
                return False
        elif not (
            (isinstance(arg.value, cst.Attribute) and arg.value.attr.value == "device")
            or (isinstance(arg.value, cst.Name) and arg.value.value == "device")
            or isinstance(arg.value, cst.SimpleString)
        ):
            return False
    return bool(call.args)


class FunctionValues:
    """The names of one function and what they are bound to, for tensor and purity questions."""

    def __init__(self, function: cst.FunctionDef, imports: ImportTable) -> None:
        self.imports = imports
        self.tensor_parameters: set[str] = set()
        self.parameters: set[str] = set()
        params = function.params
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            self.parameters.add(param.name.value)
            if param.annotation is not None and imports.qualify(param.annotation.annotation) in TENSOR_ANNOTATIONS:
                self.tensor_parameters.add(param.name.value)
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                self.parameters.add(star.name.value)
        self._body = function.body
        self._bindings: dict[str, list[cst.BaseExpression | None]] | None = None

    @property
    def bindings(self) -> dict[str, list[cst.BaseExpression | None]]:
        """Name -> every value it is bound to in the function (None: bound some other way); read
        from the body the first time a question needs it (most `if`s are answered without it)."""
        if self._bindings is None:
            self._bindings = {}
            for name, value in _bindings(self._body):
                self._bindings.setdefault(name, []).append(value)
        return self._bindings

    def single_value(self, name: str) -> cst.BaseExpression | None:
        """What `name` is bound to, when the function binds it exactly once by plain assignment."""
        if name in self.parameters:
            return None
        values = self.bindings.get(name, [])
        return values[0] if len(values) == 1 else None

    def is_local(self, name: str) -> bool:
        return name in self.parameters or name in self.bindings

    def unused_names(self, *names: str) -> tuple[str, ...]:
        """The names with the first suffix ("", "_2", "_3", ...) that makes none of them a local."""
        suffix, number = "", 1
        while any(self.is_local(f"{name}{suffix}") for name in names):
            number += 1
            suffix = f"_{number}"
        return tuple(f"{name}{suffix}" for name in names)

    def is_tensor(self, node: cst.BaseExpression, seen: frozenset[str] = frozenset()) -> bool:
        """Whether the expression is a tensor whatever the inputs (as far as the code shows)."""
        if isinstance(node, cst.Name):
            if node.value in self.tensor_parameters:
                return True
            value = self.single_value(node.value)
            return value is not None and node.value not in seen and self.is_tensor(value, seen | {node.value})
        if isinstance(node, cst.Call):
            if self.imports.qualify(node.func) in TENSOR_FUNCTIONS:
                return _returns_tensor(node, method=False)
            func = node.func
            return (
                isinstance(func, cst.Attribute)
                and func.attr.value in TENSOR_METHODS
                and self.is_tensor(func.value, seen)
                and _returns_tensor(node, method=True)
            )
        if isinstance(node, cst.Comparison):
            if len(node.comparisons) != 1 or not isinstance(node.comparisons[0].operator, _COMPARISONS):
                return False
            right = node.comparisons[0].comparator
            return self._tensor_operands(node.left, right, seen)
        if isinstance(node, cst.BinaryOperation):
            return isinstance(node.operator, _ARITHMETIC) and self._tensor_operands(node.left, node.right, seen)
        if isinstance(node, cst.UnaryOperation):
            return isinstance(node.operator, (cst.BitInvert, cst.Minus, cst.Plus)) and self.is_tensor(
                node.expression, seen
            )
        if isinstance(node, cst.Subscript):
            return self.is_tensor(node.value, seen)
        if isinstance(node, cst.Attribute):
            return node.attr.value in TENSOR_ATTRIBUTES and self.is_tensor(node.value, seen)
        return False

    def _tensor_operands(self, left: cst.BaseExpression, right: cst.BaseExpression, seen: frozenset[str]) -> bool:
        # A tensor operated with a number or another value gives a tensor; with None, a string or
        # a container literal it gives something else (or fails).
        if any(isinstance(side, _NOT_OPERANDS) or _is_none(side) for side in (left, right)):
            return False
        return self.is_tensor(left, seen) or self.is_tensor(right, seen)

    def decides_on_tensor(self, test: cst.BaseExpression) -> bool:
        """Whether deciding on the test needs a tensor's value: the test is a tensor, or `not`,
        `and`, `or` of such tests (all of them: `boolean_source` writes them as tensors)."""
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            return self.decides_on_tensor(test.expression)
        if isinstance(test, cst.BooleanOperation):
            return self.decides_on_tensor(test.left) and self.decides_on_tensor(test.right)
        return self.is_tensor(test)

    def is_boolean(self, node: cst.BaseExpression, seen: frozenset[str] = frozenset()) -> bool:
        """Whether the expression, known to be a tensor, is a tensor of booleans (a condition
        torch.where takes as it is): a comparison, `isinf`/`any`/..., `~`, `&`, `|` of those, one
        moved to a device (`.to(x.device)`), or a name every binding of which is one."""
        if isinstance(node, cst.Comparison):
            return len(node.comparisons) == 1 and isinstance(node.comparisons[0].operator, _COMPARISONS)
        if isinstance(node, cst.Call):
            if self.imports.qualify(node.func) in BOOLEAN_FUNCTIONS:
                return True
            if isinstance(node.func, cst.Attribute) and node.func.attr.value == "to" and _moves_only(node):
                return self.is_boolean(node.func.value, seen)
            return isinstance(node.func, cst.Attribute) and node.func.attr.value in BOOLEAN_METHODS
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.BitInvert):
            return self.is_boolean(node.expression, seen)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
            return self.is_boolean(node.left, seen) and self.is_boolean(node.right, seen)
        if isinstance(node, cst.Name):
            # Bound on two paths (Ovis2's mask, from the ids or from the embeddings), each boolean.
            values = self.bindings.get(node.value, []) if node.value not in self.parameters and node.value not in seen else []
            return bool(values) and all(value is not None and self.is_boolean(value, seen | {node.value}) for value in values)
        return False

    def boolean_source(self, test: cst.BaseExpression, module: cst.Module, torch_name: str = "torch") -> str:
        """The source of a tensor condition as the boolean tensor `torch.where` and `torch.cond`
        take: as written when it is one, else its `.bool()` (`if t:` tests t's only element
        against zero); Python's `not`, `and` and `or`, which would ask for the tensor's value,
        become `torch.logical_not`, `logical_and` and `logical_or`."""
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            return f"{torch_name}.logical_not({self.boolean_source(test.expression, module, torch_name)})"
        if isinstance(test, cst.BooleanOperation):
            function = "logical_and" if isinstance(test.operator, cst.And) else "logical_or"
            left = self.boolean_source(test.left, module, torch_name)
            right = self.boolean_source(test.right, module, torch_name)
            return f"{torch_name}.{function}({left}, {right})"
        code = source(test, module)
        if self.is_boolean(test):
            return code
        if isinstance(test, cst.Name) and self.may_be_python_flag(test.value):
            return f"{torch_name}.as_tensor({code}).bool()"
        return f"{code}.bool()" if isinstance(test, (cst.Name, cst.Attribute, cst.Call)) else f"({code}).bool()"

    def may_be_python_flag(self, name: str) -> bool:
        """Whether `name` is bound once to Python's `and`, `or` or `not`, which give a Python bool
        or one of their operands (pytorch-crf's `no_empty_seq = not self.batch_first and
        mask[0].all()`): a tensor on one input, `False` on another."""
        value = self.single_value(name)
        return isinstance(value, cst.BooleanOperation) or (
            isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Not)
        )

    def impurity(self, node: cst.BaseExpression) -> str | None:
        """Why computing the expression on every input could differ from computing it only where the
        program did (a call graphweld does not know, a data-dependent shape), or None when it is
        pure: reads of names and attributes, literals, arithmetic, and known tensor operations."""
        if isinstance(node, (cst.Name, cst.Integer, cst.Float, cst.SimpleString, cst.Ellipsis)):
            return None
        if isinstance(node, cst.Attribute):
            return self.impurity(node.value)
        if isinstance(
            node,
            (cst.Tuple, cst.List, cst.BinaryOperation, cst.Comparison, cst.UnaryOperation, cst.BooleanOperation, cst.IfExp),
        ):
            # `a if option == "sigmoid" else b` is pure when its test and both sides are.
            for child in _children(node):
                reason = self.impurity(child)
                if reason:
                    return reason
            return None
        if isinstance(node, cst.Subscript):
            for element in node.slice:
                index = element.slice
                if isinstance(index, cst.Slice):
                    parts = [part for part in (index.lower, index.upper, index.step) if part is not None]
                    if any(not isinstance(part, cst.Integer) and not _is_negative_integer(part) for part in parts):
                        return f"`{_code(node)}` slices by a value"
                elif not (
                    isinstance(index.value, (cst.Integer, cst.Ellipsis))
                    or _is_none(index.value)
                    or _is_negative_integer(index.value)
                ):
                    # A tensor index may be a boolean mask: a data-dependent shape.
                    return f"`{_code(node)}` indexes by a value that may be a mask"
            return self.impurity(node.value)
        if isinstance(node, cst.Call):
            name = self.imports.qualify(node.func)
            known = name in TENSOR_FUNCTIONS or name in PURE_FUNCTIONS or self._is_pure_builtin(node, name) or (
                isinstance(node.func, cst.Attribute) and node.func.attr.value in TENSOR_METHODS
            )
            if not known:
                return f"`{_code(node.func)}(...)` may have side effects"
            receiver = (
                node.func.value
                if isinstance(node.func, cst.Attribute) and name not in TENSOR_FUNCTIONS and name not in PURE_FUNCTIONS
                else None
            )
            for part in ([receiver] if receiver is not None else []) + [arg.value for arg in node.args]:
                reason = self.impurity(part)
                if reason:
                    return reason
            return None
        return f"`{_code(node)}` is not an expression graphweld knows to be pure"

    def _is_pure_builtin(self, node: cst.Call, name: str | None) -> bool:
        """Python's `abs(x)`, `max(a, b, ...)` and `min(a, b, ...)`, which Dynamo traces on tensors
        as `torch.abs`, `torch.maximum` and `torch.minimum`, and `float(x)`/`int(x)` (torchdiffeq's
        initial step size, `(0.01 / max(d1, d2)) ** (1. / float(order + 1))`); not over one
        iterable, with `key=` or `default=`, where the function binds the name itself, nor
        `max`/`min` of a number written out (`min(1.4, factor)` gives the float itself where it is
        the smaller, and `torch.where` would give a tensor)."""
        if name not in _PURE_BUILTINS or not isinstance(node.func, cst.Name) or self.is_local(name):
            return False
        if any(arg.keyword is not None or arg.star for arg in node.args):
            return False
        if name in ("abs", "float", "int"):
            return len(node.args) == 1
        return len(node.args) >= 2 and not any(_is_number(arg.value) for arg in node.args)


_NOT_OPERANDS = (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString, cst.List, cst.Tuple, cst.Dict, cst.Set)
# `torch.max(x, dim)` and `x.max(dim)` return (values, indices); only the whole reduction is a tensor.
_WITH_INDICES = frozenset(("max", "min"))


def _returns_tensor(call: cst.Call, method: bool) -> bool:
    name = call.func.attr.value if isinstance(call.func, cst.Attribute) else ""
    if name not in _WITH_INDICES:
        return True
    if any(arg.keyword is not None and arg.keyword.value == "dim" for arg in call.args):
        return False
    return len(call.args) == (0 if method else 1)


def _is_none(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def _is_number(node: cst.BaseExpression) -> bool:
    """A number written out: `1.4`, `-1`, `1e-6`."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        return _is_number(node.expression)
    return isinstance(node, (cst.Integer, cst.Float))


def _is_negative_integer(node: cst.BaseExpression) -> bool:
    return (
        isinstance(node, cst.UnaryOperation)
        and isinstance(node.operator, cst.Minus)
        and isinstance(node.expression, cst.Integer)
    )


def _children(node: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    if isinstance(node, cst.BinaryOperation):
        yield node.left
        yield node.right
    elif isinstance(node, cst.BooleanOperation):
        yield node.left
        yield node.right
    elif isinstance(node, cst.UnaryOperation):
        yield node.expression
    elif isinstance(node, (cst.Tuple, cst.List)):
        for element in node.elements:
            yield element.value
    elif isinstance(node, cst.Comparison):
        yield node.left
        for target in node.comparisons:
            yield target.comparator
    elif isinstance(node, cst.IfExp):
        yield node.test
        yield node.body
        yield node.orelse


def _code(node: cst.CSTNode) -> str:
    text = " ".join(cst.Module([]).code_for_node(node).split())
    return text if len(text) <= 50 else text[:47] + "..."


def _bindings(node: cst.CSTNode) -> Iterator[tuple[str, cst.BaseExpression | None]]:
    """Every name the code binds (not inside nested functions, classes or comprehensions), with
    the value of a plain `name = value` and None for any other binding."""
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, (cst.FunctionDef, cst.ClassDef)):
            yield current.name.value, None
            continue
        if isinstance(current, (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)):
            continue
        if isinstance(current, cst.Assign):
            for target in current.targets:
                single = len(current.targets) == 1 and isinstance(target.target, cst.Name)
                for name in target_names(target.target):
                    yield name, current.value if single else None
        elif isinstance(current, (cst.AnnAssign, cst.AugAssign)):
            for name in target_names(current.target):
                yield name, None
        elif isinstance(current, (cst.For, cst.CompFor)):
            for name in target_names(current.target):
                yield name, None
        elif isinstance(current, cst.AsName):
            for name in target_names(current.name):
                yield name, None
        elif isinstance(current, cst.NamedExpr):
            for name in target_names(current.target):
                yield name, None
        elif isinstance(current, (cst.Global, cst.Nonlocal)):
            for item in current.names:
                yield item.name.value, None
        elif isinstance(current, cst.Del):
            for name in target_names(current.target):
                yield name, None
        elif isinstance(current, (cst.Import, cst.ImportFrom)) and not isinstance(current.names, cst.ImportStar):
            for alias in current.names:
                bound = alias.asname.name if alias.asname is not None else alias.name
                head = cst.Module([]).code_for_node(bound).split(".", 1)[0]
                yield head, None
            continue
        stack.extend(reversed(children(current)))
