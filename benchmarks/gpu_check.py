"""The GPU check's runs (`benchmarks/gpu_check.sh` installs graphweld and calls this): `pytest -m
cuda`, and for the bundled example and one program per rule with a CUDA form, `graphweld fix
--entry --device cuda` with the default backend, each model timed before and after (cold: the
first call, compile included; warm: the median forward). Everything runs in parallel; one table
is printed and every result is stored under --out as it finishes (`results.jsonl`).

    python benchmarks/gpu_check.py --out DIR [--device cuda] [--budget 480] [--cases NAME ...]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENTRIES = ROOT / "tests" / "entries"

# (name, entry file, what it exercises, options of `fix --entry`): the bundled example, and one
# program per rule that has a CUDA form or landed since the check last ran on a GPU. Entries that
# need a library (CuPy, JAX) are skipped where it is missing.
TRAIN_UNSAFE = ("--train", "--unsafe-fixes")
CASES = [
    ("example", ROOT / "examples" / "broken_model.py", "hoist-with, unroll-loop, isolate-io, hoist-try", ()),
    ("dlpack seed 000", ENTRIES / "seed_dlpack.py", "dlpack-custom-op (to_dlpack)", ()),
    ("dlpack cupy", ENTRIES / "cupy_dlpack_entry.py", "dlpack-custom-op (CuPy protocol)", ()),
    ("dlpack jax", ENTRIES / "jax_dlpack_entry.py", "dlpack-custom-op (JAX; compile fails)", ()),
    ("cuda events", ENTRIES / "cuda_events_entry.py", "profiling-guard (events; compile fails)", ()),
    ("nvtx", ENTRIES / "nvtx_entry.py", "profiling-guard (NVTX)", ()),
    ("wall clock", ENTRIES / "perf_counter_entry.py", "profiling-guard (perf_counter) + isolate-io", ()),
    ("allocator log", ENTRIES / "memory_log_entry.py", "isolate-io (allocator statistics)", ()),
    ("equality shortcut", ENTRIES / "equality_shortcut_entry.py", "equality-shortcut (training)", TRAIN_UNSAFE),
    ("layerdrop", ENTRIES / "inline_layerdrop_entry.py", "layerdrop-guard, isolate-io (training)", TRAIN_UNSAFE),
    ("vision seqlens", ENTRIES / "vision_seqlens_entry.py", "eager-helper (around a disabled call)", ("--unsafe-fixes",)),
    ("requires grad", ENTRIES / "requires_grad_entry.py", "requires-grad-eager (training)", TRAIN_UNSAFE),
    ("masked update", ENTRIES / "masked_update_entry.py",
     "equality-shortcut (any), guard-to-check (asserts behind; fullgraph fails)", ("--unsafe-fixes",)),
]
NEEDS = {"cupy_dlpack_entry.py": "cupy", "jax_dlpack_entry.py": "jax"}


def _run(command: list[str], cwd: Path, timeout: float, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    try:
        done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
        return done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired:
        return 124, "", f"timed out after {timeout:.0f} s"


def _timing(entry: Path, device: str, timeout: float) -> dict[str, object]:
    # A cold start is a compile from nothing: caches of their own (the fix's run compiled the same graphs).
    caches = entry.parent / f"caches-{time.monotonic_ns()}"
    env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": str(caches / "inductor"), "TRITON_CACHE_DIR": str(caches / "triton")}
    code, out, err = _run([sys.executable, str(ROOT / "benchmarks" / "gpu_timing.py"), str(entry), "--device", device],
                          entry.parent, timeout, env)
    if code != 0 or not out.strip():
        return {"fails": (err.strip().splitlines() or ["no output"])[-1][:200]}
    return json.loads(out.strip().splitlines()[-1])


def run_case(name: str, source: Path, what: str, options: tuple[str, ...], work: Path, device: str,
             timeout: float) -> dict[str, object]:
    """Copy the entry (and the entries beside it it may import) to its own folder, time it, fix it
    with `graphweld fix --entry`, time the result."""
    started = time.monotonic()
    folder = work / name.replace(" ", "_")
    shutil.copytree(source.parent, folder, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    entry = folder / source.name
    result: dict[str, object] = {"case": name, "rules": what, "options": " ".join(options)}
    result["before"] = _timing(entry, device, timeout)
    code, out, err = _run(
        [sys.executable, "-m", "graphweld", "fix", "--entry", str(entry), "--device", device, *options, str(entry),
         "--format", "json"],
        folder, timeout,
    )
    result["fix_exit"] = code
    # The fix's whole answer beside the table (why a rewrite was dropped), one level under --out:
    # the device tool brings back no deeper file.
    (work.parent / f"fix-{folder.name}.log").write_text(out + ("\n--- stderr\n" + err if err.strip() else ""))
    if out.strip().startswith("{"):
        data = json.loads(out)
        result["kept"] = sorted({rule for rules in data["kept"].values() for rule in rules})
        # A capture setting written where the entry compiles may stand in for the rewrites.
        setting = data.get("capture_setting_fix") or {}
        result["kept"] += [f"setting {name}" for name in setting.get("settings", [])]
        result["picture"] = {key: (data["before"][key], data["after"][key])
                             for key in ("compile_error", "graphs", "graph_breaks", "skipped_frames", "fullgraph")}
    else:
        result["fix_error"] = (err.strip().splitlines() or ["no output"])[-1][:200]
    result["after"] = _timing(entry, device, timeout)
    result["seconds"] = round(time.monotonic() - started, 1)
    return result


def _cell(timing: dict[str, object], key: str) -> str:
    if "fails" in timing:
        return "fails"
    value = timing.get(key)
    return "-" if value is None else str(value)


def forked_runs() -> str:
    """Whether this machine's runs are forked from a server that imported torch (and inductor's
    compiler), or made in fresh interpreters, and why (`graphweld.runs.runner_server`)."""
    from graphweld.runs import runner_server

    server = runner_server.server_for(300.0, inductor=True)  # as a run with the default backend
    refused = "; ".join(runner_server.refusals)
    if server is None:
        return f"runs: fresh interpreters ({refused or 'GRAPHWELD_FRESH_RUNS is set, or this system cannot fork'})"
    line = "runs: forked from a server" + (" that imported inductor's compiler" if "--inductor" in server.process.args else "")
    runner_server.forget_server()
    return line + (f" ({refused})" if refused else "")


def table(results: list[dict[str, object]], pytest_line: str) -> str:
    rows = [
        "| case | kept | compiled run | graphs | breaks | skipped frames | fullgraph | cold s before -> after | warm ms before -> after |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for result in results:
        picture = result.get("picture") or {}

        def pair(key: str) -> str:
            values = picture.get(key)
            if values is None:
                return "-"
            if key == "compile_error":
                return " -> ".join("fails" if value else "runs" for value in values)
            return f"{values[0]} -> {values[1]}"

        before, after = result.get("before", {}), result.get("after", {})
        kept = ", ".join(result.get("kept", [])) or result.get("fix_error", "none")
        rows.append(
            f"| {result['case']}{' (`' + str(result['options']) + '`)' if result.get('options') else ''} | {kept} | {pair('compile_error')} | {pair('graphs')} | {pair('graph_breaks')} | "
            f"{pair('skipped_frames')} | {pair('fullgraph')} | {_cell(before, 'cold_s')} -> {_cell(after, 'cold_s')} | "
            f"{_cell(before, 'warm_ms')} -> {_cell(after, 'warm_ms')} |"
        )
    return "\n".join([pytest_line, "", *rows])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--budget", type=float, default=480.0, help="seconds for the whole check")
    parser.add_argument("--no-pytest", action="store_true")
    parser.add_argument("--cases", nargs="+", metavar="NAME", help="only these cases (their names in the table)")
    options = parser.parse_args()
    options.out.mkdir(parents=True, exist_ok=True)
    work = options.out / "cases"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    import torch

    print(f"graphweld GPU check: torch {torch.__version__}, device {options.device}"
          + (f" ({torch.cuda.get_device_name(0)})" if options.device.startswith("cuda") and torch.cuda.is_available() else ""),
          flush=True)
    # Measured before the cases start: a run's speed there depends on it (docs/commands.md).
    runs_line = forked_runs()
    print(runs_line, flush=True)
    deadline = options.budget
    pytest_process = None
    if not options.no_pytest:
        cuda_tests = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "tests").glob("test_*.py") if "mark.cuda" in path.read_text())
        pytest_log = open(options.out / "pytest-cuda.log", "w")
        pytest_process = subprocess.Popen(
            [sys.executable, "-m", "pytest", "-m", "cuda", "-q", "-p", "no:cacheprovider", *cuda_tests],
            cwd=ROOT, stdout=pytest_log, stderr=subprocess.STDOUT,
        )
    cases = []
    for name, source, what, fix_options in CASES:
        if options.cases and name not in options.cases:
            continue
        needed = NEEDS.get(source.name)
        if needed is not None:
            try:
                __import__(needed)
            except ImportError:
                print(f"skipped {name}: {needed} is not installed", flush=True)
                continue
        cases.append((name, source, what, fix_options))
    results: list[dict[str, object]] = []
    with open(options.out / "results.jsonl", "w") as stored, concurrent.futures.ThreadPoolExecutor(len(cases) or 1) as pool:
        futures = {pool.submit(run_case, name, source, what, fix_options, work, options.device, deadline / 2): name
                   for name, source, what, fix_options in cases}
        for future in concurrent.futures.as_completed(futures):
            result = future.result()
            stored.write(json.dumps(result) + "\n")
            stored.flush()
            print(f"done: {result['case']} in {result['seconds']} s", flush=True)
            results.append(result)
    order = [name for name, *_ in cases]
    results.sort(key=lambda result: order.index(str(result["case"])))
    pytest_line = "pytest -m cuda: not run"
    if pytest_process is not None:
        try:
            pytest_process.wait(timeout=max(10.0, deadline))
        except subprocess.TimeoutExpired:
            pytest_process.kill()
        log = (options.out / "pytest-cuda.log").read_text(errors="replace").strip().splitlines()
        pytest_line = f"pytest -m cuda: {log[-1] if log else 'no output'} (exit {pytest_process.returncode})"
    pytest_line = f"{pytest_line}; {runs_line}"
    print(table(results, pytest_line), flush=True)
    (options.out / "table.md").write_text(table(results, pytest_line) + "\n")
    failed = pytest_process is not None and pytest_process.returncode not in (0, 5)
    return 1 if failed or any(result.get("fix_exit") not in (0, 1) for result in results) else 0


if __name__ == "__main__":
    raise SystemExit(main())
