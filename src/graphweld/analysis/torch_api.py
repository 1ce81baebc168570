"""What the torch a rewrite will run on offers, and which torch the installed one is, read from
its sources without importing it (importing torch takes seconds; the codemod itself never needs
it).

A rewrite must run on every torch the pyproject admits (`torch>=2.13`), whichever torch graphweld
itself runs under: the same input gives the same output under 2.13, 2.14 and 2.15.
"""

from __future__ import annotations

import functools
import importlib.util
import re
from pathlib import Path

# The calls that tell code run under Dynamo from eager code (isolate-io's guard tests one).
IS_COMPILING = frozenset({"torch.compiler.is_compiling", "torch._dynamo.is_compiling"})

# The torch releases CI runs graphweld's tests on: the floor (the pyproject's `torch>=2.13`, the
# whole suite) and the current release (every test that depends on what Dynamo does). A run under
# an older or newer torch says so once.
TESTED_TORCH = ((2, 13), (2, 15))

# The name every rewrite writes for non-strict tracing: it exists from torch 2.7 on, and Dynamo
# traces through it in both forms (decorator, and `nonstrict_trace(g)(w)` at a call site) on 2.13,
# 2.14 and 2.15 (measured). The public alias `torch.compiler.nonstrict_trace` is not written: it is
# missing before 2.14, and Dynamo 2.14 skips it at a call site (GB0007, "file matches
# MOD_SKIPLIST (torch/compiler)"); 2.15 traces both spellings alike.
NONSTRICT_TRACE = "torch._dynamo.nonstrict_trace"
PUBLIC_NONSTRICT_TRACE = "torch.compiler.nonstrict_trace"


@functools.lru_cache(maxsize=1)
def installed_torch() -> tuple[int, int] | None:
    """(major, minor) of the torch installed beside graphweld, read from `torch/version.py`;
    None when there is none (rewriting needs no torch)."""
    version = installed_torch_version()
    found = re.match(r"(\d+)\.(\d+)", version or "")
    return (int(found.group(1)), int(found.group(2))) if found else None


def installed_torch_version() -> str | None:
    """The version of the torch installed beside graphweld (`2.15.0+cu132`), read from
    `torch/version.py`; None when there is none."""
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        spec = None
    for location in list(spec.submodule_search_locations or []) if spec is not None else []:
        try:
            text = (Path(location) / "version.py").read_text(encoding="utf-8")
        except OSError:
            continue
        found = re.search(r"^__version__\s*=\s*['\"]([^'\"]+)['\"]", text, re.MULTILINE)
        if found:
            return found.group(1)
    return None


def tested_torch_said() -> str:
    """`torch 2.13 and 2.15`."""
    return "torch " + " and ".join(f"{major}.{minor}" for major, minor in TESTED_TORCH)
