"""The Dynamo capture settings: accepted in --compile-options, and measured by `explain` for the
breaks they address (reading a tensor's value with `.item()`, data-dependent output shapes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_entry import EAGER, invoke

from graphweld.runs.entry import EntryError, parse_compile_options
from graphweld.runs.dynamo_log import parse_break

# Depends on what Dynamo does: run again on the current torch release by CI (docs/development.md).
pytestmark = pytest.mark.dynamo

ENTRY = Path(__file__).parent / "entries" / "value_reads_entry.py"


# Dynamo's own records of three breaks (torch 2.13), cut to the lines the parse reads.
_RECORD = """Graph break in user code at /work/model.py:5
Graph Break Reason: Encountered graph break when attempting to trace CALL: a function call, e.g. f(x, y):

{gb_type}
  Explanation: {explanation}
{hints}

 For more details about this graph break, please visit: https://meta-pytorch.github.io/compile-graph-break-site/gb/{gb}.html
"""


def _record(gb: str, gb_type: str, *hints: str) -> str:
    return _RECORD.format(gb=gb, gb_type=gb_type, explanation="...", hints="\n".join(f"  Hint: {hint}" for hint in hints))


def test_the_setting_measured_for_a_break_is_the_one_its_own_hint_names():
    # GB0033 from `.item()` inside an op (F.pad of a padding held in a tensor): Dynamo's hint names
    # capture_scalar_outputs, not the dynamic-shape switch.
    item = _record("gb0033", "Data dependent operator",
                   "Enable tracing of data-dependent output operators with `torch._dynamo.config.capture_scalar_outputs = True`")
    assert parse_break(item)["settings"] == ["capture_scalar_outputs"]
    # The same GB id from another op: the hint is a custom operator, no switch.
    other = _record("gb0033", "Data dependent operator", "Consider wrapping the operator into a PyTorch-understood custom operator")
    assert parse_break(other)["settings"] == []
    rnn = _record("gb0014", "Attempted to wrap RNN, GRU, or LSTM",
                  "Set torch._dynamo.config.allow_rnn=True to enable experimental support for RNN, GRU, and LSTM in Dynamo",
                  "It may be possible to write Dynamo tracing rules for this code.")
    assert parse_break(rnn)["settings"] == ["allow_rnn"]
    shapes = _record("gb0036", "Dynamic shape operator",
                     "Enable tracing of dynamic shape operators with `torch._dynamo.config.capture_dynamic_output_shape_ops = True`")
    assert parse_break(shapes)["settings"] == ["capture_dynamic_output_shape_ops"]
    # "Change `torch._dynamo.config.trace_autograd_ops` to `True`." (torch.autograd.grad compiled).
    grad = _record("gb9186", "using `torch.autograd.grad` with `torch._dynamo.config.trace_autograd_ops=False`",
                   "Change `torch._dynamo.config.trace_autograd_ops` to `True`.")
    assert parse_break(grad)["settings"] == ["trace_autograd_ops"]


def test_the_capture_settings_are_compile_options():
    assert parse_compile_options("capture_scalar_outputs=true,capture_dynamic_output_shape_ops=false") == {
        "capture_scalar_outputs": True,
        "capture_dynamic_output_shape_ops": False,
    }
    assert parse_compile_options("allow_rnn=true") == {"allow_rnn": True}
    assert parse_compile_options("nested_graph_breaks=true") == {"nested_graph_breaks": True}
    with pytest.raises(EntryError, match="capture_scalar_outputs takes true or false"):
        parse_compile_options("capture_scalar_outputs=maybe")
    # Any on/off switch of torch._dynamo.config a hint may name is taken back as measured.
    assert parse_compile_options("trace_autograd_ops=true") == {"trace_autograd_ops": True}
    with pytest.raises(EntryError, match="unknown compile option 'trace_autograd_opz'"):
        parse_compile_options("trace_autograd_opz=true")


@pytest.mark.slow
def test_the_switch_a_hint_names_is_measured_and_taken_back(workdir: Path):
    # torch.autograd.grad in a compiled forward (a physics-informed loss): the hint names
    # trace_autograd_ops, which the run measures; passed back, the forward compiles whole.
    entry = workdir / "autograd_grad_entry.py"
    data = json.loads(invoke("explain", str(entry), *EAGER, "--format", "json").stdout)
    assert data["graph_breaks"] > 0
    trials = {tuple(trial["settings"]): trial for trial in data["capture_settings"]}
    alone = trials[("trace_autograd_ops",)]
    assert alone["graph_breaks_after"] == 0 and alone["graphs_after"] == 1 and alone["outputs_equal"]
    given = invoke("explain", str(entry), "--compile-options", "backend=eager,trace_autograd_ops=true", "--format", "json")
    assert given.exit_code == 0, given.output
    after = json.loads(given.stdout)
    assert after["graph_breaks"] == 0 and after["graphs"] == 1


@pytest.mark.slow
def test_explain_measures_each_capture_setting_the_breaks_call_for():
    result = invoke("explain", str(ENTRY), *EAGER, "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert sorted(site["gb"] for site in data["sites"]) == ["GB0036", "GB0036", "GB0124"]
    trials = {tuple(trial["settings"]): trial for trial in data["capture_settings"]}
    # Each switch the breaks' hints name, both together, and Dynamo's resuming in nested frames
    # alone and with both.
    assert set(trials) == {
        ("capture_scalar_outputs",),
        ("capture_dynamic_output_shape_ops",),
        ("capture_dynamic_output_shape_ops", "capture_scalar_outputs"),
        ("nested_graph_breaks",),
        ("capture_dynamic_output_shape_ops", "capture_scalar_outputs", "nested_graph_breaks"),
    }
    assert all(trial["graph_breaks_before"] == 3 and trial["outputs_equal"] for trial in trials.values())
    assert trials[("capture_scalar_outputs",)]["graph_breaks_after"] == 2
    assert trials[("capture_dynamic_output_shape_ops",)]["graph_breaks_after"] == 1
    both = trials[("capture_dynamic_output_shape_ops", "capture_scalar_outputs")]
    assert both["graph_breaks_after"] == 0 and both["graphs_after"] == 1

    # With the settings given, the run captures the values and nothing is left to try.
    given = invoke(
        "explain", str(ENTRY), "--compile-options", "backend=eager,capture_scalar_outputs=true,capture_dynamic_output_shape_ops=true",
        "--format", "json",
    )
    data = json.loads(given.stdout)
    assert data["graph_breaks"] == 0 and data["graphs"] == 1 and data["capture_settings"] == []


@pytest.mark.slow
def test_fix_entry_measures_the_capture_settings_for_the_breaks_it_leaves(tmp_path: Path):
    entry = tmp_path / "value_reads_entry.py"
    entry.write_text(ENTRY.read_text())
    result = invoke("fix", "--entry", str(entry), *EAGER, "--format", "json", str(tmp_path))
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["kept"] == {} and data["after"]["graph_breaks"] == 3
    both = [trial for trial in data["capture_settings"] if len(trial["settings"]) == 2]
    assert both and both[0]["graph_breaks_after"] == 0 and both[0]["outputs_equal"]
    assert entry.read_text() == ENTRY.read_text()


SELF_COMPILING = '''"""Reads a tensor's value into Python inside its own compiled model."""

import torch
from torch import nn


class Normalize(nn.Module):
    def forward(self, x):
        scale = x.abs().max().item()
        return x / scale


def my_model_function():
    return torch.compile(Normalize())


def GetInput():
    return torch.linspace(-1, 1, 8)
'''


@pytest.mark.slow
def test_unsafe_fix_writes_the_measured_setting_before_the_entrys_own_compile_call(tmp_path: Path):
    entry = tmp_path / "normalize_entry.py"
    entry.write_text(SELF_COMPILING)
    safe = invoke("fix", "--entry", str(entry), *EAGER, str(tmp_path))
    assert "Capture settings not written: a setting is global to the process" in safe.output
    assert entry.read_text() == SELF_COMPILING

    # item-stays-tensor would keep the read a tensor in the source (no setting needed): set aside,
    # since what is tested is the setting.
    result = invoke(
        "fix", "--entry", str(entry), *EAGER, "--unsafe-fixes", "--ignore", "item-stays-tensor", "--format", "json", str(tmp_path)
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["capture_setting_fix"] == {
        "path": str(entry), "line": 15, "settings": ["capture_scalar_outputs"],
        "measured": "as written: graph breaks 1 -> 0, graphs 2 -> 1, outputs equal",
    }
    assert entry.read_text() == SELF_COMPILING.replace(
        "    return torch.compile(Normalize())",
        "    # Measured by graphweld fix --entry: fewer graph breaks, outputs equal to eager.\n"
        "    torch._dynamo.config.capture_scalar_outputs = True\n"
        "    return torch.compile(Normalize())",
    )
    # The rewritten entry, run as it is, compiles into one graph.
    after = json.loads(invoke("explain", str(entry), *EAGER, "--format", "json").stdout)
    assert (after["graph_breaks"], after["graphs"]) == (0, 1)


@pytest.mark.slow
def test_the_setting_is_never_written_into_the_packages_an_entry_imports(tmp_path: Path):
    # The entry convention: graphweld compiles the model, so there is no call of the user's to set it by.
    entry = tmp_path / "value_reads_entry.py"
    entry.write_text(ENTRY.read_text())
    # item-stays-tensor (set aside) would rewrite the `.item()` read itself.
    result = invoke("fix", "--entry", str(entry), *EAGER, "--unsafe-fixes", "--ignore", "item-stays-tensor", str(tmp_path))
    assert "Capture settings not written: the entry has no torch.compile call of its own" in result.output
    assert entry.read_text() == ENTRY.read_text()


@pytest.mark.slow
def test_explain_measures_allow_rnn_for_an_lstm():
    entry = Path(__file__).parent / "entries" / "lstm_entry.py"
    result = invoke("explain", str(entry), *EAGER, "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [site["gb"] for site in data["sites"]] == ["GB0014"]
    trial, *_ = data["capture_settings"]
    assert [t["settings"] for t in data["capture_settings"]] == [["allow_rnn"], ["nested_graph_breaks"], ["allow_rnn", "nested_graph_breaks"]]
    assert trial["settings"] == ["allow_rnn"] and trial["outputs_equal"]
    assert trial["graph_breaks_before"] >= 1 and trial["graph_breaks_after"] == 0 and trial["graphs_after"] == 1


@pytest.mark.slow
def test_explain_measures_resuming_in_nested_frames_which_no_hint_names():
    entry = Path(__file__).parent / "entries" / "nested_break_entry.py"
    result = invoke("explain", str(entry), *EAGER, "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    (trial,) = data["capture_settings"]
    assert trial["settings"] == ["nested_graph_breaks"] and trial["outputs_equal"]
    # Dynamo resumes inside the helper instead of breaking in its caller too.
    assert (trial["graph_breaks_before"], trial["graph_breaks_after"]) == (2, 1)
    assert (trial["graphs_before"], trial["graphs_after"]) == (3, 2)


# -- the setting composed with the rewrites kept in the same file (one write per file) -------------

def _setting_fix(text: str, *settings: str, kept: str | None = None):
    from graphweld.runs.capture_fix import capture_setting_fix
    from graphweld.runs.explanation import CaptureTrial
    from graphweld.source import SourceFile

    # Only the names of the settings are read when the text is made.
    trial = CaptureTrial(tuple(settings), None, None)  # type: ignore[arg-type]
    return capture_setting_fix(SourceFile("entry.py", text, "utf-8"), trial, kept)


DECORATED = '''import torch

# The model's forward, compiled.
@torch.compile
def f(x):
    return x + 1
'''


def test_a_setting_before_a_decorated_definition_reads_as_a_person_writes_it():
    fix = _setting_fix(DECORATED, "nested_graph_breaks")
    assert fix.fixed == '''import torch

# Measured by graphweld fix --entry: fewer graph breaks, outputs equal to eager.
torch._dynamo.config.nested_graph_breaks = True


# The model's forward, compiled.
@torch.compile
def f(x):
    return x + 1
'''
    # Where the setting stands as written; the compiled definition's line in the file as given.
    assert (fix.line, fix.line_as_given) == (4, 5)
    # Written onto a text that already holds one, the file still parses and reads the same way.
    again = _setting_fix(fix.fixed, "capture_scalar_outputs")
    compile(again.fixed, "entry.py", "exec")
    assert "torch._dynamo.config.capture_scalar_outputs = True\n\n\n# The model's forward" in again.fixed


def test_a_setting_for_a_compile_inside_a_class_is_written_at_the_top_level():
    """A setting is global to the process: it goes before the class whose method is compiled, laid
    out as a top-level statement, not into the class body."""
    fix = _setting_fix(
        "import torch\n\n\nclass M(torch.nn.Module):\n    @torch.compile(fullgraph=True)\n    def forward(self, x):\n        return x\n",
        "nested_graph_breaks",
    )
    assert fix.fixed == (
        "import torch\n\n\n# Measured by graphweld fix --entry: fewer graph breaks, outputs equal to eager.\n"
        "torch._dynamo.config.nested_graph_breaks = True\n\n\n"
        "class M(torch.nn.Module):\n    @torch.compile(fullgraph=True)\n    def forward(self, x):\n        return x\n"
    )
    assert (fix.line, fix.line_as_given) == (5, 4)


def test_the_setting_is_written_onto_the_kept_rewrite_of_the_entry_not_onto_the_file_as_given():
    kept = DECORATED.replace("    return x + 1\n", "    y = x + 1\n    return y\n").replace("import torch\n", "import torch\nimport math\n")
    fix = _setting_fix(DECORATED, "nested_graph_breaks", kept=kept)
    # The kept rewrite is in the text written, with the setting.
    assert "    y = x + 1\n    return y\n" in fix.fixed and "import math\n" in fix.fixed
    assert "torch._dynamo.config.nested_graph_breaks = True" in fix.fixed
    # Where it stands as written, and the compile it goes before in the file as given.
    assert fix.fixed.splitlines()[fix.line - 1] == "torch._dynamo.config.nested_graph_breaks = True"
    assert DECORATED.splitlines()[fix.line_as_given - 1] == "def f(x):"
    compile(fix.fixed, "entry.py", "exec")


LOOP_PROGRAM = '''import torch

@torch.compile
def pyramid(x):
    outs = []
    for scale in (1.0, 0.5, 0.25):
        y = torch.nn.functional.interpolate(x, scale_factor=scale, mode="bilinear")
        torch._dynamo.graph_break()
        outs.append(y.mean())
    return outs[0] + outs[1] + outs[2]


def my_model_function():
    return pyramid


def GetInput():
    return torch.randn(1, 3, 16, 16)
'''


@pytest.mark.slow
def test_unsafe_fixes_write_the_kept_rewrite_and_the_setting_into_one_file(tmp_path: Path):
    # A program that compiles itself and breaks in a loop: unroll-loop is verified and kept, and
    # nested_graph_breaks then measured on top of it. Both must end up in the one file written.
    entry = tmp_path / "prog.py"
    entry.write_text(LOOP_PROGRAM)
    diff = invoke("fix", "--entry", str(entry), *EAGER, "--unsafe-fixes", "--diff", str(entry))
    assert diff.exit_code == 1, diff.output
    # One patch for the file, holding both.
    assert diff.stdout.count("\n--- ") + diff.stdout.startswith("--- ") == 1
    assert "+    _loop_body(0.5)" in diff.stdout and "+torch._dynamo.config.nested_graph_breaks = True" in diff.stdout
    assert entry.read_text() == LOOP_PROGRAM

    result = invoke("fix", "--entry", str(entry), *EAGER, "--unsafe-fixes", "--format", "json", str(entry))
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    written = entry.read_text()
    compile(written, str(entry), "exec")
    assert data["kept"] == {str(entry): ["unroll-loop"]}
    assert data["capture_setting_fix"]["settings"] == ["nested_graph_breaks"]
    assert data["capture_setting_fix"]["measured"].startswith("as written, with the 1 kept rewrite(s) (against those alone): ")
    assert "    _loop_body(0.25)\n" in written and "for scale in" not in written
    assert written.splitlines()[data["capture_setting_fix"]["line"] - 1] == "torch._dynamo.config.nested_graph_breaks = True"
    # Separated from the decorated definition by the usual two blank lines.
    assert "torch._dynamo.config.nested_graph_breaks = True\n\n\n@torch.compile\n" in written
    # The picture reported is the one the written file shows when run as it is.
    shown = json.loads(invoke("explain", str(entry), *EAGER, "--format", "json").stdout)
    assert data["after"]["skipped_frames"] == shown["skipped_frames"] == 0
    assert (data["after"]["graph_breaks"], data["after"]["graphs"]) == (shown["graph_breaks"], shown["graphs"])
    assert data["after"]["graph_breaks"] < 6  # the unrolled loop alone breaks 6 times, 2 per call

    again = invoke("fix", "--entry", str(entry), *EAGER, "--unsafe-fixes", str(entry))
    assert again.exit_code == 0, again.output
    assert entry.read_text() == written
