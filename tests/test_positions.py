"""Positions of statements placed by CPython's parser equal those of generating the whole module."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from graphweld import positions
from graphweld.walk import iter_nodes

TRICKY = '''# header comment

import torch


# comment above decorators
@torch.compile
# between decorator and def
@other(
    1,
)
def f(x):  # trailing
    """Doc."""
    a = 1; b = 2  # two on one line
    if a:
        pass
    elif b:
        print(b)
        # footer comment of the elif block
    else:
        (
            print(a)
        )
    match x:
        case 1:
            return 1
        case _:
            pass
    try:
        pass
    except* ValueError:
        pass
    for i in range(2): print(i)
    with open("f") as fh:
        x = fh.read()

        # blank line then comment
    return x


class C:
    def method(self):
        while True:
            break
        else:
            pass
'''


def _statements(module: cst.Module) -> list[cst.CSTNode]:
    return [n for n in iter_nodes(module) if isinstance(n, (cst.SimpleStatementLine, cst.BaseCompoundStatement))]


def _texts() -> list[str]:
    cases = sorted((Path(__file__).parent / "golden").glob("*/*.in.py"))
    texts = [TRICKY, TRICKY.replace("\n", "\r\n"), TRICKY.rstrip("\n"), *(case.read_text() for case in cases)]
    return texts


@pytest.mark.parametrize("text", _texts(), ids=lambda text: text.splitlines()[0][:40] if text else "empty")
def test_statement_spans_equal_whole_module_spans(text: str):
    module = cst.parse_module(text)
    statements = _statements(module)
    placed = positions.node_spans(module, statements, text)
    assert placed == positions.node_spans(module, statements)
    # Placed without generating the whole module (a file without a final newline is generated whole).
    if text.endswith("\n"):
        assert positions._statement_spans(module, {id(s): s for s in statements}, text) is not None


def test_one_statement_at_a_time_and_expressions_fall_back():
    module = cst.parse_module(TRICKY)
    for statement in _statements(module):
        assert positions.node_spans(module, [statement], TRICKY) == positions.node_spans(module, [statement])
    call = next(n for n in iter_nodes(module) if isinstance(n, cst.Call))
    assert positions.node_spans(module, [call], TRICKY) == positions.node_spans(module, [call])
