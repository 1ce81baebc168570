"""What a long run is doing, on standard error: `fix --entry`, `explain` and `verify` take minutes
on real models (each step a fresh interpreter that imports torch and compiles).

On a terminal, a live line shows the current step with a spinner and its elapsed time, and each
finished step stays above it with how long it took. Elsewhere (CI logs, pipes), one plain line per
step, stamped with the time since the start. Nothing goes to standard output, which stays for
diffs and JSON.
"""

from __future__ import annotations

import time
from types import TracebackType

from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn


class StepProgress:
    """`with StepProgress(console, "fix --entry") as steps: steps.step("round 1: ...")`."""

    def __init__(self, console: Console, title: str) -> None:
        self.console = console
        self.title = title
        self.live = console.is_terminal and not console.is_dumb_terminal
        self._start = time.monotonic()
        self._step_start = self._start
        self._current: str | None = None
        self._progress: Progress | None = None
        self._task = None

    def __enter__(self) -> "StepProgress":
        if self.live:
            self._progress = Progress(
                SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                console=self.console, transient=True,
            )
            self._task = self._progress.add_task(self.title, total=None)
            self._progress.start()
        return self

    def step(self, message: str) -> None:
        """A new step begins (the previous one is over)."""
        now = time.monotonic()
        self._finish(now)
        self._current, self._step_start = message, now
        if self._progress is not None:
            self._progress.reset(self._task, total=None, description=f"{self.title}: {message}")
        else:
            self.console.print(f"{self.title}: [{_clock(now - self._start)}] {message}", highlight=False, markup=False)

    def note(self, message: str) -> None:
        """A line that stays (a failed trial, a warning), printed above the live line."""
        self.console.print(message, highlight=False, markup=False)

    def _finish(self, now: float) -> None:
        if self._current is not None and self._progress is not None:
            self._progress.console.print(
                f"  done: {self._current} ({_clock(now - self._step_start)})", highlight=False, markup=False, style="dim"
            )

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None) -> None:
        now = time.monotonic()
        if kind is None:
            self._finish(now)
        if self._progress is not None:
            self._progress.stop()
        if kind is None and self._current is not None:
            self.console.print(f"{self.title}: finished in {_clock(now - self._start)}", highlight=False, markup=False)
        self._current = None


def _clock(seconds: float) -> str:
    minutes, seconds = divmod(int(seconds), 60)
    return f"{minutes}:{seconds:02d}"
