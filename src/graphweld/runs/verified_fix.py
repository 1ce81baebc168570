"""The verified fix (`graphweld fix --entry ENTRY`, `graphweld fix -- CMD`): find break sites by
running the entry or the command, rewrite the files under the given paths that hold them, verify
the rewrites through the import overlay, and keep only what makes the compile picture strictly
better while the run's oracle holds (an entry's every call equal to eager; a command's exit status
and output; a `--test` command passing). Then, for an entry, measure the Dynamo capture settings
its remaining breaks call for, and write what was kept.

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

import ast

import dataclasses
import difflib
import os
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

from graphweld.discover import discover
from graphweld.edits import LineMap, apply_edits
from graphweld.engine import Change, ChangeKey, FixOutcome, fix_text
from graphweld.runs.capture_fix import CaptureSettingFix, best_trial, capture_setting_fix, picture, setting_writable
from graphweld.runs.entry import EntryError, FileSites, RunReport, sites_by_file, stack_lines_by_file
from graphweld.runs.explanation import CaptureTrial, ExplainedSite, explain_sites, measure_capture_settings
from graphweld.runs.exercised import NOT_RECORDED, Exercise, exercised
from graphweld.runs.targets import EntryTarget, Target, check_tests_pass, tests_fail
from graphweld.runs.verify import Verdict, compare_pictures, failed, verdict_line
from graphweld.rule import Safety
from graphweld.settings import Settings
from graphweld.source import SourceError, SourceFile, read_source, write_atomically

MAX_ROUNDS = 4
# Next fixes tried for one site after its first did not verify.
MAX_ALTERNATIVES = 3


@dataclass
class Candidate:
    source: SourceFile
    fixed: str
    applied: list[Change]

    @property
    def unsafe(self) -> bool:
        return any(change.safety is Safety.UNSAFE for change in self.applied)


@dataclass(frozen=True)
class Tried:
    """A change that was verified and not kept (`why` says why), or one kept as the next fix of
    a site whose first did not verify (`instead_of`)."""

    path: str
    change: Change
    kept: bool
    why: str = ""
    instead_of: Change | None = None


@dataclass(frozen=True)
class RoundTime:
    """How long one round took, what it kept, and whether it stopped at its time limit."""

    number: int
    seconds: float
    kept: int
    out_of_time: bool


@dataclass
class VerifiedFix:
    """What a verified fix found, kept, tried and wrote."""

    before: RunReport
    after: RunReport | None = None
    kept: dict[str, Candidate] = field(default_factory=dict)
    tried: list[Tried] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)
    sites_outside: int = 0
    verdict: Verdict | None = None
    # The breaks the last run still saw, explained on the rewritten texts.
    remaining: list[ExplainedSite] = field(default_factory=list)
    # Capture settings measured on the remaining breaks, the one written (or why not).
    trials: list[CaptureTrial] = field(default_factory=list)
    setting_fix: CaptureSettingFix | None = None
    setting_note: str | None = None
    written: bool = False
    rounds: list[RoundTime] = field(default_factory=list)
    # Each kept change's measured effect: what its round's verified run improved, against the
    # run before it ("skipped frames 1 -> 0", with how many changes were verified with it).
    effects: dict[tuple[str, Change], str] = field(default_factory=dict)
    # What the eager reference run exercised of each kept change ("verified on both sides ..."),
    # and for a file of an installed package, which entry reached it.
    exercised: dict[tuple[str, Change], str] = field(default_factory=dict)

    @property
    def dropped(self) -> list[Tried]:
        return [item for item in self.tried if not item.kept]

    @property
    def texts(self) -> dict[str, str]:
        """The kept rewrites, by real path, as the runs were served them."""
        return {os.path.realpath(path): candidate.fixed for path, candidate in self.kept.items()}


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
        search = _RoundSearch(
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
    if isinstance(target, EntryTarget):
        # The breaks left that a capture setting addresses: measured with the kept rewrites.
        result.trials = measure_capture_settings(
            report, target.runs.compile_options, lambda options: target.compiled(result.texts, options),
            progress=lambda message: progress(f"{message} with the kept rewrites: eager and compiled runs"), failed=note,
        )
        _choose_capture_setting(target, settings, result)
        _weigh_eager_helpers(target, settings, result, progress, note)
        _measure_setting_as_written(target, settings, result, progress)
    if write:
        _write(result)
    return result


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
            before, after, check_shown=change.safety is not Safety.UNSAFE, previous=before, numbers_vary=_numbers_vary([change])
        )
        failing = tests_fail(target, overlay) if verdict.ok else None
        if failing is not None:
            verdict.problems.append(failing)
        line = verdict_line(before, after, verdict)
        if isinstance(target, EntryTarget):
            if real not in originals:
                originals[real] = read_source(path).text
            # The change is located in the review's text before it, which earlier accepted changes moved.
            line += f"; {_exercised_in(path, change.location.line, text, originals[real], before).said}"
        return line

    return verify, sites


def _choose_capture_setting(target: EntryTarget, settings: Settings, result: VerifiedFix) -> None:
    """With --unsafe-fixes, the best measured capture setting is written before the entry's own
    torch.compile call; else (or when there is no call to put it by) a note says why not."""
    import libcst as cst

    trial = best_trial(result.trials)
    if trial is None:
        return
    if not settings.unsafe_fixes:
        result.setting_note = "a setting is global to the process, so writing it is an unsafe fix (--unsafe-fixes)"
        return
    path = target.entry.partition("::")[0]
    kept = result.kept.get(_kept_key(result, path))
    try:
        # Onto the entry as the kept rewrites left it: the file is written once, with both.
        if kept is not None:
            fix = capture_setting_fix(kept.source, trial, kept.fixed)
        else:
            fix = capture_setting_fix(read_source(path), trial)
    except (SourceError, cst.ParserSyntaxError) as exc:
        result.setting_note = str(exc)
        return
    if isinstance(fix, str):
        result.setting_note = fix
    else:
        result.setting_fix = fix


def _kept_key(result: VerifiedFix, path: str) -> str:
    """The key of `result.kept` naming the same file as `path` (or `path` itself)."""
    real = os.path.realpath(path)
    return next((key for key in result.kept if os.path.realpath(key) == real), path)


def _measure_setting_as_written(
    target: EntryTarget, settings: Settings, result: VerifiedFix, progress: Callable[[str], None]
) -> None:
    """Run the files exactly as they would be written (the kept rewrites, the setting in the
    entry's text, no setting passed by graphweld) and judge that run against the kept rewrites
    alone. It verifies: the setting joins the entry's kept text (one write per file) and this run
    is the result's picture. It does not: the setting is not written, and the note says why."""
    fix = result.setting_fix
    if fix is None:
        return
    key = _kept_key(result, fix.path)
    texts = {**result.texts, os.path.realpath(fix.path): fix.fixed}
    progress(f"verifying {', '.join(fix.trial.settings)} as written in {os.path.basename(fix.path)}, with the kept rewrites (compiled run)")
    without = result.after or result.before
    try:
        written = target.compiled(texts)
        verdict = target.judge(result.before, written, check_shown=False, previous=without)
    except EntryError as exc:
        verdict, written = failed(exc), None
    if written is None or not verdict.better:
        why = "; ".join(verdict.problems) or verdict.not_counted or "the compile picture is no better than without it"
        result.setting_fix = None
        result.setting_note = f"written into {os.path.basename(fix.path)} with the kept rewrites, it does not verify: {why}"
        return
    kept = result.kept.get(key)
    result.kept[key] = Candidate(fix.source, fix.fixed, kept.applied if kept is not None else [])
    rewrites = sum(len(candidate.applied) for candidate in result.kept.values())
    with_rewrites = f", with the {rewrites} kept rewrite(s) (against those alone)" if rewrites else ""
    result.setting_fix = dataclasses.replace(
        fix, measured=f"as written{with_rewrites}: {_picture_change(without, written)}, outputs equal"
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


# The rule whose change gives up tracing a helper: a capture setting may trace it whole instead.
EAGER_HELPER = "eager-helper"
# The fewest ops in graphs for which a helper that takes half of them eagerly is refused.
MIN_OPS_JUDGED = 20


def _compiled_work_moved_out(previous: RunReport, after: RunReport, picks: Sequence[_Pick]) -> str:
    """Why a helper run eagerly is not progress when it takes part of the model with it: nothing
    is compiled after it (torchdiffeq's `odeint`, graphs 28 -> 0), a layer's parameters (a weight
    and its bias) leave the graphs (torchdyn's `odeint`, whose reversed-time branch broke:
    disabled, the vector field's every step runs eagerly, parameters in graphs 4 -> 0, 420 ops ->
    1), or most of their ops do; "" when it is not that. A helper that reads one parameter itself
    (SpecAugment's mask embedding) may take it."""
    if not any(change.rule == EAGER_HELPER for pick in picks for change in pick.changes):
        return ""
    if previous.graphs and not after.graphs:
        return f"nothing is compiled any more: graphs {previous.graphs} -> 0"
    before, now = previous.parameters_in_graphs, after.parameters_in_graphs
    if before is not None and now is not None and before - now >= 2:
        return f"part of the model would run eagerly: parameters in graphs {before} -> {now}"
    # Most of the compiled work leaving with it (torchcde's `odeint`, whose vector field is called
    # through an interpolation: ops in graphs 103 -> 27). Programs of a handful of ops are not
    # judged by this: a helper's few ops are a large share of them.
    if previous.ops >= MIN_OPS_JUDGED and after.ops * 2 < previous.ops:
        return f"most of the compiled work would run eagerly: ops in graphs {previous.ops} -> {after.ops}"
    return ""


def _weigh_eager_helpers(
    target: EntryTarget,
    settings: Settings,
    result: VerifiedFix,
    progress: Callable[[str], None],
    note: Callable[[str], None],
) -> None:
    """With --unsafe-fixes, an entry that compiles its model itself (a setting can be written) and
    eager-helper changes kept: measure the capture settings again without those changes (a setting
    can let Dynamo trace the helpers whole, which a disabled helper never is) and keep whichever
    program compiles better; eager-helper's changes are dropped with the reason when the setting
    does better without them."""
    if not settings.unsafe_fixes or not any(
        change.rule == EAGER_HELPER for candidate in result.kept.values() for change in candidate.applied
    ):
        return
    import libcst as cst

    try:
        if not setting_writable(read_source(target.entry.partition("::")[0])):
            return
    except (SourceError, cst.ParserSyntaxError):
        return
    without: dict[str, Candidate] = {}
    for path, candidate in result.kept.items():
        helpers = [change for change in candidate.applied if change.rule == EAGER_HELPER]
        if not helpers:
            continue
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
    trial = best_trial(trials)
    current = best_trial(result.trials)
    with_them = current.after if current is not None else result.after
    if trial is None or (with_them is not None and picture(trial.after) >= picture(with_them)):
        return
    why = f"the capture setting does better without it ({trial.line()})"
    for path, candidate in result.kept.items():
        result.tried.extend(Tried(path, change, False, why) for change in candidate.applied if change.rule == EAGER_HELPER)
    result.kept = {path: candidate for path, candidate in kept.items() if candidate.applied}
    result.trials, result.after = trials, report
    result.remaining = explain_sites(report, settings, texts=result.texts, dropped=[(t.change, t.why) for t in result.dropped])
    result.setting_fix = None
    _choose_capture_setting(target, settings, result)


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


def _write(result: VerifiedFix) -> None:
    # One write per file: a capture setting is already composed into its file's kept text.
    for path, candidate in sorted(result.kept.items()):
        try:
            write_atomically(path, candidate.source.encode(candidate.fixed))
        except SourceError as exc:
            result.errors[path] = str(exc)
    result.written = True


@dataclass(frozen=True)
class _Pick:
    """Changes of one file verified as one: the keys they are allowed by, and those ruled out
    before them (a next fix is made with the failed ones ruled out)."""

    path: str
    changes: tuple[Change, ...]
    excluded: frozenset[ChangeKey] = frozenset()
    instead_of: Change | None = None

    @property
    def allowed(self) -> frozenset[ChangeKey]:
        return frozenset(change.key for change in self.changes)

    @property
    def unsafe(self) -> bool:
        return any(change.safety is Safety.UNSAFE for change in self.changes)


@dataclass
class _Accepted:
    picks: list[_Pick]
    verdict: Verdict
    after: RunReport
    candidates: dict[str, Candidate]


class _RoundSearch:
    """One round: the changes for the sites a run saw, searched for the set that verifies and
    makes the picture strictly better than the run's (`previous`)."""

    def __init__(
        self,
        sites: dict[str, FileSites],
        settings: Settings,
        result: VerifiedFix,
        previous: RunReport,
        target: Target,
        progress: Callable[[str], None],
        deadline: float = float("inf"),
    ) -> None:
        self.sites = sites
        self.deadline = deadline
        self.out_of_time = False
        # Single picks that did not verify, waiting for their next fixes to be tried as one batch.
        self._failed: list[_Pick] = []
        self.settings = settings
        self.result = result
        self.previous = previous
        self.target = target
        self.progress = progress
        self._outcomes: dict[tuple[str, frozenset[ChangeKey] | None, frozenset[ChangeKey]], FixOutcome] = {}
        self._bases: dict[str, tuple[SourceFile, str, list[Change]]] = {}
        # Unsafe changes tried only because a skipped frame hid their lines from the run: kept
        # only if the picture is worse without them.
        self._unseen_unsafe: set[tuple[str, ChangeKey]] = set()

    # -- building and verifying ----------------------------------------------------------------

    def base(self, path: str) -> tuple[SourceFile, str, list[Change]]:
        """The file as the earlier rounds left it: its source, its text, the changes applied."""
        if path not in self._bases:
            kept = self.result.kept.get(path)
            if kept is not None:
                self._bases[path] = (kept.source, kept.fixed, kept.applied)
            else:
                source = read_source(path)
                self._bases[path] = (source, source.text, [])
        return self._bases[path]

    def build(self, path: str, allowed: frozenset[ChangeKey] | None, excluded: frozenset[ChangeKey] = frozenset()) -> FixOutcome:
        key = (path, allowed, excluded)
        if key not in self._outcomes:
            _, text, _ = self.base(path)
            lines = self.sites[path]
            self._outcomes[key] = fix_text(
                text, path, self.settings, site_lines=lines.lines, called_lines=lines.called_lines,
                data_dependent_lines=lines.data_dependent_lines, stack_lines=lines.stack_lines,
                untraceable_lines=lines.untraceable_lines, disabled_call_lines=lines.disabled_call_lines, allowed=allowed,
                excluded=excluded,
            )
        return self._outcomes[key]

    def verify(self, picks: Sequence[_Pick], step: str = "verifying") -> tuple[Verdict, RunReport | None, dict[str, Candidate]]:
        candidates: dict[str, Candidate] = {}
        for path in sorted({pick.path for pick in picks}):
            mine = [pick for pick in picks if pick.path == path]
            allowed = frozenset().union(*(pick.allowed for pick in mine))
            excluded = frozenset().union(*(pick.excluded for pick in mine))
            source, text, earlier = self.base(path)
            outcome = self.build(path, allowed, excluded)
            if outcome.text != text:
                candidates[path] = Candidate(source, outcome.text, [*earlier, *outcome.applied])
        if not candidates:
            return Verdict([], ["the change applies only together with changes that were not kept"]), None, {}
        changes = sum(len(candidate.applied) - len(self.base(path)[2]) for path, candidate in candidates.items())
        self.progress(f"{step} {changes} change(s) in {len(candidates)} file(s) (compiled run)")
        together = {**self.result.kept, **candidates}
        overlay = {os.path.realpath(path): candidate.fixed for path, candidate in together.items()}
        try:
            after = self.target.compiled(overlay)
        except EntryError as exc:
            # The original ran: a rewrite whose run fails is dropped with the reason, not an error.
            return failed(exc), None, candidates
        unsafe = any(candidate.unsafe for candidate in together.values())
        numbers = _numbers_vary(change for candidate in together.values() for change in candidate.applied)
        verdict = self.target.judge(self.result.before, after, check_shown=not unsafe, previous=self.previous, numbers_vary=numbers)
        moved = _compiled_work_moved_out(self.previous or self.result.before, after, picks)
        if moved:
            verdict.problems.append(moved)
        if verdict.better:
            failing = tests_fail(self.target, overlay)
            if failing is not None:
                verdict.problems.append(failing)
        return verdict, after, candidates

    def accept(self, picks: list[_Pick], step: str = "verifying") -> tuple[_Accepted | None, Verdict]:
        """The picks verified together: accepted when the picture got strictly better."""
        verdict, after, candidates = self.verify(picks, step)
        if verdict.better and after is not None:
            return _Accepted(picks, verdict, after, candidates), verdict
        return None, verdict

    # -- the search ----------------------------------------------------------------------------

    def run(self) -> _Accepted | None:
        picks = self.first_picks()
        if not picks:
            return None
        accepted = self.search(picks)
        for _ in range(MAX_ALTERNATIVES):
            alternatives = self.next_fixes()
            if not alternatives:
                break
            accepted = self.merge(accepted, self.search(alternatives))
        if accepted is not None:
            accepted = self.without_unsafe_that_buys_nothing(accepted)
        for pick in accepted.picks if accepted is not None else ():
            if pick.instead_of is not None:
                self.result.tried.extend(Tried(pick.path, change, True, instead_of=pick.instead_of) for change in pick.changes)
        return accepted

    def first_picks(self) -> list[_Pick]:
        """One pick per change each file's full rewrite makes; an unsafe one at no break the run
        saw is dropped at once (it changes behaviour and buys nothing). A safe one there stays: it
        may fix a break a skipped frame hides (the loop behind a `with`), which only shows when
        both are verified together. A change that overlapped a dropped one (a helper's decorator
        around a guarded `warn` in it) is picked from the rewrite without the dropped ones."""
        picks = []
        for path in sorted(self.sites):
            try:
                outcome = self.build(path, None)
            except SourceError as exc:
                self.result.errors[path] = str(exc)
                continue
            dropped = self._pick_from(path, outcome.applied, picks)
            if not dropped:
                continue
            try:
                without = self.build(path, None, dropped)
            except SourceError:
                continue
            first = {change.key for change in outcome.applied}
            displaced = [change for change in without.applied if change.key not in first and change.key not in dropped]
            # Those not worth verifying either are said where a later round's rewrite makes them.
            self._pick_from(path, displaced, picks, say_dropped=False)
        return picks

    def _pick_from(self, path: str, changes: Sequence[Change], picks: list[_Pick], say_dropped: bool = True) -> frozenset[ChangeKey]:
        """Adds a pick for each change worth verifying; the keys of those dropped at once."""
        # A change made at a call on a break's stack is at that break too.
        lines = self.sites[path].lines | self.sites[path].stack_lines
        hidden = self.hidden_by_skipped_frames(path)
        dropped = set()
        for change in changes:
            exercise = self.exercise(path, change)
            unseen = not any(change.targets_line(line) for line in lines)
            hidden_here = any(start < change.location.line <= end for start, end in hidden)
            if change.safety is Safety.UNSAFE and unseen and not hidden_here:
                if say_dropped:
                    self.drop(path, [change], "it buys nothing: unsafe, and no break the run saw is at it")
                dropped.add(change.key)
            elif not exercise.ran and not self.settings.unexercised_fixes:
                if say_dropped:
                    self.drop(path, [change], f"{exercise.said} (--unexercised-fixes writes it)")
                dropped.add(change.key)
            else:
                if change.safety is Safety.UNSAFE and unseen:
                    self._unseen_unsafe.add((path, change.key))
                picks.append(_Pick(path, (change,)))
        return frozenset(dropped)

    def hidden_by_skipped_frames(self, path: str) -> list[tuple[int, int]]:
        """The lines no run could see: after each break where Dynamo skipped the whole frame, to
        the end of the function holding it (the loop behind a LayerDrop test that also prints).
        An unsafe change there is tried: the run's silence there is no evidence."""
        skipped = self.sites[path].skipped_frame_lines
        if not skipped:
            return []
        try:
            tree = ast.parse(self.base(path)[1])
        except (SyntaxError, ValueError):
            return []
        functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        spans = []
        for line in skipped:
            holders = [f for f in functions if f.lineno <= line <= (f.end_lineno or f.lineno)]
            if holders:
                innermost = max(holders, key=lambda f: f.lineno)
                spans.append((line, innermost.end_lineno or line))
        return spans

    def exercise(self, path: str, change: Change) -> Exercise:
        """What the eager reference run exercised of the statement `change` replaces (located in
        the round's text of the file, which earlier rounds may have rewritten)."""
        if not isinstance(self.target, EntryTarget):
            return NOT_RECORDED
        source, text, _ = self.base(path)
        return _exercised_in(path, change.location.line, text, source.text, self.result.before)

    def ran_out(self, picks: Sequence[_Pick]) -> bool:
        """Past the round's time limit: the picks are listed as not tried."""
        if time.monotonic() < self.deadline:
            return False
        if not self.out_of_time:
            self.progress(f"out of time ({self.settings.round_seconds:.0f} s): what is verified stands, the rest is not tried")
        self.out_of_time = True
        for pick in picks:
            self.drop(pick.path, pick.changes, f"not tried: the round ran past its {self.settings.round_seconds:.0f} s", pick.instead_of)
        return True

    def search(self, picks: list[_Pick], bisecting: bool = False) -> _Accepted | None:
        """The largest set of picks found to make the picture better together (halving on failure;
        a single pick that fails waits for its next fix, see `next_fixes`)."""
        if self.ran_out(picks):
            return None
        accepted, verdict = self.accept(picks, "bisecting, verifying" if bisecting else "verifying")
        if accepted is not None:
            return accepted
        if len(picks) == 1:
            self.drop(picks[0].path, picks[0].changes, _why_not(verdict), picks[0].instead_of)
            self._failed.append(picks[0])
            return None
        middle = len(picks) // 2
        return self.merge(self.search(picks[:middle], True), self.search(picks[middle:], True), picks)

    def merge(self, left: _Accepted | None, right: _Accepted | None, tried: Sequence[_Pick] = ()) -> _Accepted | None:
        """Two sets that each verified, verified together; when they do not, the larger stands and
        the other's picks are dropped."""
        if left is None or right is None:
            # One side kept nothing: the other's own verification stands.
            return left or right
        merged = [*left.picks, *right.picks]
        if not tried or len(merged) < len(tried) or any(pick not in tried for pick in merged):
            together, _ = self.accept(merged, "bisecting, verifying")
            if together is not None:
                return together
        # Each verifies alone but not together (or the whole set already failed): keep the larger.
        keep, other = (left, right) if len(left.picks) >= len(right.picks) else (right, left)
        for pick in other.picks:
            self.drop(pick.path, pick.changes, "it verifies alone but not together with the other rewrites")
        return keep

    def next_fixes(self) -> list[_Pick]:
        """The next fix of each site whose change failed alone, in the engine's order with the
        failed ones ruled out: searched as one batch."""
        failed, self._failed = self._failed, []
        alternatives = []
        for pick in failed:
            alternative = self.next_fix(pick)
            if alternative is not None:
                alternatives.append(alternative)
        if alternatives:
            named = ", ".join(
                f"{os.path.basename(pick.path)}:{pick.instead_of.location.line} {pick.changes[0].rule}"
                for pick in alternatives if pick.instead_of is not None
            )
            self.progress(f"trying the next fix for {len(alternatives)} site(s): {named}")
        return alternatives

    def next_fix(self, pick: _Pick) -> _Pick | None:
        """The site's next fix after `pick` failed: the file's rewrite with the failed changes
        ruled out, less the other sites' changes; None when there is none."""
        first = pick.instead_of or pick.changes[0]
        ruled_out = pick.excluded | pick.allowed
        # The file's first rewrite: its changes are other sites' fixes, not this one's next.
        others = {change.key for change in self.build(pick.path, None).applied}
        try:
            outcome = self.build(pick.path, None, ruled_out)
        except SourceError:
            return None
        new = tuple(c for c in outcome.applied if c.key not in others and c.key not in ruled_out)
        return _Pick(pick.path, new, ruled_out, instead_of=first) if new else None

    def without_unsafe_that_buys_nothing(self, accepted: _Accepted) -> _Accepted:
        """The accepted picks without their unsafe ones when the picture is as good without them:
        first those tried only because a skipped frame hid their lines (a print in a timer the
        round skips), then every unsafe one. All unsafe: the picture without them is the last
        run's, which this round improved on."""
        unseen = [pick for pick in accepted.picks if any((pick.path, change.key) in self._unseen_unsafe for change in pick.changes)]
        accepted = self._without(accepted, unseen, "verifying without the unsafe ones the run could not see:")
        return self._without(accepted, [pick for pick in accepted.picks if pick.unsafe], "verifying without the unsafe ones:")

    def _without(self, accepted: _Accepted, dropped: list[_Pick], saying: str) -> _Accepted:
        """`accepted` without the `dropped` picks when the rest verifies with a picture as good;
        else as it was (worse without them: they buy something)."""
        kept = [pick for pick in accepted.picks if pick not in dropped]
        if not dropped or not kept:
            return accepted
        without, _ = self.accept(kept, saying)
        if without is None or compare_pictures(accepted.after, without.after)[0] > 0:
            return accepted
        for pick in dropped:
            self.drop(pick.path, pick.changes, "it buys nothing: unsafe, and the compile picture is as good without it")
        return without

    def drop(self, path: str, changes: Iterable[Change], why: str, instead_of: Change | None = None) -> None:
        for change in changes:
            # A later round proposes the change again (at lines earlier rounds moved): said once.
            said = any(
                not item.kept and item.path == path and item.why == why and item.change.same_fix(change)
                for item in self.result.tried
            )
            if not said:
                self.result.tried.append(Tried(path, change, False, why, instead_of))


def _exercised_in(path: str, line: int, text: str, original: str, reference: RunReport) -> Exercise:
    """What `reference` (a run of `path` as `original`) exercised of the statement at `line` of
    `text`, a version of the file that earlier changes may have rewritten."""
    if text != original:
        line = LineMap.between(original, text).to_old(line)
    real = os.path.realpath(path)

    def here(file: str) -> bool:
        return os.path.realpath(file) == real

    # Dynamo traced the lines it broke at and the calls on the way to them.
    traced = frozenset(site.line for site in reference.breaks if here(site.file)).union(
        *stack_lines_by_file(reference.breaks, here).values()
    )
    return exercised(line, original, reference.coverage.get(real, {}), traced)


def _numbers_vary(changes: Iterable[Change]) -> bool:
    """Whether a rewrite prints other numbers compiled than eager (timings read as 0)."""
    from graphweld.codemods import RULES_BY_ID

    return any(getattr(RULES_BY_ID.get(change.rule), "varies_printed_numbers", False) for change in changes)


def _reach(path: str, target: Target) -> str:
    """For a rewrite in an installed package: the one entry point that reached it."""
    if os.sep + "site-packages" + os.sep not in os.path.realpath(path):
        return ""
    return f"; reached from {target.name} only: other code importing this file was not run"


def _why_not(verdict: Verdict) -> str:
    if not verdict.ok:
        return "it did not verify: " + "; ".join(verdict.problems)
    if verdict.not_counted:
        return f"it buys nothing: outputs equal, but {verdict.not_counted}"
    return "it buys nothing: outputs equal, but the compile picture did not get better"
