"""End to end on CPU: explain, fix --entry and verify run real entries in subprocesses.

The runs use torch.compile's `eager` backend (Dynamo only: what graphweld checks) to stay fast;
`test_fix_entry_with_inductor` covers the default backend.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from click.testing import CliRunner

from graphweld.frontends.cli import main
from graphweld.runs.entry import EntryError, parse_compile_options, run_entry

EAGER = ["--compile-options", "backend=eager"]

pytestmark = [pytest.mark.slow, pytest.mark.dynamo]


def invoke(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.mark.parametrize(
    "entry, line, rule, gb",
    [("seed_with.py", 15, "hoist-with", "GB0025"), ("seed_loop.py", 8, "unroll-loop", "GB0025"), ("seed_try.py", 7, "hoist-try", "GB0025")],
)
def test_explain_finds_the_seed_breaks_at_their_lines(workdir: Path, entry: str, line: int, rule: str, gb: str):
    result = invoke("explain", str(workdir / entry), *EAGER, "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["skipped_frames"] == 1 and data["graphs"] == 0 and data["fullgraph"] is False
    (site,) = data["sites"]
    assert (Path(site["file"]).name, site["line"], site["gb"], site["rule"]) == (entry, line, gb, rule)
    assert site["type"] == "skipped frame"


def test_explain_text_table(workdir: Path):
    result = invoke("explain", str(workdir / "seed_loop.py"), *EAGER)
    assert result.exit_code == 0
    assert "seed_loop.py:8" in result.stdout and "unroll-loop" in result.stdout
    assert "skipped frames" in result.stdout


def test_fix_entry_finds_breaks_in_a_module_nothing_compiles(workdir: Path):
    module = workdir / "model_module.py"
    original = module.read_text()
    result = invoke("fix", "--entry", str(workdir / "model_entry.py"), *EAGER, str(module), "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["before"]["skipped_frames"] == 1 and data["after"]["skipped_frames"] == 0
    assert data["after"]["graphs"] > data["before"]["graphs"]
    assert sorted(data["kept"][str(module)]) == ["hoist-with", "unroll-loop"]
    fixed = module.read_text()
    assert fixed != original and "def _loop_body(scale):" in fixed
    # A second run finds nothing left to fix.
    again = invoke("fix", "--entry", str(workdir / "model_entry.py"), *EAGER, str(module), "--check")
    assert again.exit_code == 0, again.output


def test_fix_entry_check_writes_nothing(workdir: Path):
    module = workdir / "model_module.py"
    original = module.read_text()
    result = invoke("fix", "--entry", str(workdir / "model_entry.py"), *EAGER, "--diff", str(module))
    assert result.exit_code == 1
    assert "+        def _loop_body(scale):" in result.stdout
    assert module.read_text() == original


def test_rewrite_that_fails_verification_is_not_written(workdir: Path):
    entry = workdir / "counting_context.py"
    original = entry.read_text()
    result = invoke("fix", "--entry", str(entry), *EAGER, str(entry))
    assert result.exit_code == 0, result.output
    assert entry.read_text() == original
    assert "dropped, it did not verify" in result.stderr
    assert "outputs differ" in result.stderr


def test_verify_accepts_a_correct_rewrite_and_rejects_a_wrong_one(workdir: Path):
    before = workdir / "seed_with.py"
    good = workdir / "good_after.py"
    good.write_text(before.read_text().replace(
        "        x = x + 1\n        torch._dynamo.graph_break()\n        return x + 1\n",
        "        x = x + 1\n    torch._dynamo.graph_break()\n    with CustomCtxManager():\n        return x + 1\n",
    ))
    bad = workdir / "bad_after.py"
    bad.write_text(good.read_text().replace("return x + 1", "return x + 2"))

    accepted = invoke("verify", str(before), str(good), *EAGER)
    assert accepted.exit_code == 0, accepted.output
    assert "verified" in accepted.stdout

    rejected = invoke("verify", str(before), str(bad), *EAGER)
    assert rejected.exit_code == 1
    assert "not verified" in rejected.stdout and "max abs diff 1" in rejected.stdout


def test_overlay_serves_rewritten_source_without_writing(workdir: Path):
    module = workdir / "model_module.py"
    patched = module.read_text().replace("h = h.relu()", "h = h.relu() * 0")
    report = run_entry(str(workdir / "model_entry.py"), ("eager",), overlay={str(module): patched}, check_fullgraph=False)
    assert torch.count_nonzero(report.outputs["eager"]) == 0
    assert "* 0" not in module.read_text()


def test_entry_errors_are_one_line(workdir: Path, tmp_path: Path):
    broken = tmp_path / "no_input.py"
    broken.write_text("def my_model_function():\n    return lambda x: x\n")
    with pytest.raises(EntryError, match="defines no `GetInput"):
        run_entry(str(broken), ("eager",))
    result = invoke("explain", str(tmp_path / "missing.py"))
    assert result.exit_code == 2 and "no such file" in result.stderr
    with pytest.raises(EntryError, match="unknown compile option"):
        parse_compile_options("fullgraf=true")


def test_fix_entry_with_inductor(workdir: Path):
    module = workdir / "model_module.py"
    result = invoke("fix", "--entry", str(workdir / "model_entry.py"), str(module), "--format", "json")
    data = json.loads(result.stdout)
    assert data["device"] == "cpu"
    assert data["before"]["skipped_frames"] == 1 and data["after"]["skipped_frames"] == 0


@pytest.mark.cuda
def test_fix_entry_on_cuda(workdir: Path):
    module = workdir / "model_module.py"
    result = invoke("fix", "--entry", str(workdir / "model_entry.py"), "--device", "cuda", str(module), "--format", "json")
    data = json.loads(result.stdout)
    assert data["device"].startswith("cuda")
    assert data["after"]["skipped_frames"] == 0


def test_bisection_keeps_what_verifies_and_drops_the_rest(workdir: Path):
    good, bad = workdir / "model_module.py", workdir / "counting_context.py"
    good_before, bad_before = good.read_text(), bad.read_text()
    result = invoke("fix", "--entry", str(workdir / "pair_entry.py"), *EAGER, str(good), str(bad), "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert list(data["kept"]) == [str(good)]
    dropped = [item for item in data["tried"] if not item["kept"]]
    assert dropped and {item["path"] for item in dropped} == {str(bad)}
    assert all("outputs differ" in item["why"] for item in dropped)
    assert good.read_text() != good_before and bad.read_text() == bad_before


def test_breaks_inside_library_code_are_placed_at_the_callers_line(workdir: Path):
    result = invoke("explain", str(workdir / "helper_entry.py"), *EAGER, "--format", "json")
    assert result.exit_code == 0, result.output
    sites = {(Path(s["file"]).name, s["line"]): s for s in json.loads(result.stdout)["sites"]}
    # inspect.currentframe() breaks inside inspect.py; the fix belongs to helpers.py's call.
    frame = sites[("helpers.py", 9)]
    assert frame["via"].split(":")[0].endswith("inspect.py") and frame["rule"] == "nonstrict-helper"
    assert sites[("helpers.py", 16)]["rule"] == "nonstrict-helper"


def test_fix_entry_traces_helpers_in_another_module_nonstrictly(workdir: Path):
    helpers = workdir / "helpers.py"
    result = invoke("fix", "--entry", str(workdir / "helper_entry.py"), *EAGER, str(helpers), "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["before"]["graphs"] == 4 and data["before"]["fullgraph"] is False
    assert data["after"]["graphs"] == 1 and data["after"]["fullgraph"] is True
    assert data["kept"][str(helpers)] == ["nonstrict-helper", "nonstrict-helper"]
    assert helpers.read_text().count("@torch._dynamo.nonstrict_trace\ndef ") == 2


def test_fix_entry_moves_the_seed_000_round_trips_into_a_custom_op(workdir: Path):
    model = workdir / "seed_dlpack.py"
    options = ["--compile-options", "dynamic=true"]
    result = invoke("fix", "--entry", str(model), *options, str(model), "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["before"]["fullgraph"] is False and data["after"]["fullgraph"] is True
    assert data["after"]["graphs"] == 1
    assert "@torch.library.custom_op(" in model.read_text()
