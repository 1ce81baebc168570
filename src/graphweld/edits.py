"""Line-based text edits: the smallest replacement that turns one text into another, and
applying several non-overlapping ones at once."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Iterable

# Python source lines end in \n, \r\n or \r; str.splitlines would also split on \x0c, \u2028, ...
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def split_lines(text: str) -> list[str]:
    """Lines with their endings, split only where Python itself ends a line."""
    return _LINE.findall(text)


@dataclass(frozen=True)
class TextEdit:
    """Replace lines [start_line, end_line) (0-based) of the original text with `new_text`.

    `definitions`: a pure insertion of self-contained module-level definitions after a statement
    (a wrapper, a custom op, an import). Such insertions at the same place combine when applied
    together, the same text once: changes adding the same helper, or helpers after the same
    import, can then be applied in one round.
    """

    start_line: int
    end_line: int
    new_text: str
    definitions: bool = False
    # In a notebook: the 1-based cell the lines are counted in (display only; never applied).
    cell: int | None = None

    def overlaps(self, other: "TextEdit") -> bool:
        return ranges_overlap((self.start_line, self.end_line), (other.start_line, other.end_line))


def ranges_overlap(first: tuple[int, int], second: tuple[int, int]) -> bool:
    """Whether two [start, end) line ranges conflict; ranges starting on the same line always do
    (two insertions there would have no defined order)."""
    (a_start, a_end), (b_start, b_end) = first, second
    return a_start == b_start or (a_start < b_end and b_start < a_end)


def minimal_edit(old: str, new: str) -> TextEdit:
    """The edit that replaces only the lines that differ between `old` and `new`."""
    old_lines, new_lines = split_lines(old), split_lines(new)
    prefix = 0
    limit = min(len(old_lines), len(new_lines))
    while prefix < limit and old_lines[prefix] == new_lines[prefix]:
        prefix += 1
    suffix = 0
    limit -= prefix
    while suffix < limit and old_lines[-1 - suffix] == new_lines[-1 - suffix]:
        suffix += 1
    return TextEdit(prefix, len(old_lines) - suffix, "".join(new_lines[prefix : len(new_lines) - suffix]))


def minimal_edits(old: str, new: str) -> tuple[TextEdit, ...]:
    """The hunks that turn `old` into `new`, each replacing only lines that differ.

    A change that touches two distant places (a helper defined near the top of the module and the
    call that uses it) becomes two hunks instead of one edit spanning everything between them.
    """
    outer = minimal_edit(old, new)
    old_lines = split_lines(old)[outer.start_line : outer.end_line]
    new_lines = split_lines(outer.new_text)
    if not old_lines or not new_lines:
        return (outer,)
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    hunks = [
        TextEdit(outer.start_line + i1, outer.start_line + i2, "".join(new_lines[j1:j2]))
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]
    return tuple(hunks) or (outer,)


def _definition_order(text: str) -> tuple[bool, str]:
    return not text.lstrip().startswith(("import ", "from ")), text.lstrip()


def apply_edits(text: str, edits: Iterable[TextEdit]) -> str:
    """`text` with every edit applied; the edits must not overlap, except that insertions of
    definitions at the same line combine: each distinct text once, imports first and then by their
    text, so the result does not depend on the order the changes came in.

    At one line, definitions come first, then other insertions, then the replaced lines.
    """
    lines = split_lines(text)
    combined: dict[int, list[str]] = {}
    others: list[TextEdit] = []
    for edit in edits:
        if edit.definitions and edit.start_line == edit.end_line:
            texts = combined.setdefault(edit.start_line, [])
            if edit.new_text not in texts:
                texts.append(edit.new_text)
        else:
            others.append(edit)
    ordered = [*others, *(TextEdit(line, line, "".join(sorted(texts, key=_definition_order))) for line, texts in combined.items())]
    # Later lines first, so earlier indices stay valid; at one line the replacement goes first
    # and insertions after it (each inserted before what is already there).
    for edit in sorted(ordered, key=lambda e: (e.start_line, e.end_line), reverse=True):
        lines[edit.start_line : edit.end_line] = [edit.new_text]
    return "".join(lines)


@dataclass(frozen=True)
class LineMap:
    """Where each line of one version of a file is in another version (1-based lines).

    Every position graphweld shows goes through here when the version it was found in is not the
    version the user is looking at: a site found in the rewritten text, shown against the file as
    it is, or a fix located in the file as it was, shown after the file is written. A line both
    versions share maps to its copy; a line of a region replaced line for line (`print(x)` ->
    `_deferred_print(x)`) to the line replacing it; a line of any other replaced region to the
    first line of its replacement (or, for a removal, to the line that follows it)."""

    # difflib's opcodes over lines: (old start, old end, new start, new end), 0-based.
    regions: tuple[tuple[int, int, int, int], ...]

    @classmethod
    def between(cls, old: str, new: str) -> "LineMap":
        old_lines, new_lines = split_lines(old), split_lines(new)
        if old_lines == new_lines:
            return cls(((0, len(old_lines), 0, len(new_lines)),))
        matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
        regions: list[tuple[int, int, int, int]] = []
        for tag, i1, i2, j1, j2 in _merged_changes(matcher.get_opcodes(), old_lines):
            if tag != "equal" and i2 - i1 > 1 and j2 > j1 and (tag != "replace" or i2 - i1 != j2 - j1):
                regions.extend(_line_by_line(old_lines, new_lines, (i1, i2, j1, j2)))
            else:
                regions.append((i1, i2, j1, j2))
        return cls(tuple(regions))

    def to_new(self, line: int) -> int:
        """A line of the old version in the new one."""
        return self._map(line, 0)

    def to_old(self, line: int) -> int:
        """A line of the new version in the old one."""
        return self._map(line, 2)

    def _map(self, line: int, side: int) -> int:
        other = 2 - side
        index = line - 1
        lines_there = self.regions[-1][other + 1] if self.regions else 0
        for region in self.regions:
            start, end, there_start, there_end = region[side], region[side + 1], region[other], region[other + 1]
            if start <= index < end:
                if end - start == there_end - there_start:
                    return there_start + index - start + 1
                return max(1, min(there_start + 1, lines_there))
        return max(1, min(line, lines_there))


# The most tokens a replaced region may hold on each side for its lines to be told apart (a
# rewrite of a few statements holds a few hundred; matching costs more than linear time).
_REFINED_REGION_TOKENS = 4_000
# Tokens of code: words, and each other character that is not a space.
_TOKEN = re.compile(r"\w+|[^\w\s]")
# A line with a word in it (a line without one: `)`, `]`, blank).
_WORD = re.compile(r"\w")


def _merged_changes(opcodes: list[tuple[str, int, int, int, int]], old_lines: list[str]) -> list[tuple[str, int, int, int, int]]:
    """difflib's opcodes, where lines with no word in them (`)`, `]`, a blank line) that matched
    between two changes are taken into one change: a closing bracket of the old text matched to
    one of the new says nothing of where the lines between went."""
    merged: list[tuple[str, int, int, int, int]] = []
    for index, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        between_changes = 0 < index < len(opcodes) - 1 and merged and merged[-1][0] != "equal"
        if tag == "equal" and not (between_changes and all(_WORD.search(line) is None for line in old_lines[i1:i2])):
            merged.append((tag, i1, i2, j1, j2))
        elif merged and merged[-1][0] != "equal":
            _, start, _, there_start, _ = merged[-1]
            merged[-1] = ("merged", start, i2, there_start, j2)
        else:
            merged.append((tag, i1, i2, j1, j2))
    return merged


def _line_tokens(line: str) -> list[str]:
    """The tokens of a line, after one that stands for its start and indentation: the start of
    a statement matches the start of its replacement rather than the same name further in."""
    return [f"\n{line[: len(line) - len(line.lstrip())]}", *_TOKEN.findall(line)]


def _line_by_line(
    old_lines: list[str], new_lines: list[str], region: tuple[int, int, int, int]
) -> list[tuple[int, int, int, int]]:
    """A replaced region of several lines, cut where each old line's replacement begins: two
    adjacent statements rewritten to calls of several lines each map to their own calls, not both
    to the first. Each old line's first token is followed into the new lines by matching the two
    sides' tokens; without a match the region stays whole."""
    i1, i2, j1, j2 = region
    old_tokens = [_line_tokens(line) for line in old_lines[i1:i2]]
    new_line_of: list[int] = []  # for each token of the new side: its line (relative to j1)
    new_tokens: list[str] = []
    for index, line in enumerate(new_lines[j1:j2]):
        found = _line_tokens(line)
        new_tokens.extend(found)
        new_line_of.extend([index] * len(found))
    flat_old = [token for tokens in old_tokens for token in tokens]
    if not flat_old or not new_tokens or max(len(flat_old), len(new_tokens)) > _REFINED_REGION_TOKENS:
        return [region]
    # Matching blocks (old start, new start, size), in order; the last, of size 0, is dropped.
    blocks = difflib.SequenceMatcher(None, flat_old, new_tokens, autojunk=False).get_matching_blocks()[:-1]
    starts = []  # for each old line: the new line its first token begins on (relative to j1)
    first = 0
    block = 0  # the first block that ends after `first`: lines only move forward
    for tokens in old_tokens:
        while block < len(blocks) and blocks[block][0] + blocks[block][2] <= first:
            block += 1
        if block == len(blocks):
            return [region]
        a, b, _ = blocks[block]
        there = b + max(0, first - a)
        first += len(tokens)
        line_there = new_line_of[min(there, len(new_tokens) - 1)]
        starts.append(max(line_there, starts[-1] if starts else 0))
    starts[0] = 0
    # Old lines whose text begins on the same new line (one statement written over several
    # lines) go together, to that line.
    firsts = [index for index, start in enumerate(starts) if index == 0 or start != starts[index - 1]]
    cut = []
    for number, index in enumerate(firsts):
        old_end = firsts[number + 1] if number + 1 < len(firsts) else i2 - i1
        new_end = starts[old_end] if old_end < len(starts) else j2 - j1
        cut.append((i1 + index, i1 + old_end, j1 + starts[index], j1 + new_end))
    return cut
