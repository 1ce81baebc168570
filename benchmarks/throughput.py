"""Throughput of graphweld against the libcst codemod runner and a bare libcst parse.

Usage: python benchmarks/throughput.py [--corpus torch|transformers|PATH ...] [--jobs N]

Each corpus (default: the installed torch and transformers packages) is copied to a temporary
directory first, so nothing is read from or written to the installed packages and nothing is
committed. On each, side by side:
- `graphweld fix --check` (every rule), and again with `--assume-compiled` (every function examined);
- a bare `libcst.parse_module` of every file, over the same number of processes (the floor);
- `python -m libcst.tool codemod` running a no-op visitor over the same files with the same number
  of jobs (what a user of libcst's own codemod framework gets).
Reports seconds, files/s, MB/s, the ratios the targets are stated in, and the peak resident memory
of the largest graphweld process (main process or worker). Prints Markdown for RESULTS.md.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

NOOP_CODEMOD = textwrap.dedent(
    '''
    from libcst.codemod import VisitorBasedCodemodCommand


    class NoOp(VisitorBasedCodemodCommand):
        DESCRIPTION = "Visits every node and changes nothing."
    '''
)

# Runs a command and prints the peak RSS (KiB) of the largest process in its tree.
PEAK_RSS = (
    "import resource, subprocess, sys; "
    "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
)


def corpus_files(root: Path) -> list[Path]:
    return sorted(path for path in root.rglob("*.py") if path.is_file())


def parse_one(path: Path) -> int:
    import libcst

    data = path.read_bytes()
    try:
        libcst.parse_module(data)
    except Exception:
        pass
    return len(data)


def bare_parse(files: list[Path], jobs: int) -> float:
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(parse_one, files, chunksize=16))
    return time.perf_counter() - start


def timed(command: list[str], env: dict[str, str] | None = None, cwd: str | None = None) -> tuple[float, int]:
    """Wall seconds and peak RSS (MiB) of the largest process the command ran."""
    start = time.perf_counter()
    completed = subprocess.run(
        [sys.executable, "-c", PEAK_RSS, *command], capture_output=True, text=True, env=env, cwd=cwd, check=True
    )
    return time.perf_counter() - start, int(completed.stdout.strip().splitlines()[-1]) // 1024


def graphweld_check(root: Path, jobs: int, *extra: str) -> tuple[float, int]:
    return timed([sys.executable, "-m", "graphweld", "fix", "--check", "--exit-zero", "--format", "json", "--jobs", str(jobs), *extra, str(root)])


def libcst_codemod(root: Path, jobs: int, scratch: Path) -> tuple[float, int]:
    (scratch / "graphweld_bench_noop.py").write_text(NOOP_CODEMOD)
    env = {**os.environ, "PYTHONPATH": str(scratch)}
    command = [
        sys.executable, "-m", "libcst.tool", "codemod", "-x", f"--jobs={jobs}", "--no-format", "--include-generated",
        "--include-stubs", "--hide-progress", "graphweld_bench_noop.NoOp", str(root),
    ]
    return timed(command, env=env, cwd=str(scratch))


def locate(name: str) -> Path:
    if name in ("torch", "transformers"):
        import importlib.util

        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            raise SystemExit(f"{name} is not installed")
        return Path(next(iter(spec.submodule_search_locations)))
    return Path(name)


def measure(name: str, jobs: int) -> None:
    with tempfile.TemporaryDirectory(prefix="graphweld-bench-") as scratch_dir:
        scratch = Path(scratch_dir)
        root = scratch / "corpus"
        shutil.copytree(locate(name), root, ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.dylib", "*.dll", "lib", "include"))
        files = corpus_files(root)
        megabytes = sum(path.stat().st_size for path in files) / 1e6
        print(f"\n### {name}: {len(files)} files, {megabytes:.1f} MB, --jobs {jobs}\n")
        check, check_rss = graphweld_check(root, jobs)
        assume, assume_rss = graphweld_check(root, jobs, "--assume-compiled")
        parse = bare_parse(files, jobs)
        codemod, _ = libcst_codemod(root, jobs, scratch)
        print("| what | seconds | files/s | MB/s | peak RSS (MiB) |")
        print("| --- | ---: | ---: | ---: | ---: |")
        for label, seconds, rss in (
            ("graphweld fix --check", check, check_rss),
            ("graphweld fix --check --assume-compiled", assume, assume_rss),
            ("bare libcst parse of every file", parse, None),
            ("libcst codemod runner, no-op visitor", codemod, None),
        ):
            print(f"| {label} | {seconds:.1f} | {len(files) / seconds:.0f} | {megabytes / seconds:.2f} | {rss if rss is not None else ''} |")
        print()
        print(f"- libcst codemod runner / graphweld fix --check: {codemod / check:.1f}x (target: at least 5x)")
        print(f"- graphweld --assume-compiled / bare parse: {assume / parse:.2f}x (target: at most 1.5x)")
        print(f"- peak RSS of the largest graphweld process: {max(check_rss, assume_rss)} MiB (target: under 500 MiB)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", action="append", help="torch, transformers, or a directory (repeatable)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    print(f"{datetime.date.today()}, {platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    for name in args.corpus or ["torch", "transformers"]:
        measure(name, args.jobs)


if __name__ == "__main__":
    main()
