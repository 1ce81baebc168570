"""The core API: proposed changes for a source text, fixes to a fixed point, and runs over files.

Every front-end (CLI, interactive review, language server) is a thin layer over `propose`,
`fix_text` and `run`. Nothing here prints, prompts or writes files.

One file goes through: read bytes -> bytes prefilter (can it hold a site at all?) -> decode ->
parse once -> compiled-region analysis -> all selected rules in one traversal -> proposals.
`fix_text` applies the proposals allowed by the settings, non-overlapping ones together, and
repeats on the new text until no rule proposes anything, so a second run changes nothing.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import gc
import multiprocessing
import os
import warnings
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, Sequence, TypeVar

import libcst as cst

from graphweld import cst_fast
from graphweld.codemods import RULES, RULES_BY_ID
from graphweld.discover import discover
from graphweld.positions import Span, node_spans, simple_statement_lines
from graphweld.edits import TextEdit, apply_edits, minimal_edits, ranges_overlap, split_lines
from graphweld.notebook import Notebook, is_notebook, read_notebook
from graphweld.analysis.project import ProjectIndex
from graphweld.analysis.torch_api import installed_torch
from graphweld.prefilter import MAY_HOLD_SITE, UNCOMPILED, file_verdict
from graphweld.analysis.regions import CompiledRegions
from graphweld.reparse import spliced_module
from graphweld.rule import Rule, RuleContext, Safety
from graphweld.settings import Settings
from graphweld.source import SourceError, SourceFile, decode_source, read_bytes
from graphweld.suppression import is_suppressed, suppressed_lines
from graphweld.walk import is_expression, children, walk

# A rule set that keeps proposing after this many rounds has a bug; the file is left alone.
MAX_ROUNDS = 10


@dataclass(frozen=True)
class Location:
    """1-based lines, 1-based columns, end inclusive of the last line."""

    line: int
    column: int
    end_line: int
    end_column: int
    # In a notebook: the 1-based cell number, the lines then counted within that cell.
    cell: int | None = None


@dataclass(frozen=True)
class Change:
    """A proposed rewrite: applying all of `edits` turns the text it was proposed on into the
    fixed text (usually one hunk; two when a helper is added elsewhere in the module)."""

    path: str
    rule: str
    safety: Safety
    location: Location
    message: str
    edits: tuple[TextEdit, ...]
    # Line ranges [start, end) (0-based) of the statements the change replaces. Two changes
    # conflict when these overlap, even if their hunks do not: a loop being unrolled and a `try`
    # inside it being split must not be applied in the same round.
    regions: tuple[tuple[int, int], ...] = ()
    # Line ranges (1-based, inclusive) of statements elsewhere whose breaks the change removes.
    resolved: tuple[tuple[int, int], ...] = ()
    # Which of the rule's fixes this is, for a rule with several ("" for one).
    form: str = ""
    # The function holding the change's anchor is no longer compiled after it (a split).
    ends_region: bool = False

    @property
    def key(self) -> "ChangeKey":
        """What identifies the change among a text's changes: rule, form and where its anchor is."""
        return ChangeKey(self.rule, self.form, self.location.line, self.location.column)

    def same_fix(self, other: "Change") -> bool:
        """The same fix of the same code, wherever earlier rewrites moved it: rule, form and
        message (which quotes the code it rewrites)."""
        return (self.rule, self.form, self.message) == (other.rule, other.form, other.message)

    def targets_line(self, line: int) -> bool:
        """Whether a break at 1-based `line` is this change's to fix: at its anchor, in a statement
        it replaces or rewrites, or in one whose breaks it removes."""
        return self.location.line == line or self.covers_line(line) or self.replaces_line(line) or self.resolves_line(line)

    def overlaps(self, other: "Change") -> bool:
        mine = self.regions or tuple((e.start_line, e.end_line) for e in self.edits)
        theirs = other.regions or tuple((e.start_line, e.end_line) for e in other.edits)
        return any(ranges_overlap(a, b) for a in mine for b in theirs)

    def replaces_line(self, line: int) -> bool:
        """Whether 1-based `line` of the original text lies in a statement the change replaces."""
        return any(start < line <= end for start, end in self.regions)

    def resolves_line(self, line: int) -> bool:
        """Whether a break at 1-based `line` lies in a statement whose breaks the change removes."""
        return any(start <= line <= end for start, end in self.resolved)

    def covers_line(self, line: int) -> bool:
        """Whether a hunk replaces (or inserts at) 1-based `line` of the original text."""
        return any(edit.start_line < line <= max(edit.end_line, edit.start_line + 1) for edit in self.edits)


@dataclass(frozen=True)
class ChangeKey:
    """A change's identity in the text it was proposed on (1-based line and column)."""

    rule: str
    form: str
    line: int
    column: int


@dataclass(frozen=True)
class Report:
    """A site a rule found but does not rewrite, with the reason in `message`."""

    path: str
    rule: str
    location: Location
    message: str


ChangeOrReport = TypeVar("ChangeOrReport", Change, Report)


@dataclass
class Proposals:
    changes: list[Change] = field(default_factory=list)
    reports: list[Report] = field(default_factory=list)
    # Qualified names of the functions that hold the given break sites, and of those among them
    # that user code called (helpers).
    site_functions: frozenset[str] = frozenset()
    called_functions: frozenset[str] = frozenset()
    # Whether the text has any compiled region (nothing is looked for without one).
    any_compiled: bool = True
    # The module's compiled regions (`regions.root_reasons()`: where compilation starts, and why).
    regions: CompiledRegions | None = None


@dataclass
class FileResult:
    """What a run found and would do for one file. `fixed` is None when nothing changes."""

    path: str
    source: SourceFile | None = None
    fixed: str | None = None
    applied: list[Change] = field(default_factory=list)
    # Unsafe fixes left in the final text because unsafe fixes were not enabled.
    unsafe_available: list[Change] = field(default_factory=list)
    reports: list[Report] = field(default_factory=list)
    error: str | None = None
    parsed: bool = False
    # Module code with calls that break graphs (in a `forward`) that nothing in the run compiles.
    no_region: bool = False

    @property
    def changed(self) -> bool:
        return self.fixed is not None


class RuleSelectionError(ValueError):
    pass


def selected_rules(settings: Settings) -> tuple[type[Rule], ...]:
    """The rules the settings select, in registry order; unknown ids are an error."""
    for rule_id in (*settings.select, *settings.ignore):
        if rule_id != "ALL" and rule_id not in RULES_BY_ID:
            raise RuleSelectionError(f"unknown rule id '{rule_id}' (known: {', '.join(RULES_BY_ID)})")
    chosen = RULES if not settings.select or "ALL" in settings.select else tuple(
        rule for rule in RULES if rule.id in settings.select
    )
    return tuple(rule for rule in chosen if rule.id not in settings.ignore)


# -- one round on one text ------------------------------------------------------------------


class _Dispatcher:
    """Runs every rule in one walk and keeps the stack of enclosing functions.

    Functions that are neither compiled regions nor hold one are not entered; neither are
    expressions when every rule asks only for statements, nor lines of simple statements when
    no rule asks for what is inside them.
    """

    def __init__(self, context: RuleContext, rules: Sequence[Rule]) -> None:
        self.context = context
        self.handlers: dict[type, list[Callable[[cst.CSTNode], None]]] = {}
        for rule in rules:
            for node_type in rule.node_types:
                self.handlers.setdefault(node_type, []).append(getattr(rule, f"visit_{node_type.__name__}"))
        self.statements_only = all(
            issubclass(node_type, (cst.BaseStatement, cst.BaseSmallStatement)) for node_type in self.handlers
        )
        # Nothing inside a line of simple statements is asked for unless a rule visits those.
        self.lines_are_leaves = self.statements_only and not any(
            issubclass(node_type, cst.BaseSmallStatement) for node_type in self.handlers
        )

    def run(self, module: cst.Module) -> None:
        walk(module, self._enter, self._leave, skip_expressions=self.statements_only)

    def _enter(self, node: cst.CSTNode) -> bool:
        if type(node) is cst.FunctionDef:
            if not self.context.regions.worth_entering(node):
                return False
            self.context.function_stack.append(node)
        if type(node) is cst.If and type(node.orelse) is cst.If:
            # An `elif` is the `orelse` of its `if`: it cannot be replaced by statements.
            self.context.elif_nodes.add(id(node.orelse))
        for handler in self.handlers.get(type(node), ()):
            handler(node)
        return not (self.lines_are_leaves and type(node) is cst.SimpleStatementLine)

    def _leave(self, node: cst.CSTNode) -> None:
        stack = self.context.function_stack
        if stack and stack[-1] is node:
            stack.pop()


class _Replace(cst.CSTTransformer):
    def __init__(self, replacements: dict[int, Sequence[cst.BaseStatement]]) -> None:
        super().__init__()
        self.replacements = replacements

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode):  # type: ignore[override]
        replacement = self.replacements.get(id(original_node))
        if replacement is None:
            return updated_node
        return cst.FlattenSentinel(replacement)


class _Splicer:
    """The edits of one change, generating code only for the statements it replaces.

    Generating the whole module for every change made files with many sites quadratic (a module
    with a 3,000-line class and 270 sites took minutes). A replaced statement's code is generated
    with the indentation of the blocks around it, checked against the lines the statement
    occupies, and compared with its replacement's code; when the check fails (or targets nest),
    the whole module is generated instead.
    """

    def __init__(self, module: cst.Module, text: str, spans: dict[int, Span], indents: dict[int, list[str]]) -> None:
        self.module = module
        self.text = text
        self.lines = split_lines(text)
        self.spans = spans
        self.known_indents = indents  # found while placing statements, when they were
        self._parents: dict[int, cst.CSTNode] | None = None

    def _indents(self, node: cst.CSTNode) -> list[str] | None:
        """The indentation tokens of the blocks enclosing a statement, outermost first."""
        if id(node) in self.known_indents:
            return self.known_indents[id(node)]
        if self._parents is None:
            # Statements and the blocks holding them only: expressions never hold a statement.
            self._parents = {}
            stack: list[cst.CSTNode] = [self.module]
            while stack:
                parent = stack.pop()
                for child in children(parent):
                    if not is_expression(child):
                        self._parents[id(child)] = parent
                        stack.append(child)
        indents: list[str] = []
        current = self._parents.get(id(node))
        while current is not None and current is not self.module:
            if isinstance(current, cst.IndentedBlock):
                indents.append(current.indent if current.indent is not None else self.module.default_indent)
            current = self._parents.get(id(current))
        return list(reversed(indents)) if current is self.module else None

    def _code(self, nodes: Sequence[cst.CSTNode], indents: list[str]) -> str:
        return cst_fast.code(list(nodes), self.module, indents)

    def _statement_edits(self, target: cst.CSTNode, replacement: Sequence[cst.BaseStatement]) -> list[TextEdit] | None:
        indents = self._indents(target)
        if indents is None or id(target) not in self.spans:
            return None
        old = self._code([target], indents)
        end = self.spans[id(target)].end_line  # exclusive 0-based end: the statement's last line
        start = end - len(split_lines(old))
        if start < 0 or "".join(self.lines[start:end]) != old:
            return None
        if is_insertion(target, replacement):
            if replacement[0] is target:
                return [TextEdit(end, end, self._code(replacement[1:], indents), definitions=True)]
            # Before the statement's own first line (its comments above stay above the insertion),
            # two blank lines apart from a definition.
            first = self.spans[id(target)].start_line - 1
            gap = "\n\n" if isinstance(target, (cst.FunctionDef, cst.ClassDef)) else ""
            return [TextEdit(first, first, self._code(replacement[:-1], indents) + gap, definitions=True)]
        new = self._code(replacement, indents)
        return [TextEdit(e.start_line + start, e.end_line + start, e.new_text) for e in minimal_edits(old, new)]

    def edits(self, targets: Sequence[cst.CSTNode], replacements: dict[int, Sequence[cst.BaseStatement]]) -> tuple[TextEdit, ...]:
        edits: list[TextEdit] = []
        for target in targets:
            found = self._statement_edits(target, replacements[id(target)])
            if found is None:
                edits = []
                break
            edits.extend(found)
        spans = sorted((e.start_line, max(e.end_line, e.start_line)) for e in edits)
        disjoint = all(first[1] <= second[0] for first, second in zip(spans, spans[1:]))
        if edits and disjoint:
            return tuple(sorted(edits, key=lambda e: e.start_line))
        return minimal_edits(self.text, self.module.visit(_Replace(replacements)).code)


def is_insertion(target: cst.CSTNode, replacement: Sequence[cst.BaseStatement]) -> bool:
    """Whether a replacement keeps its target and only adds statements after it (a rule adding
    definitions after an import) or before it (`import torch` above the first definition of a
    module that imports nothing); such a target is not one the change replaces."""
    return len(replacement) > 1 and (replacement[0] is target or replacement[-1] is target)


def parse(text: str) -> cst.Module:
    """Parse source text, turning libcst's multi-line error into one line."""
    try:
        return cst_fast.parse_module(text)
    except cst.ParserSyntaxError as exc:
        # CPython's parser locates and words syntax errors better than libcst's.
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ast.parse(text)
        except SyntaxError as python_error:
            raise SourceError(
                f"syntax error at line {python_error.lineno}, column {python_error.offset}: {python_error.msg}"
            ) from None
        except (ValueError, RecursionError, MemoryError):
            pass
        first = str(exc.message).strip().splitlines()[0] if str(exc.message).strip() else "invalid syntax"
        raise SourceError(f"cannot parse (line {exc.raw_line}): {first}") from None
    except (RecursionError, MemoryError):
        raise SourceError("cannot parse: the code is nested too deeply") from None


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a file is analysed.

    A libcst tree is a few hundred thousand to millions of GC-tracked objects, and every full
    collection while one is alive walks all of it; libcst and CPython's `ast` parsers then trigger
    collection after collection that free almost nothing (trees hold no cycles). Pausing took the
    time per file on the transformers sources from 1.61x to 1.38x that of a stock libcst parse.
    The few cycles a file's analysis does leave (tens of thousands of small objects at most) are
    collected once the collector runs again. Re-entrant: only the outermost pause re-enables it.
    Used as a decorator on `propose` and `fix_text`, the entry points of every front-end.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@collector_paused()
def propose(
    text: str,
    path: str,
    settings: Settings,
    rules: Sequence[type[Rule]] | None = None,
    *,
    site_lines: frozenset[int] = frozenset(),
    site_functions: frozenset[str] = frozenset(),
    called_lines: frozenset[int] = frozenset(),
    called_functions: frozenset[str] = frozenset(),
    data_dependent_lines: frozenset[int] = frozenset(),
    stack_lines: frozenset[int] = frozenset(),
    untraceable_lines: frozenset[int] = frozenset(),
    disabled_call_lines: frozenset[int] = frozenset(),
    module: cst.Module | None = None,
    excluded: Callable[[ChangeKey], bool] | None = None,
    compiled_elsewhere: frozenset[str] = frozenset(),
) -> Proposals:
    """Every change and report the rules have for `text`, each change independent of the others.

    `site_lines` / `site_functions`: where a run of an entry saw graph breaks; the functions
    holding them are compiled regions even when nothing in the file compiles them.
    `called_lines` / `called_functions`: the sites among them inside a function the user's code
    called (a helper, rather than the function torch.compile was given).
    `data_dependent_lines`: the sites among them where Dynamo stopped on data-dependent branching;
    `untraceable_lines`: those where it met a call it cannot trace at all (a skipped function, an
    opaque object); `disabled_call_lines`: those where it met a call of a function disabled for it.
    `stack_lines`: lines on the stack of a break the run saw further in (the calls that led to
    it); only rules that fix a break from its callers (`Rule.fixes_from_callers`) read them, and
    in a file with no break of its own only those rules run.
    `module`: the text's tree when the caller has it already.
    `excluded`: changes the caller ruled out (by key); they are not proposed, and a rule with
    several forms proposes its next one instead.
    `compiled_elsewhere`: functions other modules compile (`Net.forward`): regions too.
    Raises SourceError when the text does not parse.
    """
    rules = selected_rules(settings) if rules is None else rules
    passed_through = bool(stack_lines) and not (site_lines or site_functions or called_lines or called_functions)
    if passed_through:
        # A file the run only passed through on the way to a break: only a fix made from a caller.
        rules = [rule for rule in rules if rule.fixes_from_callers]
    if not (site_lines or site_functions or called_lines or called_functions):
        # A rule whose trigger words the text does not contain has nothing to find in it.
        rules = [rule for rule in rules if _mentions_trigger(text, rule, settings)]
        if passed_through and not rules:
            return Proposals(any_compiled=False)
    if module is None:
        module = parse(text)
    regions = CompiledRegions(
        module,
        assume_compiled=settings.assume_compiled,
        root_lines=site_lines,
        root_names=site_functions,
        called_lines=called_lines,
        called_names=called_functions,
        compiled_elsewhere=compiled_elsewhere,
        passed_lines=stack_lines,
    )
    empty = Proposals(
        site_functions=frozenset(regions.root_names), called_functions=frozenset(regions.called_names),
        any_compiled=regions.any_compiled, regions=regions,
    )
    if not rules or not (regions.any_compiled or passed_through):
        return empty
    context = RuleContext(
        module, settings, regions, path, text=text, data_dependent_lines=data_dependent_lines, stack_lines=stack_lines,
        break_lines=site_lines | called_lines, untraceable_lines=untraceable_lines,
        disabled_call_lines=disabled_call_lines,
    )
    if excluded is not None:
        context.excluded = lambda rule, form, line, column: excluded(ChangeKey(rule, form, line, column))
    statement_lines = simple_statement_lines(module, text)
    if statement_lines is not None:
        context.breakers.note_lines(text, statement_lines)
    instances = [rule(context) for rule in rules]
    _Dispatcher(context, instances).run(module)
    findings = [finding for rule in instances for finding in rule.findings]
    if not findings:
        return empty

    indents: dict[int, list[str]] = {}
    spans = node_spans(
        module,
        [n for f in findings for n in (f.anchor, f.target, *(t for t, _ in f.extra), *f.resolves) if n is not None],
        text,
        indents,
    )
    suppressions = suppressed_lines(text)
    proposals = Proposals(site_functions=empty.site_functions, called_functions=empty.called_functions, regions=regions)
    seen_reports: set[tuple[str, int, str]] = set()
    splicer: _Splicer | None = None
    for finding in findings:
        location = _location(spans, finding.anchor)
        lines = (location.line,)
        if finding.target is not None and id(finding.target) in spans:
            lines += (spans[id(finding.target)].start_line,)
        if is_suppressed(suppressions, finding.rule, lines):
            continue
        if finding.is_fix:
            replacements = {id(finding.target): finding.replacement}
            replacements.update({id(target): replacement for target, replacement in finding.extra})
            targets = [finding.target, *(target for target, _ in finding.extra)]
            if splicer is None:
                splicer = _Splicer(module, text, spans, indents)
            edits = splicer.edits(targets, replacements)
            # A statement definitions are inserted after is not replaced, unless the edits had to
            # come from the whole module (then they do not say which text is an insertion).
            spliced = any(edit.definitions for edit in edits)
            replaced_lines = tuple(
                (spans[id(target)].start_line - 1, spans[id(target)].end_line)
                for target in targets
                if id(target) in spans and not (spliced and is_insertion(target, replacements[id(target)]))
            )
            resolved = tuple(
                (spans[id(node)].start_line, spans[id(node)].end_line) for node in finding.resolves if id(node) in spans
            )
            change = Change(
                path, finding.rule, finding.safety, location, _with_torch_note(finding.rule, finding.message), edits,
                replaced_lines, resolved,
                finding.form, finding.ends_region,
            )
            if excluded is None or not excluded(change.key):
                proposals.changes.append(change)
        elif (finding.rule, location.line, finding.message) not in seen_reports:
            seen_reports.add((finding.rule, location.line, finding.message))
            proposals.reports.append(Report(path, finding.rule, location, finding.message))
    proposals.changes.sort(key=lambda change: (change.location.line, change.location.column, change.rule))
    proposals.reports.sort(key=lambda report: (report.location.line, report.location.column, report.rule))
    return proposals


def _with_torch_note(rule_id: str, message: str) -> str:
    """A change's message, saying so when the installed torch no longer breaks where its rule
    looks (`Rule.unneeded_from_torch`)."""
    unneeded = RULES_BY_ID[rule_id].unneeded_from_torch if rule_id in RULES_BY_ID else None
    installed = installed_torch()
    if unneeded is None or installed is None or installed < unneeded:
        return message
    first = ".".join(map(str, unneeded))
    return (
        f"{message} (not needed on the installed torch {installed[0]}.{installed[1]}, whose Dynamo no longer breaks "
        f"here; kept for torch before {first}, which graphweld admits)"
    )


def _mentions_trigger(text: str, rule: type[Rule], settings: Settings) -> bool:
    words = list(rule.trigger_words)
    if rule.triggered_by_configured_breakers:
        words += [name.rsplit(".", 1)[-1] for name in settings.extra_breakers]
    return any(word in text for word in words)


def _location(spans: dict[int, Span], node: cst.CSTNode) -> Location:
    span = spans[id(node)]
    return Location(span.start_line, span.start_column + 1, span.end_line, span.end_column + 1)


# Where each rule stands among the rules (registry order): of two changes to the same code, the
# one of the earlier rule is applied.
_PRECEDENCE = {rule.id: index for index, rule in enumerate(RULES)}


def precedence(rule_id: str) -> int:
    """Where a rule stands among the rules (registry order; after them all, one not registered)."""
    return _PRECEDENCE.get(rule_id, len(RULES))


def offer_order(change: Change) -> tuple[int, int, int]:
    """The order a person is offered changes in (the review, the language server's quick fixes):
    by place, and at one place the change `fix` would apply first."""
    return change.location.line, change.location.column, precedence(change.rule)


def non_overlapping(changes: Iterable[Change]) -> list[Change]:
    """A greedy choice of changes whose edits do not overlap: by rule precedence (registry
    order), then earliest (and, at the same line, outermost) first."""
    chosen: list[Change] = []
    key = lambda c: (precedence(c.rule), c.edits[0].start_line, -c.edits[-1].end_line)  # noqa: E731
    for change in sorted(changes, key=key):
        if not any(change.overlaps(other) for other in chosen):
            chosen.append(change)
    return chosen


@dataclass
class FixOutcome:
    text: str
    applied: list[Change]  # located in the original text; their edits apply to `proposed_on`
    unsafe_available: list[Change]  # located in the original text; their edits apply to `text`
    reports: list[Report]  # located in the original text
    # For each applied change, the text of the round that proposed it.
    proposed_on: list[str] = field(default_factory=list)
    # Whether the original text had a compiled region.
    any_compiled: bool = True


@collector_paused()
def fix_text(
    text: str,
    path: str,
    settings: Settings,
    site_lines: frozenset[int] = frozenset(),
    called_lines: frozenset[int] = frozenset(),
    data_dependent_lines: frozenset[int] = frozenset(),
    *,
    stack_lines: frozenset[int] = frozenset(),
    untraceable_lines: frozenset[int] = frozenset(),
    disabled_call_lines: frozenset[int] = frozenset(),
    allowed: frozenset[ChangeKey] | None = None,
    excluded: frozenset[ChangeKey] = frozenset(),
    compiled_elsewhere: frozenset[str] = frozenset(),
) -> FixOutcome:
    """Apply every allowed change, repeating until no rule proposes one.

    `site_lines`, `called_lines`, `data_dependent_lines`, `untraceable_lines`, `disabled_call_lines`:
    graph-break lines seen by a run (see `propose`); they are resolved to functions in the first
    round, which later rounds keep although the lines move. `stack_lines`: the calls on the
    breaks' stacks (see `propose`); a file with no break of its own keeps them in every round, so
    that only the rules fixing a break from its callers run on it.
    `allowed`: when given, only changes with these keys are applied; `excluded`: changes with
    these keys are never proposed (a rule with several forms proposes its next one). Keys are
    located in `text`, whichever round proposes the change. `compiled_elsewhere`: the functions
    of the text other modules compile (see `propose`).
    Raises SourceError when the text does not parse. The result always parses: each round's tree
    is the parse of its text (after the first round, the top-level statements that edits touched
    are parsed again and the others kept).
    """
    rules = selected_rules(settings)
    applied: list[Change] = []
    any_compiled = True
    round_edits: list[list[TextEdit]] = []
    proposed_on: list[str] = []
    current = text
    module: cst.Module | None = None
    site_functions: frozenset[str] = frozenset()
    called_functions: frozenset[str] = frozenset()
    passed_through = bool(stack_lines) and not (site_lines or called_lines or data_dependent_lines)
    if passed_through and not any(rule.fixes_from_callers and _mentions_trigger(text, rule, settings) for rule in rules):
        return FixOutcome(text, [], [], [], [], False)  # nothing to do in a file the run passed through

    def located(change: ChangeOrReport) -> ChangeOrReport:
        # A later round's change is located in the text earlier rounds made: locate it in the
        # original text (the `-` side of the diff, and the cells of a notebook as it was).
        for earlier in reversed(round_edits):
            change = _located_before(change, earlier)
        return change

    def ruled_out(key: ChangeKey) -> bool:
        original = located_key(key)
        return original in excluded or (allowed is not None and original not in allowed)

    def located_key(key: ChangeKey) -> ChangeKey:
        line = key.line
        for earlier in reversed(round_edits):
            line = _line_before(line, earlier)
        return dataclasses.replace(key, line=line)

    for round_number in range(MAX_ROUNDS):
        try:
            if module is None:
                module = parse(current)
            proposals = propose(
                current,
                path,
                settings,
                rules,
                site_lines=site_lines if round_number == 0 else frozenset(),
                site_functions=site_functions,
                called_lines=called_lines if round_number == 0 else frozenset(),
                called_functions=called_functions,
                data_dependent_lines=data_dependent_lines if round_number == 0 else frozenset(),
                stack_lines=stack_lines if round_number == 0 or passed_through else frozenset(),
                untraceable_lines=untraceable_lines if round_number == 0 else frozenset(),
                disabled_call_lines=disabled_call_lines if round_number == 0 else frozenset(),
                module=module,
                excluded=ruled_out if (excluded or allowed is not None) else None,
                compiled_elsewhere=compiled_elsewhere,
            )
            if round_number == 0:
                any_compiled = proposals.any_compiled
            site_functions, called_functions = proposals.site_functions, proposals.called_functions
        except SourceError as exc:
            if round_number == 0:
                raise
            raise SourceError(f"internal error: a rewrite produced code that does not parse ({exc})") from None
        permitted = [c for c in proposals.changes if c.safety is Safety.SAFE or settings.unsafe_fixes]
        chosen = non_overlapping(permitted)
        if not chosen:
            unsafe = [c for c in proposals.changes if c.safety is Safety.UNSAFE and not settings.unsafe_fixes]
            # What is left is located, like what was applied, in the text as it was given.
            unsafe = [located(change) for change in unsafe]
            reports = [located(report) for report in proposals.reports]
            return FixOutcome(current, applied, unsafe, reports, proposed_on, any_compiled)
        if called_functions:
            # A run's word that a break was seen inside a function no longer holds once the
            # function is rewritten (a helper whose branch became torch.where needs no escape).
            changed = frozenset(change.location.line for change in chosen)
            called_functions -= CompiledRegions(module, assume_compiled=True).innermost_functions(module, changed)
        ended = frozenset(change.location.line for change in chosen if change.ends_region)
        if ended and site_functions:
            # A function split into compiled pieces runs eagerly now: no longer a region.
            site_functions -= CompiledRegions(module, assume_compiled=True).innermost_functions(module, ended)
        edits = [edit for change in chosen for edit in change.edits]
        # The next round's tree: only the top-level statements the edits touched are parsed again.
        module = spliced_module(module, current, edits)
        proposed_on.extend([current] * len(chosen))
        current = apply_edits(current, edits)
        located_changes = [located(change) for change in chosen]
        round_edits.append(edits)
        applied.extend(sorted(located_changes, key=lambda change: (change.location.line, change.location.column)))
    raise SourceError(f"internal error: rules kept proposing changes after {MAX_ROUNDS} rounds; file left unchanged")


def _located_before(change: ChangeOrReport, edits: Sequence[TextEdit]) -> ChangeOrReport:
    """`change`, proposed on the text `edits` produced, located in the text before them: a line
    the edits wrote maps to the first line they replaced."""
    line = _line_before(change.location.line, edits)
    end_line = max(line, _line_before(change.location.end_line, edits))
    if (line, end_line) == (change.location.line, change.location.end_line):
        return change
    return dataclasses.replace(change, location=dataclasses.replace(change.location, line=line, end_line=end_line))


def _line_before(line: int, edits: Sequence[TextEdit]) -> int:
    """A 1-based line of the text `edits` produced, in the text before them."""
    shift = 0
    seen: set[tuple[int, int, str]] = set()
    for edit in sorted(edits, key=lambda e: (e.start_line, e.end_line)):
        key = (edit.start_line, edit.end_line, edit.new_text)
        if edit.definitions and key in seen:
            continue  # applied once (apply_edits combines the same definitions)
        seen.add(key)
        written = len(split_lines(edit.new_text))
        start = edit.start_line + shift  # 0-based, in the produced text
        if line - 1 < start:
            break
        if line - 1 < start + written:
            return edit.start_line + 1
        shift += written - (edit.end_line - edit.start_line)
    return line - shift


# -- files -----------------------------------------------------------------------------------


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
        outcome = fix_text(text, path, settings, compiled_elsewhere=compiled_elsewhere)
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
