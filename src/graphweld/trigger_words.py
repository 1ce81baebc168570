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

# The class that subclasses Rule, Rule last among its bases (`Rule` itself, in rule.py): its
# docstring, then its attributes (the lines indented once), up to its first method.
_RULE_CLASS = re.compile(
    r'^class (?:Rule|\w+\((?:\w+, )*(?:\w+\.)?Rule\)):\n(?:    """.*?"""\n)?(?P<body>(?:(?!    def |    @|class )[^\n]*\n)*)', re.M | re.S
)
_ATTRIBUTE = re.compile(r"^    (?P<name>\w+)(?:: [^=\n]+)? = (?P<value>.+)$", re.M)
_CONSTANT = re.compile(r"^(?P<name>\w+)(?:: [^=\n]+)? = (?P<value>.+)$", re.M)
_NAME = re.compile(r"\b[A-Za-z_]\w*\b")
# What the facts' expressions may call.
_BUILTINS = {"sorted": sorted, "tuple": tuple, "frozenset": frozenset, "set": set}


class RuleFactsError(Exception):
    """A rule's facts cannot be read from its source (a fact on more than one line, or an
    expression over names the reader does not know)."""


@functools.lru_cache(maxsize=1)
def rule_triggers() -> dict[str, tuple[tuple[str, ...], bool]]:
    """Each rule's id -> (trigger words, needs a breaking call), in registry order."""
    from graphweld import codemods

    # What a rule that does not say inherits: Rule's own default, read from rule.py.
    defaults = _attributes_in("rule.py", _read(os.path.join(os.path.dirname(os.path.realpath(__file__)), "rule.py")))
    needs_call_default = bool(_value_of("rule.py", defaults["needs_breaker_call"], {}, {}))
    folder = os.path.dirname(os.path.realpath(codemods.__file__))
    found: dict[str, tuple[tuple[str, ...], bool]] = {}
    for module in codemods.RULE_MODULES:
        rule_id, words, needs_call = _facts_in(f"codemods/{module}.py", _read(os.path.join(folder, f"{module}.py")), needs_call_default)
        found[rule_id] = (words, needs_call)
    return found


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def _attributes_in(where: str, text: str) -> dict[str, str]:
    match = _RULE_CLASS.search(text)
    if match is None:
        raise RuleFactsError(f"{where}: no class subclassing Rule")
    return {found["name"]: found["value"] for found in _ATTRIBUTE.finditer(match["body"])}


def _value_of(where: str, expression: str, constants: dict[str, str], namespace: dict[str, object], seen: tuple[str, ...] = ()) -> object:
    """`expression` evaluated over the module's one-line constants it names (each evaluated once,
    into `namespace`)."""
    for name in set(_NAME.findall(expression)) - namespace.keys() - _BUILTINS.keys():
        if name in constants and name not in seen:
            namespace[name] = _value_of(where, constants[name], constants, namespace, (*seen, name))
    try:
        return eval(expression, {"__builtins__": _BUILTINS}, dict(namespace))  # noqa: S307 (graphweld's own source)
    except Exception as exc:
        raise RuleFactsError(f"{where}: cannot read `{expression}`: {exc}") from None


def _facts_in(where: str, text: str, needs_call_default: bool) -> tuple[str, tuple[str, ...], bool]:
    attributes = _attributes_in(where, text)
    if "id" not in attributes or "trigger_words" not in attributes:
        raise RuleFactsError(f"{where}: the rule states no `id` or `trigger_words` on one line")
    constants = {found["name"]: found["value"] for found in _CONSTANT.finditer(text)}
    namespace: dict[str, object] = {name: value for name, value in vars(breaker_names).items() if name.isupper()}

    def value_of(expression: str) -> object:
        return _value_of(where, expression, constants, namespace)

    needs_call = value_of(attributes["needs_breaker_call"]) if "needs_breaker_call" in attributes else needs_call_default
    return str(value_of(attributes["id"])), tuple(value_of(attributes["trigger_words"])), bool(needs_call)  # type: ignore[arg-type]
