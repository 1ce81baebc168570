"""layerdrop-guard: decide on the probability before comparing a random draw with it."""

from __future__ import annotations

import libcst as cst

from graphweld.analysis.names import dotted_name
from graphweld.analysis.scopes import fresh_name, mentioned_names
from graphweld.analysis.tensors import FunctionValues, conjuncts, truth_operands
from graphweld.cst_fast import source
from graphweld.rule import Rule, Safety
from graphweld.walk import iter_nodes

# Functions that draw uniformly from [0, 1) (torch's, Python's, NumPy's): never below 0.
_UNIFORM_DRAWS = frozenset((
    "torch.rand", "torch.rand_like", "random.random", "numpy.random.rand", "numpy.random.random",
    "numpy.random.random_sample",
))
# Draws from [low, high]: uniform from [0, 1] when called with (0, 1) (NumPy's also with no bounds).
_BOUNDED_DRAWS = frozenset(("random.uniform", "numpy.random.uniform"))


def _is_uniform_draw(node: cst.CSTNode, qualify) -> bool:  # type: ignore[no-untyped-def]
    """A draw that is never below 0: `torch.rand([])`, `torch.rand(1).item()`, `random.random()`,
    `random.uniform(0, 1)`, `np.random.uniform(0, 1)`, `np.random.rand()`."""
    if not isinstance(node, cst.Call):
        return False
    if isinstance(node.func, cst.Attribute) and node.func.attr.value == "item" and not node.args:
        return isinstance(node.func.value, cst.Call) and qualify(node.func.value.func) in ("torch.rand", "torch.rand_like")
    qualified = qualify(node.func)
    if qualified in _UNIFORM_DRAWS:
        return True
    if qualified in _BOUNDED_DRAWS:
        bounds = [arg.value for arg in node.args if arg.keyword is None]
        if not bounds and qualified.startswith("numpy."):
            return not node.args
        return (
            len(node.args) == 2 and len(bounds) == 2
            and all(isinstance(b, (cst.Integer, cst.Float)) for b in bounds)
            and (float(bounds[0].value), float(bounds[1].value)) == (0.0, 1.0)  # type: ignore[attr-defined]
        )
    return False


class LayerdropGuard(Rule):
    """Decide on the probability before comparing a random draw with it (LayerDrop).

    ## What it fixes
    In a compiled region, an `if` whose test compares a draw from `torch.rand` (uniform in
    [0, 1)), bound to a name earlier in the function, with a probability that is a plain value
    (`self.layerdrop`, `self.config.layerdrop`, a name): LayerDrop (`if dropout_probability <
    self.layerdrop: continue`) and other draws guarded by a rate. It runs in training only, so
    Dynamo reports it when a training step is compiled (`graphweld explain --train`).

    ## Why the graph breaks
    The draw is a tensor; comparing it with the probability is a tensor too, and deciding on it
    in Python needs its value, which Dynamo does not know while it builds the graph
    ("Data-dependent branching", GB0170; inside a loop over layers, the whole frame is skipped).
    It breaks even when the probability is 0, the default of most configs, where the branch can
    never be taken.

    ## Example
    ```python
    for layer in self.layers:
        if self.training:
            dropout_probability = torch.rand([])
            if dropout_probability < self.layerdrop:
                continue
        hidden_states = layer(hidden_states)
    ```
    becomes
    ```python
    for layer in self.layers:
        if self.training:
            dropout_probability = torch.rand([])
            if self.layerdrop > 0 and dropout_probability < self.layerdrop:
                continue
        hidden_states = layer(hidden_states)
    ```
    `self.layerdrop > 0` is a Python number's comparison, known while tracing: with a probability
    of 0, Dynamo never compares the draw, and the loop compiles. With a positive probability the
    branch really depends on the draw, and the break stays.

    The draw may be any that is never below 0: `torch.rand`, `torch.rand(1).item()`, Python's
    `random.random()` or `random.uniform(0, 1)` (older transformers), NumPy's `np.random.rand()` or
    `np.random.uniform(0, 1)`. The same draw written inside the test (`if self.training and
    torch.rand([]) < self.layerdrop: continue`, last in the test's `and`, or the whole test) is
    first bound to a name, under an `if` of what came before it in the `and`, so it is drawn
    exactly when it was (a `torch.rand(1).item()` is bound as the tensor `torch.rand(1)`: the same
    draw and decision, and no `.item()` to break on); the comparison is then guarded as above:
    ```python
    if self.training:
        dropout_probability = torch.rand([])
        if self.layerdrop > 0 and dropout_probability < self.layerdrop:
            continue
    ```

    A helper of the user's that decides the drop (`def _drop_layer(self): return self.training and
    torch.rand([]) < self.layerdrop`), when every call of it is an `if`'s test, binds the draw the
    same way and returns `self.layerdrop > 0 and dropout_probability < self.layerdrop` (what comes
    before the draw in its `and` is returned as it was when false).

    A draw Dynamo cannot trace at all (`random.random()`, NumPy's) breaks wherever it is bound, so
    inside the test the probability is tested before the draw instead: `if self.training and
    self.layerdrop > 0 and random.random() < self.layerdrop:` (unsafe, below).

    With a probability above 0 in training, the draw decides which layers run, and nothing keeps
    that decision in the graph with the same draws (`torch.cond` would, but measured on torch 2.13
    its backward runs a kept layer's dropout again with other draws, so gradients differ). Where a
    run saw Dynamo stop on such an `if` (`if not skip_the_layer:` after `skip_the_layer =
    torch.rand([]) < p`), the rule reports why it stays a break.

    ## Safety
    Safe, but for draws Dynamo cannot trace: outputs, gradients and the random stream are those of
    the original. For `random.random()` and NumPy's draws the probability is tested before drawing:
    with a probability of 0 the draw is not made, so that generator's later numbers differ (outputs
    and gradients do not): an unsafe fix. `torch.rand` draws
    from [0, 1), so `draw < p` (or `p > draw`) is False whenever p is 0 or less, and
    `p > 0 and draw < p` equals `draw < p` for every number p (a tensor p is decided on as
    before). The draw itself stays where it was, so the random numbers consumed do not change
    (measured: an unused draw is not removed from a compiled graph on torch 2.13, with the eager,
    aot_eager or inductor backend); a draw made inside the test is made under the same conditions
    as before (`if A and B:` without `else` is `if A: if B:`). Left alone: a draw inside the test
    that is not the last operand of its `and` (or under `or`, `not`), or a test of an `if` with
    `else` or `elif`; `draw <= p` (a draw can be exactly 0, so `draw <= 0` can hold); a probability
    that is a call or known to be a tensor; a name bound more than once in the function.
    """

    id = "layerdrop-guard"
    reference = "https://docs.pytorch.org/docs/stable/compile/programming_model.graph_breaks_index.html"
    summary = "Decide on the probability before comparing a random draw with it (LayerDrop)"
    # The README's table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = (
        "`if draw < self.layerdrop: continue` on a draw in [0, 1) (LayerDrop): `torch.rand`, `torch.rand(1).item()`, "
        "`random.random()`, `random.uniform(0, 1)`, NumPy's; the draw bound first, made inside the test or in a helper "
        "whose only callers test it"
    )
    rewrite = (
        "compare the probability first: `if self.layerdrop > 0 and draw < self.layerdrop:` (a draw inside the"
        " test is bound to a name first, under the same conditions)"
    )
    default = "safe: the same draws, outputs and gradients (unsafe for Python's `random.random()` and NumPy's draws, made only when the probability is positive)"
    trigger_words = ("rand", "rand_like", "random", "uniform")
    needs_breaker_call = False
    node_types = (cst.If, cst.FunctionDef)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        """A helper of the user's that decides the drop: `def _drop_layer(self): return
        self.training and torch.rand([]) < self.layerdrop`, called only as an `if`'s test: the draw
        is bound first, under the `if` of what came before it, and the comparison guarded."""
        context = self.context
        if not context.in_compiled_region or not isinstance(node.body, cst.IndentedBlock):
            return
        statements = list(node.body.body)
        if node.get_docstring() is not None:
            statements = statements[1:]
        if len(statements) != 1 or not isinstance(statements[0], cst.SimpleStatementLine) or len(statements[0].body) != 1:
            return
        returned = statements[0].body[0]
        if not isinstance(returned, cst.Return) or returned.value is None:
            return
        *before, last = conjuncts(returned.value)
        if not isinstance(last, cst.Comparison) or len(last.comparisons) != 1 or last.lpar:
            return
        compared = _draw_and_rate(last)
        imports = context.regions.imports
        if compared is None or not _is_uniform_draw(compared[0], imports.qualify) or not _traced_draw(compared[0], imports.qualify):  # type: ignore[arg-type]
            return
        draw, rate = compared
        name = dotted_name(rate)
        if name is None or context.function_values(node).is_tensor(rate):
            return
        # What comes before is read twice (again when false, as the value returned): names only.
        if not all(_plain_test(operand) for operand in before) or not self._decided_only_by_ifs(node.name.value):
            return
        module = context.module
        drawn = fresh_name("dropout_probability", mentioned_names([node]))
        if isinstance(draw.func, cst.Attribute) and draw.func.attr.value == "item":  # type: ignore[union-attr]
            draw = draw.func.value  # type: ignore[union-attr]
        comparison = f"{drawn} < {name}" if isinstance(last.comparisons[0].operator, cst.LessThan) else f"{name} > {drawn}"
        decided = [
            cst.parse_statement(f"{drawn} = {source(draw, module)}\n"),
            cst.parse_statement(f"return {name} > 0 and {comparison}\n"),
        ]
        if before:
            test = " and ".join(source(operand, module) for operand in before)
            replacement: list[cst.BaseStatement] = [
                cst.If(test=cst.parse_expression(test), body=cst.IndentedBlock(body=decided)),
                cst.parse_statement(f"return {test}\n"),
            ]
        else:
            replacement = decided
        replacement[0] = replacement[0].with_changes(leading_lines=statements[0].leading_lines)
        message = (
            f"`{node.name.value}` decides a drop by comparing a random draw in [0, 1) with `{name}`, and its callers' "
            f"`if` breaks the graph on it even when the probability is 0; draw first, then decide on `{name} > 0` "
            "(a number known while tracing) before comparing"
        )
        self.propose(statements[0], replacement, anchor=statements[0], message=message, safety=Safety.SAFE)

    def _decided_only_by_ifs(self, name: str) -> bool:
        """Whether every call of `name` (`self.name()` or `name()`) in the module is an `if`'s test
        or an operand of `and`/`or`/`not` in one: only its truth is read, which the rewrite keeps."""
        calls = [
            n for n in iter_nodes(self.context.module)
            if isinstance(n, cst.Call) and (
                (isinstance(n.func, cst.Attribute) and n.func.attr.value == name) or (isinstance(n.func, cst.Name) and n.func.value == name)
            )
        ]
        tested = {found for n in iter_nodes(self.context.module) if isinstance(n, cst.If) for found in truth_operands(n.test)}
        return bool(calls) and all(id(call) in tested for call in calls)

    def visit_If(self, node: cst.If) -> None:
        context = self.context
        function = context.current_function
        if function is None or id(node) in context.elif_nodes or not context.in_compiled_region:
            return
        values = context.function_values(function)
        imports = context.regions.imports
        guarded: list[str] = []

        def probability(draw: cst.BaseExpression, rate: cst.BaseExpression) -> str | None:
            """The probability's code when `draw` is a name bound once to a uniform draw."""
            if not isinstance(draw, cst.Name):
                return None
            value = values.single_value(draw.value)
            if not _is_uniform_draw(value, imports.qualify):
                return None
            name = dotted_name(rate)
            if name is None or values.is_tensor(rate):
                return None
            return name

        def rewrite(expression: cst.BaseExpression, in_and: bool, seen: frozenset[str]) -> tuple[cst.BaseExpression, frozenset[str]]:
            """The expression with its draws guarded, and the probabilities known positive after
            it when it is true (`seen`: those known before it, left of it in an `and` chain)."""
            if isinstance(expression, cst.BooleanOperation):
                if isinstance(expression.operator, cst.And):
                    inner = not expression.lpar
                    left, known = rewrite(expression.left, inner, seen)
                    right, known = rewrite(expression.right, inner, known)
                    return expression.with_changes(left=left, right=right), known if inner else seen
                left, _ = rewrite(expression.left, False, frozenset())
                right, _ = rewrite(expression.right, False, frozenset())
                return expression.with_changes(left=left, right=right), seen
            if isinstance(expression, cst.UnaryOperation) and isinstance(expression.operator, cst.Not):
                inner_expression, _ = rewrite(expression.expression, False, frozenset())
                return expression.with_changes(expression=inner_expression), seen
            if not isinstance(expression, cst.Comparison) or len(expression.comparisons) != 1:
                return expression, seen
            positive = _positive_test(expression)
            if positive is not None:
                return expression, seen | {positive}
            compared = _draw_and_rate(expression)
            if compared is None:
                return expression, seen
            rate = probability(*compared)
            if rate is None or rate in seen:
                return expression, seen
            guarded.append(rate)
            guard = cst.parse_expression(f"{rate} > 0")
            joined = cst.BooleanOperation(left=guard, operator=cst.And(), right=expression)
            if in_and:
                return joined, seen | {rate}
            return joined.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]), seen

        if any(isinstance(n, (cst.NamedExpr, cst.Await, cst.Yield)) for n in iter_nodes(node.test)):
            return
        test, _ = rewrite(node.test, True, frozenset())
        if not guarded:
            self._draw_in_the_test(node, function)
            self._report_drawn_decision(node, values)
            return
        replacement = node.with_changes(test=test)
        rates = list(dict.fromkeys(guarded))
        names = ", ".join(f"`{rate}`" for rate in rates)
        tests = " and ".join(f"`{rate} > 0`" for rate in rates)
        message = (
            f"`if {context.code(node.test)}:` compares a random draw in [0, 1) with {names}: Dynamo breaks the graph "
            f"on it even when the probability is 0; decide on {tests} first (a number known while tracing)"
        )
        self.propose(node, [replacement], anchor=node, message=message, safety=Safety.SAFE)

    def _report_drawn_decision(self, node: cst.If, values: FunctionValues) -> None:
        """Where a run saw Dynamo stop on an `if` that a LayerDrop draw decides (`if not
        skip_the_layer:` after `skip_the_layer = torch.rand([]) < p`), say why it stays a break."""
        context = self.context
        if not context.branches_on_tensor_per_run(node):
            return
        qualify = context.regions.imports.qualify

        def drawn(expression: cst.BaseExpression) -> bool:
            if not isinstance(expression, cst.Comparison) or len(expression.comparisons) != 1:
                return False
            compared = _draw_and_rate(expression)
            if compared is None:
                return False
            draw = values.single_value(compared[0].value) if isinstance(compared[0], cst.Name) else compared[0]
            return draw is not None and _is_uniform_draw(draw, qualify)

        if not any(
            drawn(n) or (isinstance(n, cst.Name) and any(drawn(value) for value in values.bindings.get(n.value, ())))
            for n in iter_nodes(node.test)
        ):
            return
        self.report(
            node,
            f"LayerDrop decided by a draw in training (`if {context.code(node.test)}:`) is not rewritten: the layer "
            "runs or not by a number drawn each step, which Dynamo cannot know while tracing, and no rewrite keeps "
            "those draws in the graph (torch.cond would redraw a kept layer's dropout in the backward); the break "
            "stays while the probability is above 0",
        )

    def _draw_in_the_test(self, node: cst.If, function: cst.FunctionDef) -> None:
        """`if A and torch.rand([]) < p:` (the draw made inside the test, last in its `and`): the
        draw is bound to a name first, under the `if` of what came before it, as transformers'
        own form does, and the comparison is guarded there."""
        context = self.context
        if node.orelse is not None:
            return
        imports = context.regions.imports
        operands = conjuncts(node.test)
        *before, last = operands
        if not isinstance(last, cst.Comparison) or len(last.comparisons) != 1 or last.lpar:
            return
        compared = _draw_and_rate(last)
        if compared is None:
            return
        draw, rate = compared
        if not _is_uniform_draw(draw, imports.qualify):
            return
        name = dotted_name(rate)
        values = context.function_values(function)
        if name is None or values.is_tensor(rate):
            return
        if any(_is_uniform_draw(n, imports.qualify) for o in before for n in iter_nodes(o)):
            return
        module = context.module
        if any(isinstance(o, cst.Comparison) and len(o.comparisons) == 1 and _positive_test(o) == name for o in before):
            return  # already decided on the probability first (this rule's own test)
        if not _traced_draw(draw, imports.qualify):
            self._guard_untraced_draw(node, last, draw, name)
            return
        # `torch.rand(1).item()` is drawn as the tensor: the same numbers drawn, the same decision,
        # and no `.item()` for Dynamo to break on.
        if isinstance(draw.func, cst.Attribute) and draw.func.attr.value == "item":
            draw = draw.func.value  # type: ignore[assignment]
        drawn = fresh_name("dropout_probability", mentioned_names([function]))
        comparison = f"{drawn} < {name}" if isinstance(last.comparisons[0].operator, cst.LessThan) else f"{name} > {drawn}"
        inner = cst.If(
            test=cst.parse_expression(f"{name} > 0 and {comparison}"),
            body=node.body,
        )
        assign = cst.parse_statement(f"{drawn} = {source(draw, module)}\n")
        if before:
            test = " and ".join(source(operand, module) for operand in before)
            replacement = cst.If(
                test=cst.parse_expression(test), body=cst.IndentedBlock(body=[assign, inner]), leading_lines=node.leading_lines,
            )
            statements: list[cst.BaseStatement] = [replacement]
        else:
            statements = [assign.with_changes(leading_lines=node.leading_lines), inner]
        message = (
            f"`if {context.code(node.test)}:` compares a random draw in [0, 1) with `{name}`: Dynamo breaks the graph "
            f"on it even when the probability is 0; draw first, then decide on `{name} > 0` (a number known while "
            "tracing) before comparing"
        )
        self.propose(node, statements, anchor=node, message=message, safety=Safety.SAFE)


    def _guard_untraced_draw(self, node: cst.If, comparison: cst.Comparison, draw: cst.Call, rate: str) -> None:
        """A draw Dynamo cannot trace (`random.random()`, NumPy's): no binding keeps it out of the
        graph, so the probability is tested before drawing at all (unsafe: with a probability of 0
        that generator's stream advances less)."""
        guarded = cst.BooleanOperation(left=cst.parse_expression(f"{rate} > 0"), operator=cst.And(), right=comparison)
        test = _replaced(node.test, comparison, guarded.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]))
        if test is node.test:
            return
        message = (
            f"`if {self.context.code(node.test)}:` compares a draw Dynamo cannot trace (`{self.context.code(draw)}`) with "
            f"`{rate}`: decide on `{rate} > 0` before drawing (unsafe: with a probability of 0 the draw is not made, "
            "so that generator's later numbers differ)"
        )
        self.propose(node, [node.with_changes(test=test)], anchor=node, message=message, safety=Safety.UNSAFE, form="untraced-draw")


def _replaced(expression: cst.BaseExpression, old: cst.CSTNode, new: cst.BaseExpression) -> cst.BaseExpression:
    if expression is old:
        return new.with_changes(lpar=(), rpar=())
    if isinstance(expression, cst.BooleanOperation):
        left, right = _replaced(expression.left, old, new), _replaced(expression.right, old, new)
        if left is not expression.left or right is not expression.right:
            return expression.with_changes(left=left, right=right)
    return expression


def _traced_draw(draw: cst.Call, qualify) -> bool:  # type: ignore[no-untyped-def]
    """Whether Dynamo traces the draw (measured on torch 2.13): torch's, and `random.uniform`,
    whose Python code it inlines; not `random.random()` or NumPy's generators, which it skips."""
    if isinstance(draw.func, cst.Attribute) and draw.func.attr.value == "item":
        return True
    return qualify(draw.func) in ("torch.rand", "torch.rand_like", "random.uniform")


def _plain_test(operand: cst.BaseExpression) -> bool:
    """A name, an attribute, `not` of one, or a comparison of those and literals: no call."""
    return not any(isinstance(n, (cst.Call, cst.Await, cst.NamedExpr, cst.Yield, cst.Lambda)) for n in iter_nodes(operand))


def _draw_and_rate(comparison: cst.Comparison) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """What `draw < rate` (or `rate > draw`) compares, the draw first; None for any other
    operator: `draw <= p` can hold with p == 0 (a draw of exactly 0), so it is never guarded."""
    operator, right = comparison.comparisons[0].operator, comparison.comparisons[0].comparator
    if isinstance(operator, cst.LessThan):
        return comparison.left, right
    if isinstance(operator, cst.GreaterThan):
        return right, comparison.left
    return None


def _positive_test(comparison: cst.Comparison) -> str | None:
    """`p` for a test `p > 0` (`p > 0.0`): the guard this rule writes."""
    target = comparison.comparisons[0]
    if isinstance(target.operator, cst.GreaterThan) and isinstance(target.comparator, (cst.Integer, cst.Float)):
        if float(target.comparator.value) == 0:
            return dotted_name(comparison.left)
    return None
