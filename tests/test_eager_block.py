"""A helper that samples patches over a mask and also runs the patch embedding (ViLT's
`visual_embed`): it may not run eagerly whole (the layer's work would leave the graphs), so
eager-helper moves the statements that compute from tensor values into a function of their own,
run eagerly, and the patch embedding stays compiled: fewer breaks, outputs and gradients equal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_entry import EAGER, invoke

pytestmark = [pytest.mark.slow, pytest.mark.dynamo]


@pytest.mark.parametrize("mode", [[], ["--train"]], ids=["eval", "train"])
def test_the_sampling_runs_eagerly_and_the_patch_embedding_stays_compiled(workdir: Path, mode: list[str]):
    entry = workdir / "patch_sampling_entry.py"
    result = invoke("fix", "--entry", str(entry), *EAGER, *mode, str(entry), "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    before, after = data["before"], data["after"]
    assert (before["graph_breaks"], before["skipped_frames"]) == (5, 1)
    assert data["kept"][str(entry)] == ["eager-helper"]
    assert (after["graph_breaks"], after["skipped_frames"], after["graphs"]) == (2, 0, 3)
    text = entry.read_text()
    assert "@torch.compiler.disable\ndef _visual_embed_eager(batch_size, max_image_length, num_channels, x, x_mask):" in text
    assert "        x = _visual_embed_eager(batch_size, max_image_length, num_channels, x, x_mask)\n" in text
    # The layer's work is where it was: compiled, in the method.
    assert "        x = self.projection(pixel_values)\n" in text
    again = invoke("fix", "--entry", str(entry), *EAGER, *mode, str(entry), "--check")
    assert again.exit_code == 0, again.output
