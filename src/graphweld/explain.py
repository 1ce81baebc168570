"""Explaining a run's graph breaks: which rule fixes each site, or the registry's hint."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from graphweld.engine import propose
from graphweld.entry import BreakSite, RunReport
from graphweld.settings import Settings
from graphweld.source import SourceError, read_source


@dataclass(frozen=True)
class ExplainedSite:
    site: BreakSite
    rule: str | None
    # "fix", "unsafe fix", "not fixed: <reason>", or "no automatic fix: <hint>"
    action: str


def explain_sites(report: RunReport, settings: Settings) -> list[ExplainedSite]:
    by_file: dict[str, list[BreakSite]] = defaultdict(list)
    for site in report.sites:
        by_file[site.file].append(site)
    explained: list[ExplainedSite] = []
    for path, sites in sorted(by_file.items()):
        try:
            text = read_source(path).text
            proposals = propose(
                text, path, settings.replace(unsafe_fixes=True), site_lines=frozenset(s.line for s in sites)
            )
        except SourceError:
            proposals = None
        for site in sites:
            explained.append(_explain(site, proposals))
    return explained


def _explain(site: BreakSite, proposals) -> ExplainedSite:  # type: ignore[no-untyped-def]
    if proposals is not None:
        for change in proposals.changes:
            if change.location.line == site.line or change.covers_line(site.line):
                action = "fix" if change.safety.value == "safe" else "unsafe fix (--unsafe-fixes)"
                return ExplainedSite(site, change.rule, action)
        for report in proposals.reports:
            if report.location.line == site.line:
                return ExplainedSite(site, report.rule, f"not fixed: {report.message.split(': ')[-1]}")
    hint = site.hint or site.explanation or "see the GB page"
    return ExplainedSite(site, None, f"no automatic fix: {hint}")
