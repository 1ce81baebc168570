"""Verdicts that hold on programs as people configure them (issue 64): logging at DEBUG, clocks
whose readings reach only output, `fullgraph=True`'s implicit capture, and a program whose own
fullgraph=True compile fails. Each program is an entry of tests/entries/, fixed by `fix --entry`
as a user runs it; what is judged is what the compile the user runs does."""

from __future__ import annotations

import ast
import json
import logging
from pathlib import Path

import pytest
from test_entry import invoke

from graphweld.runs.program_output import is_programs_record

pytestmark = [pytest.mark.slow, pytest.mark.dynamo]


def fix_entry(entry: Path, *options: str) -> dict:
    """`fix --entry ENTRY ENTRY --format json`, written in place; the JSON report."""
    result = invoke("fix", "--entry", str(entry), *options, str(entry), "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def fixed_once(entry: Path, *options: str) -> dict:
    """Fixed, then fixed again: the file parses and the second run changes nothing."""
    data = fix_entry(entry, *options)
    text = entry.read_text()
    ast.parse(text)
    again = fix_entry(entry, *options)
    assert entry.read_text() == text and again["kept"] == {}
    return data


def test_a_program_logging_at_debug_is_fixed_as_one_at_info_is(workdir: Path):
    """With the root logger at DEBUG the compiled runs log inductor's file locks (`filelock`):
    the compiler's records, not the program's, so the deferred `log.debug` verifies."""
    entry = workdir / "debug_logging_entry.py"
    data = fixed_once(entry)
    assert data["kept"] == {str(entry): ["isolate-io"]}, data["tried"]
    before, after = data["before"], data["after"]
    assert before["graph_breaks"] == 2 and after["graph_breaks"] == 0
    assert after["graphs"] == 1 and after["recompiles"] <= before["recompiles"]


def test_only_the_programs_log_records_are_compared():
    def record(name: str, path: str) -> logging.LogRecord:
        return logging.LogRecord(name, logging.DEBUG, path, 1, "message", (), None)

    import filelock
    import torch

    assert is_programs_record(record("__main__", "/home/me/train.py"))
    assert is_programs_record(record("transformers.modeling_utils", "/venv/site-packages/transformers/modeling_utils.py"))
    assert not is_programs_record(record("filelock", filelock.__file__))
    assert not is_programs_record(record("torch._inductor.codecache", torch.__file__))
    assert not is_programs_record(record("concurrent.futures", logging.__file__))


@pytest.mark.parametrize(
    "name, rules, progress",
    [
        # Clock floats in compiled code fail its compile; the comparison `elapsed >= 0` is only printed.
        ("timer_print_entry.py", ["profiling-guard", "profiling-guard", "isolate-io"], "compiled run fails -> runs"),
        # A timer's `self.start` that nothing reads: Dynamo skipped the whole forward for it.
        ("unread_timer_entry.py", ["profiling-guard", "isolate-io"], "skipped frames 1 -> 0"),
        # Clock floats on the stack of Dynamo's resume functions: guards that fail at every call.
        ("clock_floats_entry.py", ["profiling-guard", "profiling-guard", "isolate-io"], "fullgraph=True fails -> compiles"),
    ],
)
def test_clock_readings_that_reach_only_output_are_fixed_safely(workdir: Path, name: str, rules: list[str], progress: str):
    entry = workdir / name
    data = fixed_once(entry)
    assert sorted(data["kept"][str(entry)]) == sorted(rules), data["tried"]
    assert all(progress in effect["effect"] for effect in data["effects"]), data["effects"]
    before, after = data["before"], data["after"]
    assert after["graph_breaks"] == 0 and after["graphs"] == 1 and after["skipped_frames"] == 0
    assert after["recompiles"] == 0


def test_fullgraph_success_only_by_its_implicit_capture_is_not_claimed(workdir: Path):
    """`.item()` breaks under torch.compile's default; fullgraph=True compiles only because it
    turns capture_scalar_outputs on. The report says so, and no rewrite is credited for it."""
    entry = workdir / "item_scalar_entry.py"
    explained = invoke("explain", str(entry), "--format", "json")
    assert explained.exit_code == 0, explained.output
    report = json.loads(explained.stdout)
    assert report["graph_breaks"] == 1 and report["fullgraph"] is True
    assert report["fullgraph_implicit"] == ["capture_scalar_outputs"]
    text = invoke("explain", str(entry))
    assert "compiles only with capture_scalar_outputs, which fullgraph=True turns on" in " ".join(text.output.split())


def test_a_setting_that_helps_only_the_relaxed_measurement_is_not_written(workdir: Path):
    """The program's own fullgraph=True fails; nested_graph_breaks takes the relaxed measurement's
    graphs 3 -> 2, but the program as written still fails: nothing is written."""
    entry = workdir / "fullgraph_lazy_map_entry.py"
    original = entry.read_text()
    result = invoke("fix", "--entry", str(entry), "--unsafe-fixes", str(entry))
    assert result.exit_code == 0, result.output
    assert entry.read_text() == original
    said = " ".join(result.output.split())
    assert "only with the program's own fullgraph=True relaxed; as written it still fails to compile" in said
