"""Start-up of the `graphweld` command against `python -c pass` (issue 33).

    .venv/bin/python benchmarks/startup.py [--runs 20]

Times, as the median wall clock of `--runs` runs each: `python -c pass` (the interpreter alone),
`graphweld --help`, `graphweld fix --check` on one clean file (a helper module nothing compiles:
the prefilter rules it out before libcst or any rule is imported), and on one file that compiles
a model with no site (it is parsed: libcst and the rules are imported). Prints one Markdown table.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CLEAN_HELPER = "import torch\n\n\ndef scale(x):\n    if x.dim() > 1:\n        print(x.shape)\n    return x * 2\n"
CLEAN_COMPILED = (
    "import torch\n\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        return torch.relu(x) * 2\n\n\n"
    "model = torch.compile(Net())\n"
)


def median_seconds(argv: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    graphweld = str(Path(sys.executable).with_name("graphweld"))
    with tempfile.TemporaryDirectory() as folder:
        helper, compiled = Path(folder) / "util.py", Path(folder) / "model.py"
        helper.write_text(CLEAN_HELPER)
        compiled.write_text(CLEAN_COMPILED)
        cases = [
            ("python -c pass", [sys.executable, "-c", "pass"]),
            ("graphweld --help", [graphweld, "--help"]),
            ("graphweld fix --check util.py (clean helper)", [graphweld, "fix", "--check", str(helper)]),
            ("graphweld fix --check model.py (compiled, no site: parsed)", [graphweld, "fix", "--check", str(compiled)]),
        ]
        print(f"{os.cpu_count()} cores, Python {sys.version.split()[0]}, median of {args.runs} runs\n")
        print("| command | seconds |\n| --- | ---: |")
        for name, argv in cases:
            print(f"| `{name}` | {median_seconds(argv, args.runs):.3f} |")


if __name__ == "__main__":
    main()
