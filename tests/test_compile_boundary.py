"""The program is measured as its own code compiles it (issue: verification that recognises the
documented fixes). End to end on CPU with the default backend (inductor), as a user runs it."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
import torch
from test_entry import invoke

pytestmark = [pytest.mark.slow, pytest.mark.dynamo]


def load(path: Path, name: str):  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fix_entry_in_place(entry: Path, *options: str) -> dict:
    """`graphweld fix --entry ENTRY ENTRY`: the entry's own file is what gets fixed; its JSON report."""
    result = invoke("fix", "--entry", str(entry), *options, str(entry), "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_split_of_a_compiled_function_that_saves_is_kept(workdir: Path):
    entry = workdir / "save_split_entry.py"
    data = fix_entry_in_place(entry)
    assert data["kept"] == {str(entry): ["isolate-io"]}, data["tried"]
    before, after = data["before"], data["after"]
    assert before["compiled_by"] == after["compiled_by"] == "entry"
    # The pieces are what compiles: two graphs, no break, and each piece is one whole graph.
    assert (before["graph_breaks"], before["fullgraph"]) == (1, False)
    assert (after["graphs"], after["graph_breaks"], after["skipped_frames"], after["fullgraph"]) == (2, 0, 0, True)
    text = entry.read_text()
    assert "def f(x):\n    y = _f_part1(x)\n    torch.save(y, CHECKPOINT)\n    return _f_part2(y)" in text

    # The user's program, as written now: f runs eagerly, the pieces compile, the checkpoint holds
    # what the eager original saved.
    torch._dynamo.reset()
    fixed = load(entry, "save_split_fixed")
    x = torch.arange(4.0)
    z = fixed.f(x)
    y_eager = x ** 2 / 2
    torch.testing.assert_close(torch.load(fixed.CHECKPOINT), y_eager)
    torch.testing.assert_close(z, y_eager ** 3 / 6)


def test_nonstrict_helper_verifies_although_fewer_ops_are_visible(workdir: Path):
    entry = workdir / "frame_helper_entry.py"
    data = fix_entry_in_place(entry)
    assert data["kept"] == {str(entry): ["nonstrict-helper"]}, data["tried"]
    before, after = data["before"], data["after"]
    assert (before["graphs"], before["fullgraph"]) == (3, False)
    assert (after["graphs"], after["graph_breaks"], after["fullgraph"]) == (1, 0, True)
    # The helper's ops are counted inside its nonstrict_trace call, not lost.
    assert after["ops"] >= before["ops"]
    assert "@torch._dynamo.nonstrict_trace\ndef scaled(x, factor):" in entry.read_text()


def test_eager_driver_around_a_compiled_core_is_left_alone(workdir: Path):
    entry = workdir / "eager_driver_entry.py"
    original = entry.read_text()
    static = invoke("fix", "--unsafe-fixes", str(entry))
    assert static.exit_code == 0, static.output
    assert entry.read_text() == original

    data = fix_entry_in_place(entry, "--unsafe-fixes")
    assert data["kept"] == {} and data["tried"] == []
    assert data["before"]["compiled_by"] == "entry"
    assert (data["before"]["graph_breaks"], data["before"]["fullgraph"]) == (0, True)
    assert entry.read_text() == original

    explained = invoke("explain", str(entry), "--compile-options", "backend=eager,dynamic=false")
    assert explained.exit_code == 0, explained.output
    assert "No graph breaks." in explained.stdout
    assert "Compiled by the entry's own code" in " ".join(explained.stdout.split())
    # Options for a compile graphweld does not make are said to apply to nothing.
    assert "--compile-options dynamic applied to nothing" in explained.stderr


def test_a_plain_model_is_compiled_by_graphweld(workdir: Path):
    result = invoke("explain", str(workdir / "seed_with.py"), "--compile-options", "backend=eager", "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["compiled_by"] == "graphweld"


def test_a_rewrite_whose_compiled_run_fails_is_dropped_with_the_reason(workdir: Path, monkeypatch: pytest.MonkeyPatch):
    """The rewrite's run raising (here: torch.compile failing inside Dynamo) drops that rewrite
    with the exception's first line; the run goes on and exits as usual."""
    from graphweld.runs import entry as entry_runs
    from graphweld.runs.entry import RunFailed

    real_run = entry_runs.run_entry

    def run_entry(entry, modes, *, overlay=None, **kwargs):  # type: ignore[no-untyped-def]
        if overlay:
            raise RunFailed(entry, "TypeError: sequence item 1: expected str instance, int found")
        return real_run(entry, modes, overlay=overlay, **kwargs)

    monkeypatch.setattr(entry_runs, "run_entry", run_entry)
    entry = workdir / "seed_with.py"
    original = entry.read_text()
    result = invoke("fix", "--entry", str(entry), "--compile-options", "backend=eager", str(entry))
    assert result.exit_code == 0, result.output
    assert (
        "hoist-with [safe] dropped, it did not verify: the compiled run fails with TypeError: sequence item 1: "
        "expected str instance, int found"
    ) in " ".join(result.stderr.split())
    assert entry.read_text() == original


def test_dynamo_fails_resuming_a_break_inside_an_fstring_of_a_function_called_twice():
    """Why unroll-loop reports a loop whose body reads a tensor in an f-string after formatting
    another value: the unrolled form calls the body once per value, and Dynamo (2.13) resumes the
    break inside the f-string with the earlier value unformatted on its stack."""
    if not torch.__version__.startswith("2.13"):
        pytest.skip("reproduction recorded on torch 2.13")

    def show(step, h):
        print(f"step {step}: {h.sum().item()}")

    def unrolled(x):
        h = x + 1
        show(0, h)
        show(1, h)
        return h

    def show_read_first(step, h):  # the tensor read before any other formatting
        print(f"{h.sum().item()} at step {step}")

    def read_first(x):  # resumes fine: unroll-loop still unrolls this form
        h = x + 1
        show_read_first(0, h)
        show_read_first(1, h)
        return h

    torch._dynamo.reset()
    with pytest.raises(TypeError, match="sequence item 1: expected str instance, int found"):
        torch.compile(unrolled, backend="eager")(torch.ones(2))
    torch._dynamo.reset()
    torch.testing.assert_close(torch.compile(read_first, backend="eager")(torch.ones(2)), torch.ones(2) + 1)
