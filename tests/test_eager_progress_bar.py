"""eager-progress-bar, compiled: tqdm in a loop's header fails a `fullgraph=True` compile
(GB0007, the registry page's program) and skips the frame otherwise; wrapped only when eager,
the loop compiles whole with the same result, and an eager run still shows the bar."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from compile_stats import compile_stats, load_module
from test_golden import run_evidence_for, settings_for

from graphweld.engine import fix_text

# Depends on what Dynamo does: run again on the current torch release by CI (docs/development.md).
pytestmark = pytest.mark.dynamo

GOLDEN = Path(__file__).parent / "golden" / "eager-progress-bar"


def _modules(case: str):  # type: ignore[no-untyped-def]
    path = GOLDEN / f"{case}.in.py"
    source = path.read_text()
    fixed = fix_text(source, str(path), settings_for(path, source), run_evidence_for(source)).text
    assert fixed != source
    # Each under a module name of its own: Dynamo looks a class's module up by name.
    return load_module(source, f"{case}_original"), load_module(fixed, f"{case}_fixed")


def test_the_registry_page_program_compiles_with_fullgraph_and_the_same_result(capsys):
    original, fixed = _modules("registry_page")
    torch._dynamo.reset()
    with pytest.raises(torch._dynamo.exc.Unsupported):
        torch.compile(original.fn, fullgraph=True, backend="eager")(torch.zeros(3))
    torch._dynamo.reset()
    got = torch.compile(fixed.fn, fullgraph=True, backend="eager")(torch.zeros(3))
    torch.testing.assert_close(got, original.fn(torch.zeros(3)), rtol=0, atol=0)
    capsys.readouterr()
    fixed.fn(torch.zeros(3))
    assert "5/5" in capsys.readouterr().err, "an eager run still shows the bar"


@pytest.mark.parametrize(
    "case, build",
    [
        ("auto_tqdm_keywords_enumerate_method", lambda m: m.Refiner([0.5, 0.25])),
        ("trange_nested_helper", lambda m: lambda x: m.integrate(x, 0.5)),
        ("rich_track", lambda m: lambda x: m.accumulate(x, [1.0, 2.0, 3.0])),
    ],
)
def test_each_form_compiles_whole_with_the_same_result(case: str, build):
    original, fixed = _modules(case)
    torch.manual_seed(0)
    before_fn, after_fn = build(original), build(fixed)
    if isinstance(after_fn, torch.nn.Module):
        after_fn.load_state_dict(before_fn.state_dict())
    x = torch.randn(2, 4)
    expected = before_fn(x)
    before = compile_stats(before_fn, x)
    after = compile_stats(after_fn, x)
    assert before.skipped_frames > 0 or before.graphs != 1, "the bar breaks the original"
    assert after.graphs == 1 and after.skipped_frames == 0
    torch.testing.assert_close(after.result, expected, rtol=0, atol=0)
