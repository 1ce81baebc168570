"""One round of a verified fix: the changes for the sites a run saw, verified together, halved
down to single changes when they fail, each failed change giving way to its site's next fix."""

from __future__ import annotations

import ast
import os
import time
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from graphweld.edits import LineMap
from graphweld.engine import Change, ChangeKey, FixOutcome, fix_text
from graphweld.rule import Safety
from graphweld.run_evidence import RunEvidence
from graphweld.runs.eager_helper_policy import compiled_work_moved_out
from graphweld.runs.entry import EntryError, RunReport
from graphweld.runs.exercised import NOT_RECORDED, Exercise, exercised_in
from graphweld.runs.targets import EntryTarget, Target, tests_fail
from graphweld.runs.verified_result import Candidate, Tried, VerifiedFix
from graphweld.runs.verify import Verdict, compare_pictures, failed, numbers_vary
from graphweld.settings import Settings
from graphweld.source import SourceError, SourceFile, read_source


# Next fixes tried for one site after its first did not verify.
MAX_ALTERNATIVES = 3


@dataclass(frozen=True)
class Pick:
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
class Accepted:
    picks: list[Pick]
    verdict: Verdict
    after: RunReport
    candidates: dict[str, Candidate]


class RoundSearch:
    """One round: the changes for the sites a run saw, searched for the set that verifies and
    makes the picture strictly better than the run's (`previous`)."""

    def __init__(
        self,
        sites: dict[str, RunEvidence],
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
        self._failed: list[Pick] = []
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
            self._outcomes[key] = fix_text(text, path, self.settings, self.sites[path], allowed=allowed, excluded=excluded)
        return self._outcomes[key]

    def verify(self, picks: Sequence[Pick], step: str = "verifying") -> tuple[Verdict, RunReport | None, dict[str, Candidate]]:
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
        numbers = numbers_vary(change for candidate in together.values() for change in candidate.applied)
        verdict = self.target.judge(self.result.before, after, check_shown=not unsafe, previous=self.previous, numbers_vary=numbers)
        moved = compiled_work_moved_out(self.previous or self.result.before, after, [change for pick in picks for change in pick.changes])
        if moved:
            verdict.problems.append(moved)
        if verdict.better:
            failing = tests_fail(self.target, overlay)
            if failing is not None:
                verdict.problems.append(failing)
        return verdict, after, candidates

    def accept(self, picks: list[Pick], step: str = "verifying") -> tuple[Accepted | None, Verdict]:
        """The picks verified together: accepted when the picture got strictly better."""
        verdict, after, candidates = self.verify(picks, step)
        if verdict.better and after is not None:
            return Accepted(picks, verdict, after, candidates), verdict
        return None, verdict

    # -- the search ----------------------------------------------------------------------------

    def run(self) -> Accepted | None:
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
            accepted = self.without_own_breaks(accepted)
        for pick in accepted.picks if accepted is not None else ():
            if pick.instead_of is not None:
                self.result.tried.extend(Tried(pick.path, change, True, instead_of=pick.instead_of) for change in pick.changes)
        return accepted

    def first_picks(self) -> list[Pick]:
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

    def _pick_from(self, path: str, changes: Sequence[Change], picks: list[Pick], say_dropped: bool = True) -> frozenset[ChangeKey]:
        """Adds a pick for each change worth verifying; the keys of those dropped at once."""
        # A change made at a call on a break's stack is at that break too.
        lines = self.sites[path].site_lines | self.sites[path].stack_lines
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
                picks.append(Pick(path, (change,)))
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
        return exercised_in(path, change.location.line, text, source.text, self.result.before)

    def ran_out(self, picks: Sequence[Pick]) -> bool:
        """Past the round's time limit: the picks are listed as not tried."""
        if time.monotonic() < self.deadline:
            return False
        if not self.out_of_time:
            self.progress(f"out of time ({self.settings.round_seconds:.0f} s): what is verified stands, the rest is not tried")
        self.out_of_time = True
        for pick in picks:
            self.drop(pick.path, pick.changes, f"not tried: the round ran past its {self.settings.round_seconds:.0f} s", pick.instead_of)
        return True

    def search(self, picks: list[Pick], bisecting: bool = False) -> Accepted | None:
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

    def merge(self, left: Accepted | None, right: Accepted | None, tried: Sequence[Pick] = ()) -> Accepted | None:
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

    def next_fixes(self) -> list[Pick]:
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

    def next_fix(self, pick: Pick) -> Pick | None:
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
        return Pick(pick.path, new, ruled_out, instead_of=first) if new else None

    def without_unsafe_that_buys_nothing(self, accepted: Accepted) -> Accepted:
        """The accepted picks without their unsafe ones when the picture is as good without them:
        first those tried only because a skipped frame hid their lines (a print in a timer the
        round skips), then every unsafe one. All unsafe: the picture without them is the last
        run's, which this round improved on."""
        unseen = [pick for pick in accepted.picks if any((pick.path, change.key) in self._unseen_unsafe for change in pick.changes)]
        accepted = self._without(accepted, unseen, "verifying without the unsafe ones the run could not see:")
        return self._without(accepted, [pick for pick in accepted.picks if pick.unsafe], "verifying without the unsafe ones:")

    def without_own_breaks(self, accepted: Accepted) -> Accepted:
        """The accepted picks without those the run after them breaks at for a reason of their
        own (a `nonstrict_trace` wrapper Dynamo refuses for its output, GB0251, where the call
        broke for another reason before), when the picture is as good without them: a kept
        rewrite's own breaks count against it, even when the others it was verified with made
        the picture better (captum's layer Grad-CAM, whose gradient is of activations an eager
        helper computed: 5 -> 6 breaks with the wrapper). A lone pick has nothing to be weighed
        against: the round's verdict on it stands."""
        if len(accepted.picks) < 2:
            return accepted
        new_breaks = self._new_break_lines(accepted)
        own = [
            pick for pick in accepted.picks
            if any(change.location.line == line or change.replaces_line(line) for line in new_breaks.get(pick.path, ()) for change in pick.changes)
        ]
        why = "it buys nothing: the run breaks at it for a reason of its own, and the compile picture is as good without it"
        return self._without(accepted, own, "verifying without the rewrites the run breaks at:", why)

    def _new_break_lines(self, accepted: Accepted) -> dict[str, set[int]]:
        """Per rewritten file, the lines (of the round's text of it) where the run after
        `accepted` breaks with an id the run before it did not log there; each file's lines are
        mapped back once."""
        previous = self.previous or self.result.before
        found: dict[str, set[int]] = {}
        for path, candidate in accepted.candidates.items():
            real = os.path.realpath(path)
            before = {(site.line, site.gb) for site in previous.sites if os.path.realpath(site.file) == real}
            after = [site for site in accepted.after.sites if os.path.realpath(site.file) == real]
            if not after:
                continue
            to_old = LineMap.between(self.base(path)[1], candidate.fixed).to_old
            found[path] = {line for line, gb in ((to_old(site.line), site.gb) for site in after) if (line, gb) not in before}
        return found

    def _without(
        self, accepted: Accepted, dropped: list[Pick], saying: str,
        why: str = "it buys nothing: unsafe, and the compile picture is as good without it",
    ) -> Accepted:
        """`accepted` without the `dropped` picks when the rest verifies with a picture as good;
        else as it was (worse without them: they buy something)."""
        kept = [pick for pick in accepted.picks if pick not in dropped]
        if not dropped or not kept:
            return accepted
        without, _ = self.accept(kept, saying)
        if without is None or compare_pictures(accepted.after, without.after)[0] > 0:
            return accepted
        for pick in dropped:
            self.drop(pick.path, pick.changes, why)
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


def _why_not(verdict: Verdict) -> str:
    if not verdict.ok:
        return "it did not verify: " + "; ".join(verdict.problems)
    if verdict.not_counted:
        return f"it buys nothing: outputs equal, but {verdict.not_counted}"
    return "it buys nothing: outputs equal, but the compile picture did not get better"
