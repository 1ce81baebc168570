"""Explaining a run's graph breaks: which rule fixes each site, or the registry's hint."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from graphweld.engine import propose
from graphweld.entry import BreakSite, RunReport, is_library_file
from graphweld.settings import Settings
from graphweld.source import SourceError, read_source


@dataclass(frozen=True)
class ExplainedSite:
    site: BreakSite
    rule: str | None
    # "fix", "unsafe fix", "not fixed: <reason>", or "no automatic fix: <hint>"
    action: str


def user_sites(report: RunReport) -> list[BreakSite]:
    """The run's break sites, each moved out of the standard library and torch to the innermost
    caller in the user's code (or a third-party package), without duplicates."""
    placed: dict[tuple[str, int, str], BreakSite] = {}
    for site in report.sites:
        moved = site.in_code(lambda file: not is_library_file(file)) or site
        placed.setdefault((moved.file, moved.line, moved.gb), moved)
    return sorted(placed.values(), key=lambda s: (s.file, s.line))


def explain_sites(report: RunReport, settings: Settings) -> list[ExplainedSite]:
    by_file: dict[str, list[BreakSite]] = defaultdict(list)
    for site in user_sites(report):
        by_file[site.file].append(site)
    explained: list[ExplainedSite] = []
    for path, sites in sorted(by_file.items()):
        try:
            text = read_source(path).text
            proposals = propose(
                text,
                path,
                settings.replace(unsafe_fixes=True),
                site_lines=frozenset(s.line for s in sites),
                called_lines=frozenset(s.line for s in sites if s.called_by_user_code),
            )
        except SourceError:
            proposals = None
        for site in sites:
            explained.append(_explain(site, proposals))
    return explained


def _explain(site: BreakSite, proposals) -> ExplainedSite:  # type: ignore[no-untyped-def]
    if proposals is not None:
        for change in proposals.changes:
            if change.location.line == site.line or change.covers_line(site.line) or change.replaces_line(site.line):
                action = "fix" if change.safety.value == "safe" else "unsafe fix (--unsafe-fixes)"
                return ExplainedSite(site, change.rule, action)
        for report in proposals.reports:
            if report.location.line == site.line:
                return ExplainedSite(site, report.rule, f"not fixed: {report.message.split(': ')[-1]}")
    hint = site.hint or site.explanation or "see the GB page"
    return ExplainedSite(site, None, f"no automatic fix: {hint}")
