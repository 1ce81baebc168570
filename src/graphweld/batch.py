"""Runs over files: each file read, prefiltered on its bytes, fixed to a fixed point (a notebook
cell by cell), in parallel worker processes for many files."""

from __future__ import annotations

import dataclasses
import functools
import multiprocessing
import os
import warnings
from concurrent.futures import ProcessPoolExecutor
from typing import Callable, Iterator, Sequence

from graphweld.analysis.project import ProjectIndex
from graphweld.changes import ChangeOrReport, FileResult, Report
from graphweld.dispatch import selected_rules
from graphweld.discover import discover
from graphweld.fix_loop import fix_text
from graphweld.notebook import Notebook, is_notebook, read_notebook
from graphweld.prefilter import MAY_HOLD_SITE, UNCOMPILED, file_verdict
from graphweld.run_evidence import RunEvidence
from graphweld.settings import Settings
from graphweld.source import SourceError, decode_source, read_bytes


def process_source(path: str, data: bytes, settings: Settings, compiled_elsewhere: frozenset[str] = frozenset()) -> FileResult:
    """Everything a run does for one file's bytes except writing. Never raises.

    `compiled_elsewhere`: the file's functions other files of the run compile (`Net.forward`).
    A notebook's code cells are fixed as one module; its result's texts are the notebook's JSON,
    and its changes and reports are located in cells.
    """
    result = FileResult(path=path)
    try:
        source = decode_source(path, data)
        result.source = source
        verdict = file_verdict(settings)(data, bool(compiled_elsewhere))
        if verdict != MAY_HOLD_SITE:
            result.no_region = verdict == UNCOMPILED
            return result
        notebook = read_notebook(path, source.text) if is_notebook(path) else None
        if is_notebook(path) and (notebook is None or not notebook.cells):
            return result  # not a Python notebook, or no code
        text = source.text if notebook is None else notebook.module_text
        result.parsed = True
        outcome = fix_text(text, path, settings, RunEvidence(compiled_elsewhere=compiled_elsewhere))
        if outcome.text != text and not compiles(outcome.text, path) and compiles(text, path):
            raise SourceError("internal error: the rewritten code does not compile (CPython); file left unchanged")
        fixed = outcome.text
        if notebook is not None:
            fixed = notebook.rendered(outcome.text) if outcome.text != text else source.text
        if fixed != source.text:
            source.encode(fixed)  # fails early if the text cannot be written back
            result.fixed = fixed
        if notebook is None:
            result.applied, result.unsafe_available, result.reports = outcome.applied, outcome.unsafe_available, outcome.reports
        else:
            result.applied = [in_cell(notebook, c, edits_text=t) for c, t in zip(outcome.applied, outcome.proposed_on)]
            # What is left is located in the notebook as it was; its edits apply to the final text.
            result.unsafe_available = [in_cell(notebook, c, edits_text=outcome.text) for c in outcome.unsafe_available]
            result.reports = [in_cell(notebook, r) for r in outcome.reports]
    except SourceError as exc:
        result.error = str(exc)
    except UnicodeEncodeError as exc:
        result.error = f"cannot encode the fixed text as {exc.encoding}"
    except Exception as exc:  # a bug in a rule must not take down the run
        result.error = f"internal error: {type(exc).__name__}: {exc}"
    return result


def in_cell(
    notebook: Notebook, item: ChangeOrReport, module_text: str | None = None, edits_text: str | None = None
) -> ChangeOrReport:
    """A change or report on a notebook's module text (`module_text`, or the notebook's own),
    located in its cell instead; a change's edits too (lines of `edits_text`, by default the
    same text), each with the cell it changes."""
    start = notebook.position(item.location.line, module_text)
    end = notebook.position(item.location.end_line, module_text)
    location = dataclasses.replace(
        item.location, cell=start.cell, line=start.line, end_line=end.line if end.cell == start.cell else start.line
    )
    if isinstance(item, Report):
        return dataclasses.replace(item, location=location)
    edits = []
    for edit in item.edits:
        first = notebook.position(edit.start_line + 1, edits_text or module_text)
        offset = edit.start_line + 1 - first.line
        edits.append(dataclasses.replace(edit, start_line=edit.start_line - offset, end_line=edit.end_line - offset, cell=first.cell))
    return dataclasses.replace(item, location=location, edits=tuple(edits))


def compiles(text: str, path: str) -> bool:
    """CPython's compiler checks more than libcst's parser (e.g. `continue` outside a loop)."""
    try:
        with warnings.catch_warnings():
            # The user's code may warn (`"a" (b)`: 'str' object is not callable); not ours to print.
            warnings.simplefilter("ignore")
            compile(text, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    except (RecursionError, MemoryError):
        return True  # too deep for the compiler here; libcst parsed it
    return True


def process_path(path: str, settings: Settings, index: ProjectIndex | None = None) -> FileResult:
    try:
        data = read_bytes(path)
    except SourceError as exc:
        return FileResult(path=path, error=str(exc))
    result = process_source(path, data, settings, index.names_for(path) if index is not None else frozenset())
    if not result.changed:
        # Only a changed file's text is needed again (to write or diff it); a worker would
        # otherwise send every file's text back to the main process.
        result.source = None
    return result


def _worker_context() -> multiprocessing.context.BaseContext:
    # fork starts workers in milliseconds; spawn re-imports everything per worker.
    if "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


def run(
    paths: Sequence[str],
    settings: Settings,
    jobs: int | None = None,
    on_discovered: Callable[[int], None] | None = None,
) -> Iterator[FileResult]:
    """Process every Python file under `paths`, yielding results as they finish (in any order).

    Paths that cannot be walked yield a result with an error; processing continues.
    """
    selected_rules(settings)  # unknown rule ids fail before any work
    files, errors = discover(paths, settings.exclude)
    for path, message in errors:
        yield FileResult(path=path, error=message)
    if on_discovered is not None:
        on_discovered(len(files))
    # Which functions of one file another file compiles (`torch.compile(Net())` in train.py).
    index = None if settings.assume_compiled else ProjectIndex.build(files)
    jobs = jobs or os.cpu_count() or 1
    if jobs == 1 or len(files) < 4:
        for path in files:
            yield process_path(path, settings, index)
        return
    chunksize = max(1, min(32, len(files) // (jobs * 8)))
    with ProcessPoolExecutor(max_workers=min(jobs, len(files)), mp_context=_worker_context()) as pool:
        yield from pool.map(functools.partial(process_path, settings=settings, index=index), files, chunksize=chunksize)
