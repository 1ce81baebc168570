"""The tree of an edited text, re-parsing only the top-level statements the edits touched.

After a fix round the engine parses the new text again to look for what is left (rules run until
nothing changes). On a big module with one small change, almost all of that parse repeats work:
libcst trees are immutable and carry no positions, so an untouched top-level statement's node is
exactly what a new parse would build. Here the touched statements, with the lines between them,
are parsed on their own and put in place of the old ones; anything unusual (an edit in the
module's header or footer, a segment parsed with another newline or indentation style) falls back
to parsing the whole text.
"""

from __future__ import annotations

import bisect
from typing import Sequence

import libcst as cst

from graphweld import cst_fast
from graphweld.edits import TextEdit, apply_edits, split_lines
from graphweld.positions import top_level_first_lines


def spliced_module(module: cst.Module, old_text: str, edits: Sequence[TextEdit]) -> cst.Module | None:
    """The module of `old_text` (parsed as `module`) with `edits` applied, or None when it must
    be parsed whole (also when a touched statement no longer parses: the whole parse says why)."""
    if not edits or not module.body or not module.has_trailing_newline:
        return None
    try:
        return _splice(module, old_text, edits)
    except Exception:  # noqa: BLE001 - any failure here only means: parse the whole text
        return None


def _splice(module: cst.Module, old_text: str, edits: Sequence[TextEdit]) -> cst.Module | None:
    firsts = top_level_first_lines(module, old_text)
    if firsts is None:
        return None
    lines = split_lines(old_text)
    starts = [line - 1 for line in firsts]
    if starts[0] != len(module.header):
        return None
    ends = [*starts[1:], len(lines) - len(module.footer)]
    # Which statements each edit touches: a replacement the statements its lines overlap; an
    # insertion the statement it follows.
    touched: set[int] = set()
    for edit in edits:
        if edit.start_line < starts[0] or edit.end_line > ends[-1] or edit.start_line == starts[0] == edit.end_line:
            return None  # the module's header or footer
        if edit.end_line > edit.start_line:
            index = bisect.bisect_right(starts, edit.start_line) - 1
            while index < len(starts) and starts[index] < edit.end_line:
                touched.add(index)
                index += 1
        else:
            touched.add(bisect.bisect_left(starts, edit.start_line) - 1)
    body = list(module.body)
    footer = list(module.footer)
    # Runs of touched statements, last first so earlier indices stay valid.
    for first, last in reversed(_runs(sorted(touched))):
        offset = starts[first]
        inside = [
            TextEdit(e.start_line - offset, e.end_line - offset, e.new_text, e.definitions)
            for e in edits
            if offset <= e.start_line <= ends[last] and e.end_line <= ends[last]
        ]
        segment = apply_edits("".join(lines[offset : ends[last]]), inside)
        parsed = cst_fast.parse_module(segment)
        if (
            not parsed.body
            or parsed.default_newline != module.default_newline
            or (parsed.default_indent != module.default_indent and _has_compound(parsed))
        ):
            return None
        statements = list(parsed.body)
        if parsed.header:
            # Comment lines opening the segment belong to its first statement, as in the module.
            statements[0] = statements[0].with_changes(leading_lines=(*parsed.header, *statements[0].leading_lines))
        if parsed.footer:
            # Lines closing the segment belong to the statement after it (or the module's footer).
            if last + 1 < len(body):
                following = body[last + 1]
                body[last + 1] = following.with_changes(leading_lines=(*parsed.footer, *following.leading_lines))
            else:
                footer = [*parsed.footer, *footer]
        body[first : last + 1] = statements
    return module.with_changes(body=body, footer=footer)


def _runs(indices: list[int]) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for index in indices:
        if runs and runs[-1][1] == index - 1:
            runs[-1] = (runs[-1][0], index)
        else:
            runs.append((index, index))
    return runs


def _has_compound(module: cst.Module) -> bool:
    """Whether the module may hold an indented block (whose indentation may be the default)."""
    return any(isinstance(statement, cst.BaseCompoundStatement) for statement in module.body)
