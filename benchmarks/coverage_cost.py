"""What recording coverage costs a `fix --entry` run (issue 35), on GraphMend's 11 models.

    .venv/bin/python benchmarks/coverage_cost.py [--repeats 3] [--models T5,BART,...]

Coverage is recorded in one run only: the reference run every `fix --entry` starts with (the
entry eagerly, then compiled), over the files under the paths given to fix. Here the paths are the
whole installed transformers package, the largest set a user migrating it would give. For each
model this times that reference run (`run_entry`, inductor) without and with coverage, as the
median of `--repeats` runs each, alternating, after one warm-up run, and prints the difference. The added seconds happen
once per `fix --entry` run, so a fix run's overhead is at most the difference over the reference
run's own time, and in practice that difference over the whole fix run (rounds of compiled runs).
Each model's row is stored as it finishes in benchmarks/results/coverage-cost.jsonl.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

from hf_models import CASES, ENTRIES

RESULTS = Path(__file__).parent / "results" / "coverage-cost.jsonl"


def package_files() -> list[str]:
    import transformers

    root = Path(transformers.__file__).parent
    return [os.path.realpath(path) for path in root.rglob("*.py")]


def main() -> None:
    from graphweld.runs.entry import run_entry

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--models", help="comma-separated names (default: all 11)")
    args = parser.parse_args()
    wanted = set(args.models.split(",")) if args.models else None
    files = package_files()
    done = {json.loads(line)["model"] for line in RESULTS.read_text().splitlines()} if RESULTS.exists() else set()
    RESULTS.parent.mkdir(exist_ok=True)
    for name, entry in CASES:
        if (wanted is not None and name not in wanted) or name in done:
            continue
        times: dict[str, list[float]] = {"without": [], "with": []}
        run_entry(str(ENTRIES / entry))  # warm: the first run fills the compile caches
        for _ in range(args.repeats):
            for label, watched in (("without", ()), ("with", files)):
                started = time.perf_counter()
                report = run_entry(str(ENTRIES / entry), coverage_files=watched)
                times[label].append(time.perf_counter() - started)
            lines = sum(len(counts) for counts in report.coverage.values())
        row = {
            "model": name, "without_s": round(statistics.median(times["without"]), 2),
            "with_s": round(statistics.median(times["with"]), 2), "lines_recorded": lines,
        }
        row["added_s"] = round(row["with_s"] - row["without_s"], 2)
        row["added_pct_of_reference_run"] = round(100 * row["added_s"] / row["without_s"], 1)
        print(json.dumps(row), flush=True)
        with RESULTS.open("a") as handle:
            handle.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
