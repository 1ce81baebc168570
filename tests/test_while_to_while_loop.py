"""while-to-while-loop, compiled: a loop to a fixed point on a tensor's value (kornia's Canny
hysteresis, a Newton iteration) breaks at every test of its condition; as `torch.while_loop` it
compiles into one graph with the same result."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from compile_stats import load_module
from torch._dynamo.utils import counters
from test_golden import settings_for

from graphweld.engine import fix_text

# Depends on what Dynamo does: run again on the current torch release by CI (docs/development.md).
pytestmark = pytest.mark.dynamo

GOLDEN = Path(__file__).parent / "golden" / "while-to-while-loop"


def _edges() -> tuple[torch.Tensor, torch.Tensor]:
    torch.manual_seed(1)
    return torch.randint(0, 3, (2, 1, 12, 12)).float() * 0.5, torch.ones(1, 1, 3, 3)


@pytest.mark.parametrize(
    "case, function, arguments",
    [("canny_hysteresis", "hysteresis", _edges()), ("newton_sqrt_single_value", "newton_sqrt", (torch.full((3,), 9.0, dtype=torch.float64),))],
)
@pytest.mark.parametrize("backend", ["eager", pytest.param("inductor", marks=pytest.mark.slow)])
def test_the_loop_runs_inside_one_graph(case: str, function: str, arguments: tuple, backend: str):
    path = GOLDEN / f"{case}.in.py"
    source = path.read_text()
    rewritten = fix_text(source, str(path), settings_for(path, source)).text
    results = []
    for text in (source, rewritten):
        run = getattr(load_module(text), function)
        expected = run(*arguments)
        torch._dynamo.reset()
        counters.clear()
        got = torch.compile(run, backend=backend)(*arguments)
        torch.testing.assert_close(got, expected, rtol=0, atol=0)
        results.append((got, sum(counters["graph_break"].values()), counters["stats"]["unique_graphs"]))
    (before, breaks_before, graphs_before), (after, breaks_after, graphs_after) = results
    # Dynamo's break counter does not count a jump on a tensor; the graphs it cut show it.
    assert breaks_after == 0 and graphs_after == 1 < graphs_before
    torch.testing.assert_close(after, before, rtol=0, atol=0)
