"""Hugging Face models before and after `graphweld fix --entry`: graph breaks, graphs and time.

Usage: python benchmarks/hf_models.py [--repeats 30] [--safe] [--models T5,BART,...] [--fix-backend eager] [--train]
The models are GraphMend's 11 (arXiv 2509.16248), small configs from `examples/huggingface/`, CPU.
For each, the installed transformers is copied to a temporary directory and `graphweld fix
--entry` runs on the copy (inductor, or --fix-backend) with --unsafe-fixes (and, with --safe, once more on a fresh
copy with safe fixes only). Each version (the installed package and each rewritten copy) is then
measured in its own process with the copy first on PYTHONPATH: graph breaks as `graphweld explain
--compile-options backend=eager` counts them, and the entry's model compiled with inductor: graphs,
the first call ("cold": compile and run, inductor's caches disabled), the median of the repeated
calls after it ("warm"), and the outputs compared with the installed package's eager outputs.
With --train, everything is a training step (`fix --entry --train`, `explain --train`; the timed
call is forward, the sum of the floating outputs as the loss, and backward), and what is compared
is every parameter's gradient. "Equal" is graphweld's own judgement (dtype-aware tolerances; a leaf
the installed package compiled already moves beyond them is held to twice that), shown with the
largest absolute difference from eager.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from package_runs import copy_package, explain, fix_entry

ROOT = Path(__file__).parents[1]
ENTRIES = ROOT / "examples" / "huggingface"
CASES = [
    ("T5", "t5_entry.py"),
    ("BART", "bart_entry.py"),
    ("Whisper", "whisper_entry.py"),
    ("Phi-3 LongRoPE", "phi3_longrope_entry.py"),
    ("Longformer", "longformer_entry.py"),
    ("Grounding DINO", "grounding_dino_entry.py"),
    ("BioGPT", "biogpt_entry.py"),
    ("Blenderbot", "blenderbot_entry.py"),
    ("Marian", "marian_entry.py"),
    ("Pegasus", "pegasus_entry.py"),
    ("LayoutLMv3", "layoutlmv3_entry.py"),
]
# GraphMend's published totals over these 11 models (its own counting): breaks before and after.
GRAPHMEND_BEFORE, GRAPHMEND_AFTER = 47, 10


def measure(entry_path: str, output_path: str, repeats: int, train: bool = False) -> None:
    """In this process: compile the entry's model, count graphs, time forward calls (with
    `train`, training steps: forward, the sum of the floating outputs as the loss, backward), save
    outputs (in training, every parameter's gradient; and the eager ones, which every version is
    compared with)."""
    import importlib.util

    import torch
    import torch._inductor.config as inductor_config
    from torch._inductor.compile_fx import compile_fx

    from graphweld.runs.program import default_loss

    inductor_config.fallback_random = True  # dropout draws as eager's, so gradients compare
    spec = importlib.util.spec_from_file_location("entry", entry_path)
    entry = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(entry)
    model, inputs = entry.my_model_function(), entry.GetInput()
    model = model.train() if train else model.eval()
    graphs = []

    def counting(gm, example_inputs):  # type: ignore[no-untyped-def]
        graphs.append(gm)
        return compile_fx(gm, example_inputs)

    def call(function):  # type: ignore[no-untyped-def]
        torch.manual_seed(0)
        output = function(**inputs)
        if not train:
            return _tensors(output)
        default_loss(output).backward()
        gradients = [p.grad.detach().clone() for p in model.parameters() if p.grad is not None]
        model.zero_grad(set_to_none=True)
        return gradients

    with torch.no_grad() if not train else torch.enable_grad():
        eager = call(model)
        compiled = torch.compile(model, backend=counting)
        start = time.perf_counter()
        output = call(compiled)
        cold = time.perf_counter() - start
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            call(compiled)
            times.append(time.perf_counter() - start)
    torch.save([eager, output], output_path)
    print(json.dumps({"graphs": len(graphs), "cold_s": cold, "warm_ms": statistics.median(times) * 1e3}))


def _tensors(output) -> list:  # type: ignore[no-untyped-def]
    import torch

    return [value for value in output.to_tuple() if isinstance(value, torch.Tensor)]


def run_measure(entry: Path, site: str | None, output: Path, repeats: int, train: bool) -> dict:
    # Cold means cold: no inductor cache carried over from an earlier measurement.
    env = {**os.environ, "TORCHINDUCTOR_FORCE_DISABLE_CACHES": "1"}
    if site:
        env["PYTHONPATH"] = site
    done = subprocess.run(
        [sys.executable, __file__, "--measure", str(entry), str(output), "--repeats", str(repeats),
         *(["--train"] if train else [])],
        env=env, check=True, capture_output=True, text=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--safe", action="store_true", help="also measure a copy rewritten with safe fixes only")
    parser.add_argument("--models", help="comma-separated model names (default: all 11)")
    parser.add_argument("--fix-backend", default="inductor", help="the backend fix --entry verifies with (default inductor)")
    parser.add_argument("--train", action="store_true", help="training steps: fix --entry --train, steps timed, gradients compared")
    parser.add_argument("--measure", nargs=2, metavar=("ENTRY", "OUTPUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        measure(args.measure[0], args.measure[1], args.repeats, args.train)
        return
    import torch
    import transformers

    wanted = set(args.models.split(",")) if args.models else None
    cases = [(label, name) for label, name in CASES if wanted is None or label in wanted]
    print(f"{platform.platform()}, {os.cpu_count()} cores, torch {torch.__version__}, transformers {transformers.__version__}")
    step = "training step" if args.train else "forward"
    compared = "gradients" if args.train else "outputs"  # equal, and (the largest difference)
    print(f"| model | fixes | graph breaks | graphs | cold compile+run (s) | warm {step} (ms) | {compared} equal to eager | fix --entry (s) |")
    print("| --- | --- | ---: | ---: | ---: | ---: | --- | ---: |")
    totals: dict[str, int] = {}
    for label, entry_name in cases:
        entry = ENTRIES / entry_name
        with tempfile.TemporaryDirectory() as scratch:
            reference = Path(scratch) / "installed.pt"
            before = run_measure(entry, None, reference, args.repeats, args.train)
            breaks = explain(sys.executable, entry, None, train=args.train)["graph_breaks"]
            totals["none"] = totals.get("none", 0) + breaks
            eager, compiled = torch.load(reference)
            print(f"| {label} | none (installed) | {breaks} | {before['graphs']} | {before['cold_s']:.1f} | {before['warm_ms']:.2f} "
                  f"| {_equal(eager, compiled)} | - |")  # fmt: skip
            training = ["--train"] if args.train else []
            modes = [("--unsafe-fixes", ["--unsafe-fixes", *training])] + ([("safe", training)] if args.safe else [])
            for fixes, options in modes:
                site = Path(scratch) / fixes.strip("-")
                copy = copy_package(Path(transformers.__file__).parent, site)
                done, fixing = fix_entry(
                    sys.executable, entry, copy, [*options, "--compile-options", f"backend={args.fix_backend}"]
                )
                done.check_returncode()
                output = site / "outputs.pt"
                after = run_measure(entry, str(site), output, args.repeats, args.train)
                breaks = explain(sys.executable, entry, site, train=args.train)["graph_breaks"]
                totals[fixes] = totals.get(fixes, 0) + breaks
                equal = _equal(eager, torch.load(output)[1], compiled)
                print(
                    f"| {label} | {fixes} | {breaks} | {after['graphs']} | {after['cold_s']:.1f} | {after['warm_ms']:.2f} "
                    f"| {equal} | {fixing:.0f} |"
                )
    print()
    print("graph breaks over these models: " + ", ".join(f"{fixes}: {count}" for fixes, count in totals.items()))
    if len(cases) == len(CASES):
        print(f"GraphMend's published totals on its table: {GRAPHMEND_BEFORE} before, {GRAPHMEND_AFTER} after")


def _equal(expected: list, actual: list, compiled_original: list | None = None) -> str:
    """Equal as graphweld's verification judges it (dtype-aware; where the installed package
    compiled already differs from eager, within twice that), with the largest difference."""
    from graphweld.runs.compare import compare_outputs, noise_floor

    noise = noise_floor(expected, compiled_original) if compiled_original is not None else None
    leaves = compare_outputs(expected, actual, noise)
    largest = max((leaf.max_abs for leaf in leaves), default=0.0)
    return f"{all(leaf.equal for leaf in leaves)} ({largest:.1e})"


if __name__ == "__main__":
    main()
