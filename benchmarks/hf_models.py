"""Hugging Face models before and after `graphweld fix --entry`: graphs and compiled forward time.

Usage: python benchmarks/hf_models.py [--repeats 30] [--unsafe-fixes]
For each example entry (small T5, Whisper and LayoutLMv3, CPU) it copies the installed
transformers to a temporary directory and runs `graphweld fix --entry` on the copy (inductor),
with safe fixes only (and, with --unsafe-fixes, once more on a fresh copy with unsafe fixes too).
Each version (the installed package and each rewritten copy) is then measured in its own process with the
copy first on PYTHONPATH: the entry's model compiled with inductor, graphs counted, the median
forward time of repeated calls, and the outputs compared with the installed package's. "cold" is
the first call (compile and run) with inductor's caches disabled; "warm" the median of the rest.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).parents[1]
ENTRIES = ROOT / "examples" / "huggingface"
CASES = [("T5", "t5_entry.py"), ("Whisper", "whisper_entry.py"), ("LayoutLMv3", "layoutlmv3_entry.py")]


def measure(entry_path: str, output_path: str, repeats: int) -> None:
    """In this process: compile the entry's model, count graphs, time forward calls, save outputs."""
    import importlib.util

    import torch
    from torch._inductor.compile_fx import compile_fx

    spec = importlib.util.spec_from_file_location("entry", entry_path)
    entry = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(entry)
    model, inputs = entry.my_model_function().eval(), entry.GetInput()
    graphs = []

    def counting(gm, example_inputs):  # type: ignore[no-untyped-def]
        graphs.append(gm)
        return compile_fx(gm, example_inputs)

    compiled = torch.compile(model, backend=counting)
    with torch.no_grad():
        start = time.perf_counter()
        output = compiled(**inputs)
        cold = time.perf_counter() - start
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            compiled(**inputs)
            times.append(time.perf_counter() - start)
    tensors = [value for value in output.to_tuple() if isinstance(value, torch.Tensor)]
    torch.save(tensors, output_path)
    print(json.dumps({"graphs": len(graphs), "cold_s": cold, "warm_ms": statistics.median(times) * 1e3}))


def run_measure(entry: Path, site: str | None, output: Path, repeats: int) -> dict:
    # Cold means cold: no inductor cache carried over from an earlier measurement.
    env = {**os.environ, "TORCHINDUCTOR_FORCE_DISABLE_CACHES": "1"}
    if site:
        env["PYTHONPATH"] = site
    done = subprocess.run(
        [sys.executable, __file__, "--measure", str(entry), str(output), "--repeats", str(repeats)],
        env=env, check=True, capture_output=True, text=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--unsafe-fixes", action="store_true", help="also measure a copy rewritten with unsafe fixes")
    parser.add_argument("--measure", nargs=2, metavar=("ENTRY", "OUTPUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        measure(args.measure[0], args.measure[1], args.repeats)
        return
    import torch
    import transformers

    print(f"{platform.platform()}, {os.cpu_count()} cores, torch {torch.__version__}, transformers {transformers.__version__}")
    print("| model | fixes | graphs | cold compile+run (s) | warm forward (ms) | outputs equal to installed |")
    print("| --- | --- | ---: | ---: | ---: | --- |")
    for label, entry_name in CASES:
        entry = ENTRIES / entry_name
        with tempfile.TemporaryDirectory() as scratch:
            reference = Path(scratch) / "installed.pt"
            before = run_measure(entry, None, reference, args.repeats)
            print(f"| {label} | none (installed) | {before['graphs']} | {before['cold_s']:.1f} | {before['warm_ms']:.2f} | - |")
            modes = [("safe", [])] + ([("--unsafe-fixes", ["--unsafe-fixes"])] if args.unsafe_fixes else [])
            for fixes, options in modes:
                site = Path(scratch) / fixes.strip("-")
                shutil.copytree(Path(transformers.__file__).parent, site / "transformers", ignore=shutil.ignore_patterns("__pycache__"))
                subprocess.run(
                    [sys.executable, "-m", "graphweld", "fix", "--entry", str(entry), *options, str(site / "transformers")],
                    env={**os.environ, "PYTHONPATH": str(site)}, check=True, capture_output=True,
                )
                output = site / "outputs.pt"
                after = run_measure(entry, str(site), output, args.repeats)
                equal = all(torch.equal(a, b) for a, b in zip(torch.load(reference), torch.load(output)))
                print(f"| {label} | {fixes} | {after['graphs']} | {after['cold_s']:.1f} | {after['warm_ms']:.2f} | {equal} |")


if __name__ == "__main__":
    main()
