"""Deciding whether a rewrite verified.

Required: the compiled-after outputs of every call equal the eager-before outputs of the same
call (a leaf the compiled original already gets wrong beyond the dtype's tolerance within twice
its difference: compare.py), and (for safe fixes) what the program shows is the same: printed
output, log records and warnings, each in order. Then the compile picture must get better, judged in
this order: skipped frames, whether `fullgraph=True` compiles, graph breaks, recompiles, graphs,
and for a training run the backward graphs. The first of these that changed decides: a rewrite
that removes a skipped frame is progress even if it shows breaks the skipped frame hid, and one
that removes breaks is progress even when fewer ops are visible to Dynamo (a `nonstrict_trace`
call or a custom op is one node in the graph). A rewrite that makes the program recompile more
is worse, even when it removed breaks or graphs: fewer breaks do not outweigh a recompile (a float
guard that fails at every call costs a compile each time); only fewer skipped frames, a compiled
run that no longer fails or a `fullgraph=True` that now compiles do. Fewer recompiles alone is not
progress (it is passed over, and the graphs decide): a rewrite is written for fewer skipped
frames, breaks or graphs. Ops are reported, never judged.

`fullgraph=True` counts as the compile the user runs sees it: where it compiles only because
Dynamo turned a capture setting on for it (`RunReport.fullgraph_implicit`) while the default
compile still breaks, it is no better than failing. And a program whose own `fullgraph=True`
compile fails gains only when that compile succeeds: breaks and graphs measured with it relaxed
do not count while it still fails as written.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterable

if TYPE_CHECKING:
    from graphweld.engine import Change

from graphweld.runs.compare import LeafComparison, compare_outputs, noise_floor
from graphweld.runs.entry import EntryError, RunFailed, RunReport


@dataclass(frozen=True)
class Measure:
    """One step of the order: its name and how to read it from a run (lower is better; None when
    the run did not check it)."""

    name: str
    read: Callable[[RunReport], int | None]


ORDER = (
    # A compiled run that raises is worse than any that runs: nothing else of it was measured.
    Measure("compiled run", lambda report: int(report.compile_fails)),
    Measure("skipped frames", lambda report: report.skipped_frames),
    Measure("fullgraph=True", lambda report: None if report.fullgraph is None else int(not report.fullgraph_compiles)),
    Measure("graph breaks", lambda report: len(report.breaks)),
    Measure("recompiles", lambda report: len(report.recompiles)),
    Measure("graphs", lambda report: report.graphs),
    Measure("backward graphs", lambda report: report.backward_graphs),
)
OUTPUTS_DIFFER = "outputs differ from the eager original"
_RUN_STATE = {True: "fails", False: "runs"}


def _describe(measure: Measure, before: RunReport, after: RunReport) -> str:
    if measure.name == "compiled run":
        return f"compiled run {_RUN_STATE[before.compile_fails]} -> {_RUN_STATE[after.compile_fails]}"
    if measure.name == "fullgraph=True":
        return f"fullgraph=True {before.fullgraph_state} -> {after.fullgraph_state}"
    return f"{measure.name} {measure.read(before)} -> {measure.read(after)}"


@dataclass
class Verdict:
    comparisons: list[LeafComparison]
    problems: list[str] = field(default_factory=list)
    # The measure that decided, as "graph breaks 2 -> 0", or "" when the picture is unchanged.
    progress: str = ""
    # Why a picture that changed for the better is not counted as progress ("" when it is).
    not_counted: str = ""
    # Whether printed output, log records and warnings were compared (not for unsafe changes).
    shown_checked: bool = False
    # Whether the outputs were compared from a compiled run drawing `np.random` from NumPy's own
    # stream (the compiled original differs from eager only by that: targets.py).
    numpy_stream: bool = False

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def better(self) -> bool:
        """Verified, and the compile picture got strictly better."""
        return self.ok and bool(self.progress)


# Measures that can only make a picture worse: fewer recompiles with the breaks and graphs as
# they were is not a gain a rewrite is written for (the order: fewer skipped frames,
# breaks or graphs), and how often a program recompiles can follow its data (a guard on a float
# read with `.item()`).
_GUARDS_ONLY = frozenset({"recompiles"})
RECOMPILES = next(measure for measure in ORDER if measure.name == "recompiles")
# Gains that more recompiles outweigh: a rewrite is not kept on the strength of fewer breaks or
# graphs when every later call compiles again.
_OUTWEIGHED_BY_RECOMPILES = frozenset({"graph breaks", "graphs", "backward graphs"})


def compare_pictures(before: RunReport, after: RunReport) -> tuple[int, Measure | None]:
    """-1 when `after` compiles better, 0 the same, 1 worse; with the measure that decided."""
    for measure in ORDER:
        left, right = measure.read(before), measure.read(after)
        if left is not None and right is not None and left != right:
            if right < left and measure.name in _GUARDS_ONLY:
                continue
            if right < left and measure.name in _OUTWEIGHED_BY_RECOMPILES and RECOMPILES.read(after) > RECOMPILES.read(before):  # type: ignore[operator]
                return 1, RECOMPILES
            return (-1 if right < left else 1), measure
    return 0, None


def _relaxed_only(previous: RunReport, after: RunReport) -> bool:
    """A gain measured only with the program's own `fullgraph=True` relaxed: it fails as written
    before and after, so the compile the user runs fails as it did."""
    return previous.fullgraph_relaxed and after.fullgraph_relaxed


def failed(error: EntryError) -> Verdict:
    """The verdict on a rewrite whose run did not complete: the program's exception (its first
    line), or why the run stopped (a time-out, a crash)."""
    reason = error.reason if isinstance(error, RunFailed) else str(error)
    return Verdict([], [f"the compiled run fails with {reason}"])


def compare_calls(before: RunReport, after: RunReport, *, compile_noise: bool = False) -> list[LeafComparison]:
    """Each call's compiled-after outputs against the same call's eager-before outputs (the first
    call's leaves are `output...`, a later call's `call N: output...`). With `compile_noise`, a
    leaf where the compiled original (`before`'s compiled run) already differs from eager is held
    to that difference, twice over (compare.py says why)."""
    if "eager" not in before.outputs and "eager_calls" not in before.outputs:
        return []  # a command: no eager twin, its own oracle judges it
    reference = before.outputs.get("eager_calls", [before.outputs["eager"]])
    compiled = after.outputs.get("compiled_calls", [after.outputs["compiled"]])
    original = before.outputs.get("compiled_calls", [before.outputs["compiled"]] if "compiled" in before.outputs else [])
    comparisons = []
    for index, (expected, actual) in enumerate(zip(reference, compiled)):
        noise = noise_floor(expected, original[index]) if compile_noise and index < len(original) else None
        for leaf in compare_outputs(expected, actual, noise):
            comparisons.append(leaf if index == 0 else dataclasses.replace(leaf, path=f"call {index + 1}: {leaf.path}"))
    if len(reference) != len(compiled):
        comparisons.append(LeafComparison("calls", False, f"{len(reference)} eager calls vs {len(compiled)} compiled"))
    return comparisons


def judge(
    before: RunReport, after: RunReport, *, check_shown: bool = True, previous: RunReport | None = None,
    numbers_vary: bool = False,
) -> Verdict:
    """`before` holds the eager reference (and its compiled picture); `after` a compiled run. The
    picture is judged against `previous` (default `before`): the run the rewrite started from.
    With `numbers_vary` (a rewrite whose compiled run prints timings as 0), what is shown is
    compared with the numbers in it aside."""
    previous = previous or before
    if after.compile_fails:
        # No outputs to compare: the compiled program did not run to the end.
        where = f" (at {after.compile_failure.file}:{after.compile_failure.line})" if after.compile_failure else ""
        return Verdict([], [f"the compiled run fails with {after.compile_error}{where}"])
    comparisons = compare_calls(before, after, compile_noise=True)
    verdict = Verdict(comparisons)
    differing = [leaf for leaf in comparisons if not leaf.equal]
    if differing:
        first = differing[0]
        verdict.problems.append(f"{OUTPUTS_DIFFER} at {first.path}: {first.detail}")
    verdict.shown_checked = check_shown
    if check_shown:
        # What the user sees must not change: printed text, log records, warnings, in order (of
        # the eager original; a command, which has none, of its own original run). Where the
        # compiled run the rewrite started from already showed something else (torch warning
        # about a tensor Dynamo made of a NumPy array), showing what it showed is no change either.
        eager = before.eager_stdout is not None
        original = "the eager original" if eager else "the original command"
        for problem, reference, compiled, started_from in (
            ("printed output differs", before.eager_stdout if eager else before.compiled_stdout, after.compiled_stdout, previous.compiled_stdout),
            (
                "log records differ", before.eager_log_records if eager else before.compiled_log_records,
                after.compiled_log_records, previous.compiled_log_records,
            ),
            ("warnings differ", before.eager_warnings if eager else before.compiled_warnings, after.compiled_warnings, previous.compiled_warnings),
        ):
            if numbers_vary:
                compiled, reference, started_from = _numbers_aside(compiled), _numbers_aside(reference), _numbers_aside(started_from)
            if compiled != reference and (started_from is None or compiled != started_from):
                verdict.problems.append(f"{problem} from {original}" + (" (numbers aside)" if numbers_vary else ""))
    if previous.compiled_by != after.compiled_by:
        verdict.problems.append(f"compiled by {previous.compiler} before, by {after.compiler} after")
        return verdict
    direction, measure = compare_pictures(previous, after)
    if measure is not None and direction > 0:
        verdict.problems.append(_worse(measure, previous, after))
    elif measure is not None and _relaxed_only(previous, after):
        verdict.not_counted = (
            f"{_describe(measure, previous, after)} only with the program's own fullgraph=True relaxed; "
            "as written it still fails to compile"
        )
    elif measure is not None:
        verdict.progress = _describe(measure, previous, after)
    return verdict


def _worse(measure: Measure, previous: RunReport, after: RunReport) -> str:
    if measure.name == "fullgraph=True":
        return "fullgraph=True compiled before and fails after"
    said = f"{measure.name} went up: {measure.read(previous)} -> {measure.read(after)}"
    if measure is RECOMPILES:
        gains = [
            _describe(gain, previous, after) for gain in ORDER
            if gain.name in _OUTWEIGHED_BY_RECOMPILES and (gain.read(after) or 0) < (gain.read(previous) or 0)
        ]
        if gains:
            said += f" ({', '.join(gains)} do not outweigh a recompile at later calls)"
    return said


_NUMBER = re.compile(r"[-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?")


def _numbers_aside(shown):  # type: ignore[no-untyped-def]
    """Printed text, or log records and warnings (lists of strings), with every number as `#`."""
    if shown is None:
        return None
    if isinstance(shown, str):
        return _NUMBER.sub("#", shown)
    return [_numbers_aside(item) for item in shown]


def verdict_line(before: RunReport, after: RunReport, verdict: Verdict) -> str:
    """One line for a person: the verdict, what decided it, and the whole picture."""
    # A measure neither run took (backward graphs outside --train) says nothing.
    measured = [measure for measure in ORDER if measure.read(before) is not None or measure.read(after) is not None]
    picture = ", ".join(_describe(measure, before, after) for measure in measured)
    if verdict.ok:
        judged = f"better ({verdict.progress})" if verdict.progress else f"not counted ({verdict.not_counted})" if verdict.not_counted else "compiles the same"
        # A command has no outputs to compare: only what it prints (and its tests) speak for it.
        outputs = "outputs equal (np.random drawn from NumPy's stream)" if verdict.numpy_stream else "outputs equal"
        checked = [text for text, done in ((outputs, verdict.comparisons), ("printed output the same", verdict.shown_checked)) if done]
        return f"verified: {', '.join(checked or ['it ran'])}, {judged}; {picture}"
    return f"NOT verified: {'; '.join(verdict.problems)}; {picture}"


def numbers_vary(changes: Iterable[Change]) -> bool:
    """Whether a rewrite prints other numbers compiled than eager (timings read as 0)."""
    from graphweld.codemods import RULES_BY_ID

    return any(getattr(RULES_BY_ID.get(change.rule), "varies_printed_numbers", False) for change in changes)
