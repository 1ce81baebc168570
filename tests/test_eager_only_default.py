"""eager-only-default, compiled: LongT5's stack builds its default mask only when not compiling, so
the compiled call meets `None` in its local attention, Dynamo gives up on the frame and runs it
eagerly; built in both modes, the stack compiles whole with the same outputs."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from compile_stats import compile_stats, load_module
from test_golden import run_evidence_for, settings_for

from graphweld.engine import fix_text

# Depends on what Dynamo does: run again on the current torch release by CI (docs/development.md).
pytestmark = pytest.mark.dynamo

GOLDEN = Path(__file__).parent / "golden" / "eager-only-default"


def _compiled(module, input_ids):  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    stack = module.LongT5Stack()
    return stack(input_ids), compile_stats(stack, input_ids, backend="eager")


def test_the_stack_compiles_whole_with_the_same_outputs_once_the_default_is_built_when_compiling():
    path = GOLDEN / "longt5_local_attention_mask.in.py"
    source = path.read_text()
    rewritten = fix_text(source, str(path), settings_for(path, source), run_evidence_for(source)).text
    assert rewritten != source
    input_ids = torch.randint(0, 100, (2, 8))
    before_expected, before = _compiled(load_module(source), input_ids)
    after_expected, after = _compiled(load_module(rewritten), input_ids)
    # Before: the mask is None in the traced frame; Dynamo gives up on it and runs it eagerly.
    assert before.skipped_frames >= 1
    assert after.skipped_frames == 0 and after.graphs == 1
    for expected, stats in ((before_expected, before), (after_expected, after)):
        torch.testing.assert_close(stats.result, expected, rtol=0, atol=0)
    # The eager program is the same before and after.
    torch.testing.assert_close(after_expected, before_expected, rtol=0, atol=0)


def test_the_break_at_the_statement_reading_the_name_is_the_changes_to_fix():
    # `explain` names the rule for a break at the statement that meets `None` (Pop2Piano's subscript).
    from graphweld.engine import propose

    path = GOLDEN / "pop2piano_encoder_subscripts_the_mask.in.py"
    source = path.read_text()
    changes = propose(source, str(path), settings_for(path, source), None, run_evidence_for(source)).changes
    assert [change.rule for change in changes] == ["eager-only-default"]
    assert changes[0].location.line == 17 and changes[0].targets_line(19)
