"""Statement-block helpers shared by the rules that split a block around a graph break."""

from __future__ import annotations

from typing import Callable, Iterator, Sequence

import libcst as cst

from graphweld.analysis.breakers import Breaker, BreakerCatalog
from graphweld.analysis.names import ImportTable
from graphweld.analysis.torch_api import IS_COMPILING
from graphweld.walk import iter_nodes


# One-line suites rebuilt as lines, by suite identity, so that repeated calls return the same
# nodes (rules compare statements by identity). Holding the suite keeps its id from being reused.
_SUITE_LINES: dict[int, tuple[cst.SimpleStatementSuite, list[cst.BaseStatement]]] = {}


def block_statements(body: cst.BaseSuite) -> list[cst.BaseStatement]:
    """The statements of a block; a one-line suite (`with x: a; b`) becomes one line per statement."""
    if isinstance(body, cst.IndentedBlock):
        return list(body.body)
    assert isinstance(body, cst.SimpleStatementSuite)
    cached = _SUITE_LINES.get(id(body))
    if cached is None or cached[0] is not body:
        if len(_SUITE_LINES) > 256:
            _SUITE_LINES.clear()
        lines: list[cst.BaseStatement] = [
            cst.SimpleStatementLine(body=[small.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)])
            for small in body.body
        ]
        cached = _SUITE_LINES[id(body)] = (body, lines)
    return list(cached[1])


def statement_before(scope: cst.CSTNode, statement: cst.BaseStatement) -> cst.BaseStatement | None:
    """The statement just before `statement` in the indented block of `scope` that holds it;
    None when it is first in its block or not in an indented block of `scope`."""
    for node in iter_nodes(scope):
        if isinstance(node, cst.IndentedBlock):
            for index, candidate in enumerate(node.body):
                if candidate is statement:
                    return node.body[index - 1] if index else None
    return None


def with_statements(body: cst.BaseSuite, statements: Sequence[cst.BaseStatement]) -> cst.IndentedBlock:
    """`body` holding `statements` instead, always as an indented block."""
    if isinstance(body, cst.IndentedBlock):
        return body.with_changes(body=tuple(statements))
    return cst.IndentedBlock(body=tuple(statements), header=body.trailing_whitespace)


def split_at(
    statements: Sequence[cst.BaseStatement], is_cut: Callable[[cst.BaseStatement], bool]
) -> tuple[list[list[cst.BaseStatement]], list[cst.BaseStatement]]:
    """Segments between cut statements, and the cut statements: s0 c1 s1 c2 s2 ..."""
    segments: list[list[cst.BaseStatement]] = [[]]
    cuts: list[cst.BaseStatement] = []
    for statement in statements:
        if is_cut(statement):
            cuts.append(statement)
            segments.append([])
        else:
            segments[-1].append(statement)
    return segments, cuts


def nested_breakers(
    statements: Sequence[cst.BaseStatement],
    catalog: BreakerCatalog,
    skip: Callable[[cst.CSTNode], bool] = lambda node: False,
) -> Iterator[tuple[cst.CSTNode, Breaker, cst.BaseCompoundStatement]]:
    """Breaking statements nested inside compound statements of a block.

    Yields (breaking statement, breaker, the top-level compound statement holding it). Nested
    function and class bodies are not entered: they do not run where they are written; nor is
    any node for which `skip` is true (a block that another rule visit reports on its own).
    """
    for statement in statements:
        if not isinstance(statement, cst.BaseCompoundStatement):
            continue
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)) or runs_only_eagerly(statement, catalog.imports):
            continue
        def prune(node: cst.CSTNode) -> bool:
            return (
                isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.SimpleStatementLine))
                or skip(node) or runs_only_eagerly(node, catalog.imports)
            )

        for node in iter_nodes(statement, prune):
            if node is statement or isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)) or skip(node):
                continue
            if isinstance(node, cst.SimpleStatementLine):
                breaker = catalog.statement_breaker(node)
                if breaker is not None:
                    yield node, breaker, statement


def runs_only_eagerly(node: cst.CSTNode, imports: ImportTable) -> bool:
    """An `if not torch.compiler.is_compiling():` block (isolate-io's guard): its body never runs
    compiled, so nothing in it breaks a graph. Its `else`, if any, does run compiled."""
    if not isinstance(node, cst.If) or node.orelse is not None:
        return False
    test = node.test
    return isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not) and calls_is_compiling(test.expression, imports)


def eager_only(statement: cst.BaseStatement, torch_name: str) -> cst.If:
    """`statement` under `if not torch.compiler.is_compiling():` (what `runs_only_eagerly` finds),
    the block taking its leading lines."""
    return cst.If(
        test=cst.parse_expression(f"not {torch_name}.compiler.is_compiling()"),
        body=cst.IndentedBlock(body=[statement.with_changes(leading_lines=())]),
        leading_lines=statement.leading_lines,
    )


def calls_is_compiling(node: cst.CSTNode, imports: ImportTable) -> bool:
    """`torch.compiler.is_compiling()` (or `torch._dynamo.is_compiling()`), as the module imports it."""
    return isinstance(node, cst.Call) and imports.qualify(node.func) in IS_COMPILING


def terminates(statements: Sequence[cst.BaseStatement]) -> bool:
    """Whether a block always leaves by raise/return/break/continue at its last statement."""
    if not statements:
        return False
    last = statements[-1]
    if isinstance(last, cst.SimpleStatementLine) and last.body:
        return isinstance(last.body[-1], (cst.Raise, cst.Return, cst.Break, cst.Continue))
    return False


def compound_keyword(statement: cst.BaseCompoundStatement) -> str:
    """The keyword that opens a compound statement, for messages."""
    return {
        cst.If: "if",
        cst.For: "for",
        cst.While: "while",
        cst.With: "with",
        cst.Try: "try",
        cst.TryStar: "try",
        cst.Match: "match",
    }.get(type(statement), type(statement).__name__.lower())


def definitions_anchor(module: cst.Module) -> cst.SimpleStatementLine | None:
    """The top-level statement after which new module-level definitions go: the last import line
    before the first function or class (so the definitions sit below the imports they use)."""
    anchor = None
    for statement in module.body:
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            break
        if isinstance(statement, cst.SimpleStatementLine) and all(
            isinstance(small, (cst.Import, cst.ImportFrom)) for small in statement.body
        ):
            anchor = statement
    return anchor


def torch_import_edit(
    module: cst.Module, avoid: cst.CSTNode | None = None
) -> tuple[cst.CSTNode, list[cst.BaseStatement]] | None:
    """The edit adding `import torch` at module level, as (statement, its replacement): after the
    imports; in a module with none (a helper module that only calls tensor methods), before its
    first statement after the docstring. None when that statement is `avoid` (the change itself
    replaces it) or the module is empty."""
    statement = cst.parse_statement("import torch\n")
    anchor = definitions_anchor(module)
    if anchor is not None:
        return anchor, [anchor, statement]
    body = list(module.body)
    if body and isinstance(body[0], cst.SimpleStatementLine) and len(body[0].body) == 1:
        only = body[0].body[0]
        if isinstance(only, cst.Expr) and isinstance(only.value, (cst.SimpleString, cst.ConcatenatedString)):
            body = body[1:]  # the docstring
    if not body or body[0] is avoid:
        return None
    return body[0], [statement, body[0]]


def importing_torch(statements: Sequence[cst.BaseStatement]) -> list[cst.BaseStatement]:
    """The statements with `import torch` in front, in the place of the first (its leading blank
    lines and comments go above the import; a definition after it gets the two blank lines
    that separate top-level definitions)."""
    first, *rest = statements
    spacing = [cst.EmptyLine(), cst.EmptyLine()] if isinstance(first, (cst.FunctionDef, cst.ClassDef)) else []
    statement = cst.parse_statement("import torch\n").with_changes(leading_lines=first.leading_lines)
    return [statement, first.with_changes(leading_lines=spacing), *rest]


def binds_at_module_level(module: cst.Module, name: str, before: cst.CSTNode | None = None) -> bool:
    """Whether a top-level import line, up to and including `before`, binds `name`: `import torch`
    and `import torch.nn` bind `torch`; `import torch.nn as nn` binds `nn`."""
    for statement in module.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Import) and any(bound_by_alias(alias) == name for alias in small.names):
                    return True
        if statement is before:
            break
    return False


def bound_by_alias(alias: cst.ImportAlias) -> str | None:
    """The name an import alias binds: `import torch.nn` binds `torch`, `import torch.nn as nn` `nn`."""
    if alias.asname is not None:
        return alias.asname.name.value if isinstance(alias.asname.name, cst.Name) else None
    name: cst.BaseExpression = alias.name
    while isinstance(name, cst.Attribute):
        name = name.value
    return name.value if isinstance(name, cst.Name) else None


def names_torch(statements: Sequence[cst.CSTNode]) -> bool:
    """Whether the statements read the name `torch` (`torch.compiler.is_compiling()`)."""
    for statement in statements:
        nodes = list(iter_nodes(statement))
        attributes = {id(node.attr) for node in nodes if isinstance(node, cst.Attribute)}
        if any(isinstance(node, cst.Name) and node.value == "torch" and id(node) not in attributes for node in nodes):
            return True
    return False


def torch_is_local(function: cst.FunctionDef) -> bool:
    """Whether `torch` is a local name of the function (it imports torch itself, anywhere in its
    body): a module-level import does not reach its code."""
    from graphweld.analysis.scopes import bound_names

    body = function.body.body if isinstance(function.body, cst.IndentedBlock) else ()
    return "torch" in bound_names(body)


def torch_imported_before(function: cst.FunctionDef, target: cst.CSTNode) -> bool:
    """Whether a statement of the function's own body above the one holding `target` imports
    torch (so every path to `target` has bound it)."""
    body = function.body.body if isinstance(function.body, cst.IndentedBlock) else ()
    for statement in body:
        if statement is target or any(node is target for node in iter_nodes(statement)):
            return False
        if isinstance(statement, cst.SimpleStatementLine) and binds_torch([statement]):
            return True
    return False


def binds_torch(statements: Sequence[cst.CSTNode]) -> bool:
    """Whether the statements bind `torch` outside functions and classes: `import torch` (or
    `import torch.nn`, `from x import torch`), also inside a top-level `try`, `if` or `with`."""

    def binds(statement: cst.CSTNode) -> bool:
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            return False
        if isinstance(statement, cst.Import):
            return any(bound_by_alias(alias) == "torch" for alias in statement.names)
        if isinstance(statement, cst.ImportFrom):
            names = statement.names if isinstance(statement.names, Sequence) else ()
            return any(bound_by_alias(alias) == "torch" for alias in names)
        return any(binds(child) for child in statement.children)

    return any(binds(statement) for statement in statements)


def tests_not_compiling(test: cst.BaseExpression) -> bool:
    """`not torch.compiler.is_compiling()` (or `torch._dynamo.is_compiling()`, any spelling)."""
    if not (isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)):
        return False
    call = test.expression
    return isinstance(call, cst.Call) and isinstance(call.func, (cst.Attribute, cst.Name)) and (
        (call.func.attr.value if isinstance(call.func, cst.Attribute) else call.func.value) == "is_compiling"
    )
