"""Line and column positions of a few nodes, from plain code generation.

libcst's PositionProvider records a range for every node of the module (a full visit, then code
generation with a context manager around each node); a run needs positions only for the handful of
nodes rules point at, and on big files the provider cost more than everything else together.

When the wanted nodes are statements (what rules point at), CPython's parser, ten times faster
than libcst's, says on which line each statement starts; only the wanted statements are then
generated, each from its own first line, and each generated text is checked against the source
lines it claims. Otherwise, or when a check fails, the whole module is generated once with a state
that notes where the wanted nodes begin and end.
Positions follow PositionProvider's conventions: 1-based lines, 0-based columns, a statement starts
after its leading comment lines and indentation, a function or class at `def`/`class` (after its
decorators), and ends at its last line, before a trailing comment.
"""

from __future__ import annotations

import ast
import warnings
from dataclasses import dataclass
from typing import Iterable, Iterator, Sequence

import libcst as cst

from graphweld.cst_fast import PlainCodegenState
from graphweld.edits import split_lines


@dataclass(frozen=True)
class Span:
    start_line: int
    start_column: int
    end_line: int
    end_column: int


class _Recorder(PlainCodegenState):
    def __init__(self, module: cst.Module, wanted: dict[int, cst.CSTNode], first_line: int = 1) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        self.wanted = wanted
        # A function or class starts where its name is written (its `def` line).
        self.named = {id(node.name): node for node in wanted.values() if isinstance(node, (cst.FunctionDef, cst.ClassDef))}
        self.starts: dict[int, tuple[int, int]] = {}
        self.spans: dict[int, Span] = {}
        self._scanned = 0
        self._line = first_line
        self._current = ""  # text of the current line so far
        self._previous = ""  # the last complete line, without its line break

    def _advance(self) -> None:
        tokens = self.tokens
        for index in range(self._scanned, len(tokens)):
            token = tokens[index]
            if "\n" not in token and "\r" not in token:
                self._current += token
                continue
            for piece in token.splitlines(keepends=True):
                if piece.endswith(("\n", "\r")):
                    self._line += 1
                    self._previous = (self._current + piece).rstrip("\r\n")
                    self._current = ""
                else:
                    self._current += piece
        self._scanned = len(tokens)

    def before_codegen(self, node: cst.CSTNode) -> None:
        key = id(node)
        owner = self.named.get(key)
        if owner is not None:
            self._advance()
            self.starts[id(owner)] = (self._line, len("".join(self.indent_tokens)))
        if key not in self.wanted or isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            return
        self._advance()
        if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            # Its leading lines are whole lines (comments, blank lines) before the statement.
            self.starts[key] = (self._line + len(node.leading_lines), len("".join(self.indent_tokens)))
        else:
            self.starts[key] = (self._line, len(self._current))

    def after_codegen(self, node: cst.CSTNode) -> None:
        key = id(node)
        if key not in self.wanted:
            return
        self._advance()
        if self._current:
            end_line, last = self._line, self._current
        else:
            end_line, last = self._line - 1, self._previous
        comment = node.trailing_whitespace.comment if isinstance(node, cst.SimpleStatementLine) else None
        if comment is not None and last.rstrip().endswith(comment.value):
            last = last.rstrip()[: -len(comment.value)]
        start_line, start_column = self.starts.get(key, (end_line, 0))
        self.spans[key] = Span(start_line, start_column, end_line, len(last.rstrip()))


def node_spans(
    module: cst.Module,
    nodes: Iterable[cst.CSTNode],
    text: str | None = None,
    indents: dict[int, list[str]] | None = None,
) -> dict[int, Span]:
    """The span of each node (by id) in `module.code` (`text`, when given, is that code: it lets
    statements be placed without generating the whole module); nodes not in the module are left
    out. When statements are placed, `indents` (if given) receives the indentation of the blocks
    around each wanted statement."""
    wanted = {id(node): node for node in nodes}
    if not wanted:
        return {}
    if text is not None:
        spans = _statement_spans(module, wanted, text, indents)
        if spans is not None:
            return spans
    recorder = _Recorder(module, wanted)
    module._codegen(recorder)
    return recorder.spans


_STATEMENTS = (cst.SimpleStatementLine, cst.BaseCompoundStatement)
# The concrete compound statements: a set lookup on the type is much cheaper than `isinstance`
# with libcst's abstract base class, and placing statements asks for every statement.
COMPOUND_STATEMENTS = frozenset(
    (cst.FunctionDef, cst.ClassDef, cst.If, cst.For, cst.While, cst.With, cst.Try, cst.TryStar, cst.Match)
)
_TRY_NODES = (ast.Try, getattr(ast, "TryStar", ast.Try))  # `try/except*` is Python 3.11+


def _statement_spans(
    module: cst.Module, wanted: dict[int, cst.CSTNode], text: str, indents_out: dict[int, list[str]] | None = None
) -> dict[int, Span] | None:
    """Spans of wanted statements, each generated alone from the line CPython's parser puts it
    on; None when a wanted node is not a statement or any placement cannot be confirmed."""
    if not all(isinstance(node, _STATEMENTS) for node in wanted.values()):
        return None
    lines = split_lines(text)
    spans: dict[int, Span] = {}
    try:
        elif_clauses: set[int] = set()
        for statement, first_line, indents, _ in placements(module, text):
            if isinstance(statement, cst.If) and isinstance(statement.orelse, cst.If):
                elif_clauses.add(id(statement.orelse))
            key = id(statement)
            if key in wanted and indents_out is not None:
                indents_out[key] = indents
            if key not in wanted or key in spans:
                continue
            recorder = _Recorder(module, wanted, first_line)
            recorder.indent_tokens = list(indents)
            if key in elif_clauses:
                statement._codegen(recorder, is_elif=True)
            else:
                statement._codegen(recorder)
            generated = "".join(recorder.tokens)
            if "".join(lines[first_line - 1 : first_line - 1 + len(split_lines(generated))]) != generated:
                return None
            spans.update(recorder.spans)
    except (SyntaxError, ValueError, RecursionError, MemoryError, _Misplaced):
        return None
    return spans if all(key in spans for key in wanted) else None


class _Misplaced(Exception):
    """libcst's and CPython's statements did not line up."""


def python_tree(text: str) -> ast.Module:
    """CPython's tree of `text`, without the warnings its parser emits (invalid escapes, ...)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(text)


Placement = tuple[cst.CSTNode, int, list[str], Sequence[ast.stmt]]
_last_placements: tuple[cst.Module, str, list[Placement] | None] | None = None


def placements(module: cst.Module, text: str) -> list[Placement]:
    """Every statement of `module` (whose code is `text`) placed by CPython's parser: see
    `_placed_statements`. The last result is kept: a round asks for it up to three times (lines
    of simple statements, spans of findings, top-level lines for the next round's splice).
    Raises SyntaxError (and the like) or _Misplaced when the statements cannot be placed."""
    global _last_placements
    if _last_placements is None or _last_placements[0] is not module or _last_placements[1] is not text:
        tree = python_tree(text)
        try:
            placed: list[Placement] | None = list(_placed_statements(module.body, tree.body, [], module.default_indent))
        except _Misplaced:
            placed = None
        _last_placements = (module, text, placed)
    placed = _last_placements[2]
    if placed is None:
        raise _Misplaced
    return placed


def simple_statement_lines(module: cst.Module, text: str) -> dict[int, tuple[int, int]] | None:
    """The first and last line of the code of every line of simple statements (by id), by
    CPython's parser; None when that cannot be told."""
    try:
        return {
            id(statement): (parsed[0].lineno, parsed[-1].end_lineno or parsed[-1].lineno)
            for statement, _, _, parsed in placements(module, text)
            if type(statement) is cst.SimpleStatementLine
        }
    except (SyntaxError, ValueError, RecursionError, MemoryError, _Misplaced):
        return None


def top_level_first_lines(module: cst.Module, text: str) -> list[int] | None:
    """The first line (1-based, leading comment lines included) of each of the module's
    top-level statements, by CPython's parser; None when that cannot be told."""
    try:
        placed = placements(module, text)
    except (SyntaxError, ValueError, RecursionError, MemoryError, _Misplaced):
        return None
    top_level = {id(statement) for statement in module.body}
    return [line for statement, line, _, _ in placed if id(statement) in top_level]


def _placed_statements(
    statements: Sequence[cst.CSTNode],
    parsed: Sequence[ast.stmt],
    indents: list[str],
    default_indent: str,
) -> Iterator[Placement]:
    """Each libcst statement with the first line of its code (leading comment lines included),
    the indentation of its block and CPython's statements for it, outer statements before inner
    ones."""
    index = 0
    for statement in statements:
        statement_type = type(statement)
        if statement_type is cst.SimpleStatementLine:
            count = len(statement.body)
            if index + count > len(parsed):
                raise _Misplaced
            first = parsed[index].lineno
            index += count
            yield statement, first - len(statement.leading_lines), indents, parsed[index - count : index]
            continue
        if statement_type not in COMPOUND_STATEMENTS or index >= len(parsed):
            raise _Misplaced
        node = parsed[index]
        index += 1
        first = node.lineno
        leading = len(statement.leading_lines)
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)) and statement.decorators:
            decorator_list = getattr(node, "decorator_list", None)
            if not decorator_list:
                raise _Misplaced
            first = decorator_list[0].lineno
            leading += len(statement.decorators[0].leading_lines)
        yield statement, first - leading, indents, (node,)
        if isinstance(statement, cst.If):
            # `elif` clauses: statements too, nested in CPython as the only statement of `else`.
            clause, parsed_clause = statement.orelse, node
            while isinstance(clause, cst.If):
                if not (isinstance(parsed_clause, ast.If) and len(parsed_clause.orelse) == 1):
                    raise _Misplaced
                parsed_clause = parsed_clause.orelse[0]
                yield clause, parsed_clause.lineno - len(clause.leading_lines), indents, (parsed_clause,)
                clause = clause.orelse
        # The cases of a `match` are indented once more than it; their bodies again.
        outer = indents
        if isinstance(statement, cst.Match):
            outer = [*indents, statement.indent if statement.indent is not None else default_indent]
        for block, inner in _blocks(statement, node):
            if isinstance(block, cst.IndentedBlock):
                indent = block.indent if block.indent is not None else default_indent
                yield from _placed_statements(block.body, inner, [*outer, indent], default_indent)
    if index != len(parsed):
        raise _Misplaced


def _blocks(statement: cst.BaseCompoundStatement, node: ast.stmt) -> Iterator[tuple[cst.BaseSuite, list[ast.stmt]]]:
    """The suites of a compound statement paired with the statement lists CPython has for them."""
    if isinstance(statement, (cst.FunctionDef, cst.ClassDef, cst.With)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.With, ast.AsyncWith)):
            raise _Misplaced
        yield statement.body, node.body
    elif isinstance(statement, (cst.For, cst.While)):
        if not isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            raise _Misplaced
        yield statement.body, node.body
        if statement.orelse is not None:
            yield statement.orelse.body, node.orelse
    elif isinstance(statement, cst.If):
        if not isinstance(node, ast.If):
            raise _Misplaced
        yield statement.body, node.body
        orelse = statement.orelse
        if isinstance(orelse, cst.Else):
            yield orelse.body, node.orelse
        elif isinstance(orelse, cst.If):
            # `elif`: CPython nests it as the only statement of the `else` list.
            if len(node.orelse) != 1:
                raise _Misplaced
            yield from _blocks(orelse, node.orelse[0])
    elif isinstance(statement, (cst.Try, cst.TryStar)):
        if not isinstance(node, _TRY_NODES) or len(node.handlers) != len(statement.handlers):
            raise _Misplaced
        yield statement.body, node.body
        for handler, parsed_handler in zip(statement.handlers, node.handlers):
            yield handler.body, parsed_handler.body
        if statement.orelse is not None:
            yield statement.orelse.body, node.orelse
        if statement.finalbody is not None:
            yield statement.finalbody.body, node.finalbody
    elif isinstance(statement, cst.Match):
        if not isinstance(node, ast.Match) or len(node.cases) != len(statement.cases):
            raise _Misplaced
        for case, parsed_case in zip(statement.cases, node.cases):
            yield case.body, parsed_case.body
    else:
        raise _Misplaced
