"""`propose`: every change and report the selected rules have for one text, each change
independent of the others, from one parse and one walk of the tree."""

from __future__ import annotations

from typing import Callable, Sequence

import libcst as cst

from graphweld.analysis.regions import CompiledRegions
from graphweld.analysis.torch_api import installed_torch
from graphweld.codemods import RULES_BY_ID
from graphweld.changes import Change, ChangeKey, Location, Proposals, Report
from graphweld.dispatch import RuleDispatcher, selected_rules
from graphweld.parsing import collector_paused, parse
from graphweld.positions import Span, node_spans, simple_statement_lines
from graphweld.rule import Rule, RuleContext
from graphweld.run_evidence import NO_EVIDENCE, RunEvidence
from graphweld.settings import Settings
from graphweld.splice import Splicer, is_insertion
from graphweld.suppression import is_suppressed, suppressed_lines


@collector_paused()
def propose(
    text: str,
    path: str,
    settings: Settings,
    rules: Sequence[type[Rule]] | None = None,
    evidence: RunEvidence = NO_EVIDENCE,
    *,
    module: cst.Module | None = None,
    excluded: Callable[[ChangeKey], bool] | None = None,
) -> Proposals:
    """Every change and report the rules have for `text`, each change independent of the others.

    `evidence`: what a run saw in the file, and what other modules compile of it (see
    `RunEvidence`); in a file the run only passed through (`RunEvidence.passed_through`), only
    rules that fix a break from its callers (`Rule.fixes_from_callers`) run.
    `module`: the text's tree when the caller has it already.
    `excluded`: changes the caller ruled out (by key); they are not proposed, and a rule with
    several forms proposes its next one instead.
    Raises SourceError when the text does not parse.
    """
    rules = selected_rules(settings) if rules is None else rules
    passed_through = evidence.passed_through
    if passed_through:
        # A file the run only passed through on the way to a break: only a fix made from a caller.
        rules = [rule for rule in rules if rule.fixes_from_callers]
    if not evidence.has_sites:
        # A rule whose trigger words the text does not contain has nothing to find in it.
        rules = [rule for rule in rules if mentions_trigger(text, rule, settings)]
        if passed_through and not rules:
            return Proposals(any_compiled=False)
    if module is None:
        module = parse(text)
    regions = CompiledRegions(
        module,
        assume_compiled=settings.assume_compiled,
        root_lines=evidence.site_lines,
        root_names=evidence.site_functions,
        called_lines=evidence.called_lines,
        called_names=evidence.called_functions,
        compiled_elsewhere=evidence.compiled_elsewhere,
        passed_lines=evidence.stack_lines,
    )
    empty = Proposals(
        site_functions=frozenset(regions.root_names), called_functions=frozenset(regions.called_names),
        any_compiled=regions.any_compiled, regions=regions,
    )
    if not rules or not (regions.any_compiled or passed_through):
        return empty
    context = RuleContext(module, settings, regions, path, text=text, evidence=evidence)
    if excluded is not None:
        context.excluded = lambda rule, form, line, column: excluded(ChangeKey(rule, form, line, column))
    statement_lines = simple_statement_lines(module, text)
    if statement_lines is not None:
        context.breakers.note_lines(text, statement_lines)
    instances = [rule(context) for rule in rules]
    RuleDispatcher(context, instances).run(module)
    findings = [finding for rule in instances for finding in rule.findings]
    if not findings:
        return empty

    indents: dict[int, list[str]] = {}
    spans = node_spans(
        module,
        [n for f in findings for n in (f.anchor, f.target, *(t for t, _ in f.extra), *f.resolves) if n is not None],
        text,
        indents,
    )
    suppressions = suppressed_lines(text)
    proposals = Proposals(site_functions=empty.site_functions, called_functions=empty.called_functions, regions=regions)
    seen_reports: set[tuple[str, int, str]] = set()
    splicer: Splicer | None = None
    for finding in findings:
        location = _location(spans, finding.anchor)
        lines = (location.line,)
        if finding.target is not None and id(finding.target) in spans:
            lines += (spans[id(finding.target)].start_line,)
        if is_suppressed(suppressions, finding.rule, lines):
            continue
        if finding.is_fix:
            replacements = {id(finding.target): finding.replacement}
            replacements.update({id(target): replacement for target, replacement in finding.extra})
            targets = [finding.target, *(target for target, _ in finding.extra)]
            if splicer is None:
                splicer = Splicer(module, text, spans, indents)
            edits = splicer.edits(targets, replacements)
            # A statement definitions are inserted after is not replaced, unless the edits had to
            # come from the whole module (then they do not say which text is an insertion).
            spliced = any(edit.definitions for edit in edits)
            replaced_lines = tuple(
                (spans[id(target)].start_line - 1, spans[id(target)].end_line)
                for target in targets
                if id(target) in spans and not (spliced and is_insertion(target, replacements[id(target)]))
            )
            resolved = tuple(
                (spans[id(node)].start_line, spans[id(node)].end_line) for node in finding.resolves if id(node) in spans
            )
            change = Change(
                path, finding.rule, finding.safety, location, _with_torch_note(finding.rule, finding.message), edits,
                replaced_lines, resolved,
                finding.form, finding.ends_region,
            )
            if excluded is None or not excluded(change.key):
                proposals.changes.append(change)
        elif (finding.rule, location.line, finding.message) not in seen_reports:
            seen_reports.add((finding.rule, location.line, finding.message))
            proposals.reports.append(Report(path, finding.rule, location, finding.message))
    proposals.changes.sort(key=lambda change: (change.location.line, change.location.column, change.rule))
    proposals.reports.sort(key=lambda report: (report.location.line, report.location.column, report.rule))
    return proposals


def _with_torch_note(rule_id: str, message: str) -> str:
    """A change's message, saying so when the installed torch no longer breaks where its rule
    looks (`Rule.unneeded_from_torch`)."""
    unneeded = RULES_BY_ID[rule_id].unneeded_from_torch if rule_id in RULES_BY_ID else None
    installed = installed_torch()
    if unneeded is None or installed is None or installed < unneeded:
        return message
    first = ".".join(map(str, unneeded))
    return (
        f"{message} (not needed on the installed torch {installed[0]}.{installed[1]}, whose Dynamo no longer breaks "
        f"here; kept for torch before {first}, which graphweld admits)"
    )


def mentions_trigger(text: str, rule: type[Rule], settings: Settings) -> bool:
    words = list(rule.trigger_words)
    if rule.triggered_by_configured_breakers:
        words += [name.rsplit(".", 1)[-1] for name in settings.extra_breakers]
    return any(word in text for word in words)


def _location(spans: dict[int, Span], node: cst.CSTNode) -> Location:
    span = spans[id(node)]
    return Location(span.start_line, span.start_column + 1, span.end_line, span.end_column + 1)
