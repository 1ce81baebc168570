"""Splicing: a rule's replacement statements turned into text edits of the original text, each
statement's own lines and indentation kept, falling back to the whole module's code where a
statement cannot be located."""

from __future__ import annotations

from typing import Sequence

import libcst as cst

from graphweld import cst_fast
from graphweld.edits import TextEdit, minimal_edits, split_lines
from graphweld.positions import Span
from graphweld.walk import children, is_expression


class _Replace(cst.CSTTransformer):
    def __init__(self, replacements: dict[int, Sequence[cst.BaseStatement]]) -> None:
        super().__init__()
        self.replacements = replacements

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode):  # type: ignore[override]
        replacement = self.replacements.get(id(original_node))
        if replacement is None:
            return updated_node
        if is_insertion(original_node, replacement) and replacement[-1] is original_node and hasattr(updated_node, "leading_lines"):
            # As the splicer inserts it: below the statement's comments, and two blank lines
            # above a definition.
            first, *rest = replacement[:-1]
            gap = [cst.EmptyLine(), cst.EmptyLine()] if isinstance(original_node, (cst.FunctionDef, cst.ClassDef)) else []
            moved = first.with_changes(leading_lines=[*updated_node.leading_lines, *first.leading_lines])  # type: ignore[union-attr]
            replacement = [moved, *rest, updated_node.with_changes(leading_lines=gap)]  # type: ignore[union-attr]
        return cst.FlattenSentinel(replacement)


class Splicer:
    """The edits of one change, generating code only for the statements it replaces.

    Generating the whole module for every change made files with many sites quadratic (a module
    with a 3,000-line class and 270 sites took minutes). A replaced statement's code is generated
    with the indentation of the blocks around it, checked against the lines the statement
    occupies, and compared with its replacement's code; when the check fails (or targets nest),
    the whole module is generated instead.
    """

    def __init__(self, module: cst.Module, text: str, spans: dict[int, Span], indents: dict[int, list[str]]) -> None:
        self.module = module
        self.text = text
        self.lines = split_lines(text)
        self.spans = spans
        self.known_indents = indents  # found while placing statements, when they were
        self._parents: dict[int, cst.CSTNode] | None = None

    def _indents(self, node: cst.CSTNode) -> list[str] | None:
        """The indentation tokens of the blocks enclosing a statement, outermost first."""
        if id(node) in self.known_indents:
            return self.known_indents[id(node)]
        if self._parents is None:
            # Statements and the blocks holding them only: expressions never hold a statement.
            self._parents = {}
            stack: list[cst.CSTNode] = [self.module]
            while stack:
                parent = stack.pop()
                for child in children(parent):
                    if not is_expression(child):
                        self._parents[id(child)] = parent
                        stack.append(child)
        indents: list[str] = []
        current = self._parents.get(id(node))
        while current is not None and current is not self.module:
            if isinstance(current, cst.IndentedBlock):
                indents.append(current.indent if current.indent is not None else self.module.default_indent)
            current = self._parents.get(id(current))
        return list(reversed(indents)) if current is self.module else None

    def _code(self, nodes: Sequence[cst.CSTNode], indents: list[str]) -> str:
        return cst_fast.code(list(nodes), self.module, indents)

    def _statement_edits(self, target: cst.CSTNode, replacement: Sequence[cst.BaseStatement]) -> list[TextEdit] | None:
        indents = self._indents(target)
        if indents is None or id(target) not in self.spans:
            return None
        old = self._code([target], indents)
        end = self.spans[id(target)].end_line  # exclusive 0-based end: the statement's last line
        start = end - len(split_lines(old))
        if start < 0 or "".join(self.lines[start:end]) != old:
            return None
        if is_insertion(target, replacement):
            if replacement[0] is target:
                return [TextEdit(end, end, self._code(replacement[1:], indents), definitions=True)]
            # Before the statement's own first line (its comments above stay above the insertion),
            # two blank lines apart from a definition. Counted from the statement's code, not its
            # span: a definition's span starts at `def`, below its decorators.
            first = start + len(getattr(target, "leading_lines", ()))
            gap = "\n\n" if isinstance(target, (cst.FunctionDef, cst.ClassDef)) else ""
            return [TextEdit(first, first, self._code(replacement[:-1], indents) + gap, definitions=True)]
        new = self._code(replacement, indents)
        return [TextEdit(e.start_line + start, e.end_line + start, e.new_text) for e in minimal_edits(old, new)]

    def edits(self, targets: Sequence[cst.CSTNode], replacements: dict[int, Sequence[cst.BaseStatement]]) -> tuple[TextEdit, ...]:
        edits: list[TextEdit] = []
        for target in targets:
            found = self._statement_edits(target, replacements[id(target)])
            if found is None:
                edits = []
                break
            edits.extend(found)
        spans = sorted((e.start_line, max(e.end_line, e.start_line)) for e in edits)
        disjoint = all(first[1] <= second[0] for first, second in zip(spans, spans[1:]))
        if edits and disjoint:
            return tuple(sorted(edits, key=lambda e: e.start_line))
        return minimal_edits(self.text, self.module.visit(_Replace(replacements)).code)


def is_insertion(target: cst.CSTNode, replacement: Sequence[cst.BaseStatement]) -> bool:
    """Whether a replacement keeps its target and only adds statements after it (a rule adding
    definitions after an import) or before it (`import torch` above the first definition of a
    module that imports nothing); such a target is not one the change replaces."""
    return len(replacement) > 1 and (replacement[0] is target or replacement[-1] is target)
