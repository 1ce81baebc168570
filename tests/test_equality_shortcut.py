"""Shortcuts chosen by comparing tensor values, end to end: a kernel's `torch.equal` flag
(GPyTorch's form) and an all-ones attention mask dropped (Hugging Face's form). Before, each test
breaks the compiled forward; after equality-shortcut, it compiles into one graph with outputs (and,
training, gradients) equal to the original program's, which takes the shortcuts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from test_entry import EAGER, invoke

pytestmark = [pytest.mark.slow, pytest.mark.dynamo]


@pytest.mark.parametrize("train", [False, True], ids=["inference", "training"])
def test_equality_shortcuts_take_the_general_path_while_compiling(workdir: Path, train: bool):
    entry = workdir / "equality_shortcut_entry.py"
    options = [*EAGER, "--unsafe-fixes", *(["--train"] if train else [])]
    result = invoke("fix", "--entry", str(entry), *options, str(entry), "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    before, after = data["before"], data["after"]
    assert before["graph_breaks"] >= 2 and before["fullgraph"] is False
    assert set(data["kept"][str(entry)]) == {"equality-shortcut"}
    assert (after["graph_breaks"], after["skipped_frames"], after["graphs"], after["fullgraph"]) == (0, 0, 1, True)
    text = entry.read_text()
    assert "x1_eq_x2 = not torch.compiler.is_compiling() and torch.equal(x1, x2)" in text
    assert "(not torch.compiler.is_compiling() and torch.all(attention_mask == 1))" in text
    again = invoke("fix", "--entry", str(entry), *options, str(entry), "--check")
    assert again.exit_code == 0, again.output


GOLDEN = Path(__file__).parent / "golden" / "equality-shortcut"


def _modules(case: str):  # type: ignore[no-untyped-def]
    """The case and its rewrite as modules, each built from the same seed (their layers' weights equal)."""
    from compile_stats import load_module
    from test_golden import run_evidence_for, settings_for

    from graphweld.engine import fix_text

    path = GOLDEN / f"{case}.in.py"
    source = path.read_text()
    rewritten = fix_text(source, str(path), settings_for(path, source), run_evidence_for(source)).text
    assert rewritten != source
    torch.manual_seed(0)
    before = load_module(source, name=f"{case}_before")
    torch.manual_seed(0)
    return before, load_module(rewritten, name=f"{case}_after")


ANY_CASES = [
    # tab-transformer's special-token embedding: a mask with special tokens, and one without.
    ("any_skips_a_masked_update", "embed", lambda: [(torch.tensor([[1, -1, 2], [0, 3, -2]]),), (torch.tensor([[1, 2, 3], [0, 3, 2]]),)]),
    # RAG's pads zeroed in place (transformers): fresh tensors each call, with pads and without.
    (
        "any_skips_in_place_masked_fill",
        "mask_pads",
        lambda: [
            (torch.tensor([[1, 0, 0], [2, 3, 0]]), torch.randn(2, 3), torch.randn(2, 3)),
            (torch.tensor([[1, 2], [4, 5]]), torch.randn(2, 2), torch.randn(2, 2)),
        ],
    ),
    # botorch's swap of the bounds: some swapped, none swapped.
    (
        "any_skips_a_swap_by_where",
        "log_prob_normal_in",
        lambda: [(torch.tensor([-3.0, 0.5]), torch.tensor([-1.0, 4.0])), (torch.tensor([-1.0, 0.2]), torch.tensor([0.5, 0.3]))],
    ),
]


@pytest.mark.parametrize(("case", "function", "inputs"), ANY_CASES, ids=[case for case, _, _ in ANY_CASES])
def test_an_any_that_only_skips_a_masked_update_compiles_whole_with_the_same_results(case, function, inputs):
    import copy

    from compile_stats import compile_stats

    before, after = _modules(case)
    torch.manual_seed(1)
    for args in inputs():
        original = compile_stats(getattr(before, function), *copy.deepcopy(args))
        rewritten = compile_stats(getattr(after, function), *copy.deepcopy(args))
        assert original.frames > 1 or original.skipped_frames
        assert (rewritten.graphs, rewritten.frames, rewritten.skipped_frames) == (1, 1, 0)
        torch.testing.assert_close(rewritten.result, original.result, rtol=0, atol=0)
        torch.testing.assert_close(getattr(before, function)(*copy.deepcopy(args)), original.result, rtol=0, atol=0)


def test_the_special_token_embedding_gets_the_same_gradients_compiled():
    """Training through tab-transformer's form: the embeddings' gradients are those of the original,
    with special tokens and without (where the compiled update selects nothing: zero, where the
    original left the special embedding's gradient unset)."""
    before, after = _modules("any_skips_a_masked_update")
    for x_categ in (torch.tensor([[1, -1, 2], [0, 3, -2]]), torch.tensor([[1, 2, 3], [0, 3, 2]])):
        grads = []
        for module, compiled in ((before, False), (after, True)):
            for layer in (module.categorical_embeds, module.special_token_embed):
                layer.weight.grad = None
            torch._dynamo.reset()
            fn = torch.compile(module.embed, backend="eager", fullgraph=True) if compiled else module.embed
            fn(x_categ).square().sum().backward()
            # Without special tokens the original never used their embedding (no gradient at all);
            # compiled, it was used and selected nowhere (a zero gradient), as the Safety says.
            grads.append([
                torch.zeros_like(layer.weight) if layer.weight.grad is None else layer.weight.grad.clone()
                for layer in (module.categorical_embeds, module.special_token_embed)
            ])
        torch.testing.assert_close(grads[1], grads[0], rtol=0, atol=0)
