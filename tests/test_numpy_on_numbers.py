"""numpy-on-numbers, compiled: the goldens (BigBird's random-attention plan, Reformer's chunk
length, a head flattening with `np.prod`, monai's axes through `torch.arange(...).tolist()`) break
or skip a frame before the rewrite and compile into one graph after it, with the same outputs."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
import torch
from compile_stats import compile_stats, golden_modules
from test_golden import settings_for

from graphweld.engine import fix_text

# Depends on what Dynamo does: run again on the current torch release by CI (docs/development.md).
pytestmark = pytest.mark.dynamo

GOLDEN = Path(__file__).parent / "golden" / "numpy-on-numbers"

CASES = [
    ("bigbird_random_plan", "BlockSparseAttention", (2, 40, 4)),
    ("reformer_chunk_lcm", "ChunkPadder", (2, 13, 4)),
    ("flatten_with_prod", "Head", (2, 2, 3, 4)),
]


@pytest.mark.parametrize(("case", "layer_class", "shape"), CASES)
def test_numpy_on_numbers_compiles_whole_with_the_same_outputs(case, layer_class, shape):
    before_module, after_module = golden_modules(GOLDEN / f"{case}.in.py")
    torch.manual_seed(0)
    before = getattr(before_module, layer_class)()
    after = getattr(after_module, layer_class)()
    after.load_state_dict(before.state_dict())
    x = torch.randn(*shape)

    original = compile_stats(before, x)
    fixed = compile_stats(after, x)
    assert original.skipped_frames + original.frames - 1 >= 1  # the original breaks or skips a frame
    assert (fixed.graphs, fixed.skipped_frames, fixed.frames) == (1, 0, 1)
    torch.testing.assert_close(fixed.result, before(x))
    torch.testing.assert_close(original.result, before(x))


def test_the_lines_reading_the_result_are_the_breaks_it_resolves():
    # Dynamo breaks where the NumPy result is used as a size, not where it is computed: `fix
    # --entry` keeps an unsafe rewrite only where it resolves a break the run saw.
    source = (
        "import numpy as np\n"
        "import torch\n"
        "\n"
        "\n"
        "@torch.compile\n"
        "def flatten(x):\n"
        "    width = np.prod(x.shape[1:])\n"
        "    y = x * 2\n"
        "    return y.reshape(x.shape[0], width)\n"
    )
    settings = settings_for(GOLDEN / "flatten_with_prod.in.py", "# settings: unsafe_fixes=true\n")
    (change,) = fix_text(source, "flatten.py", settings).applied
    assert change.rule == "numpy-on-numbers"
    assert change.resolved == ((9, 9),)


def test_spatial_axes_listed_through_a_tensor_compile_whole_as_a_range():
    # monai's losses: `torch.arange(2, len(input.shape)).tolist()` reads Python numbers back
    # from a tensor (GB0033); `list(range(...))` is the same list, folded by Dynamo.
    before_module, after_module = golden_modules(GOLDEN / "arange_of_ints_tolist.in.py")
    x, y = torch.randn(2, 3, 4, 4), torch.randn(2, 3, 4, 4)
    for batch in (False, True):
        original = compile_stats(before_module.dice, x, y, batch)
        fixed = compile_stats(after_module.dice, x, y, batch)
        assert original.frames > 1 or original.skipped_frames
        assert (fixed.graphs, fixed.skipped_frames, fixed.frames) == (1, 0, 1)
        torch.testing.assert_close(fixed.result, before_module.dice(x, y, batch))


def test_a_numpy_flag_stored_as_its_annotated_bool_compiles_whole():
    # HunyuanImage's refiner VAE (diffusers): the parent passes `i >= np.log2(ratio)`, a
    # `numpy.bool_`, as a `bool` argument; Dynamo breaks where the block decides on it.
    before_module, after_module = golden_modules(GOLDEN / "numpy_flag_argument_stored_as_bool.in.py")
    torch.manual_seed(0)
    before = before_module.Encoder()
    after = after_module.Encoder()
    after.load_state_dict(before.state_dict())
    x = torch.randn(1, 4, 8, 4, 4)

    original = compile_stats(before, x)
    fixed = compile_stats(after, x)
    assert original.graphs > 1 or original.skipped_frames
    assert (fixed.graphs, fixed.skipped_frames, fixed.frames) == (1, 0, 1)
    torch.testing.assert_close(fixed.result, before(x))


def test_a_numpy_number_kept_at_construction_compiles_whole():
    before_module, after_module = golden_modules(GOLDEN / "numpy_number_stored_at_construction.in.py")
    torch.manual_seed(0)
    before = before_module.Decoder()
    after = after_module.Decoder()
    after.load_state_dict(before.state_dict())
    codes = torch.randn(2, 3, 4)

    original = compile_stats(inspect.unwrap(type(before).forward).__get__(before), codes)
    fixed = compile_stats(inspect.unwrap(type(after).forward).__get__(after), codes)
    assert original.graphs > 1 or original.skipped_frames or original.frames > 1
    assert (fixed.graphs, fixed.skipped_frames, fixed.frames) == (1, 0, 1)
    torch.testing.assert_close(fixed.result, before(codes))
