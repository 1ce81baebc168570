"""Golden cases that say how to call them (`# call: fn(torch.ones(3)); ...` on their first
lines) are run before and after the rewrite: results and printed output must be identical,
eagerly, and the compiled rewrite must not skip a frame. A case's settings line may say what a run
of it saw (`data_dependent_lines=...`), as for `test_golden`."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest
import torch

from compile_stats import compile_stats, load_module
from graphweld.engine import fix_text
from test_golden import run_evidence_for, settings_for

# Depends on what Dynamo does: run again on the current torch release by CI (docs/development.md).
pytestmark = pytest.mark.dynamo

GOLDEN = Path(__file__).parent / "golden"


def calls_of(source: str) -> list[str]:
    for line in source.splitlines()[:3]:
        match = re.match(r"#\s*call:\s*(.*)", line)
        if match:
            return [call.strip() for call in match.group(1).split(";") if call.strip()]
    return []


CASES = sorted(case for case in GOLDEN.glob("*/*.in.py") if calls_of(case.read_text()))


def run_calls(source: str, calls: list[str]) -> tuple[list[object], str]:
    # torch.cond and torch.while_loop compile their functions even when called eagerly, and Dynamo
    # guards on their module's globals by the module's name: each run gets a module of its own.
    torch._dynamo.reset()
    module = load_module(source)
    printed = io.StringIO()
    results = []
    with contextlib.redirect_stdout(printed):
        for call in calls:
            results.append(eval(call, module.__dict__))
    return results, printed.getvalue()


def test_behaviour_cases_exist():
    assert len([c for c in CASES if c.parent.name == "unroll-loop"]) >= 8


@pytest.mark.parametrize("case", CASES, ids=[f"{c.parent.name}/{c.name[:-6]}" for c in CASES])
def test_rewrite_keeps_results_and_printed_output(case: Path):
    source = case.read_text()
    rewritten = fix_text(source, str(case), settings_for(case, source), run_evidence_for(source)).text
    assert rewritten != source
    calls = calls_of(source)
    before, before_printed = run_calls(source, calls)
    after, after_printed = run_calls(rewritten, calls)
    torch.testing.assert_close(after, before, rtol=0, atol=0, equal_nan=True)
    assert after_printed == before_printed


# Cases whose original really skips its frame on torch 2.13 (a loop whose first statement is
# a print, with no traced op before it, is resumed by Dynamo and makes no such case).
COMPILED = [
    "unroll-loop/seed_loop",
    "unroll-loop/break_and_else",
    "unroll-loop/loop_variable_read_after",
    "unroll-loop/nested_loops",
    "arange-loop/index_pairs",
    "early-exit-masked/conjugate_gradients",
    "early-exit-masked/sinkhorn",
    "early-exit-masked/conjugate_gradient_no_run",
]


@pytest.mark.parametrize("name", COMPILED)
def test_compiled_rewrite_has_no_skipped_frame(name: str):
    case = GOLDEN / f"{name}.in.py"
    source = case.read_text()
    rewritten = fix_text(source, str(case), settings_for(case, source), run_evidence_for(source)).text
    call = calls_of(source)[0]
    function_name, arguments = call.split("(", 1)
    before_module, after_module = load_module(source), load_module(rewritten)
    args = eval(f"({arguments[:-1]},)", before_module.__dict__)

    printed_before = io.StringIO()
    with contextlib.redirect_stdout(printed_before):
        expected = getattr(before_module, function_name)(*args)
        before = compile_stats(getattr(before_module, function_name), *args)
    printed_after = io.StringIO()
    with contextlib.redirect_stdout(printed_after):
        after = compile_stats(getattr(after_module, function_name), *args)

    assert before.skipped_frames >= 1
    assert after.skipped_frames == 0
    assert after.graphs >= 1 and after.ops >= before.ops
    torch.testing.assert_close(after.result, expected, rtol=0, atol=0)
    # Eager + skipped-frame run of the original prints the same as the compiled rewrite.
    half = len(printed_before.getvalue()) // 2
    assert printed_after.getvalue() == printed_before.getvalue()[half:]
