"""Dynamo's own log, read: its graph-break and recompile records collected as they are logged,
and each message parsed into a site (file, line, GB id, reason, hints, the user stack), looked up
in Dynamo's graph-break registry where the message is a delayed one. Dynamo's log is the evidence
of every break: `torch._dynamo.explain` misses breaks in loops."""

from __future__ import annotations

import functools
import json
import logging
import os
import re
import sys
from typing import Any


_SITE = re.compile(r"Graph break .*?in user code at (.+):(\d+)")


# convert_frame's record of a break it could not resume from, whose site is its user stack.
_UNRESUMABLE = "Graph break: torch.compile cannot properly resume from this graph break"


_GB_ID = re.compile(r"/gb/(gb\d+)\.html")


_FRAME = re.compile(r'^\s*File "(.+)", line (\d+), in (\S+)')


_RECOMPILE = re.compile(r"Recompiling function (\S+) in (.+):(\d+)")


class DynamoLog(logging.Handler):
    """Dynamo's graph-break and recompilation records, as their messages (an exception a record
    carries is appended, with its GB link: convert_frame logs some breaks with the exception as
    `exc_info`)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.breaks: list[str] = []
        self.recompiles: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            message += f"\nGraph Break Reason: {record.exc_info[1]}"
        (self.recompiles if record.name.endswith("__recompiles") else self.breaks).append(message)

    def clear(self) -> None:
        self.breaks.clear()
        self.recompiles.clear()


# The artifact loggers DynamoLog listens to.
_LOGGER_SUFFIXES = ("__graph_breaks", "__recompiles")


def dynamo_loggers() -> dict[str, logging.Logger]:
    return {name: logging.getLogger(name) for name in list(logging.Logger.manager.loggerDict) if name.endswith(_LOGGER_SUFFIXES)}


def collect_dynamo_log(torch) -> DynamoLog:  # type: ignore[no-untyped-def]
    """Turn on Dynamo's graph-break and recompile logs and collect them (nothing is printed)."""
    import torch._dynamo.convert_frame  # noqa: F401  (registers the graph-break loggers)
    import torch._dynamo.exc  # noqa: F401
    import torch._dynamo.guards  # noqa: F401  (registers the recompile logger)
    import torch._dynamo.symbolic_convert  # noqa: F401

    torch._logging.set_logs(graph_breaks=True, recompiles=True)
    collector = DynamoLog()
    for logger in dynamo_loggers().values():
        logger.handlers[:] = [collector]
        logger.propagate = False
        logger.setLevel(logging.DEBUG)
    return collector


# What Dynamo logs when it gives up on the rest of a frame: the whole function (a break it cannot
# handle, a break in a loop) or what follows the break (one it cannot resume from, inside a
# `with` or `try`): either way, that code runs eagerly.
_WHOLE_FRAME_SKIPS = ("Skipping the function", "Skipping the frame", "will skip tracing the frame")


_REST_OF_FRAME_SKIP = "skipping the rest of the function"


def parse_break(message: str) -> dict[str, Any] | None:
    """One graph-break log message -> site, GB ids, reason, hint, and whether Dynamo skipped the
    frame ("frame": all of it, "rest": what follows the break, "": neither)."""
    lines = [line.strip() for line in message.splitlines()]
    site = _SITE.search(message)
    stack = _user_stack(message)
    if site is not None:
        file, line = os.path.realpath(site.group(1)), int(site.group(2))
    elif message.startswith(_UNRESUMABLE) and stack:
        file, line = stack[-1][0], stack[-1][1]
    else:
        return None
    reason = ""
    after_header = False
    for text in lines:
        if text.startswith("Graph Break Reason:"):
            after_header = True
            rest = text[len("Graph Break Reason:") :].strip()
            if rest and not rest.startswith(("Encountered graph break", "Failed to handle graph break")):
                reason = rest
                break
            continue
        if after_header and text and not text.startswith(("Explanation:", "Hint:")):
            reason = text
            break
    explanation = next((text[len("Explanation:") :].strip() for text in lines if text.startswith("Explanation:")), "")
    hints = [text[len("Hint:") :].strip() for text in lines if text.startswith("Hint:")]
    ids = [gb.upper() for gb in _GB_ID.findall(message)]
    delayed = _DELAYED.search(explanation)
    if delayed:
        # torch 2.15 delays a break on calling a module (an nn.LSTM) and logs it as "Unsupported
        # function call (delayed)" (GB0148), the original break's explanation and hints as its
        # reason: the site is the original's (GB0014, with its allow_rnn hint).
        hints.append(delayed.group(1))
        underlying = registry_entry(delayed.group(1))
        if underlying is not None:
            ids = [underlying[0], *ids]
            reason, explanation = underlying[1], delayed.group(1)
    # Every hint: the first often refers to the next ("see the next case for a workaround").
    hint = " ".join(hints)
    skipped = "frame" if any(words in message for words in _WHOLE_FRAME_SKIPS) else "rest" if _REST_OF_FRAME_SKIP in message else ""
    return {
        "file": file,
        "line": line,
        "gb": ids[0] if ids else "",
        "all_gb": ids,
        "reason": reason or explanation,
        "explanation": explanation,
        "hint": hint,
        "settings": hinted_settings(" ".join(hints)),
        "skipped_frame": bool(skipped),
        "skipped": skipped,
        "stack": stack,
    }


# A delayed break's explanation: the original break's explanation and hints after "Reason:".
_DELAYED = re.compile(r"^Dynamo determined that a graph break should occur when calling .*?\. Reason: (.+)$")


def registry_entry(text: str) -> tuple[str, str] | None:
    """The GB id and type of the entry of Dynamo's graph-break registry whose explanation `text`
    starts with (the loaded torch's registry; None without torch, or when none matches)."""
    for gb, pattern, gb_type in _registry_explanations():
        if pattern.match(text):
            return gb, gb_type
    return None


@functools.lru_cache(maxsize=1)
def _registry_explanations() -> tuple[tuple[str, re.Pattern[str], str], ...]:
    torch = sys.modules.get("torch")
    path = os.path.join(os.path.dirname(torch.__file__), "_dynamo", "graph_break_registry.json") if torch else ""
    try:
        with open(path, encoding="utf-8") as file:
            registry = json.load(file)
    except (OSError, ValueError):
        return ()
    found = []
    for gb, entries in registry.items():
        for entry in entries:
            explanation = entry.get("Explanation", "")
            # The explanation's {placeholders} match anything; long ones first (the most specific).
            literal = re.split(r"\{[^}]*\}", explanation)
            if len("".join(literal)) >= 20:
                found.append((gb.upper(), re.compile(".*?".join(map(re.escape, literal))), entry.get("Gb_type", "")))
    return tuple(sorted(found, key=lambda item: -len(item[1].pattern)))


# A hint's ways of naming a Dynamo switch to turn on: `torch._dynamo.config.allow_rnn=True`,
# "... with `torch._dynamo.config.capture_scalar_outputs = True`", and "Change
# `torch._dynamo.config.trace_autograd_ops` to `True`" (or "Set ... to True").
_HINTED_SETTING = re.compile(r"torch\._dynamo\.config\.(\w+)(?:\s*=\s*|`\s+to\s+`?)True\b")


def hinted_settings(hints: str) -> list[str]:
    """The Dynamo switches a break's hints ask to turn on, as Dynamo itself wrote them: what the
    run measures for that break. Where torch is loaded, only switches its config has and has off."""
    config = sys.modules.get("torch._dynamo.config")
    names = dict.fromkeys(_HINTED_SETTING.findall(hints))
    return [name for name in names if config is None or getattr(config, name, None) is False]


def _user_stack(message: str) -> list[list[Any]]:
    """The Python stack a record lists down to the break ("User code traceback:", or convert
    frame's "occurred in the following user code:"), outermost frame first."""
    for header in ("User code traceback:", "occurred in the following user code:"):
        at = message.find(header)
        if at >= 0:
            frames = (_FRAME.match(line) for line in message[at:].splitlines())
            return [[os.path.realpath(f.group(1)), int(f.group(2)), f.group(3)] for f in frames if f is not None]
    return []


def parse_recompile(message: str) -> dict[str, Any] | None:
    """One recompile log message -> the function recompiled, where it is, and the first guard
    that failed."""
    found = _RECOMPILE.search(message)
    if found is None:
        return None
    failures = [line.strip()[2:] for line in message.splitlines() if line.strip().startswith("- ")]
    return {
        "function": found.group(1),
        "file": os.path.realpath(found.group(2)),
        "line": int(found.group(3)),
        "reason": failures[0] if failures else "",
    }


def skipped_frames(frames: Any, breaks: list[dict[str, Any]]) -> int:
    """Frames Dynamo gave up on, as its log says: whole frames (counted by its frame counters too,
    which also see the frames it skipped without logging a break) plus frames whose rest it
    skipped after a break it could not resume from (which its counters count as compiled)."""
    whole = sum(1 for parsed in breaks if parsed["skipped"] == "frame")
    rest = sum(1 for parsed in breaks if parsed["skipped"] == "rest")
    return max(frames["total"] - frames["ok"], whole) + rest
