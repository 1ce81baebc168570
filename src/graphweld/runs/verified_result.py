"""What a verified fix found, kept, tried and wrote: the data the rounds, the capture-setting pass
and the report share."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from graphweld.engine import Change
from graphweld.rule import Safety
from graphweld.runs.capture_fix import CaptureSettingFix
from graphweld.runs.entry import RunReport
from graphweld.runs.explanation import CaptureTrial, ExplainedSite
from graphweld.runs.verify import Verdict
from graphweld.source import SourceFile


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
    # Settings that verified with a forced backend and failed with the program's own (why).
    refused_settings: dict[tuple[str, ...], str] = field(default_factory=dict)
    # The files as given, run with the program's own backend where the runs forced one (the
    # error, where that run failed); made once, by `own_backend`, when a fix is confirmed.
    own_backend_original: RunReport | str | None = None
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
