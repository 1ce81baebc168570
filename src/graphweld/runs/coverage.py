"""Which lines of the rewritten files the eager reference run executed."""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any


class LineCoverage:
    """Which lines of the given files the eager reference run executed, and how often: what a
    kept rewrite's verdict says it exercised. Traced with `sys.settrace`, scoped to those files (a
    frame of any other file is not traced line by line), so the cost is one check per call made."""

    def __init__(self, files: Any) -> None:
        self.files = frozenset(files)
        self.hits: dict[str, dict[int, int]] = {}

    @contextlib.contextmanager
    def recording(self):  # type: ignore[no-untyped-def]
        if not self.files:
            yield
            return
        files, hits = self.files, self.hits
        # A code object's file name -> its real path's counts, or None for a file not watched.
        watched: dict[str, dict[int, int] | None] = {}

        def counts_of(name: str) -> dict[int, int] | None:
            if name not in watched:
                real = os.path.realpath(name)
                watched[name] = hits.setdefault(real, {}) if real in files else None
            return watched[name]

        def lines(frame, event, arg):  # type: ignore[no-untyped-def]
            if event == "line":
                counts = counts_of(frame.f_code.co_filename)
                if counts is not None:
                    counts[frame.f_lineno] = counts.get(frame.f_lineno, 0) + 1
            return lines

        def calls(frame, event, arg):  # type: ignore[no-untyped-def]
            return lines if counts_of(frame.f_code.co_filename) is not None else None

        previous = sys.gettrace()
        sys.settrace(calls)
        try:
            yield
        finally:
            sys.settrace(previous)

    def as_json(self) -> dict[str, dict[str, int]]:
        return {file: {str(line): count for line, count in counts.items()} for file, counts in self.hits.items() if counts}
