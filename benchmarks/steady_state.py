"""The compiled steady state of a program before and after graphweld's fix, as a ratio measured in
one run (issue 68: making code eager to remove breaks can make a program slower). `reach.py
--time` calls `compare` for each row it fixes: the entry as written before the fix against the
entry and package copies as the fix left them, each timed in fresh processes with inductor (the
default backend), alternating sides, the best of the rounds kept.

    python benchmarks/steady_state.py ENTRY [--train]     # one side: prints {"ms": ...}
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

# Calls before timing (compiles, recompiles, warm caches), calls per timing, timings per process.
WARMUP, CALLS, REPEATS = 3, 10, 3
# Fresh processes per side, alternating.
ROUNDS = 2


def compare(python: str, before: Path, after: Path, site: Path | None, train: bool, timeout: float) -> dict[str, Any]:
    """Milliseconds per call of each side (best over ROUNDS processes) and after / before; an
    `error` when a side does not run."""
    best: dict[str, float] = {}
    for _ in range(ROUNDS):
        for side, entry, path in (("before", before, None), ("after", after, site)):
            env = {**os.environ, "OMP_NUM_THREADS": "1"}
            if path is not None:
                env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(path), env.get("PYTHONPATH", "")]))
            command = [python, str(Path(__file__)), str(entry), *(["--train"] if train else [])]
            try:
                done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env, cwd=entry.parent)
            except subprocess.TimeoutExpired:
                return {"error": f"{side}: timed out after {timeout:.0f} s"}
            if done.returncode != 0:
                return {"error": f"{side}: {(done.stderr.strip().splitlines() or ['exit ' + str(done.returncode)])[-1][:200]}"}
            ms = json.loads(done.stdout.strip().splitlines()[-1])["ms"]
            best[side] = min(ms, best.get(side, ms))
    return {"before_ms": round(best["before"], 3), "after_ms": round(best["after"], 3), "ratio": round(best["after"] / best["before"], 3)}


def _load(entry: Path) -> Any:
    spec = importlib.util.spec_from_file_location("entry", entry)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _loss(output: Any) -> Any:
    import torch

    leaves = output if isinstance(output, (tuple, list)) else [output]
    return sum(leaf.float().sum() for leaf in leaves if isinstance(leaf, torch.Tensor) and leaf.is_floating_point())


def time_entry(entry: Path, train: bool) -> float:
    """Milliseconds per call (or training step) of the entry's program, compiled as it compiles
    itself: the best of REPEATS timings of CALLS calls, after WARMUP calls."""
    import torch
    from reach_programs import _call  # a program's call as reach runs it (imports torch)

    torch.set_num_threads(1)
    module = _load(entry)
    model = module.my_model_function()
    if isinstance(model, torch.nn.Module):
        model.train(train)
    # Inputs made for every call before any is timed: a program may change its input (torchani's
    # forces set `requires_grad` on the coordinates), so a call must not get one a call before it used.
    fresh = iter([module.GetInput() for _ in range(WARMUP + REPEATS * CALLS)])

    def step() -> None:
        inputs = next(fresh)
        if train:
            loss = _loss(_call(model, inputs))
            if getattr(loss, "requires_grad", False):
                loss.backward()
        else:
            with torch.no_grad():
                _call(model, inputs)

    for _ in range(WARMUP):
        step()
    timings = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        for _ in range(CALLS):
            step()
        timings.append((time.perf_counter() - start) / CALLS * 1000)
    return min(timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("entry", type=Path)
    parser.add_argument("--train", action="store_true")
    args = parser.parse_args()
    sys.path[:0] = [str(args.entry.resolve().parent), str(Path(__file__).parent)]
    print(json.dumps({"ms": time_entry(args.entry.resolve(), args.train)}))


if __name__ == "__main__":
    main()
