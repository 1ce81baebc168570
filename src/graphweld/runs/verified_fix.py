"""The verified fix (`graphweld fix --entry ENTRY`, `graphweld fix -- CMD`): find break sites by
running the entry or the command, rewrite the files under the given paths that hold them, verify
the rewrites through the import overlay, and keep only what makes the compile picture strictly
better while the run's oracle holds (an entry's every call equal to eager; a command's exit status
and output; a `--test` command passing). Then measure the Dynamo switches its remaining breaks'
hints call for, write the best one where the program compiles (`capture_pass`), confirm the
result with the program's own backend where the runs forced one (`own_backend`), and write what
was kept.

Each round rewrites the files holding the sites the last run saw (a skipped frame hides the breaks
after its first one, so each round's run may reveal more). The round's changes are verified
together first; when they fail, the search halves them down to single changes. A change that
fails alone gives way to the site's next fix, in a stated order: the engine's own choice with the
failed change ruled out, which is the same rule's next form (isolate-io: split, then defer, then
guard) and then the other rules, in registry order; at most `MAX_ALTERNATIVES` are tried. The next
fixes of all the sites whose change failed are verified as one batch too, halved only when the
batch fails, so a file with many candidate sites costs a few runs, not a run per site. A round
stops searching when it has run for `Settings.round_seconds`: what it verified by then stands, the
changes it did not reach are listed as not tried, and every round reports its time. An unsafe
change changes behaviour, so it is kept only when it buys something: it must be at a break the run
saw, and the round's picture must be worse without the round's unsafe changes. A round whose
picture is not strictly better than the last keeps nothing.
"""


from __future__ import annotations

import dataclasses
import os
import time
from typing import Callable, Sequence

from graphweld.discover import discover
from graphweld.runs.capture_pass import choose_capture_setting, measure_setting_as_written, setting_file
from graphweld.runs.eager_helper_policy import weigh_eager_helpers
from graphweld.runs.entry import sites_by_file
from graphweld.runs.explanation import explain_sites, measure_capture_settings
from graphweld.runs.own_backend import confirm_rewrites, setting_refused
from graphweld.runs.round_search import RoundSearch
from graphweld.runs.targets import Target, check_tests_pass
from graphweld.runs.verified_result import RoundTime, VerifiedFix
from graphweld.settings import Settings
from graphweld.source import SourceError, write_atomically


MAX_ROUNDS = 4


def fix_verified(
    target: Target,
    paths: Sequence[str],
    settings: Settings,
    *,
    write: bool = False,
    progress: Callable[[str], None] = lambda message: None,
    note: Callable[[str], None] = lambda message: None,
) -> VerifiedFix:
    """The whole verified fix; with `write`, the kept rewrites (and a capture setting) written."""
    check_tests_pass(target, progress)
    files, _ = discover(paths, settings.exclude)
    under = {os.path.realpath(path): path for path in files}
    progress(f"running {target.reference_run}")
    before = target.reference(coverage_files=tuple(under))
    result = VerifiedFix(before=before)
    report = before
    for round_number in range(1, MAX_ROUNDS + 1):
        in_round = lambda message, n=round_number: progress(f"round {n}: {message}")  # noqa: E731
        sites, result.sites_outside = sites_by_file(report, lambda file: file in under)
        if not sites:
            break
        in_round(f"rewriting the files that hold {len(report.fix_sites)} break site(s)")
        started = time.monotonic()
        search = RoundSearch(
            {under[real]: lines for real, lines in sites.items()}, settings, result, report, target, in_round,
            deadline=started + settings.round_seconds,
        )
        accepted = search.run()
        seconds = time.monotonic() - started
        kept = sum(len(pick.changes) for pick in accepted.picks) if accepted is not None else 0
        result.rounds.append(RoundTime(round_number, round(seconds, 1), kept, search.out_of_time))
        in_round(f"done in {seconds:.0f} s, {kept} change(s) kept" + (", stopped at its time limit" if search.out_of_time else ""))
        if accepted is None:
            break
        together = sum(len(pick.changes) for pick in accepted.picks)
        for pick in accepted.picks:
            for change in pick.changes:
                others = f", verified with {together - 1} other change(s)" if together > 1 else ""
                result.effects[(pick.path, change)] = f"round {round_number}: {accepted.verdict.progress}{others}"
                result.exercised[(pick.path, change)] = search.exercise(pick.path, change).said + _reach(pick.path, target)
        result.kept.update(accepted.candidates)
        result.verdict, report = accepted.verdict, accepted.after
    result.after = report
    result.remaining = explain_sites(report, settings, texts=result.texts, dropped=[(t.change, t.why) for t in result.dropped])
    # The breaks left that a Dynamo switch addresses: measured with the kept rewrites, and written
    # where the program compiles (an entry's file, a command's script).
    result.trials = measure_capture_settings(
        report, target.runs.compile_options, lambda options: target.compiled(result.texts, options),
        progress=lambda message: progress(f"{message} with the kept rewrites: {target.trial_runs}"), failed=note,
    )
    _setting_pass(target, settings, result, setting_file(target, files, result), progress, note)
    confirm_rewrites(target, settings, result, progress)
    if write:
        _write(result)
    return result


# How many settings are tried, best first, when the best fails with the program's own backend.
MAX_SETTINGS_CONFIRMED = 3


def _setting_pass(
    target: Target, settings: Settings, result: VerifiedFix, path: str | None,
    progress: Callable[[str], None], note: Callable[[str], None],
) -> None:
    """Choose the best measured setting, weigh eager-helper's changes against it, verify it as
    written, and confirm it with the program's own backend where the runs forced one; a setting
    that fails there is refused, the result goes back to what it was, and the next best is tried."""
    start = _snapshot(result)
    for _ in range(MAX_SETTINGS_CONFIRMED):
        choose_capture_setting(target, settings, result, path)
        weigh_eager_helpers(target, settings, result, path, progress, note)
        measure_setting_as_written(target, settings, result, progress)
        refused = setting_refused(target, result, progress)
        if refused is None:
            return
        assert result.setting_fix is not None
        result.refused_settings[result.setting_fix.trial.settings] = refused
        _restore(result, start)
        result.setting_note = "; ".join(f"{', '.join(names)}: {why}" for names, why in result.refused_settings.items())


# What the setting pass learns across its trials, which going back to the start keeps.
_ACROSS_TRIALS = frozenset({"refused_settings", "own_backend_original"})


def _snapshot(result: VerifiedFix) -> VerifiedFix:
    """A copy of the result whose containers are its own (the setting pass changes them in place)."""
    return dataclasses.replace(
        result, kept=dict(result.kept), tried=list(result.tried), trials=list(result.trials),
        effects=dict(result.effects), exercised=dict(result.exercised),
    )


def _restore(result: VerifiedFix, snapshot: VerifiedFix) -> None:
    """The result back to `snapshot`, but for what was learnt across trials."""
    copy = _snapshot(snapshot)
    for name in (field.name for field in dataclasses.fields(VerifiedFix) if field.name not in _ACROSS_TRIALS):
        setattr(result, name, getattr(copy, name))


def _write(result: VerifiedFix) -> None:
    # One write per file: a capture setting is already composed into its file's kept text.
    for path, candidate in sorted(result.kept.items()):
        try:
            write_atomically(path, candidate.source.encode(candidate.fixed))
        except SourceError as exc:
            result.errors[path] = str(exc)
    result.written = True


def _reach(path: str, target: Target) -> str:
    """For a rewrite in an installed package: the one entry point that reached it."""
    if os.sep + "site-packages" + os.sep not in os.path.realpath(path):
        return ""
    return f"; reached from {target.name} only: other code importing this file was not run"
