"""leaf-outside-region, compiled: making an autograd leaf in a compiled function (setting
`requires_grad`, GB0206; building an `nn.Parameter`, GB0264: the registry pages' programs) fails
a `fullgraph=True` compile and breaks the graph otherwise; split around it, the function's
compiled pieces compile whole, with the same outputs and the same gradients with respect to the
leaf."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest
import torch
from torch._dynamo.utils import counters
from test_golden import run_evidence_for, settings_for

from graphweld.engine import fix_text

# Depends on what Dynamo does: run again on the current torch release by CI (docs/development.md).
pytestmark = pytest.mark.dynamo

GOLDEN = Path(__file__).parent / "golden" / "leaf-outside-region"


def _compiled_modules(case: str) -> tuple[types.ModuleType, types.ModuleType, list[torch.fx.GraphModule]]:
    """The case and its rewrite, each run with its own `torch.compile` calls and decorators (the
    split's pieces are compiled by them), on a backend that records every graph it is given."""
    path = GOLDEN / f"{case}.in.py"
    source = path.read_text()
    fixed = fix_text(source, str(path), settings_for(path, source), run_evidence_for(source)).text
    assert fixed != source
    graphs: list[torch.fx.GraphModule] = []

    def recording(gm, example_inputs):  # type: ignore[no-untyped-def]
        graphs.append(gm)
        return gm.forward

    real = torch.compile

    def compile_recording(model=None, **options):  # type: ignore[no-untyped-def]
        return real(model, **{**options, "backend": recording})

    modules = []
    for text, suffix in ((source, "original"), (fixed, "fixed")):
        name = f"{case}_{suffix}"
        module = types.ModuleType(name)
        sys.modules[name] = module  # Dynamo looks a function's module up by name
        torch.compile = compile_recording  # type: ignore[assignment]
        try:
            exec(compile(text, f"<{name}>", "exec"), module.__dict__)
        finally:
            torch.compile = real  # type: ignore[assignment]
        modules.append(module)
    torch._dynamo.reset()
    return modules[0], modules[1], graphs


def test_the_registry_page_program_compiles_with_fullgraph_and_marks_its_input():
    original, fixed, graphs = _compiled_modules("registry_page")
    with pytest.raises(torch._dynamo.exc.Unsupported, match="requires_grad"):
        original.fn(torch.randn(3))
    x = torch.randn(3)
    got = fixed.fn(x)
    assert x.requires_grad and len(graphs) == 1
    torch.testing.assert_close(got, x * 2)
    (grad,) = torch.autograd.grad(got.sum(), x)
    torch.testing.assert_close(grad, torch.full((3,), 2.0))


def test_forces_from_a_compiled_energy_are_the_eager_ones():
    original, fixed, graphs = _compiled_modules("guarded_flag_forces")
    torch.manual_seed(0)
    positions, charges = torch.randn(5, 3), torch.randn(5)
    with pytest.raises(torch._dynamo.exc.Unsupported, match="requires_grad"):
        original.energy(positions.clone(), charges)
    marked = positions.clone()
    got = fixed.energy(marked, charges)
    assert len(graphs) == 1
    (forces,) = torch.autograd.grad(-got, marked)
    reference = positions.clone().requires_grad_()
    distances = torch.cdist(reference, reference) + torch.eye(5)
    energy = (charges[:, None] * charges[None, :] / distances).triu(1).sum()
    (expected_forces,) = torch.autograd.grad(-energy, reference)
    torch.testing.assert_close(got, energy)
    torch.testing.assert_close(forces, expected_forces)


@pytest.mark.parametrize("case", ["saliency_module_compile_call", "gradient_penalty_method"])
def test_each_form_compiles_in_whole_pieces_with_the_same_gradients(case: str):
    original, fixed, graphs = _compiled_modules(case)
    torch.manual_seed(0)
    if case == "saliency_module_compile_call":
        fixed.classifier.load_state_dict(original.classifier.state_dict())
        images = torch.randn(2, 3, 4)

        def run(module):  # type: ignore[no-untyped-def]
            marked = images.clone()
            scores = module.compiled_scores(marked)
            return scores, torch.autograd.grad(scores[:, 0].sum(), marked)[0]
    else:
        critics = original.Critic(), fixed.Critic()
        critics[1].load_state_dict(critics[0].state_dict())
        real, fake, alpha = torch.randn(6, 4), torch.randn(6, 4), torch.rand(6, 1)

        def run(module):  # type: ignore[no-untyped-def]
            critic = critics[0] if module is original else critics[1]
            mixed, scores = critic.interpolated_scores(real, fake, alpha)
            return scores, torch.autograd.grad(scores.sum(), mixed)[0]

    counters.clear()
    expected = run(original)
    assert sum(counters["graph_break"].values()) >= 1, "the flag breaks the original's graph"
    graphs.clear()
    counters.clear()
    torch._dynamo.reset()
    got = run(fixed)
    # Each piece is one graph, and nothing breaks.
    pieces = [name for name in (*vars(fixed), *vars(getattr(fixed, "Critic", object))) if "_part" in name]
    assert len(graphs) == len(pieces) and not counters["graph_break"]
    for value, reference in zip(got, expected):
        torch.testing.assert_close(value, reference)


def test_the_parameter_page_program_compiles_with_fullgraph_and_returns_the_parameter():
    original, fixed, graphs = _compiled_modules("registry_page_parameter")
    x = torch.randn(3, 3)
    with pytest.raises(torch._dynamo.exc.Unsupported, match="Parameter"):
        original.fn(x)
    torch.manual_seed(0)
    param, total = fixed.fn(x)
    torch.manual_seed(0)
    expected = torch.randn_like(x)
    assert isinstance(param, torch.nn.Parameter) and len(graphs) == 1
    torch.testing.assert_close(param.detach(), expected, rtol=0, atol=0)
    torch.testing.assert_close(total.detach(), expected + x, rtol=0, atol=0)


def test_an_adversarial_step_gets_the_eager_loss_and_perturbation_gradient():
    original, fixed, graphs = _compiled_modules("adversarial_perturbation_parameter")
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 3)
    x, target = torch.randn(5, 4), torch.tensor([0, 1, 2, 0, 1])
    counters.clear()
    loss, delta = original.Attack(model).perturbed_loss(x, target)
    assert sum(counters["graph_break"].values()) >= 1
    (expected_grad,) = torch.autograd.grad(loss, delta)
    graphs.clear()
    counters.clear()
    torch._dynamo.reset()
    got, got_delta = fixed.Attack(model).perturbed_loss(x, target)
    assert len(graphs) == 1 and not counters["graph_break"]
    torch.testing.assert_close(got, loss)
    torch.testing.assert_close(torch.autograd.grad(got, got_delta)[0], expected_grad)
