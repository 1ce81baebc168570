"""eager-helper, compiled: each golden's helper (Qwen2-VL's position ids, torchmetrics' curve
thresholds, torch_geometric's self-loop mask, a packed encoder's segment ids, torchsde's and
monai's generators seeded per call) breaks inside it
before the rewrite; disabled, Dynamo calls it eagerly: fewer breaks and graphs, the same outputs
and gradients. So does a helper that does little besides calling a disabled function
(transformers' vision sequence lengths, kornia's color steps, torchmetrics' AUROC, the speech
encoders' SpecAugment), whose call is otherwise a break in its frame and again in its caller's,
and a helper whose data-dependent `if` picks Python objects (torchdiffeq's reversed times,
linear_operator's Cholesky fallback)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from compile_stats import compile_stats, load_module
from torch._dynamo.utils import counters

# Depends on what Dynamo does: run again on the current torch release by CI (docs/development.md).
pytestmark = pytest.mark.dynamo

GOLDEN = Path(__file__).parent / "golden" / "eager-helper"


def _vision_tower(module):
    torch.manual_seed(0)
    tower = module.VisionTower(8)
    grid = torch.tensor([[1, 4, 4], [2, 2, 4]])
    return tower, (torch.randn(32, 8, requires_grad=True), grid)


def _auroc(module):
    torch.manual_seed(0)
    target = torch.tensor([0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0])
    return module.auroc, (torch.randn(12), target)


def _graph_conv(module):
    torch.manual_seed(0)
    edges = torch.tensor([[0, 1, 1, 2, 3, 4, 4], [1, 1, 2, 0, 3, 3, 0]])
    return module.GraphConv(4), (torch.randn(5, 4, requires_grad=True), edges)


def _packed_encoder(module):
    torch.manual_seed(0)
    return module.PackedEncoder(4), (torch.randn(6, 4, requires_grad=True), torch.tensor([2, 4]))


def _color_jitter(module):
    torch.manual_seed(0)
    image = torch.rand(2, 3, 4, 4, requires_grad=True)
    return module.ColorJitter(), (image, torch.tensor([0.1, 1.2]), torch.tensor([1, 0]))


def _scored_auroc(module):
    torch.manual_seed(0)
    target = torch.tensor([0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0])
    return module.scored_auroc, (torch.randn(12), target)


def _increments(module):
    torch.manual_seed(0)
    return module.Increments(), (torch.randn(5, 3, requires_grad=True),)


def _ode_block(module):
    torch.manual_seed(0)
    # Times in decreasing order: the reversed-time branch runs.
    return module.ODEBlock(3), (torch.randn(3, requires_grad=True), torch.tensor([1.0, 0.6, 0.2]))


def _posterior_mean(module):
    torch.manual_seed(0)
    train_x, train_y, test_x = torch.randn(6, 2), torch.randn(6), torch.randn(3, 2)
    return module.gp_posterior_mean, (train_x, train_y, test_x, torch.tensor(1.3, requires_grad=True))


def _triple_energies(module):
    torch.manual_seed(0)
    return module.triple_energies, (torch.tensor([2, 3, 1, 4]), torch.randn(10, requires_grad=True))


CASES = [
    ("vision_position_ids", _vision_tower),
    ("untraceable_generator", _increments),
    ("thresholds_where", _auroc),
    ("self_loops_mask", _graph_conv),
    ("method_counts", _packed_encoder),
    ("attention_seqlens_calls_eager", _vision_tower),
    ("color_steps_calls_eager", _color_jitter),
    ("auroc_calls_eager", _scored_auroc),
    ("repeat_by_own_counts", _triple_energies),
]


def _before_and_after(case, build):  # type: ignore[no-untyped-def]
    """The golden's callable and inputs before and after the rewrite, with the same weights."""
    before_fn, args = build(load_module((GOLDEN / f"{case}.in.py").read_text(), f"{case}_before"))
    after_fn, after_args = build(load_module((GOLDEN / f"{case}.out.py").read_text(), f"{case}_after"))
    if isinstance(before_fn, torch.nn.Module):
        after_fn.load_state_dict(before_fn.state_dict())
    return before_fn, args, after_fn, after_args


def _breaks(fn, args):  # type: ignore[no-untyped-def]
    stats = compile_stats(fn, *args)
    return stats, sum(counters["graph_break"].values())


@pytest.mark.parametrize(("case", "build"), CASES, ids=[case for case, _ in CASES])
def test_a_disabled_helper_breaks_less_with_the_same_outputs_and_gradients(case, build):
    before_fn, args, after_fn, after_args = _before_and_after(case, build)

    original, breaks_before = _breaks(before_fn, args)
    fixed, breaks_after = _breaks(after_fn, after_args)
    assert breaks_before >= 2  # the helper breaks inside, and its caller is split
    assert breaks_after < breaks_before
    assert fixed.graphs <= original.graphs
    eager = before_fn(*args)
    torch.testing.assert_close(fixed.result, eager)
    torch.testing.assert_close(original.result, eager)

    differentiable = [a for a in args if a.requires_grad]
    if differentiable:
        eager_grads = torch.autograd.grad(eager.sum(), differentiable)
        compiled = torch.compile(after_fn, backend="eager")(*after_args)
        compiled_grads = torch.autograd.grad(compiled.sum(), [a for a in after_args if a.requires_grad])
        torch.testing.assert_close(compiled_grads, eager_grads)


# A data-dependent `if` in a nested frame: Dynamo breaks there and splits the frame around it;
# disabled, the helper's call is the one break, and the graphs around it merge.
BRANCH_CASES = [("reversed_time_branch", _ode_block), ("cholesky_fallback", _posterior_mean)]


@pytest.mark.parametrize(("case", "build"), BRANCH_CASES, ids=[case for case, _ in BRANCH_CASES])
def test_a_disabled_branching_helper_makes_fewer_graphs_with_the_same_outputs_and_gradients(case, build):
    before_fn, args, after_fn, after_args = _before_and_after(case, build)

    original, breaks_before = _breaks(before_fn, args)
    fixed, breaks_after = _breaks(after_fn, after_args)
    assert breaks_before >= 1
    assert breaks_after <= breaks_before
    assert fixed.graphs < original.graphs
    eager = before_fn(*args)
    torch.testing.assert_close(fixed.result, eager)

    differentiable = [a for a in args if a.requires_grad]
    eager_grads = torch.autograd.grad(eager.sum(), differentiable)
    compiled = torch.compile(after_fn, backend="eager")(*after_args)
    compiled_grads = torch.autograd.grad(compiled.sum(), [a for a in after_args if a.requires_grad])
    torch.testing.assert_close(compiled_grads, eager_grads)


def test_spec_augment_run_eagerly_breaks_less_in_training_with_the_same_outputs_and_gradients():
    # The speech encoders' SpecAugment draws its spans with NumPy: each run is seeded alike.
    import numpy as np

    case = "spec_augment_calls_eager"
    before = load_module((GOLDEN / f"{case}.in.py").read_text(), f"{case}_before").SpeechEncoder(4).train()
    after = load_module((GOLDEN / f"{case}.out.py").read_text(), f"{case}_after").SpeechEncoder(4).train()
    after.load_state_dict(before.state_dict())
    torch.manual_seed(0)
    features = torch.randn(2, 6, 4)

    def step(model):  # type: ignore[no-untyped-def]
        np.random.seed(0)
        stats, breaks = _breaks(model, (features,))
        return stats, breaks, torch.autograd.grad(stats.result.sum(), list(model.parameters()))

    original, breaks_before, _ = step(before)
    fixed, breaks_after, fixed_grads = step(after)
    assert breaks_after < breaks_before and fixed.graphs <= original.graphs
    np.random.seed(0)
    eager = before(features)
    torch.testing.assert_close(fixed.result, eager)
    torch.testing.assert_close(original.result, eager)
    torch.testing.assert_close(fixed_grads, torch.autograd.grad(eager.sum(), list(before.parameters())))


def test_fix_entry_can_try_the_change_alone():
    # `fix --entry` verifies a change by rebuilding the file with only that change allowed; the
    # rule must propose it again under its own key.
    from graphweld.engine import fix_text
    from graphweld.run_evidence import RunEvidence
    from graphweld.settings import Settings

    case = GOLDEN / "thresholds_where.in.py"
    source = case.read_text()
    (change,) = fix_text(source, str(case), Settings(), RunEvidence(site_lines=frozenset({12}))).applied
    assert change.rule == "eager-helper"
    alone = fix_text(source, str(case), Settings(), RunEvidence(site_lines=frozenset({12})), allowed=frozenset({change.key}))
    assert [c.rule for c in alone.applied] == ["eager-helper"]
    assert alone.text == (GOLDEN / "thresholds_where.out.py").read_text()


PACKED_ENTRY = Path(__file__).parent / "entries" / "packed_positions_entry.py"


@pytest.mark.slow
def test_fix_entry_keeps_the_disabled_helper_and_says_what_its_call_costs(tmp_path: Path):
    import json

    from test_entry import EAGER, invoke

    entry = tmp_path / PACKED_ENTRY.name
    entry.write_text(PACKED_ENTRY.read_text())
    result = invoke("fix", "--entry", str(entry), *EAGER, "--format", "json", str(tmp_path))
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["kept"] == {str(entry): ["eager-helper"]}
    assert (data["before"]["graph_breaks"], data["after"]["graph_breaks"]) == (2, 1)
    assert (data["before"]["graphs"], data["after"]["graphs"]) == (2, 1)
    assert "@torch.compiler.disable\ndef positions(lengths):" in entry.read_text()
    (left,) = data["remaining"]
    assert left["gb"] == "GB0098" and "runs eagerly and its call is one break" in left["action"]


@pytest.mark.slow
def test_fix_entry_runs_a_helper_that_only_wraps_an_eager_call_eagerly_too(tmp_path: Path):
    # Round 1 disables the helper that sizes a tensor by values; its caller's call of it is then a
    # break in the caller's frame and again in the forward: round 2 runs the caller eagerly too.
    import json

    from test_entry import EAGER, invoke

    source = Path(__file__).parent / "entries" / "vision_seqlens_entry.py"
    entry = tmp_path / source.name
    entry.write_text(source.read_text())
    result = invoke("fix", "--entry", str(entry), *EAGER, "--format", "json", str(tmp_path))
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["kept"] == {str(entry): ["eager-helper", "eager-helper"]}
    assert (data["before"]["graph_breaks"], data["after"]["graph_breaks"]) == (3, 1)
    assert (data["before"]["graphs"], data["after"]["graphs"]) == (4, 1)
    text = entry.read_text()
    assert "@torch.compiler.disable\ndef cu_seqlens(" in text and "@torch.compiler.disable\ndef attention_seqlens(" in text


@pytest.mark.slow
def test_with_unsafe_fixes_a_capture_setting_that_traces_the_helper_whole_wins(tmp_path: Path):
    # Disabled, the helper is one break whatever the setting; with capture_scalar_outputs and the
    # helper traced, the program compiles whole: fix --entry measures both and keeps the better.
    import json

    from test_entry import EAGER, invoke

    entry = tmp_path / PACKED_ENTRY.name
    entry.write_text(PACKED_ENTRY.read_text())
    result = invoke("fix", "--entry", str(entry), *EAGER, "--unsafe-fixes", "--format", "json", str(tmp_path))
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["kept"] == {}
    (dropped,) = [t for t in data["tried"] if t["rule"] == "eager-helper"]
    assert not dropped["kept"] and dropped["why"].startswith("the capture setting does better without it")
    assert data["capture_setting_fix"]["settings"] == ["capture_scalar_outputs"]
    text = entry.read_text()
    assert "compiler.disable" not in text and "torch._dynamo.config.capture_scalar_outputs = True" in text
    after = json.loads(invoke("explain", str(entry), *EAGER, "--format", "json").stdout)
    assert (after["graph_breaks"], after["graphs"]) == (0, 1)


@pytest.mark.slow
def test_the_setting_that_wins_over_a_helper_in_another_file_is_written_into_the_entry(tmp_path: Path):
    # The same program with its model in a module of its own: the setting still goes before the
    # entry's torch.compile call, never into the module whose helper eager-helper disabled.
    import json

    from test_entry import EAGER, invoke

    model, _, entry_part = PACKED_ENTRY.read_text().partition("def my_model_function")
    (tmp_path / "packed.py").write_text(model.rstrip() + "\n")
    entry = tmp_path / "packed_entry.py"
    entry.write_text("import torch\nfrom packed import PackedPositions\n\n\ndef my_model_function" + entry_part)
    result = invoke("fix", "--entry", str(entry), *EAGER, "--unsafe-fixes", "--format", "json", str(tmp_path / "packed.py"))
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["kept"] == {} and data["capture_setting_fix"]["path"] == str(entry)
    assert "torch._dynamo.config.capture_scalar_outputs = True" in entry.read_text()
    assert (tmp_path / "packed.py").read_text() == model.rstrip() + "\n"


def test_a_call_of_a_disabled_function_met_while_inlining_is_explained_as_the_direct_call_is():
    # torch 2.14 logs most calls of a disabled function as GB0099 ("Skip inlining"), 2.13 as GB0098:
    # both are the price of running the function eagerly, not a hint to drop the decorator blindly.
    from graphweld.runs.entry import BreakSite
    from graphweld.runs.explanation import _explain
    from graphweld.settings import Settings

    for gb in ("GB0098", "GB0099"):
        site = BreakSite("helpers.py", 3, gb, "Skip inlining `torch.compiler.disable()`d function", "Remove the `torch.compiler.disable` call", False)
        explained = _explain(site, None, Settings(), ())
        assert explained.action.startswith("not fixed: the function is disabled for Dynamo") and "its call is one break" in explained.action


@pytest.mark.slow
def test_where_graphweld_compiles_the_model_it_keeps_the_helper_and_names_the_setting_that_does_better(tmp_path: Path):
    # No torch.compile of the entry's own to write a setting by: the disabled helper stays, and
    # the note gives the line that traces it whole instead, with what it measured.
    import json

    from test_entry import EAGER, invoke

    entry = tmp_path / PACKED_ENTRY.name
    entry.write_text(PACKED_ENTRY.read_text().replace("return torch.compile(PackedPositions())", "return PackedPositions()"))
    result = invoke("fix", "--entry", str(entry), *EAGER, "--format", "json", str(tmp_path))
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["kept"] == {str(entry): ["eager-helper"]} and data["capture_setting_fix"] is None
    note = data["capture_setting_note"]
    assert "without eager-helper's 1 change(s), `torch._dynamo.config.capture_scalar_outputs = True` where you compile does better" in note
    assert "graph breaks 2 -> 0, graphs 2 -> 1, outputs equal" in note
    assert "@torch.compiler.disable\ndef positions(lengths):" in entry.read_text()
