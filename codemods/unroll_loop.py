"""unroll-loop: unroll a constant loop that holds a graph break, so Dynamo can resume after it."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from graphweld.analysis.blocks import block_statements
from graphweld.analysis.breakers import TENSOR_VALUE_READS
from graphweld.rule import Rule, Safety
from graphweld.analysis.scopes import (
    SCOPE_NODES,
    SCOPE_TYPES,
    bound_names,
    declared,
    fresh_name,
    is_scope,
    mentioned_names,
    parameter_names,
    target_names,
)
from graphweld.walk import children, is_expression, iter_nodes

BODY_NAME = "_loop_body"
FLOW_NAME = "_flow"
# Calls whose meaning depends on the frame they run in.
FRAME_SENSITIVE_CALLS = frozenset({"locals", "vars", "exec", "eval", "super", "dir"})


# Builtins that read a tensor's value into Python when given one: each breaks the graph.
TENSOR_READ_BUILTINS = frozenset({"float", "int", "bool", "complex"})


def _tensor_read_mid_fstring(body: cst.CSTNode) -> cst.FormattedString | None:
    """An f-string in `body` that reads a tensor into Python (`.item()`, `float(t)`, ...) after
    an earlier formatted value. Dynamo (2.13) resumes such a graph break with the earlier values'
    unformatted objects on its stack, and fails when the function runs again with other values."""
    for node in iter_nodes(body, prune=is_scope):
        if not isinstance(node, cst.FormattedString):
            continue
        formatted = [part for part in node.parts if isinstance(part, cst.FormattedStringExpression)]
        for index, part in enumerate(formatted):
            if index > 0 and any(_reads_tensor(inner) for inner in iter_nodes(part.expression, prune=is_scope)):
                return node
    return None


def _reads_tensor(node: cst.CSTNode) -> bool:
    if not isinstance(node, cst.Call):
        return False
    func = node.func
    if isinstance(func, cst.Attribute):
        return func.attr.value in TENSOR_VALUE_READS
    return isinstance(func, cst.Name) and func.value in TENSOR_READ_BUILTINS and bool(node.args) and not isinstance(
        node.args[0].value, (cst.Integer, cst.Float, cst.SimpleString)
    )


class NotUnrollable(Exception):
    """Why a loop cannot be unrolled exactly."""


@dataclass
class _Loop:
    """What the rewrite needs to know about one `for` loop."""

    values: list[cst.BaseExpression]
    has_break: bool
    has_return: bool


class UnrollLoop(Rule):
    """Unroll a constant loop that holds a graph break, so Dynamo can resume after the break.

    ## What it fixes
    A graph-breaking statement (`torch._dynamo.graph_break()`, `print`, logging, ...) anywhere in
    the body of a `for` loop in a compiled region, where the loop runs over a constant `range(...)`
    (integer literals or module-level integer constants) or a literal tuple/list, at most
    `max-unroll` times (default 16). A break inside a nested loop belongs to the innermost loop;
    once that one is unrolled, the loop around it is unrolled too.

    ## Why the graph breaks
    Dynamo cannot resume tracing after a graph break inside a loop, so it skips the whole frame
    and runs the function eagerly: nothing in it is compiled (PyTorch docs, "Skipped Functions",
    "Graph Break in a Loop").

    ## Example
    ```python
    @torch.compile
    def fn(x):
        for i in range(5):
            x = x + 1
            if i == 3:
                torch._dynamo.graph_break()
        return x
    ```
    becomes the documented form, the body in a nested function called once per value:
    ```python
    @torch.compile
    def fn(x):
        def _loop_body(i):
            nonlocal x
            x = x + 1
            if i == 3:
                torch._dynamo.graph_break()
        _loop_body(0)
        _loop_body(1)
        _loop_body(2)
        _loop_body(3)
        _loop_body(4)
        return x
    ```
    Names the body assigns are declared `nonlocal` (with an annotation-only declaration such as
    `y: object` when the function binds them nowhere else). A loop variable read after the loop is
    assigned before each call. `continue` becomes `return`; `break` and `return` make the body
    return a flow value (`("break",)`, `("return", value)`) that stops the later calls, skips the
    `else:` clause, and returns the value.

    ## Safety
    Safe: the unrolled code runs the same statements in the same order. Differences are limited to
    reading a name before any assignment (`NameError` instead of its subclass
    `UnboundLocalError`) and module-level constants in `range(N)`, which are read when graphweld
    runs. Not rewritten, and reported with the reason: loops over anything else (`range(n)` with
    `n` an argument, an `nn.ModuleList`, a tensor), `while` loops, more than `max-unroll`
    iterations, tuple elements whose value the body could change, targets other than names, and
    bodies using `yield`, `await`, `global`/`nonlocal`, zero-argument `super()`, `locals()`,
    `vars()`, `exec`, `eval` or `dir()`. Also reported: a body with an f-string that reads a tensor
    into Python (`.item()`, `float(t)`, ...) after formatting another value, as in
    `f"step {i}: {loss.item()}"`. The graph breaks in the middle of building that string, and
    Dynamo (torch 2.13) fails resuming there once the unrolled body runs with a second value
    (`TypeError: sequence item 1: expected str instance, int found`), where the loop had only
    skipped its frame.
    """

    id = "unroll-loop"
    reference = "https://docs.pytorch.org/docs/stable/compile/programming_model.skipped_functions.html"
    summary = "Unroll a constant loop that holds a graph break, so Dynamo can resume after it"
    # The README's table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = (
        "a graph-breaking statement anywhere in a `for` loop over a constant `range(...)` or a literal "
        "tuple/list (at most `max-unroll` iterations)"
    )
    rewrite = "unroll it in the documented form: the body in a nested function, called once per value"
    default = "safe; other loops (`range(n)`, `nn.ModuleList`, `while`, ...) are reported"
    trigger_words = ("for", "while")
    node_types = (cst.For, cst.While)

    def __init__(self, context) -> None:  # type: ignore[no-untyped-def]
        super().__init__(context)
        self._breaking_functions: dict[int, set[str]] = {}

    def visit_While(self, node: cst.While) -> None:
        if not self.context.in_compiled_region:
            return
        breaking = self._first_break(node)
        if breaking is not None:
            self.report(
                breaking,
                f"`{self.context.code(breaking)}` inside a `while` loop: Dynamo skips the whole frame, and a "
                "`while` loop cannot be unrolled; move the break out of the loop by hand",
            )

    def visit_For(self, node: cst.For) -> None:
        context = self.context
        function = context.current_function
        if not context.in_compiled_region or function is None or node.asynchronous is not None:
            return
        breaking = self._first_break(node)
        if breaking is None:
            return
        header = f"for {context.code(node.target)} in {context.code(node.iter)}:"
        try:
            loop = self._analyse(node)
            replacement = self._unroll(node, function, loop)
        except NotUnrollable as reason:
            self.report(
                breaking,
                f"`{context.code(breaking)}` inside `{header}`: Dynamo skips the whole frame, and the loop is "
                f"not unrolled: {reason}",
            )
            return
        self.propose(
            node,
            replacement,
            anchor=breaking,
            message=(
                f"`{context.code(breaking)}` inside `{header}`: Dynamo cannot resume in a loop and skips the "
                f"whole frame; unroll the loop ({len(loop.values)} iterations)"
            ),
            safety=Safety.SAFE,
        )

    # -- finding breaks ---------------------------------------------------------------------

    def _local_breaking_functions(self) -> set[str]:
        """Names of functions defined in the enclosing function whose bodies break the graph,
        such as the body of a loop unrolled earlier: calling one breaks the graph too."""
        function = self.context.current_function
        assert function is not None
        cached = self._breaking_functions.get(id(function))
        if cached is None:
            cached = self._breaking_functions[id(function)] = self._find_breaking_functions(function)
        return cached

    def _find_breaking_functions(self, function: cst.FunctionDef) -> set[str]:
        definitions = {
            node.name.value: node
            for node in iter_nodes(function.body, prune=_expression_or_line)
            if isinstance(node, cst.FunctionDef)
        }
        breaking: set[str] = set()
        changed = True
        while changed:
            changed = False
            for name, definition in definitions.items():
                if name not in breaking and self._statement_breaks(definition.body, breaking, enter_loops=True):
                    breaking.add(name)
                    changed = True
        return breaking

    def _statement_breaks(self, root: cst.CSTNode, local_breaking: set[str], enter_loops: bool) -> cst.CSTNode | None:
        """The first breaking simple statement under `root` (not in nested scopes, nor in nested
        loops unless `enter_loops`)."""
        catalog = self.context.breakers

        def prune(node: cst.CSTNode) -> bool:
            node_type = type(node)
            if node_type in SCOPE_TYPES or node_type is cst.SimpleStatementLine:
                return True
            return not enter_loops and (node_type is cst.For or node_type is cst.While)

        for node in iter_nodes(root, prune):
            if node is root or type(node) is not cst.SimpleStatementLine:
                continue
            if catalog.statement_breaker(node) is not None:
                return node
            if not local_breaking:
                continue
            for inner in iter_nodes(node, prune=lambda n: isinstance(n, cst.Lambda)):
                if isinstance(inner, cst.Call) and isinstance(inner.func, cst.Name) and inner.func.value in local_breaking:
                    return node
        return None

    def _first_break(self, node: cst.For | cst.While) -> cst.CSTNode | None:
        local_breaking = self._local_breaking_functions()
        return self._statement_breaks(node.body, local_breaking, enter_loops=False)

    # -- checks -----------------------------------------------------------------------------

    def _analyse(self, node: cst.For) -> _Loop:
        context = self.context
        if not _plain_target(node.target):
            raise NotUnrollable(f"the target `{context.code(node.target)}` is not a name or tuple of names")
        statements = block_statements(node.body)
        values = self._values(node.iter, statements)
        if not values:
            raise NotUnrollable("it never runs")
        if len(values) > context.settings.max_unroll:
            raise NotUnrollable(
                f"{len(values)} iterations exceed max-unroll = {context.settings.max_unroll} (set it in [tool.graphweld])"
            )
        has_return = False
        for inner in iter_nodes(node.body, prune=is_scope):
            if isinstance(inner, (cst.Yield, cst.Await)):
                raise NotUnrollable(f"the body uses `{type(inner).__name__.lower()}`")
            if isinstance(inner, (cst.Global, cst.Nonlocal)):
                raise NotUnrollable(f"the body declares `{type(inner).__name__.lower()}` names")
            if isinstance(inner, cst.Call) and isinstance(inner.func, cst.Name):
                name = inner.func.value
                if name in ("exec", "eval") or (name in FRAME_SENSITIVE_CALLS and not inner.args):
                    raise NotUnrollable(f"`{name}()` depends on the frame it runs in")
            if isinstance(inner, cst.Return):
                has_return = True
        if len(values) > 1:
            mid_string = _tensor_read_mid_fstring(node.body)
            if mid_string is not None:
                raise NotUnrollable(
                    f"`{context.code(mid_string)}` reads a tensor into Python after formatting other values; the graph "
                    "breaks in the middle of building the string, and Dynamo fails resuming there when the unrolled "
                    "body runs again with other values (torch 2.13: TypeError: sequence item 1: expected str "
                    "instance); read the value into a name before the f-string"
                )
        has_break = _breaks_this_loop(node.body)
        return _Loop(values=values, has_break=has_break, has_return=has_return)

    def _values(self, iterable: cst.BaseExpression, statements: list[cst.BaseStatement]) -> list[cst.BaseExpression]:
        context = self.context
        if isinstance(iterable, cst.Call) and context.regions.imports.qualify(iterable.func) in ("range", "builtins.range"):
            if "range" in context.regions.module_names:
                raise NotUnrollable("`range` is redefined in this module")
            numbers = []
            for argument in iterable.args:
                if argument.keyword is not None or argument.star:
                    raise NotUnrollable(f"`{context.code(iterable)}` is not a constant range")
                number = self._integer(argument.value)
                if number is None:
                    raise NotUnrollable(
                        f"`{context.code(argument.value)}` in `{context.code(iterable)}` is not a constant"
                    )
                numbers.append(number)
            if not 1 <= len(numbers) <= 3 or (len(numbers) == 3 and numbers[2] == 0):
                raise NotUnrollable(f"`{context.code(iterable)}` is not a valid range")
            count = len(range(*numbers))
            if count > context.settings.max_unroll:
                raise NotUnrollable(
                    f"{count} iterations exceed max-unroll = {context.settings.max_unroll} (set it in [tool.graphweld])"
                )
            return [_integer_node(value) for value in range(*numbers)]
        if isinstance(iterable, (cst.Tuple, cst.List)):
            assigned = bound_names(statements)
            values = []
            for element in iterable.elements:
                if isinstance(element, cst.StarredElement):
                    raise NotUnrollable("the literal has a starred element")
                problem = _unstable(element.value, assigned)
                if problem is not None:
                    raise NotUnrollable(f"the element `{context.code(element.value)}` {problem}")
                values.append(element.value)
            return values
        raise NotUnrollable(f"`{context.code(iterable)}` is not a constant range(...) or a literal tuple/list")

    def _integer(self, node: cst.BaseExpression) -> int | None:
        if isinstance(node, cst.Integer):
            return int(node.evaluated_value)
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            inner = self._integer(node.expression)
            return -inner if inner is not None else None
        if isinstance(node, cst.Name):
            return self.context.regions.module_constants.get(node.value)
        return None

    # -- the rewrite --------------------------------------------------------------------------

    def _unroll(self, node: cst.For, function: cst.FunctionDef, loop: _Loop) -> list[cst.BaseStatement]:
        module = self.context.module
        statements = block_statements(node.body)
        targets = list(target_names(node.target))
        rest_of_function = _without_loop_body(function, node)
        global_names = declared(rest_of_function, cst.Global)
        # Names the function binds outside this loop: parameters, assignments, nonlocal declarations.
        bound_outside = (
            bound_names(rest_of_function) | parameter_names(function) | declared(rest_of_function, cst.Nonlocal)
        )
        mentioned_outside = mentioned_names(rest_of_function) | mentioned_names([function.params])
        taken = mentioned_names([function]) | self.context.regions.module_names
        body_name = fresh_name(BODY_NAME, taken)
        flow_name = fresh_name(FLOW_NAME, taken | {body_name})

        # The loop variable keeps its value after the loop when something outside reads it.
        bind_at_call = bool(set(targets) & mentioned_outside) or not _parameter_form(node.target, loop.values)
        assigned = bound_names(statements) | (set(targets) if bind_at_call else set())
        nonlocal_names: list[str] = []
        globals_needed: list[str] = []
        declarations: list[str] = []
        for name in sorted(assigned):
            if name in global_names:
                globals_needed.append(name)
            elif name in bound_outside or (bind_at_call and name in targets):
                nonlocal_names.append(name)
            elif name in mentioned_outside or _carried(name, statements):
                nonlocal_names.append(name)
                declarations.append(name)

        preamble: list[cst.BaseStatement] = []
        if globals_needed:
            preamble.append(cst.parse_statement(f"global {', '.join(globals_needed)}"))
        if nonlocal_names:
            preamble.append(cst.parse_statement(f"nonlocal {', '.join(nonlocal_names)}"))
        body = [_rewrite_control_flow(statement) for statement in statements]
        params = "" if bind_at_call else ", ".join(targets)
        definition = cst.parse_statement(f"def {body_name}({params}):\n    pass\n")
        assert isinstance(definition, cst.FunctionDef)
        header = node.body.header if isinstance(node.body, cst.IndentedBlock) else definition.body.header
        definition = definition.with_changes(
            body=cst.IndentedBlock(body=(*preamble, *body), header=header, footer=_footer(node.body))
        )

        produced: list[cst.BaseStatement] = [
            cst.parse_statement(f"{name}: object  # bound in the unrolled loop below\n") for name in declarations
        ]
        produced.append(definition)
        target_code = module.code_for_node(node.target)
        calls: list[list[str]] = []
        for value in loop.values:
            value_code = module.code_for_node(value)
            if bind_at_call:
                calls.append([f"{target_code} = {value_code}", f"{body_name}()"])
            elif isinstance(node.target, cst.Name):
                calls.append([f"{body_name}({value_code})"])
            else:
                assert isinstance(value, (cst.Tuple, cst.List))
                arguments = ", ".join(module.code_for_node(element.value) for element in value.elements)
                calls.append([f"{body_name}({arguments})"])

        orelse = block_statements(node.orelse.body) if node.orelse is not None else []
        if not (loop.has_break or loop.has_return):
            for lines in calls:
                produced.extend(cst.parse_statement(line + "\n") for line in lines)
            produced.extend(orelse)
        else:
            first, *rest = calls
            produced.extend(cst.parse_statement(line + "\n") for line in first[:-1])
            produced.append(cst.parse_statement(f"{flow_name} = {first[-1]}\n"))
            for lines in rest:
                block = "".join(f"    {line}\n" for line in lines[:-1]) + f"    {flow_name} = {lines[-1]}\n"
                produced.append(cst.parse_statement(f"if {flow_name} is None:\n{block}"))
            produced.extend(self._after_calls(flow_name, orelse, loop))
        produced[0] = produced[0].with_changes(leading_lines=(*node.leading_lines, *produced[0].leading_lines))
        return produced

    def _after_calls(self, flow_name: str, orelse: list[cst.BaseStatement], loop: _Loop) -> list[cst.BaseStatement]:
        """The `else:` clause runs when no iteration broke or returned; a returned value is returned."""
        returned = cst.parse_statement(f"return {flow_name}[1]\n")
        if orelse:
            if_node = cst.parse_statement(f"if {flow_name} is None:\n    pass\n")
            assert isinstance(if_node, cst.If)
            if_node = if_node.with_changes(body=if_node.body.with_changes(body=tuple(orelse)))
            if loop.has_return:
                condition = f'elif {flow_name}[0] == "return":\n' if loop.has_break else "else:\n"
                tail = cst.parse_statement(f"if {flow_name} is None:\n    pass\n{condition}    return {flow_name}[1]\n")
                assert isinstance(tail, cst.If)
                if_node = if_node.with_changes(orelse=tail.orelse)
            return [if_node]
        if not loop.has_return:
            return []
        condition = f'{flow_name} is not None and {flow_name}[0] == "return"' if loop.has_break else f"{flow_name} is not None"
        check = cst.parse_statement(f"if {condition}:\n    pass\n")
        assert isinstance(check, cst.If)
        return [check.with_changes(body=check.body.with_changes(body=(returned,)))]


# -- helpers -------------------------------------------------------------------------------------


def _plain_target(target: cst.BaseExpression) -> bool:
    if isinstance(target, cst.Name):
        return True
    if isinstance(target, (cst.Tuple, cst.List)):
        return all(not isinstance(e, cst.StarredElement) and _plain_target(e.value) for e in target.elements)
    return False


def _parameter_form(target: cst.BaseExpression, values: list[cst.BaseExpression]) -> bool:
    """Whether the values can be passed as arguments: a name, or a flat tuple of names over
    literal tuples of the same length."""
    if isinstance(target, cst.Name):
        return True
    if not isinstance(target, (cst.Tuple, cst.List)) or not all(isinstance(e.value, cst.Name) for e in target.elements):
        return False
    return all(isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(target.elements) for value in values)


def _unstable(value: cst.BaseExpression, assigned: set[str]) -> str | None:
    """Why an element's value could differ when evaluated at its iteration instead of up front."""
    if isinstance(value, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString)):
        return None
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, (cst.Minus, cst.Plus)):
        return _unstable(value.expression, assigned)
    if isinstance(value, (cst.Tuple, cst.List)):
        for element in value.elements:
            problem = _unstable(element.value, assigned)
            if problem is not None:
                return problem
        return None
    if isinstance(value, (cst.Name, cst.Attribute)):
        head = value
        while isinstance(head, cst.Attribute):
            head = head.value
        if isinstance(head, cst.Name) and head.value in assigned:
            return f"reads `{head.value}`, which the body assigns"
        return None
    return "is computed (it would run at its iteration instead of before the loop)"


def _integer_node(value: int) -> cst.BaseExpression:
    if value < 0:
        return cst.UnaryOperation(operator=cst.Minus(), expression=cst.Integer(str(-value)))
    return cst.Integer(str(value))


def _without_loop_body(function: cst.FunctionDef, loop: cst.For) -> list[cst.CSTNode]:
    """The function's body with the loop's target and body left out; its iterable and `else:`
    clause stay (they run in the function itself)."""
    stub = loop.with_changes(target=cst.Name("_"), body=cst.IndentedBlock(body=()))

    class Stub(cst.CSTTransformer):
        def on_visit(self, node: cst.CSTNode) -> bool:
            return node is not loop

        def on_leave(self, original_node, updated_node):  # type: ignore[no-untyped-def]
            return stub if original_node is loop else updated_node

    return [function.body.visit(Stub())]


def _carried(name: str, statements: list[cst.BaseStatement]) -> bool:
    """Whether `name` may be read before the body assigns it (its value crosses iterations).

    Only a plain assignment (or a `def`/`class`) at the top of the body that does not read the
    name first makes it a fresh local of each iteration.
    """
    for statement in statements:
        if name not in mentioned_names([statement]):
            continue
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)) and statement.name.value == name:
            # Decorators and defaults are read first, in the function that holds the loop.
            return name in mentioned_names([*statement.decorators]) or (
                isinstance(statement, cst.FunctionDef) and name in mentioned_names([statement.params])
            )
        if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
            small = statement.body[0]
            if isinstance(small, cst.Assign) and name not in mentioned_names([small.value]):
                return not any(name in set(target_names(t.target)) for t in small.targets)
        return True
    return False


def _footer(body: cst.BaseSuite) -> tuple[cst.EmptyLine, ...]:
    return tuple(body.footer) if isinstance(body, cst.IndentedBlock) else ()


def _breaks_this_loop(node: cst.CSTNode) -> bool:
    """Whether a `break` under `node` belongs to the loop whose body `node` is: not in a nested
    loop's body (a nested loop's `else:` clause still belongs to this loop), nor in a nested scope."""
    for child in children(node):
        if isinstance(child, SCOPE_NODES) or isinstance(child, cst.BaseExpression):
            continue
        if isinstance(child, (cst.For, cst.While)):
            if child.orelse is not None and _breaks_this_loop(child.orelse):
                return True
            continue
        if isinstance(child, cst.Break) or _breaks_this_loop(child):
            return True
    return False


class _ControlFlow(cst.CSTTransformer):
    """continue -> return; break -> return ("break",); return v -> return ("return", v);
    only for statements that belong to the unrolled loop."""

    def __init__(self) -> None:
        super().__init__()
        self.loop_depth = 0
        self.scope_depth = 0

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, SCOPE_NODES):
            self.scope_depth += 1
        return super().on_visit(node)

    def on_leave(self, original_node, updated_node):  # type: ignore[no-untyped-def]
        if isinstance(original_node, SCOPE_NODES):
            self.scope_depth -= 1
        return super().on_leave(original_node, updated_node)

    # Only a nested loop's body is its own; its else clause belongs to the unrolled loop.
    def visit_For_body(self, node: cst.For) -> None:
        self.loop_depth += 1

    def leave_For_body(self, node: cst.For) -> None:
        self.loop_depth -= 1

    def visit_While_body(self, node: cst.While) -> None:
        self.loop_depth += 1

    def leave_While_body(self, node: cst.While) -> None:
        self.loop_depth -= 1

    def leave_Continue(self, original_node: cst.Continue, updated_node: cst.Continue):  # type: ignore[no-untyped-def]
        if self.loop_depth or self.scope_depth:
            return updated_node
        return cst.Return(value=None, semicolon=updated_node.semicolon)

    def leave_Break(self, original_node: cst.Break, updated_node: cst.Break):  # type: ignore[no-untyped-def]
        if self.loop_depth or self.scope_depth:
            return updated_node
        return cst.Return(value=cst.parse_expression('("break",)'), semicolon=updated_node.semicolon)

    def leave_Return(self, original_node: cst.Return, updated_node: cst.Return):  # type: ignore[no-untyped-def]
        if self.scope_depth:
            return updated_node
        value = updated_node.value if updated_node.value is not None else cst.Name("None")
        flow = cst.Tuple(
            elements=[cst.Element(cst.SimpleString('"return"')), cst.Element(value)],
        )
        return updated_node.with_changes(value=flow, whitespace_after_return=cst.SimpleWhitespace(" "))


def _rewrite_control_flow(statement: cst.BaseStatement) -> cst.BaseStatement:
    rewritten = statement.visit(_ControlFlow())
    assert isinstance(rewritten, cst.BaseStatement)
    return rewritten


def _expression_or_line(node: cst.CSTNode) -> bool:
    """Nodes below which there is no statement."""
    return type(node) is cst.SimpleStatementLine or is_expression(node)
