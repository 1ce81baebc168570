"""What a verified fix weighs for eager-helper's changes, the one rule that gives up compiling a
helper: such a change is refused when it takes the model's compiled work with it, and dropped
when a capture setting does better tracing the helper whole."""

from __future__ import annotations

import difflib
import os
from typing import Callable, Iterable

from graphweld.codemods.eager_helper import EagerHelper
from graphweld.engine import Change
from graphweld.runs.capture_fix import best_trial, picture, setting_writable
from graphweld.runs.capture_pass import choose_capture_setting
from graphweld.runs.entry import EntryError, RunReport
from graphweld.runs.explanation import explain_sites, measure_capture_settings
from graphweld.runs.targets import Target
from graphweld.runs.verified_result import Candidate, Tried, VerifiedFix
from graphweld.settings import Settings
from graphweld.source import SourceError, read_source


# The rule whose change gives up tracing a helper: a capture setting may trace it whole instead.
EAGER_HELPER = EagerHelper.id


# eager-helper's form that moves a run of a helper's statements into a function of its own.
BLOCK_FORM = "block"
# The fewest ops in graphs for which a helper that takes half of them eagerly is refused.
MIN_OPS_JUDGED = 20


def compiled_work_moved_out(previous: RunReport, after: RunReport, changes: Iterable[Change]) -> str:
    """Why a helper run eagerly is not progress when it takes part of the model with it: nothing
    is compiled after it (torchdiffeq's `odeint`, graphs 28 -> 0), a layer's parameters (a weight
    and its bias) leave the graphs (torchdyn's `odeint`, whose reversed-time branch broke:
    disabled, the vector field's every step runs eagerly, parameters in graphs 4 -> 0, 420 ops ->
    1), or most of their ops do; "" when it is not that. A helper that reads one parameter itself
    (SpecAugment's mask embedding) may take it."""
    if not any(change.rule == EAGER_HELPER for change in changes):
        return ""
    if previous.graphs and not after.graphs:
        return f"nothing is compiled any more: graphs {previous.graphs} -> 0"
    before, now = previous.parameters_in_graphs, after.parameters_in_graphs
    if before is not None and now is not None and before - now >= 2:
        return f"part of the model would run eagerly: parameters in graphs {before} -> {now}"
    # Most of the compiled work leaving with it (torchcde's `odeint`, whose vector field is called
    # through an interpolation: ops in graphs 103 -> 27). Programs of a handful of ops are not
    # judged by this: a helper's few ops are a large share of them. Nor is a run of statements
    # moved out of a helper (the block form): it calls no layer, and the ops that leave are those
    # of the pieces Dynamo compiled between its breaks (ViLT's patch sampling).
    whole_helpers = any(change.rule == EAGER_HELPER and change.form != BLOCK_FORM for change in changes)
    if whole_helpers and previous.ops >= MIN_OPS_JUDGED and after.ops * 2 < previous.ops:
        return f"most of the compiled work would run eagerly: ops in graphs {previous.ops} -> {after.ops}"
    return ""


def weigh_eager_helpers(
    target: Target,
    settings: Settings,
    result: VerifiedFix,
    setting_path: str | None,
    progress: Callable[[str], None],
    note: Callable[[str], None],
) -> None:
    """With --unsafe-fixes, a program that compiles itself in `setting_path` (a setting can be written
    there) and eager-helper changes kept: measure the capture settings again without those changes
    (a setting can let Dynamo trace the helpers whole, which a disabled helper never is) and keep
    whichever program compiles better; eager-helper's changes are dropped with the reason when the
    setting does better without them. Where graphweld compiled the entry's model itself (no
    setting can be written), the changes stay, and when a setting does better without them the
    note says so with what it measured: the line to add where you compile (a helper sizing
    positions by `.tolist()`: `capture_scalar_outputs` traces it whole)."""
    if setting_path is None or not any(
        change.rule == EAGER_HELPER for candidate in result.kept.values() for change in candidate.applied
    ):
        return
    import libcst as cst

    try:
        writable = setting_writable(read_source(setting_path))
    except (SourceError, cst.ParserSyntaxError):
        return
    if writable and not settings.unsafe_fixes:
        return
    without: dict[str, Candidate] = {}
    disabled = 0
    for path, candidate in result.kept.items():
        helpers = [change for change in candidate.applied if change.rule == EAGER_HELPER]
        if not helpers:
            continue
        disabled += len(helpers)
        text = _without_disable(candidate.fixed, candidate.source.text, len(helpers))
        if text is None:
            return  # the decorators cannot be told apart from the user's own: keep what was verified
        rest = [change for change in candidate.applied if change.rule != EAGER_HELPER]
        without[path] = Candidate(candidate.source, text, rest)
    if not without:
        return
    kept = {**result.kept, **without}
    texts = {os.path.realpath(path): candidate.fixed for path, candidate in kept.items()}
    options = target.runs.compile_options
    progress("measuring the capture settings without eager-helper's changes (a setting may trace those helpers)")
    try:
        report = target.compiled(texts)
    except EntryError as exc:
        note(f"without eager-helper's changes the run fails: {exc}")
        return
    trials = measure_capture_settings(
        report, options, lambda chosen: target.compiled(texts, chosen),
        progress=lambda message: progress(f"{message} without eager-helper's changes"), failed=note,
    )
    trial = best_trial(trials, result.refused_settings)
    current = best_trial(result.trials, result.refused_settings)
    with_them = current.after if current is not None else result.after
    if trial is None or (with_them is not None and picture(trial.after) >= picture(with_them)):
        return
    if not writable:
        said = (
            f"without eager-helper's {disabled} change(s), {trial.assignments()} where you compile does better "
            f"({trial.line()}); graphweld compiled the model itself, so it keeps them"
        )
        result.setting_note = f"{result.setting_note}; {said}" if result.setting_note else said
        return
    why = f"the capture setting does better without it ({trial.line()})"
    for path, candidate in result.kept.items():
        result.tried.extend(Tried(path, change, False, why) for change in candidate.applied if change.rule == EAGER_HELPER)
    result.kept = {path: candidate for path, candidate in kept.items() if candidate.applied}
    result.trials, result.after = trials, report
    result.remaining = explain_sites(report, settings, texts=result.texts, dropped=[(t.change, t.why) for t in result.dropped])
    result.setting_fix = None
    choose_capture_setting(target, settings, result, setting_path)


def _without_disable(fixed: str, original: str, count: int) -> str | None:
    """`fixed` with the `@<torch>.compiler.disable` decorators it has and `original` lacks removed;
    None unless exactly `count` such lines are found."""
    fixed_lines = fixed.splitlines(keepends=True)
    added = []
    matcher = difflib.SequenceMatcher(a=original.splitlines(keepends=True), b=fixed_lines, autojunk=False)
    for tag, _, _, first, last in matcher.get_opcodes():
        if tag in ("insert", "replace"):
            added += [
                index for index in range(first, last)
                if fixed_lines[index].strip().endswith(".compiler.disable") and fixed_lines[index].lstrip().startswith("@")
            ]
    if len(added) != count:
        return None
    removed = set(added)
    return "".join(line for index, line in enumerate(fixed_lines) if index not in removed)
