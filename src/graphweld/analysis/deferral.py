"""Deferring one I/O call: what the graph computes and what the deferred call does with it.

Dynamo runs a function registered in `torch._dynamo.config.reorderable_logging_functions` after
the graph instead of breaking it, passing it tensors and constants (measured on torch 2.13: its
keyword arguments are dropped, and any other argument breaks the graph as before). So an I/O call
is split in two: the arguments' *values* stay at the call site, computed in the graph (`h.norm()`),
and everything that turns them into text or bytes (`.item()`, `float(t)`, f-strings, `%` and
`.format`, the call itself with its keywords) moves into a module-level wrapper that takes those
values positionally.
"""

from __future__ import annotations

import ast
import builtins
import keyword
import re
from dataclasses import dataclass, field
from typing import Callable

import libcst as cst

from graphweld.analysis.breakers import TENSOR_VALUE_READS
from graphweld.analysis.names import ImportTable, dotted_name, is_literal_constant, root_expression
from graphweld.analysis.scopes import bound_names, is_scope, parameter_names, target_names
from graphweld.walk import children, iter_nodes

WRAPPER_PREFIX = "_deferred_"
WRAPPER_MARK = "graphweld isolate-io"
# Frames between the original call's caller and the call in the wrapper: the wrapper and
# torch.compiler.disable's own (a log record or warning names the caller with stacklevel + 2).
WRAPPER_FRAMES = 2

# Queries of the device and its allocator that a log reads (measured on torch 2.13: Dynamo puts
# them in the graph and breaks, "torch.* op returned non-Tensor", GB0208). The wrapper makes them
# itself, after the graph: what a log shows is the state after the compiled graph ran.
DEVICE_QUERIES = frozenset(
    f"torch.{device}.{name}"
    for device in ("cuda", "cuda.memory", "xpu", "mps", "npu")
    for name in (
        "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved", "memory_cached",
        "max_memory_cached", "memory_stats", "memory_summary", "mem_get_info", "get_device_name",
        "get_device_properties", "get_device_capability", "device_count", "current_device", "utilization",
        "temperature", "power_draw", "clock_rate", "current_allocated_memory", "driver_allocated_memory",
    )
)
# Builtins that read a value into Python text or numbers: the deferred call applies them.
_READ_BUILTINS = frozenset({"float", "int", "bool", "str", "repr", "format"})
# Methods whose result shares the receiver's memory: a write to the receiver shows through them.
_VIEW_METHODS = frozenset(
    {"view", "view_as", "reshape", "reshape_as", "transpose", "permute", "squeeze", "unsqueeze", "expand",
     "expand_as", "flatten", "unflatten", "narrow", "select", "as_strided", "detach", "contiguous", "t",
     "unbind", "split", "chunk", "movedim", "swapaxes", "diagonal", "unfold"}
)
_MUTABLE_BUILDERS = frozenset({"list", "dict", "set", "bytearray", "collections.defaultdict", "collections.OrderedDict",
                               "collections.deque", "defaultdict", "OrderedDict", "deque"})
_MUTABLE_LITERALS = (cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp)
# Builtin names the wrapper can refer to itself (warning categories, exceptions, constants).
_BUILTIN_NAMES = frozenset(name for name in dir(builtins) if not name.startswith("_"))
# Logging calls whose record names the caller's line: the wrapper asks for one frame more.
STDLIB_LOGGING_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "critical", "fatal", "log"})


@dataclass
class Hole:
    """A value computed at the call site and passed to the wrapper."""

    param: str
    expression: cst.BaseExpression
    snapshot: bool = False  # passed as `.detach().clone()`: written in place after the call


@dataclass
class Deferral:
    """The wrapper's call (`body`, over `params`) and what the call site passes it."""

    callee: str
    body: cst.Call
    holes: list[Hole] = field(default_factory=list)
    generic: bool = False  # the pass-through wrapper `callee(*args)`
    words: str = ""  # what it prints, for the wrapper's name
    # `name = t.item()` statements that only fed the call: their read moved into the wrapper.
    moved_reads: list[cst.SimpleStatementLine] = field(default_factory=list)
    # Device and allocator queries the wrapper makes itself, after the graph.
    queries: list[cst.BaseExpression] = field(default_factory=list)

    @property
    def params(self) -> list[str]:
        return [hole.param for hole in self.holes]

    def wrapper_name(self) -> str:
        base = WRAPPER_PREFIX + _slug(self.callee)
        return base if self.generic or not self.words else f"{base}_{self.words}"

    def wrapper_code(self, name: str) -> str:
        signature = "*args" if self.generic else ", ".join(self.params)
        call = self.body_code()
        # Never traced: Dynamo would trace the wrapper when the compiled code calls it after the
        # graph, and break in it (on `print`, inside `torch.save`), so the I/O goes untraced. The
        # one-line docstring marks it as graphweld's (a later run recognises and reuses it).
        return (
            "@torch.compiler.disable\n"
            f"def {name}({signature}):\n"
            f'    """{WRAPPER_MARK}: `{self.callee}`, run after the compiled graph."""\n'
            f"    {call}\n"
        )

    def body_code(self) -> str:
        """The wrapper's call, on one line when it fits in 96 columns, else one argument per line
        (an implicitly concatenated string keeps a line per piece)."""
        one_line = _code(self.body)
        if len(one_line) <= 96 or not self.body.args:
            return one_line
        lines = [f"{_code(self.body.func)}("]
        for arg in self.body.args:
            value = arg.value
            pieces = _string_pieces(value) if isinstance(value, cst.ConcatenatedString) else [_code(value)]
            keyword = f"{arg.keyword.value}=" if arg.keyword is not None else ""
            lines.append(f"        {keyword}{pieces[0]}")
            lines.extend(f"        {piece}" for piece in pieces[1:])
            lines[-1] += ","
        lines.append("    )")
        return "\n".join(lines)

    def call_args(self) -> list[cst.Arg]:
        args = []
        for hole in self.holes:
            value = hole.expression
            if hole.snapshot:
                code = _code(value) if isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) else f"({_code(value)})"
                value = cst.parse_expression(f"{code}.detach().clone()")
            args.append(cst.Arg(value=value))
        return args


class Refused(Exception):
    """The call cannot be deferred exactly; the message says why (it is reported)."""


def plan(
    call: cst.Call,
    callee: str,
    *,
    statement: cst.CSTNode,
    function: cst.FunctionDef,
    imports: ImportTable,
    module_names: set[str],
    add_stacklevel: bool,
    stacklevel_position: int | None = None,
) -> Deferral:
    """How to defer `call` (a statement of `function`). Raises Refused for arguments whose
    deferred value could differ from the value at the call: mutable Python objects, values
    written after the call that cannot be snapshotted. With `add_stacklevel`, the wrapper passes
    `stacklevel` two higher (a keyword, or the positional argument at `stacklevel_position`)."""
    if any(arg.star for arg in call.args):
        raise Refused("its arguments are unpacked with `*`/`**`")
    facts = _FunctionFacts(function, statement)
    lifter = _Lifter(facts, imports, module_names)
    args = [arg.with_changes(value=lifter.lift(arg.value)) for arg in call.args]
    if callee == "print":
        # print() shows str(value): a size the graph cannot pass is passed as that text.
        args = [arg.with_changes(value=lifter.as_text(arg.value)) if arg.keyword is None else arg for arg in args]
    body_args = _with_stacklevel(args, stacklevel_position) if add_stacklevel else args
    body = call.with_changes(
        func=cst.parse_expression(callee), args=_clean_commas(body_args), whitespace_before_args=cst.SimpleWhitespace("")
    )
    deferral = Deferral(
        callee=callee, body=body, holes=lifter.holes, words=_words(call) or "_".join(lifter.param_names()),
        moved_reads=lifter.moved_reads, queries=lifter.queries,
    )
    generic = all(arg.keyword is None for arg in call.args) and all(
        _is_scalar_constant(arg.value) or _is_hole_name(arg.value, lifter) for arg in args
    )
    if generic:
        # Every argument is passed as it is: one pass-through wrapper serves every such call.
        by_param = {hole.param: hole for hole in lifter.holes}
        deferral.generic = True
        deferral.holes = [
            by_param[arg.value.value] if isinstance(arg.value, cst.Name) and arg.value.value in by_param
            else Hole(param=f"arg{index}", expression=arg.value)
            for index, arg in enumerate(args)
        ]
        level = f", stacklevel={1 + WRAPPER_FRAMES}" if add_stacklevel else ""
        deferral.body = cst.parse_expression(f"{callee}(*args{level})")  # type: ignore[assignment]
    return deferral


def _with_stacklevel(args: list[cst.Arg], position: int | None) -> list[cst.Arg]:
    """The call in the wrapper is `WRAPPER_FRAMES` frames deeper than the original call: its
    `stacklevel` grows by as many."""
    for index, arg in enumerate(args):
        is_stacklevel = (arg.keyword is not None and arg.keyword.value == "stacklevel") or (
            arg.keyword is None and position is not None and index == position
        )
        if is_stacklevel:
            value = arg.value
            if isinstance(value, cst.Integer):
                raised: cst.BaseExpression = cst.Integer(str(int(value.evaluated_value) + WRAPPER_FRAMES))
            else:
                raised = cst.parse_expression(f"({_code(value)}) + {WRAPPER_FRAMES}")
            return [*args[:index], arg.with_changes(value=raised), *args[index + 1 :]]
    level = cst.Arg(keyword=cst.Name("stacklevel"), value=cst.Integer(str(1 + WRAPPER_FRAMES)), equal=cst.AssignEqual(
        whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))
    return [*args, level]


def _clean_commas(args: list[cst.Arg]) -> list[cst.Arg]:
    """Arguments laid out on one line: `a, b, c`."""
    cleaned = []
    for index, arg in enumerate(args):
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")) if index < len(args) - 1 else cst.MaybeSentinel.DEFAULT
        cleaned.append(arg.with_changes(comma=comma, whitespace_after_arg=cst.SimpleWhitespace(""),
                                        value=_one_line(arg.value)))
    return cleaned


def _one_line(value: cst.BaseExpression) -> cst.BaseExpression:
    """An implicitly concatenated string split over lines, joined on one line for the wrapper."""
    if isinstance(value, cst.ConcatenatedString):
        return value.with_changes(
            left=_one_line(value.left), right=_one_line(value.right),  # type: ignore[arg-type]
            whitespace_between=cst.SimpleWhitespace(" "), lpar=(), rpar=(),
        )
    return value


def _string_pieces(value: cst.BaseExpression) -> list[str]:
    if isinstance(value, cst.ConcatenatedString):
        return [*_string_pieces(value.left), *_string_pieces(value.right)]  # type: ignore[arg-type]
    return [_code(value)]


def same_call(first: cst.BaseExpression, second: cst.BaseExpression) -> bool:
    """Whether two calls are the same code, whatever their layout."""

    def dump(node: cst.BaseExpression) -> str:
        return ast.dump(ast.parse(_code(node).strip(), mode="eval"))

    return dump(first) == dump(second)


def _is_scalar_constant(value: cst.BaseExpression) -> bool:
    """A constant Dynamo passes as it is (a tuple is not passed, even of constants)."""
    return is_literal_constant(value) and not isinstance(value, cst.Tuple)


def _is_size(expression: cst.BaseExpression) -> bool:
    """A size read at trace time (`x.shape`, `x.size(0)`, `len(x)`): Dynamo formats it into text
    but does not pass a `torch.Size` to the wrapper."""
    if isinstance(expression, cst.Attribute):
        return expression.attr.value in ("shape", "ndim")
    if isinstance(expression, cst.Subscript):
        return _is_size(expression.value)
    if isinstance(expression, cst.Call):
        func = expression.func
        if isinstance(func, cst.Attribute):
            return func.attr.value in ("size", "dim", "numel", "stride")
        return isinstance(func, cst.Name) and func.value == "len"
    return False


def _is_hole_name(value: cst.BaseExpression, lifter: "_Lifter") -> bool:
    return isinstance(value, cst.Name) and value.value in lifter.param_names()


class _Lifter:
    """Splits argument expressions into what the wrapper does (reads, formatting) and holes."""

    def __init__(self, facts: "_FunctionFacts", imports: ImportTable, module_names: set[str]) -> None:
        self.facts = facts
        self.imports = imports
        self.module_names = module_names
        self.holes: list[Hole] = []
        self._by_code: dict[str, Hole] = {}
        # Statements `name = t.item()` whose read moves into the wrapper (they are removed).
        self.moved_reads: list[cst.SimpleStatementLine] = []
        # Device queries the wrapper makes itself, after the graph.
        self.queries: list[cst.BaseExpression] = []

    def param_names(self) -> list[str]:
        return [hole.param for hole in self.holes]

    def lift(self, expression: cst.BaseExpression) -> cst.BaseExpression:
        if self.is_device_query(expression):
            self.queries.append(expression)
            return expression
        if is_literal_constant(expression) or self._is_global(expression):
            return expression
        if isinstance(expression, cst.Name):
            feeding = self.facts.read_feeding_only(expression.value, self.is_device_query)
            if feeding is not None:
                # `value = t.item()` read only here: the graph computes `t`, the wrapper reads it.
                assignment, read = feeding
                self.moved_reads.append(assignment)
                return self.lift(read)
        if isinstance(expression, cst.BinaryOperation) and self._query_arithmetic(expression):
            # `peak / 2**20` with `peak = torch.cuda.max_memory_allocated()`: made in the wrapper.
            sides = [side if _numbers_only(side) else self.lift(side) for side in (expression.left, expression.right)]
            return expression.with_changes(left=sides[0], right=sides[1])
        if isinstance(expression, cst.FormattedString):
            return expression.with_changes(parts=[self._lift_part(part) for part in expression.parts])
        if isinstance(expression, cst.ConcatenatedString):
            return expression.with_changes(left=self.lift(expression.left), right=self.lift(expression.right))
        if isinstance(expression, (cst.Tuple,)):
            return expression.with_changes(
                elements=[element.with_changes(value=self.lift(element.value)) for element in expression.elements]
            )
        if (
            isinstance(expression, cst.BinaryOperation)
            and isinstance(expression.operator, cst.Modulo)
            and isinstance(expression.left, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString))
        ):
            return expression.with_changes(left=self.lift(expression.left), right=self.lift(expression.right))
        if isinstance(expression, cst.Call):
            func = expression.func
            # `h.item()`, `t.tolist()`: the wrapper reads the value the graph computed.
            if isinstance(func, cst.Attribute) and func.attr.value in TENSOR_VALUE_READS and not expression.args:
                return expression.with_changes(func=func.with_changes(value=self.hole(func.value)))
            # `float(t)`, `str(x)`, `format(t, ".3f")`
            if isinstance(func, cst.Name) and func.value in _READ_BUILTINS and func.value not in self.facts.local_names:
                return expression.with_changes(args=[arg.with_changes(value=self.lift(arg.value)) for arg in expression.args])
            # `"{:.3f}".format(t)`
            if isinstance(func, cst.Attribute) and func.attr.value == "format" and isinstance(func.value, (cst.SimpleString, cst.ConcatenatedString)):
                return expression.with_changes(args=[arg.with_changes(value=self.lift(arg.value)) for arg in expression.args])
        return self.hole(expression)

    def is_device_query(self, expression: cst.BaseExpression) -> bool:
        """A device or allocator query (`torch.cuda.memory_allocated()`), alone or in arithmetic
        with numbers (`torch.cuda.max_memory_allocated() / 2**20`): the wrapper makes it."""
        if isinstance(expression, cst.BinaryOperation):
            return all(
                self.is_device_query(side) or is_literal_constant(side) or self._is_global(side)
                for side in (expression.left, expression.right)
            ) and (self.is_device_query(expression.left) or self.is_device_query(expression.right))
        if isinstance(expression, cst.Call) and self.imports.qualify(expression.func) in DEVICE_QUERIES:
            return all(is_literal_constant(arg.value) or self._is_global(arg.value) for arg in expression.args)
        return False

    def _query_arithmetic(self, expression: cst.BaseExpression) -> bool:
        """Arithmetic of numbers and device queries, read directly or through a name bound to one
        and read only here, with at least one query."""
        leaves: list[cst.BaseExpression] = []
        pending = [expression]
        while pending:
            node = pending.pop()
            if isinstance(node, cst.BinaryOperation):
                pending += [node.left, node.right]
            else:
                leaves.append(node)
        queries = [
            leaf for leaf in leaves
            if self.is_device_query(leaf)
            or (isinstance(leaf, cst.Name) and (fed := self.facts.read_feeding_only(leaf.value, self.is_device_query)) is not None
                and self.is_device_query(fed[1]))
        ]
        others = [leaf for leaf in leaves if not any(leaf is query for query in queries)]
        return bool(queries) and all(is_literal_constant(leaf) or self._is_global(leaf) for leaf in others)

    def _lift_part(self, part: cst.BaseFormattedStringContent) -> cst.BaseFormattedStringContent:
        if not isinstance(part, cst.FormattedStringExpression):
            return part
        if _is_size(part.expression):
            # Formatted at the call site (Dynamo formats sizes, even symbolic ones, into text).
            text = cst.FormattedString(parts=[part], start='f"', end='"')
            hole = self.hole(text, name=_param_name(part.expression))
            return part.with_changes(expression=hole, conversion=None, format_spec=None, equal=None)
        spec = part.format_spec
        if spec is not None:
            spec = [self._lift_part(inner) for inner in spec]
        return part.with_changes(expression=self.lift(part.expression), format_spec=spec)

    def _is_global(self, expression: cst.BaseExpression) -> bool:
        """A name the wrapper can refer to itself: an import (`torch.float16`, `sys.stderr`), a
        module-level name or a builtin (`FutureWarning`), not shadowed in the function."""
        name = dotted_name(expression)
        if name is None:
            return False
        root = name.partition(".")[0]
        if root in self.facts.local_names:
            return False
        return root in self.imports.aliases or root in self.module_names or (root in _BUILTIN_NAMES and root != "self")

    def as_text(self, value: cst.BaseExpression) -> cst.BaseExpression:
        """A hole holding a size, passed as the text print would show (`f"{x.shape}"`)."""
        if isinstance(value, cst.Name):
            hole = next((h for h in self.holes if h.param == value.value), None)
            if hole is not None and _is_size(hole.expression):
                hole.expression = cst.parse_expression('f"{' + _code(hole.expression) + '}"')
                self._by_code[_code(hole.expression)] = hole
        return value

    def hole(self, expression: cst.BaseExpression, name: str | None = None) -> cst.Name:
        code = _code(expression)
        known = self._by_code.get(code)
        # The same variable read twice is passed once; a call is evaluated as often as written.
        if known is not None and isinstance(expression, (cst.Name, cst.Attribute)):
            return cst.Name(known.param)
        if isinstance(expression, _MUTABLE_LITERALS) or self.facts.is_mutable_object(expression):
            raise Refused(f"`{code}` is a mutable Python object: the deferred call would see its later state")
        snapshot = False
        root = _alias_root(expression)
        if root is not None:
            written = self.facts.written_after(root)
            if written == "tensor":
                snapshot = True
            elif written == "unknown":
                raise Refused(f"`{code}` may be changed after the call and is not known to be a tensor to snapshot")
        taken = {hole.param for hole in self.holes}
        param = _fresh(name or _param_name(expression), taken)
        hole = Hole(param=param, expression=expression, snapshot=snapshot)
        self.holes.append(hole)
        self._by_code[code] = hole
        return cst.Name(param)


class _FunctionFacts:
    """What the function does around one statement: its names, and writes after it."""

    def __init__(self, function: cst.FunctionDef, statement: cst.CSTNode) -> None:
        self.function = function
        self.parameters = parameter_names(function)
        order: list[cst.CSTNode] = []
        parents: dict[int, cst.CSTNode] = {}
        ends: dict[int, int] = {}  # node -> the index in `order` just past its subtree

        # Pre-order walk of the body (textual order), not entering nested scopes.
        def visit(node: cst.CSTNode) -> None:
            order.append(node)
            for child in children(node):
                parents[id(child)] = node
                if not is_scope(child):
                    visit(child)
            ends[id(node)] = len(order)

        visit(function.body)
        self.parents = parents
        self.statement = statement
        position = {id(node): index for index, node in enumerate(order)}
        # Nodes that run after the statement: later in the text, or anywhere in a loop around it.
        after = set(range(ends.get(id(statement), len(order)), len(order)))
        ancestor = parents.get(id(statement))
        while ancestor is not None:
            if isinstance(ancestor, (cst.For, cst.While)):
                after.update(range(position[id(ancestor)], ends[id(ancestor)]))
            ancestor = parents.get(id(ancestor))
        self.after = [order[index] for index in sorted(after)]
        self.bindings: dict[str, list[cst.BaseExpression | None]] = {}
        for node in order:
            if isinstance(node, cst.Assign):
                for target in node.targets:
                    for name in target_names(target.target):
                        self.bindings.setdefault(name, []).append(node.value if isinstance(target.target, cst.Name) else None)
            elif isinstance(node, (cst.AnnAssign,)) and isinstance(node.target, cst.Name):
                self.bindings.setdefault(node.target.value, []).append(node.value)
            elif isinstance(node, cst.For):
                for name in target_names(node.target):
                    self.bindings.setdefault(name, []).append(_FOR_TARGET)
            elif isinstance(node, (cst.NamedExpr,)) and isinstance(node.target, cst.Name):
                self.bindings.setdefault(node.target.value, []).append(node.value)
        body = function.body.body if isinstance(function.body, cst.IndentedBlock) else [function.body]
        # Every name the function binds (with/except targets and imports included): never a global.
        self.local_names = set(self.bindings) | self.parameters | bound_names(body)

    def is_mutable_object(self, expression: cst.BaseExpression) -> bool:
        if isinstance(expression, cst.Name):
            if expression.value == "self":
                return True
            return any(_builds_mutable(value) for value in self.bindings.get(expression.value, ()))
        return False

    def _aliases(self, root: str) -> set[str]:
        """`root` and the local names bound to a view of it (`y = h[0]`, `y = h.view(-1)`)."""
        names = {root}
        changed = True
        while changed:
            changed = False
            for name, values in self.bindings.items():
                if name in names:
                    continue
                if any(value is not None and value is not _FOR_TARGET and _alias_root(value) in names for value in values):
                    names.add(name)
                    changed = True
        return names

    def written_after(self, root: str, nodes: list[cst.CSTNode] | None = None) -> str | None:
        """How `root` (or a view of it) is written after the statement (or in `nodes`): "tensor"
        for an in-place tensor method or `out=`, "unknown" for an item or augmented assignment,
        None if not."""
        names = self._aliases(root)
        found: str | None = None
        for node in self.after if nodes is None else nodes:
            if isinstance(node, cst.Call):
                func = node.func
                if (
                    isinstance(func, cst.Attribute)
                    and func.attr.value.endswith("_")
                    and not func.attr.value.startswith("__")
                    and _alias_root(func.value) in names
                ):
                    return "tensor"
                if any(arg.keyword is not None and arg.keyword.value == "out" and _alias_root(arg.value) in names for arg in node.args):
                    return "tensor"
            elif isinstance(node, (cst.AssignTarget,)) and isinstance(node.target, cst.Subscript):
                if _alias_root(node.target) in names:
                    found = "unknown"
            elif isinstance(node, cst.AugAssign) and _alias_root(node.target) in names:
                if isinstance(node.target, cst.Name) and self._python_number(node.target.value):
                    continue  # `total += 1` on a number rebinds the name; the value passed is kept
                found = "unknown"
        return found

    def read_feeding_only(
        self, name: str, device_query: Callable[[cst.BaseExpression], bool] = lambda expression: False
    ) -> tuple[cst.SimpleStatementLine, cst.BaseExpression] | None:
        """`name = t.item()` (or `.tolist()`, `float(t)`, ...) earlier in the statement's block,
        when `name` is bound nowhere else and read nowhere but in the statement, and nothing in
        between rebinds or writes what the read reads: the read can move into the wrapper. So can
        a device query (`mem = torch.cuda.memory_allocated()`): the wrapper makes it after the graph."""
        values = self.bindings.get(name, [])
        if len(values) != 1 or name in self.parameters or values[0] is None or values[0] is _FOR_TARGET:
            return None
        read = values[0]
        query = device_query(read)
        if not query and (not isinstance(read, cst.Call) or _read_operand(read) is None):
            return None
        block = self.parents.get(id(self.statement))
        siblings = list(getattr(block, "body", ()))
        if self.statement not in siblings:
            return None
        index = siblings.index(self.statement)
        assignment = next(
            (
                earlier for earlier in siblings[:index]
                if isinstance(earlier, cst.SimpleStatementLine) and len(earlier.body) == 1
                and isinstance(earlier.body[0], cst.Assign) and earlier.body[0].value is read
            ),
            None,
        )
        if assignment is None:
            return None
        uses = [node for node in iter_nodes(self.function.body) if isinstance(node, cst.Name) and node.value == name]
        inside = {id(node) for node in iter_nodes(self.statement) if isinstance(node, cst.Name)}
        target = assignment.body[0].targets  # type: ignore[union-attr]
        if len(target) != 1 or not isinstance(target[0].target, cst.Name):
            return None
        if any(id(use) not in inside and use is not target[0].target for use in uses):
            return None
        if query:
            return assignment, read
        assert isinstance(read, cst.Call)
        between = siblings[siblings.index(assignment) + 1 : index]
        operand = _read_operand(read)
        assert operand is not None
        read_names = {node.value for node in iter_nodes(operand) if isinstance(node, cst.Name)}
        nodes_between = [node for statement in between for node in iter_nodes(statement, prune=is_scope)]
        if read_names & bound_names(between):
            return None
        root = _alias_root(operand)
        if root is not None and self.written_after(root, nodes_between) is not None:
            return None
        return assignment, read

    def _python_number(self, name: str) -> bool:
        values = self.bindings.get(name, [])
        return bool(values) and name not in self.parameters and all(
            value is not None and value is not _FOR_TARGET and is_literal_constant(value) for value in values
        )


_FOR_TARGET = cst.Name("__for_target__")


def _numbers_only(expression: cst.BaseExpression) -> bool:
    """Arithmetic of number literals only (`2**20`)."""
    if isinstance(expression, cst.BinaryOperation):
        return _numbers_only(expression.left) and _numbers_only(expression.right)
    return isinstance(expression, (cst.Integer, cst.Float))


def _read_operand(read: cst.Call) -> cst.BaseExpression | None:
    """`t` in `t.item()`, `t.tolist()`, `float(t)`, `int(t)`, `bool(t)`."""
    func = read.func
    if isinstance(func, cst.Attribute) and func.attr.value in TENSOR_VALUE_READS and not read.args:
        return func.value
    if isinstance(func, cst.Name) and func.value in ("float", "int", "bool") and len(read.args) == 1 and not read.args[0].keyword:
        return read.args[0].value
    return None


def _builds_mutable(value: cst.BaseExpression | None) -> bool:
    if value is None or value is _FOR_TARGET:
        return False
    if isinstance(value, _MUTABLE_LITERALS):
        return True
    return isinstance(value, cst.Call) and dotted_name(value.func) in _MUTABLE_BUILDERS


def _alias_root(expression: cst.BaseExpression) -> str | None:
    """The variable whose memory `expression` shares: `h` for `h`, `h[0]`, `h.view(2, -1)`,
    `self.cache` for `self.cache[:, 0]`; None for a value computed anew (`h.norm()`, `a + b`)."""
    if isinstance(expression, (cst.Name, cst.Attribute)):
        return dotted_name(expression)
    if isinstance(expression, cst.Subscript):
        return _alias_root(expression.value)
    if isinstance(expression, cst.Call) and isinstance(expression.func, cst.Attribute):
        if expression.func.attr.value in _VIEW_METHODS:
            return _alias_root(expression.func.value)
    return None


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def _param_name(expression: cst.BaseExpression) -> str:
    """A parameter name saying what the value is: `norm` for `h.norm()`, `temperature` for
    `self.temperature`, `h` for `h`."""
    parts: list[str] = []
    node: cst.CSTNode | None = expression
    while node is not None:
        if isinstance(node, cst.Name):
            parts.append(node.value)
            node = None
        elif isinstance(node, cst.Attribute):
            parts.append(node.attr.value)
            node = node.value
        elif isinstance(node, cst.Call):
            node = node.func
        elif isinstance(node, cst.Subscript):
            node = node.value
        else:
            node = None
    parts = [part for part in reversed(parts) if part != "self"]
    # What is read, not which variable: `x.mean()` and `z.mean()` make the same call shape.
    if len(parts) > 1 and isinstance(root_expression(expression), cst.Name):
        parts = parts[1:]
    name = "_".join(parts)[:40].strip("_") or "value"
    if not name.isidentifier():
        return "value"
    return f"{name}_value" if name in _BUILTIN_NAMES or keyword.iskeyword(name) else name


def _fresh(base: str, taken: set[str]) -> str:
    name, number = base, 2
    while name in taken:
        name, number = f"{base}{number}", number + 1
    return name


def _slug(callee: str) -> str:
    return re.sub(r"\W+", "_", callee).strip("_")


def _words(call: cst.Call) -> str:
    """The first words of the call's text, for the wrapper's name: "hidden_norm"."""
    for node in iter_nodes(call):
        text = ""
        if isinstance(node, cst.SimpleString):
            text = node.evaluated_value if isinstance(node.evaluated_value, str) else ""
        elif isinstance(node, cst.FormattedStringText):
            text = node.value
        words = re.findall(r"[A-Za-z0-9]+", re.sub(r"%\w|\{[^}]*\}", " ", text))
        if words:
            return "_".join(word.lower() for word in words[:3])[:40]
    return ""
