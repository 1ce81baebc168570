"""`# graphweld: ignore[rule-id, ...]` comments: which lines suppress which rules."""

from __future__ import annotations

import re

_IGNORE = re.compile(r"#\s*graphweld:\s*ignore(?:\[([^\]]*)\])?")
ALL_RULES = "*"


def suppressed_lines(text: str) -> dict[int, frozenset[str]]:
    """1-based line number -> rule ids suppressed there (`*` for a bare `ignore`)."""
    if "graphweld:" not in text:
        return {}
    found: dict[int, frozenset[str]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        match = _IGNORE.search(line)
        if match is None:
            continue
        ids = match.group(1)
        if ids is None:
            found[number] = frozenset({ALL_RULES})
        else:
            found[number] = frozenset(part.strip() for part in ids.split(",") if part.strip())
    return found


def is_suppressed(suppressions: dict[int, frozenset[str]], rule: str, lines: tuple[int, ...]) -> bool:
    for line in lines:
        ids = suppressions.get(line)
        if ids and (rule in ids or ALL_RULES in ids):
            return True
    return False
