"""What the installed torch offers, read from its sources without importing it (importing torch
takes seconds; the codemod itself never needs it)."""

from __future__ import annotations

import functools
import importlib.util
import re
from pathlib import Path

PRIVATE_NONSTRICT_TRACE = "torch._dynamo.nonstrict_trace"
PUBLIC_NONSTRICT_TRACE = "torch.compiler.nonstrict_trace"


@functools.lru_cache(maxsize=1)
def nonstrict_trace_name() -> str:
    """`torch.compiler.nonstrict_trace` when the installed torch has that public alias, else
    `torch._dynamo.nonstrict_trace` (torch 2.7 and later; 2.13 has no public alias)."""
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        spec = None
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for location in locations:
        try:
            text = (Path(location) / "compiler" / "__init__.py").read_text(encoding="utf-8")
        except OSError:
            continue
        if re.search(r"^def nonstrict_trace\b|^\s*from\s+\S+\s+import\s+.*\bnonstrict_trace\b", text, re.MULTILINE):
            return PUBLIC_NONSTRICT_TRACE
    return PRIVATE_NONSTRICT_TRACE
