"""Hugging Face models before and after `graphweld fix --entry`: graphs and compiled forward time.

Usage: python benchmarks/hf_models.py [--repeats 30]
For each example entry (small T5 and Whisper, CPU), it copies the installed transformers to a
temporary directory, runs `graphweld fix --entry` on the copy (inductor), then in this one
process builds the original model and the rewritten one (the rewritten modeling module is loaded
beside the installed package under another name), compiles both with inductor, checks outputs
are equal, and reports graphs and the median forward time of repeated runs.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch
import transformers
from torch._inductor.compile_fx import compile_fx

ROOT = Path(__file__).parents[1]
CASES = [
    ("T5", "t5_entry.py", "models/t5/modeling_t5.py", "transformers.models.t5", "T5ForConditionalGeneration"),
    ("Whisper", "whisper_entry.py", "models/whisper/modeling_whisper.py", "transformers.models.whisper", "WhisperForConditionalGeneration"),
]


def load_entry(name: str):  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(f"entry_{name}", ROOT / "examples" / "huggingface" / name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rewritten_class(path: Path, package: str, class_name: str):  # type: ignore[no-untyped-def]
    name = f"{package}.graphweld_rewritten"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return getattr(module, class_name)


def measure(model, inputs, repeats: int):  # type: ignore[no-untyped-def]
    torch._dynamo.reset()
    graphs = []

    def counting(gm, example_inputs):  # type: ignore[no-untyped-def]
        graphs.append(gm)
        return compile_fx(gm, example_inputs)

    compiled = torch.compile(model, backend=counting)
    with torch.no_grad():
        output = compiled(**inputs)  # compile
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            compiled(**inputs)
            times.append(time.perf_counter() - start)
    return output, len(graphs), statistics.median(times) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    print(f"{platform.platform()}, {os.cpu_count()} cores, torch {torch.__version__}, transformers {transformers.__version__}")
    print("| model | graphs before | graphs after | forward before (ms) | forward after (ms) | outputs equal |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for label, entry_name, model_file, package, class_name in CASES:
        with tempfile.TemporaryDirectory() as scratch:
            copy = Path(scratch) / "transformers"
            shutil.copytree(Path(transformers.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
            subprocess.run(
                [sys.executable, "-m", "graphweld", "fix", "--entry", str(ROOT / "examples" / "huggingface" / entry_name), str(copy)],
                env={**os.environ, "PYTHONPATH": scratch},
                check=True,
                capture_output=True,
            )
            entry = load_entry(entry_name)
            before_model = entry.my_model_function().eval()
            torch.manual_seed(0)
            after_model = rewritten_class(copy / model_file, package, class_name)(before_model.config).eval()
            after_model.load_state_dict(before_model.state_dict())
            inputs = entry.GetInput()
            before_out, before_graphs, before_ms = measure(before_model, inputs, args.repeats)
            after_out, after_graphs, after_ms = measure(after_model, inputs, args.repeats)
            equal = all(
                torch.equal(a, b) for a, b in zip(before_out.to_tuple(), after_out.to_tuple()) if isinstance(a, torch.Tensor)
            )
            print(f"| {label} | {before_graphs} | {after_graphs} | {before_ms:.2f} | {after_ms:.2f} | {equal} |")


if __name__ == "__main__":
    main()
