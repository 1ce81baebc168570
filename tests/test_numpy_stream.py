"""A program that draws from NumPy in compiled code (SpecAugment's masks): compiled, Dynamo draws
`np.random` from torch's generator, so the compiled original already differs from eager by its
draws. Such a difference is no noise floor: a rewrite is compared, strictly, from a run that
draws from NumPy's own stream, as eager does. A rewrite that keeps what the program does
verifies; one that changes it is refused, however far the compiled original's draws were."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphweld.runs.entry import RunSettings
from graphweld.runs.targets import EntryTarget

pytestmark = [pytest.mark.slow, pytest.mark.dynamo]

GUARDED = """        if self.training:
            if not torch.compiler.is_compiling():
                hidden.requires_grad = True
"""
FLAGGED = """        if self.training:
            hidden.requires_grad = True
"""


def _judged(entry: Path, rewritten: str):  # type: ignore[no-untyped-def]
    target = EntryTarget(str(entry), RunSettings(compile_options={"backend": "eager"}, train=True))
    before = target.reference()
    after = target.compiled({str(entry.resolve()): rewritten})
    return before, target.judge(before, after, check_shown=False, previous=before)


def test_a_rewrite_is_compared_with_numpys_own_draws(workdir: Path):
    entry = workdir / "numpy_draw_entry.py"
    text = entry.read_text()
    before, verdict = _judged(entry, text.replace(FLAGGED, GUARDED))
    # The compiled original's masks are torch's draws: it differs from eager.
    assert before.graphs >= 1 and len(before.breaks) >= 1
    assert verdict.ok and verdict.numpy_stream and verdict.progress
    assert verdict.comparisons and all(leaf.equal for leaf in verdict.comparisons)


def test_a_rewrite_that_changes_the_program_is_refused_despite_the_draws(workdir: Path):
    entry = workdir / "numpy_draw_entry.py"
    text = entry.read_text()
    changed = text.replace(FLAGGED, GUARDED).replace("> 0.3", "> 0.5")
    _, verdict = _judged(entry, changed)
    assert not verdict.ok and verdict.numpy_stream
    assert verdict.problems[0].startswith("outputs differ from the eager original at ")
    assert "(np.random drawn from NumPy's stream)" in verdict.problems[0]
