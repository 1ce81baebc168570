"""graphweld's pytest plugin: the graph breaks a test suite hits, as a run (issue 27).

`pytest --graphweld` watches Dynamo's graph-break log while the tests run and ends the session
with the breaks each test hit first (a compiled function traced again by a later test is
served from Dynamo's cache and breaks no more), each with its site, GB id and the rule that fixes
it or why none does, as `graphweld explain` gives them. `--graphweld-fail-on-breaks` fails the
session when any test hit a break, so that a team keeps "no new graph breaks" in CI.

Registered through the `pytest11` entry point; it imports nothing heavy until asked (torch only
when the session starts with `--graphweld`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("graphweld", "graph breaks (graphweld)")
    group.addoption("--graphweld", action="store_true", help="Report the graph breaks the tests hit, with the rule that fixes each.")
    group.addoption(
        "--graphweld-fail-on-breaks", action="store_true",
        help="Fail the session when a test hits a graph break (implies --graphweld).",
    )  # fmt: skip


def pytest_configure(config: Any) -> None:
    if config.getoption("graphweld") or config.getoption("graphweld_fail_on_breaks"):
        config.pluginmanager.register(BreakWatch(config), "graphweld-break-watch")


@dataclass
class TestBreaks:
    """The breaks one test hit first."""

    nodeid: str
    messages: list[str] = field(default_factory=list)


class BreakWatch:
    """Collects Dynamo's graph-break records per test, and reports them at the end."""

    def __init__(self, config: Any) -> None:
        self.config = config
        self.fail_on_breaks = bool(config.getoption("graphweld_fail_on_breaks"))
        self.log = None
        self.tests: list[TestBreaks] = []
        self.unavailable = ""

    def pytest_sessionstart(self, session: Any) -> None:
        try:
            import torch
        except ImportError:
            self.unavailable = "torch is not installed"
            return
        from graphweld.runs.dynamo_log import collect_dynamo_log

        self.log = collect_dynamo_log(torch)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item: Any):  # type: ignore[no-untyped-def]
        start = len(self.log.breaks) if self.log is not None else 0
        yield
        if self.log is not None and len(self.log.breaks) > start:
            self.tests.append(TestBreaks(item.nodeid, self.log.breaks[start:]))

    def sites(self):  # type: ignore[no-untyped-def]
        """Each test's breaks, explained: [(nodeid, [ExplainedSite])]."""
        from graphweld.runs.entry import RunReport, break_site
        from graphweld.runs.explanation import explain_sites
        from graphweld.runs.dynamo_log import parse_break
        from graphweld.settings import find_config_file, load_settings

        settings = load_settings(find_config_file(Path(str(self.config.rootpath))))
        explained = []
        for test in self.tests:
            breaks = [break_site(parsed) for parsed in map(parse_break, test.messages) if parsed is not None]
            report = RunReport(device="", torch_version="", outputs={}, breaks=breaks)
            explained.append((test.nodeid, explain_sites(report, settings)))
        return [(nodeid, sites) for nodeid, sites in explained if sites]

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        from graphweld.frontends.report import short_path

        write = terminalreporter.write_line
        terminalreporter.section("graphweld: graph breaks")
        if self.unavailable:
            write(f"not watched: {self.unavailable}")
            return
        per_test = self.sites()
        if not per_test:
            write("No test hit a graph break.")
            return
        total = 0
        for nodeid, sites in per_test:
            write(nodeid)
            for item in sites:
                site = item.site
                fix = f"{item.rule}: {item.action}" if item.rule else item.action
                write(f"    {short_path(site.file)}:{site.line} {site.gb} {site.kind}: {site.reason} -> {fix}")
                total += 1
        fixable = sum(1 for _, sites in per_test for item in sites if item.change is not None)
        write(f"{total} break site(s) in {len(per_test)} test(s); {fixable} with a fix (graphweld fix ... -- pytest ... applies them, verified).")
        if self.fail_on_breaks:
            write("Failing the session: --graphweld-fail-on-breaks.")

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: Any, exitstatus: int) -> None:
        if self.fail_on_breaks and self.tests and session.exitstatus == 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
