"""branch-to-where, branch-to-cond, branchless-guard and guard-to-check, compiled: the rewrite removes the data-dependent break
and gives the original's results on inputs that take each side of the branch (and, for a guard,
still fails, with the same message, on inputs that break it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from compile_stats import compile_stats, golden_modules, load_module
from test_entry import EAGER, invoke

from graphweld.run_evidence import RunEvidence
from graphweld.engine import fix_text
from graphweld.settings import Settings

# Depends on what Dynamo does: run again on the current torch release by CI (docs/development.md).
pytestmark = pytest.mark.dynamo

GOLDEN = Path(__file__).parent / "golden"


def before_and_after(case: str) -> tuple[object, object]:
    return golden_modules(GOLDEN / f"{case}.in.py")


@pytest.mark.parametrize(
    ("case", "function", "inputs"),
    [
        (
            "branch-to-where/assignments_both_branches",
            "scale",
            [(torch.ones(3) * 2, torch.tensor(1.0)), (torch.ones(3) * 0.1, torch.tensor(1.0))],
        ),
        (
            "branch-to-where/rebinding_without_else",
            "damp",
            [(torch.ones(3), torch.ones(3)), (-torch.ones(3), torch.ones(3))],
        ),
        (
            "branch-to-cond/different_computations",
            "combine",
            [(torch.ones(3), torch.arange(3.0)), (-torch.ones(3), torch.arange(3.0))],
        ),
        ("branch-to-cond/one_sided_temporary", "norm", [(torch.ones(2, 3),), (torch.zeros(2, 3),)]),
        (
            "branch-to-where/early_return",
            "step_size",
            [
                (torch.tensor(0.1), torch.tensor(ratio), torch.tensor(10.0), torch.tensor(0.2))
                for ratio in (0.0, 0.5, 2.0)
            ],
        ),
        ("branch-to-where/early_return", "positive_fraction", [(torch.zeros(4),), (torch.tensor([1.0, 0.0, 2.0, 0.0]),)]),
        # Python's max, min and abs of tensors, which Dynamo traces: both sides are computed (torchdiffeq).
        (
            "branch-to-where/builtin_max_of_tensors",
            "initial_step",
            [(torch.tensor(0.5), torch.tensor(2.0), torch.tensor(0.1)), (torch.tensor(0.0), torch.tensor(0.0), torch.tensor(0.1))],
        ),
        (
            "branch-to-where/builtin_max_of_tensors",
            "step_limit",
            [(torch.tensor(3.0), torch.tensor(-0.5), torch.tensor(1.4)), (torch.tensor(3.0), torch.tensor(0.5), torch.tensor(1.4))],
        ),
        (
            "branch-to-where/value_chosen_by_an_option",
            "normalize",
            [(torch.tensor([[2.0, -1.0]]), "sigmoid"), (torch.tensor([[0.2, 0.8]]), "softmax"), (torch.tensor([[2.0, -1.0]]), "softmax")],
        ),
        (
            "branch-to-where/rtdetr_training_clamp",
            "train_forward",
            [(torch.ones(2, 4),), (torch.full((2, 4), float("inf")),)],
        ),
        ("guard-to-check/negated_with_logical_not", "normalize", [(torch.ones(3),), (torch.arange(1.0, 4.0),)]),
        ("guard-to-check/assert_on_tensor", "observe", [(torch.arange(1.0, 5.0),), (torch.ones(3),)]),
        # XLM's and ProphetNet's asserts on a value read with `.item()`, tested on the tensor.
        ("guard-to-check/assert_item_tested_on_tensor", "positions", [(torch.ones(2, 4), torch.tensor([4, 3]), 4)]),
        ("guard-to-check/assert_item_tested_on_tensor", "shift_right", [(torch.arange(6).view(2, 3), 0)]),
        # torchsde's and monai's messages written as f-strings; kept as their text.
        (
            "guard-to-check/fstring_message_keeps_its_text",
            "interpolate",
            [(torch.tensor(0.0), torch.tensor(0.5), torch.tensor(1.0), torch.ones(3), torch.zeros(3))],
        ),
        ("guard-to-check/fstring_message_keeps_its_text", "check_window", [(torch.tensor([0, 3, 1]), 4)]),
        ("guard-to-check/or_and_not_become_logical", "check", [(torch.arange(4.0),), (torch.arange(4.0).flip(0),)]),
        # piq's and speechbrain's input checks: the assert on the maximum, behind the one the run saw.
        ("guard-to-check/asserts_behind_the_one_the_run_saw", "ssim_like", [(torch.rand(1, 3, 8, 8), torch.rand(1, 3, 8, 8))]),
        (
            "guard-to-check/parenthesized_messages_behind_the_one_the_run_saw",
            "ssim_loss",
            [(torch.rand(1, 3, 8, 8), torch.rand(1, 3, 8, 8))],
        ),
        # torchdiffeq's and torchsde's interpolation modules, which import nothing: `import torch` added.
        (
            "guard-to-check/module_without_torch_import",
            "_interp_evaluate",
            [([torch.ones(3), torch.arange(3.0)], torch.tensor(0.0), torch.tensor(1.0), torch.tensor(0.25))],
        ),
        (
            "guard-to-check/module_without_torch_import",
            "linear_interp",
            [(torch.tensor(0.0), torch.ones(3), torch.tensor(1.0), torch.zeros(3), torch.tensor(0.5))],
        ),
        (
            "branchless-guard/hf_fp16_clamp",
            "layer",
            [(torch.tensor([1.0, float("inf"), -70000.0]).half(),), (torch.tensor([1.0, 60000.0]).half(),)],
        ),
        (
            "branchless-guard/finite_range_clamp_unconditional",
            "repair",
            [(torch.tensor([1.0, float("inf"), float("nan")]),), (torch.tensor([3.0e38, -1.0]),)],
        ),
        ("branchless-guard/nan_to_num_behind_isnan", "clean", [(torch.tensor([1.0, float("nan")]),), (torch.ones(2),)]),
    ],
)
def test_compiled_rewrite_is_one_graph_with_the_original_results_on_each_side(case, function, inputs):
    before, after = before_and_after(case)
    for args in inputs:
        original = compile_stats(getattr(before, function), *args)
        rewritten = compile_stats(getattr(after, function), *args)
        assert original.frames > 1
        assert (rewritten.graphs, rewritten.frames, rewritten.skipped_frames) == (1, 1, 0)
        torch.testing.assert_close(rewritten.result, original.result, rtol=0, atol=0, equal_nan=True)
        torch.testing.assert_close(getattr(before, function)(*args), original.result, rtol=0, atol=0, equal_nan=True)


def test_a_guard_after_item_stays_in_the_graph_when_dynamo_captures_scalars():
    before, after = before_and_after("guard-to-check/item_scalar_to_check")
    with torch._dynamo.config.patch(capture_scalar_outputs=True):
        for x in (torch.ones(3), torch.full((2,), 4.0)):
            original = compile_stats(before.scale, x)
            rewritten = compile_stats(after.scale, x)
            assert original.frames > 1 and rewritten.frames == 1
            torch.testing.assert_close(rewritten.result, original.result, rtol=0, atol=0)
        torch._dynamo.reset()
        with pytest.raises(RuntimeError, match="too large"):
            torch.compile(after.scale, backend="eager")(torch.full((3,), 5.0))


def test_a_failed_check_raises_runtime_error_with_the_guards_message():
    before, after = before_and_after("guard-to-check/shapes_guard")
    arguments = (torch.ones(2), [[2, 3], [1, 1]], 8)
    with pytest.raises(ValueError, match="Make sure to align the spatial shapes"):
        before.attend(*arguments)
    for run in (after.attend, torch.compile(after.attend, backend="eager", fullgraph=True)):
        torch._dynamo.reset()
        with pytest.raises(RuntimeError, match="Make sure to align the spatial shapes"):
            run(*arguments)
    passing = compile_stats(after.attend, torch.ones(2), [[2, 3], [1, 1]], 7)
    assert (passing.graphs, passing.skipped_frames) == (1, 0)


ENTRY = """
import torch


class Model(torch.nn.Module):
    def forward(self, x, shapes):
        return {module}.select(x, shapes)


def my_model_function():
    return Model()


def GetInput():
    return torch.linspace(-1, 1, 6), torch.tensor([[2, 3]])
"""

MODULE = """
import torch


def select(x, shapes):
    if (shapes[:, 0] * shapes[:, 1]).sum() != x.shape[0]:
        raise ValueError("shapes do not cover x")
    if shapes.sum() > 4:
        scale = x.abs()
    else:
        scale = x
    return x * scale
"""


@pytest.mark.slow
def test_fix_entry_rewrites_branches_dynamo_saw_on_unannotated_values(tmp_path: Path):
    # `shapes` is a parameter with no annotation: only the run shows that it is a tensor.
    (tmp_path / "selecting.py").write_text(MODULE)
    entry = tmp_path / "selecting_entry.py"
    entry.write_text("import selecting\n" + ENTRY.format(module="selecting"))
    static = invoke("fix", "--unsafe-fixes", "--assume-compiled", "--diff", str(tmp_path / "selecting.py"))
    assert "would fix" not in static.output

    result = invoke("fix", "--entry", str(entry), *EAGER, "--unsafe-fixes", "--format", "json", str(tmp_path))
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["before"]["graph_breaks"] > 0
    assert data["after"]["graph_breaks"] == 0 and data["after"]["graphs"] == 1
    text = (tmp_path / "selecting.py").read_text()
    assert text == MODULE.replace(
        """    if (shapes[:, 0] * shapes[:, 1]).sum() != x.shape[0]:
        raise ValueError("shapes do not cover x")
    if shapes.sum() > 4:
        scale = x.abs()
    else:
        scale = x
""",
        """    torch._assert_async(
        (shapes[:, 0] * shapes[:, 1]).sum() == x.shape[0],
        "shapes do not cover x",
    )
    scale = torch.where(shapes.sum() > 4, x.abs(), x)
""",
    )


def test_static_fix_finds_decisions_on_values_in_files_without_breaking_calls(tmp_path: Path):
    # None of these files calls print, logging or another breaking function: the prefilter must
    # still let them through to the rules about decisions on tensor values.
    cases = {
        "branch.py": "branch-to-where/unsafe_needs_flag",
        "guard.py": "guard-to-check/unsafe_needs_flag",
        "clamp.py": "branchless-guard/hf_fp16_clamp",
        "shapes.py": "iterate-source-list/unsafe_needs_flag",
    }
    for name, case in cases.items():
        (tmp_path / name).write_text((GOLDEN / f"{case}.in.py").read_text())
    result = invoke("fix", "--unsafe-fixes", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "torch.where(peak > 1, x / peak, x)" in (tmp_path / "branch.py").read_text()
    assert 'torch._assert_async(x.sum() != 0, "empty")' in (tmp_path / "guard.py").read_text()
    assert "torch.isinf(hidden_states).any() | torch.isnan(hidden_states).any()," in (tmp_path / "clamp.py").read_text()
    assert "sum(sizes(shapes_list))" in (tmp_path / "shapes.py").read_text()


@pytest.mark.parametrize(
    "case", ["iterate-source-list/proposals_iterate_shapes", "iterate-source-list/through_submodule_parameters"]
)
def test_iterating_the_source_list_compiles_to_one_graph_with_the_same_result(case):
    before, after = before_and_after(case)
    hidden = torch.arange(40.0).reshape(1, 20, 2)
    original = compile_stats(before.Model(), hidden)
    rewritten = compile_stats(after.Model(), hidden)
    assert original.frames > 1 or original.skipped_frames
    assert (rewritten.graphs, rewritten.frames, rewritten.skipped_frames) == (1, 1, 0)
    torch.testing.assert_close(rewritten.result, original.result, rtol=0, atol=0)


@pytest.mark.slow
def test_explain_names_the_fix_at_the_call_for_a_break_inside_the_callees_loop(tmp_path: Path):
    (tmp_path / "proposals.py").write_text((GOLDEN / "iterate-source-list/proposals_iterate_shapes.in.py").read_text())
    entry = tmp_path / "proposals_entry.py"
    entry.write_text(
        "import torch\nimport proposals\n\n\ndef my_model_function():\n    return proposals.Model()\n\n\n"
        "def GetInput():\n    return torch.ones(1, 20, 2)\n"
    )
    result = invoke("explain", str(entry), *EAGER, "--format", "json")
    assert result.exit_code == 0, result.output
    loop_lines = range(10, 15)  # the `for` over the shapes tensor in Model.proposals
    in_loop = [site for site in json.loads(result.stdout)["sites"] if site["line"] in loop_lines]
    assert in_loop and all(site["rule"] == "iterate-source-list" for site in in_loop), in_loop


def test_a_failed_assertion_still_fails_with_its_message():
    before, after = before_and_after("guard-to-check/assert_on_tensor")
    nan = torch.tensor([1.0, float("nan")])
    torch._dynamo.reset()
    with pytest.raises(AssertionError, match="NaN detected"):
        before.observe(nan)  # the assert runs eagerly, after the break
    torch._dynamo.reset()
    with pytest.raises(RuntimeError, match="NaN detected"):
        after.observe(nan)


def test_a_value_out_of_range_still_fails_the_check_behind_the_one_the_run_saw():
    """piq's range check, rewritten: a maximum above the range fails the second check, in the graph."""
    before, after = before_and_after("guard-to-check/asserts_behind_the_one_the_run_saw")
    too_bright = torch.full((1, 3, 4, 4), 2.0)
    torch._dynamo.reset()
    with pytest.raises(AssertionError, match="lower or equal"):
        before.ssim_like(too_bright, too_bright)
    torch._dynamo.reset()
    with pytest.raises(RuntimeError, match="lower or equal"):
        torch.compile(after.ssim_like)(too_bright, too_bright)


@pytest.mark.parametrize("batch_first", [True, False])
def test_a_check_on_flags_that_may_be_python_bools_compiles_whole_and_still_fails(batch_first: bool):
    """pytorch-crf's mask check: each flag is `False` or a tensor, by the setting; checked in the graph either way."""
    before, after = before_and_after("guard-to-check/flag_from_python_and")
    mask = torch.ones(3, 4, dtype=torch.bool)
    mask[2:, 1] = False
    emissions = torch.randn(3, 4, 5)
    original = compile_stats(before.CRF(batch_first), emissions, mask)
    rewritten = compile_stats(after.CRF(batch_first), emissions, mask)
    assert original.frames > 1 or original.skipped_frames
    assert (rewritten.graphs, rewritten.frames, rewritten.skipped_frames) == (1, 1, 0)
    torch.testing.assert_close(rewritten.result, original.result, rtol=0, atol=0)
    empty_first = torch.zeros(3, 4, dtype=torch.bool)
    torch._dynamo.reset()
    with pytest.raises(RuntimeError, match="first timestep"):
        torch.compile(after.CRF(batch_first), backend="eager")(emissions, empty_first)


IBERT_OBSERVER = '''import torch
import torch.nn as nn


class QuantAct(nn.Module):
    def forward(self, x, identity=None):
        x_act = x if identity is None else identity + x
        x_min = x_act.data.min()
        x_max = x_act.data.max()
        assert x_max.isnan().sum() == 0 and x_min.isnan().sum() == 0, (
            "NaN detected when computing min/max of the activation"
        )
        return x_act * 2
'''


def test_an_assert_the_run_saw_break_is_checked_in_the_graph():
    """Nothing in IBert's observer says `x` is a tensor; the run saw Dynamo stop on data-dependent
    branching at the assert, and that is enough to rewrite it (--unsafe-fixes)."""
    settings = Settings(unsafe_fixes=True)
    assert fix_text(IBERT_OBSERVER, "quant_modules.py", settings).text == IBERT_OBSERVER
    fixed = fix_text(IBERT_OBSERVER, "quant_modules.py", settings, RunEvidence(site_lines=frozenset({10}), data_dependent_lines=frozenset({10}))).text
    assert fixed.count("torch._assert_async(") == 2 and "assert " not in fixed
    before, after = load_module(IBERT_OBSERVER).QuantAct(), load_module(fixed).QuantAct()
    x = torch.randn(2, 3)
    original, rewritten = compile_stats(before, x), compile_stats(after, x)
    assert original.graphs > 1 or original.skipped_frames
    assert (rewritten.graphs, rewritten.skipped_frames) == (1, 0)
    torch.testing.assert_close(rewritten.result, original.result, rtol=0, atol=0)


def test_an_assertion_read_with_item_still_fails_when_it_does_not_hold():
    before, after = before_and_after("guard-to-check/assert_item_tested_on_tensor")
    too_long = (torch.ones(2, 4), torch.tensor([5, 3]), 4)
    torch._dynamo.reset()
    with pytest.raises(AssertionError):
        before.positions(*too_long)
    torch._dynamo.reset()
    with pytest.raises(RuntimeError):
        after.positions(*too_long)
    torch._dynamo.reset()
    with pytest.raises(RuntimeError, match="only positive values"):
        after.shift_right(torch.arange(6).view(2, 3), -1)


@pytest.mark.parametrize(
    ("function", "inputs"),
    [
        # FastSpeech 2's and gpytorch's writes into part of a tensor, on each side of the branch.
        ("regulate", [(torch.ones(2, 3), torch.zeros(2, 4, dtype=torch.long)), (torch.ones(2, 3), torch.tensor([[1, 0], [0, 0]]))]),
        ("grad_of_log_cdf", [(torch.tensor([-2.0, 0.5, -3.0]), torch.tensor(2.0), torch.tensor(4.0)), (torch.ones(2), torch.tensor(2.0), torch.tensor(4.0))]),
    ],
)
def test_a_write_into_part_of_a_tensor_without_else_is_one_graph_and_writes_in_place(function, inputs):
    before, after = before_and_after("branch-to-where/in_place_write_without_else")
    for args in inputs:
        original_args, rewritten_args = [a.clone() for a in args], [a.clone() for a in args]
        original = compile_stats(getattr(before, function), *original_args)
        rewritten = compile_stats(getattr(after, function), *rewritten_args)
        assert original.frames > 1
        assert (rewritten.graphs, rewritten.frames, rewritten.skipped_frames) == (1, 1, 0)
        torch.testing.assert_close(rewritten.result, original.result, rtol=0, atol=0)
        # The caller's tensor is written as the branch wrote it.
        for mine, theirs in zip(rewritten_args, original_args):
            torch.testing.assert_close(mine, theirs, rtol=0, atol=0)


def test_layerdrop_drawn_inside_the_test_compiles_whole_in_training_with_the_same_random_stream():
    before, after = before_and_after("layerdrop-guard/draw_inside_the_test")
    results = []
    for module in (before, after):
        torch.manual_seed(1)
        encoder = module.Encoder(0.0).train()
        stats = compile_stats(encoder, torch.ones(2, 4))
        results.append((stats, torch.rand(3)))
    (original, stream_before), (rewritten, stream_after) = results
    assert original.frames > 1 or original.skipped_frames
    assert (rewritten.graphs, rewritten.skipped_frames) == (1, 0)
    torch.testing.assert_close(rewritten.result, original.result, rtol=0, atol=0)
    # Every draw is still made: what the program draws next is the same.
    torch.testing.assert_close(stream_after, stream_before, rtol=0, atol=0)


def test_a_guard_the_run_saw_on_a_flag_checks_it_whether_it_is_a_tensor_or_a_python_bool():
    source = (
        "import torch\n\n\ndef step(x, ok):\n    if not ok:\n        raise ValueError(\"not ok\")\n    return x * 2\n"
    )
    fixed = fix_text(source, "m.py", Settings(unsafe_fixes=True), RunEvidence(site_lines=frozenset({5}), data_dependent_lines=frozenset({5}))).text
    assert 'torch._assert_async(torch.as_tensor(ok), "not ok")' in fixed
    step = load_module(fixed).step
    for ok in (True, torch.tensor(True)):
        torch.testing.assert_close(step(torch.ones(2), ok), torch.full((2,), 2.0))
    with pytest.raises(RuntimeError, match="not ok"):
        step(torch.ones(2), False)


FLAUBERT_CHECK = '''import torch


def forward(input_ids, lengths=None, slen=4):
    if lengths is None:
        lengths = (input_ids != 0).sum(dim=1).long()
    assert lengths.max().item() <= slen
    return input_ids * 2
'''


def test_an_assert_read_with_item_on_a_value_the_code_does_not_type_is_rewritten_where_a_run_broke():
    """Flaubert's `lengths` may be the caller's argument: nothing in the code says it is a tensor
    (a numpy value has `.item()` too); a run's break at the assert says it was."""
    settings = Settings(unsafe_fixes=True)
    assert fix_text(FLAUBERT_CHECK, "modeling.py", settings, RunEvidence(site_lines=frozenset({7}))).text == FLAUBERT_CHECK.replace(
        "    assert lengths.max().item() <= slen\n", "    torch._assert_async(lengths.max() <= slen)\n"
    )
    static = fix_text(FLAUBERT_CHECK, "modeling.py", Settings(unsafe_fixes=True, assume_compiled=True)).text
    assert "assert lengths.max().item() <= slen" in static
