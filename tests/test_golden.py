"""Golden cases: tests/golden/<rule>/<case>.in.py -> <case>.out.py, found automatically.

A case without .out.py must come out unchanged. A first line `# settings: key=value ...` sets
unsafe_fixes / assume_compiled / select for the case (select defaults to the case's rule), and
what a run saw: `site_lines=12,30` (breaks there), `called_lines=13` (breaks in a helper the user's
code called), `stack_lines=40` (frames on a break's way), `disabled_call_lines=12` (breaks there
on a call of a function disabled for Dynamo). An
optional <case>.reports lists the sites that must be reported, not fixed: `LINE RULE: text`.
Every case is also checked for "output parses" and "a second run changes nothing".
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from graphweld.codemods import RULES_BY_ID
from graphweld.engine import fix_text
from graphweld.run_evidence import RunEvidence
from graphweld.settings import Settings

# Depends on what Dynamo does: run again on the current torch release by CI (docs/development.md).
pytestmark = pytest.mark.dynamo

GOLDEN = Path(__file__).parent / "golden"
CASES = sorted(GOLDEN.glob("*/*.in.py"))


def settings_for(case: Path, text: str) -> Settings:
    values: dict[str, object] = {"select": frozenset({case.parent.name})}
    first = text.splitlines()[0] if text else ""
    match = re.match(r"#\s*settings:\s*(.*)", first)
    if match:
        for pair in match.group(1).split():
            key, _, value = pair.partition("=")
            if key in RUN_LINES:
                continue
            if key == "select":
                values["select"] = frozenset(value.split(","))
            elif key == "guard_functions":
                values["guard_functions"] = tuple(value.split(","))
            else:
                values[key] = value.lower() == "true"
    return Settings(**values)  # type: ignore[arg-type]


# Settings-line keys that give the lines a run saw, not settings.
RUN_LINES = ("site_lines", "called_lines", "stack_lines", "data_dependent_lines", "untraceable_lines", "disabled_call_lines")


def run_evidence_for(text: str) -> RunEvidence:
    """`site_lines`, `called_lines`, `stack_lines`, `data_dependent_lines` (where the run saw GB0170),
    `untraceable_lines` (a call Dynamo cannot trace: GB0007, GB0008, GB0156, GB0363) and
    `disabled_call_lines` (a call of a disabled function: GB0098, GB0099) from the case's settings
    line (what a run of it saw)."""
    first = text.splitlines()[0] if text else ""
    match = re.match(r"#\s*settings:\s*(.*)", first)
    found: dict[str, frozenset[int]] = {}
    for pair in match.group(1).split() if match else ():
        key, _, value = pair.partition("=")
        if key in RUN_LINES:
            found[key] = frozenset(int(line) for line in value.split(","))
    return RunEvidence(**found)


def expected_reports(case: Path) -> list[tuple[int, str, str]]:
    reports_file = case.with_name(case.name.replace(".in.py", ".reports"))
    if not reports_file.exists():
        return []
    expected = []
    for line in reports_file.read_text().splitlines():
        number, rest = line.split(" ", 1)
        rule, text = rest.split(": ", 1)
        expected.append((int(number), rule, text))
    return expected


def test_cases_exist_for_every_rule():
    for rule_id in RULES_BY_ID:
        assert len(list((GOLDEN / rule_id).glob("*.in.py"))) >= 6, rule_id


@pytest.mark.parametrize("case", CASES, ids=[f"{c.parent.name}/{c.name[:-6]}" for c in CASES])
def test_golden(case: Path):
    source = case.read_text()
    out_file = case.with_name(case.name.replace(".in.py", ".out.py"))
    expected = out_file.read_text() if out_file.exists() else source
    settings = settings_for(case, source)

    outcome = fix_text(source, str(case), settings, run_evidence_for(source))
    assert outcome.text == expected
    ast.parse(outcome.text)
    if not out_file.exists():
        assert not outcome.applied

    reports = [(r.location.line, r.rule, r.message) for r in outcome.reports]
    wanted = expected_reports(case)
    assert len(reports) == len(wanted), reports
    for (line, rule, message), (want_line, want_rule, want_text) in zip(reports, wanted):
        assert (line, rule) == (want_line, want_rule)
        assert want_text in message

    second = fix_text(outcome.text, str(case), settings, run_evidence_for(source))
    assert second.text == outcome.text
    assert not second.applied
