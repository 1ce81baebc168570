"""The entry runner: runs inside a subprocess (`python -m graphweld.runs.runner REQUEST RESULT`).

It loads an entry (seed 000's convention: `my_model_function()` returns the model or function,
`GetInput()` its input), serves rewritten sources through an import overlay, runs the model
eagerly and/or compiled, collects every graph break from Dynamo's graph-break logs (file, line,
GB id, reason; `torch._dynamo.explain` misses breaks in loops), checks `fullgraph=True`, and
writes a JSON result plus the outputs (torch.save).

The program is measured as its own code compiles it: every graph Dynamo hands to a backend is
counted, whoever called `torch.compile`. Only when running what the factory returns compiles
nothing by itself (seed 000's harness compiles a plain model) does the runner compile it. The
eager reference runs with every `torch.compile` in the program turned off
(`torch.compiler.set_stance("force_eager")`).
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
        # From a file location, so that the module has its `__file__` as when run from disk.
        spec = importlib.util.spec_from_file_location(name, real, loader=loader)
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


def _to_cpu(value: Any, depth: int = 0) -> Any:
    """Outputs as plain pytrees of CPU tensors (dict subclasses such as ModelOutput become dicts;
    other objects, such as a model's key/value cache, become dicts of their attributes, named by
    their type, so that two runs' objects compare by what they hold, not by address)."""
    import torch

    if isinstance(value, torch.Tensor):
        return value.detach().cpu()
    if isinstance(value, (tuple, list)):
        items = [_to_cpu(v, depth) for v in value]
        return type(value)(items) if type(value) in (tuple, list) else items
    if isinstance(value, dict):
        return {k: _to_cpu(v, depth) for k, v in value.items()}
    if value is None or isinstance(value, (int, float, bool, str, complex)):
        return value
    kind = f"<{type(value).__module__}.{type(value).__qualname__}>"
    attributes = getattr(value, "__dict__", None)
    if isinstance(attributes, dict) and depth < _OBJECT_DEPTH:
        return {"type": kind, **{k: _to_cpu(v, depth + 1) for k, v in attributes.items() if not callable(v)}}
    text = repr(value)
    return kind if " at 0x" in text else text


# How deep objects inside objects are taken apart (a cache holds lists of tensors, one level).
_OBJECT_DEPTH = 3


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
    if isinstance(model, torch.nn.Module):
        model = model.to(device).eval()
    torch.manual_seed(0)
    inputs = _to_device(module.GetInput(), device)
    return model, inputs


class _OutputRecorder:
    """What a run shows its user: printed text, log records and warnings, in order. Records of
    torch's own loggers and warnings raised inside torch (compilation notices) are not the
    program's. Once-only logging helpers (transformers' `logger.warning_once`, an lru_cache on
    Logger) are reset first, so every run starts from the same state."""

    def __init__(self) -> None:
        self.printed = io.StringIO()
        self.records: list[list[str]] = []
        self.warnings: list[list[str]] = []

    @contextlib.contextmanager
    def recording(self):  # type: ignore[no-untyped-def]
        import warnings

        import torch

        torch_root = os.path.dirname(torch.__file__) + os.sep
        for value in vars(logging.Logger).values():
            if hasattr(value, "cache_clear"):
                value.cache_clear()
        original_handle = logging.Logger.handle
        records = self.records

        def handle(logger: logging.Logger, record: logging.LogRecord) -> None:
            if not record.name.startswith("torch"):
                records.append([record.name, record.levelname, record.getMessage()])
            original_handle(logger, record)

        logging.Logger.handle = handle  # type: ignore[method-assign]
        try:
            with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(self.printed):
                warnings.simplefilter("always")
                yield self
        finally:
            logging.Logger.handle = original_handle  # type: ignore[method-assign]
        self.warnings.extend(
            [w.category.__name__, str(w.message)] for w in caught if not str(w.filename).startswith(torch_root)
        )

    def fields(self, prefix: str) -> dict[str, Any]:
        return {
            f"{prefix}_stdout": self.printed.getvalue(),
            f"{prefix}_log_records": self.records,
            f"{prefix}_warnings": self.warnings,
        }


# `--compile-options` keys that set torch._dynamo.config instead of torch.compile arguments.
DYNAMO_SETTINGS = ("capture_scalar_outputs", "capture_dynamic_output_shape_ops")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0]}" if text else type(exc).__name__


class GraphCounter:
    """Counts every graph Dynamo hands to a backend, whichever `torch.compile` call made it.

    The ops of a graph are its call nodes; the ops a `nonstrict_trace` call runs are counted
    inside it (Dynamo records the call as one opaque node), a custom op counts as its one node.
    """

    def __init__(self) -> None:
        self.ops_per_graph: list[int] = []
        self._original: Any = None

    def __enter__(self) -> "GraphCounter":
        from torch._dynamo.output_graph import OutputGraph

        self._original = original = OutputGraph.call_user_compiler
        counter = self

        def call_user_compiler(graph_self, gm, example_inputs):  # type: ignore[no-untyped-def]
            counter.ops_per_graph.append(_count_ops(gm))
            return original(graph_self, gm, example_inputs)

        OutputGraph.call_user_compiler = call_user_compiler
        return self

    def __exit__(self, *exc: object) -> None:
        from torch._dynamo.output_graph import OutputGraph

        OutputGraph.call_user_compiler = self._original

    def clear(self) -> None:
        self.ops_per_graph.clear()


def _count_ops(gm: Any) -> int:
    total = 0
    for node in gm.graph.nodes:
        if node.op not in ("call_function", "call_method", "call_module"):
            continue
        if getattr(node.target, "__name__", "") == "flat_apply_capture":
            total += _ops_inside_nonstrict_call(gm, node)
        else:
            total += 1
    return total


def _ops_inside_nonstrict_call(gm: Any, node: Any) -> int:
    """The ATen ops a `nonstrict_trace` call runs, traced with fake tensors of its inputs' shapes
    (1 when they cannot be traced, e.g. symbolic shapes)."""
    import torch
    from torch.fx.experimental.proxy_tensor import make_fx

    try:
        function_node, spec_node, *rest = node.args
        function, spec = getattr(gm, function_node.target), getattr(gm, spec_node.target)
        values = []
        for arg in rest:
            value = arg.meta.get("example_value") if isinstance(arg, torch.fx.Node) else arg
            if isinstance(value, torch.Tensor):
                value = torch.zeros(tuple(int(size) for size in value.shape), dtype=value.dtype, device=value.device)
            values.append(value)
        tensor_positions = [index for index, value in enumerate(values) if isinstance(value, torch.Tensor)]

        def call(*tensors):  # type: ignore[no-untyped-def]
            args = list(values)
            for index, tensor in zip(tensor_positions, tensors):
                args[index] = tensor
            return node.target(function, spec, *args)

        traced = make_fx(call, tracing_mode="fake")(*[values[index] for index in tensor_positions])
        return max(1, sum(1 for inner in traced.graph.nodes if inner.op == "call_function"))
    except Exception:  # counting is best effort; the call itself is in the graph
        return 1


@contextlib.contextmanager
def _stance(stance: str, backend: Any = None):  # type: ignore[no-untyped-def]
    import torch

    torch.compiler.set_stance(stance, force_backend=backend)
    try:
        yield
    finally:
        torch.compiler.set_stance("default")


def _compiled_run(module: Any, factory: str, device: Any, request: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    """Run the entry compiled: as its own code compiles it, or compiled by the runner when that
    compiles nothing. Returns the report's fields and the outputs."""
    import torch
    import torch._dynamo
    from torch._dynamo.utils import counters

    options = dict(request.get("compile_options", {}))
    # --compile-options backend=... replaces the backend of the program's own torch.compile calls.
    forced_backend = options.pop("backend", None)
    mode = options.pop("mode", None)
    collector = _collect_breaks(torch)

    def attempt(compile_it: bool) -> tuple[Any, _OutputRecorder]:
        torch._dynamo.reset()
        counters.clear()
        collector.messages.clear()
        graphs.clear()
        model, inputs = _fresh_model_and_inputs(module, factory, device)
        shown = _OutputRecorder()
        with torch.no_grad(), shown.recording():
            torch.manual_seed(0)
            if compile_it:
                extra = {"mode": mode} if mode else {}
                model = torch.compile(model, backend=forced_backend or "inductor", **extra, **options)
                output = _call(model, inputs)
            else:
                with _stance("default", forced_backend):
                    output = _call(model, inputs)
        return output, shown

    with GraphCounter() as graphs:
        output, shown = attempt(compile_it=False)
        compiled_by = "entry"
        # Nothing compiled: no frame counted and no graph made (a fullgraph=True compile makes
        # graphs without counting its frames).
        if counters["frames"]["total"] == 0 and not graphs.ops_per_graph:
            output, shown = attempt(compile_it=True)
            compiled_by = "graphweld"
        frames = counters["frames"]
        breaks = [parsed for parsed in map(parse_break, collector.messages) if parsed is not None]
        fields: dict[str, Any] = dict(
            compiled_by=compiled_by,
            # Options for the torch.compile the runner makes: unused when the program compiles itself.
            unused_compile_options=sorted(set(request.get("compile_options", {})) - {"backend"}) if compiled_by == "entry" else [],
            **shown.fields("compiled"),
            graphs=len(graphs.ops_per_graph),
            ops=sum(graphs.ops_per_graph),
            frames_total=frames["total"],
            frames_ok=frames["ok"],
            skipped_frames=max(frames["total"] - frames["ok"], sum(b["skipped_frame"] for b in breaks)),
            breaks=breaks,
        )
    outputs = _to_cpu(output)
    if request.get("check_fullgraph", True):
        fields.update(_fullgraph(module, factory, device, compiled_by, options.get("dynamic")))
    return fields, outputs


def _fullgraph(module: Any, factory: str, device: Any, compiled_by: str, dynamic: Any) -> dict[str, Any]:
    """Whether every compiled frame compiles to one graph: `fullgraph=True` on the model the runner
    compiles, or `torch._dynamo.error_on_graph_break(True)` around the program's own compiles."""
    import torch
    import torch._dynamo

    torch._dynamo.reset()
    model, inputs = _fresh_model_and_inputs(module, factory, device)
    try:
        with torch.no_grad(), contextlib.redirect_stdout(io.StringIO()):
            if compiled_by == "graphweld":
                _call(torch.compile(model, backend="eager", fullgraph=True, dynamic=dynamic), inputs)
            else:
                error_on_graph_break = getattr(torch._dynamo, "error_on_graph_break", None)
                if error_on_graph_break is None:  # torch < 2.9: cannot be asked of the program's compiles
                    return {"fullgraph": None}
                with error_on_graph_break(True), _stance("default", "eager"):
                    _call(model, inputs)
        return {"fullgraph": True}
    except Exception as exc:  # any failure means fullgraph=True does not hold
        return {"fullgraph": False, "fullgraph_error": str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__}


def run(request: dict[str, Any]) -> dict[str, Any]:
    import torch

    device_name = request.get("device", "auto")
    if device_name == "auto":
        device_name = "cuda" if torch.cuda.is_available() else "cpu"
    device = torch.device(device_name)
    result: dict[str, Any] = {"device": str(device), "torch": torch.__version__}
    overlay = OverlayFinder(request.get("overlay", {}))
    sys.meta_path.insert(0, overlay)
    torch.use_deterministic_algorithms(True, warn_only=True)
    # Dynamo settings among the compile options apply to every compile of the run, the program's
    # own included; the rest are torch.compile arguments.
    options = dict(request.get("compile_options", {}))
    for name in DYNAMO_SETTINGS:
        if name in options:
            setattr(torch._dynamo.config, name, options.pop(name))
    request = {**request, "compile_options": options}
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
        shown = _OutputRecorder()
        # Every torch.compile the program makes is turned off: the reference is the plain program.
        with torch.no_grad(), shown.recording(), _stance("force_eager"):
            torch.manual_seed(0)
            outputs["eager"] = _to_cpu(_call(model, inputs))
        result.update(shown.fields("eager"))

    if "compiled" in request["modes"]:
        fields, outputs["compiled"] = _compiled_run(module, factory, device, request)
        result.update(fields)
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
            "error": _first_line(exc),
            "traceback": traceback.format_exc(),
        }
    with open(result_path, "w", encoding="utf-8") as handle:
        json.dump(result, handle)


if __name__ == "__main__":
    main()
