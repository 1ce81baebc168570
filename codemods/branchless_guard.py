"""branchless-guard: a repair behind a test for inf/NaN values becomes branchless."""

from __future__ import annotations

import libcst as cst

from graphweld.analysis.blocks import block_statements
from graphweld.cst_fast import call_code, source
from graphweld.rule import Rule, Safety
from graphweld.walk import iter_nodes

# Value tests whose result is one boolean (a 0-dim tensor): `torch.isinf(x).any()`.
_DETECTORS = frozenset(("isinf", "isnan", "isposinf", "isneginf"))
# Repairs that keep their input's shape and dtype when the bounds are numbers.
_REPAIRS = frozenset(("clamp", "clip", "nan_to_num"))


class BranchlessGuard(Rule):
    """Make a repair behind a test for inf/NaN values branchless.

    ## What it fixes
    In a compiled region, an `if` that tests a tensor for inf or NaN values (`torch.isinf(h).any()`,
    `torch.isnan(h).any()`, joined with `or`/`and`, optionally after tests on dtypes) and then
    repairs one tensor with `torch.clamp`, `clip` or `torch.nan_to_num` with number bounds (names
    bound in the branch from `torch.finfo(...)` included). This is Hugging Face's fp16 idiom in the
    BART, Whisper, Marian, Pegasus and Blenderbot families.

    ## Why the graph breaks
    `torch.isinf(h).any()` is a tensor; deciding on it in Python needs its value, which Dynamo does
    not know while it builds the graph ("Data-dependent branching", GB0170, whose hint is to make
    the code branchless). A test on `h.dtype` is known while tracing and does not break.

    ## Example
    ```python
    if hidden_states.dtype == torch.float16 and (
        torch.isinf(hidden_states).any() or torch.isnan(hidden_states).any()
    ):
        clamp_value = torch.finfo(hidden_states.dtype).max - 1000
        hidden_states = torch.clamp(hidden_states, min=-clamp_value, max=clamp_value)
    ```
    becomes
    ```python
    if hidden_states.dtype == torch.float16:
        clamp_value = torch.finfo(hidden_states.dtype).max - 1000
        hidden_states = torch.where(
            torch.isinf(hidden_states).any() | torch.isnan(hidden_states).any(),
            torch.clamp(hidden_states, min=-clamp_value, max=clamp_value),
            hidden_states,
        )
    ```
    When the repair is the identity on every value the test lets through, the repair itself is
    enough: `torch.clamp(h, min=torch.finfo(h.dtype).min, max=torch.finfo(h.dtype).max)` behind
    `torch.isinf(h).any()` changes nothing in a tensor without infinities (clamp keeps NaN), so
    it becomes the unconditional clamp.

    ## Safety
    Safe. The test is one boolean, and the repair with number bounds returns a tensor of its
    input's shape and dtype, so `torch.where` returns exactly what the branch left in the name; the
    repair is computed on every input, which has no effect beyond its cost. The unconditional form
    is used only for the clamp to the dtype's own finite range behind an infinity test, where the
    identity holds for every finite value and NaN. Names bound in the branch are bound on every
    input afterwards (the rule requires them to be numbers computed from `torch.finfo`, literals
    or other such names). Tests on dtypes stay a Python `if`. Anything else in the branch, other
    tests, or a repair that is not of the tested tensor's kind is left alone.
    """

    id = "branchless-guard"
    reference = "https://docs.pytorch.org/docs/stable/generated/torch.where.html"
    summary = "Make a repair behind a test for inf/NaN values branchless"
    # The README's table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = (
        "`if <dtype tests> and torch.isinf(h).any() or ...: h = torch.clamp(h, ...)` (also `clip`, "
        "`nan_to_num`, with number bounds): a repair behind a test for inf/NaN values, Hugging Face's fp16 "
        "idiom"
    )
    rewrite = (
        "keep the dtype tests as the `if`, and select the repair with `torch.where(test, repair, h)`; a clamp"
        " to the dtype's own finite range behind an infinity test becomes the plain clamp"
    )
    default = "safe"
    trigger_words = ("isinf", "isnan", "isposinf", "isneginf")
    needs_breaker_call = False
    node_types = (cst.If,)

    def visit_If(self, node: cst.If) -> None:
        context = self.context
        if node.orelse is not None or id(node) in context.elif_nodes or not context.in_compiled_region:
            return
        torch_name = context.regions.imports.local_name("torch")
        if torch_name is None:
            return
        static, detectors, joiner = _split_test(node.test, torch_name)
        if not detectors:
            return
        statements = block_statements(node.body)
        if not statements or not all(isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1 for s in statements):
            return
        *helpers, last = [s.body[0] for s in statements]  # type: ignore[attr-defined]
        helper_names: set[str] = set()
        for helper in helpers:
            if not (isinstance(helper, cst.Assign) and len(helper.targets) == 1 and isinstance(helper.targets[0].target, cst.Name)):
                return
            if not _is_number(helper.value, torch_name, helper_names):
                return
            helper_names.add(helper.targets[0].target.value)
        repaired = _repair_target(last, torch_name, helper_names)
        if repaired is None:
            return
        # The test now runs after the helpers: they must not rebind what it reads.
        if helper_names & {n.value for n in iter_nodes(node.test) if isinstance(n, cst.Name)}:
            return
        module = context.module
        target = source(repaired, module)
        repair = source(last.value, module)  # type: ignore[attr-defined]
        test = f" {joiner} ".join(source(d, module) for d in detectors)
        if joiner == "|" and _is_identity_elsewhere(last.value, detectors, target, torch_name, module):  # type: ignore[attr-defined]
            assignment = f"{target} = {repair}"
        else:
            assignment = call_code(f"{torch_name}.where", [test, repair, target], 88, prefix=f"{target} = ")
        body = [*statements[:-1], cst.parse_statement(assignment + "\n").with_changes(leading_lines=statements[-1].leading_lines)]
        if static:
            replacement: list[cst.BaseStatement] = [
                node.with_changes(
                    test=cst.parse_expression(" and ".join(source(_bare(test), module) for test in static)),
                    body=node.body.with_changes(body=body),  # type: ignore[attr-defined]
                )
            ]
        else:
            body[0] = body[0].with_changes(leading_lines=(*node.leading_lines, *body[0].leading_lines))
            replacement = body
        message = (
            f"branch on `{context.code(node.test)}` tests tensor values and breaks the graph; "
            "repair branchlessly"
        )
        self.propose(node, replacement, anchor=node, message=message, safety=Safety.SAFE)


def _operands(test: cst.BaseExpression, operator: type) -> list[cst.BaseExpression]:
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, operator) and not test.lpar:
        return [*_operands(test.left, operator), *_operands(test.right, operator)]
    return [test]


def _bare(node: cst.BaseExpression) -> cst.BaseExpression:
    return node.with_changes(lpar=(), rpar=()) if getattr(node, "lpar", ()) else node


def _split_test(
    test: cst.BaseExpression, torch_name: str
) -> tuple[list[cst.BaseExpression], list[cst.BaseExpression], str]:
    """The dtype tests (kept in Python), the value detectors, and how the detectors combine:
    "|" (any of them: one `or` group) or "&" (all: detectors joined by `and`). No detectors when
    the test has another shape."""
    static: list[cst.BaseExpression] = []
    groups: list[list[cst.BaseExpression]] = []
    for operand in _operands(test, cst.And):
        if _is_dtype_test(operand):
            static.append(operand)
        elif _is_detector(operand, torch_name):
            groups.append([_bare(operand)])
        elif _is_detector_group(operand, cst.Or):
            inner = _operands(_bare(operand), cst.Or)
            if not all(_is_detector(d, torch_name) for d in inner):
                return [], [], ""
            groups.append([_bare(d) for d in inner])
        else:
            return [], [], ""
    if len(groups) == 1:
        return static, groups[0], "|"
    if groups and all(len(group) == 1 for group in groups):
        return static, [group[0] for group in groups], "&"
    return [], [], ""


def _is_detector_group(node: cst.BaseExpression, operator: type) -> bool:
    bare = _bare(node)
    return isinstance(bare, cst.BooleanOperation) and isinstance(bare.operator, operator)


def _is_detector(node: cst.BaseExpression, torch_name: str) -> bool:
    """`torch.isinf(x).any()` or `x.isinf().any()` (also isnan, isposinf, isneginf)."""
    node = _bare(node)
    if not (isinstance(node, cst.Call) and not node.args and isinstance(node.func, cst.Attribute) and node.func.attr.value == "any"):
        return False
    inner = node.func.value
    if not isinstance(inner, cst.Call) or not isinstance(inner.func, cst.Attribute) or inner.func.attr.value not in _DETECTORS:
        return False
    owner = inner.func.value
    if isinstance(owner, cst.Name) and owner.value == torch_name:
        return len(inner.args) == 1 and inner.args[0].keyword is None and not inner.args[0].star
    return not inner.args


def _is_dtype_test(node: cst.BaseExpression) -> bool:
    """`x.dtype == torch.float16` (a value Dynamo knows while tracing)."""
    node = _bare(node)
    if not isinstance(node, cst.Comparison) or len(node.comparisons) != 1:
        return False
    if not isinstance(node.comparisons[0].operator, (cst.Equal, cst.NotEqual, cst.Is, cst.IsNot)):
        return False
    sides = (node.left, node.comparisons[0].comparator)
    return any(isinstance(side, cst.Attribute) and side.attr.value == "dtype" for side in sides)


def _is_number(node: cst.BaseExpression, torch_name: str, names: set[str]) -> bool:
    """A Python number: literals, names bound to numbers, `torch.finfo(...).max`/`.min`/`.eps`."""
    if isinstance(node, (cst.Integer, cst.Float)):
        return True
    if isinstance(node, cst.Name):
        return node.value in names
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        return _is_number(node.expression, torch_name, names)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.Divide)):
        return _is_number(node.left, torch_name, names) and _is_number(node.right, torch_name, names)
    if isinstance(node, cst.Attribute) and node.attr.value in ("max", "min", "eps", "tiny"):
        call = node.value
        return (
            isinstance(call, cst.Call)
            and isinstance(call.func, cst.Attribute)
            and isinstance(call.func.value, cst.Name)
            and call.func.value.value == torch_name
            and call.func.attr.value in ("finfo", "iinfo")
        )
    return False


def _repair_target(statement: cst.BaseSmallStatement, torch_name: str, numbers: set[str]) -> cst.BaseExpression | None:
    """The tensor `x` of `x = torch.clamp(x, min=..., max=...)` (or `x.clamp(...)`, `clip`,
    `nan_to_num`) with number bounds; None for anything else."""
    if not (isinstance(statement, cst.Assign) and len(statement.targets) == 1 and isinstance(statement.value, cst.Call)):
        return None
    target, call = statement.targets[0].target, statement.value
    if not isinstance(target, (cst.Name, cst.Attribute)) or not isinstance(call.func, cst.Attribute):
        return None
    if call.func.attr.value not in _REPAIRS:
        return None
    owner = call.func.value
    if isinstance(owner, cst.Name) and owner.value == torch_name:
        if not call.args or call.args[0].keyword is not None:
            return None
        tensor, bounds = call.args[0].value, call.args[1:]
    else:
        tensor, bounds = owner, call.args
    if not tensor.deep_equals(target):
        return None
    if not all(not arg.star and _is_number(arg.value, torch_name, numbers) for arg in bounds):
        return None
    return target


def _is_identity_elsewhere(
    repair: cst.Call, detectors: list[cst.BaseExpression], target: str, torch_name: str, module: cst.Module
) -> bool:
    """Whether the repair changes nothing the test lets through: a clamp to the dtype's own finite
    range, behind a test (any of) that includes infinities in the repaired tensor. Without an
    infinity every value is finite (or NaN, which clamp keeps)."""
    tested = {source(d, module) for d in detectors}
    if not tested & {f"{torch_name}.isinf({target}).any()", f"{target}.isinf().any()"}:
        return False
    if not isinstance(repair.func, cst.Attribute) or repair.func.attr.value not in ("clamp", "clip"):
        return False
    bounds = {arg.keyword.value: source(arg.value, module) for arg in repair.args if arg.keyword is not None}
    finfo = f"{torch_name}.finfo({target}.dtype)"
    return bounds.get("max") == f"{finfo}.max" and bounds.get("min") in (f"{finfo}.min", f"-{finfo}.max")
