"""What the torch a rewrite will run on offers, and which torch the installed one is, read from
its sources without importing it (importing torch takes seconds; the codemod itself never needs
it).

A rewrite must run on every torch the pyproject admits (`torch>=2.13`), whichever torch graphweld
itself runs under: the same input gives the same output under 2.13 and 2.14.
"""

from __future__ import annotations

import functools
import importlib.util
import re
from pathlib import Path

# The calls that tell code run under Dynamo from eager code (isolate-io's guard tests one).
IS_COMPILING = frozenset({"torch.compiler.is_compiling", "torch._dynamo.is_compiling"})

# The name every rewrite writes for non-strict tracing: it exists from torch 2.7 on, and Dynamo
# traces through it in both forms (decorator, and `nonstrict_trace(g)(w)` at a call site) on 2.13
# and 2.14 (measured). The public alias `torch.compiler.nonstrict_trace` (2.14) is not written: it
# is missing before 2.14, and Dynamo 2.14 skips it at a call site (GB0007, "file matches
# MOD_SKIPLIST (torch/compiler)").
NONSTRICT_TRACE = "torch._dynamo.nonstrict_trace"
PUBLIC_NONSTRICT_TRACE = "torch.compiler.nonstrict_trace"


@functools.lru_cache(maxsize=1)
def installed_torch() -> tuple[int, int] | None:
    """(major, minor) of the torch installed beside graphweld, read from `torch/version.py`;
    None when there is none (rewriting needs no torch)."""
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        spec = None
    for location in list(spec.submodule_search_locations or []) if spec is not None else []:
        try:
            text = (Path(location) / "version.py").read_text(encoding="utf-8")
        except OSError:
            continue
        found = re.search(r"^__version__\s*=\s*['\"](\d+)\.(\d+)", text, re.MULTILINE)
        if found:
            return int(found.group(1)), int(found.group(2))
    return None
