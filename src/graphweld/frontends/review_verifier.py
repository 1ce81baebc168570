"""The interactive review's verifier, when it is given a run: the sites the run saw, and how each
change the user is offered verifies, one change at a time."""

from __future__ import annotations

import os
from typing import Sequence

from graphweld.discover import discover
from graphweld.edits import apply_edits
from graphweld.engine import Change
from graphweld.rule import Safety
from graphweld.runs.entry import EntryError, sites_by_file
from graphweld.runs.exercised import exercised_in
from graphweld.runs.targets import EntryTarget, Target, check_tests_pass, tests_fail
from graphweld.runs.verify import failed, numbers_vary, verdict_line
from graphweld.settings import Settings
from graphweld.source import read_source


def review_verifier(target: Target, paths: Sequence[str], settings: Settings):  # type: ignore[no-untyped-def]
    """For the interactive review with a run: the sites the run saw in the files under `paths`,
    and a function telling how one rewritten file verifies (files reviewed earlier are written
    already; only this one is served from memory). As in `fix`, an unsafe change may change what
    the program shows: that is what makes it unsafe."""
    check_tests_pass(target)
    files, _ = discover(paths, settings.exclude)
    under = {os.path.realpath(path) for path in files}
    before = target.reference(coverage_files=tuple(under))
    sites, _ = sites_by_file(before, lambda file: file in under)
    # The files as the reference run ran them (the review writes a file when done with it).
    originals: dict[str, str] = {}

    def verify(path: str, text: str, change: Change) -> str:
        real = os.path.realpath(path)
        overlay = {real: apply_edits(text, list(change.edits))}
        try:
            after = target.compiled(overlay)
        except EntryError as exc:
            return "NOT verified: " + failed(exc).problems[0]
        verdict = target.judge(
            before, after, check_shown=change.safety is not Safety.UNSAFE, previous=before, numbers_vary=numbers_vary([change])
        )
        failing = tests_fail(target, overlay) if verdict.ok else None
        if failing is not None:
            verdict.problems.append(failing)
        line = verdict_line(before, after, verdict)
        if isinstance(target, EntryTarget):
            if real not in originals:
                originals[real] = read_source(path).text
            # The change is located in the review's text before it, which earlier accepted changes moved.
            line += f"; {exercised_in(path, change.location.line, text, originals[real], before).said}"
        return line

    return verify, sites
