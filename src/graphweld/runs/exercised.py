"""What a verification exercised of a rewrite: which of the statements a change replaced the
eager reference run executed, and for a branch which sides it took, for a loop how many
iterations, for a guard whether it fired (from the run's line counts, `RunReport.coverage`).

A rewrite verified on inputs that never reach it has proved nothing about it; one verified on one
side of a branch has proved nothing about the other. The verdict says which.
"""

from __future__ import annotations

import ast
import functools
import os
from dataclasses import dataclass

from graphweld.edits import LineMap
from graphweld.runs.entry import RunReport, stack_lines_by_file


@dataclass(frozen=True)
class Exercise:
    """`ran`: whether the statement the change replaced ran at all; `said`: for a person."""

    ran: bool
    said: str


NOT_RECORDED = Exercise(True, "what it exercised is not recorded (a command has no eager run)")


@functools.lru_cache(maxsize=64)
def _statements_by_line(text: str) -> dict[int, ast.stmt]:
    """Each line's outermost statement starting there."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    found: dict[int, ast.stmt] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and node.lineno not in found:
            found[node.lineno] = node
    return found


def _first_executed(body: list[ast.stmt]) -> ast.stmt | None:
    """The first statement of a body that a run reports a line for: a docstring is no statement
    the interpreter executes, so a function's call is seen at the statement after it."""
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
        body = body[1:]
    return body[0] if body else None


def _times(count: int) -> str:
    return "once" if count == 1 else f"{count} times"


def exercised(line: int, text: str, hits: dict[int, int], traced: frozenset[int] = frozenset()) -> Exercise:
    """What the run whose line counts are `hits` exercised of the statement at `line` of `text`
    (the file as that run ran it). `traced`: lines where the compiled run's Dynamo log places a
    break or a frame on a break's stack; code that runs only while compiling (`if
    is_tracing():`) is never run by the eager reference, and Dynamo's log shows it ran there."""
    statement = _statements_by_line(text).get(line)
    called = _first_executed(statement.body) if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
    if called is not None:
        # A change at a definition (a decorator): its `def` line runs once, at import; its body
        # runs on each call.
        line = called.lineno
        statement = _statements_by_line(text).get(line)
    ran = hits.get(line, 0)
    if ran == 0:
        end = getattr(statement, "end_lineno", None) or line
        if any(line <= traced_line <= end for traced_line in traced):
            return Exercise(True, "run only under compilation: never in the eager run, and Dynamo broke the graph in it")
        return Exercise(False, "not exercised: the entry never reached this code")
    if isinstance(statement, ast.If):
        true_side = hits.get(statement.body[0].lineno, 0)
        false_side = hits.get(statement.orelse[0].lineno, 0) if statement.orelse else max(0, ran - true_side)
        if isinstance(statement.body[-1], ast.Raise) and not statement.orelse:
            return Exercise(True, f"the guard was checked {_times(ran)} and never fired" if not true_side
                            else f"the guard fired {_times(true_side)} of {ran}")
        if true_side and false_side:
            return Exercise(True, f"verified on both sides (true {_times(true_side)}, false {_times(false_side)})")
        side, other = ("true", "false") if true_side else ("false", "true")
        return Exercise(True, f"verified on the {side} side only: the {other} side never ran")
    if isinstance(statement, ast.Assert):
        return Exercise(True, f"the assertion was checked {_times(ran)} and always held")
    if isinstance(statement, (ast.For, ast.While)):
        iterations = hits.get(statement.body[0].lineno, 0)
        return Exercise(True, f"the loop ran {iterations} iteration(s) in all")
    return Exercise(True, f"ran {_times(ran)}")


def exercised_in(path: str, line: int, text: str, original: str, reference: RunReport) -> Exercise:
    """What `reference` (a run of `path` as `original`) exercised of the statement at `line` of
    `text`, a version of the file that earlier changes may have rewritten."""
    if text != original:
        line = LineMap.between(original, text).to_old(line)
    real = os.path.realpath(path)

    def here(file: str) -> bool:
        return os.path.realpath(file) == real

    # Dynamo traced the lines it broke at and the calls on the way to them.
    traced = frozenset(site.line for site in reference.breaks if here(site.file)).union(
        *stack_lines_by_file(reference.breaks, here).values()
    )
    return exercised(line, original, reference.coverage.get(real, {}), traced)
