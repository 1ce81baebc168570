"""Training steps as entries (issue 26): `--train` runs each call as a training step and compares
losses and gradients (or, with the entry's `train_step`, the parameters after each step) with
eager; the breaks only training meets are found and fixed. End to end, as a user runs them, with
the aot_eager backend (AOTAutograd, so backward graphs are counted; faster than inductor)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from test_entry import EAGER, invoke

import graphweld

pytestmark = [pytest.mark.slow, pytest.mark.dynamo]

AOT = ["--compile-options", "backend=aot_eager"]


def fix_entry(entry: Path, *options: str) -> dict:
    result = invoke("fix", "--entry", str(entry), "--train", *AOT, *options, str(entry), "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_a_model_with_dropout_layerdrop_and_a_printed_loss_is_migrated(workdir: Path):
    entry = workdir / "train_layerdrop_entry.py"
    explained = invoke("explain", str(entry), "--train", *AOT, "--format", "json")
    assert explained.exit_code == 0, explained.output
    report = json.loads(explained.stdout)
    assert report["train"] is True and report["skipped_frames"] == 1
    (site,) = report["sites"]
    assert (site["line"], site["gb"], site["rule"], site["action"]) == (31, "GB0170", "layerdrop-guard", "fix")

    data = fix_entry(entry)
    assert sorted(data["kept"][str(entry)]) == ["isolate-io", "layerdrop-guard"]
    before, after = data["before"], data["after"]
    assert (before["skipped_frames"], after["skipped_frames"]) == (1, 0)
    assert after["graph_breaks"] == 0 and after["fullgraph"] is True
    # One compiled forward graph, so one compiled backward, where the skipped frame made three.
    assert (before["backward_graphs"], after["backward_graphs"]) == (3, 1)
    text = entry.read_text()
    assert "if self.layerdrop > 0 and dropout_probability < self.layerdrop:" in text
    assert "_deferred_print_loss(loss)" in text


def test_gradients_are_compared(workdir: Path, tmp_path: Path):
    """A rewrite that keeps the loss but cuts a gradient (a detach) is not verified in training."""
    before = workdir / "train_layerdrop_entry.py"
    after = tmp_path / "detached.py"
    after.write_text(before.read_text().replace("h = layer(h)", "h = layer(h).detach() + (layer(h) - layer(h).detach())")
                     .replace("loss = ((self.head(h) - y) ** 2).mean()", "loss = ((self.head(h.detach()) - y) ** 2).mean()"))
    result = invoke("verify", str(before), str(after), "--train", *AOT)
    assert result.exit_code == 1, result.output
    out = " ".join(result.stdout.split())
    assert "output['gradients']" in out and "not verified: outputs differ" in out


def test_a_compiled_train_step_is_split_and_verified_over_its_steps(workdir: Path):
    entry = workdir / "train_step_entry.py"
    data = fix_entry(entry)
    assert data["kept"] == {str(entry): ["split-train-step"]}
    before, after = data["before"], data["after"]
    assert before["compiled_by"] == after["compiled_by"] == "entry"
    assert before["skipped_frames"] >= 1 and (after["skipped_frames"], after["graph_breaks"]) == (0, 0)
    assert after["fullgraph"] is True and after["backward_graphs"] == 1
    text = entry.read_text()
    assert "def train_step(model, batch):\n    x, y = batch\n" in text and "loss = _train_step_part1(model, x, y)" in text


def test_an_inference_run_of_a_step_that_calls_backward_says_to_train(workdir: Path):
    entry = workdir / "backward_in_forward_entry.py"
    result = invoke("explain", str(entry), "--compile-options", "backend=eager")
    assert result.exit_code == 2
    message = " ".join(result.stderr.split())
    assert "does not require grad" in message and "--train runs a training step" in message
    trained = invoke("explain", str(entry), "--train", "--compile-options", "backend=eager", "--format", "json")
    assert trained.exit_code == 0, trained.output
    assert json.loads(trained.stdout)["train"] is True


def test_explain_on_a_live_model_takes_a_training_step():
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Dropout(0.5), torch.nn.Linear(4, 1)).eval()
    report = graphweld.explain(model, torch.randn(2, 4), train=True)
    totals = report.totals()
    assert totals["train"] is True and totals["graph_breaks"] == 0
    assert totals["backward_graphs"] == 1  # the default backend (inductor) compiles the backward too
    # The model is left as it was: eval mode, no gradients.
    assert not model.training and all(parameter.grad is None for parameter in model.parameters())


def test_inline_layerdrop_in_any_spelling_compiles_in_training(workdir: Path):
    """Layers dropped inline, a draw read with `.item()` and one from Python's `random`, and by a
    helper of the user's, in loops (one also prints): the frame Dynamo skipped compiles whole under --train,
    forward and backward verified. Python's draw is guarded before drawing (unsafe): the run could
    not see it, hidden behind the first loop's skipped frame, and it is tried all the same."""
    entry = workdir / "inline_layerdrop_entry.py"
    result = invoke("fix", "--entry", str(entry), *EAGER, "--train", "--unsafe-fixes", str(entry), "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["before"]["skipped_frames"] == 1
    after = data["after"]
    assert (after["skipped_frames"], after["graph_breaks"], after["graphs"], after["fullgraph"]) == (0, 0, 1, True)
    assert sorted(data["kept"][str(entry)]) == ["isolate-io", *["layerdrop-guard"] * 3]
    text = entry.read_text()
    assert "dropout_probability = torch.rand(1)\n" in text
    assert "if self.training and self.drop_path_rate > 0 and random.random() < self.drop_path_rate:" in text
    assert "return self.layerdrop > 0 and dropout_probability < self.layerdrop" in text
