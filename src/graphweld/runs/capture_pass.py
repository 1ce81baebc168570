"""The capture-setting pass of a verified fix: after the rounds, the best measured Dynamo capture
setting is chosen, written into the entry's kept text and verified as written."""

from __future__ import annotations

import dataclasses
import os
from typing import Callable, Sequence

from graphweld.runs.capture_fix import COMMAND_MARKER, MARKER, best_trial, capture_setting_fix, setting_writable
from graphweld.runs.command import script_path
from graphweld.runs.entry import EntryError, RunReport
from graphweld.runs.explanation import explain_sites, outcome
from graphweld.runs.targets import CommandTarget, EntryTarget, Target, tests_fail
from graphweld.runs.verified_result import Candidate, VerifiedFix
from graphweld.runs.verify import failed
from graphweld.settings import Settings
from graphweld.source import SourceError, read_source


def setting_file(target: Target, files: Sequence[str], result: VerifiedFix) -> str | None:
    """The file a capture setting goes into: where the program compiles. An entry's own file; for
    a command, the script it starts (`python SCRIPT`) or else the first of the files being fixed,
    whichever holds a torch.compile call (as the kept rewrites left it). None for a command none
    of whose files graphweld may write compiles."""
    if isinstance(target, EntryTarget):
        return target.entry.partition("::")[0]
    script = script_path(target.command) if isinstance(target, CommandTarget) else None
    for path in ([script] if script else []) + sorted(files):
        if _compiles(path, result):
            return path
    return None


def _compiles(path: str, result: VerifiedFix) -> bool:
    import libcst as cst

    kept = result.kept.get(kept_key(result, path))
    try:
        source = read_source(path)
        return setting_writable(source, kept.fixed if kept is not None else None)
    except (SourceError, cst.ParserSyntaxError):
        return False


def choose_capture_setting(target: Target, settings: Settings, result: VerifiedFix, path: str | None) -> None:
    """With --unsafe-fixes, the best measured capture setting is written before the torch.compile
    call of `path` (`setting_file`'s); else (or when there is no call to put it by) a note says
    why not."""
    import libcst as cst

    trial = best_trial(result.trials, result.refused_settings)
    if trial is None:
        return
    if not settings.unsafe_fixes:
        result.setting_note = "a setting is global to the process, so writing it is an unsafe fix (--unsafe-fixes)"
        return
    if path is None:
        result.setting_note = (
            f"no file of the command's that graphweld may write calls torch.compile; set {trial.assignments()} "
            "where you compile"
        )
        return
    kept = result.kept.get(kept_key(result, path))
    try:
        # Onto the entry as the kept rewrites left it: the file is written once, with both.
        marker = MARKER if isinstance(target, EntryTarget) else COMMAND_MARKER
        if kept is not None:
            fix = capture_setting_fix(kept.source, trial, kept.fixed, marker)
        else:
            fix = capture_setting_fix(read_source(path), trial, marker=marker)
    except (SourceError, cst.ParserSyntaxError) as exc:
        result.setting_note = str(exc)
        return
    if isinstance(fix, str):
        result.setting_note = fix
    else:
        result.setting_fix = fix


def kept_key(result: VerifiedFix, path: str) -> str:
    """The key of `result.kept` naming the same file as `path` (or `path` itself)."""
    real = os.path.realpath(path)
    return next((key for key in result.kept if os.path.realpath(key) == real), path)


def measure_setting_as_written(
    target: EntryTarget, settings: Settings, result: VerifiedFix, progress: Callable[[str], None]
) -> None:
    """Run the files exactly as they would be written (the kept rewrites, the setting in the
    entry's text, no setting passed by graphweld) and judge that run against the kept rewrites
    alone. It verifies: the setting joins the entry's kept text (one write per file) and this run
    is the result's picture. It does not: the setting is not written, and the note says why."""
    fix = result.setting_fix
    if fix is None:
        return
    key = kept_key(result, fix.path)
    texts = {**result.texts, os.path.realpath(fix.path): fix.fixed}
    progress(f"verifying {', '.join(fix.trial.settings)} as written in {os.path.basename(fix.path)}, with the kept rewrites (compiled run)")
    without = result.after or result.before
    try:
        written = target.compiled(texts)
        verdict = target.judge(result.before, written, check_shown=False, previous=without)
    except EntryError as exc:
        verdict, written = failed(exc), None
    failing = tests_fail(target, texts) if written is not None and verdict.better else None
    if written is None or not verdict.better or failing:
        why = failing or "; ".join(verdict.problems) or verdict.not_counted or "the compile picture is no better than without it"
        result.setting_fix = None
        result.setting_note = f"written into {os.path.basename(fix.path)} with the kept rewrites, it does not verify: {why}"
        return
    kept = result.kept.get(key)
    result.kept[key] = Candidate(fix.source, fix.fixed, kept.applied if kept is not None else [])
    rewrites = sum(len(candidate.applied) for candidate in result.kept.values())
    with_rewrites = f", with the {rewrites} kept rewrite(s) (against those alone)" if rewrites else ""
    result.setting_fix = dataclasses.replace(
        fix, measured=f"as written{with_rewrites}: {_picture_change(without, written)}, {outcome(result.before, written)}"
    )
    result.after = written
    result.remaining = explain_sites(written, settings, texts=result.texts, dropped=[(t.change, t.why) for t in result.dropped])


def _picture_change(before: RunReport, after: RunReport) -> str:
    """What changed between two runs' pictures: skipped frames, breaks, graphs."""
    said = []
    if before.skipped_frames != after.skipped_frames:
        said.append(f"skipped frames {before.skipped_frames} -> {after.skipped_frames}")
    said.append(f"graph breaks {len(before.breaks)} -> {len(after.breaks)}")
    said.append(f"graphs {before.graphs} -> {after.graphs}")
    return ", ".join(said)
