"""PyTorch's graph-break registry (meta-pytorch/compile-graph-break-site): one page per GB id,
which Dynamo's break messages link to, and which of graphweld's rules fix each id.

A rule's ids are the ones its docstring's "Why the graph breaks" section names: the breaks its
rewrite removes, stated once, in the documentation a user reads.
"""

from __future__ import annotations

import inspect
import re
from typing import Iterable

from graphweld.rule import Rule

PAGES = "https://meta-pytorch.github.io/compile-graph-break-site/gb/"

_GB_ID = re.compile(r"\bGB\d{4}\b")


def page_url(gb: str) -> str | None:
    """The registry's page for a GB id (`GB0107` -> .../gb/gb0107.html); None for anything else."""
    return f"{PAGES}{gb.lower()}.html" if _GB_ID.fullmatch(gb or "") else None


def rule_gb_ids(rule: type[Rule]) -> tuple[str, ...]:
    """The GB ids a rule's "Why the graph breaks" section names, in order of first mention."""
    why = inspect.cleandoc(rule.__doc__ or "").partition("## Why the graph breaks")[2].partition("## Example")[0]
    return tuple(dict.fromkeys(_GB_ID.findall(why)))


def rules_by_gb(rules: Iterable[type[Rule]]) -> dict[str, list[type[Rule]]]:
    """Each GB id some rule fixes -> those rules, in registry order; ids sorted."""
    found: dict[str, list[type[Rule]]] = {}
    for rule in rules:
        for gb in rule_gb_ids(rule):
            found.setdefault(gb, []).append(rule)
    return dict(sorted(found.items()))
