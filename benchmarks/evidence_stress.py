"""The rules that act on a run's evidence, given every line of real code as evidence.

Usage: python benchmarks/evidence_stress.py [--select IDS] PATH ...

A run tells the rules where Dynamo stopped (`site_lines`) and where it stopped on data-dependent
branching (`data_dependent_lines`); rules that trust that evidence (guard-to-check, the branch
rules, equality-shortcut) take forms the code alone does not show. This gives every line of each
Python file under PATH as such a break, with `--unsafe-fixes --assume-compiled`, in process: no
rule may raise, and every rewritten file must parse. Prints the counts; exits 1 on any problem.
"""

from __future__ import annotations

import argparse
import ast
import sys
import time
from pathlib import Path

from graphweld.engine import fix_text
from graphweld.run_evidence import RunEvidence
from graphweld.settings import Settings
from graphweld.source import SourceError

DEFAULT_RULES = "guard-to-check,equality-shortcut,branch-to-where,branch-to-cond"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", type=Path, help="files or folders of Python code")
    parser.add_argument("--select", default=DEFAULT_RULES, help=f"comma-separated rule ids [default: {DEFAULT_RULES}]")
    args = parser.parse_args()
    settings = Settings(select=frozenset(args.select.split(",")), unsafe_fixes=True, assume_compiled=True)
    files = sorted(f for path in args.paths for f in ([path] if path.is_file() else path.rglob("*.py")))
    changed = problems = 0
    start = time.perf_counter()
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        lines = frozenset(range(1, text.count("\n") + 2))
        try:
            fixed = fix_text(text, str(path), settings, RunEvidence(site_lines=lines, data_dependent_lines=lines)).text
        except SourceError:
            continue  # the file itself does not parse
        except Exception as exc:  # noqa: BLE001 - any internal error is what this looks for
            problems += 1
            print(f"{path}: {type(exc).__name__}: {exc}", flush=True)
            continue
        if fixed == text:
            continue
        changed += 1
        try:
            ast.parse(fixed)
        except SyntaxError as exc:
            problems += 1
            print(f"{path}: the rewrite does not parse: {exc}", flush=True)
    print(f"{len(files)} files, {changed} rewritten, {problems} problems, {time.perf_counter() - start:.0f} s")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
