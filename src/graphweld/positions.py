"""Line and column positions of a few nodes, from one plain code generation.

libcst's PositionProvider records a range for every node of the module (a full visit, then code
generation with a context manager around each node); a run needs positions only for the handful of
nodes rules point at, and on big files the provider cost more than everything else together. This
generates the module's code once with a state that notes where the wanted nodes begin and end.
Positions follow PositionProvider's conventions: 1-based lines, 0-based columns, a statement starts
after its leading comment lines and indentation, a function or class at `def`/`class` (after its
decorators), and ends at its last line, before a trailing comment.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import libcst as cst
from libcst._nodes.internal import CodegenState


@dataclass(frozen=True)
class Span:
    start_line: int
    start_column: int
    end_line: int
    end_column: int


class _Recorder(CodegenState):
    def __init__(self, module: cst.Module, wanted: dict[int, cst.CSTNode]) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        self.wanted = wanted
        # A function or class starts where its name is written (its `def` line).
        self.named = {id(node.name): node for node in wanted.values() if isinstance(node, (cst.FunctionDef, cst.ClassDef))}
        self.starts: dict[int, tuple[int, int]] = {}
        self.spans: dict[int, Span] = {}
        self._scanned = 0
        self._line = 1
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


def node_spans(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> dict[int, Span]:
    """The span of each node (by id) in `module.code`; nodes not in the module are left out."""
    wanted = {id(node): node for node in nodes}
    if not wanted:
        return {}
    recorder = _Recorder(module, wanted)
    module._codegen(recorder)
    return recorder.spans
