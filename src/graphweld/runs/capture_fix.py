"""The capture-setting fix of `fix --entry --unsafe-fixes`: when a measured run shows that a Dynamo
capture setting removes breaks with outputs still equal to eager, the setting is written next to
the user's own `torch.compile` call in the entry, never into a package the entry imports.

It is a fix of its own, outside the rules: its only evidence is the measured run, and a setting
is global to the process, so it belongs where the user compiles, not where the break is.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Collection, Sequence

import libcst as cst

from graphweld.runs.explanation import CaptureTrial
from graphweld.analysis.names import ImportTable
from graphweld.positions import node_spans
from graphweld.analysis.regions import COMPILE_DECORATORS
from graphweld.edits import LineMap
from graphweld.source import SourceFile
from graphweld.walk import iter_nodes


@dataclass(frozen=True)
class CaptureSettingFix:
    """The setting written into the entry. `fixed` is the entry's whole text as written: the
    setting composed onto the rewrites kept in the same file, so the file is written once. `line`
    is where the setting stands in that text, `line_as_given` the line, in the file as given, of
    the compile it goes before. `measured` says what a run of the files exactly as written showed."""

    path: str
    source: SourceFile
    fixed: str
    line: int
    line_as_given: int
    trial: CaptureTrial
    measured: str = ""

    @property
    def message(self) -> str:
        measured = self.measured or f"{self.trial.line()}, not yet run as written"
        return (
            f"set {', '.join(self.trial.settings)} before the torch.compile call (unsafe: the setting is global to "
            f"the process; measured {measured})"
        )


def best_trial(trials: list[CaptureTrial], refused: Collection[tuple[str, ...]] = ()) -> CaptureTrial | None:
    """Among the trials with outputs equal that made Dynamo's picture better, the best picture,
    judged as every rewrite is: skipped frames, then breaks, then graphs (the fewer settings on a
    tie). Settings in `refused` (found to fail where the program's own backend compiles) are passed
    over, and so is any trial holding all of one of them: a switch more does not undo a failure."""
    useful = [
        t for t in trials
        if t.outputs_equal and picture(t.after) < picture(t.before) and not any(set(r) <= set(t.settings) for r in refused)
    ]
    return min(useful, key=lambda t: (picture(t.after), len(t.settings)), default=None)


def picture(report) -> tuple[int, int, int, int]:  # type: ignore[no-untyped-def]
    """What a run's compile looks like, worst first: whether the compiled run fails, skipped
    frames, breaks, graphs."""
    return (int(report.compile_fails), report.skipped_frames, len(report.breaks), report.graphs)


# The comment above a written setting: in an entry, and in a command's file.
MARKER = "# Measured by graphweld fix --entry: fewer graph breaks, outputs equal to eager."
COMMAND_MARKER = "# Measured by graphweld fix: fewer graph breaks, the command still succeeds."


def capture_setting_fix(
    source: SourceFile, trial: CaptureTrial, text: str | None = None, marker: str = MARKER
) -> CaptureSettingFix | str:
    """The file's text with the trial's settings assigned before its first `torch.compile` call
    (or the function decorated with it), under `marker`; a one-line reason when there is none to
    put them by. `text` is the file as the kept rewrites left it (default: as given): the setting
    is written onto it, never onto a second read of the file."""
    text = source.text if text is None else text
    place = _setting_place(text)
    if place is None:
        return "the entry does not `import torch`"
    module, torch_name, holder = place
    if holder is None:
        return (
            "the entry has no torch.compile call of its own (graphweld compiled its model); set "
            f"{trial.assignments()} where you compile it"
        )
    statements = [cst.parse_statement(f"{torch_name}._dynamo.config.{name} = True\n") for name in trial.settings]
    above, attached = _split_leading_lines(holder.leading_lines)
    statements[0] = statements[0].with_changes(leading_lines=(*above, cst.EmptyLine(comment=cst.Comment(marker))))
    # A definition keeps the blank lines a person puts above one (two at the top level, one inside
    # a block); a plain statement follows the settings directly.
    if isinstance(holder, (cst.FunctionDef, cst.ClassDef)):
        blank = 2 if holder in module.body else 1
        attached = (*[cst.EmptyLine()] * blank, *attached)
    replaced = module.deep_replace(holder, cst.FlattenSentinel([*statements, holder.with_changes(leading_lines=attached)]))
    assert isinstance(replaced, cst.Module)
    span = node_spans(module, [holder]).get(id(holder))
    holder_line = span.start_line if span else 1
    line_as_given = LineMap.between(source.text, text).to_old(holder_line) if text != source.text else holder_line
    fixed = replaced.code
    return CaptureSettingFix(source.path, source, fixed, _first_inserted(text, fixed, f"{torch_name}._dynamo.config."), line_as_given, trial)


def _split_leading_lines(lines: Sequence[cst.EmptyLine]) -> tuple[tuple[cst.EmptyLine, ...], tuple[cst.EmptyLine, ...]]:
    """A statement's leading lines as the blank lines above it and the comment block attached to
    it (from its first comment on): the settings go between the two."""
    for index, line in enumerate(lines):
        if line.comment is not None:
            return tuple(lines[:index]), tuple(lines[index:])
    return tuple(lines), ()


def _first_inserted(old: str, new: str, prefix: str) -> int:
    """The line of `new` (1-based) of the first line inserted into `old` that starts with `prefix`."""
    new_lines = new.splitlines()
    matcher = difflib.SequenceMatcher(None, old.splitlines(), new_lines, autojunk=False)
    for tag, _, _, first, last in matcher.get_opcodes():
        if tag in ("insert", "replace"):
            for index in range(first, last):
                if new_lines[index].lstrip().startswith(prefix):
                    return index + 1
    return 1


def setting_writable(source: SourceFile, text: str | None = None) -> bool:
    """Whether a capture setting can be written in the file (`text`: as the kept rewrites left
    it; default, as given): it imports torch and compiles."""
    place = _setting_place(source.text if text is None else text)
    return place is not None and place[2] is not None


def _setting_place(text: str) -> tuple[cst.Module, str, cst.BaseStatement | None] | None:
    """The entry's module, its name for torch and the statement a setting goes before (None when
    it compiles nothing itself); None when it does not import torch."""
    module = cst.parse_module(text)
    imports = ImportTable()
    for node in iter_nodes(module):
        if isinstance(node, cst.Import):
            imports.add_import(node)
        elif isinstance(node, cst.ImportFrom):
            imports.add_import_from(node)
    torch_name = imports.local_name("torch")
    if torch_name is None:
        return None
    return module, torch_name, _compiling_statement(module, imports)


def _compiling_statement(module: cst.Module, imports: ImportTable) -> cst.BaseStatement | None:
    """The first statement (in any block) that calls `torch.compile` or is a function decorated
    with it; for a statement of a class body (a decorated method), the top-level statement holding
    the class: a setting written there would run as a class attribute's neighbour, not before a
    call."""
    for statement in module.body:
        in_class_bodies = {
            id(child) for node in iter_nodes(statement) if isinstance(node, cst.ClassDef) for child in node.body.body
        }
        for node in iter_nodes(statement):
            if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                compiles = any(imports.qualify(_decorator_name(d.decorator)) in COMPILE_DECORATORS for d in node.decorators)
            elif isinstance(node, cst.SimpleStatementLine):
                compiles = any(isinstance(n, cst.Call) and imports.qualify(n.func) == "torch.compile" for n in iter_nodes(node))
            else:
                continue
            if compiles:
                return statement if id(node) in in_class_bodies else node
    return None


def _decorator_name(decorator: cst.BaseExpression) -> cst.BaseExpression:
    return decorator.func if isinstance(decorator, cst.Call) else decorator
