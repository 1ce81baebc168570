"""Time one entry's model compiled, the way a user runs it: cold (the first call, compile
included) and warm (the median forward after it), on one device. Prints one JSON line.

    python benchmarks/gpu_timing.py ENTRY.py [--device cuda] [--calls 20]

Run it in a fresh process per measurement (compiled code and caches live in the process). An
entry that compiles itself is called as it is; otherwise its model is compiled with the defaults
(inductor), as `graphweld fix --entry` does. A compiled run that raises is reported as `"fails"`.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import os
import statistics
import sys
import time


def _load(path: str):  # type: ignore[no-untyped-def]
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    spec = importlib.util.spec_from_file_location("timed_entry", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _moved(value, device):  # type: ignore[no-untyped-def]
    import torch

    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, (tuple, list)):
        return type(value)(_moved(item, device) for item in value)
    if isinstance(value, dict):
        return {key: _moved(item, device) for key, item in value.items()}
    return value


def _call(model, value):  # type: ignore[no-untyped-def]
    if isinstance(value, dict):
        return model(**value)
    if isinstance(value, tuple):
        return model(*value)
    return model(value)


def measure(path: str, device: str, calls: int) -> dict[str, object]:
    import torch

    module = _load(path)
    model = module.my_model_function()
    if isinstance(model, torch.nn.Module):
        model = model.to(device).eval()
    value = _moved(module.GetInput(), device)

    def synchronize() -> None:
        if device.startswith("cuda"):
            torch.cuda.synchronize()

    # An entry that compiles itself is called as it is; otherwise compiled as graphweld compiles it.
    compiled = model if _compiles_itself(module) else torch.compile(model)
    result: dict[str, object] = {"entry": os.path.basename(path), "device": device, "torch": torch.__version__}
    with torch.no_grad():
        try:
            synchronize()
            started = time.perf_counter()
            _call(compiled, value)
            synchronize()
            result["cold_s"] = round(time.perf_counter() - started, 3)
            seconds = []
            for _ in range(calls):
                synchronize()
                started = time.perf_counter()
                _call(compiled, value)
                synchronize()
                seconds.append(time.perf_counter() - started)
            result["warm_ms"] = round(statistics.median(seconds) * 1000, 4)
        except Exception as exc:  # the compiled run raising is a result to report
            result["fails"] = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:200]
    return result


def _compiles_itself(module) -> bool:  # type: ignore[no-untyped-def]
    """Whether the entry's own code names `torch.compile` (a call or a decorator; not a word of a
    docstring, nor `torch.compiler`)."""
    with open(module.__file__, encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    return any(
        isinstance(node, ast.Attribute) and node.attr == "compile" and isinstance(node.value, ast.Name) and node.value.id == "torch"
        for node in ast.walk(tree)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("entry")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--calls", type=int, default=20)
    options = parser.parse_args()
    print(json.dumps(measure(options.entry, options.device, options.calls)))


if __name__ == "__main__":
    main()
