"""isolate-io: keep I/O out of compiled graphs while it still happens."""

from __future__ import annotations

import libcst as cst

from graphweld.blocks import split_at
from graphweld.breakers import IO_BREAKERS, LOGGING_METHODS
from graphweld.names import dotted_name
from graphweld.regions import COMPILE_DECORATORS
from graphweld.rule import Rule, Safety
from graphweld.scopes import SCOPE_NODES, bound_names, fresh_name, is_scope, mentioned_names, parameter_names
from graphweld.walk import iter_nodes

# Calls whose deferral keeps their meaning: logging and print. warnings.warn is left out (its
# stacklevel would point at the wrapper).
DEFERRABLE_IO = frozenset({"print"})
WRAPPER_PREFIX = "_deferred_"
WRAPPER_MARK = "graphweld isolate-io"
IS_COMPILING = frozenset({"torch.compiler.is_compiling", "torch._dynamo.is_compiling"})


class IsolateIO(Rule):
    """Keep I/O out of compiled graphs while it still happens.

    ## What it fixes
    Impure I/O in a compiled region: `print`, logging calls (`logger.warning`, transformers'
    `logger.warning_once`, ...), `warnings.warn`, `torch.save`/`torch.load`, `open`, `pickle`,
    `time.sleep`, and the `io-functions` of the configuration.

    ## Why the graph breaks
    `torch.compile` compiles tensor computation; it cannot put I/O in a graph, so each I/O call
    breaks the graph (and inside a loop, `with` or `try`, the whole frame is skipped). PyTorch's
    docs ("Strategy 3: Don't compile the code") prescribe moving it out of the compiled region.

    ## Example
    Strategy **split**, for I/O at the top level of a function decorated with `torch.compile`:
    ```python
    @torch.compile(fullgraph=True)
    def f(x):
        y = x ** 2 / 2
        torch.save(y, "foo.pt")
        z = y ** 3 / 6
        return z
    ```
    becomes compiled pure pieces with the I/O run eagerly between them (the seed's form):
    ```python
    def f(x):
        y = _f_part1(x)
        torch.save(y, "foo.pt")
        return _f_part2(y)


    @torch.compile(fullgraph=True)
    def _f_part1(x):
        y = x ** 2 / 2
        return y


    @torch.compile(fullgraph=True)
    def _f_part2(y):
        z = y ** 3 / 6
        return z
    ```
    Strategy **defer**, for a logging call or `print` whose arguments are constants (anywhere in a
    compiled region): the call goes through a module-level function registered in
    `torch._dynamo.config.reorderable_logging_functions`, which Dynamo runs after the graph
    instead of breaking it (a bound logger method is not matched by identity, so the wrapper is
    needed):
    ```python
    logger.warning_once("`use_cache=True` is incompatible with gradient checkpointing.")
    ```
    becomes `_deferred_logger_warning_once("...")`, with the wrapper defined after `logger`.
    Strategy **guard** (unsafe), for any other I/O statement: `if not torch.compiler.is_compiling():`.
    Callees listed in the `guard-functions` setting (e.g. `["warnings.warn"]` for deprecation
    warnings in library code) are guarded without `--unsafe-fixes`: the user chose it.

    ## Safety
    split is safe: the same statements run in the same order, the I/O eagerly between compiled
    pieces. It applies to module-level functions decorated with `torch.compile` whose top level
    holds the I/O, to methods decorated so (the pieces are methods called through `self`), and to
    functions compiled by a module-level `name = torch.compile(f, ...)` (the options move to the
    pieces and the name then refers to `f`); not to bodies with `yield`, nested `return`s,
    `global`/`nonlocal` or nested functions.
    defer is safe for constant arguments: the call still happens, after the graph's computation;
    log records then name the wrapper as their source line. guard is unsafe: under compilation the
    I/O no longer happens at all; it is applied only with `--unsafe-fixes`.
    """

    id = "isolate-io"
    reference = "https://docs.pytorch.org/docs/stable/compile/programming_model.fullgraph_true.html"
    summary = "Keep I/O out of compiled graphs: split the function, defer logging, or guard it"
    trigger_words = tuple(sorted({name.rsplit(".", 1)[-1] for name in IO_BREAKERS} | LOGGING_METHODS))
    node_types = (cst.FunctionDef, cst.If, cst.SimpleStatementLine)

    def __init__(self, context) -> None:  # type: ignore[no-untyped-def]
        super().__init__(context)
        # Statements already handled: by a split of their function, or guarded already.
        self._handled: set[int] = set()
        self._compile_calls: dict[str, tuple[cst.SimpleStatementLine, cst.Call]] | None = None

    def visit_If(self, node: cst.If) -> None:
        """Statements under `if not torch.compiler.is_compiling():` never run compiled."""
        test = node.test
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            inner = test.expression
            if isinstance(inner, cst.Call) and self.context.regions.imports.qualify(inner.func) in IS_COMPILING:
                self._handled.update(id(node) for node in iter_nodes(node.body))

    # -- split ----------------------------------------------------------------------------------

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        context = self.context
        if node.name.value.startswith(WRAPPER_PREFIX) and WRAPPER_MARK in (node.get_docstring() or ""):
            # graphweld's own wrapper: Dynamo never traces it (it is registered as reorderable).
            self._handled.update(id(inner) for inner in iter_nodes(node))
            return
        info = context.regions.function_info(node)
        if info is None or info.parent is not None or info.outer is not None:
            return
        # A method's pieces are methods of its class, called through `self`.
        receiver = _first_parameter(node) if info.cls is not None else None
        if info.cls is not None and (receiver is None or _is_static(node)):
            return
        compile_decorators = [d for d in node.decorators if self._is_compile(d)]
        compile_call = None
        if not compile_decorators and info.cls is None:
            # `name = torch.compile(f, **options)` at module level: the options move to the pieces.
            compile_call = self._module_compile_call(node.name.value)
            if compile_call is not None:
                statement, call = compile_call
                options = ", ".join(self.context.module.code_for_node(arg).rstrip(", ") for arg in call.args[1:])
                decorator = cst.parse_statement(f"@torch.compile({options})\ndef _():\n    pass\n")
                assert isinstance(decorator, cst.FunctionDef)
                compile_decorators = list(decorator.decorators)
        if not compile_decorators or not isinstance(node.body, cst.IndentedBlock):
            return
        statements = list(node.body.body)
        docstring = statements[:1] if node.get_docstring() is not None else []
        body = statements[len(docstring) :]
        io_ids = {id(s) for s in body if self._io_kind(s) is not None}
        if not io_ids or not self._splittable(body):
            return
        segments, io_statements = split_at(body, lambda s: id(s) in io_ids)
        function_name = node.name.value
        params = parameter_names(node)
        taken = context.regions.module_names | (set(info.cls.methods) if info.cls is not None else set())
        local_names = params | bound_names(body)
        glue: list[cst.BaseStatement] = list(docstring)
        pieces: list[cst.FunctionDef] = []
        available = set(params)
        for index, segment in enumerate(segments):
            later = [*io_statements[index:], *(s for seg in segments[index + 1 :] for s in seg)]
            if segment:
                inputs = sorted((mentioned_names(segment) & available & local_names) - {receiver})
                produced = bound_names(segment)
                outputs = sorted(produced & mentioned_names(later))
                ends_with_return = _is_return(segment[-1])
                name = fresh_name(f"_{function_name}_part{len(pieces) + 1}", taken)
                taken = taken | {name}
                piece_body = list(segment)
                if not ends_with_return and outputs:
                    piece_body.append(cst.parse_statement(f"return {', '.join(outputs)}\n"))
                signature = ", ".join([receiver, *inputs] if receiver else inputs)
                piece = cst.parse_statement(f"def {name}({signature}):\n    pass\n")
                assert isinstance(piece, cst.FunctionDef)
                pieces.append(
                    piece.with_changes(
                        decorators=tuple(compile_decorators),
                        body=piece.body.with_changes(body=tuple(piece_body)),
                        leading_lines=(cst.EmptyLine(indent=False),) * (1 if receiver else 2),
                    )
                )
                call = f"{receiver + '.' if receiver else ''}{name}({', '.join(inputs)})"
                if ends_with_return:
                    glue.append(cst.parse_statement(f"return {call}\n"))
                elif outputs:
                    glue.append(cst.parse_statement(f"{', '.join(outputs)} = {call}\n"))
                else:
                    glue.append(cst.parse_statement(f"{call}\n"))
                available |= produced
            if index < len(io_statements):
                glue.append(io_statements[index])
                available |= bound_names([io_statements[index]])
        other_decorators = [d for d in node.decorators if not self._is_compile(d)]
        rewritten = node.with_changes(decorators=tuple(other_decorators), body=node.body.with_changes(body=tuple(glue)))
        extra = []
        if compile_call is not None:
            # The function itself now runs eagerly; what compiled it refers to it directly.
            statement, _ = compile_call
            assign = statement.body[0]
            assert isinstance(assign, cst.Assign)
            names = [dotted_name(t.target) for t in assign.targets]
            kept = [] if names == [function_name] else [statement.with_changes(body=[assign.with_changes(value=cst.Name(function_name))])]
            extra.append((statement, kept))
        self._handled.update(io_ids)
        first_io = next(s for s in body if id(s) in io_ids)
        names = ", ".join(f"`{context.code(s)}`" for s in io_statements)
        self.propose(
            node,
            [rewritten, *pieces],
            anchor=first_io,
            message=(
                f"{names} in compiled `{function_name}`: I/O cannot be compiled and breaks the graph; split "
                f"`{function_name}` into {len(pieces)} compiled piece(s) with the I/O run eagerly between them"
            ),
            safety=Safety.SAFE,
            extra=extra,
        )

    def _module_compile_call(self, function_name: str) -> tuple[cst.SimpleStatementLine, cst.Call] | None:
        if self._compile_calls is None:
            # Module-level `name = torch.compile(f, ...)` statements, by the function compiled
            # (the first for each), found once per module rather than once per function.
            self._compile_calls = {}
            for statement in self.context.module.body:
                if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
                    continue
                assign = statement.body[0]
                if not isinstance(assign, cst.Assign) or not isinstance(assign.value, cst.Call):
                    continue
                call = assign.value
                if (
                    self.context.regions.imports.qualify(call.func) == "torch.compile"
                    and call.args
                    and call.args[0].keyword is None
                    and isinstance(call.args[0].value, cst.Name)
                ):
                    self._compile_calls.setdefault(call.args[0].value.value, (statement, call))
        return self._compile_calls.get(function_name)

    def _is_compile(self, decorator: cst.Decorator) -> bool:
        expression = decorator.decorator
        if isinstance(expression, cst.Call):
            expression = expression.func
        return self.context.regions.imports.qualify(expression) in COMPILE_DECORATORS

    def _splittable(self, body: list[cst.BaseStatement]) -> bool:
        for index, statement in enumerate(body):
            for node in iter_nodes(statement, prune=is_scope):
                if node is not statement and isinstance(node, SCOPE_NODES):
                    return False  # nested functions and classes would need closures across pieces
                if isinstance(node, (cst.Yield, cst.Await, cst.Global, cst.Nonlocal)):
                    return False
                if isinstance(node, cst.Return) and not (index == len(body) - 1 and _is_return(statement)):
                    return False
            if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
                return False
        return True

    # -- defer and guard ------------------------------------------------------------------------

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        context = self.context
        if id(node) in self._handled or not context.in_compiled_region:
            return
        kind = self._io_kind(node)
        if kind is None:
            return
        call = _lone_call(node)
        if call is None:
            self.report(
                node,
                f"`{context.code(node)}` breaks the graph (I/O); it is not a plain call statement, so it is "
                "not rewritten: move it out of the compiled region",
            )
            return
        deferred = self._defer(node, call)
        if deferred is not None:
            return
        if context.regions.imports.aliases.get("torch") != "torch":
            self.report(node, f"`{context.code(node)}` breaks the graph (I/O); add `import torch` to guard it")
            return
        callee = context.regions.imports.qualify(call.func) or ""
        chosen = callee in context.settings.guard_functions
        guard = cst.parse_statement("if not torch.compiler.is_compiling():\n    pass\n")
        assert isinstance(guard, cst.If)
        guard = guard.with_changes(
            body=guard.body.with_changes(body=(node.with_changes(leading_lines=()),)),
            leading_lines=node.leading_lines,
        )
        self.propose(
            node,
            [guard],
            anchor=node,
            message=(
                f"`{context.code(node)}` breaks the graph (I/O); skip it under compilation "
                + ("(chosen in guard-functions: compiled runs skip this I/O)" if chosen else
                   "(unsafe: compiled runs no longer perform this I/O)")
            ),
            safety=Safety.SAFE if chosen else Safety.UNSAFE,
        )

    def _defer(self, node: cst.SimpleStatementLine, call: cst.Call) -> bool | None:
        """Route a constant-argument logging call or print through a reorderable wrapper."""
        context = self.context
        imports = context.regions.imports
        if imports.aliases.get("torch") != "torch":
            return None
        if not all(_constant(arg.value) and not arg.star for arg in call.args):
            return None
        name = imports.qualify(call.func)
        receiver_root: str | None = None
        if name in DEFERRABLE_IO:
            callee = name
        elif (
            isinstance(call.func, cst.Attribute)
            and call.func.attr.value in LOGGING_METHODS
            and self._io_kind(node) == "logging"
        ):
            receiver = dotted_name(call.func.value)
            if receiver is None or "." in receiver or receiver.startswith("self"):
                return None
            receiver_root = receiver
            callee = f"{receiver}.{call.func.attr.value}"
        else:
            return None
        wrapper = WRAPPER_PREFIX + callee.replace(".", "_")
        anchor_statement = self._insertion_point(receiver_root)
        if anchor_statement is None:
            return None
        extra = []
        if wrapper not in context.regions.module_names:
            definition = cst.parse_module(
                f"def {wrapper}(*args, **kwargs):\n"
                f'    """Runs `{callee}` after the compiled graph instead of breaking it ({WRAPPER_MARK})."""\n'
                f"    {callee}(*args, **kwargs)\n"
                f"\n\n"
                f"torch._dynamo.config.reorderable_logging_functions.add({wrapper})\n"
            ).body
            spaced = [definition[0].with_changes(leading_lines=(cst.EmptyLine(), cst.EmptyLine())), *definition[1:]]
            extra.append((anchor_statement, [anchor_statement, *spaced]))
        replaced = node.with_changes(body=[node.body[0].with_changes(value=call.with_changes(func=cst.Name(wrapper)))])
        self.propose(
            node,
            [replaced],
            anchor=node,
            message=(
                f"`{context.code(node)}` breaks the graph (I/O); defer it: call it through `{wrapper}`, which "
                "Dynamo runs after the graph (reorderable_logging_functions)"
            ),
            safety=Safety.SAFE,
            extra=extra,
        )
        return True

    def _insertion_point(self, receiver: str | None) -> cst.CSTNode | None:
        """The module-level statement after which the wrapper goes: after the one binding the
        logger, or after the last top-level import (for print)."""
        module = self.context.module
        found = None
        for statement in module.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            if receiver is None:
                if any(isinstance(small, (cst.Import, cst.ImportFrom)) for small in statement.body):
                    found = statement
            elif receiver in bound_names([statement]):
                found = statement
                break
        return found

    def _io_kind(self, statement: cst.CSTNode) -> str | None:
        breaker = self.context.breakers.statement_breaker(statement)
        return breaker.kind if breaker is not None and breaker.kind in ("io", "logging") else None


def _lone_call(node: cst.SimpleStatementLine) -> cst.Call | None:
    if len(node.body) == 1 and isinstance(node.body[0], cst.Expr) and isinstance(node.body[0].value, cst.Call):
        return node.body[0].value
    return None


def _constant(value: cst.BaseExpression) -> bool:
    if isinstance(value, (cst.SimpleString, cst.Integer, cst.Float)):
        return True
    if isinstance(value, cst.ConcatenatedString):
        return _constant(value.left) and _constant(value.right)
    if isinstance(value, cst.Name):
        return value.value in ("True", "False", "None")
    return False


def _first_parameter(function: cst.FunctionDef) -> str | None:
    params = [*function.params.posonly_params, *function.params.params]
    return params[0].name.value if params else None


def _is_static(function: cst.FunctionDef) -> bool:
    return any(
        isinstance(d.decorator, cst.Name) and d.decorator.value in ("staticmethod", "classmethod")
        for d in function.decorators
    )


def _is_return(statement: cst.BaseStatement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and isinstance(statement.body[-1], cst.Return)
