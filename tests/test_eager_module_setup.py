"""eager-module-setup, compiled: BigBird's attention swap (a method building modules, called from a
compiled forward) breaks the graph once per module it builds; run eagerly, once in all, with the
same outputs and the same modules swapped in."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from compile_stats import golden_modules
from torch._dynamo.utils import counters

# Depends on what Dynamo does: run again on the current torch release by CI (docs/development.md).
pytestmark = pytest.mark.dynamo


GOLDEN = Path(__file__).parent / "golden" / "eager-module-setup"


def graph_breaks(module: torch.nn.Module, x: torch.Tensor) -> tuple[torch.Tensor, int]:
    torch._dynamo.reset()
    counters.clear()
    out = torch.compile(module, backend="eager")(x)
    return out, sum(counters["graph_break"].values())


@pytest.mark.parametrize("case", ["attention_swap", "parameter_created_in_method"])
def test_the_swap_runs_eagerly_with_one_break(case: str):
    before_module, after_module = golden_modules(GOLDEN / f"{case}.in.py")
    torch.manual_seed(0)
    eager = before_module.Encoder()
    torch.manual_seed(0)
    before = before_module.Encoder()
    torch.manual_seed(0)
    after = after_module.Encoder()
    x = torch.randn(2, 4, 8)

    expected = eager(x)
    got_before, breaks_before = graph_breaks(before, x)
    got_after, breaks_after = graph_breaks(after, x)
    assert breaks_before > 1
    assert breaks_after == 1
    torch.testing.assert_close(got_after, expected)
    torch.testing.assert_close(got_before, expected)
    # The method did its work: the same state as the eager run.
    assert after.attention_type == eager.attention_type == "original_full"
    assert [type(layer.self).__name__ for layer in after.layers] == [type(layer.self).__name__ for layer in eager.layers]
