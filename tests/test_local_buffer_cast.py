"""local-buffer-cast, compiled: CTRL's `self.pos_encoding = self.pos_encoding.to(...)` on an
`nn.Buffer` breaks the graph (GB4841 on torch 2.13); kept in a local, the forward is one graph
with the same outputs."""

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

GOLDEN = Path(__file__).parent / "golden" / "local-buffer-cast"


@pytest.mark.parametrize("case", ["ctrl_pos_encoding", "chained_conversion"])
def test_the_forward_compiles_whole_with_the_same_outputs(case: str):
    path = GOLDEN / f"{case}.in.py"
    source = path.read_text()
    rewritten = fix_text(source, str(path), settings_for(path, source)).text
    input_ids = torch.tensor([[0, 1, 2], [3, 4, 5]])
    results = []
    for text in (source, rewritten):
        torch.manual_seed(0)
        module = load_module(text).Embeddings()
        expected = module(input_ids)
        torch._dynamo.reset()
        counters.clear()
        got = torch.compile(module, backend="eager")(input_ids)
        torch.testing.assert_close(got, expected)
        results.append((expected, sum(counters["graph_break"].values())))
    (before, breaks_before), (after, breaks_after) = results
    assert breaks_before >= 1 and breaks_after == 0
    torch.testing.assert_close(after, before, rtol=0, atol=0)
