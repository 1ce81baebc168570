"""The bytes prefilter: whether a file can hold a site for the selected rules, decided on its
bytes before libcst or any rule is imported. `graphweld fix` on files none of which can hold a
site answers without parsing anything (start-up is the whole cost of such a run, as for ruff in
pre-commit); the engine asks the same test of every file before parsing it."""

from __future__ import annotations

import functools
import re
from typing import Callable

from graphweld.analysis.breaker_names import (
    DLPACK_BREAKERS,
    EXPLICIT_BREAKERS,
    IO_BREAKERS,
    LOGGING_METHODS,
    UNTRACEABLE_BREAKERS,
)
from graphweld.settings import Settings
from graphweld.trigger_words import rule_triggers

# What the prefilter says of a file.
MAY_HOLD_SITE, NO_SITE, UNCOMPILED = "may hold a site", "no site", "uncompiled"
# A module's forward: code that is usually compiled somewhere (for the no-region hint).
_FORWARD = re.compile(rb"\bdef\s+forward\s*\(")


def selected_ids(settings: Settings) -> tuple[str, ...] | None:
    """The ids of the rules the settings select, in registry order; None when one is unknown
    (the engine says which)."""
    if any(rule_id != "ALL" and rule_id not in rule_triggers() for rule_id in (*settings.select, *settings.ignore)):
        return None
    chosen = [rule_id for rule_id in rule_triggers() if not settings.select or "ALL" in settings.select or rule_id in settings.select]
    return tuple(rule_id for rule_id in chosen if rule_id not in settings.ignore)


def _word_pattern(words: set[str]) -> re.Pattern[bytes] | None:
    """A pattern of the words, each whole: an identifier between word boundaries, an operator
    (`+=`) as written."""
    if not words:
        return None
    return re.compile(b"|".join(_whole(w) for w in sorted(words)))


def _whole(word: str) -> bytes:
    escaped = re.escape(word.encode())
    return rb"\b" + escaped + rb"\b" if word.isidentifier() else escaped


def breaker_words(settings: Settings) -> set[str]:
    """Identifiers whose presence in a file's bytes means it may hold a breaking call."""
    names = (*EXPLICIT_BREAKERS, *IO_BREAKERS, *settings.io_functions, *DLPACK_BREAKERS, *UNTRACEABLE_BREAKERS, *settings.extra_breakers)
    return {name.rsplit(".", 1)[-1] for name in names} | LOGGING_METHODS


@functools.lru_cache(maxsize=8)
def file_verdict(settings: Settings) -> Callable[[bytes, bool], str]:
    """A bytes test of a file (and whether another file compiles some of its code): NO_SITE means
    it cannot hold a site for any selected rule; UNCOMPILED that it holds a module's forward and
    calls that break graphs, but nothing in it compiles anything."""
    rule_ids = selected_ids(settings) or ()
    if not rule_ids:
        return lambda data, compiled_elsewhere=False: NO_SITE
    # A breaking call writes its name before `(`, or the name is imported under another one.
    breaker = re.compile(rb"\b(?:" + b"|".join(re.escape(w.encode()) for w in sorted(breaker_words(settings))) + rb")(?:\s*\(|\s+as\b)")
    triggers = [rule_triggers()[rule_id] for rule_id in rule_ids]
    keyword = _word_pattern({word for words, needs_call in triggers if needs_call for word in words})
    # Rules about decisions on tensor values need no breaking call, only their own words.
    value_keyword = _word_pattern({word for words, needs_call in triggers if not needs_call for word in words})
    # A compiled region needs a compile call, or the entry convention graphweld compiles itself.
    compiled = None if settings.assume_compiled else re.compile(rb"compile|_dynamo\.optimize|my_model_function")

    def may_hold_site(data: bytes, compiled_elsewhere: bool = False) -> str:
        breaks = keyword is not None and breaker.search(data) is not None and keyword.search(data) is not None
        if compiled is not None and not compiled_elsewhere and compiled.search(data) is None:
            return UNCOMPILED if breaks and _FORWARD.search(data) is not None else NO_SITE
        if value_keyword is not None and value_keyword.search(data) is not None:
            return MAY_HOLD_SITE
        return MAY_HOLD_SITE if breaks else NO_SITE

    return may_hold_site
