"""graphweld's instrumentation inside the processes of a command it runs (`graphweld explain --
python train.py`): loaded by the `sitecustomize` in `graphweld/runs/boot`, it serves rewritten
files through the import overlay, and once the program imports torch, it collects every graph
break and recompilation Dynamo logs, counts the graphs every `torch.compile` of the program makes,
and watches the program's own compile calls (relaxing `fullgraph=True` when asked). The log
records the program writes are kept too. At exit, a process that compiled anything writes what it
saw to `result-<pid>.json` in the run's folder; the parent merges the processes' results.

Only standard library and torch are imported here, torch only once the program has imported it.
"""

from __future__ import annotations

import atexit
import importlib.abc
import importlib.machinery
import json
import os
import sys
from typing import Any

from graphweld.runs.compile_options import apply_dynamo_settings, draw_as_eager
from graphweld.runs.dynamo_log import collect_dynamo_log, parse_break, parse_recompile, skipped_frames
from graphweld.runs.graph_count import GraphCounter
from graphweld.runs.overlay import OverlayFinder
from graphweld.runs.program_compiles import ProgramCompiles
from graphweld.runs.program_output import keep_log_records


class _Instrumentation:
    def __init__(self, request: dict[str, Any]) -> None:
        self.request = request
        self.records: list[list[str]] = []
        self.log = None
        self.graphs: GraphCounter | None = None
        self.programs = ProgramCompiles(
            relax=bool(request.get("relax_fullgraph")), backend_forced="backend" in request.get("compile_options", {})
        )
        self.torch = None

    def start(self) -> None:
        sys.meta_path.insert(0, OverlayFinder(self.request.get("overlay", {})))
        if not self.request.get("instrument", True):
            return  # a test command: the rewritten files, nothing watched
        sys.meta_path.insert(0, _AfterImport("torch", self.on_torch))
        keep_log_records(self.records)
        atexit.register(self.write)

    def on_torch(self, torch: Any) -> None:
        """Once the program has imported torch: watch everything Dynamo does from now on."""
        import torch._dynamo

        self.torch = torch
        draw_as_eager()
        options = apply_dynamo_settings(torch, dict(self.request.get("compile_options", {})))
        self.log = collect_dynamo_log(torch)
        self.graphs = GraphCounter().__enter__()
        self.programs.install()
        if options.get("backend"):
            # --compile-options backend=...: replaces the backend of the program's own compiles.
            torch.compiler.set_stance("default", force_backend=options["backend"])

    def write(self) -> None:
        if self.torch is None or self.log is None or self.graphs is None:
            return
        from torch._dynamo.utils import counters

        breaks = [parsed for parsed in map(parse_break, self.log.breaks) if parsed is not None]
        if not (self.programs.made_any or breaks or self.graphs.ops_per_graph):
            return  # a process that compiled nothing (a data loader's worker, a tool's helper)
        frames = {"total": 0, "ok": 0, **counters["frames"]}
        result = {
            "pid": os.getpid(),
            "argv": sys.argv,
            "graphs": len(self.graphs.ops_per_graph),
            "ops": sum(self.graphs.ops_per_graph),
            "parameters_in_graphs": len(self.graphs.parameters),
            "frames_total": frames["total"],
            "frames_ok": frames["ok"],
            "skipped_frames": skipped_frames(frames, breaks),
            "breaks": breaks,
            "recompiles": [parsed for parsed in map(parse_recompile, self.log.recompiles) if parsed is not None],
            "log_records": self.records,
            "fullgraph_requested": self.programs.fullgraph_requested,
            "made_any": self.programs.made_any,
        }
        path = os.path.join(self.request["result_dir"], f"result-{os.getpid()}.json")
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(result, handle)


class _AfterImport(importlib.abc.MetaPathFinder):
    """Calls `then(module)` once a top-level module has been imported (its code run)."""

    def __init__(self, name: str, then) -> None:  # type: ignore[no-untyped-def]
        self.name = name
        self.then = then

    def find_spec(self, fullname, path, target=None):  # type: ignore[no-untyped-def]
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)  # once, and not for the search below
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return spec
        # The loader itself stays (torch reads its own resources through it); only running the
        # module is followed by `then`.
        original, then = spec.loader.exec_module, self.then

        def exec_module(module):  # type: ignore[no-untyped-def]
            original(module)
            then(module)

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def boot() -> None:
    """Start the instrumentation the request in GRAPHWELD_REQUEST asks for (once per process)."""
    path = os.environ.get("GRAPHWELD_REQUEST")
    if not path or getattr(sys, "_graphweld_instrumented", False):
        return
    sys._graphweld_instrumented = True  # type: ignore[attr-defined]
    with open(path, encoding="utf-8") as handle:
        request = json.load(handle)
    _Instrumentation(request).start()
