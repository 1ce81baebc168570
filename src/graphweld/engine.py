"""The core API: proposed changes for a source text, fixes to a fixed point, and runs over files.

Every front-end (CLI, interactive review, language server) is a thin layer over `propose`,
`fix_text` and `run`. Nothing here prints, prompts or writes files.

One file goes through: read bytes -> bytes prefilter (can it hold a site at all?) -> decode ->
parse once -> compiled-region analysis -> all selected rules in one traversal -> proposals.
`fix_text` applies the proposals allowed by the settings, non-overlapping ones together, and
repeats on the new text until no rule proposes anything, so a second run changes nothing.

This module is the API's one place to import from; each part lives in a module of its own:
`changes` (the data model), `dispatch` (which rules run, in one walk, and whose change wins),
`parsing`, `splice` (replacements as text edits), `proposing` (`propose`), `fix_loop`
(`fix_text`) and `batch` (`run` over files, in parallel).
"""

from graphweld.batch import compiles, in_cell, process_path, process_source, run
from graphweld.changes import Change, ChangeKey, ChangeOrReport, FileResult, Location, Proposals, Report
from graphweld.dispatch import RuleSelectionError, non_overlapping, offer_order, precedence, selected_rules
from graphweld.fix_loop import MAX_ROUNDS, FixOutcome, fix_text
from graphweld.parsing import parse
from graphweld.proposing import propose
from graphweld.run_evidence import NO_EVIDENCE, RunEvidence

__all__ = [
    "MAX_ROUNDS",
    "NO_EVIDENCE",
    "Change",
    "ChangeKey",
    "ChangeOrReport",
    "FileResult",
    "FixOutcome",
    "Location",
    "Proposals",
    "Report",
    "RuleSelectionError",
    "RunEvidence",
    "compiles",
    "fix_text",
    "in_cell",
    "non_overlapping",
    "offer_order",
    "parse",
    "precedence",
    "process_path",
    "process_source",
    "propose",
    "run",
    "selected_rules",
]
