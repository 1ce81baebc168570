"""dlpack-custom-op and nonstrict-helper under real torch.compile on CPU: the rewritten code
compiles where the original could not, into fewer graphs, with the same results; every custom op
graphweld generates passes torch.library.opcheck."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest
import torch
import torch._dynamo
from torch._library.custom_ops import CustomOpDef

from compile_stats import compile_stats, load_module
from graphweld.engine import fix_text
from graphweld.settings import Settings

# Depends on what Dynamo does: run again on the current torch release by CI (docs/development.md).
pytestmark = pytest.mark.dynamo

GOLDEN = Path(__file__).parent / "golden"


def rewritten(case: str, **settings: object) -> str:
    rule = case.split("/")[0]
    source = (GOLDEN / f"{case}.in.py").read_text()
    text = fix_text(source, f"{case}.py", Settings(select=frozenset({rule}), **settings)).text  # type: ignore[arg-type]
    assert text != source
    return text


def real_module(source: str, name: str) -> types.ModuleType:
    """Execute `source` as it is, torch.compile decorators included."""
    torch._dynamo.reset()
    module = types.ModuleType(name)
    # Importable by name, as a user's module is (torch 2.11's Dynamo looks a function's module up).
    sys.modules[name] = module
    exec(compile(source, f"<{name}>", "exec"), module.__dict__)
    return module


def generated_ops(module: types.ModuleType) -> list[CustomOpDef]:
    return [value for value in vars(module).values() if isinstance(value, CustomOpDef)]


# Inputs a DLPack round trip accepts: contiguous and transposed floats, integers, bools, doubles.
OPCHECK_SAMPLES = [
    lambda: torch.randn(3),
    lambda: torch.randn(4, 3).t(),
    lambda: torch.randint(0, 255, (2, 5), dtype=torch.uint8),
    lambda: torch.rand(6) > 0.5,
]

DLPACK_CASES = sorted(
    path.name[: -len(".out.py")]
    for path in (GOLDEN / "dlpack-custom-op").glob("*.out.py")
    if "cupy" not in path.read_text()
)


# Round trips whose region computes (np.tanh(a) * 2.0): the op's output has the input's shape and
# dtype, not its values, and its fake kernel admits floating-point inputs only.
COMPUTING_CASES = {"numpy_protocol_floating", "jax_protocol_one_expression"}


@pytest.mark.parametrize("case", DLPACK_CASES)
def test_generated_op_passes_opcheck(case):
    source = (GOLDEN / "dlpack-custom-op" / f"{case}.out.py").read_text()
    if "import jax" in source:
        pytest.importorskip("jax")
    module = real_module(source, case)
    ops = generated_ops(module)
    assert ops, "the rewrite defines a custom op"
    for op in ops:
        for make_sample in OPCHECK_SAMPLES:
            sample = make_sample()
            if case in COMPUTING_CASES and not sample.is_floating_point():
                # The fake kernel refuses what it was not derived for, rather than guessing.
                with pytest.raises(Exception, match="floating-point inputs only"):
                    torch.library.opcheck(op, (sample,))
                continue
            result = torch.library.opcheck(op, (sample,))
            assert set(result.values()) == {"SUCCESS"}, result
            copy = op(sample)
            assert copy.shape == sample.shape and copy.dtype == sample.dtype and copy.data_ptr() != sample.data_ptr()
            if case not in COMPUTING_CASES:
                assert torch.equal(copy, sample)


SEED_000_INPUTS = [
    lambda: torch.rand(2).bool(),
    lambda: torch.rand(7).bool(),
    lambda: torch.randn(3),
    lambda: torch.randn(5, 2),
]


@pytest.mark.slow
def test_seed_000_repro_fails_before_and_compiles_after_with_fullgraph_and_dynamic():
    before = load_module((GOLDEN / "dlpack-custom-op" / "seed_000_repro.in.py").read_text(), "seed_000_before")
    torch._dynamo.reset()
    with pytest.raises(Exception, match="marked as skipped"):
        torch.compile(before.my_model_function(), fullgraph=True, dynamic=True)(before.GetInput())

    after = load_module(rewritten("dlpack-custom-op/seed_000_repro"), "seed_000_after")
    model = after.my_model_function()
    torch._dynamo.reset()
    compiled = torch.compile(model, fullgraph=True, dynamic=True)
    for make_input in SEED_000_INPUTS:
        x = make_input()
        expected = before.my_model_function()(x)
        result = compiled(x)
        assert result.dtype == expected.dtype and result.shape == expected.shape
        assert torch.equal(result, expected)


class _FakeArray:
    """Stands in for a cupy array: holds the data and exports it back through DLPack."""

    def __init__(self, tensor: torch.Tensor) -> None:
        self.tensor = tensor

    def toDlpack(self):  # noqa: N802 (cupy's name)
        return torch.utils.dlpack.to_dlpack(self.tensor)


@pytest.fixture
def fake_cupy(monkeypatch):
    module = types.ModuleType("cupy")
    module.fromDlpack = lambda capsule: _FakeArray(torch.utils.dlpack.from_dlpack(capsule).clone())  # type: ignore[attr-defined]
    module.abs = lambda array: _FakeArray(array.tensor.abs())  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "cupy", module)
    return module


@pytest.mark.slow
def test_round_trip_through_another_framework_compiles_with_fullgraph(fake_cupy):
    module = real_module(rewritten("dlpack-custom-op/cupy_region_derived"), "cupy_region")
    (op,) = generated_ops(module)
    torch.library.opcheck(op, (torch.randn(4),))
    for x in (torch.randn(3), torch.randn(6)):
        # absolute_on_gpu keeps its @torch.compile(fullgraph=True): a break would raise.
        torch.testing.assert_close(module.absolute_on_gpu(x), (x * 2).abs() + 1)


@pytest.mark.parametrize("case", ["seed_004_g", "seed_004_call_site_form"])
def test_seed_004_helper_compiles_with_fullgraph(case):
    before = real_module((GOLDEN / "nonstrict-helper" / f"{case}.in.py").read_text().split("\nx = torch.randn(3)")[0], case)
    x = torch.randn(3)
    with pytest.raises(Exception, match="graph_break"):
        before.f(x)

    after = real_module(rewritten(f"nonstrict-helper/{case}").split("\nx = torch.randn(3)")[0], case)
    # f keeps @torch.compile(fullgraph=True): any break left would raise.
    torch.testing.assert_close(after.f(x), x.sin().sin().sin())


@pytest.mark.parametrize(
    "case, call",
    [
        ("frame_introspection", lambda m, x: m.Block()(x)),
        ("local_containers_are_pure", lambda m, x: m.run(x)),
    ],
)
def test_helper_traced_nonstrictly_joins_its_callers_graph(case, call, monkeypatch):
    x = torch.randn(6)
    before = load_module((GOLDEN / "nonstrict-helper" / f"{case}.in.py").read_text(), f"{case}_before")
    after = load_module(rewritten(f"nonstrict-helper/{case}"), f"{case}_after")
    # Dynamo looks functions' modules up by name, as for any imported module.
    for module in (before, after):
        monkeypatch.setitem(sys.modules, module.__name__, module)
    expected = call(before, x)
    before_stats = compile_stats(lambda t: call(before, t), x)
    after_stats = compile_stats(lambda t: call(after, t), x)
    assert before_stats.graphs >= 2
    assert after_stats.graphs == 1 and after_stats.skipped_frames == 0
    torch.testing.assert_close(after_stats.result, expected, rtol=0, atol=0)


@pytest.mark.cuda
def test_seed_000_repro_on_cuda():
    after = load_module(rewritten("dlpack-custom-op/seed_000_repro"), "seed_000_cuda")
    model = after.my_model_function().to("cuda").eval()
    torch._dynamo.reset()
    compiled = torch.compile(model, backend="inductor", fullgraph=True, dynamic=True)
    for make_input in SEED_000_INPUTS:
        x = make_input().to("cuda")
        with torch.no_grad():
            assert torch.equal(compiled(x), model(x))


@pytest.mark.parametrize(
    "helper, args",
    [
        ("_unique_and_counts", lambda: (torch.tensor([0, 0, 1, 2, 2, 2]),)),
        ("keep_confident", lambda: (torch.randn(5, 4), torch.tensor([0.9, 0.1, 0.7, 0.2, 0.6]), 0.5)),
        ("pair_owner", lambda: (torch.tensor([2, 3, 1]),)),
    ],
)
def test_a_helper_sized_by_data_breaks_inside_nonstrict_trace(helper, args, monkeypatch):
    # What nonstrict-helper's report on these helpers says: wrapped, the caller still breaks.
    module = load_module((GOLDEN / "nonstrict-helper" / "data_shaped_result_reported.in.py").read_text(), "data_shaped")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    wrapped = torch._dynamo.nonstrict_trace(getattr(module, helper))
    inputs = args()

    def caller(first, *rest):
        # Work before the call and after it: a break at the call splits them into two graphs.
        result = wrapped(first * 1, *rest)
        return sum(t.float().sum() for t in result) if isinstance(result, tuple) else result.sum()

    stats = compile_stats(caller, *inputs)
    assert stats.graphs >= 2 or stats.skipped_frames >= 1
