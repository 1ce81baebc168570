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

# Each rule's `trigger_words` and `needs_breaker_call`, in the registry's order, copied from the
# rules so that no rule is imported to decide (tests/test_prefilter.py checks they are the rules').
RULE_TRIGGERS: dict[str, tuple[tuple[str, ...], bool]] = {
    "split-train-step": (("backward", "zero_grad", "optim", "autograd"), False),
    "profiling-guard": (("nvtx", "perf_counter", "time", "monotonic", "default_timer", "Event", "synchronize"), False),
    "isolate-io": (("breakpoint", "critical", "debug", "dump", "error", "exception", "fatal", "info", "info_once", "input", "load", "log", "open", "print", "save", "set_trace", "sleep", "warn", "warn_explicit", "warning", "warning_advice", "warning_once", "write"), True),
    "dlpack-custom-op": (("to_dlpack", "from_dlpack", "__dlpack__", "fromDlpack", "from_numpy", "cupy", "jax"), False),
    "branchless-guard": (("isinf", "isnan", "isposinf", "isneginf"), False),
    "layerdrop-guard": (("rand", "rand_like", "random", "uniform"), False),
    "moe-dense-dispatch": (("index_add_",), False),
    "one-hot-fixed-classes": (("one_hot",), False),
    "loss-ignore-index": (("cross_entropy", "CrossEntropyLoss"), False),
    "masked-accumulate": (("+=", "-="), False),
    "block-diagonal-attention": (("tolist",), False),
    "local-buffer-cast": (("Buffer",), False),
    "buffer-as-number": (("Buffer", "register_buffer"), False),
    "scalar-tensor-index": (("argmax", "argmin", "argsort", "bucketize", "long", "multinomial", "randint", "searchsorted"), False),
    "arange-loop": (("arange",), False),
    "numpy-on-numbers": (("lcm", "gcd", "sum", "prod", "arange", "bool", "int", "float"), False),
    "memo-bypass": (("dumps", "hashlib", "repr", "hash", "str", "item", "tolist", "tobytes"), False),
    "equality-shortcut": (("equal", "allclose", "all", "any"), False),
    "requires-grad-eager": (("requires_grad",), False),
    "constant-requires-grad": (("requires_grad",), False),
    "eager-only-default": (("is_compiling", "is_dynamo_compiling", "is_torchdynamo_compiling", "is_tracing"), False),
    "sort-items-by-key": (("sorted",), False),
    "branch-to-where": (("if",), False),
    "branch-to-cond": (("if",), False),
    "while-to-while-loop": (("while",), False),
    "guard-to-check": (("raise", "assert", "_check_tensor_all", "_check_tensor_all_with"), False),
    "iterate-source-list": (("as_tensor", "tensor"), False),
    "eager-module-setup": (("nn",), False),
    "capture-hooks-at-init": (("select_hidden_states",), False),
    "nonstrict-helper": (("graph_break", "skip_frame", "_getframe", "inspect"), True),
    "unroll-loop": (("for", "while"), True),
    "hoist-with": (("with",), True),
    "hoist-try": (("try",), True),
    "eager-helper": (("tolist", "item", "numpy"), False),
}

# What the prefilter says of a file.
MAY_HOLD_SITE, NO_SITE, UNCOMPILED = "may hold a site", "no site", "uncompiled"
# A module's forward: code that is usually compiled somewhere (for the no-region hint).
_FORWARD = re.compile(rb"\bdef\s+forward\s*\(")


def selected_ids(settings: Settings) -> tuple[str, ...] | None:
    """The ids of the rules the settings select, in registry order; None when one is unknown
    (the engine says which)."""
    if any(rule_id != "ALL" and rule_id not in RULE_TRIGGERS for rule_id in (*settings.select, *settings.ignore)):
        return None
    chosen = [rule_id for rule_id in RULE_TRIGGERS if not settings.select or "ALL" in settings.select or rule_id in settings.select]
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
    triggers = [RULE_TRIGGERS[rule_id] for rule_id in rule_ids]
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
