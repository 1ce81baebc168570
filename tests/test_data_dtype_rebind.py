"""data-dtype-rebind, compiled: a dtype change through `.data` fails a `fullgraph=True` compile
(GB0220, the registry page's program); bound to a new tensor, the function compiles whole with
the same result."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from compile_stats import compile_stats, golden_modules

# Depends on what Dynamo does: run again on the current torch release by CI (docs/development.md).
pytestmark = pytest.mark.dynamo

GOLDEN = Path(__file__).parent / "golden" / "data-dtype-rebind"


def test_the_registry_page_program_compiles_with_fullgraph_and_the_same_result():
    original, fixed = golden_modules(GOLDEN / "registry_page.in.py")
    torch._dynamo.reset()
    with pytest.raises(torch._dynamo.exc.Unsupported):
        torch.compile(original.fn, fullgraph=True, backend="eager")(torch.randn(3))
    x = torch.randn(3) * 4
    expected = original.fn(x.clone())
    torch._dynamo.reset()
    got = torch.compile(fixed.fn, fullgraph=True, backend="eager")(x)
    torch.testing.assert_close(got, expected, rtol=0, atol=0)


@pytest.mark.parametrize(
    "case, call",
    [
        ("half_method_in_forward", lambda m, x: m.HalfHead()(x)),
        ("type_and_dtype_keyword_nested_helper", lambda m, x: m.quantise(x, 10.0)),
        ("device_per_run", lambda m, x: m.cast(x, torch.float64)),
    ],
)
def test_each_form_compiles_whole_with_the_same_result(case: str, call):
    original, fixed = golden_modules(GOLDEN / f"{case}.in.py")
    x = torch.linspace(-1.0, 1.0, 6)
    expected = call(original, x.clone())
    before = compile_stats(lambda t: call(original, t), x.clone())
    after = compile_stats(lambda t: call(fixed, t), x.clone())
    assert before.graphs != 1 or before.skipped_frames > 0 or before.frames > 1, "the .data assignment breaks the original"
    assert after.graphs == 1 and after.frames == 1
    torch.testing.assert_close(after.result, expected, rtol=0, atol=0)
