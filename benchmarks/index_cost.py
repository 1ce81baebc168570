"""What the project index costs a run of `graphweld fix --check` (issue 27).

Usage: python benchmarks/index_cost.py PATH [--repeat N]

Interleaves, N times (default 3): building the index over the files graphweld discovers under PATH
(the `ast` pass that learns which functions other files compile), then `graphweld fix --check
--jobs 2 PATH`, which includes it. Interleaving keeps both under the same load. Run it on a copy
of a package, not the installed one.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

from graphweld.analysis.project import ProjectIndex
from graphweld.discover import discover


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    files, _ = discover([args.path], ())
    print("| run | index build (s) | fix --check (s) | files with functions compiled elsewhere |")
    print("| --- | ---: | ---: | ---: |")
    for run in range(1, args.repeat + 1):
        start = time.perf_counter()
        index = ProjectIndex.build(files)
        index_seconds = time.perf_counter() - start
        start = time.perf_counter()
        command = [sys.executable, "-m", "graphweld", "fix", "--check", "--jobs", "2", args.path]
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        fix_seconds = time.perf_counter() - start
        print(f"| {run} | {index_seconds:.2f} | {fix_seconds:.1f} | {len(index.compiled_elsewhere)} |", flush=True)


if __name__ == "__main__":
    main()
