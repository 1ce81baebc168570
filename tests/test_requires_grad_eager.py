"""Tensors marked as requiring grad for reentrant gradient checkpointing, end to end, in a
training step: a feature encoder's input (the Wav2Vec2 family's form) and an attention's zero
position bias (the T5 family's form, with the method). Before, each skips its frame; after
requires-grad-eager, the step compiles into one graph with outputs and gradients equal to the
original program's, which sets the flags."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_entry import EAGER, invoke

pytestmark = [pytest.mark.slow, pytest.mark.dynamo]


def test_flags_for_checkpointing_are_set_eagerly_only(workdir: Path):
    entry = workdir / "requires_grad_entry.py"
    options = [*EAGER, "--unsafe-fixes", "--train"]
    result = invoke("fix", "--entry", str(entry), *options, str(entry), "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    before, after = data["before"], data["after"]
    assert before["skipped_frames"] + before["graph_breaks"] >= 2 and before["fullgraph"] is False
    assert data["kept"][str(entry)] == ["requires-grad-eager", "requires-grad-eager"]
    assert (after["graph_breaks"], after["skipped_frames"], after["fullgraph"]) == (0, 0, True)
    text = entry.read_text()
    assert "        if not torch.compiler.is_compiling():\n                hidden_states.requires_grad = True" in text
    assert "        if not torch.compiler.is_compiling():\n                position_bias.requires_grad_(True)" in text
    again = invoke("fix", "--entry", str(entry), *options, str(entry), "--check")
    assert again.exit_code == 0, again.output


def test_a_neuron_state_built_and_returned_has_its_flag_set_eagerly_only(workdir: Path):
    entry = workdir / "spiking_state_entry.py"
    options = [*EAGER, "--unsafe-fixes", "--train"]
    result = invoke("fix", "--entry", str(entry), *options, str(entry), "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    before, after = data["before"], data["after"]
    assert before["skipped_frames"] + before["graph_breaks"] >= 1 and before["fullgraph"] is False
    assert data["kept"][str(entry)] == ["requires-grad-eager"]
    assert (after["graph_breaks"], after["skipped_frames"], after["fullgraph"]) == (0, 0, True)
    assert "        if not torch.compiler.is_compiling():\n            state.v.requires_grad = True" in entry.read_text()
