"""Sweep every rule over a real corpus and check what a migration must guarantee.

Usage: python benchmarks/sweep.py [--corpus torch|transformers|PATH ...] [--sample N] [--jobs N]
       python benchmarks/sweep.py --cost [--corpus torch/nn ...] [--repeat 3]

Each corpus (default: the installed torch and transformers packages) is copied to a temporary
directory; then, with every rule, `--assume-compiled --unsafe-fixes`:
1. `graphweld fix --diff --format json`: no internal error on any file (bad input, such as a file
   with a syntax error, is reported and counted separately), and nothing is written;
2. `graphweld fix` writes the fixes;
3. every rewritten file parses and compiles, every other file is byte-identical to the original;
4. `graphweld fix --check` finds nothing left to do (a second run changes nothing).
Prints the counts per rule and every failure; exits 1 when any check fails. `--sample N` keeps
every N-th file (tests/test_sweep.py runs a sample in CI).

`--cost` prices each rule instead: the scan (`fix --check`, as one process) runs in this process
over each corpus, by default and with `--assume-compiled`, with every rule's handlers (its
`__init__`, `visit_*` and `leave_*`) timed, and prints per rule the seconds spent in it and its
share of the scan beside the scan's whole time and its parsing. What a rule computes for a module
and caches (the module's references, its tensor values) is charged to the first rule that asks.
A rule that lands shows its price here; the whole scan's time is measured side by side against an
older commit by timing `graphweld fix --check` (benchmarks/RESULTS.md says how).
"""

from __future__ import annotations

import argparse
import ast
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

OPTIONS = ["--assume-compiled", "--unsafe-fixes", "--select", "ALL"]


@dataclass
class SweepResult:
    corpus: str
    files: int = 0
    changed: int = 0
    per_rule: Counter[str] = field(default_factory=Counter)
    reports: int = 0
    bad_input: dict[str, str] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.failures


def locate(name: str) -> Path:
    if name in ("torch", "transformers"):
        import importlib.util

        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            raise SystemExit(f"{name} is not installed")
        return Path(next(iter(spec.submodule_search_locations)))
    return Path(name)


def copy_corpus(source: Path, target: Path, sample: int) -> list[Path]:
    """The corpus's Python files (every `sample`-th one), copied under `target`."""
    files = sorted(path for path in source.rglob("*.py") if path.is_file() and "__pycache__" not in path.parts)
    copied = []
    for path in files[::sample]:
        destination = target / path.relative_to(source)
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, destination)
        copied.append(destination)
    return copied


def graphweld(*args: str, jobs: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "graphweld", "fix", "--jobs", str(jobs), *OPTIONS, *args],
        capture_output=True, text=True, check=False,
    )


def sweep(name: str, sample: int = 1, jobs: int = os.cpu_count() or 1) -> SweepResult:
    result = SweepResult(corpus=name)
    with tempfile.TemporaryDirectory(prefix="graphweld-sweep-") as scratch:
        root = Path(scratch) / "corpus"
        files = copy_corpus(locate(name), root, sample)
        result.files = len(files)
        originals = {path: path.read_bytes() for path in files}

        start = time.perf_counter()
        diff = graphweld("--diff", "--format", "json", str(root), jobs=jobs)
        result.seconds["diff"] = time.perf_counter() - start
        try:
            data = json.loads(diff.stdout)
        except json.JSONDecodeError:
            result.failures.append(f"--diff did not print JSON (exit {diff.returncode}): {diff.stderr.strip()[-500:]}")
            return result
        for error in data["errors"]:
            if "internal error" in error["message"]:
                result.failures.append(f"{error['path']}: {error['message']}")
            else:
                result.bad_input[error["path"]] = error["message"]
        would_change = {change["path"] for change in data["changes"]}
        result.per_rule.update(change["rule"] for change in data["changes"])
        result.reports = len(data["reports"])
        for path in files:
            if path.read_bytes() != originals[path]:
                result.failures.append(f"{path}: --diff wrote the file")

        start = time.perf_counter()
        written = graphweld(str(root), jobs=jobs)
        result.seconds["fix"] = time.perf_counter() - start
        if written.returncode not in (0, 2) or "Traceback" in written.stderr:
            result.failures.append(f"fix exited {written.returncode}: {written.stderr.strip()[-500:]}")
        for path in files:
            data_now = path.read_bytes()
            if str(path) in would_change:
                result.changed += 1
                text = data_now.decode("utf-8", errors="surrogateescape")
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        ast.parse(text)
                        compile(text, str(path), "exec", dont_inherit=True)
                except (SyntaxError, ValueError) as exc:
                    result.failures.append(f"{path}: the rewritten file does not compile: {exc}")
                if data_now == originals[path]:
                    result.failures.append(f"{path}: --diff showed a change that fix did not write")
            elif data_now != originals[path]:
                result.failures.append(f"{path}: changed although --diff showed no change")

        start = time.perf_counter()
        again = graphweld("--check", "--format", "json", str(root), jobs=jobs)
        result.seconds["second run"] = time.perf_counter() - start
        try:
            second = json.loads(again.stdout)
        except json.JSONDecodeError:
            result.failures.append(f"--check did not print JSON: {again.stderr.strip()[-500:]}")
            return result
        for change in second["changes"]:
            result.failures.append(f"{change['path']}:{change['line']}: a second run still changes this ({change['rule']})")
    return result


def rule_costs(name: str, assume_compiled: bool, repeat: int = 3) -> tuple[float, float, dict[str, float]]:
    """The scan of corpus `name` in this process (one job), the fastest of `repeat` runs: its whole
    seconds, the seconds spent parsing and the seconds spent in each rule's handlers."""
    from graphweld import engine
    from graphweld.codemods import RULES
    from graphweld.settings import Settings

    spent: dict[str, float] = {}
    active = [False]  # a handler a rule calls from its own handler is its own time already

    def timed(function, key):  # type: ignore[no-untyped-def]
        @functools.wraps(function)
        def wrapper(*args, **kwargs):  # type: ignore[no-untyped-def]
            if active[0]:
                return function(*args, **kwargs)
            active[0] = True
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                spent[key] = spent.get(key, 0.0) + time.perf_counter() - started
                active[0] = False
        return wrapper

    patched: list[tuple[object, str, object]] = []
    for rule in RULES:
        for attribute, value in list(vars(rule).items()):
            if callable(value) and (attribute == "__init__" or attribute.startswith(("visit_", "leave_"))):
                patched.append((rule, attribute, value))
                setattr(rule, attribute, timed(value, rule.id))
    patched.append((engine, "parse", engine.parse))
    engine.parse = timed(engine.parse, "(parsing)")  # type: ignore[assignment]
    settings = Settings(assume_compiled=assume_compiled)
    best: tuple[float, dict[str, float]] | None = None
    try:
        with tempfile.TemporaryDirectory(prefix="graphweld-cost-") as scratch:
            root = Path(scratch) / "corpus"
            copy_corpus(locate(name), root, 1)
            for _ in range(repeat):
                spent.clear()
                started = time.perf_counter()
                for _result in engine.run([str(root)], settings, jobs=1):
                    pass
                whole = time.perf_counter() - started
                if best is None or whole < best[0]:
                    best = (whole, dict(spent))
    finally:
        for owner, attribute, value in reversed(patched):
            setattr(owner, attribute, value)
    assert best is not None
    whole, costs = best
    return whole, costs.pop("(parsing)", 0.0), costs


def print_costs(name: str, repeat: int) -> None:
    for assume_compiled in (False, True):
        whole, parsing, costs = rule_costs(name, assume_compiled, repeat)
        mode = "--assume-compiled" if assume_compiled else "default"
        print(f"\n### {name}, {mode}: {whole:.2f} s in all (one process, fastest of {repeat}), parsing {parsing:.2f} s")
        print("| rule | seconds | share |\n| --- | --- | --- |")
        for rule, seconds in sorted(costs.items(), key=lambda item: -item[1]):
            print(f"| {rule} | {seconds:.3f} | {seconds / whole:.0%} |")
        rest = whole - parsing - sum(costs.values())
        print(f"| (the engine: reading, the walk, regions, edits) | {rest:.3f} | {rest / whole:.0%} |")


def print_result(result: SweepResult) -> None:
    print(f"\n### {result.corpus}: {result.files} files")
    print(f"- rewritten: {result.changed} files; changes per rule: " + ", ".join(f"{rule} {count}" for rule, count in sorted(result.per_rule.items())))
    print(f"- sites reported, not rewritten: {result.reports}")
    print(f"- bad input (reported, not a crash): {len(result.bad_input)}")
    for path, message in sorted(result.bad_input.items()):
        print(f"  - {path.split('/corpus/', 1)[-1]}: {message}")
    print("- time: " + ", ".join(f"{step} {seconds:.0f} s" for step, seconds in result.seconds.items()))
    print(f"- failures: {len(result.failures)}")
    for failure in result.failures:
        print(f"  - {failure}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", action="append", help="torch, transformers, or a directory (repeatable)")
    parser.add_argument("--sample", type=int, default=1, help="keep every N-th file")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--cost", action="store_true", help="price each rule: seconds of the scan spent in it")
    parser.add_argument("--repeat", type=int, default=3, help="--cost: runs per mode, the fastest reported")
    args = parser.parse_args()
    if args.cost:
        for name in args.corpus or ["torch", "transformers"]:
            print_costs(name, args.repeat)
        return 0
    results = [sweep(name, args.sample, args.jobs) for name in args.corpus or ["torch", "transformers"]]
    for result in results:
        print_result(result)
    return 0 if all(result.ok for result in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
