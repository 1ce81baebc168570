"""equality-shortcut: a shortcut taken when tensors are equal takes the general path while compiling."""

from __future__ import annotations

import re
from typing import Sequence

import libcst as cst

from graphweld.analysis.blocks import block_statements, calls_is_compiling
from graphweld.analysis.names import ImportTable, dotted_name
from graphweld.analysis.tensors import any_of, truth_operands
from graphweld.analysis.scopes import is_nested_function, loaded_names, mentioned_names
from graphweld.rule import Rule, Safety
from graphweld.walk import iter_nodes

# Comparisons that return a Python bool read from tensor values.
_BOOL_COMPARISONS = frozenset({"equal", "allclose"})
# Reductions that turn an elementwise comparison into one boolean tensor.
_REDUCTIONS = frozenset({"all"})
_COMPARE_CALL = re.compile(r"\b(?:equal|allclose)\s*\(")
_ALL_CALL = re.compile(r"\ball\s*\(")
_ANY_CALL = re.compile(r"\bany\s*\(")


class EqualityShortcut(Rule):
    """Take the general path while compiling where a shortcut is chosen by comparing tensor values.

    ## What it fixes
    In a compiled region, a test of whether tensors are equal that picks a cheaper path or skips
    work: `torch.equal(x1, x2)` and `torch.allclose(a, b)` (or their method forms) in an `if`, kept
    in a flag (`x1_eq_x2 = torch.equal(x1, x2)`, GPyTorch's kernels) or passed on as an argument;
    and an `if` on `torch.all(mask == 1)` or `(a == b).all()` (Hugging Face's "the mask keeps every
    position, so drop it").

    The mirror shortcut: `if M.any():` around updates that change nothing where `M` selects
    nothing, so the test only skips work. Each name read after the `if` is rebound to a value equal
    to its own where the mask is false (`x = torch.where(M[..., None], new, x)`, tab-transformer's
    special-token embedding; `x = x.masked_fill(M, v)`; a temporary holding one, botorch's swap of
    bounds `c = torch.where(M, -b, a)` ... `a = c`), each in-place write is `t.masked_fill_(M, v)`
    (the pads of RAG's loss in transformers) or `t[M] = v` (wav2vec2's contrastive logits,
    `logits[1:][neg_is_pos] = float("-inf")`; Ovis2's visual indicator embeddings), and every
    other name it binds is read only inside it. `M` may be broadcast (`M[:, None]`, `M.unsqueeze(-1)`). The general path is the update:
    `if torch.compiler.is_compiling() or M.any():`.

    ## Why the graph breaks
    `torch.equal` and `torch.allclose` return a Python bool computed from the values ("Data
    dependent operator", GB0033), and an `if` on a boolean tensor needs its value ("Data-dependent
    branching", GB0170): Dynamo knows neither while it builds the graph, so it splits it there.

    ## Example
    ```python
    if attention_mask is not None and torch.all(attention_mask == 1):
        attention_mask = None
    x1_eq_x2 = torch.equal(x1, x2)
    ```
    becomes
    ```python
    if attention_mask is not None and (not torch.compiler.is_compiling() and torch.all(attention_mask == 1)):
        attention_mask = None
    x1_eq_x2 = not torch.compiler.is_compiling() and torch.equal(x1, x2)
    ```

    ## Safety
    Unsafe. While compiling, the program goes as if the tensors differed: it takes the general
    path, which is right when the shortcut only saves work (keeping an all-ones mask, computing a
    symmetric product in full) and differs where the equal case means something else (a distance
    matrix whose diagonal the shortcut zeroes exactly, where the general path leaves rounding
    error). Eager runs take the shortcut as before. Tests that guard a `raise` or a warning are
    checks, not shortcuts, and are left alone; so are `while` tests and `elif`s.

    For an `M.any()` shortcut the compiled call always makes the update: its other work runs
    (a module call in it, such as an embedding, runs on every call; one that draws random numbers
    would draw them), `torch.where` broadcasts and promotes (the update must keep the value's shape
    and dtype, as it does when some element is selected), and a parameter used only by the update
    gets a zero gradient where it got none (an optimizer that skips parameters without a gradient
    now steps them: Adam's momentum moves them).
    """

    id = "equality-shortcut"
    reference = "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0033.html"
    summary = "Take the general path while compiling where a shortcut is chosen by comparing tensor values"
    # The README's table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = (
        "`torch.equal(a, b)` / `torch.allclose(a, b)` in an `if`, a flag or an argument, and `if torch.all(mask == 1):`"
        " or `if (a == b).all():` choosing a shortcut, in a compiled region; `if mask.any():` skipping an update"
        " that changes nothing where the mask selects nothing (`x = torch.where(mask, new, x)`, `t.masked_fill_(mask, v)`,"
        " `t[mask] = v`)"
    )
    rewrite = (
        "`(not torch.compiler.is_compiling() and <test>)`: the general path while compiling (for `mask.any()`, "
        "`torch.compiler.is_compiling() or mask.any()`: the update)"
    )
    default = "unsafe: the general path must give what the shortcut gives for equal values"
    trigger_words = ("equal", "allclose", "all", "any")
    needs_breaker_call = False
    node_types = (cst.If, cst.SimpleStatementLine)

    def __init__(self, context) -> None:  # type: ignore[no-untyped-def]
        super().__init__(context)
        # Flags and arguments are only calls of `equal`/`allclose`: lines are not walked in a module
        # that makes none (most modules that say "equal" say it in a name or a comment).
        text = context.text
        self._compares = text is None or (("equal" in text or "allclose" in text) and _COMPARE_CALL.search(text) is not None)
        self._tests = self._compares or text is None or _ALL_CALL.search(text) is not None
        self._anys = text is None or _ANY_CALL.search(text) is not None

    def visit_If(self, node: cst.If) -> None:
        context = self.context
        if id(node) in context.elif_nodes:
            return
        if self._anys and self._any_skips_a_masked_update(node):
            return
        if not self._tests or not self._in_region(node):
            return
        guarded = _guarded(node.test, context.regions.imports)
        truth = truth_operands(node.test)
        tests = [
            test for test in _outermost([n for n in iter_nodes(node.test, prune=is_nested_function) if isinstance(n, cst.Call)], self._is_test, guarded)
            # A boolean tensor becomes False only where just its truth is read (not `.float()` of it).
            if id(test) in truth or self._is_test(test, in_condition=False)
        ]
        # The branches are walked last, and only behind a test (most `if`s compare nothing).
        if not tests or _guards_a_check(node):
            return
        torch_name = context.torch_name()
        if torch_name is None:
            return
        whole = len(tests) == 1 and tests[0] is node.test
        test = node.test.visit(_GeneralPath({id(t) for t in tests}, torch_name, bare=node.test if whole else None))
        self._propose(node, [node.with_changes(test=test)], tests[0])

    def _any_skips_a_masked_update(self, node: cst.If) -> bool:
        """`if M.any():` (or `torch.any(M)`) around updates that leave every value as it was where
        `M` is false: `x = torch.where(M, new, x)`, `t.masked_fill_(M, v)`, and temporaries for
        them, `t[M] = v`. When nothing is selected the updates change nothing, so the test only saves work:
        while compiling the updates run. Proposed here (and True) or left to the other forms."""
        context = self.context
        mask = any_of(node.test, context.regions.imports)
        function = context.current_function
        if node.orelse is not None or mask is None or function is None or not self._in_region(node):
            return False
        values = context.function_values(function)
        if not (values.decides_on_tensor(node.test) or context.branches_on_tensor_per_run(node)):
            return False
        outside = loaded_names([function.body], skip=node)
        if not _only_masked_updates(block_statements(node.body), mask, outside, context.regions.imports):
            return False
        torch_name = context.torch_name()
        if torch_name is None:
            return False
        test = cst.BooleanOperation(
            left=cst.parse_expression(f"{torch_name}.compiler.is_compiling()"), operator=cst.Or(), right=node.test
        )
        message = (
            f"`if {context.code(node.test)}:` reads a tensor's value to skip an update that changes nothing where "
            "the mask selects nothing, which breaks the graph; make the update while compiling (unsafe: the "
            "update's other work now runs on every compiled call, and `torch.where` must keep the value's "
            "shape and dtype)"
        )
        self.propose(node, [node.with_changes(test=test)], anchor=node, message=message, safety=Safety.UNSAFE, form="any")
        return True

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        context = self.context
        if not self._compares or len(node.body) != 1 or isinstance(node.body[0], (cst.Assert, cst.Raise)):
            return
        if not self._in_region(node):
            return
        small = node.body[0]
        guarded = _guarded(small, context.regions.imports)
        calls = [n for n in iter_nodes(small, prune=is_nested_function) if isinstance(n, cst.Call)]
        tests = [n for n in _outermost(calls, lambda c, in_condition: self._is_test(c, in_condition), guarded, in_condition=False) if self._kept_or_passed(small, n)]
        if not tests:
            return
        torch_name = context.torch_name()
        if torch_name is None:
            return
        bare = small.value if isinstance(small, cst.Assign) and small.value is tests[0] else None
        replaced = node.visit(_GeneralPath({id(t) for t in tests}, torch_name, bare=bare))
        self._propose(node, [replaced], tests[0])  # type: ignore[list-item]

    def _propose(self, node: cst.BaseStatement, replacement: Sequence[cst.BaseStatement], test: cst.CSTNode) -> None:
        message = (
            f"`{self.context.code(test)}` compares tensor values to choose a shortcut, which breaks the graph; "
            "take the general path while compiling (unsafe: it must give what the shortcut gives for equal values)"
        )
        self.propose(node, replacement, anchor=node, message=message, safety=Safety.UNSAFE)

    def _in_region(self, statement: cst.CSTNode) -> bool:
        context = self.context
        return context.in_compiled_region or context.breaks_per_run(statement) or context.branches_on_tensor_per_run(statement)

    def _is_test(self, node: cst.CSTNode, in_condition: bool) -> bool:
        """`torch.equal(...)`/`allclose` (any context), or, in a condition, `torch.all(a == b)` / `(a == b).all()`."""
        if not isinstance(node, cst.Call):
            return False
        qualified = self.context.regions.imports.qualify(node.func) or ""
        method = node.func.attr.value if isinstance(node.func, cst.Attribute) else None
        if qualified in ("torch.equal", "torch.allclose"):
            return len(node.args) >= 2
        if method in _BOOL_COMPARISONS:
            # A method of a value (`x1.equal(x2)`), not a function of another library (`tf.equal`).
            return not qualified and len(node.args) >= 1
        if not in_condition:
            return False
        if qualified == "torch.all" and len(node.args) == 1:
            return _is_equality(node.args[0].value)
        if method in _REDUCTIONS and not node.args and isinstance(node.func, cst.Attribute):
            return _is_equality(node.func.value)
        return False

    def _kept_or_passed(self, small: cst.BaseSmallStatement, test: cst.Call) -> bool:
        """Whether a boolean comparison is kept in a name or passed as an argument (a flag for later)."""
        if isinstance(small, cst.Assign):
            return small.value is test and all(isinstance(t.target, cst.Name) for t in small.targets)
        return any(isinstance(n, cst.Arg) and n.value is test for n in iter_nodes(small))


class _GeneralPath(cst.CSTTransformer):
    """Each test `t` becomes `(not torch.compiler.is_compiling() and t)`; unparenthesized when it
    is the whole test or value (`bare`)."""

    def __init__(self, tests: set[int], torch_name: str, bare: cst.CSTNode | None) -> None:
        super().__init__()
        self.tests = tests
        self.torch_name = torch_name
        self.bare = bare

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if id(original_node) not in self.tests:
            return updated_node
        guarded = cst.BooleanOperation(
            left=cst.parse_expression(f"not {self.torch_name}.compiler.is_compiling()"),
            operator=cst.And(),
            right=updated_node,
        )
        if original_node is self.bare:
            return guarded
        return guarded.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _outermost(calls: list[cst.Call], is_test, guarded: set[int], in_condition: bool = True) -> list[cst.Call]:  # type: ignore[no-untyped-def]
    """The tests among `calls`, each widened to the `.item()`/`.bool()` read of it: the whole read
    becomes False while compiling, never the tensor under it."""
    tests = {id(call): call for call in calls if is_test(call, in_condition) and id(call) not in guarded}
    for call in calls:
        if (
            isinstance(call.func, cst.Attribute) and call.func.attr.value in ("item", "bool") and not call.args
            and id(call.func.value) in tests and id(call) not in guarded
        ):
            del tests[id(call.func.value)]
            tests[id(call)] = call
    return list(tests.values())


def _guarded(node: cst.CSTNode, imports: ImportTable) -> set[int]:
    """The nodes already behind `not torch.compiler.is_compiling() and ...` (a second run)."""
    found: set[int] = set()
    for n in iter_nodes(node):
        if (
            isinstance(n, cst.BooleanOperation) and isinstance(n.operator, cst.And)
            and isinstance(n.left, cst.UnaryOperation) and isinstance(n.left.operator, cst.Not)
            and calls_is_compiling(n.left.expression, imports)
        ):
            found |= {id(inner) for inner in iter_nodes(n.right)}
    return found


def _is_equality(node: cst.BaseExpression) -> bool:
    """`a == b` (one comparison) or `a.eq(b)`."""
    if isinstance(node, cst.Comparison):
        return len(node.comparisons) == 1 and isinstance(node.comparisons[0].operator, cst.Equal)
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "eq"


def _guards_a_check(node: cst.If) -> bool:
    """An `if` whose branch raises or warns: a check, not a shortcut."""
    branches = [node.body]
    if isinstance(node.orelse, cst.Else):
        branches.append(node.orelse.body)
    for branch in branches:
        for statement in block_statements(branch):
            for n in iter_nodes(statement):
                if isinstance(n, cst.Raise):
                    return True
                if isinstance(n, cst.Call) and (dotted_name(n.func) or "").split(".")[-1] in ("warn", "warning", "warn_once"):
                    return True
    return False


def _is_mask(node: cst.BaseExpression, mask: str) -> bool:
    """`M` itself, or `M` given size-1 dimensions to broadcast (`M[..., None]`, `M[:, None]`, `M.unsqueeze(-1)`)."""
    if isinstance(node, cst.Name):
        return node.value == mask
    if isinstance(node, cst.Subscript):
        for element in node.slice:
            index = element.slice
            if isinstance(index, cst.Slice):
                if any(part is not None for part in (index.lower, index.upper, index.step)):
                    return False
            elif not (isinstance(index.value, cst.Ellipsis) or (isinstance(index.value, cst.Name) and index.value.value == "None")):
                return False
        return _is_mask(node.value, mask)
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "unsqueeze":
        return _is_mask(node.func.value, mask)
    return False


def _kept_where_false(value: cst.BaseExpression, mask: str, imports: ImportTable, selected: dict[str, str]) -> str | None:
    """The name whose value `value` is wherever the mask is false: `x` for `torch.where(M, new, x)`
    and `x.masked_fill(M, v)`, and for a temporary holding one of those; None otherwise."""
    if isinstance(value, cst.Name):
        return selected.get(value.value)
    if not isinstance(value, cst.Call) or any(arg.star or arg.keyword is not None for arg in value.args):
        return None
    arguments = [arg.value for arg in value.args]
    if imports.qualify(value.func) == "torch.where" and len(arguments) == 3:
        kept = arguments[2]
        return kept.value if _is_mask(arguments[0], mask) and isinstance(kept, cst.Name) else None
    if isinstance(value.func, cst.Attribute) and value.func.attr.value == "masked_fill" and len(arguments) == 2:
        kept = value.func.value
        return kept.value if _is_mask(arguments[0], mask) and isinstance(kept, cst.Name) else None
    return None


def _writes_through(small: cst.BaseSmallStatement, mask: str) -> bool:
    """`t[M] = v`, where the value does not read the mask (the selected elements: a shape known only
    from the data, which the test would not save)."""
    if not (isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Subscript)):
        return False
    target = small.targets[0].target
    index = target.slice[0].slice if len(target.slice) == 1 else None
    return (
        isinstance(index, cst.Index) and isinstance(index.value, cst.Name) and index.value.value == mask
        and mask not in mentioned_names([small.value, target.value])
    )  # fmt: skip


def _only_masked_updates(statements: Sequence[cst.BaseStatement], mask: str, outside: set[str], imports: ImportTable) -> bool:
    """Whether the statements change nothing that outlives them where the mask is false: each
    name read outside them is rebound to a value equal to its own there (`x = torch.where(M, new,
    x)`, or a temporary holding one: botorch's `c = torch.where(M, -b, a)` ... `a = c`), each
    in-place write is `t.masked_fill_(M, v)` or `t[M] = v`, and every other name they bind is read
    only by them."""
    selected: dict[str, str] = {}  # a temporary -> the name whose value it holds where the mask is false
    updates = 0
    for statement in statements:
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            return False
        small = statement.body[0]
        if _writes_through(small, mask):
            updates += 1  # `t[M] = v` changes nothing where M is false (wav2vec2's `logits[1:][neg_is_pos] = -inf`)
            continue
        if isinstance(small, cst.Expr):
            call = small.value
            if not (
                isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and call.func.attr.value == "masked_fill_"
                and len(call.args) == 2 and all(arg.keyword is None and not arg.star for arg in call.args)
                and isinstance(call.func.value, cst.Name) and call.func.value.value != mask and _is_mask(call.args[0].value, mask)
            ):  # fmt: skip
                return False
            updates += 1
            continue
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name)):
            return False
        name = small.targets[0].target.value
        if name == mask:
            return False
        kept = _kept_where_false(small.value, mask, imports, selected)
        # A temporary that holds `name`'s old value no longer holds the name's value.
        selected = {temporary: base for temporary, base in selected.items() if base != name and temporary != name}
        if name not in outside:
            if kept is not None:
                selected[name] = kept
            continue
        if kept != name:
            return False
        updates += 1
    return updates > 0
