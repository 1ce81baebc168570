"""A program torch.compile cannot compile: its compiled run raising is the first break site, at
the user's line, and the fix loop counts "compiles, outputs equal" as the gain. Only a program
that fails eagerly too is an error of the run.

Also the DLPack protocol (a tensor handed to NumPy or JAX by `xp.from_dlpack`, brought back by
`torch.from_dlpack`), whose compile fails on torch 2.13: moved into a custom op, verified end to end.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
import torch
from test_entry import EAGER, invoke

from graphweld.runs.entry import RunReport
from graphweld.runs.verify import compare_pictures, judge

pytestmark = [pytest.mark.slow, pytest.mark.dynamo]


def _explain(entry: Path, *options: str) -> dict:
    result = invoke("explain", str(entry), *options, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_a_compile_that_fails_is_the_first_site_at_the_users_line(workdir: Path):
    entry = workdir / "export_only_entry.py"
    data = _explain(entry, *EAGER)
    assert data["compile_error"] and "TorchRuntimeError" in data["compile_error"]
    first = data["sites"][0]
    assert (Path(first["file"]).name, first["line"], first["type"]) == ("export_only_entry.py", 11, "compile fails")
    # The culprit is named as a break's is: the statement it raised at.
    assert "np.from_dlpack(x)" in first["culprit"]
    # What fix cannot move into a custom op is reported with the reason, at that line.
    assert first["rule"] == "dlpack-custom-op" and "keep the export out of the compiled region" in first["action"]


def test_fix_entry_on_a_program_whose_compile_fails_is_no_tool_error(workdir: Path):
    entry = workdir / "export_only_entry.py"
    original = entry.read_text()
    result = invoke("fix", "--entry", str(entry), *EAGER, str(entry), "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["before"]["compile_error"] and data["after"]["compile_error"]
    assert data["kept"] == {}
    assert [(site["line"], site["type"]) for site in data["remaining"]] == [(11, "compile fails")]
    assert entry.read_text() == original


def test_a_program_that_fails_eagerly_is_still_an_error(tmp_path: Path):
    entry = tmp_path / "broken_entry.py"
    entry.write_text(
        "import torch\n\n\ndef my_model_function():\n    return lambda x: x @ torch.ones(3, 3)\n\n\n"
        "def GetInput():\n    return torch.ones(2, 2)\n"
    )
    result = invoke("explain", str(entry), *EAGER)
    assert result.exit_code == 2
    assert "mat1 and mat2 shapes cannot be multiplied" in result.output


def test_a_failing_compiled_run_is_worse_than_any_that_runs():
    ran = RunReport("cpu", "2.13", {"eager": 1, "compiled": 1, "eager_calls": [1], "compiled_calls": [1]},
                    graphs=3, skipped_frames=1, compiled_by="entry")
    fails = RunReport("cpu", "2.13", {"eager": 1, "eager_calls": [1]}, compile_error="ValueError: no", compiled_by="entry")
    direction, measure = compare_pictures(fails, ran)
    assert direction < 0 and measure is not None and measure.name == "compiled run"
    verdict = judge(fails, ran)
    assert verdict.better and verdict.progress == "compiled run fails -> runs"
    # A rewrite whose compiled run fails is never verified, whatever the run before it did.
    assert not judge(ran, fails).ok and "the compiled run fails with ValueError: no" in judge(ran, fails).problems[0]


@pytest.mark.parametrize("name", ["numpy_dlpack_entry.py", "jax_dlpack_entry.py"])
def test_dlpack_by_the_protocol_is_moved_into_a_custom_op_and_compiles_whole(workdir: Path, name: str):
    if name.startswith("jax"):
        pytest.importorskip("jax")
    entry = workdir / name
    before = _explain(entry)
    # torch 2.13's compile raises on it; whatever a torch does, it does not compile whole.
    assert before["compile_error"] or before["graph_breaks"] or before["skipped_frames"]
    result = invoke("fix", "--entry", str(entry), str(entry), "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["kept"] == {str(entry): ["dlpack-custom-op"]}
    after = data["after"]
    assert after["compile_error"] is None and after["fullgraph"] is True
    assert (after["graphs"], after["graph_breaks"], after["skipped_frames"]) == (1, 0, 0)
    fixed = entry.read_text()
    ast.parse(fixed)
    assert "@torch.library.custom_op(" in fixed and ".register_fake" in fixed
    # Outputs equal to eager (what verification kept), checked again here on the written file.
    namespace: dict = {}
    exec(compile(fixed, str(entry), "exec"), namespace)
    model = namespace["my_model_function"]().eval()
    x = namespace["GetInput"]()
    with torch.no_grad():
        expected = model(x)
        torch._dynamo.reset()
        compiled = torch.compile(model, fullgraph=True)(x)
    torch.testing.assert_close(compiled, expected)
    # A second run changes nothing.
    again = invoke("fix", "--entry", str(entry), *EAGER, str(entry))
    assert again.exit_code == 0, again.output
    assert entry.read_text() == fixed


def test_a_failure_inside_dynamo_without_a_message_says_what_raised_and_where(workdir: Path):
    # Dynamo's guard on the length of a tuple subclass whose `__len__` raises: the error Dynamo
    # re-raises says only `NotImplementedError:`; the run names the function that raised it and
    # the Dynamo function that called it.
    data = _explain(workdir / "unsized_constant_entry.py", *EAGER)
    error = data["compile_error"]
    assert error.startswith("InternalTorchDynamoError: NotImplementedError (raised in Irreps.__len__ (")
    assert "unsized_constant_entry.py:12), called from Dynamo's " in error and "(guards.py))" in error
    # And what to do, at the line that raised.
    site = data["sites"][0]
    assert (Path(site["file"]).name, site["line"], site["type"]) == ("unsized_constant_entry.py", 12, "compile fails")
    assert "hand the compiled code a plain tuple or list of what it needs from it instead" in site["action"]


def test_a_failed_guard_on_a_sequences_length_says_what_to_do_whatever_the_errors_message(workdir: Path):
    # The same tuple subclass, its `__len__` raising with a message of its own: the first line is
    # that message, and the advice still comes from where it was raised.
    entry = workdir / "unsized_constant_entry.py"
    entry.write_text(entry.read_text().replace("raise NotImplementedError", 'raise NotImplementedError("use .lmax")'))
    data = _explain(entry, *EAGER)
    assert data["compile_error"] == "InternalTorchDynamoError: NotImplementedError: use .lmax"
    assert "hand the compiled code a plain tuple or list of what it needs from it instead" in data["sites"][0]["action"]
