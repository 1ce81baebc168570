"""Progress of long runs: live on a terminal, plain stamped lines elsewhere, never on stdout."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from graphweld.frontends.cli import main
from graphweld.frontends.progress import StepProgress


def test_plain_lines_with_elapsed_time_when_not_a_terminal():
    stream = io.StringIO()
    with StepProgress(Console(file=stream, width=200), "fix --entry") as steps:
        steps.step("running the entry eagerly (the reference) and compiled")
        steps.note("with capture_scalar_outputs=True the run fails: boom")
        steps.step("round 1: verifying 3 change(s) in 2 file(s) (compiled run)")
    lines = stream.getvalue().splitlines()
    assert lines[0] == "fix --entry: [0:00] running the entry eagerly (the reference) and compiled"
    assert lines[1] == "with capture_scalar_outputs=True the run fails: boom"
    assert lines[2] == "fix --entry: [0:00] round 1: verifying 3 change(s) in 2 file(s) (compiled run)"
    assert re.fullmatch(r"fix --entry: finished in 0:0\d", lines[3])


def test_on_a_terminal_each_finished_step_stays_with_its_duration():
    stream = io.StringIO()
    console = Console(file=stream, width=200, force_terminal=True, color_system=None)
    with StepProgress(console, "explain") as steps:
        steps.step("running the entry under torch.compile")
        steps.step("trying capture_scalar_outputs=True: eager and compiled runs")
    shown = stream.getvalue()
    assert "done: running the entry under torch.compile (0:00)" in shown
    assert "done: trying capture_scalar_outputs=True: eager and compiled runs (0:00)" in shown
    assert "explain: finished in 0:00" in shown


@pytest.mark.slow
def test_fix_entry_shows_its_steps_on_stderr_and_keeps_stdout_json(workdir: Path, monkeypatch):
    monkeypatch.chdir(workdir)
    result = CliRunner().invoke(
        main, ["fix", "--entry", "model_entry.py", "--compile-options", "backend=eager", "--format", "json", "--check", "."]
    )
    assert result.exit_code == 1, result.output
    payload = json.loads(result.stdout)  # nothing but the JSON on stdout
    assert payload["after"]["graphs"] > payload["before"]["graphs"]
    steps = result.stderr
    assert "fix --entry: [0:00] running the entry eagerly (the reference) and compiled" in steps
    assert re.search(r"fix --entry: \[\d:\d\d\] round 1: rewriting the files that hold 1 break site\(s\)", steps)
    assert re.search(r"round 1: verifying \d+ change\(s\) in 1 file\(s\) \(compiled run\)", steps)
    assert re.search(r"fix --entry: finished in \d:\d\d", steps)


@pytest.mark.slow
def test_verify_reports_both_runs_as_steps_of_one_progress(workdir: Path, monkeypatch):
    monkeypatch.chdir(workdir)
    result = CliRunner().invoke(
        main, ["verify", "model_entry.py", "model_entry.py", "--compile-options", "backend=eager"]
    )
    assert result.exit_code == 0, result.output
    assert "verify: [0:00] running BEFORE eagerly (the reference) and compiled" in result.stderr
    assert re.search(r"verify: \[\d:\d\d\] running AFTER compiled", result.stderr)
    assert len(re.findall(r"verify: finished in \d:\d\d", result.stderr)) == 1
