"""scalar-tensor-index: a 0-dim integer tensor used as an index is indexed as a one-element index."""

from __future__ import annotations

import libcst as cst

from graphweld.analysis.names import ImportTable
from graphweld.analysis.scopes import is_nested_function, target_names
from graphweld.analysis.tensors import FunctionValues
from graphweld.rule import Rule, Safety
from graphweld.walk import iter_nodes

# Calls that return integer tensors (indices): what an interval search or a pick returns.
_INTEGER_FUNCTIONS = frozenset(
    ("torch.bucketize", "torch.searchsorted", "torch.argmax", "torch.argmin", "torch.argsort", "torch.randint", "torch.multinomial")
)
_INTEGER_METHODS = frozenset(("argmax", "argmin", "argsort", "long", "int"))
# Tensor methods that keep an integer tensor integer (with integer or tensor arguments).
_KEEPING_METHODS = frozenset(
    ("sub", "add", "clamp", "clip", "clamp_min", "clamp_max", "detach", "remainder", "fmod", "squeeze", "reshape", "view", "flatten", "abs", "neg")
)
# Operators whose operands are read as values: the indexed result goes into arithmetic and is
# never written to, so a copy serves as well as the view the original read.
_ARITHMETIC_PARENTS = (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.ComparisonTarget)


class ScalarTensorIndex(Rule):
    """Index with a one-element tensor where a 0-dim integer tensor indexes (an interval search).

    ## What it fixes
    In a compiled region, a subscript whose index is an integer tensor that a run saw break the
    graph there: the interval an interpolation finds for a time, `index =
    torch.bucketize(t, knots) - 1` then `knots[index]` and `coeffs[..., index, :]` (torchcde's
    splines and their many copies), or a dense ODE output's `idx = torch.searchsorted(times, t)`
    then `times[idx - 1]` (torchdiffeq). The index gets a dimension of size 1, first (`index[None]`)
    or, after a `...`, last (`index[..., None]`), and the dimension that adds to the result is
    squeezed away: `knots[index[None]].squeeze(0)`, `coeffs[..., index[..., None], :].squeeze(-2)`.

    ## Why the graph breaks
    PyTorch reads a 0-dim integer tensor used as an index as a Python number, to select one row
    (`aten._local_scalar_dense`, an `.item()`): Dynamo cannot know the number while tracing
    ("Data dependent operator", GB0033) and breaks the graph, at every call of the interpolation
    inside the solver's step. An index with one dimension is advanced indexing (a gather), whose
    result has a shape known from the shapes alone, so it traces into the graph. The squeeze takes
    away only the dimension the rewrite added, so the result has the original's shape for an
    index of any shape (a batch of times as well as one).

    ## Example
    ```python
    def _interpret_t(self, t):
        index = torch.bucketize(t.detach(), self._t.detach()).sub(1).clamp(0, maxlen)
        fractional_part = t - self._t[index]
        return fractional_part, index
    ```
    becomes
    ```python
    def _interpret_t(self, t):
        index = torch.bucketize(t.detach(), self._t.detach()).sub(1).clamp(0, maxlen)
        fractional_part = t - self._t[index[None]].squeeze(0)
        return fractional_part, index
    ```

    ## Safety
    Safe where the indexed result goes straight into arithmetic (`t - knots[index]`): the same
    values and gradients for every index the original accepts. Elsewhere unsafe, so only applied
    with `--unsafe-fixes`: indexing with a 0-dim tensor returned a view of the tensor, indexing with
    a one-element tensor returns a copy, so a write into the result no longer reaches the tensor.
    Taken only where a run (`fix --entry`) saw a break on the statement's line, on an index that is
    a name (or a name plus or minus a whole number) bound in the function by an integer search or
    pick (`bucketize`, `searchsorted`, `argmax`, ...) and integer arithmetic on it, or unpacked from
    a call's result (a helper returning the interval); the other parts of the subscript must be
    slices and at most one `...`. Left alone: a subscript assigned to or deleted, an index that
    is a parameter, a loop variable or a mask (a comparison, `isnan`, `bool()`).
    """

    id = "scalar-tensor-index"
    reference = "https://docs.pytorch.org/docs/stable/compile/programming_model.graph_breaks_index.html"
    summary = "Index with a one-element tensor where a 0-dim integer tensor indexes (an interval search)"
    # The README's table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = (
        "`knots[index]`, `coeffs[..., index, :]` where `index` is an integer tensor from `bucketize`, "
        "`searchsorted`, `argmax` (or unpacked from a helper's result) and a run saw the line break: a "
        "0-dim index read as a number (torchcde's splines, torchdiffeq's dense output)"
    )
    rewrite = (
        "index with a one-element index and squeeze the dimension that adds: `knots[index[None]].squeeze(0)`, "
        "`coeffs[..., index[..., None], :].squeeze(-2)`"
    )
    default = "safe where the result goes into arithmetic; unsafe elsewhere (a copy where the original read a view)"
    trigger_words = ("argmax", "argmin", "argsort", "bucketize", "long", "multinomial", "randint", "searchsorted")
    needs_breaker_call = False
    node_types = (cst.SimpleStatementLine,)

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        context = self.context
        function = context.current_function
        if function is None or not context.evidence.break_lines or not context.breaks_per_run(node):
            return
        values = context.function_values(function)
        indices = _IndexNames(function, values, context.regions.imports)
        written = {id(n) for small in node.body for n in _written_subscripts(small)}
        found: dict[int, tuple[int, str]] = {}  # subscript -> (its index element's position, the index's name)
        arithmetic: set[int] = set()
        for small in node.body:
            for parent in iter_nodes(small, prune=is_nested_function):
                if isinstance(parent, _ARITHMETIC_PARENTS):
                    arithmetic.update(id(child) for child in _operands(parent))
                if isinstance(parent, cst.Subscript) and id(parent) not in written:
                    picked = _scalar_index(parent, indices)
                    if picked is not None:
                        found[id(parent)] = picked
        if not found:
            return
        replacement = node.visit(_OneElementIndex(found))
        safe = all(key in arithmetic for key in found)
        names = sorted({name for _, name in found.values()})
        shown = ", ".join(f"`{name}`" for name in names)
        message = (
            f"indexing with the integer tensor {shown} breaks the graph where it has no dimension (PyTorch reads it as a "
            "number, GB0033): index with a one-element tensor and squeeze the dimension it adds"
            + ("" if safe else " (unsafe: the result is a copy where the original read a view)")
        )
        self.propose(node, [replacement], anchor=node, message=message, safety=Safety.SAFE if safe else Safety.UNSAFE)  # type: ignore[list-item]


def _operands(node: cst.CSTNode) -> tuple[cst.CSTNode, ...]:
    if isinstance(node, cst.BinaryOperation):
        return (node.left, node.right)
    if isinstance(node, cst.UnaryOperation):
        return (node.expression,)
    if isinstance(node, cst.Comparison):
        return (node.left,)
    if isinstance(node, cst.ComparisonTarget):
        return (node.comparator,)
    return ()


def _written_subscripts(small: cst.BaseSmallStatement) -> list[cst.CSTNode]:
    """Subscripts the statement assigns to or deletes (with the subscripts inside those targets)."""
    targets: list[cst.CSTNode] = []
    if isinstance(small, cst.Assign):
        targets = [t.target for t in small.targets]
    elif isinstance(small, (cst.AugAssign, cst.AnnAssign)):
        targets = [small.target]
    elif isinstance(small, cst.Del):
        targets = [small.target]
    return [n for target in targets for n in iter_nodes(target) if isinstance(n, cst.Subscript)]


class _IndexNames:
    """Which names of a function are integer tensors an index may be (answered once per name)."""

    def __init__(self, function: cst.FunctionDef, values: FunctionValues, imports: ImportTable) -> None:
        self.function, self.values, self.imports = function, values, imports
        self._known: dict[str, bool] = {}

    def is_index(self, name: str) -> bool:
        if name not in self._known:
            self._known[name] = self._bound_as_index(name)
        return self._known[name]

    def _bound_as_index(self, name: str) -> bool:
        if name in self.values.parameters:
            return False
        bound = False
        for node in iter_nodes(self.function.body, prune=is_nested_function):
            if isinstance(node, cst.Assign):
                for target in node.targets:
                    if isinstance(target.target, cst.Name):
                        if target.target.value == name:
                            if not self.is_integer(node.value):
                                return False
                            bound = True
                    elif name in target_names(target.target):
                        # Unpacked from a call's result (`fraction, index = self._interpret_t(t)`):
                        # what the run saw break there says it is an index tensor.
                        if not (isinstance(target.target, (cst.Tuple, cst.List)) and isinstance(node.value, cst.Call)):
                            return False
                        if not any(isinstance(e.value, cst.Name) and e.value.value == name for e in target.target.elements):
                            return False
                        bound = True
            elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.Del, cst.NamedExpr)):
                if name in target_names(node.target):
                    return False
            elif isinstance(node, (cst.For, cst.CompFor)) or isinstance(node, cst.AsName):
                target = node.name if isinstance(node, cst.AsName) else node.target
                if name in target_names(target):  # type: ignore[arg-type]
                    return False
            elif isinstance(node, (cst.Global, cst.Nonlocal)) and any(item.name.value == name for item in node.names):
                return False
        return bound

    def is_integer(self, node: cst.BaseExpression, depth: int = 0) -> bool:
        """Whether the expression is an integer tensor: an integer search or pick, and integer
        arithmetic on one."""
        if depth > 20:
            return False
        if isinstance(node, cst.Name):
            value = self.values.single_value(node.value)
            return value is not None and self.is_integer(value, depth + 1)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Add, cst.Subtract)):
            left, right = node.left, node.right
            return (self.is_integer(left, depth + 1) and isinstance(right, cst.Integer)) or (
                isinstance(left, cst.Integer) and self.is_integer(right, depth + 1)
            )
        if not isinstance(node, cst.Call):
            return False
        if self.imports.qualify(node.func) in _INTEGER_FUNCTIONS:
            return True
        func = node.func
        if not isinstance(func, cst.Attribute):
            return False
        method = func.attr.value
        if method in _INTEGER_METHODS:
            return True
        if method in _KEEPING_METHODS:
            if any(isinstance(arg.value, (cst.Float, cst.Imaginary)) for arg in node.args):
                return False
            return self.is_integer(func.value, depth + 1)
        return False


def _index_name(element: cst.BaseExpression, indices: _IndexNames) -> str | None:
    """The index's name for `name` or `name ± whole number`, when the name is an index tensor."""
    if isinstance(element, cst.BinaryOperation) and isinstance(element.operator, (cst.Add, cst.Subtract)):
        if isinstance(element.right, cst.Integer) and isinstance(element.left, cst.Name):
            element = element.left
        elif isinstance(element.left, cst.Integer) and isinstance(element.right, cst.Name) and isinstance(element.operator, cst.Add):
            element = element.right
    if isinstance(element, cst.Name) and indices.is_index(element.value):
        return element.value
    return None


def _scalar_index(subscript: cst.Subscript, indices: _IndexNames) -> tuple[int, str] | None:
    """Where the subscript's index tensor is among its elements, and its name: one such index,
    the other elements slices and at most one `...`."""
    found: tuple[int, str] | None = None
    ellipses = 0
    for position, element in enumerate(subscript.slice):
        part = element.slice
        if isinstance(part, cst.Slice):
            continue
        value = part.value  # type: ignore[union-attr]
        if isinstance(value, cst.Ellipsis):
            ellipses += 1
            continue
        name = _index_name(value, indices)
        if name is None or found is not None:
            return None
        found = (position, name)
    return found if ellipses <= 1 else None


class _OneElementIndex(cst.CSTTransformer):
    """`x[i]` becomes `x[i[None]].squeeze(0)`, `x[..., i, :]` becomes `x[..., i[..., None], :].squeeze(-2)`:
    the index gets a dimension of size 1, and the dimension that adds to the result is squeezed."""

    def __init__(self, found: dict[int, tuple[int, str]]) -> None:
        self.found = found

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        picked = self.found.get(id(original))
        if picked is None:
            return updated
        position = picked[0]
        elements = list(updated.slice)
        element = elements[position]
        index = element.slice.value  # type: ignore[union-attr]
        if not isinstance(index, (cst.Name, cst.Subscript, cst.Attribute, cst.Call)) and not index.lpar:
            index = index.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        before = original.slice[:position]
        after = original.slice[position + 1 :]
        if any(isinstance(e.slice, cst.Index) and isinstance(e.slice.value, cst.Ellipsis) for e in before):
            # After a `...` the dimensions are counted from the end: a last dimension of size 1 on
            # the index (`index[..., None]`) lands just before the slices after it.
            added = [cst.SubscriptElement(cst.Index(cst.Ellipsis())), cst.SubscriptElement(cst.Index(cst.Name("None")))]
            dim = f"-{len(after) + 1}"
        else:
            # Counted from the front: a first dimension of size 1 (`index[None]`) lands after the
            # slices before it.
            added = [cst.SubscriptElement(cst.Index(cst.Name("None")))]
            dim = str(len(before))
        one_element = cst.Subscript(index, added)
        elements[position] = element.with_changes(slice=cst.Index(one_element))
        squeeze = cst.parse_expression(f"_.squeeze({dim})")
        return squeeze.with_changes(func=squeeze.func.with_changes(value=updated.with_changes(slice=elements)))  # type: ignore[attr-defined]
