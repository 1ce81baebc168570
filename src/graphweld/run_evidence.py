"""What graphweld knows of one file beyond its text: where a run of the program saw graph breaks
there, and which of its functions are compiled from elsewhere. `engine.propose` takes it as one
value, and the rules read it through `RuleContext.evidence`. Without a run it is empty: the rules
then work from the text alone."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass


@dataclass(frozen=True)
class RunEvidence:
    """Lines are 1-based lines of the text the evidence is for (`moved` carries them to a later
    version of it); functions are qualified names (`Net.forward`)."""

    # Every line where a run saw a graph break.
    site_lines: frozenset[int] = frozenset()
    # Those inside a function the user's code called (a helper, rather than the function
    # torch.compile was given).
    called_lines: frozenset[int] = frozenset()
    # Those where Dynamo stopped on data-dependent branching (GB0170): its evidence that the
    # condition there is a tensor.
    data_dependent_lines: frozenset[int] = frozenset()
    # Lines of this file on the Python stack of a break placed in another file or further in: the
    # calls that led to it, where a rule may fix what the callee does on its first call (only
    # rules that fix a break from its callers read them).
    stack_lines: frozenset[int] = frozenset()
    # Sites where Dynamo met a call it cannot trace at all (a function it skips, an opaque object
    # such as a `torch.Generator`), or raised an error of its own tracing it: Strategy 3's evidence.
    untraceable_lines: frozenset[int] = frozenset()
    # Sites where Dynamo skipped the whole frame: the rest of the function was never seen.
    skipped_frame_lines: frozenset[int] = frozenset()
    # Sites where Dynamo broke on a call of a function disabled for it (`torch.compiler.disable`):
    # that call is a break in every frame that traces it.
    disabled_call_lines: frozenset[int] = frozenset()
    # The functions holding the sites: compiled regions even when nothing in the file compiles
    # them. Resolved from the lines in a fix's first round and kept in later rounds, where the
    # lines have moved.
    site_functions: frozenset[str] = frozenset()
    # Those of them the user's code called.
    called_functions: frozenset[str] = frozenset()
    # Functions other modules compile (`Net.forward`): regions too (from the project index).
    compiled_elsewhere: frozenset[str] = frozenset()

    @property
    def break_lines(self) -> frozenset[int]:
        """Every line where a run saw a break, whichever function holds it."""
        return self.site_lines | self.called_lines

    @property
    def has_sites(self) -> bool:
        """Whether a run saw a break in this file (rather than none, or only passing through)."""
        return bool(self.site_lines or self.data_dependent_lines or self.site_functions or self.called_lines or self.called_functions)

    @property
    def passed_through(self) -> bool:
        """A file the run only passed through on the way to a break elsewhere: only a fix made
        from a caller applies to it."""
        return bool(self.stack_lines) and not self.has_sites

    def in_later_round(self, site_functions: frozenset[str], called_functions: frozenset[str], passed_through: bool) -> "RunEvidence":
        """The evidence for a later round of a fix: the lines the run saw no longer hold in the
        rewritten text, the functions they resolved to do (a file passed through keeps its stack
        lines, so that only the rules fixing a break from its callers run on it in every round)."""
        return RunEvidence(
            stack_lines=self.stack_lines if passed_through else frozenset(),
            site_functions=site_functions,
            called_functions=called_functions,
            compiled_elsewhere=self.compiled_elsewhere,
        )

    def moved(self, seen_in: str, text: str) -> "RunEvidence":
        """The same evidence in `text`, a later version of `seen_in` (the file the run saw): each
        line that both versions hold unchanged at its new place; a line a change rewrote is
        dropped, as the run did not see the code that replaced it."""
        if seen_in == text:
            return self
        from graphweld.edits import LineMap, split_lines

        old_lines, new_lines, lines = split_lines(seen_in), split_lines(text), LineMap.between(seen_in, text)

        def kept(found: frozenset[int]) -> frozenset[int]:
            moved = ((line, lines.to_new(line)) for line in found if 0 < line <= len(old_lines))
            return frozenset(new for old, new in moved if new <= len(new_lines) and old_lines[old - 1] == new_lines[new - 1])

        return dataclasses.replace(self, **{name: kept(getattr(self, name)) for name in _LINE_FIELDS})


_LINE_FIELDS = tuple(f.name for f in dataclasses.fields(RunEvidence) if f.name.endswith("_lines"))
# What a file is known by without a run.
NO_EVIDENCE = RunEvidence()
