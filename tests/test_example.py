"""The bundled example (the README's first command) is fixed and then compiles without a skip."""

from __future__ import annotations

import shutil
from pathlib import Path

import torch
from click.testing import CliRunner

from compile_stats import compile_stats, load_module
from graphweld.frontends.cli import main

EXAMPLE = Path(__file__).parents[1] / "examples" / "broken_model.py"


def test_bundled_example_is_fixed_and_compiles_whole(tmp_path: Path):
    copy = tmp_path / "broken_model.py"
    shutil.copy(EXAMPLE, copy)
    before_module = load_module(copy.read_text(), "before")

    result = CliRunner().invoke(main, ["fix", str(copy)])
    assert result.exit_code == 0, result.output
    after_module = load_module(copy.read_text(), "after")

    x = before_module.GetInput()
    expected = before_module.my_model_function()(x)
    before = compile_stats(before_module.my_model_function(), x)
    after = compile_stats(after_module.my_model_function(), x)
    assert (before.graphs, before.skipped_frames) == (0, 1)
    assert (after.graphs, after.skipped_frames) == (3, 0)
    torch.testing.assert_close(after.result, expected, rtol=0, atol=0)
    assert CliRunner().invoke(main, ["fix", "--check", str(copy)]).exit_code == 0
