"""The fix confirmed with the program's own backend.

`--compile-options backend=eager` makes every run of a verified fix cheaper (Dynamo only, no
inductor compile), and where the program compiles itself it replaces the backend of the program's
own `torch.compile` calls. What it verifies is then what Dynamo traces, not what the program runs:
a rewrite or a Dynamo switch that traces under the eager backend can still fail in inductor's
lowering (measured: a forecaster whose `allow_rnn` and `capture_scalar_outputs` verified under
the eager backend and failed to compile under inductor). So before anything is written, the kept
result, exactly as it would be written, runs once more with the program's own backends. A setting
that fails there is refused and the next best is tried (`verified_fix`); kept rewrites that fail
there without a setting are not kept: each is listed as tried, with why. A failure the original
program meets with its own backend as well says nothing of the fix (the program does not run so
as it stands), and the forced backend's verdict stands.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Callable

from graphweld.runs.entry import EntryError, RunReport
from graphweld.runs.explanation import explain_sites
from graphweld.runs.targets import Target
from graphweld.runs.verified_result import Tried, VerifiedFix
from graphweld.runs.verify import OUTPUTS_DIFFER, compare_calls
from graphweld.settings import Settings

# Who compiled a run where the program's own torch.compile calls were measured: only there does a
# forced backend stand in for a backend the program chose.
PROGRAM_COMPILES = frozenset({"entry", "command"})


def backend_stands_in(target: Target, result: VerifiedFix) -> bool:
    """Whether the runs forced a backend onto the program's own compiles."""
    return "backend" in target.runs.compile_options and result.before.compiled_by in PROGRAM_COMPILES


def setting_refused(target: Target, result: VerifiedFix, progress: Callable[[str], None]) -> str | None:
    """Why the setting written (with the kept rewrites, as they will be written) fails with the
    program's own backend; None when it holds, or when there is nothing to confirm."""
    if result.setting_fix is None or not backend_stands_in(target, result):
        return None
    said = ", ".join(result.setting_fix.trial.settings)
    progress(f"running {said} as written with the program's own backend instead of backend={_forced(target)} (compiled run)")
    problem = _problem(target, result, _own_options(target))
    return None if problem is None else f"it verified with backend={_forced(target)}, but with the program's own backend {problem}"


def confirm_rewrites(target: Target, settings: Settings, result: VerifiedFix, progress: Callable[[str], None]) -> None:
    """Where no setting is written (one that is was confirmed with them), run the kept rewrites
    with the program's own backend; where they fail, none is kept, each listed as tried with why."""
    if result.setting_fix is not None or not backend_stands_in(target, result):
        return
    if not any(candidate.applied for candidate in result.kept.values()):
        return
    progress(f"running the kept rewrites with the program's own backend instead of backend={_forced(target)} (compiled run)")
    problem = _problem(target, result, _own_options(target))
    if problem is None:
        return
    why = f"it verified with backend={_forced(target)}, but with the program's own backend {problem} (with the other kept rewrites)"
    # A change kept as a site's next fix is now dropped with the rest: listed once, with why.
    result.tried = [item for item in result.tried if not item.kept] + [
        Tried(path, change, False, why) for path, candidate in result.kept.items() for change in candidate.applied
    ]
    result.kept, result.after, result.effects, result.exercised = {}, result.before, {}, {}
    result.remaining = explain_sites(result.before, settings, texts={}, dropped=[(t.change, t.why) for t in result.dropped])


def _forced(target: Target) -> str:
    return str(target.runs.compile_options["backend"])


def _own_options(target: Target) -> dict:  # type: ignore[type-arg]
    """The run's compile options less the forced backend: the program's own compiles choose theirs."""
    return {name: value for name, value in target.runs.compile_options.items() if name != "backend"}


def _problem(target: Target, result: VerifiedFix, options: dict) -> str | None:  # type: ignore[type-arg]
    """What goes wrong with the program's own backend that does not go wrong for the original,
    compiled the same way: the compiled run fails, or (for an entry) its outputs differ from eager
    beyond what the original's already differ by. None when it holds, or when the original fails
    with that backend too (then the forced backend's verdict is the only one there is)."""
    try:
        run: RunReport | None = target.compiled(result.texts, options)
    except EntryError as exc:
        run, failure = None, f"the compiled run fails with {getattr(exc, 'reason', exc)}"
    else:
        failure = None
        if run.compile_fails:
            where = f" (at {os.path.basename(run.compile_failure.file)}:{run.compile_failure.line})" if run.compile_failure else ""
            failure = f"the compiled run fails with {run.compile_error}{where}"
    if failure is None:
        assert run is not None
        if all(leaf.equal for leaf in compare_calls(result.before, run)):
            return None
    original = _original(target, result, options)
    if original is None:
        return None  # the original fails with the program's own backend as well
    if failure is not None:
        return failure
    assert run is not None
    # The original's own compile with that backend sets the noise floor, as in every verdict.
    floor = _with_compiled_outputs(result.before, original)
    differing = [leaf for leaf in compare_calls(floor, run, compile_noise=True) if not leaf.equal]
    return None if not differing else f"{OUTPUTS_DIFFER} at {differing[0].path}: {differing[0].detail}"


def _original(target: Target, result: VerifiedFix, options: dict) -> RunReport | None:  # type: ignore[type-arg]
    """The files as given, run compiled with the program's own backend (once per fix); None when
    that run fails."""
    if result.own_backend_original is None:
        try:
            result.own_backend_original = target.compiled({}, options)
        except EntryError as exc:
            result.own_backend_original = str(getattr(exc, "reason", exc))
    original = result.own_backend_original
    return None if isinstance(original, str) or original.compile_fails else original


def _with_compiled_outputs(before: RunReport, original: RunReport) -> RunReport:
    """`before`'s eager reference, with the compiled outputs of `original` as the compiled original."""
    outputs = {name: value for name, value in before.outputs.items() if name.startswith("eager")}
    outputs.update({name: value for name, value in original.outputs.items() if name.startswith("compiled")})
    return dataclasses.replace(before, outputs=outputs)
