"""isolate-io's rewrites under real torch.compile: the I/O still happens and graphs stay whole."""

from __future__ import annotations

import contextlib
import io
import sys
import types
from pathlib import Path

import pytest
import torch
import torch._dynamo

from graphweld.engine import fix_text
from graphweld.settings import Settings

# Depends on what Dynamo does: run again on the current torch release by CI (docs/development.md).
pytestmark = pytest.mark.dynamo

GOLDEN = Path(__file__).parent / "golden" / "isolate-io"


def real_module(source: str) -> types.ModuleType:
    module = types.ModuleType("isolate_io_case")
    # Importable by name, as a user's module is (torch 2.11's Dynamo looks a function's module up).
    sys.modules[module.__name__] = module
    exec(compile(source, "<isolate_io_case>", "exec"), module.__dict__)
    return module


def rewritten(case: str) -> str:
    source = (GOLDEN / f"{case}.in.py").read_text()
    return fix_text(source, case, Settings(select=frozenset({"isolate-io"}))).text


def test_seed_split_compiles_each_piece_with_fullgraph(tmp_path):
    torch._dynamo.reset()
    source = rewritten("seed_torch_save_split").replace(
        'PATH = os.path.join(tempfile.gettempdir(), "graphweld_isolate_io_foo.pt")', f'PATH = "{tmp_path / "foo.pt"}"'
    )
    module = real_module(source)
    x = torch.arange(3.0)
    # The pieces carry @torch.compile(fullgraph=True): a break inside one would raise here.
    result = module.f(x)
    expected = (x**2 / 2) ** 3 / 6
    torch.testing.assert_close(result, expected)
    torch.testing.assert_close(torch.load(tmp_path / "foo.pt"), x**2 / 2)


def test_deferred_print_keeps_the_graph_whole_and_still_prints():
    torch._dynamo.reset()
    module = real_module(rewritten("io_in_loop_defer"))
    graphs = []

    def counting_backend(gm, example_inputs):  # type: ignore[no-untyped-def]
        graphs.append(gm)
        return gm.forward

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        original = module.fn._torchdynamo_orig_callable
        result = torch.compile(original, backend=counting_backend, fullgraph=True)(torch.ones(2))
    torch.testing.assert_close(result, torch.full((2,), 8.0))
    assert printed.getvalue() == "doubled\n" * 3
    assert len(graphs) == 1
