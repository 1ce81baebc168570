"""`fix_text`: the allowed changes applied round after round, non-overlapping ones together, until
no rule proposes one, each change located in the text as it was given."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Sequence

import libcst as cst

from graphweld.analysis.regions import CompiledRegions
from graphweld.changes import Change, ChangeKey, ChangeOrReport, Report
from graphweld.dispatch import non_overlapping, selected_rules
from graphweld.edits import TextEdit, apply_edits, split_lines
from graphweld.parsing import collector_paused, parse
from graphweld.proposing import mentions_trigger, propose
from graphweld.reparse import spliced_module
from graphweld.rule import Safety
from graphweld.run_evidence import NO_EVIDENCE, RunEvidence
from graphweld.settings import Settings
from graphweld.source import SourceError


# A rule set that keeps proposing after this many rounds has a bug; the file is left alone.
MAX_ROUNDS = 10


@dataclass
class FixOutcome:
    text: str
    applied: list[Change]  # located in the original text; their edits apply to `proposed_on`
    unsafe_available: list[Change]  # located in the original text; their edits apply to `text`
    reports: list[Report]  # located in the original text
    # For each applied change, the text of the round that proposed it.
    proposed_on: list[str] = field(default_factory=list)
    # Whether the original text had a compiled region.
    any_compiled: bool = True


@collector_paused()
def fix_text(
    text: str,
    path: str,
    settings: Settings,
    evidence: RunEvidence = NO_EVIDENCE,
    *,
    allowed: frozenset[ChangeKey] | None = None,
    excluded: frozenset[ChangeKey] = frozenset(),
) -> FixOutcome:
    """Apply every allowed change, repeating until no rule proposes one.

    `evidence`: what a run saw in the file (see `propose`); its lines are resolved to functions in
    the first round, which later rounds keep although the lines move (`RunEvidence.in_later_round`).
    `allowed`: when given, only changes with these keys are applied; `excluded`: changes with
    these keys are never proposed (a rule with several forms proposes its next one). Keys are
    located in `text`, whichever round proposes the change.
    Raises SourceError when the text does not parse. The result always parses: each round's tree
    is the parse of its text (after the first round, the top-level statements that edits touched
    are parsed again and the others kept).
    """
    rules = selected_rules(settings)
    applied: list[Change] = []
    any_compiled = True
    round_edits: list[list[TextEdit]] = []
    proposed_on: list[str] = []
    current = text
    module: cst.Module | None = None
    round_evidence = evidence
    called_functions: frozenset[str] = frozenset()
    site_functions: frozenset[str] = frozenset()
    passed_through = evidence.passed_through
    if passed_through and not any(rule.fixes_from_callers and mentions_trigger(text, rule, settings) for rule in rules):
        return FixOutcome(text, [], [], [], [], False)  # nothing to do in a file the run passed through

    def located(change: ChangeOrReport) -> ChangeOrReport:
        # A later round's change is located in the text earlier rounds made: locate it in the
        # original text (the `-` side of the diff, and the cells of a notebook as it was).
        for earlier in reversed(round_edits):
            change = _located_before(change, earlier)
        return change

    def ruled_out(key: ChangeKey) -> bool:
        original = located_key(key)
        return original in excluded or (allowed is not None and original not in allowed)

    def located_key(key: ChangeKey) -> ChangeKey:
        line = key.line
        for earlier in reversed(round_edits):
            line = _line_before(line, earlier)
        return dataclasses.replace(key, line=line)

    for round_number in range(MAX_ROUNDS):
        try:
            if module is None:
                module = parse(current)
            if round_number > 0:
                round_evidence = evidence.in_later_round(site_functions, called_functions, passed_through)
            proposals = propose(
                current, path, settings, rules, round_evidence,
                module=module, excluded=ruled_out if (excluded or allowed is not None) else None,
            )
            if round_number == 0:
                any_compiled = proposals.any_compiled
            site_functions, called_functions = proposals.site_functions, proposals.called_functions
        except SourceError as exc:
            if round_number == 0:
                raise
            raise SourceError(f"internal error: a rewrite produced code that does not parse ({exc})") from None
        permitted = [c for c in proposals.changes if c.safety is Safety.SAFE or settings.unsafe_fixes]
        chosen = non_overlapping(permitted)
        if not chosen:
            unsafe = [c for c in proposals.changes if c.safety is Safety.UNSAFE and not settings.unsafe_fixes]
            # What is left is located, like what was applied, in the text as it was given.
            unsafe = [located(change) for change in unsafe]
            reports = [located(report) for report in proposals.reports]
            return FixOutcome(current, applied, unsafe, reports, proposed_on, any_compiled)
        if called_functions:
            # A run's word that a break was seen inside a function no longer holds once the
            # function is rewritten (a helper whose branch became torch.where needs no escape).
            changed = frozenset(change.location.line for change in chosen)
            called_functions -= CompiledRegions(module, assume_compiled=True).innermost_functions(module, changed)
        ended = frozenset(change.location.line for change in chosen if change.ends_region)
        if ended and site_functions:
            # A function split into compiled pieces runs eagerly now: no longer a region.
            site_functions -= CompiledRegions(module, assume_compiled=True).innermost_functions(module, ended)
        edits = [edit for change in chosen for edit in change.edits]
        # The next round's tree: only the top-level statements the edits touched are parsed again.
        module = spliced_module(module, current, edits)
        proposed_on.extend([current] * len(chosen))
        current = apply_edits(current, edits)
        located_changes = [located(change) for change in chosen]
        round_edits.append(edits)
        applied.extend(sorted(located_changes, key=lambda change: (change.location.line, change.location.column)))
    raise SourceError(f"internal error: rules kept proposing changes after {MAX_ROUNDS} rounds; file left unchanged")


def _located_before(change: ChangeOrReport, edits: Sequence[TextEdit]) -> ChangeOrReport:
    """`change`, proposed on the text `edits` produced, located in the text before them: a line
    the edits wrote maps to the first line they replaced."""
    line = _line_before(change.location.line, edits)
    end_line = max(line, _line_before(change.location.end_line, edits))
    if (line, end_line) == (change.location.line, change.location.end_line):
        return change
    return dataclasses.replace(change, location=dataclasses.replace(change.location, line=line, end_line=end_line))


def _line_before(line: int, edits: Sequence[TextEdit]) -> int:
    """A 1-based line of the text `edits` produced, in the text before them."""
    shift = 0
    seen: set[tuple[int, int, str]] = set()
    for edit in sorted(edits, key=lambda e: (e.start_line, e.end_line)):
        key = (edit.start_line, edit.end_line, edit.new_text)
        if edit.definitions and key in seen:
            continue  # applied once (apply_edits combines the same definitions)
        seen.add(key)
        written = len(split_lines(edit.new_text))
        start = edit.start_line + shift  # 0-based, in the produced text
        if line - 1 < start:
            break
        if line - 1 < start + written:
            return edit.start_line + 1
        shift += written - (edit.end_line - edit.start_line)
    return line - shift
