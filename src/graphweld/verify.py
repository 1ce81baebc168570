"""Deciding whether a rewrite verified: outputs equal to the eager original, printed output
unchanged (for safe fixes), and the graph picture not worse."""

from __future__ import annotations

from dataclasses import dataclass, field

from graphweld.compare import LeafComparison, compare_outputs
from graphweld.entry import RunReport


@dataclass
class Verdict:
    comparisons: list[LeafComparison]
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def judge(before: RunReport, after: RunReport, *, check_stdout: bool = True) -> Verdict:
    """`before` holds the eager reference (and its compiled picture); `after` a compiled run."""
    reference = before.outputs["eager"]
    comparisons = compare_outputs(reference, after.outputs["compiled"])
    verdict = Verdict(comparisons)
    differing = [leaf for leaf in comparisons if not leaf.equal]
    if differing:
        first = differing[0]
        verdict.problems.append(f"outputs differ from the eager original at {first.path}: {first.detail}")
    if check_stdout and after.compiled_stdout != before.eager_stdout:
        verdict.problems.append("printed output differs from the eager original")
    if after.skipped_frames > before.skipped_frames:
        verdict.problems.append(f"skipped frames went up: {before.skipped_frames} -> {after.skipped_frames}")
    if after.ops < before.ops:
        verdict.problems.append(f"fewer ops captured in graphs: {before.ops} -> {after.ops}")
    if before.fullgraph and after.fullgraph is False:
        verdict.problems.append("fullgraph=True compiled before and fails after")
    return verdict
