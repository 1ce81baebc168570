"""The data model of proposals: a change (its edits, where it is, its rule and safety), a report
without a fix, what one text's rules proposed, and what a run over files found for each file."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeVar

from graphweld.analysis.regions import CompiledRegions
from graphweld.edits import TextEdit, ranges_overlap
from graphweld.rule import Safety
from graphweld.source import SourceFile


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
