"""The entry runner: runs inside a subprocess (`python -m graphweld.runner REQUEST RESULT`).

It loads an entry (seed 000's convention: `my_model_function()` returns the model or function,
`GetInput()` its input), serves rewritten sources through an import overlay, runs the model
eagerly and/or under torch.compile with a counting backend, collects every graph break from
Dynamo's graph-break logs (file, line, GB id, reason; `torch._dynamo.explain` misses breaks in
loops), checks `fullgraph=True`, and writes a JSON result plus the outputs (torch.save).
Only this module imports torch; graphweld's rewriting never does.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import importlib.util
import io
import json
import logging
import os
import re
import sys
import traceback
from typing import Any

_SITE = re.compile(r"Graph break .*?in user code at (.+):(\d+)")
_GB_ID = re.compile(r"/gb/(gb\d+)\.html")
_FRAME = re.compile(r'^\s*File "(.+)", line (\d+), in (\S+)')


class OverlayLoader(importlib.machinery.SourceFileLoader):
    """Loads a module from text held in memory instead of its file (never from a stale .pyc)."""

    def __init__(self, fullname: str, path: str, source: str) -> None:
        super().__init__(fullname, path)
        self.source = source

    def get_data(self, path: str) -> bytes:
        if os.path.realpath(path) == os.path.realpath(self.path):
            return self.source.encode("utf-8")
        return super().get_data(path)

    def get_code(self, fullname: str):  # type: ignore[no-untyped-def]
        return compile(self.source, self.path, "exec", dont_inherit=True)


class OverlayFinder(importlib.abc.MetaPathFinder):
    """A meta-path finder keyed by file path: modules whose file is in `overlay` get its text."""

    def __init__(self, overlay: dict[str, str]) -> None:
        self.overlay = {os.path.realpath(path): text for path, text in overlay.items()}

    def find_spec(self, fullname, path, target=None):  # type: ignore[no-untyped-def]
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.origin is None:
            return None
        real = os.path.realpath(spec.origin)
        if real not in self.overlay:
            return None
        spec.loader = OverlayLoader(fullname, spec.origin, self.overlay[real])
        return spec


def _load_entry(path: str, overlay: OverlayFinder):  # type: ignore[no-untyped-def]
    real = os.path.realpath(path)
    directory = os.path.dirname(real)
    if directory not in sys.path:
        sys.path.insert(0, directory)
    name = "graphweld_entry"
    if real in overlay.overlay:
        loader = OverlayLoader(name, real, overlay.overlay[real])
        spec = importlib.util.spec_from_loader(name, loader, origin=real)
    else:
        spec = importlib.util.spec_from_file_location(name, real)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


class _BreakCollector(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def _collect_breaks(torch) -> _BreakCollector:  # type: ignore[no-untyped-def]
    import torch._dynamo.convert_frame  # noqa: F401  (registers the graph-break loggers)
    import torch._dynamo.exc  # noqa: F401
    import torch._dynamo.symbolic_convert  # noqa: F401

    torch._logging.set_logs(graph_breaks=True)
    collector = _BreakCollector()
    for name in list(logging.Logger.manager.loggerDict):
        if name.endswith("__graph_breaks"):
            logger = logging.getLogger(name)
            logger.handlers[:] = [collector]
            logger.propagate = False
            logger.setLevel(logging.DEBUG)
    return collector


def parse_break(message: str) -> dict[str, Any] | None:
    """One graph-break log message -> site, GB ids, reason, hint, whether the frame was skipped."""
    site = _SITE.search(message)
    if site is None:
        return None
    lines = [line.strip() for line in message.splitlines()]
    reason = ""
    after_header = False
    for line in lines:
        if line.startswith("Graph Break Reason:"):
            after_header = True
            rest = line[len("Graph Break Reason:") :].strip()
            if rest and not rest.startswith(("Encountered graph break", "Failed to handle graph break")):
                reason = rest
                break
            continue
        if after_header and line and not line.startswith(("Explanation:", "Hint:")):
            reason = line
            break
    explanation = next((line[len("Explanation:") :].strip() for line in lines if line.startswith("Explanation:")), "")
    hint = next((line[len("Hint:") :].strip() for line in lines if line.startswith("Hint:")), "")
    ids = _GB_ID.findall(message)
    # "User code traceback:" lists the Python stack down to the break, outermost frame first.
    traceback_at = message.find("User code traceback:")
    stack = []
    if traceback_at >= 0:
        for line in message[traceback_at:].splitlines():
            frame = _FRAME.match(line)
            if frame is not None:
                stack.append([os.path.realpath(frame.group(1)), int(frame.group(2)), frame.group(3)])
    return {
        "file": os.path.realpath(site.group(1)),
        "line": int(site.group(2)),
        "gb": ids[0].upper() if ids else "",
        "all_gb": [gb.upper() for gb in ids],
        "reason": reason or explanation,
        "explanation": explanation,
        "hint": hint,
        "skipped_frame": "Skipping the function" in message or "Skipping the frame" in message,
        "stack": stack,
    }


def _to_device(value: Any, device: Any) -> Any:
    import torch

    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, tuple):
        return tuple(_to_device(v, device) for v in value)
    if isinstance(value, list):
        return [_to_device(v, device) for v in value]
    if isinstance(value, dict):
        return {k: _to_device(v, device) for k, v in value.items()}
    return value


def _to_cpu(value: Any) -> Any:
    """Outputs as plain pytrees of CPU tensors (dict subclasses such as ModelOutput become dicts)."""
    import torch

    if isinstance(value, torch.Tensor):
        return value.detach().cpu()
    if isinstance(value, (tuple, list)):
        return type(value)(_to_cpu(v) for v in value) if type(value) in (tuple, list) else [_to_cpu(v) for v in value]
    if isinstance(value, dict):
        return {k: _to_cpu(v) for k, v in value.items()}
    if value is None or isinstance(value, (int, float, bool, str, complex)):
        return value
    return repr(value)


def _call(model: Any, inputs: Any) -> Any:
    if isinstance(inputs, dict):
        return model(**inputs)
    if isinstance(inputs, tuple):
        return model(*inputs)
    return model(inputs)


def _fresh_model_and_inputs(module: Any, factory: str, device: Any):  # type: ignore[no-untyped-def]
    import torch

    torch.manual_seed(0)
    model = getattr(module, factory)()
    # Already compiled: recompile the original so graphweld's counting backend sees the graphs.
    model = getattr(model, "_orig_mod", None) or getattr(model, "_torchdynamo_orig_callable", None) or model
    if isinstance(model, torch.nn.Module):
        model = model.to(device).eval()
    torch.manual_seed(0)
    inputs = _to_device(module.GetInput(), device)
    return model, inputs


def run(request: dict[str, Any]) -> dict[str, Any]:
    import torch
    import torch._dynamo
    from torch._dynamo.utils import counters

    device_name = request.get("device", "auto")
    if device_name == "auto":
        device_name = "cuda" if torch.cuda.is_available() else "cpu"
    device = torch.device(device_name)
    result: dict[str, Any] = {"device": str(device), "torch": torch.__version__}
    overlay = OverlayFinder(request.get("overlay", {}))
    sys.meta_path.insert(0, overlay)
    torch.use_deterministic_algorithms(True, warn_only=True)
    import torch._inductor.config as inductor_config

    inductor_config.fallback_random = True
    module = _load_entry(request["entry"], overlay)
    factory = request.get("factory") or "my_model_function"
    for required in (factory, "GetInput"):
        if not callable(getattr(module, required, None)):
            raise RuntimeError(f"the entry defines no `{required}()`")
    outputs: dict[str, Any] = {}

    if "eager" in request["modes"]:
        model, inputs = _fresh_model_and_inputs(module, factory, device)
        printed = io.StringIO()
        with torch.no_grad(), contextlib.redirect_stdout(printed):
            torch.manual_seed(0)
            outputs["eager"] = _to_cpu(_call(model, inputs))
        result["eager_stdout"] = printed.getvalue()

    if "compiled" in request["modes"]:
        options = dict(request.get("compile_options", {}))
        backend_name = options.pop("backend", "inductor")
        mode = options.pop("mode", None)
        graphs: list[int] = []

        def counting_backend(gm, example_inputs):  # type: ignore[no-untyped-def]
            graphs.append(sum(1 for node in gm.graph.nodes if node.op in ("call_function", "call_method", "call_module")))
            if backend_name == "inductor":
                from torch._inductor.compile_fx import compile_fx

                patches = torch._inductor.list_mode_options(mode) if mode else None
                return compile_fx(gm, example_inputs, config_patches=patches)
            from torch._dynamo.backends.registry import lookup_backend

            return lookup_backend(backend_name)(gm, example_inputs)

        collector = _collect_breaks(torch)
        torch._dynamo.reset()
        counters.clear()
        model, inputs = _fresh_model_and_inputs(module, factory, device)
        printed = io.StringIO()
        with torch.no_grad(), contextlib.redirect_stdout(printed):
            torch.manual_seed(0)
            compiled = torch.compile(model, backend=counting_backend, **options)
            outputs["compiled"] = _to_cpu(_call(compiled, inputs))
        frames = counters["frames"]
        breaks = [parsed for parsed in map(parse_break, collector.messages) if parsed is not None]
        result.update(
            compiled_stdout=printed.getvalue(),
            graphs=len(graphs),
            ops=sum(graphs),
            frames_total=frames["total"],
            frames_ok=frames["ok"],
            skipped_frames=max(frames["total"] - frames["ok"], sum(b["skipped_frame"] for b in breaks)),
            breaks=breaks,
        )
        if request.get("check_fullgraph", True):
            torch._dynamo.reset()
            model, inputs = _fresh_model_and_inputs(module, factory, device)
            try:
                with torch.no_grad(), contextlib.redirect_stdout(io.StringIO()):
                    _call(torch.compile(model, backend="eager", fullgraph=True, dynamic=options.get("dynamic")), inputs)
                result["fullgraph"] = True
            except Exception as exc:  # any failure means fullgraph=True does not hold
                result["fullgraph"] = False
                result["fullgraph_error"] = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    torch.save(outputs, request["outputs_path"])
    return result


def main() -> None:
    request_path, result_path = sys.argv[1], sys.argv[2]
    with open(request_path, encoding="utf-8") as handle:
        request = json.load(handle)
    try:
        result = run(request)
        result["ok"] = True
    except BaseException as exc:  # reported to the parent as one line, with the traceback kept
        result = {
            "ok": False,
            "error": f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}".rstrip(": "),
            "traceback": traceback.format_exc(),
        }
    with open(result_path, "w", encoding="utf-8") as handle:
        json.dump(result, handle)


if __name__ == "__main__":
    main()
