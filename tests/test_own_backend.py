"""A fix verified with a forced backend (`--compile-options backend=eager`) on a program that
compiles itself is run once more with the program's own backend before anything is written: what
traces under the eager backend can still fail where the program's backend lowers it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_entry import EAGER, invoke

# Depends on what Dynamo does: run again on the current torch release by CI.
pytestmark = pytest.mark.dynamo

# The program's own backend refuses a graph holding `refused`: it stands in for a backend whose
# lowering fails on what a fix lets Dynamo trace (inductor on a forecaster's scalar reads, measured).
PROGRAM = '''"""Normalizes by a scalar read out of a tensor, compiled by its own backend."""

import torch
from torch import nn


def picky_backend(gm, example_inputs):
    if any(node.op == "call_method" and node.target == {refused!r} for node in gm.graph.nodes):
        raise RuntimeError("picky_backend cannot lower {refused}")
    return gm.forward


class Normalize(nn.Module):
    def forward(self, x):
        scale = x.abs().max().item()
        return x / scale


def my_model_function():
    return torch.compile(Normalize(), backend=picky_backend)


def GetInput():
    return torch.linspace(-1, 1, 8)
'''


def _fix(entry: Path, *options: str) -> dict:  # type: ignore[type-arg]
    result = invoke("fix", "--entry", str(entry), *EAGER, "--unsafe-fixes", "--format", "json", *options, str(entry.parent))
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


def test_a_setting_the_programs_own_backend_cannot_compile_is_not_written(tmp_path: Path):
    # capture_scalar_outputs puts the `.item()` read into the graph: the eager backend runs it,
    # the program's own backend refuses it.
    entry = tmp_path / "normalize_entry.py"
    entry.write_text(PROGRAM.format(refused="item"))
    # item-stays-tensor (set aside) would keep the read a tensor in the source, needing no setting.
    data = _fix(entry, "--ignore", "item-stays-tensor")
    assert data["capture_setting_fix"] is None
    note = data["capture_setting_note"]
    assert note.startswith("capture_scalar_outputs: it verified with backend=eager, but with the program's own backend the compiled run fails"), note
    assert "picky_backend" in note
    assert entry.read_text() == PROGRAM.format(refused="item")
    # The picture reported is the one of what stays: the files as they were.
    assert data["after"] == data["before"]


RECURRENT = PROGRAM.replace(
    """class Normalize(nn.Module):
    def forward(self, x):
        scale = x.abs().max().item()
        return x / scale
""",
    """class Normalize(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 4, batch_first=True)

    def forward(self, x):
        scale = x.abs().max().item()
        out, _ = self.lstm(x / scale)
        return out
""",
).replace("torch.linspace(-1, 1, 8)", "torch.linspace(-1, 1, 24).reshape(2, 3, 4)")


@pytest.mark.slow
def test_when_the_best_setting_fails_with_the_programs_own_backend_the_next_best_is_written(tmp_path: Path):
    # Both switches together trace the `.item()` read, which the program's backend refuses;
    # allow_rnn alone compiles the LSTM and leaves the read to break, which it takes.
    entry = tmp_path / "normalize_entry.py"
    entry.write_text(RECURRENT.format(refused="item"))
    data = _fix(entry, "--ignore", "item-stays-tensor")
    assert data["capture_setting_fix"]["settings"] == ["allow_rnn"], data["capture_setting_note"]
    # The better one passed over is said, with why.
    assert data["capture_setting_note"].startswith("allow_rnn, capture_scalar_outputs: it verified with backend=eager")
    assert "torch._dynamo.config.allow_rnn = True" in entry.read_text()
    assert "capture_scalar_outputs = True" not in entry.read_text()


def test_a_rewrite_the_programs_own_backend_cannot_compile_is_dropped_and_said(tmp_path: Path):
    # item-stays-tensor's `.detach().reshape(())` traces under the eager backend; this program's
    # backend refuses `detach`.
    entry = tmp_path / "normalize_entry.py"
    entry.write_text(PROGRAM.format(refused="detach"))
    data = _fix(entry, "--select", "item-stays-tensor")
    assert data["kept"] == {} and data["effects"] == []
    dropped = [item for item in data["tried"] if item["rule"] == "item-stays-tensor"]
    assert dropped and not any(item["kept"] for item in dropped)
    assert "with the program's own backend the compiled run fails" in dropped[0]["why"]
    assert entry.read_text() == PROGRAM.format(refused="detach")


def test_what_the_programs_own_backend_compiles_is_written(tmp_path: Path):
    # A backend that refuses neither: the forced backend's verdict holds, and the fix is written.
    entry = tmp_path / "normalize_entry.py"
    entry.write_text(PROGRAM.format(refused="nothing"))
    data = _fix(entry, "--select", "item-stays-tensor")
    assert list(data["kept"].values()) == [["item-stays-tensor"]]
    assert "x.abs().max().detach().reshape(())" in entry.read_text()


def test_a_program_its_own_backend_cannot_compile_as_given_keeps_the_forced_backends_verdict(tmp_path: Path):
    # The program's backend refuses `abs`, which the program uses before any fix: the run with it
    # fails as given too, so it says nothing of the fix, and what verified is written.
    entry = tmp_path / "normalize_entry.py"
    entry.write_text(PROGRAM.format(refused="abs"))
    data = _fix(entry, "--select", "item-stays-tensor")
    assert list(data["kept"].values()) == [["item-stays-tensor"]]
    assert "x.abs().max().detach().reshape(())" in entry.read_text()
