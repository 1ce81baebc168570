"""Loops that stop early on a tensor's test, end to end: a Sinkhorn transport loss and a
conjugate-gradient solve (`tests/entries/early_exit_entry.py`). Before, Dynamo skips both
functions (a break in a loop); after early-exit-masked, a training step is one graph, with outputs
and gradients equal to the original's, and `fullgraph=True` compiles. A program that compiles
itself with `fullgraph=True` fails before and runs after, printing what the original printed
eagerly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from program_runs import assert_fails_then_runs
from test_entry import EAGER, invoke

pytestmark = [pytest.mark.slow, pytest.mark.dynamo]


def test_a_training_step_through_both_loops_is_one_graph(workdir: Path):
    entry = workdir / "early_exit_entry.py"
    result = invoke("fix", "--entry", str(entry), *EAGER, "--train", "--unsafe-fixes", str(entry), "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    before, after = data["before"], data["after"]
    assert (before["skipped_frames"], before["graph_breaks"]) == (2, 4)
    assert data["kept"][str(entry)] == ["early-exit-masked"] * 2
    assert (after["graphs"], after["graph_breaks"], after["skipped_frames"], after["fullgraph"]) == (1, 0, 0, True)
    text = entry.read_text()
    assert "stopped = stopped | ((u - u_prev).abs().max() < tol)" in text
    assert "x += torch.where(stopped, 0, alpha * p)" in text
    again = invoke("fix", "--entry", str(entry), *EAGER, "--train", "--unsafe-fixes", str(entry), "--check")
    assert again.exit_code == 0, again.output


RUN = """import torch
from early_exit_entry import my_model_function, GetInput

model = torch.compile(my_model_function(), fullgraph=True, backend="eager")
print(f"{model(*GetInput()).item():.5f}")
"""


def test_a_program_compiled_with_fullgraph_runs_after_the_fix(workdir: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(workdir)
    assert_fails_then_runs(workdir, "early_exit_entry", RUN, "Data-dependent branching", "--unsafe-fixes")
