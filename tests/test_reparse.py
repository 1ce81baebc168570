"""After a fix round, the next round's tree is spliced from the old one: it must be exactly the
tree a whole parse of the new text gives."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from graphweld.edits import TextEdit, apply_edits
from graphweld.engine import propose
from graphweld.reparse import spliced_module
from graphweld.settings import Settings

CASES = sorted((Path(__file__).parent / "golden").glob("*/*.in.py"))

MODULE = """# header

import torch


def first(x):
    return x


# comment of second
def second(x):
    if x:
        return 1
        # footer of the block
    return 2
x = 1; y = 2
"""


def _same_as_whole_parse(old: str, edits: list[TextEdit]) -> cst.Module | None:
    module = cst.parse_module(old)
    spliced = spliced_module(module, old, edits)
    new = apply_edits(old, edits)
    if spliced is not None:
        assert spliced.code == new
        assert spliced.deep_equals(cst.parse_module(new))
    return spliced


@pytest.mark.parametrize("case", CASES, ids=lambda case: f"{case.parent.name}/{case.name}")
def test_every_golden_change_splices_into_the_tree_of_a_whole_parse(case: Path):
    text = case.read_text()
    for change in propose(text, "case.py", Settings(unsafe_fixes=True, assume_compiled=True)).changes:
        _same_as_whole_parse(text, list(change.edits))


@pytest.mark.parametrize(
    "edits",
    [
        [TextEdit(6, 7, "    return x + 1\n")],  # inside a function
        [TextEdit(7, 7, "\n\ndef inserted():\n    pass\n", definitions=True)],  # after a statement
        [TextEdit(15, 16, "x = 3\n")],  # the last statement
        [TextEdit(15, 16, "x = 3\n\n# trailing comment\n")],  # lines after it join the footer
        [TextEdit(12, 13, "        return 10\n"), TextEdit(6, 7, "    return -x\n")],  # two places
        [TextEdit(7, 10, "\n# moved comment\n\n")],  # comment lines before the next statement
    ],
)
def test_edits_anywhere_between_statements(edits: list[TextEdit]):
    assert _same_as_whole_parse(MODULE, edits) is not None


def test_the_header_or_a_broken_statement_means_a_whole_parse():
    assert _same_as_whole_parse(MODULE, [TextEdit(0, 1, "# other header\n")]) is None
    assert spliced_module(cst.parse_module(MODULE), MODULE, [TextEdit(6, 7, "    return (\n")]) is None
    crlf = MODULE.replace("\n", "\r\n")
    assert _same_as_whole_parse(crlf, [TextEdit(15, 16, "x = 3\n")]) is None  # the segment's own style
    assert _same_as_whole_parse(crlf, [TextEdit(6, 7, "    return 0\r\n")]) is not None
