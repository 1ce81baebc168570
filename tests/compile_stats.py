"""Compile a function on CPU and count what Dynamo captured: graphs, ops, skipped frames."""

from __future__ import annotations

import itertools
import sys
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import torch
import torch._dynamo
from torch._dynamo.utils import counters
from test_golden import run_evidence_for, settings_for

from graphweld.engine import fix_text

# Numbers for the names of the modules `load_module` makes.
_MODULES = itertools.count()


@dataclass
class CompileStats:
    result: Any
    graphs: int
    ops: int
    skipped_frames: int
    # Frames Dynamo translated: more than one when it resumed after a break.
    frames: int = 1


def compile_stats(fn: Callable[..., Any], *args: Any, backend: str | None = None) -> CompileStats:
    """Run `fn` under torch.compile with a counting backend (or `backend`, e.g. "inductor")."""
    torch._dynamo.reset()
    counters.clear()
    graphs: list[torch.fx.GraphModule] = []

    def counting_backend(gm: torch.fx.GraphModule, example_inputs):  # type: ignore[no-untyped-def]
        graphs.append(gm)
        if backend is None:
            return gm.forward
        from torch._dynamo.backends.registry import lookup_backend

        return lookup_backend(backend)(gm, example_inputs)

    result = torch.compile(fn, backend=counting_backend)(*args)
    ops = sum(1 for gm in graphs for node in gm.graph.nodes if node.op in ("call_function", "call_method", "call_module"))
    frames = counters["frames"]
    return CompileStats(result, len(graphs), ops, frames["total"] - frames["ok"], frames["total"])


def load_module(source: str, name: str | None = None) -> types.ModuleType:
    """Execute `source` as a module with torch.compile turned into a no-op, so that the test
    decides how each function is compiled. Each module gets a name of its own: Dynamo guards on
    a module's globals by its name, so a graph compiled for one must never be checked against
    another loaded in the same process."""
    name = name or f"golden_case_{next(_MODULES)}"
    module = types.ModuleType(name)
    # Importable by name, as a user's module is (torch.cond looks its functions' module up).
    sys.modules[name] = module
    original = torch.compile

    def no_compile(model=None, **kwargs):  # type: ignore[no-untyped-def]
        return model if model is not None else (lambda fn: fn)

    torch.compile = no_compile  # type: ignore[assignment]
    try:
        exec(compile(source, f"<{name}>", "exec"), module.__dict__)
    finally:
        torch.compile = original  # type: ignore[assignment]
    return module


def golden_modules(case: Path) -> tuple[types.ModuleType, types.ModuleType]:
    """A golden case and graphweld's rewrite of it (with the settings and the run's lines its first
    line gives), as modules; the rewrite must change the case."""
    source = case.read_text()
    rewritten = fix_text(source, str(case), settings_for(case, source), run_evidence_for(source)).text
    assert rewritten != source
    # Each under a name of its own: Dynamo looks a function's module up by name (torch 2.15).
    stem = case.name.split(".")[0]
    return load_module(source, f"{stem}_original"), load_module(rewritten, f"{stem}_rewritten")
