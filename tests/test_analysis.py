"""Static analysis: which functions are compiled regions, which statements break graphs."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from graphweld.analysis.breakers import BreakerCatalog
from graphweld.analysis.regions import CompiledRegions
from graphweld.settings import Settings


def compiled_names(source: str, assume_compiled: bool = False) -> set[str]:
    module = cst.parse_module(textwrap.dedent(source))
    regions = CompiledRegions(module, assume_compiled=assume_compiled)
    names: set[str] = set()

    class Collect(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            if regions.is_compiled(node):
                names.add(node.name.value)

    module.visit(Collect())
    return names


def test_decorators_in_every_call_form():
    assert compiled_names(
        """
        import torch
        from torch import compile as tc
        import torch._dynamo as dynamo

        @torch.compile
        def a(x): ...
        @torch.compile(fullgraph=True, dynamic=True)
        def b(x): ...
        @tc
        def c(x): ...
        @dynamo.optimize("eager")
        def d(x): ...
        def e(x): ...
        """
    ) == {"a", "b", "c", "d"}


def test_callables_passed_to_torch_compile():
    assert compiled_names(
        """
        import torch

        def f(x): return g(x)
        def g(x): return x
        def unrelated(x): return x

        class Block(torch.nn.Module):
            def forward(self, x): return self.act(x)
            def act(self, x): return x.relu()

        class Model(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.block = Block()
            def forward(self, x): return self.block(x) + self.helper(x)
            def helper(self, x): return x
            def unused(self, x): return x

        compiled_f = torch.compile(f)
        compiled_model = torch.compile(Model())
        """
    ) == {"f", "g", "forward", "act", "helper"}


def test_instances_and_module_compile_method():
    names = compiled_names(
        """
        import torch

        class Model(torch.nn.Module):
            def forward(self, x): return x

        class Other(torch.nn.Module):
            def forward(self, x): return x

        def main():
            model = Model()
            model.compile()
        """
    )
    assert names == {"forward"}


def test_nested_functions_reached_and_disabled_excluded():
    assert compiled_names(
        """
        import torch

        @torch.compile
        def outer(x):
            def inner(y):
                return log_it(y)
            def never_called(y):
                return y
            return inner(x)

        @torch.compiler.disable
        def log_it(y):
            return y
        """
    ) == {"outer", "inner"}


def test_self_method_via_compile_in_init():
    assert compiled_names(
        """
        import torch

        class Model(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self._fast = torch.compile(self.step)
            def step(self, x): return x
            def forward(self, x): return x
        """
    ) == {"step"}


def test_assume_compiled_takes_every_function():
    assert compiled_names("def a(): pass\nclass B:\n    def c(self): pass\n", assume_compiled=True) == {"a", "c"}


def test_imports_after_use_still_resolve():
    assert compiled_names("@torch.compile\ndef a(x): return x\nimport torch\n") == {"a"}


@pytest.mark.parametrize(
    "statement, kind",
    [
        ("torch._dynamo.graph_break()", "explicit"),
        ("dynamo.graph_break()", "explicit"),
        ("graph_break()", "explicit"),
        ("print(x)", "io"),
        ("y = torch.load(path)", "io"),
        ("logger.warning_once('x')", "logging"),
        ("self.logger.info('x')", "logging"),
        ("logging.getLogger(__name__).debug('x')", "logging"),
        ("warnings.warn('x')", "io"),
        ("capsule = torch.utils.dlpack.to_dlpack(x)", "dlpack"),
        ("mylib.sync()", "configured"),
        ("y = x + 1", None),
        ("f = lambda: print(1)", None),
        ("results.warning(x)", None),
    ],
)
def test_breaker_classification(statement: str, kind: str | None):
    source = (
        "import torch\nimport torch._dynamo as dynamo\nfrom torch._dynamo import graph_break\n"
        "import logging, warnings, mylib\n" + statement + "\n"
    )
    module = cst.parse_module(source)
    regions = CompiledRegions(module)
    catalog = BreakerCatalog(Settings(extra_breakers=("mylib.sync",)), regions.imports)
    breaker = catalog.statement_breaker(module.body[-1])
    assert (breaker.kind if breaker else None) == kind


def test_entry_convention_factory():
    assert compiled_names(
        """
        import torch

        class TinyNet(torch.nn.Module):
            def forward(self, x): return x

        def my_model_function():
            model = TinyNet()
            return model

        compiled = torch.compile(my_model_function())
        """
    ) == {"forward"}


def test_entry_convention_compiles_the_model_my_model_function_returns():
    source = """
        import torch

        class MyModel(torch.nn.Module):
            def forward(self, x):
                return self.helper(x)
            def helper(self, x): ...

        def my_model_function():
            return MyModel()
        """
    # graphweld compiles what my_model_function() returns, in a module with GetInput() beside it.
    assert compiled_names(source + "\n        def GetInput():\n            return torch.rand(2)\n") == {"forward", "helper"}
    assert compiled_names(source) == set()


def test_compile_through_a_renamed_import_and_a_factory_chain():
    names = compiled_names(
        """
        import torch
        from torch import compile as compile_fn

        class A(torch.nn.Module):
            def forward(self, x):
                return x

        def make():
            return A()

        def f(x): ...

        fast = compile_fn(f)
        model = make().to("cpu").eval()
        torch.compile(model)
        """
    )
    assert names == {"f", "forward"}


def test_functions_dynamo_does_not_trace_are_not_regions():
    assert compiled_names(
        """
        import torch

        @torch._dynamo.nonstrict_trace
        def traced_nonstrictly(x): ...

        @torch.library.custom_op("ns::op", mutates_args=())
        def op(x: torch.Tensor) -> torch.Tensor: ...

        def plain(x): ...

        @torch.compile
        def f(x):
            return traced_nonstrictly(x) + op(x) + plain(x)
        """
    ) == {"f", "plain"}


def test_frame_introspection_breaks_the_graph():
    module = cst.parse_module("import inspect, sys\ninspect.currentframe()\nsys._getframe(1)\ninspect.stack()\n")
    catalog = BreakerCatalog(Settings(), CompiledRegions(module).imports)
    kinds = [catalog.statement_breaker(statement) for statement in module.body[1:]]
    assert [breaker.kind for breaker in kinds if breaker] == ["untraceable"] * 3


def _boolean_names(source: str) -> dict[str, bool]:
    from graphweld.analysis.tensors import FunctionValues

    module = cst.parse_module(textwrap.dedent(source))
    function = next(node for node in module.body if isinstance(node, cst.FunctionDef))
    values = FunctionValues(function, CompiledRegions(module).imports)
    names = sorted(values.bindings)
    return {name: values.is_boolean(cst.Name(name)) for name in names}


def test_a_mask_bound_on_two_paths_or_moved_to_a_device_is_boolean():
    found = _boolean_names(
        """
        import torch

        def f(ids, embeds, token, flag):
            if ids is None:
                mask = (embeds == token).all(-1)
            else:
                mask = (ids == token).to(embeds.device)
            flipped = ~mask
            flipped = ~flipped
            counted = (ids == token).to(torch.float32)
            either = mask if flag else ids
            return mask, flipped, counted, either
        """
    )
    # `.to(torch.float32)` changes the dtype; a name bound to itself negated ends the walk.
    assert found == {"counted": False, "either": False, "flipped": False, "mask": True}
