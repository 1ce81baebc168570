"""arange-loop: a loop over `torch.arange(...)` whose variable only indexes loops over `range(...)`."""

from __future__ import annotations

import libcst as cst

from graphweld.analysis.blocks import binds_at_module_level, definitions_anchor
from graphweld.analysis.names import ImportTable
from graphweld.analysis.scopes import bound_names, loaded_names, target_names
from graphweld.rule import Rule, Safety
from graphweld.walk import children, iter_nodes

# Integer dtypes: arange's values are whole numbers, as range's are.
_INTEGER_DTYPES = frozenset(
    f"torch.{name}" for name in ("long", "int", "int64", "int32", "int16", "int8", "uint8", "short")
)
# arange's keywords a loop over range can leave out: where its values are kept has no effect on
# the numbers.
_DROPPED_KEYWORDS = frozenset(("device", "dtype"))
_POSITIONS = ("start", "end", "step")
# Methods that give a tensor of the same whole numbers (moved, or made an integer dtype).
_SAME_NUMBERS_METHODS = frozenset(("to", "cuda", "cpu", "long", "int"))
# Arithmetic that gives a number from numbers as it gives a 0-dim tensor from 0-dim tensors of
# the same values (`/` would give a float64 where the tensor gave a float32).
_INDEX_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo)
_ORDERINGS = (cst.LessThan, cst.GreaterThan, cst.LessThanEqual, cst.GreaterThanEqual, cst.Equal, cst.NotEqual)
# Builtins that read a 0-dim integer tensor as the number it holds.
_NUMBER_READERS = frozenset(("int", "range", "operator.index"))
# Tensor methods whose integer arguments may as well be 0-dim tensors (`x.select(0, i)`).
_INTEGER_ARGUMENT_METHODS = frozenset(("select", "narrow"))
# Where a use of the loop variable stands: somewhere a number serves as the tensor did, in the
# test of a branch (compared), or anywhere else (refused).
_NUMBER, _TEST, _OTHER = "number", "test", "other"


class ArangeLoop(Rule):
    """Loop over `range(...)` where a loop over `torch.arange(...)` only uses its variable as an index.

    ## What it fixes
    In a compiled region, `for i in torch.arange(...):` whose variable is only read as a number:
    an index or slice bound (`x[:, t]`, `shifted[:, i:i - n, :]`, `B[..., i] += ...`), arithmetic
    of those (`p[..., i + 1]`), `int(i)`, or compared in a branch's test (`if t > 0:`). A text CNN
    shifts its input by each n-gram offset, a Hawkes process runs its recursion backwards
    (`torch.arange(m - 1, -1, step=-1)`), recurrent cells step through time: the loop becomes
    `for i in range(...)` with the same arguments. A loop over the rows of
    `torch.cartesian_prod(torch.arange(a), torch.arange(b), ...)` whose elements (`index[0]`) or
    unpacked names (`for row, col in ...`) are only read so (Open-Unmix's channel pairs, a grid's
    tiles) becomes `for ... in itertools.product(range(a), range(b), ...)`.

    ## Why the graph breaks
    Iterating a tensor gives 0-dim tensors (a 2-D tensor's rows: 1-D tensors of 0-dim elements),
    and PyTorch reads a 0-dim tensor used as an index, a
    slice bound or a branch's test as a Python number (`aten._local_scalar_dense`, an `.item()`):
    Dynamo cannot know it while tracing ("Data dependent operator", GB0033; `Tensor.item()`,
    GB0124; data-dependent branching, GB0170). The break is inside a loop, so Dynamo skips the
    whole frame and none of it is compiled. `range` gives the same numbers as Python integers,
    which Dynamo unrolls into the graph; `itertools.product` of ranges gives the rows as tuples of
    the same integers, in cartesian_prod's order.

    ## Example
    ```python
    for i in torch.arange(self.ngram):
        shifted_x = torch.zeros((size[0], size[1] + self.ngram, size[2]), device=x.device)
        shifted_x[:, i:i - self.ngram, :] = x
    ```
    becomes
    ```python
    for i in range(self.ngram):
        shifted_x = torch.zeros((size[0], size[1] + self.ngram, size[2]), device=x.device)
        shifted_x[:, i:i - self.ngram, :] = x
    ```

    ## Safety
    Safe: the loop runs over the same whole numbers, and each use taken reads the 0-dim tensor as
    the number it holds, so indexing, slicing, `int()` and the branch taken are the same. Taken
    only when every read of the variable is such a use (in the loop's `else:` too), it is not
    bound again in the loop nor read after it, and `arange` is given positional or `start`/`end`/`step` arguments with at most
    `device` and an integer `dtype` (and is at most moved or made integer after: `.to(device)`,
    `.cuda()`, `.long()`). A variable that goes into a tensor's arithmetic outside an
    index (`idx + i`, which does not break), is passed to a function, printed or kept is left
    alone. Where no use is an index (only `int(i)` or a comparison), the bounds must be whole
    numbers the code shows (literals, sizes, lengths): `torch.arange(0.0, 1.0, 0.25)` gives floats
    that `range` refuses. An index with a float fails in the original already. The rows of
    `cartesian_prod` are taken only for two or more aranges given one by one (with one it gives
    the arange itself), a row read only through `row[k]` (`k` an integer literal) or unpacked into
    as many names as aranges; a row used whole (`index - 1`, `index.tolist()`) is left alone.
    `import itertools` is added where the module lacks it.
    """

    id = "arange-loop"
    reference = "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0033.html"
    summary = "Loop over range(...) where a loop over torch.arange(...) only uses its variable as an index"
    # The README's table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = (
        "`for i in torch.arange(...)` whose variable only indexes, slices, goes into `int()` or a branch's comparison "
        "(n-gram shifts, backward recursions, time steps), or over `torch.cartesian_prod` of aranges whose rows' "
        "elements are read so, in a compiled region"
    )
    rewrite = "`for i in range(...)`, the same arguments; `itertools.product(range(...), ...)` for the rows"
    default = "safe"
    trigger_words = ("arange",)
    needs_breaker_call = False
    node_types = (cst.For,)

    def visit_For(self, node: cst.For) -> None:
        context = self.context
        function = context.current_function
        if function is None or not context.regions.is_compiled(function):
            return
        imports = context.regions.imports
        ranges = _range_arguments(node.iter, imports) if isinstance(node.target, cst.Name) else None
        binding: cst.SimpleStatementLine | None = None
        if ranges is not None:
            all_bounds, names, rows = [ranges], [node.target.value], False  # type: ignore[attr-defined]
        else:
            # `for index in torch.cartesian_prod(torch.arange(a), torch.arange(b)):` gives a row of
            # 0-dim tensors per step: its elements (`index[0]`) or the names it unpacks into are
            # read as numbers, as a loop over one arange's are.
            # Or a name bound to it just before, in the same block, and read only here
            # (Open-Unmix's `indices = torch.cartesian_prod(...)`, `for index in indices:`).
            binding = _bound_only_for(function, node)
            product = _product_arguments(binding.body[0].value if binding else node.iter, imports)  # type: ignore[attr-defined]
            unpacked = None if product is None else _unpacked_names(node.target, len(product))
            if product is None or unpacked is None:
                return
            all_bounds, names, rows = product, unpacked, isinstance(node.target, cst.Name)
        uses: list[tuple[str, bool]] = []
        for name in names:
            # A `for ... else:` reads the last step where the loop ends: it is looked at as the body is.
            found = _uses(node.body, name, rows) + (_uses(node.orelse, name, rows) if node.orelse is not None else [])
            if not found or any(place == _OTHER for place, _ in found):
                return
            if name in bound_names([node.body]) or _read_elsewhere(function, node, name):
                return
            uses += found
        # Without an index, nothing in the original says the bounds are whole numbers.
        if not any(indexing for _, indexing in uses) and not all(_whole_number(b) for bounds in all_bounds for b in bounds):
            return
        range_calls = [cst.Call(func=cst.Name("range"), args=[cst.Arg(value=bound) for bound in bounds]) for bounds in all_bounds]
        extra: list[tuple[cst.CSTNode, list[cst.BaseStatement]]] = []
        if len(range_calls) == 1:
            iterated: cst.BaseExpression = range_calls[0]
            looped = "`range(...)`, the same numbers"
        else:
            iterated = cst.Call(
                func=cst.Attribute(value=cst.Name("itertools"), attr=cst.Name("product")),
                args=[cst.Arg(value=call) for call in range_calls],
            )
            looped = "`itertools.product(range(...), ...)`, the same numbers in the same order"
            if not binds_at_module_level(context.module, "itertools"):
                anchor = definitions_anchor(context.module)
                if anchor is None:
                    return
                extra.append((anchor, [anchor, cst.parse_statement("import itertools\n")]))
        if binding is not None:
            # The name is bound again each time before the loop reads it: one iterator per loop.
            target: cst.CSTNode = binding
            replacement = binding.with_changes(body=[binding.body[0].with_changes(value=iterated)])
            iterated_code = context.code(binding.body[0].value)  # type: ignore[attr-defined]
        else:
            target, replacement, iterated_code = node, node.with_changes(iter=iterated), context.code(node.iter)
        if rows:
            read = f"`{names[0]}`'s elements are read as numbers"
        elif len(names) == 1:
            read = f"`{names[0]}` is read as a number"
        else:
            read = "`" + "`, `".join(names) + "` are read as numbers"
        message = (
            f"`{iterated_code}` gives 0-dim tensors, and {read} (an index, `int()` or a "
            "test), which Dynamo cannot know while tracing (GB0033): the break is in a loop, so the frame is skipped; "
            f"loop over {looped}"
        )
        self.propose(target, [replacement], anchor=node, message=message, safety=Safety.SAFE, extra=extra, resolves=[node])


def _bound_only_for(function: cst.FunctionDef, loop: cst.For) -> cst.SimpleStatementLine | None:
    """`name = <call>`, the last statement before the loop in its block that binds the name the
    loop iterates, when the function mentions that name nowhere else."""
    if not isinstance(loop.iter, cst.Name):
        return None
    name = loop.iter.value
    before = _statements_before(function, loop)
    binding = next((s for s in reversed(before) if name in bound_names([s])), None)
    if (
        not isinstance(binding, cst.SimpleStatementLine)
        or len(binding.body) != 1
        or not isinstance(binding.body[0], cst.Assign)
        or len(binding.body[0].targets) != 1
        or not isinstance(binding.body[0].targets[0].target, cst.Name)
        or not isinstance(binding.body[0].value, cst.Call)
    ):
        return None
    mentions = [n for n in iter_nodes(function.body) if isinstance(n, cst.Name) and n.value == name]
    # The binding's target and the loop's iter, nothing else (no other read, no other binding).
    return binding if len(mentions) == 2 else None


def _statements_before(function: cst.FunctionDef, loop: cst.For) -> list[cst.BaseStatement]:
    """The statements before `loop` in the block that holds it."""
    for node in iter_nodes(function.body):
        if isinstance(node, cst.IndentedBlock):
            for index, statement in enumerate(node.body):
                if statement is loop:
                    return list(node.body[:index])
    return []


def _product_arguments(iterated: cst.BaseExpression, imports: ImportTable) -> list[list[cst.BaseExpression]] | None:
    """The ranges of `torch.cartesian_prod(torch.arange(...), torch.arange(...), ...)`, two or
    more aranges given one by one (with one, cartesian_prod gives the arange itself, not rows)."""
    if not isinstance(iterated, cst.Call) or imports.qualify(iterated.func) != "torch.cartesian_prod" or len(iterated.args) < 2:
        return None
    ranges = []
    for arg in iterated.args:
        bounds = None if arg.star or arg.keyword is not None else _range_arguments(arg.value, imports)
        if bounds is None:
            return None
        ranges.append(bounds)
    return ranges


def _unpacked_names(target: cst.BaseExpression, count: int) -> list[str] | None:
    """The loop's names: one for the row, or one per element unpacked (`for i, j in ...`)."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == count:
        names = [element.value.value for element in target.elements if isinstance(element.value, cst.Name)]
        if len(names) == count and not any(isinstance(element, cst.StarredElement) for element in target.elements):
            return names
    return None


def _row_element(node: cst.Subscript, name: str) -> bool:
    """`name[k]`, `k` an integer literal: one element of a row, a 0-dim tensor."""
    if not isinstance(node.value, cst.Name) or node.value.value != name or len(node.slice) != 1:
        return False
    index = node.slice[0].slice
    if not isinstance(index, cst.Index) or index.star is not None:
        return False
    value = index.value
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
        value = value.expression
    return isinstance(value, cst.Integer)


def _range_arguments(iterated: cst.BaseExpression, imports: ImportTable) -> list[cst.BaseExpression] | None:
    """The start, end and step of `torch.arange(...)` as range takes them (positional), or None
    when the call is something else or passes what range cannot take. The tensor moved or made
    integer first (`torch.arange(n).to(device)`, `.cuda()`, `.long()`) holds the same numbers."""
    while (
        isinstance(iterated, cst.Call)
        and isinstance(iterated.func, cst.Attribute)
        and iterated.func.attr.value in _SAME_NUMBERS_METHODS
        and isinstance(iterated.func.value, cst.Call)
    ):
        iterated = iterated.func.value
    if not isinstance(iterated, cst.Call) or imports.qualify(iterated.func) != "torch.arange":
        return None
    positional: list[cst.BaseExpression] = []
    by_keyword: dict[str, cst.BaseExpression] = {}
    for arg in iterated.args:
        if arg.star:
            return None
        if arg.keyword is None:
            if by_keyword:
                return None
            positional.append(arg.value)
        elif arg.keyword.value in _POSITIONS:
            by_keyword[arg.keyword.value] = arg.value
        elif arg.keyword.value == "dtype":
            if imports.qualify(arg.value) not in _INTEGER_DTYPES:
                return None
        elif arg.keyword.value not in _DROPPED_KEYWORDS:
            return None
    if len(positional) > 3 or any(_is_float(value) for value in (*positional, *by_keyword.values())):
        return None
    if len(positional) == 1 and by_keyword:
        # `arange(end, step=...)` is not a form arange takes; `arange(start, end=..)` is.
        if set(by_keyword) - {"end", "step"} or "end" not in by_keyword:
            return None
        positional = [positional[0], by_keyword.pop("end"), *([by_keyword.pop("step")] if "step" in by_keyword else [])]
    elif not positional:
        if "end" not in by_keyword:
            return None
        start = by_keyword.get("start", cst.Integer("0"))
        positional = [start, by_keyword["end"], *([by_keyword["step"]] if "step" in by_keyword else [])]
    elif len(positional) == 2 and set(by_keyword) == {"step"}:
        positional = [*positional, by_keyword["step"]]
    elif by_keyword:
        return None
    return positional


def _is_float(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.UnaryOperation):
        return _is_float(node.expression)
    if isinstance(node, cst.BinaryOperation):
        return isinstance(node.operator, cst.Divide) or _is_float(node.left) or _is_float(node.right)
    return isinstance(node, cst.Float)


def _whole_number(node: cst.BaseExpression) -> bool:
    """A whole number whatever runs: an integer literal, `len(...)`, a size (`x.shape[0]`,
    `x.size(0)`, `x.numel()`, `x.dim()`, `x.ndim`), and `+ - * // %` of these."""
    if isinstance(node, cst.Integer):
        return True
    if isinstance(node, cst.UnaryOperation):
        return isinstance(node.operator, (cst.Minus, cst.Plus)) and _whole_number(node.expression)
    if isinstance(node, cst.BinaryOperation):
        return isinstance(node.operator, _INDEX_ARITHMETIC) and _whole_number(node.left) and _whole_number(node.right)
    if isinstance(node, cst.Call):
        func = node.func
        if isinstance(func, cst.Name):
            return func.value == "len"
        return isinstance(func, cst.Attribute) and func.attr.value in ("size", "numel", "dim") and bool(node.args) == (func.attr.value == "size")
    if isinstance(node, cst.Subscript):
        return isinstance(node.value, cst.Attribute) and node.value.attr.value == "shape"
    return isinstance(node, cst.Attribute) and node.attr.value == "ndim"


def _uses(body: cst.CSTNode, name: str, rows: bool = False) -> list[tuple[str, bool]]:
    """Each read of `name` in the body (with `rows`, of `name[k]`: `name` is a row and any other
    read of it is `_OTHER`): where it stands (`_NUMBER`, `_TEST` or `_OTHER`), and whether it is in
    a subscript's index (which the original can only take with whole numbers)."""
    found: list[tuple[str, bool]] = []
    stack: list[tuple[cst.CSTNode, str, bool]] = [(body, _OTHER, False)]
    while stack:
        node, place, indexing = stack.pop()
        if rows and isinstance(node, cst.Subscript) and _row_element(node, name):
            found.append((place, indexing))
            continue
        if isinstance(node, cst.Name):
            if rows and node.value == name:
                found.append((_OTHER, False))
                continue
            if node.value == name:
                found.append((place, indexing))
            continue
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            # A closure keeps the variable: whatever it does with it is not looked at here.
            if name in loaded_names([node]):
                found.append((_OTHER, False))
            continue
        stack.extend(_placed_children(node, place, indexing))
    return found


def _placed_children(node: cst.CSTNode, place: str, indexing: bool) -> list[tuple[cst.CSTNode, str, bool]]:
    """The children of `node` with where a value found there would stand."""
    if isinstance(node, cst.SubscriptElement):
        return [(node.slice, _NUMBER, True)]
    if isinstance(node, cst.Subscript):
        return [(node.value, _OTHER, False), *((element, _NUMBER, True) for element in node.slice)]
    if isinstance(node, (cst.Index, cst.Slice)):
        if isinstance(node, cst.Index) and node.star is not None:
            return [(node.value, _OTHER, False)]
        return [(child, place, indexing) for child in children(node)]
    if isinstance(node, cst.BinaryOperation):
        keep = place == _NUMBER and isinstance(node.operator, _INDEX_ARITHMETIC)
        return [(side, place if keep else _OTHER, indexing and keep) for side in (node.left, node.right)]
    if isinstance(node, cst.UnaryOperation):
        if isinstance(node.operator, cst.Not) and place == _TEST:
            return [(node.expression, _TEST, False)]
        keep = place == _NUMBER and isinstance(node.operator, (cst.Minus, cst.Plus))
        return [(node.expression, place if keep else _OTHER, indexing and keep)]
    if isinstance(node, (cst.If, cst.While)):
        rest = [child for child in children(node) if child is not node.test]
        return [(node.test, _TEST, False), *((child, _OTHER, False) for child in rest)]
    if isinstance(node, cst.IfExp):
        return [(node.test, _TEST, False), (node.body, _OTHER, False), (node.orelse, _OTHER, False)]
    if isinstance(node, cst.Assert):
        return [(node.test, _TEST, False), *(([(node.msg, _OTHER, False)]) if node.msg is not None else [])]
    if isinstance(node, cst.BooleanOperation):
        inner = _TEST if place == _TEST else _OTHER
        return [(node.left, inner, False), (node.right, inner, False)]
    if isinstance(node, cst.Comparison):
        ordered = place == _TEST and all(isinstance(part.operator, _ORDERINGS) for part in node.comparisons)
        inner = _NUMBER if ordered else _OTHER
        return [(node.left, inner, False), *((part.comparator, inner, False) for part in node.comparisons)]
    if isinstance(node, cst.Call):
        return _call_children(node)
    if isinstance(node, cst.Attribute):
        return [(node.value, _OTHER, False)]
    return [(child, _OTHER, False) for child in children(node)]


def _call_children(call: cst.Call) -> list[tuple[cst.CSTNode, str, bool]]:
    func = call.func
    reads_number = isinstance(func, cst.Name) and func.value in _NUMBER_READERS
    method = isinstance(func, cst.Attribute) and func.attr.value in _INTEGER_ARGUMENT_METHODS
    placed: list[tuple[cst.CSTNode, str, bool]] = [(func.value if isinstance(func, cst.Attribute) else func, _OTHER, False)]
    for arg in call.args:
        # `x.select(dim, i)` and `x.narrow(dim, i, n)` take their integers as an index does.
        as_number = not arg.star and arg.keyword is None and (reads_number or method)
        placed.append((arg.value, _NUMBER if as_number else _OTHER, as_number and method))
    return placed


def _read_elsewhere(function: cst.FunctionDef, loop: cst.For, name: str) -> bool:
    """Whether the function reads `name` outside the loop: after it, the variable would hold the
    last number instead of the last 0-dim tensor. Loops that bind it again read their own (only
    what they iterate is looked at). Attribute and keyword names are not reads."""
    stack: list[cst.CSTNode] = [function.body]
    while stack:
        node = stack.pop()
        if node is loop:
            continue
        if isinstance(node, cst.Name):
            if node.value == name:
                return True
        elif isinstance(node, cst.For) and name in set(target_names(node.target)):
            stack.append(node.iter)
        elif isinstance(node, (cst.Attribute, cst.Arg)):
            stack.append(node.value)
        else:
            stack.extend(children(node))
    return False
