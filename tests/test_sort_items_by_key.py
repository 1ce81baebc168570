"""sort-items-by-key, compiled: linear_operator sorts an operator's keyword arguments, tensors
among them, in its constructor; Dynamo cannot compare the pairs (GB0207) and breaks. Sorted by
the keys, the function compiles whole with the same order."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from compile_stats import load_module
from torch._dynamo.utils import counters
from test_golden import settings_for

from graphweld.analysis.torch_api import installed_torch
from graphweld.engine import fix_text

# Depends on what Dynamo does: run again on the current torch release by CI (docs/development.md).
pytestmark = pytest.mark.dynamo

GOLDEN = Path(__file__).parent / "golden" / "sort-items-by-key"

BUILD = '''

def build(x):
    op = Operator(x, scale=x * 2, jitter=1e-4, bias=x - 1)
    return torch.stack(list(op._differentiable_kwargs.values())).sum(0) + op._nondifferentiable_kwargs["jitter"]
'''


def test_the_constructor_compiles_whole_with_the_same_order():
    path = GOLDEN / "linear_operator_kwargs.in.py"
    source = path.read_text()
    rewritten = fix_text(source, str(path), settings_for(path, source)).text
    x = torch.arange(3.0)
    results = []
    for text in (source, rewritten):
        build = load_module(text + BUILD).build
        torch._dynamo.reset()
        counters.clear()
        got = torch.compile(build, backend="eager")(x)
        torch.testing.assert_close(got, build(x), rtol=0, atol=0)
        results.append((got, sum(counters["graph_break"].values())))
    (before, breaks_before), (after, breaks_after) = results
    assert breaks_after == 0
    # Dynamo sorts such items itself from torch 2.14 on; before, the original breaks.
    assert breaks_before >= 1 if installed_torch() < (2, 14) else breaks_before == 0
    torch.testing.assert_close(after, before, rtol=0, atol=0)


def test_the_message_says_when_the_installed_torch_does_not_need_it():
    path = GOLDEN / "linear_operator_kwargs.in.py"
    source = path.read_text()
    (change,) = fix_text(source, str(path), settings_for(path, source)).applied
    unneeded = "not needed on the installed torch" in change.message
    assert unneeded == (installed_torch() >= (2, 14))
