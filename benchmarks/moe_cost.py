"""What moe-dense-dispatch costs: each MoE model's FLOP factor and step time, before and after.

moe-dense-dispatch runs every expert on every token instead of gathering each expert's tokens
(see `docs/rules/moe-dense-dispatch.md`): the graph breaks go, the experts' FLOPs grow by E/k
(E experts, k chosen per token). For each model class given, built as `reach.py` builds it (its
default config, 2 layers, batch 2, CPU), this applies the rule to a copy of the installed
transformers (`graphweld fix --select moe-dense-dispatch --unsafe-fixes --assume-compiled` on the
model's own package) and times a forward in the benchmark environment, original and rewritten:
eager, and compiled with `torch.compile` (warm calls after a cold first one, whose time is the
compile time), with the largest difference between the outputs. Each model's row is appended to
the results file as it finishes (`--resume` skips the classes it has).

    .venv-reach/bin/python benchmarks/moe_cost.py --models SwitchTransformersModel,LongcatFlashModel
    .venv-reach/bin/python benchmarks/moe_cost.py --report
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from package_runs import copy_package
from reach import HERE, PYTHON, _last_json, _load, _run, entry_text

# Config keys for the number of experts and for how many each token is routed to, first found wins
# (a Switch Transformer routes each token to one expert and has no key for it; `top_k` is
# left out: older configs carry the generation setting of that name).
EXPERT_KEYS = ("n_routed_experts", "num_local_experts", "num_experts", "moe_num_experts")
TOP_K_KEYS = ("num_experts_per_tok", "moe_topk", "num_selected_experts", "moe_top_k")


def flop_factor(config) -> tuple[int, int] | None:  # type: ignore[no-untyped-def]
    """(E, k) from a config (or its text or feed-forward sub-config: DBRX's `ffn_config`), None
    when it names no experts."""
    for candidate in (config, getattr(config, "text_config", None), getattr(config, "ffn_config", None)):
        if candidate is None:
            continue
        experts = next((getattr(candidate, key) for key in EXPERT_KEYS if getattr(candidate, key, None)), None)
        if experts:
            top_k = next((getattr(candidate, key) for key in TOP_K_KEYS if getattr(candidate, key, None)), 1)
            return int(experts), int(top_k)
    return None


def time_forward(entry_path: str, backend: str | None, calls: int) -> dict:
    """Run in the benchmark environment: the model's forward, eager (`backend` None) or compiled."""
    import torch

    sys.path.insert(0, os.path.dirname(entry_path))
    entry = __import__(Path(entry_path).stem)
    torch.manual_seed(0)
    model = entry.my_model_function().eval()
    inputs = entry.GetInput()
    run = model if backend is None else torch.compile(model, backend=backend)
    times = []
    with torch.no_grad():
        for _ in range(calls + 1):
            start = time.perf_counter()
            output = run(**inputs) if isinstance(inputs, dict) else run(*inputs)
            times.append(time.perf_counter() - start)
    first = output[0] if isinstance(output, (tuple, list)) else next(v for v in output.values() if torch.is_tensor(v))
    factor = flop_factor(model.config)
    return {
        "cold_s": round(times[0], 3),
        "warm_s": round(statistics.median(times[1:]), 4),
        "checksum": first.double().sum().item(),
        "output": first.flatten()[:4096].tolist(),
        "experts": factor[0] if factor else None,
        "top_k": factor[1] if factor else None,
    }


def measure(python: str, package: Path, name: str, backend: str, calls: int, timeout: float) -> dict:
    probed = _last_json(_run([python, str(HERE / "reach_models.py"), "probe", name], timeout).stdout)
    if not probed["ok"]:
        return {"class": name, "status": "not built", "error": probed["error"]}
    module = _run([python, "-c", f"import transformers; print(getattr(transformers, {name!r}).__module__)"], timeout).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="moe-cost-") as scratch:
        entry = Path(scratch) / "moe_entry.py"
        # The census's padded form: the call with its attention mask (and labels), as reach.py measures it.
        entry.write_text(entry_text(name, probed, "padded"))
        site = Path(scratch) / "site"
        copy = copy_package(package, site)
        model_package = copy.joinpath(*module.split(".")[1:-1])
        fixed = _run([python, "-m", "graphweld", "fix", "--select", "moe-dense-dispatch", "--unsafe-fixes",
                      "--assume-compiled", "--format", "json", str(model_package)], timeout)  # fmt: skip
        changed = json.loads(fixed.stdout)["summary"]["changes_per_rule"].get("moe-dense-dispatch", 0) if fixed.stdout.strip() else 0
        row: dict = {"class": name, "status": "measured", "rewritten_loops": changed, "backend": backend}
        for label, env in (("before", {}), ("after", {"PYTHONPATH": str(site)})):
            for mode in ("eager", "compiled"):
                done = _run([python, __file__, "time", str(entry), "--backend", backend if mode == "compiled" else "none",
                             "--calls", str(calls)], timeout, env)  # fmt: skip
                try:
                    row[f"{label}_{mode}"] = _last_json(done.stdout)
                except ValueError:
                    row[f"{label}_{mode}"] = {"error": (done.stderr.strip().splitlines() or ["no output"])[-1][:300]}
    reference = row["before_eager"].get("output")
    for key in ("before_compiled", "after_eager", "after_compiled"):
        values = row[key].pop("output", None)
        if reference is not None and values is not None:
            row[key]["max_diff_to_eager"] = max(abs(a - b) for a, b in zip(values, reference))
    row["before_eager"].pop("output", None)
    factor = row["before_eager"].get("experts"), row["before_eager"].get("top_k")
    row["flop_factor"] = round(factor[0] / factor[1], 2) if all(factor) else None
    return row


def report(rows: list[dict]) -> None:
    print("| model | E/k | loops rewritten | eager before | after | compiled warm before | after | compiled cold before | after "
          "| max diff to eager, compiled before | after |")  # fmt: skip
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for row in rows:
        if row.get("status") != "measured":
            print(f"| {row['class']} | {row.get('error', '')[:60]} ||||||||||")
            continue

        def cell(key: str, field: str) -> str:
            value = row[key].get(field)
            return "error" if value is None else f"{value * 1000:.0f} ms" if field == "warm_s" else f"{value:.1f} s"

        diffs = [row[key].get("max_diff_to_eager") for key in ("before_compiled", "after_compiled")]
        print(
            f"| {row['class']} | {row['flop_factor']} | {row['rewritten_loops']} | {cell('before_eager', 'warm_s')} | "
            f"{cell('after_eager', 'warm_s')} | {cell('before_compiled', 'warm_s')} | {cell('after_compiled', 'warm_s')} | "
            f"{cell('before_compiled', 'cold_s')} | {cell('after_compiled', 'cold_s')} | "
            + " | ".join("-" if diff is None else f"{diff:.1e}" for diff in diffs) + " |"
        )


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "time":
        parser = argparse.ArgumentParser()
        parser.add_argument("command")
        parser.add_argument("entry")
        parser.add_argument("--backend", default="none")
        parser.add_argument("--calls", type=int, default=5)
        args = parser.parse_args()
        print(json.dumps(time_forward(args.entry, None if args.backend == "none" else args.backend, args.calls)))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=str(PYTHON), help="the benchmark environment's python")
    parser.add_argument("--models", help="comma-separated class names")
    parser.add_argument("--backend", default="inductor", help="torch.compile backend for the compiled times")
    parser.add_argument("--calls", type=int, default=5, help="warm calls timed after the first")
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--results", default=str(HERE / "results" / "moe-cost.jsonl"))
    parser.add_argument("--resume", action="store_true", help="skip the classes the results file has")
    parser.add_argument("--report", action="store_true", help="only print the table from the results file")
    args = parser.parse_args()
    results = Path(args.results)
    if args.report:
        report(_load(results))
        return
    if not args.models:
        sys.exit("error: --models is required (comma-separated class names)")
    package = _run([args.python, "-c", "import transformers, os; print(os.path.dirname(transformers.__file__))"], 600).stdout.strip()
    done = {row["class"] for row in _load(results)} if args.resume else set()
    todo = [name for name in args.models.split(",") if name not in done]
    results.parent.mkdir(parents=True, exist_ok=True)
    for index, name in enumerate(todo, 1):
        try:
            row = measure(args.python, Path(package), name, args.backend, args.calls, args.timeout)
        except subprocess.TimeoutExpired:
            row = {"class": name, "status": "not measured", "error": f"took over {args.timeout:.0f} s"}
        with results.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(row) + "\n")
        print(f"[{index}/{len(todo)}] {name}: {json.dumps({k: v for k, v in row.items() if k != 'class'})[:300]}", flush=True)


if __name__ == "__main__":
    main()
