"""Each rule's prefilter facts (its id, `trigger_words` and `needs_breaker_call`), read from its
class in its module's source, without importing the rule: the bytes prefilter decides on a file
before libcst or any rule is imported (start-up is the whole cost of a run over files that hold no
site, as for ruff in pre-commit). The rule class is where the facts are stated; what is read here
is checked against the imported classes (tests/test_prefilter.py).

A fact must be written on one line of the class body, as a literal or an expression over the
module's own one-line constants and the names of `analysis.breaker_names`.
"""

from __future__ import annotations

import functools
import os
import re

from graphweld.analysis import breaker_names

# The class that subclasses Rule, up to the next top-level class (its docstring may hold lines
# at any indentation; its attributes are the lines indented once).
_RULE_CLASS = re.compile(r"^class \w+\((?:\w+\.)?Rule\):\n(?P<body>(?:(?!class ).*\n)*)", re.M)
_ASSIGNMENT = re.compile(r"^(?P<indent>[ ]*)(?P<name>\w+)(?:: [^=\n]+)? = (?P<value>.+)$", re.M)
_NAME = re.compile(r"\b[A-Za-z_]\w*\b")
# What the facts' expressions may call.
_BUILTINS = {"sorted": sorted, "tuple": tuple, "frozenset": frozenset, "set": set}
# A rule that does not say needs no breaking call... unless it says: Rule's own default.
_NEEDS_BREAKER_CALL_DEFAULT = True


class RuleFactsError(Exception):
    """A rule's facts cannot be read from its source (a fact on more than one line, or an
    expression over names the reader does not know)."""


@functools.lru_cache(maxsize=1)
def rule_triggers() -> dict[str, tuple[tuple[str, ...], bool]]:
    """Each rule's id -> (trigger words, needs a breaking call), in registry order."""
    from graphweld import codemods

    folder = os.path.dirname(os.path.realpath(codemods.__file__))
    found: dict[str, tuple[tuple[str, ...], bool]] = {}
    for module in codemods.RULE_MODULES:
        with open(os.path.join(folder, f"{module}.py"), encoding="utf-8") as handle:
            rule_id, words, needs_call = _facts_in(module, handle.read())
        found[rule_id] = (words, needs_call)
    return found


def _facts_in(module: str, text: str) -> tuple[str, tuple[str, ...], bool]:
    match = _RULE_CLASS.search(text)
    if match is None:
        raise RuleFactsError(f"codemods/{module}.py: no class subclassing Rule")
    constants = {m["name"]: m["value"] for m in _ASSIGNMENT.finditer(text) if not m["indent"]}
    attributes: dict[str, str] = {}
    for found in _ASSIGNMENT.finditer(match["body"]):
        if found["indent"] == "    ":
            attributes.setdefault(found["name"], found["value"])  # the class's own, before any function's
    namespace = {name: value for name, value in vars(breaker_names).items() if name.isupper()}

    def value_of(expression: str, seen: tuple[str, ...] = ()) -> object:
        for name in set(_NAME.findall(expression)) - namespace.keys() - _BUILTINS.keys():
            if name in constants and name not in seen:
                namespace[name] = value_of(constants[name], (*seen, name))
        try:
            return eval(expression, {"__builtins__": _BUILTINS}, dict(namespace))  # noqa: S307 (graphweld's own source)
        except Exception as exc:
            raise RuleFactsError(f"codemods/{module}.py: cannot read `{expression}`: {exc}") from None

    if "id" not in attributes or "trigger_words" not in attributes:
        raise RuleFactsError(f"codemods/{module}.py: the rule states no `id` or `trigger_words` on one line")
    needs_call = value_of(attributes["needs_breaker_call"]) if "needs_breaker_call" in attributes else _NEEDS_BREAKER_CALL_DEFAULT
    return str(value_of(attributes["id"])), tuple(value_of(attributes["trigger_words"])), bool(needs_call)  # type: ignore[arg-type]
