"""Whether a helper is a pure function of its arguments: what non-strict tracing
(`torch._dynamo.nonstrict_trace`) needs to be sound, as PyTorch's docs state it ("pure functions
can always be compiled via an escape hatch").

Pure here means: no I/O, no `global`/`nonlocal`, no writes to attributes or items of objects it
did not create, no Python randomness or clocks, no reads of tensor values into Python, no reads of
module-level variables (non-strict tracing freezes them as constants), no truth taken of tensor
values, a returned value, and a result that does not depend on the call stack; helpers it calls
in the same module are held to the same. `analysis/tensors.py` answers the narrower question for
one expression (`FunctionValues.impurity`).
"""

from __future__ import annotations

import libcst as cst

from graphweld.analysis.breakers import TENSOR_VALUE_READS, UNTRACEABLE_BREAKERS
from graphweld.analysis.names import is_literal_constant, root_name
from graphweld.analysis.regions import FunctionInfo
from graphweld.analysis.scopes import bound_names, is_scope, loaded_names, parameter_names, target_names
from graphweld.walk import iter_nodes

# Python-level randomness, clocks and interpreter state: non-strict tracing would bake one value
# into the graph.
NONDETERMINISTIC_PREFIXES = ("random.", "time.", "datetime.", "uuid.", "secrets.", "numpy.random.", "os.urandom", "gc.")
# Tensor methods that read values into Python: non-strict tracing bakes them in as constants.
VALUE_READS = TENSOR_VALUE_READS | {"data_ptr"}
# Methods that mutate a Python list, dict or set in place.
CONTAINER_MUTATORS = frozenset({"append", "extend", "insert", "remove", "clear", "update", "setdefault", "popitem", "discard", "pop"})


class HelperPurity:
    """Why a module's helpers are not pure (None where they are), each judged once.

    `context` is the rule's context: the module, its regions and breakers, and its code."""

    def __init__(self, context) -> None:  # type: ignore[no-untyped-def]
        self.context = context
        self._callee_impurities: dict[str, str | None] = {}
        self._module_values: dict[str, bool] | None = None

    def impurity(self, helper: FunctionInfo) -> str | None:
        """Why the helper is not pure in the seed's sense, or None."""
        node = helper.node
        context = self.context
        if node.asynchronous is not None:
            return "it is a coroutine"
        params = parameter_names(node)
        local = bound_names(function_body(node)) - params
        module_values = self._module_variables()
        returns_value = False
        for current in iter_nodes(node.body):
            if isinstance(current, (cst.Global, cst.Nonlocal)):
                return f"it is not pure: it declares `{context.code(current)}`"
            if isinstance(current, (cst.Yield, cst.Await)):
                return "it is a generator" if isinstance(current, cst.Yield) else "it awaits"
            if (
                isinstance(current, cst.Return)
                and current.value is not None
                and not (isinstance(current.value, cst.Name) and current.value.value == "None")
            ):
                returns_value = True
            if isinstance(current, cst.SimpleStatementLine):
                breaker = context.breakers.statement_breaker(current)
                if breaker is not None and breaker.kind in ("io", "logging"):
                    return f"it is not pure: it performs I/O (`{context.code(current)}`)"
            if isinstance(current, cst.Call):
                problem = self._impure_call(current, local)
                if problem is not None:
                    return problem
            if isinstance(current, (cst.If, cst.While, cst.IfExp)) and reduces_to_truth(current.test):
                return (
                    f"it decides on the truth of a tensor reduction (`{context.code(current.test)}`): non-strict "
                    "tracing runs it on tensors without values, and deciding on one fails"
                )
            for target in _written_targets(current):
                root = root_name(target)
                if root is None or root not in local:
                    return f"it is not pure: it writes `{context.code(target)}`, which it did not create"
        for name in sorted(loaded_names([node.body]) - local - params):
            if name in module_values and not module_values[name]:
                return f"it reads module-level `{name}`, which non-strict tracing would freeze as a constant (pass it as an argument)"
        if not returns_value:
            return "it returns nothing, and nonstrict_trace needs its results returned"
        return self._frame_dependence(node)

    def _frame_dependence(self, node: cst.FunctionDef) -> str | None:
        """Whether what the helper returns depends on frame introspection: the call stack is an
        input it does not take as an argument, and non-strict tracing runs it under other callers.
        Follows values through assignments and in-place calls (`stack.append(frame)`), and
        through the branches and loops they control (a `return` inside `if frame...:`)."""
        qualify = self.context.regions.imports.qualify
        sources = [
            n for n in iter_nodes(node.body, prune=is_scope) if isinstance(n, cst.Call) and qualify(n.func) in UNTRACEABLE_BREAKERS
        ]
        if not sources:
            return None
        source_ids = {id(call) for call in sources}
        statements = [n for n in iter_nodes(node.body, prune=is_scope) if isinstance(n, cst.BaseStatement)]
        tainted: set[str] = set()
        controlled: set[int] = set()  # statements inside a branch or loop a tainted value controls

        def depends(expression: cst.CSTNode | None) -> bool:
            if expression is None:
                return False
            if any(id(inner) in source_ids for inner in iter_nodes(expression, prune=is_scope)):
                return True
            return bool(loaded_names([expression]) & tainted)

        def header(statement: cst.BaseStatement) -> list[cst.CSTNode]:
            if isinstance(statement, (cst.If, cst.While)):
                return [statement.test]
            if isinstance(statement, cst.For):
                return [statement.iter]
            if isinstance(statement, cst.With):
                return [item.item for item in statement.items]
            return []

        while True:
            before = (len(tainted), len(controlled))
            for statement in statements:
                inside = id(statement) in controlled
                if isinstance(statement, cst.SimpleStatementLine):
                    for small in statement.body:
                        if isinstance(small, (cst.Assign, cst.AugAssign, cst.AnnAssign)) and (inside or depends(small.value)):
                            tainted |= bound_names([statement])
                        elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
                            call = small.value
                            # `stack.append(frame_info)` puts the value into `stack`.
                            if isinstance(call.func, cst.Attribute) and (inside or any(depends(arg.value) for arg in call.args)):
                                root = root_name(call.func.value)
                                if root is not None:
                                    tainted.add(root)
                elif inside or any(depends(part) for part in header(statement)):
                    tainted |= bound_names([statement])
                    controlled.update(
                        id(n) for n in iter_nodes(statement, prune=is_scope) if isinstance(n, cst.BaseStatement) and n is not statement
                    )
            if (len(tainted), len(controlled)) == before:
                break
        for statement in statements:
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if isinstance(small, cst.Return) and (id(statement) in controlled or depends(small.value)):
                    shown = self.context.code(sources[0])
                    return f"its result depends on the call stack (`{shown}`), which non-strict tracing would freeze"
        return None

    def _impure_call(self, call: cst.Call, local: set[str]) -> str | None:
        context = self.context
        name = context.regions.imports.qualify(call.func) or ""
        if name.startswith(NONDETERMINISTIC_PREFIXES):
            return f"it is not pure: it reads randomness, clocks or process state (`{context.code(call)}`)"
        if isinstance(call.func, cst.Attribute):
            method = call.func.attr.value
            if method in VALUE_READS:
                return f"it reads tensor values into Python (`{context.code(call)}`), which non-strict tracing would freeze as constants"
            root = root_name(call.func.value)
            if method in CONTAINER_MUTATORS and root is not None and root not in local:
                return f"it is not pure: it mutates `{root}` in place (`{context.code(call)}`), which it did not create"
        if _truth_of_comparisons(call, local):
            return (
                f"it takes the Python truth of tensor values (`{context.code(call)}`): non-strict tracing runs it "
                "on tensors without values, where that truth is unknown (GB0251)"
            )
        if isinstance(call.func, cst.Name):
            callee = context.regions.module_function(call.func.value)
            if callee is not None and call.func.value not in local:
                impurity = self._callee_impurity(callee)
                if impurity is not None:
                    return f"it calls `{callee.name}`, which is not fit for it ({impurity})"
        return None

    def _callee_impurity(self, callee: FunctionInfo) -> str | None:
        if callee.name not in self._callee_impurities:
            self._callee_impurities[callee.name] = None  # recursion guard: a cycle counts as pure
            impurity = self.impurity(callee)
            if impurity is not None and impurity.startswith("it returns nothing"):
                impurity = None  # a helper's helper may return nothing
            self._callee_impurities[callee.name] = impurity
        return self._callee_impurities[callee.name]

    def _module_variables(self) -> dict[str, bool]:
        """Module-level names bound by assignment -> whether every value is a literal constant."""
        if self._module_values is None:
            values: dict[str, bool] = {}
            for statement in self.context.module.body:
                if not isinstance(statement, cst.SimpleStatementLine):
                    continue
                for small in statement.body:
                    if isinstance(small, cst.Assign):
                        for target in small.targets:
                            for name in target_names(target.target):
                                values[name] = values.get(name, True) and is_literal_constant(small.value)
                    elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
                        constant = isinstance(small, cst.AnnAssign) and small.value is not None and is_literal_constant(small.value)
                        for name in target_names(small.target):
                            values[name] = values.get(name, True) and constant
            self._module_values = values
        return self._module_values


def _truth_of_comparisons(call: cst.Call, local: set[str]) -> bool:
    """`all(x < y for ...)`, `any(...)` or `bool(...)` of comparisons: Python asks each compared
    value for its truth, a read of tensor values (torchsde's `is_strictly_increasing`); and
    `bool(x.isfinite().all())`, the truth of a tensor reduction."""
    if not isinstance(call.func, cst.Name) or call.func.value not in ("all", "any", "bool") or call.func.value in local:
        return False
    if len(call.args) != 1:
        return False
    argument = call.args[0].value
    if call.func.value == "bool" and reduces_to_truth(argument):
        return True
    if isinstance(argument, (cst.GeneratorExp, cst.ListComp)):
        argument = argument.elt
    return isinstance(argument, cst.Comparison) and not all(
        isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in argument.comparisons
    )


def reduces_to_truth(test: cst.BaseExpression) -> bool:
    """`x.all()`, `mask.any()` (or `not` of one): a tensor reduced to one truth value, which
    Python then asks for (`if x.isfinite().all():`)."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return reduces_to_truth(test.expression)
    return (
        isinstance(test, cst.Call) and isinstance(test.func, cst.Attribute)
        and test.func.attr.value in ("all", "any") and not isinstance(test.func.value, (cst.BaseString, cst.List, cst.Tuple))
    )


def _written_targets(node: cst.CSTNode) -> list[cst.BaseExpression]:
    """Attribute and subscript targets a node writes or deletes."""
    if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.Del)):
        targets = [node.target]
    else:
        return []
    found: list[cst.BaseExpression] = []
    while targets:
        target = targets.pop()
        if isinstance(target, (cst.Tuple, cst.List)):
            targets.extend(element.value for element in target.elements)
        elif isinstance(target, cst.StarredElement):
            targets.append(target.value)
        elif isinstance(target, (cst.Attribute, cst.Subscript)):
            found.append(target)
    return found


def function_body(node: cst.FunctionDef) -> list[cst.BaseStatement]:
    """The statements of a function's indented body (none for a one-line body)."""
    return list(node.body.body) if isinstance(node.body, cst.IndentedBlock) else []
