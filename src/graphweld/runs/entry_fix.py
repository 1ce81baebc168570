"""`graphweld fix --entry`: find break sites by running the entry, rewrite the files under the
given paths that hold them, verify the rewrites together through the import overlay, and keep
only what verifies (bisecting over files when the whole set fails)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from graphweld.discover import discover
from graphweld.engine import Change, fix_text
from graphweld.runs.entry import EntryError, RunReport, run_entry, sites_by_file
from graphweld.rule import Safety
from graphweld.settings import Settings
from graphweld.source import SourceError, SourceFile, read_source
from graphweld.runs.verify import Verdict, failed, judge


@dataclass
class Candidate:
    source: SourceFile
    fixed: str
    applied: list[Change]

    @property
    def unsafe(self) -> bool:
        return any(change.safety is Safety.UNSAFE for change in self.applied)


@dataclass
class EntryFixResult:
    before: RunReport
    after: RunReport | None = None
    kept: dict[str, Candidate] = field(default_factory=dict)
    dropped: dict[str, str] = field(default_factory=dict)  # path -> why
    errors: dict[str, str] = field(default_factory=dict)
    sites_outside: int = 0
    verdict: Verdict | None = None


def fix_with_entry(
    entry: str,
    paths: Sequence[str],
    settings: Settings,
    *,
    device: str = "auto",
    compile_options: dict[str, Any] | None = None,
    timeout: float = 600,
    progress: Callable[[str], None] = lambda message: None,
) -> EntryFixResult:
    run = lambda overlay, modes: run_entry(  # noqa: E731
        entry, modes, device=device, compile_options=compile_options, overlay=overlay, timeout=timeout
    )
    progress("running the entry eagerly (the reference) and compiled")
    before = run({}, ("eager", "compiled"))
    result = EntryFixResult(before=before)

    files, _ = discover(paths, settings.exclude)
    under = {os.path.realpath(path): path for path in files}
    kept: dict[str, Candidate] = {}
    report = before
    # A skipped frame hides the breaks after the first one, so each verified round is run again
    # and the sites it reveals are fixed in the next round.
    for round_number in range(1, MAX_ROUNDS + 1):
        in_round = lambda message, n=round_number: progress(f"round {n}: {message}")  # noqa: E731
        in_round(f"rewriting the files that hold {len(report.sites)} break site(s)")
        candidates, outside = _candidates(report, under, kept, settings, result.errors)
        result.sites_outside = outside
        if not candidates:
            break
        accepted, verdict, after = _search(candidates, kept, before, run, in_round, result.dropped)
        if not accepted:
            break
        kept.update(accepted)
        result.verdict, report = verdict, after
    result.kept = kept
    result.after = report
    return result


MAX_ROUNDS = 4


def _candidates(
    report: RunReport,
    under: dict[str, str],
    kept: dict[str, Candidate],
    settings: Settings,
    errors: dict[str, str],
) -> tuple[dict[str, Candidate], int]:
    """Rewrites of the files (as kept so far) that hold the sites `report` saw."""
    sites, outside = sites_by_file(report, lambda file: file in under)
    candidates: dict[str, Candidate] = {}
    for real, file_sites in sorted(sites.items()):
        path = under[real]
        try:
            previous = kept.get(path)
            source = previous.source if previous is not None else read_source(path)
            text = previous.fixed if previous is not None else source.text
            outcome = fix_text(
                text,
                path,
                settings,
                site_lines=file_sites.lines,
                called_lines=file_sites.called_lines,
                data_dependent_lines=file_sites.data_dependent_lines,
            )
        except SourceError as exc:
            errors[path] = str(exc)
            continue
        if outcome.text != text:
            earlier = previous.applied if previous is not None else []
            candidates[path] = Candidate(source, outcome.text, [*earlier, *outcome.applied])
    return candidates, outside


def _search(
    candidates: dict[str, Candidate],
    base: dict[str, Candidate],
    before: RunReport,
    run: Callable[[dict[str, str], tuple[str, ...]], RunReport],
    progress: Callable[[str], None],
    dropped: dict[str, str],
) -> tuple[dict[str, Candidate], Verdict | None, RunReport]:
    """The largest set of candidates found to verify together with `base` (halving on failure)."""

    def verify(subset: dict[str, Candidate], bisecting: bool = False) -> tuple[Verdict, RunReport | None]:
        changes = sum(len(candidate.applied) for candidate in subset.values())
        step = "bisecting, verifying" if bisecting else "verifying"
        progress(f"{step} {changes} change(s) in {len(subset)} file(s) (compiled run)")
        together = {**base, **subset}
        try:
            after = run({os.path.realpath(p): c.fixed for p, c in together.items()}, ("compiled",))
        except EntryError as exc:
            # The original ran: a rewrite whose run fails is dropped with the reason, not an error.
            return failed(exc), None
        return judge(before, after, check_shown=not any(c.unsafe for c in together.values())), after

    def search(
        subset: dict[str, Candidate], bisecting: bool = False
    ) -> tuple[dict[str, Candidate], Verdict | None, RunReport | None]:
        verdict, after = verify(subset, bisecting)
        if verdict.ok:
            return subset, verdict, after
        if len(subset) == 1:
            (path,) = subset
            dropped[path] = "; ".join(verdict.problems)
            return {}, None, None
        items = sorted(subset.items())
        middle = len(items) // 2
        left, left_verdict, left_after = search(dict(items[:middle]), True)
        right, right_verdict, right_after = search(dict(items[middle:]), True)
        if not left or not right:
            # One half kept nothing: the other half's own verification stands.
            return (left, left_verdict, left_after) if left else (right, right_verdict, right_after)
        merged = {**left, **right}
        if len(merged) < len(subset):
            verdict, after = verify(merged, True)
            if verdict.ok:
                return merged, verdict, after
        # Each half verifies alone but not together (the whole set already failed): keep the larger.
        keep, keep_verdict, keep_after = (
            (left, left_verdict, left_after) if len(left) >= len(right) else (right, right_verdict, right_after)
        )
        for path in set(merged) - set(keep):
            dropped[path] = "verifies alone but not together with the other rewrites"
        return keep, keep_verdict, keep_after

    accepted, verdict, after = search(candidates)
    return accepted, verdict, after if after is not None else before
