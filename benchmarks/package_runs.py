"""What the Hugging Face benchmarks (hf_models.py, reach.py) do to an installed package: copy it,
run `graphweld fix --entry` on the copy, and count breaks with `graphweld explain`, each in a
subprocess of the given Python with the copy first on PYTHONPATH."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path


def copy_package(package: Path, site: Path) -> Path:
    """A copy of the package directory under `site` (what goes first on PYTHONPATH)."""
    copy = site / package.name
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def explain(python: str, entry: Path, site: Path | None, *, timeout: float | None = None, train: bool = False) -> dict:
    """`graphweld explain --format json` with the eager backend (`--train`: a training step);
    RuntimeError with the error line when the run fails (subprocess.TimeoutExpired past `timeout`)."""
    env = {**os.environ, **({"PYTHONPATH": str(site)} if site else {})}
    done = subprocess.run(
        [python, "-m", "graphweld", "explain", "--format", "json", "--compile-options", "backend=eager",
         *(["--train"] if train else []), str(entry)],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )  # fmt: skip
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        raise RuntimeError(next((line for line in reversed(lines) if line.startswith("error:")), lines[-1] if lines else "")[:300])
    return json.loads(done.stdout)


def fix_entry(python: str, entry: Path, copy: Path, options: list[str]) -> tuple[subprocess.CompletedProcess, float]:
    """`graphweld fix --entry ENTRY OPTIONS COPY` with the copy's site first on PYTHONPATH, and
    how long it took."""
    start = time.perf_counter()
    done = subprocess.run(
        [python, "-m", "graphweld", "fix", "--entry", str(entry), *options, str(copy)],
        env={**os.environ, "PYTHONPATH": str(copy.parent)},
        capture_output=True,
        text=True,
    )
    return done, time.perf_counter() - start
