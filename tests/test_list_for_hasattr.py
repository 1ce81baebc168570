"""list-for-hasattr, compiled: `hasattr` on a `map` iterator fails a `fullgraph=True` compile
(GB0150, the registry page's program); given a list, the helper compiles whole, with the same
outputs."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from compile_stats import compile_stats, golden_modules

# Depends on what Dynamo does: run again on the current torch release by CI (docs/development.md).
pytestmark = pytest.mark.dynamo

GOLDEN = Path(__file__).parent / "golden" / "list-for-hasattr"


def test_the_registry_page_program_compiles_with_fullgraph_and_the_same_result():
    original, fixed = golden_modules(GOLDEN / "registry_page.in.py")
    x = torch.randn(3)
    torch._dynamo.reset()
    with pytest.raises(torch._dynamo.exc.Unsupported, match="hasattr"):
        torch.compile(original.fn, fullgraph=True, backend="eager")(x)
    torch._dynamo.reset()
    got = torch.compile(fixed.fn, fullgraph=True, backend="eager")(x)
    torch.testing.assert_close(got, original.fn(x), rtol=0, atol=0)


@pytest.mark.parametrize(
    "case, call",
    [
        ("nested_stack_zip", lambda m: m.Pairwise()(torch.arange(6.0).reshape(3, 2), torch.ones(3, 2))),
        ("keyword_filter_weights", lambda m: m.weighted(torch.arange(3.0))),
        ("bound_map_method", lambda m: m.Heads([1.0, 2.0, 3.0])(torch.arange(3.0))),
    ],
)
def test_each_form_compiles_whole_with_the_same_outputs(case: str, call):
    original, fixed = golden_modules(GOLDEN / f"{case}.in.py")
    expected = call(original)
    before = compile_stats(lambda: call(original))
    after = compile_stats(lambda: call(fixed))
    assert before.graphs > 1 or before.frames > 1 or before.skipped_frames > 0, "hasattr breaks the original's graph"
    assert after.graphs == 1 and after.frames == 1
    torch.testing.assert_close(after.result, expected, rtol=0, atol=0)
