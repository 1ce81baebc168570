"""Interactive review (`graphweld fix --interactive`): each proposed change shown and decided.

A thin layer over `engine.propose`. Changes are offered in file order, one at a time; after each
accepted change the proposals are computed again on the updated text, so a change that overlapped
an accepted one is offered next against what the file now says. A file is written once, when the
user is done with it: atomically, and only if the result compiles. Quitting writes what was
accepted in the current file; an interrupt (Ctrl-C) leaves the current file untouched.
"""

from __future__ import annotations

import dataclasses
import enum
import os
from dataclasses import dataclass, field
from typing import Callable, Sequence

from rich.console import Console
from rich.syntax import Syntax
from rich.text import Text

from graphweld.codemods import RULES_BY_ID
from graphweld.discover import discover
from graphweld.edits import apply_edits, split_lines
from graphweld.analysis.project import ProjectIndex
from graphweld.engine import Change, Proposals, compiles, in_cell, offer_order, propose
from graphweld.run_evidence import NO_EVIDENCE, RunEvidence
from graphweld.notebook import Notebook, is_notebook, read_notebook
from graphweld.frontends.report import file_diff, place
from graphweld.rule import Safety
from graphweld.settings import Settings
from graphweld.source import SourceError, read_source, write_atomically

PROMPT = "Apply? [y]es [n]o [a]ll in this file [d]one with this file [q]uit [?]help"
HELP = """\
  y  apply this change
  n  skip it (the default)
  a  apply it and every remaining change in this file, without asking
  d  skip the remaining changes in this file (what you accepted is written)
  q  write what you accepted in this file and stop
  ?  this help"""


class Answer(enum.Enum):
    YES = "y"
    NO = "n"
    ALL = "a"
    DONE = "d"
    QUIT = "q"


@dataclass
class ReviewSummary:
    accepted: int = 0
    declined: int = 0
    written: list[str] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)
    unsafe_not_offered: int = 0
    quit: bool = False


class Review:
    """One review session. `ask(prompt)` returns the user's line (EOFError means quit);
    `verify(path, text, change)`, when given, describes how the file verifies against the run (an
    entry or a command) with `change` applied to `text` (the file with the changes accepted before
    it, where `change` is located)."""

    def __init__(
        self,
        settings: Settings,
        console: Console,
        ask: Callable[[str], str],
        verify: Callable[[str, str, Change], str] | None = None,
        sites: dict[str, RunEvidence] | None = None,
    ) -> None:
        self.settings = settings
        self.console = console
        self.ask = ask
        self.verify = verify
        self.sites = sites or {}
        self.summary = ReviewSummary()
        self.index: ProjectIndex | None = None

    def run(self, paths: Sequence[str]) -> ReviewSummary:
        files, errors = discover(paths, self.settings.exclude)
        for path, message in errors:
            self._error(path, message)
        # As `fix` does: `torch.compile(Net())` in train.py makes Net.forward a region of model.py.
        self.index = None if self.settings.assume_compiled else ProjectIndex.build(files)
        for path in files:
            if self.summary.quit:
                break
            self.review_file(path)
        return self.summary

    def review_file(self, path: str) -> None:
        notebook: Notebook | None = None
        try:
            source = read_source(path)
            if is_notebook(path):
                # A notebook's code cells are reviewed as one module and written back into cells.
                notebook = read_notebook(path, source.text)
                if notebook is None or not notebook.cells:
                    return
        except SourceError as exc:
            self._error(path, str(exc))
            return
        text = source.text if notebook is None else notebook.module_text
        sites = self.sites.get(os.path.realpath(path), NO_EVIDENCE)
        declined: set[tuple[str, str, str]] = set()
        apply_all = False
        site_functions: frozenset[str] = frozenset()
        called_functions: frozenset[str] = frozenset()
        seen_in = text
        compiled_elsewhere = self.index.names_for(path) if self.index is not None else frozenset()
        regions_said = False
        while True:
            # The run saw the file as it was: its lines follow the changes accepted since.
            evidence = dataclasses.replace(
                sites.moved(seen_in, text),
                site_functions=site_functions, called_functions=called_functions, compiled_elsewhere=compiled_elsewhere,
            )
            try:
                proposals = propose(text, path, self.settings, None, evidence)
            except SourceError as exc:
                self._error(path, str(exc))
                return
            site_functions, called_functions = proposals.site_functions, proposals.called_functions
            offered = [c for c in proposals.changes if _key(c, text) not in declined]
            unsafe = [c for c in offered if c.safety is Safety.UNSAFE and not self.settings.unsafe_fixes]
            offered = [c for c in offered if c not in unsafe]
            if not offered:
                self.summary.unsafe_not_offered += len(unsafe)
                break
            if not regions_said:
                self._say_regions(path, proposals)
                regions_said = True
            # At one place, the change `fix` would apply first; declined, the next.
            change = min(offered, key=offer_order)
            answer = Answer.YES if apply_all else self._decide(path, text, change, notebook)
            if answer in (Answer.YES, Answer.ALL):
                text = apply_edits(text, list(change.edits))
                self.summary.accepted += 1
                apply_all = apply_all or answer is Answer.ALL
                continue
            if answer is Answer.NO:
                declined.add(_key(change, text))
                self.summary.declined += 1
                continue
            self.summary.quit = answer is Answer.QUIT
            break
        self._write(path, source, text, notebook)

    def _say_regions(self, path: str, proposals: Proposals) -> None:
        """Which functions the file's changes are in regions of, and why each is compiled."""
        reasons = dict(proposals.regions.root_reasons()) if proposals.regions is not None else {}
        if self.index is not None:
            reasons.update(self.index.reasons_for(path))
        if reasons:
            said = "; ".join(f"{name} ({why})" for name, why in sorted(reasons.items()))
            self.console.print(Text.assemble((path, "bold"), f": compiled regions start at {said}"), soft_wrap=True)

    # -- one change -------------------------------------------------------------------------------

    def _decide(self, path: str, text: str, change: Change, notebook: Notebook | None = None) -> Answer:
        fixed = apply_edits(text, list(change.edits))
        if notebook is None:
            self._show(path, text, fixed, change)
        else:
            try:
                self._show(path, notebook.rendered(text), notebook.rendered(fixed), in_cell(notebook, change, text))
            except SourceError as exc:
                self._error(path, str(exc))
                return Answer.DONE
        if self.verify is not None:
            with self.console.status("verifying with the run", spinner="dots"):
                verdict = self.verify(path, text, change)
            self.console.print(Text(f"verification: {verdict}", style="bold"))
        while True:
            try:
                reply = self.ask(f"{PROMPT} ").strip().lower()
            except EOFError:
                return Answer.QUIT
            if reply in ("", "n", "no"):
                return Answer.NO
            if reply == "?":
                self.console.print(HELP, highlight=False)
                continue
            for answer in Answer:
                if reply in (answer.value, answer.name.lower()):
                    return answer
            self.console.print(f"'{reply}' is not an answer; type ? for help.", highlight=False)

    def _show(self, path: str, old: str, new: str, change: Change) -> None:
        rule = RULES_BY_ID.get(change.rule)
        header = Text()
        header.append(place(change), style="bold")
        header.append(f"  {change.rule}", style="magenta")
        style = "yellow" if change.safety is Safety.UNSAFE else "green"
        header.append(f" [{change.safety.value}]", style=style)
        self.console.print()
        self.console.print(header)
        if rule is not None:
            self.console.print(Text(f"  {rule.summary}", style="dim"))
        self.console.print(Text(f"  {change.message}"), soft_wrap=True)
        diff = file_diff(path, old, new)
        self.console.print(Syntax(diff, "diff", theme="ansi_dark", background_color="default", word_wrap=True))

    # -- files ------------------------------------------------------------------------------------

    def _write(self, path: str, source, text: str, notebook: Notebook | None = None) -> None:  # type: ignore[no-untyped-def]
        if text == (source.text if notebook is None else notebook.module_text):
            return
        if not compiles(text, path):
            self._error(path, "internal error: the accepted changes do not compile; file left unchanged")
            return
        try:
            data = source.encode(text if notebook is None else notebook.rendered(text))
            write_atomically(path, data)
        except (SourceError, UnicodeEncodeError) as exc:
            self._error(path, str(exc))
            return
        self.summary.written.append(path)
        self.console.print(Text(f"wrote {path}", style="green"))

    def _error(self, path: str, message: str) -> None:
        self.summary.errors.append((path, message))
        self.console.print(Text.assemble((path, "bold"), ": ", ("error:", "red"), f" {message}"))


def _key(change: Change, text: str) -> tuple[str, str, str, int]:
    """A change's identity across re-proposals, as lines move when earlier changes are accepted:
    its rule, message and edits, the statements it replaces, and which of identical copies of
    those statements it is (counted from the top)."""
    lines = split_lines(text)
    ranges = change.regions or tuple((e.start_line, e.end_line) for e in change.edits)
    replaced = "\0".join("".join(lines[start:end]) for start, end in ranges)
    edits = "\0".join(edit.new_text for edit in change.edits)
    first = min(start for start, _ in ranges)
    occurrence = "".join(lines[:first]).count("".join(lines[ranges[0][0] : ranges[0][1]])) if ranges[0][1] > ranges[0][0] else 0
    return change.rule, change.message + "\0" + edits, replaced, occurrence
