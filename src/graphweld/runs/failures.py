"""A compiled run's failure described for its user: the first line of the error, where in the
user's code it was raised, and Dynamo's explanation."""

from __future__ import annotations

import os
import re
import traceback
from typing import Any

from graphweld.runs.library_files import is_library_file


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0]}" if text else type(exc).__name__


def _compile_error_line(exc: BaseException, where: str) -> str:
    """The first line of a compile's failure; where it says nothing past the exception's name
    (Dynamo wrapping an error raised without a message, `InternalTorchDynamoError:
    NotImplementedError:`), `where` (`_raised_where`): which function raised it and which of
    Dynamo's called into it."""
    line = first_line(exc)
    if re.sub(r"^(\s*\w+:)+", "", line).strip():
        return line
    return f"{line.rstrip(':').rstrip()} ({where})" if where else line


def _raised_where(exc: BaseException) -> str:
    """`raised in Irreps.__len__ (e3nn/o3/_irreps.py:264), called from Dynamo's _sequence_length
    (guards.py)`: the raising frame and the nearest of Dynamo's frames above it, from the deepest
    traceback of the exception and those it wraps (Dynamo re-raises with the original's)."""
    chain, inner = [exc], exc
    while (inner := inner.__cause__ or inner.__context__) is not None and inner not in chain:
        chain.append(inner)
    frames = max(([frame for frame, _ in traceback.walk_tb(e.__traceback__)] for e in chain), key=len)
    if not frames:
        return ""
    raised = frames[-1]
    code = raised.f_code
    said = f"raised in {getattr(code, 'co_qualname', code.co_name)} ({_short_path(code.co_filename)}:{raised.f_lineno})"
    for frame in reversed(frames[:-1]):
        path = frame.f_code.co_filename.replace(os.sep, "/")
        if "/torch/_dynamo/" in path:
            return f"{said}, called from Dynamo's {frame.f_code.co_name} ({path.rsplit('/torch/_dynamo/', 1)[1]})"
    return said


def _short_path(filename: str) -> str:
    """A file's path from its package on (`e3nn/o3/_irreps.py`), or as given outside site-packages."""
    path = filename.replace(os.sep, "/")
    return path.rsplit("/site-packages/", 1)[1] if "/site-packages/" in path else path


class FullgraphFailed(Exception):
    """The program's own `fullgraph=True` compile failed: measured again with it relaxed."""


class CompiledRunFailed(Exception):
    """The compiled run raised (in Dynamo, in fake-tensor propagation or in the compiled code):
    `error` the exception, `compiled_by` who made the compile that failed."""

    def __init__(self, error: BaseException, compiled_by: str) -> None:
        super().__init__(str(error))
        self.error = error
        self.compiled_by = compiled_by

    def fields(self) -> dict[str, Any]:
        """The run report's fields for the failure: where in the user's code, and Dynamo's word."""
        error = self.error
        where = _raised_where(error)
        line = _compile_error_line(error, where)
        return dict(
            compiled_by=self.compiled_by,
            compile_error=line,
            compile_error_stack=user_stack(error),
            compile_error_explanation=_explanation(error, line, where),
            fullgraph=False,
            fullgraph_error=described(error),
        )


def described(exc: BaseException) -> str:
    """An exception's first line, and where in the user's code it was raised: Dynamo's own record
    of the code it was tracing, else the innermost frame outside torch and the standard library."""
    site = error_site(exc)
    return f"{first_line(exc)} (at {site})" if site else first_line(exc)


def user_stack(exc: BaseException) -> list[tuple[str, int, str]]:
    """The frames of the user's code an exception passed through, outermost first, as (real path,
    line, function): Dynamo's record of the code it was tracing when it has one, else the
    traceback's."""
    real_stack = getattr(exc, "real_stack", None)
    frames = [(frame.filename, frame.lineno, frame.name) for frame in real_stack or ()]
    if not frames:
        frames = [(frame.filename, frame.lineno, frame.name) for frame in traceback.extract_tb(exc.__traceback__)]
    stack = []
    for filename, line, function in frames:
        real = os.path.realpath(filename)
        if line and os.path.isfile(real) and not is_library_file(real):
            stack.append((real, int(line), function))
    return stack


def _explanation(exc: BaseException, line: str, where: str) -> str:
    """Dynamo's explanation of a failure (its "Explanation:" line), else `line`, the failure's
    first line as `_compile_error_line` gave it, with what to do where Dynamo's guard on a
    sequence's length is what failed (`where`, from `_raised_where`, says so whatever the
    error's own message)."""
    for text in str(exc).splitlines():
        stripped = text.strip()
        if stripped.startswith("Explanation:"):
            return stripped.removeprefix("Explanation:").strip()
    if re.search(r"called from Dynamo's (SEQUENCE_LENGTH|_sequence_length) ", where):
        return (
            f"{line}: Dynamo guards the length of a sequence the compiled code reads, and this one's len() raises; "
            "hand the compiled code a plain tuple or list of what it needs from it instead"
        )
    return line


def error_site(exc: BaseException) -> str:
    """`file:line` of the user's code an exception comes from (the innermost of `user_stack`), or ""."""
    stack = user_stack(exc)
    return f"{stack[-1][0]}:{stack[-1][1]}" if stack else ""
