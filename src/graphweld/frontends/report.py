"""Rendering results for people and programs: coloured diffs, site lines, the summary, JSON."""

from __future__ import annotations

import dataclasses
import difflib
import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from rich.console import Console
from rich.table import Table
from rich.text import Text

from graphweld.engine import Change, ChangeOrReport, FileResult, Report
from graphweld.edits import LineMap
from graphweld.graph_break_pages import page_url
from graphweld.notebook import changed_cell_sources, is_notebook


def patch_path(path: str) -> str:
    """The path a patch names a file by: relative to the working directory and normalised
    (`git apply` refuses `./model.py`), with `/` separators; a file outside it keeps its absolute path."""
    normal = os.path.normpath(path)
    if os.path.isabs(normal):
        relative = os.path.relpath(normal)
        if not relative.startswith(os.pardir):
            normal = relative
    return normal.replace(os.sep, "/")


def unified_diff(path: str, old: str, new: str) -> str:
    # a/ b/ prefixes suit `git apply` and `patch -p1` for relative paths; absolute ones stay as they are.
    path = patch_path(path)
    before, after = (path, path) if path.startswith("/") else (f"a/{path}", f"b/{path}")
    lines = difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True), fromfile=before, tofile=after)
    return "".join(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n" for line in lines)


def file_diff(path: str, old: str, new: str) -> str:
    """The diff of a file's change; for a notebook, one diff per changed cell, named by the cell
    (`a/nb.ipynb:cell 4`), of the cells' code rather than of the JSON."""
    if not is_notebook(path):
        return unified_diff(path, old, new)
    return "".join(
        unified_diff(f"{path}:cell {number}", before, after) for number, before, after in changed_cell_sources(old, new)
    )


def print_diff(console: Console, diff: str) -> None:
    """A unified diff, coloured when the console is a terminal."""
    for line in diff.splitlines():
        if line.startswith(("+++", "---")):
            style = "bold"
        elif line.startswith("@@"):
            style = "cyan"
        elif line.startswith("+"):
            style = "green"
        elif line.startswith("-"):
            style = "red"
        else:
            style = ""
        console.print(Text(line, style=style), soft_wrap=True, highlight=False)


# Which version of a file the lines graphweld shows are lines of.
AS_GIVEN = "as given"  # the file as graphweld read it (the `-` side of a diff); nothing was written
AS_WRITTEN = "as written"  # the file graphweld wrote


def as_written(result: FileResult) -> FileResult:
    """A written file's result, every site located in the text written (what the user now looks
    at): a fix at the first line of what replaced its statement. Sites are found located in the
    file as given (`engine.fix_text`); a notebook's stay in its cells as given."""
    if not result.changed or result.source is None or result.fixed is None or is_notebook(result.path):
        return result
    to_new = LineMap.between(result.source.text, result.fixed).to_new
    return dataclasses.replace(
        result,
        applied=[_relocated(c, to_new) for c in result.applied],
        unsafe_available=[_relocated(c, to_new) for c in result.unsafe_available],
        reports=[_relocated(r, to_new) for r in result.reports],
    )


def _relocated(item: ChangeOrReport, line_in: Callable[[int], int]) -> ChangeOrReport:
    location = item.location
    line = line_in(location.line)
    return dataclasses.replace(item, location=dataclasses.replace(location, line=line, end_line=max(line, line_in(location.end_line))))


def _lines_as_given(rewritten: dict[str, tuple[str, str]]) -> Callable[[str, int], int]:
    """(file, line of the text a run was served) -> line of the file as given; `rewritten`: real
    path -> (text as given, text the run was served)."""
    maps = {path: LineMap.between(old, new) for path, (old, new) in rewritten.items() if old != new}

    def line_in(file: str, line: int) -> int:
        lines = maps.get(os.path.realpath(file))
        return lines.to_old(line) if lines is not None else line

    return line_in


def sites_as_given(explained: list, rewritten: dict[str, tuple[str, str]]) -> list:  # type: ignore[type-arg]
    """A run's explained break sites (`ExplainedSite`s) in rewritten files, located in the files as
    given, stacks included, for a run that wrote nothing (see `_lines_as_given`)."""
    line_in = _lines_as_given(rewritten)

    def site_moved(site):  # type: ignore[no-untyped-def]
        stack = tuple((file, line_in(file, line), function) for file, line, function in site.stack)
        return dataclasses.replace(site, line=line_in(site.file, site.line), stack=stack)

    return [dataclasses.replace(item, site=site_moved(item.site)) for item in explained]


def recompiles_as_given(recompiles: list, rewritten: dict[str, tuple[str, str]]) -> list:  # type: ignore[type-arg]
    """Recompiles a run saw in rewritten files, located in the files as given (see `_lines_as_given`)."""
    line_in = _lines_as_given(rewritten)
    return [dataclasses.replace(r, line=line_in(r.file, r.line)) for r in recompiles]


def change_as_written(change: Change, old: str, new: str) -> Change:
    """A change located in the file as given, located in the file written."""
    return _relocated(change, LineMap.between(old, new).to_new)


def lines_note(version: str) -> str:
    return f"Lines are those of the files {version}" + (" (before the fixes)." if version == AS_GIVEN else ".")


def site_line(item: Change | Report, prefix: str = "") -> Text:
    text = Text()
    text.append(f"{place(item)}: ", style="bold")
    text.append(item.rule, style="magenta")
    if isinstance(item, Change):
        text.append(f" [{item.safety.value}]", style="yellow" if item.safety.value == "unsafe" else "green")
    text.append(f" {prefix}{item.message}")
    return text


def place(item: Change | Report) -> str:
    """`path:line:column`, or `path:cell N:line:column` in a notebook (as ruff writes it)."""
    location = item.location
    cell = f"cell {location.cell}:" if location.cell is not None else ""
    return f"{item.path}:{cell}{location.line}:{location.column}"


def cell_prefix(item: Change | Report) -> str:
    """`cell N:line:column: ` for a site in a notebook, where the CI formats' lines are the file's
    (JSON) lines and so cannot point into a cell; "" elsewhere."""
    location = item.location
    return f"cell {location.cell}:{location.line}:{location.column}: " if location.cell is not None else ""


def short_path(path: str) -> str:
    """A path relative to the current directory when it lies below it, else as given."""
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return path
    return relative if not relative.startswith("..") else path


@dataclass(frozen=True)
class Site:
    """One break site of a run, explained: where (`location`, as shown), Dynamo's GB id and
    reason, the rule that fixes it (or why not), and the rule's change as a unified diff ("" when
    there is none or it is not shown)."""

    file: str
    line: int
    gb: str
    reason: str
    skipped_frame: bool
    rule: str | None
    action: str
    location: str
    diff: str = ""

    # "graph break", "skipped frame" or "skipped rest of frame" (see BreakSite.kind).
    type: str = ""

    @property
    def kind(self) -> str:
        return self.type or ("skipped frame" if self.skipped_frame else "graph break")

    @property
    def fix(self) -> str:
        return f"{self.rule}: {self.action}" if self.rule else self.action


def break_sites_table(title: str, sites: Iterable[Site]) -> Table:
    """`graphweld explain`'s table of break sites (also `graphweld.explain`'s in a terminal)."""
    table = Table(title=title, title_justify="left")
    table.add_column("site", overflow="fold")
    for column in ("GB", "type"):
        table.add_column(column, no_wrap=True)
    for column in ("reason", "fix"):
        table.add_column(column, overflow="fold")
    for site in sites:
        url = page_url(site.gb)
        # The GB id links to its registry page, in terminals that show links.
        table.add_row(site.location, Text(site.gb, style=f"link {url}") if url else site.gb, site.kind, site.reason, site.fix)
    return table


def explained_sites(explained, shorten=short_path) -> list[Site]:  # type: ignore[no-untyped-def]
    """A run's explained break sites (`ExplainedSite`s) as the tables show them."""
    sites = []
    for item in explained:
        site = item.site
        reason = f"{site.reason} (in {shorten(site.via)})" if site.via else site.reason
        if getattr(item, "culprit", ""):
            reason = f"{reason}: {item.culprit}"
        # One row per root cause: the breaks Dynamo logged there, counted.
        location = f"{shorten(site.file)}:{site.line}" + (f" ({site.count} breaks)" if site.count > 1 else "")
        sites.append(Site(site.file, site.line, site.gb, reason, site.skipped_frame, item.rule, item.action, location, type=site.kind))
    return sites


def sites_as_json(explained) -> list[dict[str, object]]:  # type: ignore[no-untyped-def]
    """A run's explained break sites for `--format json`."""
    return [
        {"file": item.site.file, "line": item.site.line, "gb": item.site.gb, "registry": page_url(item.site.gb), "type": item.site.kind,
         "reason": item.site.reason, "via": item.site.via or None, "culprit": item.culprit or None,
         "rule": item.rule, "action": item.action, "breaks": item.site.count}
        for item in explained
    ]


def fixes_by_gb(explained) -> list[dict[str, object]]:  # type: ignore[no-untyped-def]
    """Per GB id among a run's sites (in the order they first appear): its registry page, its
    breaks, and whether graphweld has a fix for them here: "fix" (safe, at some site), "unsafe
    fix" (only with --unsafe-fixes), or "none" (no rule fixes any of its sites)."""
    by_gb: dict[str, dict[str, object]] = {}
    for item in explained:
        gb = item.site.gb or "(none)"
        entry = by_gb.setdefault(gb, {"gb": gb, "registry": page_url(gb), "breaks": 0, "fix": "none", "rules": []})
        entry["breaks"] = int(entry["breaks"]) + item.site.count  # type: ignore[call-overload]
        kind = "fix" if item.action == "fix" else "unsafe fix" if item.action.startswith("unsafe fix") else None
        if kind is None:
            continue
        if entry["fix"] != "fix":
            entry["fix"] = kind
        if item.rule not in entry["rules"]:  # type: ignore[operator]
            entry["rules"].append(item.rule)  # type: ignore[attr-defined]
    return list(by_gb.values())


def fixes_by_gb_table(explained) -> Table:  # type: ignore[no-untyped-def]
    """`graphweld explain`'s answer per GB id: a fix, an unsafe fix, or none, and by which rules."""
    table = Table(title="by registry id", title_justify="left")
    for column in ("GB", "breaks", "graphweld", "rules"):
        table.add_column(column, no_wrap=column != "rules", overflow="fold")
    for entry in fixes_by_gb(explained):
        gb, url = str(entry["gb"]), entry["registry"]
        table.add_row(Text(gb, style=f"link {url}") if url else gb, str(entry["breaks"]), str(entry["fix"]), ", ".join(entry["rules"]))  # type: ignore[arg-type]
    return table


def picture(report) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """What a run's compile looked like, as numbers: who compiled it, graphs, ops, skipped frames,
    graph breaks and their sites, recompiles, and whether fullgraph=True compiles (None: not
    checked)."""
    return {
        "compiled_by": report.compiled_by,
        "compile_error": report.compile_error,
        "graphs": report.graphs,
        "ops": report.ops,
        "skipped_frames": report.skipped_frames,
        "graph_breaks": len(report.breaks),
        "break_sites": len(report.sites),
        "recompiles": len(report.recompiles),
        "fullgraph": report.fullgraph,
        # Settings fullgraph=True compiled with only because Dynamo turns them on for it: where
        # non-empty, torch.compile's default (the user's compile) still breaks.
        "fullgraph_implicit": list(report.fullgraph_implicit),
        "train": report.train,
        "backward_graphs": report.backward_graphs,
    }


def recompiles_as_json(report) -> list[dict[str, object]]:  # type: ignore[no-untyped-def]
    """Each recompilation a run logged: the function, where it is, the first guard that failed."""
    return [{"function": r.function, "file": r.file, "line": r.line, "reason": r.reason} for r in report.recompiles]


def picture_rows(report) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    """`picture` as (name, value) rows for a person."""
    fullgraph = report.fullgraph_state
    if report.fullgraph_relaxed:
        fullgraph += " (breaks measured with it relaxed)"
    return [
        ("compiled by", report.compiler),
        ("compiled run", "fails" if report.compile_fails else "runs"),
        ("graphs", str(report.graphs)),
        ("ops in graphs (not judged)", str(report.ops)),
        ("skipped frames", str(report.skipped_frames)),
        ("graph breaks (logged)", str(len(report.breaks))),
        ("graph break sites", str(len(report.sites))),
        ("recompiles (all calls)", str(len(report.recompiles))),
        ("fullgraph=True", fullgraph),
        *([("backward graphs (first step)", "-" if report.backward_graphs is None else str(report.backward_graphs))] if report.train else []),
    ]


def picture_table(title: str, before, after=None) -> Table:  # type: ignore[no-untyped-def]
    """One run's compile picture, or two side by side (before and after)."""
    table = Table(title=title, title_justify="left")
    table.add_column("")
    table.add_column("before" if after is not None else "value", justify="right")
    if after is not None:
        table.add_column("after", justify="right")
    after_rows = picture_rows(after) if after is not None else None
    for index, (name, value) in enumerate(picture_rows(before)):
        table.add_row(name, value, *([after_rows[index][1]] if after_rows is not None else []))
    return table


@dataclass
class Summary:
    """Counts over a whole run."""

    scanned: int = 0
    parsed: int = 0
    changed: int = 0
    per_rule: Counter[str] = field(default_factory=Counter)
    unsafe_available: int = 0
    not_fixed: int = 0
    errors: int = 0

    def add(self, result: FileResult) -> None:
        self.scanned += 1
        self.parsed += result.parsed
        self.changed += result.changed
        self.per_rule.update(change.rule for change in result.applied)
        self.unsafe_available += len(result.unsafe_available)
        self.not_fixed += len(result.reports)
        self.errors += result.error is not None

    def table(self, pending: bool) -> Table:
        table = Table(title="graphweld summary", show_header=False, title_justify="left")
        table.add_column("what")
        table.add_column("count", justify="right")
        table.add_row("files scanned", str(self.scanned))
        table.add_row("files parsed (may hold a site)", str(self.parsed))
        table.add_row("files that would change" if pending else "files changed", str(self.changed))
        for rule, count in sorted(self.per_rule.items()):
            table.add_row(f"  {rule}", f"{count} {'to apply' if pending else 'applied'}")
        if self.unsafe_available:
            table.add_row("unsafe fixes not applied (--unsafe-fixes)", str(self.unsafe_available))
        table.add_row("sites reported, not fixed", str(self.not_fixed))
        table.add_row("errors", str(self.errors), style="red" if self.errors else None)
        return table

    def as_dict(self) -> dict[str, object]:
        return {
            "files_scanned": self.scanned,
            "files_parsed": self.parsed,
            "files_changed": self.changed,
            "changes_per_rule": dict(sorted(self.per_rule.items())),
            "unsafe_fixes_not_applied": self.unsafe_available,
            "sites_not_fixed": self.not_fixed,
            "errors": self.errors,
        }


def _location_dict(item: Change | Report) -> dict[str, int]:
    location = item.location
    cell = {"cell": location.cell} if location.cell is not None else {}
    return {**cell, "line": location.line, "column": location.column, "end_line": location.end_line, "end_column": location.end_column}


def results_as_json(results: Iterable[FileResult], summary: Summary, applied: bool) -> str:
    """Machine-readable output: every change, report and error, and the summary."""
    changes = []
    reports = []
    errors = []
    for result in results:
        for change, was_applied in [(c, applied) for c in result.applied] + [(c, False) for c in result.unsafe_available]:
            changes.append(
                {
                    "path": change.path,
                    "rule": change.rule,
                    "safety": change.safety.value,
                    **_location_dict(change),
                    "message": change.message,
                    "applied": was_applied,
                    "edits": [
                        {**({"cell": edit.cell} if edit.cell is not None else {}),
                         "start_line": edit.start_line + 1, "end_line": edit.end_line, "new_text": edit.new_text}
                        for edit in change.edits
                    ],
                }
            )
        for report in result.reports:
            reports.append({"path": report.path, "rule": report.rule, **_location_dict(report), "message": report.message})
        if result.error is not None:
            errors.append({"path": result.path, "message": result.error})
    return json.dumps(
        {"lines": AS_WRITTEN if applied else AS_GIVEN, "changes": changes, "reports": reports, "errors": errors, "summary": summary.as_dict()},
        indent=2,
    )


def results_as_github(results: Iterable[FileResult], applied: bool) -> str:
    """GitHub Actions workflow commands: one annotation per site (changes, unsafe fixes on offer,
    reports) and per file error, shown on the pull request's diff."""
    lines = []
    for result in results:
        if result.error is not None:
            lines.append(f"::error file={_github_property(result.path)}::{_github_data(result.error)}")
            continue
        for item, action in _sites(result, applied):
            location = item.location
            safety = f" [{item.safety.value}]" if isinstance(item, Change) else ""
            # Lines in a notebook's cell are not lines of its file: the cell goes in the message.
            where = () if location.cell is not None else (
                f"line={location.line}", f"col={location.column}",
                f"endLine={location.end_line}", f"endColumn={location.end_column}",
            )
            cell = cell_prefix(item)
            properties = ",".join(
                (f"file={_github_property(item.path)}", *where, f"title={_github_property(f'graphweld {item.rule}{safety}')}")
            )
            lines.append(f"::warning {properties}::{_github_data(f'{cell}{action}: {item.message}')}")
    return "\n".join(lines)


def _sites(result: FileResult, applied: bool) -> list[tuple[Change | Report, str]]:
    """Every site of a file's result, with what happened to it, for the CI formats."""
    sites: list[tuple[Change | Report, str]] = [(c, "fixed" if applied else "would fix") for c in result.applied]
    sites += [(c, "unsafe fix available (--unsafe-fixes)") for c in result.unsafe_available]
    sites += [(r, "not fixed") for r in result.reports]
    return sites


def _github_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _github_property(text: str) -> str:
    return _github_data(text).replace(":", "%3A").replace(",", "%2C")


SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def results_as_sarif(results: Iterable[FileResult], rules, applied: bool, version: str) -> str:  # type: ignore[no-untyped-def]
    """SARIF 2.1.0 (code scanning): one run, the rules with their documentation, one result per
    site with its location, and each change's edits as a `fixes` entry of artifact changes."""
    import inspect

    rule_index = {rule.id: index for index, rule in enumerate(rules)}
    driver = {
        "name": "graphweld",
        "version": version,
        "rules": [
            {
                "id": rule.id,
                "shortDescription": {"text": rule.summary},
                "fullDescription": {"text": rule.summary},
                "help": {"text": inspect.cleandoc(rule.__doc__ or ""), "markdown": inspect.cleandoc(rule.__doc__ or "")},
                "helpUri": rule.reference,
            }
            for rule in rules
        ],
    }
    sarif_results = []
    notifications = []
    for result in results:
        if result.error is not None:
            notifications.append(
                {
                    "level": "error",
                    "message": {"text": result.error},
                    "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(result.path)}}}],
                }
            )
            continue
        for item, action in _sites(result, applied):
            location = item.location
            in_cell = location.cell is not None
            cell = cell_prefix(item)
            entry: dict = {
                "ruleId": item.rule,
                "ruleIndex": rule_index.get(item.rule, -1),
                "level": "warning",
                "message": {"text": f"{cell}{action}: {item.message}"},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {"uri": _uri(item.path)},
                            "region": {
                                "startLine": location.line,
                                "startColumn": location.column,
                                "endLine": location.end_line,
                                "endColumn": location.end_column,
                            },
                        }
                    }
                ],
            }
            if in_cell:
                # SARIF regions are of the file's text; a notebook's cells are named in the message.
                del entry["locations"][0]["physicalLocation"]["region"]
            if isinstance(item, Change):
                entry["properties"] = {"safety": item.safety.value, "applied": action == "fixed"}
            if isinstance(item, Change) and not in_cell:
                entry["fixes"] = [
                    {
                        "description": {"text": f"{item.rule} ({item.safety.value})"},
                        "artifactChanges": [
                            {
                                "artifactLocation": {"uri": _uri(item.path)},
                                "replacements": [_sarif_replacement(edit) for edit in item.edits],
                            }
                        ],
                    }
                ]
            sarif_results.append(entry)
    run: dict = {
        "tool": {"driver": driver}, "results": sarif_results, "columnKind": "unicodeCodePoints",
        "properties": {"lines": AS_WRITTEN if applied else AS_GIVEN},
    }
    if notifications:
        run["invocations"] = [{"executionSuccessful": False, "toolExecutionNotifications": notifications}]
    return json.dumps({"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2)


def _sarif_replacement(edit) -> dict:  # type: ignore[no-untyped-def]
    """An edit's hunk (0-based start, exclusive end lines of the original) as a SARIF replacement:
    whole lines deleted (none for an insertion) and the new text inserted there."""
    if edit.end_line > edit.start_line:
        deleted = {"startLine": edit.start_line + 1, "startColumn": 1, "endLine": edit.end_line + 1, "endColumn": 1}
    else:
        deleted = {"startLine": edit.start_line + 1, "startColumn": 1, "endLine": edit.start_line + 1, "endColumn": 1}
    return {"deletedRegion": deleted, "insertedContent": {"text": edit.new_text}}


def _uri(path: str) -> str:
    return Path(path).as_posix()


# -- what a run shows (explain, fix with a run) ------------------------------------------------


def print_recompiles(out: Console, report) -> None:  # type: ignore[no-untyped-def]
    for recompile in report.recompiles:
        out.print(
            f"Recompiled {recompile.function} ({short_path(recompile.file)}:{recompile.line}): {recompile.reason}",
            highlight=False,
        )


def print_fullgraph_failure(out: Console, report) -> None:  # type: ignore[no-untyped-def]
    if report.fullgraph_relaxed:
        out.print(
            f"The program's own fullgraph=True fails ({report.fullgraph_error}); its breaks were measured "
            "with fullgraph=True relaxed to False.",
            highlight=False,
        )


def print_trials(out, trials) -> None:  # type: ignore[no-untyped-def]
    for trial in trials:
        flags = ",".join(f"{name}=true" for name in trial.settings)
        out.print(f"Measured: {trial.line()} (--compile-options {flags}).", highlight=False)


# What `explain` says about the compile boundary it measured (the README's "compile boundary").
BOUNDARY_NOTES = {
    "command": "Compiled by the command's own code: every torch.compile its processes made was measured as it is.",
    "entry": "Compiled by the entry's own code: its torch.compile calls were measured as they are, and "
    "graphweld compiled nothing more. What the factory returns is not assumed compiled: code that runs "
    "eagerly around the compiled functions is left alone.",
    "graphweld": "Compiled by graphweld: calling what the factory returns compiled nothing by itself, so "
    "graphweld compiled it (the entry convention); it and what it calls are compiled regions.",
}



def trials_as_json(trials) -> list[dict[str, object]]:  # type: ignore[no-untyped-def]
    return [
        {"settings": list(trial.settings), "graph_breaks_before": len(trial.before.breaks),
         "graph_breaks_after": len(trial.after.breaks), "graphs_before": trial.before.graphs,
         "graphs_after": trial.after.graphs, "skipped_frames_before": trial.before.skipped_frames,
         "skipped_frames_after": trial.after.skipped_frames, "outputs_equal": trial.outputs_equal}
        for trial in trials
    ]


def tried_as_json(item) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """A change `fix --entry` verified and dropped, or kept as a site's next fix."""
    change = item.change
    first = item.instead_of
    return {
        "path": item.path, "line": change.location.line, "column": change.location.column, "rule": change.rule,
        "form": change.form or None, "safety": change.safety.value, "kept": item.kept, "why": item.why or None,
        "instead_of": None if first is None else {"rule": first.rule, "form": first.form or None, "line": first.location.line},
    }


def outputs_table(title: str, comparisons) -> Table:  # type: ignore[no-untyped-def]
    """`graphweld verify`'s table: each output leaf, equal or not, and how it differs."""
    table = Table(title=title, title_justify="left")
    for column in ("output", "equal", "detail"):
        table.add_column(column)
    for leaf in comparisons:
        table.add_row(leaf.path, "yes" if leaf.equal else "[red]no[/]", leaf.detail)
    return table


def explanation_as_json(report, explained, trials) -> str:  # type: ignore[no-untyped-def]
    """`graphweld explain --format json`."""
    return json.dumps({
        "device": report.device, "torch": report.torch_version, **picture(report),
        "fullgraph_error": report.fullgraph_error,
        "sites": sites_as_json(explained),
        "by_gb": fixes_by_gb(explained),
        "recompile_sites": recompiles_as_json(report),
        "capture_settings": trials_as_json(trials),
    }, indent=2)


def verified_fix_as_json(result, after, remaining, written: bool) -> str:  # type: ignore[no-untyped-def]
    """`graphweld fix --entry/-- CMD --format json`: `after` and `remaining` located in the files
    as the user has them (as written, or as given)."""
    setting_fix = result.setting_fix
    return json.dumps({
        "device": result.before.device,
        "before": picture(result.before),
        "after": picture(after),
        # The rules' changes by file (a file holding only a capture setting is under capture_setting_fix).
        "kept": {path: [c.rule for c in candidate.applied] for path, candidate in result.kept.items() if candidate.applied},
        "effects": [
            {"path": path, "line": change.location.line, "rule": change.rule, "effect": effect,
             "exercised": result.exercised.get((path, change))}
            for (path, change), effect in result.effects.items()
        ],
        "tried": [tried_as_json(item) for item in result.tried],
        "errors": result.errors, "written": written, "lines": AS_WRITTEN if written else AS_GIVEN,
        "remaining": sites_as_json(remaining),
        "recompile_sites": recompiles_as_json(after),
        "capture_settings": trials_as_json(result.trials),
        "capture_setting_fix": None if setting_fix is None else {
            "path": setting_fix.path, "line": setting_fix.line if written else setting_fix.line_as_given,
            "settings": list(setting_fix.trial.settings), "measured": setting_fix.measured,
        },
        "capture_setting_note": result.setting_note,
        "rounds": [
            {"round": item.number, "seconds": item.seconds, "kept": item.kept, "out_of_time": item.out_of_time}
            for item in result.rounds
        ],
    }, indent=2)
