"""random-out-of-place, compiled: `Tensor.random_` fails a `fullgraph=True` compile (GB0107, the
registry page's program); `torch.randint_like` compiles whole and draws the same numbers."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from compile_stats import compile_stats, golden_modules, load_module
from test_golden import run_evidence_for, settings_for

from graphweld.engine import fix_text

# Depends on what Dynamo does: run again on the current torch release by CI (docs/development.md).
pytestmark = pytest.mark.dynamo

GOLDEN = Path(__file__).parent / "golden" / "random-out-of-place"


def test_the_registry_page_program_compiles_with_fullgraph_and_draws_the_same_numbers():
    original, fixed = golden_modules(GOLDEN / "registry_page.in.py")
    x = torch.randn(6)
    torch._dynamo.reset()
    with pytest.raises(torch._dynamo.exc.Unsupported, match="random_"):
        torch.compile(original.fn, fullgraph=True, backend="eager")(x)
    torch.manual_seed(0)
    expected = original.fn(x)
    torch._dynamo.reset()
    torch.manual_seed(0)
    got = torch.compile(fixed.fn, fullgraph=True, backend="eager")(x)
    torch.testing.assert_close(got, expected, rtol=0, atol=0)


@pytest.mark.parametrize(
    "case, call",
    [
        ("token_mask_method", lambda m: m.Masker(100)(torch.arange(8), torch.arange(8) % 2 == 0)),
        ("keyword_upper_bound_nested_helper", lambda m: m.augment(torch.ones(3), torch.zeros(5, dtype=torch.long))[1]),
    ],
)
def test_each_form_compiles_whole_with_the_same_draws(case: str, call):
    # Each under a module name of its own: Dynamo looks a class's module up by name.
    path = GOLDEN / f"{case}.in.py"
    source = path.read_text()
    original = load_module(source, f"{case}_original")
    fixed = load_module(fix_text(source, str(path), settings_for(path, source), run_evidence_for(source)).text, f"{case}_fixed")
    torch.manual_seed(0)
    expected = call(original)
    torch.manual_seed(0)
    before = compile_stats(lambda: call(original))
    torch.manual_seed(0)
    after = compile_stats(lambda: call(fixed))
    assert before.graphs > 1 or before.skipped_frames > 0 or before.frames > 1, "random_ breaks the original's graph"
    assert after.graphs == 1 and after.frames == 1
    torch.testing.assert_close(after.result, expected, rtol=0, atol=0)
