"""What a run shows its user: its printed text, its own log records and its warnings, apart from
what the compiler and torch log or warn while compiling."""

from __future__ import annotations

import contextlib
import functools
import io
import logging
import os
import re
from typing import Any, Callable

from graphweld.runs.library_files import is_library_file


def keep_log_records(records: list[list[str]]) -> Callable[[], None]:
    """From now on, every log record of the program's own (`is_programs_record`) is appended to
    `records` as [logger, level, message] (and handled as before); returns the function that
    stops it."""
    original_handle = logging.Logger.handle

    def handle(logger: logging.Logger, record: logging.LogRecord) -> None:
        if is_programs_record(record):
            records.append([record.name, record.levelname, record.getMessage()])
        original_handle(logger, record)

    logging.Logger.handle = handle  # type: ignore[method-assign]

    def restore() -> None:
        logging.Logger.handle = original_handle  # type: ignore[method-assign]

    return restore


def is_programs_record(record: logging.LogRecord) -> bool:
    """Whether a log record is the program's: not logged by torch, by the standard library or by
    a package torch depends on. With the root logger at DEBUG, a compiled run adds records the
    eager run has not (inductor's file locks through `filelock`, its worker pools through
    `concurrent.futures`); they are the compiler's, not what the program shows."""
    if record.name.split(".")[0] in ("torch", *_torch_dependency_modules()):
        return False
    return not (record.pathname and is_library_file(os.path.realpath(record.pathname)))


@functools.lru_cache(maxsize=1)
def _torch_dependency_modules() -> frozenset[str]:
    """The top-level modules of the distributions torch requires (filelock, sympy, triton...)."""
    import importlib.metadata

    try:
        required = importlib.metadata.requires("torch") or []
    except importlib.metadata.PackageNotFoundError:
        return frozenset()
    wanted = {_distribution_key(re.split(r"[ ;<>=!~\[(]", line, maxsplit=1)[0]) for line in required if "extra ==" not in line}
    return frozenset(
        module for module, distributions in importlib.metadata.packages_distributions().items()
        if any(_distribution_key(name) in wanted for name in distributions)
    )


def _distribution_key(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


class OutputRecorder:
    """What a run shows its user: printed text, log records and warnings, in order. Records the
    compiler logs (`is_programs_record`) and warnings raised inside torch (compilation notices)
    are not the program's. Once-only logging helpers (transformers' `logger.warning_once`, an lru_cache on
    Logger) are reset first, so every run starts from the same state."""

    def __init__(self) -> None:
        self.printed = io.StringIO()
        self.records: list[list[str]] = []
        self.warnings: list[list[str]] = []

    @contextlib.contextmanager
    def recording(self):  # type: ignore[no-untyped-def]
        import warnings

        import torch

        torch_root = os.path.dirname(torch.__file__) + os.sep
        for value in vars(logging.Logger).values():
            if hasattr(value, "cache_clear"):
                value.cache_clear()
        restore_logging = keep_log_records(self.records)
        try:
            with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(self.printed):
                warnings.simplefilter("always")
                yield self
        finally:
            restore_logging()
        self.warnings.extend(
            [w.category.__name__, str(w.message)] for w in caught if not str(w.filename).startswith(torch_root)
        )

    def fields(self, prefix: str) -> dict[str, Any]:
        return {
            f"{prefix}_stdout": self.printed.getvalue(),
            f"{prefix}_log_records": self.records,
            f"{prefix}_warnings": self.warnings,
        }
