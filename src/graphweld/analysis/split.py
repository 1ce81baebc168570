"""Splitting a compiled function into compiled pieces with some of its statements run eagerly
between them: PyTorch's "Strategy 3: Don't compile the code", shared by the rules that move code
Dynamo cannot compile out of a compiled function (isolate-io's I/O, split-training-step's
backward and optimizer calls).

The function keeps its name, signature and docstring and runs eagerly, calling `_f_part1`,
`_f_part2`, ... (each with the function's own `torch.compile` decorator, or the options of the
module-level `f = torch.compile(f, ...)` that compiled it) with the cut statements between them;
names flow between pieces as arguments and return values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

import libcst as cst

from graphweld.analysis.blocks import split_at
from graphweld.analysis.names import dotted_name
from graphweld.analysis.regions import COMPILE_DECORATORS
from graphweld.analysis.scopes import SCOPE_NODES, bound_names, fresh_name, is_scope, mentioned_names, parameter_names
from graphweld.walk import iter_nodes


@dataclass
class Split:
    """The function as an eager driver, its compiled pieces, the module-level statements that
    change with it (what compiled it), and the statements cut out (in order)."""

    driver: cst.FunctionDef
    pieces: list[cst.FunctionDef]
    extra: list[tuple[cst.CSTNode, list[cst.BaseStatement]]] = field(default_factory=list)
    cuts: list[cst.BaseStatement] = field(default_factory=list)


class FunctionSplitter:
    """Splits the compiled functions of one module (created once per module by its rule context)."""

    def __init__(self, module: cst.Module, regions) -> None:  # type: ignore[no-untyped-def]
        self.module = module
        self.regions = regions
        self._compile_calls: dict[str, tuple[cst.SimpleStatementLine, cst.Call]] | None = None

    def body(self, node: cst.FunctionDef) -> list[cst.BaseStatement] | None:
        """The top-level statements a split would cut among (the docstring aside), when the
        function is one a split applies to: compiled by a decorator or a module-level call, at
        module level or a method (not static), with a body that can be cut into pieces."""
        if self._decorators(node) is None or not isinstance(node.body, cst.IndentedBlock):
            return None
        statements = list(node.body.body)
        body = statements[1:] if node.get_docstring() is not None else statements
        return body if _splittable(body) else None

    def split(self, node: cst.FunctionDef, is_cut: Callable[[cst.BaseStatement], bool]) -> Split | None:
        """The function cut at the top-level statements `is_cut` names, or None when it cannot
        be (see `body`) or no statement is cut."""
        found = self._decorators(node)
        body = self.body(node)
        if found is None or body is None or not any(is_cut(s) for s in body):
            return None
        compile_decorators, compile_call, receiver = found
        info = self.regions.function_info(node)
        statements = list(node.body.body)  # type: ignore[attr-defined]
        docstring = statements[: len(statements) - len(body)]
        segments, cuts = split_at(body, is_cut)
        function_name = node.name.value
        params = parameter_names(node)
        taken = self.regions.module_names | (set(info.cls.methods) if info.cls is not None else set())
        local_names = params | bound_names(body)
        glue: list[cst.BaseStatement] = list(docstring)
        pieces: list[cst.FunctionDef] = []
        available = set(params)
        for index, segment in enumerate(segments):
            later = [*cuts[index:], *(s for seg in segments[index + 1 :] for s in seg)]
            if segment and _moves_names_only(segment):
                # `x, y = batch` or `return loss`: nothing to compile, so no piece for it.
                glue.extend(segment)
                available |= bound_names(segment)
            elif segment:
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
            if index < len(cuts):
                glue.append(cuts[index])
                available |= bound_names([cuts[index]])
        other_decorators = [d for d in node.decorators if not self._is_compile(d)]
        driver = node.with_changes(decorators=tuple(other_decorators), body=node.body.with_changes(body=tuple(glue)))
        extra: list[tuple[cst.CSTNode, list[cst.BaseStatement]]] = []
        if compile_call is not None:
            # The function itself now runs eagerly; what compiled it refers to it directly.
            statement, _ = compile_call
            assign = statement.body[0]
            assert isinstance(assign, cst.Assign)
            names = [dotted_name(t.target) for t in assign.targets]
            kept = [] if names == [function_name] else [statement.with_changes(body=[assign.with_changes(value=cst.Name(function_name))])]
            extra.append((statement, kept))
        return Split(driver, pieces, extra, cuts)

    def _decorators(self, node: cst.FunctionDef) -> tuple[list[cst.Decorator], tuple | None, str | None] | None:
        """The decorators the pieces get, the module-level compile call (if that is what compiles
        the function) and the receiver of a method; None when the function is not one to split."""
        info = self.regions.function_info(node)
        if info is None or info.parent is not None or info.outer is not None:
            return None
        # A method's pieces are methods of its class, called through `self`.
        receiver = _first_parameter(node) if info.cls is not None else None
        if info.cls is not None and (receiver is None or _is_static(node)):
            return None
        compile_decorators = [d for d in node.decorators if self._is_compile(d)]
        compile_call = None
        if not compile_decorators and info.cls is None:
            # `name = torch.compile(f, **options)` at module level: the options move to the pieces.
            compile_call = self._module_compile_call(node.name.value)
            if compile_call is not None:
                _, call = compile_call
                options = ", ".join(self.module.code_for_node(arg).rstrip(", ") for arg in call.args[1:])
                decorator = cst.parse_statement(f"@torch.compile({options})\ndef _():\n    pass\n")
                assert isinstance(decorator, cst.FunctionDef)
                compile_decorators = list(decorator.decorators)
        if not compile_decorators:
            return None
        return compile_decorators, compile_call, receiver

    def _module_compile_call(self, function_name: str) -> tuple[cst.SimpleStatementLine, cst.Call] | None:
        if self._compile_calls is None:
            # Module-level `name = torch.compile(f, ...)` statements, by the function compiled
            # (the first for each), found once per module rather than once per function.
            self._compile_calls = {}
            for statement in self.module.body:
                if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
                    continue
                assign = statement.body[0]
                if not isinstance(assign, cst.Assign) or not isinstance(assign.value, cst.Call):
                    continue
                call = assign.value
                if (
                    self.regions.imports.qualify(call.func) == "torch.compile"
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
        return self.regions.imports.qualify(expression) in COMPILE_DECORATORS


def _splittable(body: Sequence[cst.BaseStatement]) -> bool:
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


# Nodes that compute something: a segment without any only moves names about.
_COMPUTING = (
    cst.Call, cst.BinaryOperation, cst.UnaryOperation, cst.BooleanOperation, cst.Comparison, cst.Subscript,
    cst.IfExp, cst.Lambda, cst.Await, cst.Yield, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp,
    cst.FormattedString, cst.AugAssign, cst.Del,
)  # fmt: skip


def _moves_names_only(segment: Sequence[cst.BaseStatement]) -> bool:
    """Whether a segment only binds, unpacks or returns names (and constants)."""
    return all(
        isinstance(statement, cst.SimpleStatementLine)
        and not any(isinstance(node, _COMPUTING) for node in iter_nodes(statement))
        for statement in segment
    )
