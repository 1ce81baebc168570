"""Explaining a run's graph breaks: which rule fixes each site, or the registry's hint."""

from __future__ import annotations

import dataclasses
import os
import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Callable, Sequence

from graphweld.codemods import RULES_BY_ID
from graphweld.engine import Change, Proposals, non_overlapping, propose
from graphweld.rule import Safety
from graphweld.runs.entry import DISABLED_CALLS, BreakSite, EntryError, RunReport, evidence_of, stack_lines_by_file
from graphweld.runs.library_files import is_library_file
from graphweld.settings import Settings
from graphweld.runs.verify import compare_calls
from graphweld.source import SourceError, read_source


@dataclass(frozen=True)
class ExplainedSite:
    site: BreakSite
    rule: str | None
    # "fix", "unsafe fix", "not fixed: <reason>", or "no automatic fix: <hint>"
    action: str
    # The rule's proposed change, on the file as it is, when a rule fixes the site, and that
    # file's text (the change's edits apply to it).
    change: Change | None = None
    text: str | None = None
    # The file the change is in: the site's own, or that of a call on its stack that a rule
    # fixes it from (`Rule.fixes_from_callers`).
    path: str | None = None
    # Who is to blame, for a person (see `culprit`): the callee Dynamo skipped, the user's frames
    # that led to it, and the statement that made a whole frame run eagerly.
    culprit: str = ""


def user_sites(report: RunReport) -> list[BreakSite]:
    """The run's break sites, each moved out of the standard library and torch to the innermost
    caller in the user's code (or a third-party package), without duplicates."""
    placed: dict[tuple[str, int, str], BreakSite] = {}
    for site in report.fix_sites:
        moved = site.in_code(lambda file: not is_library_file(file)) or site
        key = (moved.file, moved.line, moved.gb)
        if key in placed:
            # Breaks in library code placed at the same line of the user's code: counted together.
            moved = dataclasses.replace(placed[key], count=placed[key].count + moved.count)
        placed[key] = moved
    # Where the compiled run raised comes first: nothing after it ran compiled.
    return sorted(placed.values(), key=lambda s: (not s.fails, s.file, s.line))


def explain_sites(
    report: RunReport,
    settings: Settings,
    *,
    texts: dict[str, str] | None = None,
    dropped: Sequence[tuple[Change, str]] = (),
) -> list[ExplainedSite]:
    """Each of the run's break sites with the rule that fixes it, or why none does. `texts`: file
    texts by real path to read instead of the files (rewrites the run was served); `dropped`:
    changes that were tried and not kept, with why (a site whose fix is one of them says so)."""
    by_file: dict[str, list[BreakSite]] = defaultdict(list)
    sites = user_sites(report)
    for site in sites:
        by_file[site.file].append(site)
    stacks = stack_lines_by_file(sites, lambda file: not is_library_file(file))
    proposed: dict[str, tuple[Proposals | None, str | None]] = {}
    for path in sorted(by_file.keys() | stacks.keys()):
        evidence = evidence_of(by_file.get(path, ()), stacks.get(path, ()))
        text = (texts or {}).get(os.path.realpath(path))
        try:
            if text is None:
                text = read_source(path).text
            proposed[path] = propose(text, path, settings.replace(unsafe_fixes=True), None, evidence), text
        except SourceError:
            proposed[path] = None, None
    explained: list[ExplainedSite] = []

    def line_of(file: str, line: int) -> str:
        text = proposed.get(file, (None, None))[1] or (texts or {}).get(os.path.realpath(file))
        if text is None:
            try:
                text = read_source(file).text
            except SourceError:
                return ""
        lines = text.splitlines()
        return lines[line - 1].strip() if 0 < line <= len(lines) else ""

    for path, file_sites_list in sorted(by_file.items()):
        for site in file_sites_list:
            item = _explain(site, proposed[path][0], settings, dropped)
            if item.change is None:
                item = _explain_from_callers(site, proposed, settings, dropped) or item
            if item.change is not None:
                item = dataclasses.replace(item, path=item.path or path, text=proposed[item.path or path][1])
            explained.append(dataclasses.replace(item, culprit=culprit(site, line_of)))
    return explained


# The function Dynamo names in a skipped call's explanation: "... trace the builtin
# `time.perf_counter.`", "... the function `warn` in file ...".
_NAMED_CALLEE = re.compile(r"`([A-Za-z_][\w.]*?)\.?`")
# Statements a break inside which Dynamo cannot resume after: the whole frame runs eagerly.
_UNRESUMABLE = ("with ", "async with ", "try:", "for ", "async for ", "while ")


def culprit(site: BreakSite, line_of: Callable[[str, int], str]) -> str:
    """Who is to blame for a break, for a person: the callee Dynamo skipped (named in its
    explanation), the chain of the user's frames that led to the break (the compiled function
    first), and, for a frame Dynamo skipped whole, the statement it could not resume in.
    `line_of(file, line)`: a line's text. "" when there is nothing beyond Dynamo's reason."""
    said: list[str] = []
    if site.fails:
        statement = line_of(site.file, site.line)
        said.append(f"raised at `{statement}`" if statement else "raised here")
    named = None if site.fails else _NAMED_CALLEE.search(site.explanation) if "skip" in site.reason.lower() or "trace the builtin" in site.explanation else None
    if named is not None:
        said.append(f"the call to `{named.group(1)}`")
    frames: list[tuple[str, int, str]] = []
    for file, line, function in reversed(site.stack):
        if is_library_file(file):
            break
        frames.append((file, line, function))
    frames.reverse()
    if len(frames) > 1:
        chain = " -> ".join(f"{function} ({os.path.basename(file)}:{line})" for file, line, function in frames)
        said.append(f"reached through {chain}")
    if site.skipped == "frame" and frames:
        file, line, function = frames[0]
        statement = line_of(file, line)
        if statement.startswith(_UNRESUMABLE):
            said.append(
                f"inside `{statement}` ({os.path.basename(file)}:{line}) Dynamo cannot resume, so all of "
                f"`{function}` runs eagerly"
            )
        else:
            said.append(f"all of `{function}` runs eagerly")
    return "; ".join(said)


def _explain_from_callers(site: BreakSite, proposed, settings: Settings, dropped) -> ExplainedSite | None:  # type: ignore[no-untyped-def]
    """The site explained by a change a rule makes at a call on its stack (innermost first)."""
    for file, line, _ in reversed(site.stack):
        proposals = proposed.get(file, (None, None))[0]
        if proposals is None or (file, line) == (site.file, site.line):
            continue
        callers = dataclasses.replace(
            proposals,
            changes=[c for c in proposals.changes if RULES_BY_ID[c.rule].fixes_from_callers],
            reports=[r for r in proposals.reports if RULES_BY_ID[r.rule].fixes_from_callers],
        )
        item = _explain(dataclasses.replace(site, line=line), callers, settings, dropped)
        if item.change is not None or item.action.startswith("dropped"):
            where = f"{os.path.basename(file)}:{item.change.location.line}" if item.change is not None else os.path.basename(file)
            return ExplainedSite(site, item.rule, f"{item.action} at {where}", item.change, path=file)
    return None


def _explain(site: BreakSite, proposals, settings: Settings, dropped: Sequence[tuple[Change, str]]) -> ExplainedSite:  # type: ignore[no-untyped-def]
    if proposals is not None:
        # The change `fix` would make: the engine's choice among those allowed (safe ones unless
        # unsafe fixes are on), then, for a site only an unsafe fix reaches, the choice among all.
        safe = [c for c in proposals.changes if c.safety is Safety.SAFE or settings.unsafe_fixes]
        for change in [*non_overlapping(safe), *non_overlapping(proposals.changes)]:
            if change.targets_line(site.line):
                failed = next((why for tried, why in dropped if tried.same_fix(change)), None)
                if failed is not None:
                    return ExplainedSite(site, change.rule, f"dropped: {failed}")
                action = "fix" if change.safety is Safety.SAFE else "unsafe fix (--unsafe-fixes)"
                return ExplainedSite(site, change.rule, action, change)
        # A rule that says why a form of its own stays a break speaks before a generic one.
        for report in sorted(proposals.reports, key=lambda report: RULES_BY_ID[report.rule].generic_reports):
            if report.location.line == site.line:
                return ExplainedSite(site, report.rule, f"not fixed: {report.message.split(': ')[-1]}")
    if site.gb in DISABLED_CALLS:
        # Dynamo's hint is to remove the decorator; say what it costs and buys (eager-helper puts
        # it where tracing broke several times inside the function).
        return ExplainedSite(
            site, None,
            "not fixed: the function is disabled for Dynamo (`torch.compiler.disable`), so it runs eagerly and "
            "its call is one break; remove the decorator to let Dynamo trace it",
        )
    hint = site.hint or site.explanation or "see the GB page"
    return ExplainedSite(site, None, f"no automatic fix: {hint}")


@dataclass(frozen=True)
class CaptureTrial:
    """A run with capture settings on, measured against the run without them."""

    settings: tuple[str, ...]
    before: RunReport
    after: RunReport

    @property
    def outputs_equal(self) -> bool:
        """An entry's outputs equal to eager's (a command has no eager twin: its run succeeded)."""
        return not self.after.compile_fails and all(leaf.equal for leaf in compare_calls(self.after, self.after))

    def assignments(self) -> str:
        """The settings as the lines a user adds where they compile: "`torch._dynamo.config.X = True`"."""
        return ", ".join(f"`torch._dynamo.config.{name} = True`" for name in self.settings)

    def line(self) -> str:
        outputs = outcome(self.before, self.after) if self.outputs_equal else "outputs differ from eager"
        skipped = (
            f"skipped frames {self.before.skipped_frames} -> {self.after.skipped_frames}, "
            if self.before.skipped_frames != self.after.skipped_frames else ""
        )
        return (
            f"with {_switched_on(self.settings)}: {skipped}graph breaks {len(self.before.breaks)} -> {len(self.after.breaks)}, "
            f"graphs {self.before.graphs} -> {self.after.graphs}, {outputs}"
        )


def against_eager(report: RunReport) -> bool:
    """Whether a run's outputs were compared with eager's: an entry's are, a command's are not."""
    return "eager" in report.outputs or "eager_calls" in report.outputs


def outcome(before: RunReport, after: RunReport) -> str:
    """What a run that verified says of its outputs: an entry's equal to eager's (one of the two
    runs holds the eager reference); a command's printed output against the original's (not held
    for a setting: it is an unsafe fix)."""
    if against_eager(before) or against_eager(after):
        return "outputs equal"
    if (before.compiled_stdout or "") == (after.compiled_stdout or ""):
        return "the command succeeds, printing the same"
    return "the command succeeds, printing differently (not held: an unsafe fix)"


def capture_settings_to_try(report: RunReport, options: dict[str, object]) -> list[str]:
    """The Dynamo switches the run's breaks' own hints name (`capture_scalar_outputs` for an
    `.item()`, `allow_rnn` for an nn.LSTM...), that the run did not already have on."""
    wanted = {name for site in report.breaks for name in site.settings}
    return sorted(name for name in wanted if not options.get(name))


def settings_trials(report: RunReport, options: dict[str, object]) -> list[list[str]]:
    """The combinations of switches to measure: each one the hints name, and all of them together
    when more than one; and, when the run breaks at all, the switches that let Dynamo resume where
    it would skip (`nested_graph_breaks`), alone and on top of all those the hints name."""
    hinted = capture_settings_to_try(report, options)
    combinations = [[name] for name in hinted] + ([hinted] if len(hinted) > 1 else [])
    resume = [name for name in report.resume_settings if not options.get(name)] if report.breaks else []
    if resume:
        combinations.append(resume)
        if hinted:
            combinations.append(sorted([*hinted, *resume]))
    return combinations


def measure_capture_settings(
    report: RunReport,
    options: dict[str, object],
    run: Callable[[dict[str, object]], RunReport],
    progress: Callable[[str], None] = lambda message: None,
    failed: Callable[[str], None] = lambda message: None,
) -> list[CaptureTrial]:
    """Run again (eager and compiled, through `run(compile_options)`) with each combination of
    `settings_trials`; a run that fails is reported through `failed` and left out."""
    trials = []
    for names in settings_trials(report, options):
        label = _switched_on(names)
        progress(f"trying {label}")
        try:
            after = run({**options, **dict.fromkeys(names, True)})
        except EntryError as exc:
            failed(f"with {label} the run fails: {exc}")
            continue
        trials.append(CaptureTrial(tuple(names), report, after))
    return trials


def _switched_on(names: list[str] | tuple[str, ...]) -> str:
    return ", ".join(f"{name}=True" for name in names)


@dataclass
class Explanation:
    """What `graphweld explain` shows: the run, its sites explained, and the Dynamo switches
    measured for the breaks whose hints name one."""

    report: RunReport
    sites: list[ExplainedSite]
    trials: list[CaptureTrial]


def explain_target(
    target,  # type: ignore[no-untyped-def]
    settings: Settings,
    progress: Callable[[str], None] = lambda message: None,
    note: Callable[[str], None] = lambda message: None,
) -> Explanation:
    """Run an entry or a command (a `graphweld.runs.targets.Target`) compiled and explain every
    break it hits."""
    from graphweld.runs.targets import EntryTarget

    if isinstance(target, EntryTarget):
        report = target.runs.run(target.entry, ("compiled",))
        if report.compile_fails:
            # Only a program that fails eagerly too is an error of the run (raised here).
            progress("the compiled run fails: running the entry eagerly")
            target.runs.run(target.entry, ("eager",))
    else:
        report = target.reference()
    # Breaks a Dynamo switch captures (reading tensor values into Python, an nn.LSTM...): measure
    # what the switch would change (breaks, graphs, and an entry's outputs against eager).
    trials = measure_capture_settings(
        report, target.runs.compile_options, lambda options: target.compiled({}, options),
        progress=lambda message: progress(f"{message}: {target.trial_runs}"), failed=note,
    )
    return Explanation(report, explain_sites(report, settings), trials)
