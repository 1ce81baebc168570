"""buffer-as-number, compiled: Encodec's convolution pads from integer buffers (`stride`,
`kernel_size`, `padding_total`), so each call breaks on a decision on their values; read as the
numbers `__init__` made them from, the convolution compiles whole with the same outputs."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from compile_stats import golden_modules, load_module
from torch._dynamo.utils import counters
from test_golden import settings_for

from graphweld.engine import fix_text

# Depends on what Dynamo does: run again on the current torch release by CI (docs/development.md).
pytestmark = pytest.mark.dynamo

GOLDEN = Path(__file__).parent / "golden" / "buffer-as-number"


def _modules():
    return golden_modules(GOLDEN / "encodec_conv1d.in.py")


@pytest.mark.parametrize("options", [{"causal": False, "pad_mode": "reflect"}, {"causal": True, "pad_mode": "constant"}])
def test_the_convolution_compiles_whole_with_the_same_outputs(options: dict):
    before_module, after_module = _modules()
    x = torch.randn(2, 1, 37)
    results = []
    for module in (before_module, after_module):
        torch.manual_seed(0)
        conv = module.PaddedConv1d(**options)
        expected = conv(x)
        torch._dynamo.reset()
        counters.clear()
        got = torch.compile(conv, backend="eager")(x)
        torch.testing.assert_close(got, expected, rtol=0, atol=0)
        results.append((expected, sum(counters["graph_break"].values())))
    (before, breaks_before), (after, breaks_after) = results
    assert breaks_before >= 1 and breaks_after == 0
    torch.testing.assert_close(after, before, rtol=0, atol=0)


def test_the_buffers_stay():
    before_module, after_module = _modules()
    before, after = before_module.PaddedConv1d(), after_module.PaddedConv1d()
    assert dict(before.named_buffers()).keys() == dict(after.named_buffers()).keys() == {"stride", "kernel_size", "padding_total"}
    assert (after.stride_int, after.kernel_size_int, after.padding_total_int) == (2, 7, 5)


@pytest.mark.parametrize("kernel_size, stride, dilation", [(7, 2, 1), (4, 4, 1), (3, 1, 3), (16, 8, 1)])
def test_the_padding_is_the_same_for_every_length(kernel_size: int, stride: int, dilation: int):
    # float32 division (the buffers) and Python's (the numbers) agree on the frame count for these
    # lengths; they part only above 2**23 samples, where float32 rounds the quotient.
    before_module, after_module = _modules()
    before = before_module.PaddedConv1d(kernel_size, stride, dilation)
    after = after_module.PaddedConv1d(kernel_size, stride, dilation)
    for length in [*range(1, 600), 2**20 + 1, 2**23 - 1]:
        x = torch.empty(1, 1, length)
        assert int(before._get_extra_padding_for_conv1d(x)) == after._get_extra_padding_for_conv1d(x), length


def test_mimis_form_compiles_whole_and_its_device_helper_still_reads_the_buffers():
    # Mimi keeps its paddings as tensor attributes computed from the buffers, and has a length
    # helper that reads a buffer's device: the paddings get numbers beside them, the helper is left.
    path = GOLDEN / "mimi_derived_padding_and_a_device_method.in.py"
    source = path.read_text()
    before_module = load_module(source)
    after_module = load_module(fix_text(source, str(path), settings_for(path, source)).text)
    x = torch.randn(2, 3, 41)
    results = []
    for module in (before_module, after_module):
        torch.manual_seed(0)
        conv = module.MimiConv1d(3, 4, kernel_size=7, stride=2)
        expected = conv(x)
        torch._dynamo.reset()
        counters.clear()
        got = torch.compile(conv, backend="eager")(x)
        torch.testing.assert_close(got, expected, rtol=0, atol=0)
        results.append((expected, sum(counters["graph_break"].values()), conv._get_output_length(41)))
    (before, breaks_before, length_before), (after, breaks_after, length_after) = results
    assert breaks_before >= 1 and breaks_after == 0
    torch.testing.assert_close(after, before, rtol=0, atol=0)
    assert isinstance(length_after, torch.Tensor) and int(length_after) == int(length_before)
