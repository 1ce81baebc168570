"""What a verified run is made of: an entry (`my_model_function()`/`GetInput()`) or a command
(`python train.py --steps 2`), and the oracle that judges a rewrite of the files it runs.

For an entry the oracle is eager PyTorch: every call's outputs (losses and gradients, with
`--train`) must equal the eager run's, and for safe fixes what it prints and logs too. A command
has no eager twin: its own oracle is that it exits 0, and, for safe fixes, that it prints and logs
what the original command did (lines that differ between two runs of the original, such as
timings, are not compared). Either way the compile picture must get better, and a `--test`
command, when given, must pass with the rewritten files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, Sequence

from graphweld.runs.command import Command, command_for_script, run_command
from graphweld.runs.compare import LeafComparison
from graphweld.runs.entry import EntryError, RunReport, RunSettings, check_entry_defines, parse_entry
from graphweld.runs.verify import OUTPUTS_DIFFER, Verdict, compare_calls, judge


class Target(Protocol):
    """An entry or a command, as the verified path runs it."""

    name: str
    runs: RunSettings
    test: Command | None
    # What `reference()` runs, and what a run with a Dynamo switch on is, for progress messages.
    reference_run: str
    trial_runs: str

    def reference(self, coverage_files: Sequence[str] = ()) -> RunReport:
        """The run a rewrite is judged against (before any change); an entry's eager run records
        which lines of `coverage_files` it executed (`RunReport.coverage`)."""

    def compiled(self, overlay: dict[str, str], compile_options: dict[str, Any] | None = None) -> RunReport:
        """A compiled run with the rewritten files (real path -> text) served."""

    def judge(self, before: RunReport, after: RunReport, *, check_shown: bool, previous: RunReport, numbers_vary: bool = False) -> Verdict:
        """The verdict on `after` (see `graphweld.runs.verify.judge`)."""


def tests_fail(target: Target, overlay: dict[str, str]) -> str | None:
    """Why the target's `--test` command fails with the rewritten files, or None when it passes
    (or there is none)."""
    if target.test is None:
        return None
    try:
        run_command(target.test, overlay=overlay, timeout=target.runs.timeout, instrument=False)
    except EntryError as exc:
        return f"the tests fail ({target.test}): {getattr(exc, 'reason', exc)}"
    return None


def check_tests_pass(target: Target, progress: Callable[[str], None] = lambda message: None) -> None:
    """Raise EntryError when the `--test` command already fails on the files as they are: no
    rewrite could pass it, and trying each one would only blame them all."""
    if target.test is None:
        return
    progress(f"running the tests on the files as they are: {target.test}")
    failing = tests_fail(target, {})
    if failing is not None:
        raise EntryError(f"{failing.replace('the tests fail', 'the --test command fails before any rewrite', 1)}; nothing was written")


@dataclass
class EntryTarget:
    """An entry file (`file.py[::factory]`), run and judged against eager PyTorch."""

    entry: str
    runs: RunSettings = field(default_factory=RunSettings)
    test: Command | None = None
    # Per reference run: whether its compiled original differs from eager only by NumPy's random
    # stream (`_differs_by_numpy_stream`).
    _numpy_stream_verdicts: dict[int, bool] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.entry

    @property
    def reference_run(self) -> str:
        """What `reference()` runs, for progress messages."""
        return "the entry eagerly (the reference) and compiled"

    @property
    def trial_runs(self) -> str:
        """What a run with a Dynamo switch on is, for progress messages."""
        return "eager and compiled runs"

    def reference(self, coverage_files: Sequence[str] = ()) -> RunReport:
        return self.runs.run(self.entry, coverage_files=coverage_files)

    def compiled(self, overlay: dict[str, str], compile_options: dict[str, Any] | None = None) -> RunReport:
        modes = ("compiled",) if compile_options is None else ("eager", "compiled")
        return self.runs.run(self.entry, modes, overlay=overlay, compile_options=compile_options)

    def judge(self, before: RunReport, after: RunReport, *, check_shown: bool, previous: RunReport, numbers_vary: bool = False) -> Verdict:
        verdict = judge(before, after, check_shown=check_shown, previous=previous, numbers_vary=numbers_vary)
        differs = [problem for problem in verdict.problems if problem.startswith(OUTPUTS_DIFFER)]
        # Compiled, `np.random` draws from torch's generator, so a compiled program that draws
        # from NumPy differs from eager by its draws, not by what it does with them. Where that
        # is all that sets the compiled original apart from eager, its difference is no noise
        # floor to hold the rewrite to (any draw is within it): the rewrite's outputs are
        # compared, strictly, from a run with NumPy's own draws, as eager makes them. So are
        # those of a rewrite whose files draw from NumPy and whose outputs differ (it lets Dynamo
        # trace a draw eager makes with NumPy). Its picture stays the one the user's run shows.
        if not (self._differs_by_numpy_stream(before) or (differs and _draws_from_numpy(after.overlay))):
            return verdict
        comparisons = self._compared_with_numpys_draws(before, after.overlay)
        if comparisons is None:
            return verdict
        verdict.comparisons = comparisons
        verdict.numpy_stream = True
        verdict.problems = [problem for problem in verdict.problems if problem not in differs]
        differing = [leaf for leaf in comparisons if not leaf.equal]
        if differing:
            verdict.problems.insert(0, f"{OUTPUTS_DIFFER} at {differing[0].path} (np.random drawn from NumPy's stream): {differing[0].detail}")
        return verdict

    def _differs_by_numpy_stream(self, before: RunReport) -> bool:
        """Whether the compiled original differs from eager, and only by where `np.random`
        draws from: compiled with NumPy's own stream, it gives eager's outputs (asked once)."""
        known = self._numpy_stream_verdicts.get(id(before))
        if known is None:
            known = False
            # A compiled original that raised has no outputs to differ by.
            if not before.compile_fails and any(not leaf.equal for leaf in compare_calls(before, before)):
                comparisons = self._compared_with_numpys_draws(before, before.overlay)
                known = comparisons is not None and all(leaf.equal for leaf in comparisons)
            self._numpy_stream_verdicts[id(before)] = known
        return known

    def _compared_with_numpys_draws(self, before: RunReport, overlay: dict[str, str]) -> list[LeafComparison] | None:
        """Each call's outputs, compiled with `overlay` and `np.random` drawn from NumPy's own
        stream, against eager's; None when that run does not complete."""
        try:
            again = self.runs.run(self.entry, ("compiled",), overlay=overlay, numpy_random_stream=True)
        except EntryError:
            return None
        return None if again.compile_fails else compare_calls(before, again)


def _draws_from_numpy(overlay: dict[str, str]) -> bool:
    return any("np.random." in text or "numpy.random." in text for text in overlay.values())


@dataclass
class CommandTarget:
    """A command, run as the user runs it, and judged by its own oracle."""

    command: Command
    runs: RunSettings = field(default_factory=RunSettings)
    test: Command | None = None
    _second_reference: RunReport | None = None

    @property
    def name(self) -> str:
        return str(self.command)

    @property
    def reference_run(self) -> str:
        """What `reference()` runs, for progress messages."""
        return f"the command `{self.name}`"

    @property
    def trial_runs(self) -> str:
        """What a run with a Dynamo switch on is, for progress messages."""
        return "the command, compiling as it does"

    def reference(self, coverage_files: Sequence[str] = ()) -> RunReport:
        # A command has no eager twin to record coverage in.
        return self.compiled({})

    def compiled(self, overlay: dict[str, str], compile_options: dict[str, Any] | None = None) -> RunReport:
        options = self.runs.compile_options if compile_options is None else compile_options
        return run_command(self.command, overlay=overlay, compile_options=options, timeout=self.runs.timeout)

    def judge(self, before: RunReport, after: RunReport, *, check_shown: bool, previous: RunReport, numbers_vary: bool = False) -> Verdict:
        verdict = judge(before, after, check_shown=check_shown, previous=previous, numbers_vary=numbers_vary)
        if check_shown and _PRINTED_DIFFERS in verdict.problems:
            # Lines the original prints differently from run to run (timings) are not the fix's.
            if self._second_reference is None:
                self._second_reference = self.reference()
            varying = _varying_lines(before.compiled_stdout or "", self._second_reference.compiled_stdout or "")
            if _masked(before.compiled_stdout or "", varying) == _masked(after.compiled_stdout or "", varying):
                verdict.problems.remove(_PRINTED_DIFFERS)
        return verdict


# The judgement's problem when a command's output is not its original run's.
_PRINTED_DIFFERS = "printed output differs from the original command"


def _varying_lines(first: str, second: str) -> set[int]:
    one, two = first.splitlines(), second.splitlines()
    if len(one) != len(two):
        return set(range(max(len(one), len(two))))
    return {index for index, (a, b) in enumerate(zip(one, two)) if a != b}


def _masked(text: str, varying: set[int]) -> list[str]:
    return [line for index, line in enumerate(text.splitlines()) if index not in varying]


def target_for(entry: str | None, command: tuple[str, ...] | None, runs: RunSettings, test: str | None = None) -> Target:
    """The target a command line names: `-- CMD...`, an entry, or a Python file that is a program
    rather than an entry (it defines no `my_model_function`: run as `python FILE`)."""
    tests = Command.parse(test) if test else None
    if command:
        return CommandTarget(Command(tuple(command)), runs, tests)
    if entry is None:
        raise EntryError("give an entry (file.py[::factory]) or a command after --")
    path, factory = parse_entry(entry)
    if factory is None and not _defines(path, "my_model_function"):
        return CommandTarget(command_for_script(path), runs, tests)
    check_entry_defines(path, factory)
    return EntryTarget(entry, runs, tests)


def _defines(path: str, name: str) -> bool:
    import ast

    try:
        with open(path, "rb") as handle:
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError):
        return True  # let the run say what is wrong with it
    return any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name for node in tree.body)
