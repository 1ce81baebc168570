"""The `torch.compile` calls the program makes itself, watched: whether it compiles anything, and
whether it asks for `fullgraph=True` (relaxed, for a second measurement, when it fails)."""

from __future__ import annotations

import os
import sys
from typing import Any

from graphweld.runs.compile_options import capture_as_fullgraph_does
from graphweld.runs.library_files import is_library_file


# Where torch.compile's call forms lead to `_optimize`: the frame before them made the call.
_COMPILE_ENTRY_FILES = (
    os.path.join("torch", "__init__.py"),
    os.path.join("torch", "_dynamo", "eval_frame.py"),
    os.path.join("torch", "_dynamo", "__init__.py"),
    os.path.join("torch", "nn", "modules", "module.py"),
)


def _called_by_program(frame: Any) -> bool:
    """Whether the code that called torch.compile (through any of its entry points) is the
    program's rather than torch's own."""
    while frame is not None and frame.f_code.co_filename.endswith(_COMPILE_ENTRY_FILES):
        frame = frame.f_back
    return frame is not None and not is_library_file(os.path.realpath(frame.f_code.co_filename))


class ProgramCompiles:
    """Watches the `torch.compile` calls the program makes (every call form reaches Dynamo's
    `_optimize`): whether it made any, whether one asked for `fullgraph=True`, and, with `relax`,
    compiles those with `fullgraph=False` instead, so that their breaks are logged rather than
    raised. Compiles torch makes for itself (`torch.cond` run eagerly compiles its branches) are
    not the program's. Installed before the entry is loaded: a decorator compiles when its
    module is imported. Dynamo's switches are global: a program that mixes fullgraph=True compiles
    with others, relaxed or under a forced backend, has the others capture as fullgraph does too."""

    def __init__(self, relax: bool, backend_forced: bool = False) -> None:
        self.relax = relax
        self.backend_forced = backend_forced
        self.made_any = False
        self.fullgraph_requested = False

    def install(self) -> None:
        import torch._dynamo.eval_frame as eval_frame

        original = eval_frame._optimize
        watcher = self

        def _optimize(rebuild_ctx, *args, **kwargs):  # type: ignore[no-untyped-def]
            if _called_by_program(sys._getframe(1)):
                watcher.made_any = True
                if kwargs.get("nopython"):
                    watcher.fullgraph_requested = True
                    if watcher.relax:
                        kwargs["nopython"] = False
                    if watcher.relax or watcher.backend_forced:
                        # Relaxed, or recompiled by a forced backend (which drops the request),
                        # the compile still captures what fullgraph=True captures without a break
                        # (an `.item()`, a boolean mask's rows): the breaks found are the program's.
                        capture_as_fullgraph_does()
            return original(rebuild_ctx, *args, **kwargs)

        eval_frame._optimize = _optimize
