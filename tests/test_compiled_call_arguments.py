"""compiled-call-arguments, compiled: an iterator (GB0156) or a set of tensors (GB0222) given to a
function compiled with `fullgraph=True` fails its compile, as the registry pages' programs show;
given a list, each program compiles and computes what it does eagerly."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from test_golden import run_evidence_for, settings_for

from graphweld.engine import fix_text

# Depends on what Dynamo does: run again on the current torch release by CI (docs/development.md).
pytestmark = pytest.mark.dynamo

GOLDEN = Path(__file__).parent / "golden" / "compiled-call-arguments"


def _run(source: str, compile_for_real: bool = True) -> dict:
    """The script's globals after running it, torch.compile as written or turned off (eager)."""
    namespace: dict = {"__name__": "script"}
    original = torch.compile
    if not compile_for_real:
        torch.compile = lambda model=None, **kwargs: model if model is not None else (lambda fn: fn)  # type: ignore[assignment]
    try:
        torch._dynamo.reset()
        exec(compile(source, "<script>", "exec"), namespace)
    finally:
        torch.compile = original  # type: ignore[assignment]
    return namespace


@pytest.mark.parametrize("case, result", [("registry_page_gb0156", "result"), ("registry_page_gb0222", "total"), ("map_in_eager_loop", "scores")])
def test_the_program_compiles_with_a_list_and_computes_the_same(case: str, result: str):
    path = GOLDEN / f"{case}.in.py"
    source = path.read_text()
    fixed = fix_text(source, str(path), settings_for(path, source), run_evidence_for(source)).text
    assert fixed != source
    if "fullgraph=True" in source:
        with pytest.raises(torch._dynamo.exc.Unsupported):
            _run(source)
    eager = _run(source, compile_for_real=False)[result]
    compiled = _run(fixed)[result]
    torch.testing.assert_close(compiled, eager, rtol=0, atol=0)
