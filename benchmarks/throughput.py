"""Throughput of `graphweld fix --check` over a real corpus, against a bare libcst parse.

Usage: python benchmarks/throughput.py [CORPUS_DIR] [--jobs N]
The default corpus is the installed torch package's Python sources (read in place; --check
writes nothing). Prints a Markdown table row set to paste into benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path


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


def graphweld_check(root: Path, jobs: int, *extra: str) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "graphweld", "fix", "--check", "--exit-zero", "--format", "json", "--jobs", str(jobs), *extra, str(root)],
        check=False,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus", nargs="?", type=Path)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    if args.corpus is None:
        import torch

        args.corpus = Path(torch.__file__).parent
    files = corpus_files(args.corpus)
    megabytes = sum(path.stat().st_size for path in files) / 1e6
    print(f"corpus: {args.corpus} ({len(files)} files, {megabytes:.1f} MB); jobs={args.jobs}")
    print(f"machine: {platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    rows = [
        ("graphweld fix --check", graphweld_check(args.corpus, args.jobs)),
        ("graphweld fix --check --assume-compiled", graphweld_check(args.corpus, args.jobs, "--assume-compiled")),
        ("bare libcst parse of every file", bare_parse(files, args.jobs)),
    ]
    print("| what | seconds | files/s | MB/s |")
    print("| --- | ---: | ---: | ---: |")
    for name, seconds in rows:
        print(f"| {name} | {seconds:.1f} | {len(files) / seconds:.0f} | {megabytes / seconds:.2f} |")


if __name__ == "__main__":
    main()
