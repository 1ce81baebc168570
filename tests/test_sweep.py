"""The corpus sweep (benchmarks/sweep.py) on a sample of torch and transformers: no crash, every
rewritten file compiles, other files stay byte-identical, a second run changes nothing.

CI runs every 12th file of each corpus; `python benchmarks/sweep.py` runs all of them."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

SWEEP = Path(__file__).parent.parent / "benchmarks" / "sweep.py"


def load_sweep():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("graphweld_sweep", SWEEP)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
@pytest.mark.parametrize("corpus", ["torch", "transformers"])
def test_sweep_sample_is_clean(corpus: str):
    result = load_sweep().sweep(corpus, sample=12)
    assert result.files > 100
    assert result.failures == []
    # The sample exercises the rules: something is rewritten.
    assert result.changed > 0 and sum(result.per_rule.values()) > 0
