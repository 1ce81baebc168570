"""isolate-io's value deferral on real code: every function treated as where compilation starts.

Usage: python benchmarks/defer_stress.py [PATH ...]   (default: the installed torch and transformers)

`--assume-compiled` alone never defers (no function is known to be where compilation starts), so
the sweep does not reach the deferral path. This treats every compiled function as a frame root
and runs isolate-io over each file in process: no internal error, every rewritten file compiles,
and a second run changes nothing. Prints the counts; exits 1 on any problem.
"""

from __future__ import annotations

import importlib.util
import sys
import time
import traceback
from pathlib import Path

from graphweld.analysis import regions
from graphweld.engine import fix_text
from graphweld.settings import Settings
from graphweld.source import SourceError


def corpus_roots(arguments: list[str]) -> list[Path]:
    if arguments:
        return [Path(argument) for argument in arguments]
    found = []
    for name in ("torch", "transformers"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            found.append(Path(list(spec.submodule_search_locations)[0]))
    return found


def stress(root: Path) -> int:
    settings = Settings(assume_compiled=True, select=frozenset({"isolate-io"}))
    files = sorted(root.rglob("*.py"))
    changed = deferrals = reports = problems = 0
    start = time.perf_counter()
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        try:
            outcome = fix_text(text, str(path), settings)
        except SourceError:
            continue  # bad input is reported by the CLI, not a crash
        except Exception:
            problems += 1
            print(f"internal error: {path}\n{traceback.format_exc(limit=3)}")
            continue
        reports += len(outcome.reports)
        if outcome.text == text:
            continue
        changed += 1
        deferrals += sum(1 for change in outcome.applied if "defer it" in change.message)
        try:
            compile(outcome.text, str(path), "exec")
        except SyntaxError as exc:
            problems += 1
            print(f"does not compile: {path}: {exc}")
            continue
        if fix_text(outcome.text, str(path), settings).text != outcome.text:
            problems += 1
            print(f"a second run changes it: {path}")
    seconds = time.perf_counter() - start
    print(f"{root}: {len(files)} files, {changed} rewritten, {deferrals} deferrals, {reports} reported, {problems} problems, {seconds:.0f} s")
    return problems


def main() -> None:
    regions.CompiledRegions.is_frame_root = lambda self, node: self.is_compiled(node)  # type: ignore[method-assign]
    problems = sum(stress(root) for root in corpus_roots(sys.argv[1:]))
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
