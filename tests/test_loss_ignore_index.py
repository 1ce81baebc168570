"""loss-ignore-index, compiled: Qwen2-Audio's shifted loss and a tagger's masked loss compile into
one graph after the rewrite, with the original's loss and gradients (padding in the mask, label
smoothing and the loss's own ignore index included)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from compile_stats import compile_stats, golden_modules

# Depends on what Dynamo does: run again on the current torch release by CI (docs/development.md).
pytestmark = pytest.mark.dynamo


GOLDEN = Path(__file__).parent / "golden" / "loss-ignore-index"


def loss_and_gradients(model: torch.nn.Module, *args: torch.Tensor) -> tuple[torch.Tensor, list[torch.Tensor]]:
    model.zero_grad(set_to_none=True)
    out = model(*args)
    loss = out[0] if isinstance(out, tuple) else out
    loss.backward()
    return loss.detach(), [p.grad.clone() for p in model.parameters()]


def check(case: str, model_class: str, *args: torch.Tensor) -> None:
    before_module, after_module = golden_modules(GOLDEN / f"{case}.in.py")
    torch.manual_seed(0)
    before = getattr(before_module, model_class)()
    after = getattr(after_module, model_class)()
    after.load_state_dict(before.state_dict())

    original = compile_stats(before, *args)
    rewritten = compile_stats(after, *args)
    assert original.frames > 1 or original.skipped_frames  # the boolean mask breaks the graph
    assert (rewritten.graphs, rewritten.skipped_frames, rewritten.frames) == (1, 0, 1)

    expected, expected_grads = loss_and_gradients(before, *args)
    got, got_grads = loss_and_gradients(torch.compile(after, backend="eager"), *args)
    torch.testing.assert_close(got, expected)
    for grad, expected_grad in zip(got_grads, expected_grads):
        torch.testing.assert_close(grad, expected_grad)


def test_the_shifted_language_modelling_loss_compiles_whole_with_the_original_loss():
    torch.manual_seed(1)
    hidden = torch.randn(2, 6, 8)
    attention_mask = torch.tensor([[1, 1, 1, 1, 1, 1], [0, 0, 1, 1, 1, 1]])
    labels = torch.randint(0, 11, (2, 6))
    labels[1, 3] = -100  # a label the loss already ignores
    check("shifted_lm_loss", "AudioLanguageHead", hidden, attention_mask, labels)


def test_the_masked_token_loss_compiles_whole_with_the_original_loss():
    torch.manual_seed(2)
    tokens = torch.randint(0, 13, (3, 5))
    tags = torch.randint(0, 5, (3, 5))
    tags[0, 0] = -1  # the loss's own ignore index
    padding = torch.tensor([[0, 0, 0, 0, 1], [0, 0, 1, 1, 1], [0, 0, 0, 0, 0]])
    check("functional_masked_tokens", "Tagger", tokens, tags, padding)


def test_the_graph_training_loss_compiles_whole_with_the_original_loss():
    torch.manual_seed(3)
    nodes = 7
    data = SimpleNamespace(
        x=torch.randn(nodes, 6),
        adjacency=torch.rand(nodes, nodes) + torch.eye(nodes),
        y=torch.randint(0, 3, (nodes,)),
        train_mask=torch.tensor([True, False, True, True, False, False, True]),
    )
    check("graph_train_mask", "NodeClassifier", data)
