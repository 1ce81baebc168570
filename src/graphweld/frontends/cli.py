"""The `graphweld` command: a thin front-end over graphweld.engine.

Exit codes, as ruff's: 0 all good, 1 changes pending (with --check/--diff), 2 errors.
Diffs, fixed stdin text and JSON go to stdout; messages, progress and the summary go to stderr.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

import click

if TYPE_CHECKING:  # only annotations read these; the commands import what they run, lazily (start-up)
    from rich.console import Console

    from graphweld.engine import FileResult
    from graphweld.runs.entry import RunSettings
    from graphweld.runs.targets import Target
    from graphweld.settings import Settings


EXIT_OK, EXIT_PENDING, EXIT_ERROR = 0, 1, 2
# Below this many files a progress bar only flickers.
PROGRESS_THRESHOLD = 8


def _stdout() -> Console:
    from rich.console import Console

    return Console(file=sys.stdout, highlight=False, soft_wrap=True)


def _table_stdout() -> Console:
    """Tables of paths and reasons: on a terminal its width, when piped wide enough not to fold."""
    from rich.console import Console

    console = Console(file=sys.stdout, highlight=False)
    return console if console.is_terminal else Console(file=sys.stdout, highlight=False, width=200)


def _stderr() -> Console:
    from rich.console import Console

    return Console(file=sys.stderr, highlight=False, soft_wrap=True)


def _table_stderr() -> Console:
    """The summary tables of `fix --entry`, which go with its messages: as `_table_stdout`."""
    from rich.console import Console

    console = Console(file=sys.stderr, highlight=False)
    return console if console.is_terminal else Console(file=sys.stderr, highlight=False, width=200)


def _fail(message: str) -> "click.exceptions.Exit":
    _stderr().print(f"[bold red]error:[/] {message}", highlight=False)
    return click.exceptions.Exit(EXIT_ERROR)


def _entry_failure(exc: Exception, show_traceback: bool) -> "click.exceptions.Exit":
    """An entry that could not be run: its one line, after the program's whole traceback when
    asked for (`--traceback`)."""
    from rich.text import Text

    traceback = getattr(exc, "traceback", "")
    if show_traceback and traceback:
        _stderr().print(Text(traceback.rstrip()))
    return _fail(str(exc))


_TRACEBACK_HELP = "When the entry's program raises, print its whole traceback."
_TRAIN_HELP = ("Run each call as a training step (train mode, backward; or the entry's train_step) and compare "
               "losses and gradients (or parameters) too.")


def _run_settings(device: str, compile_options: str | None, timeout: float, train: bool) -> RunSettings:
    """How an entry's runs are made, from the command line (EntryError on bad compile options)."""
    from graphweld.runs.entry import RunSettings, parse_compile_options

    return RunSettings(device, parse_compile_options(compile_options), timeout, train)


def _rule_ids(values: Sequence[str]) -> frozenset[str]:
    return frozenset(part.strip() for value in values for part in value.split(",") if part.strip())


class _CommandGroup(click.Group):
    """Takes what follows `--` as a command to run (`graphweld explain -- python train.py`), out of
    reach of the options of graphweld's own command."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" in args:
            at = args.index("--")
            ctx.meta[_COMMAND] = tuple(args[at + 1 :])
            args = args[:at]
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context):  # type: ignore[no-untyped-def]
        # Before click's own handler, which would print "Aborted!" and exit 1 ("changes pending").
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            from graphweld.interrupted import INTERRUPTED, INTERRUPTED_MESSAGE

            _stderr().print(INTERRUPTED_MESSAGE, highlight=False)
            raise click.exceptions.Exit(INTERRUPTED) from None


_COMMAND = "graphweld.command"


def _command_argv() -> tuple[str, ...]:
    """The command after `--`, if the command line has one."""
    return click.get_current_context().meta.get(_COMMAND, ())


@click.group(cls=_CommandGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=lambda ctx, _, value: _print_version(ctx, value),
              help="Show graphweld's version, the torch installed beside it and the torch releases it is tested on, and exit.")
def main() -> None:
    """graphweld: rewrite PyTorch code so torch.compile captures whole graphs.

    `graphweld explain -- CMD...` and `graphweld fix [PATHS] -- CMD...` run a command (a script, a
    module, a test suite) as the program whose breaks are found and whose run verifies the fixes.
    """


@main.command()
# Not readable=True (click's default): click would stop the whole run with a usage error on one
# unreadable path; the run reports it on its own line and still fixes the other files.
@click.argument("paths", nargs=-1, type=click.Path(path_type=str, readable=False))
@click.option("--diff", "show_diff", is_flag=True, help="Print the changes as a unified diff; write nothing.")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 if any file would change.")
@click.option("--interactive", "-i", is_flag=True, help="Review each change as a diff and choose which to apply.")
@click.option("--select", multiple=True, metavar="IDS", help="Only these rules (comma-separated ids, or ALL).")
@click.option("--ignore", multiple=True, metavar="IDS", help="Skip these rules (comma-separated ids).")
@click.option("--unsafe-fixes/--no-unsafe-fixes", default=None, help="Also apply fixes that can change behaviour.")
@click.option("--assume-compiled", is_flag=True, default=None, help="Treat every function as a compiled region.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Worker processes [default: all cores].")
@click.option("--format", "output_format", type=click.Choice(["text", "json", "github", "sarif"]), default="text", show_default=True,
              help="github: one GitHub Actions annotation per site; sarif: SARIF 2.1.0 for code scanning "
                   "(both for CI, not with --entry or '-').")
@click.option("--stdin-filename", metavar="NAME", help="The name of the file read from stdin (PATH '-').")
@click.option("--config", "config_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="pyproject.toml to read [tool.graphweld] from [default: the nearest one].")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when changes are pending (errors still exit 2).")
@click.option("--entry", metavar="ENTRY", help="Run ENTRY (file.py[::factory]) to find break sites, and keep only verified rewrites.")
@click.option("--device", type=click.Choice(["auto", "cuda", "cpu"]), default="auto", show_default=True,
              help="Where --entry runs.")
@click.option("--compile-options", metavar="K=V,...", help="torch.compile options for --entry: fullgraph, dynamic, mode, backend; and the Dynamo switches capture_scalar_outputs, capture_dynamic_output_shape_ops, allow_rnn, nested_graph_breaks, or any other on/off switch of torch._dynamo.config (a break's hint may name one: trace_autograd_ops).")
@click.option("--timeout", type=click.FloatRange(min=1), default=600, show_default=True, help="Seconds per --entry run.")
@click.option("--train", is_flag=True, help=_TRAIN_HELP)
@click.option("--test", "test_command", metavar="CMD", help="A command that must pass with the rewritten files before "
              "anything is written (with --entry or -- CMD), e.g. \"pytest -x tests\".")
@click.option("--unexercised-fixes", is_flag=True, default=None, help="With a run: also write rewrites of code the "
              "entry's runs never reached (not verified by them).")
@click.option("--traceback", "show_traceback", is_flag=True, help=_TRACEBACK_HELP)
def fix(
    paths: tuple[str, ...],
    show_diff: bool,
    check: bool,
    interactive: bool,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    unsafe_fixes: bool | None,
    assume_compiled: bool | None,
    jobs: int | None,
    output_format: str,
    stdin_filename: str | None,
    config_path: Path | None,
    exit_zero: bool,
    entry: str | None,
    device: str,
    compile_options: str | None,
    timeout: float,
    train: bool,
    test_command: str | None,
    unexercised_fixes: bool | None,
    show_traceback: bool,
) -> None:
    """Fix graph breaks in the Python files under PATHS (files are rewritten in place).

    PATH '-' reads source from stdin and writes the fixed source to stdout. With `-- CMD...`, the
    command is run to find the sites and to verify every rewrite (PATHS default to `.`).
    """
    from graphweld.prefilter import selected_ids
    from graphweld.settings import SettingsError, find_config_file, load_settings

    command = _command_argv()
    if command and not paths:
        paths = (".",)
    if not paths:
        raise _fail("give the files or folders to fix (PATH...), or '-' for stdin")
    reading_stdin = "-" in paths
    if reading_stdin and len(paths) > 1:
        raise _fail("'-' (stdin) cannot be combined with other paths")
    anchor = Path(stdin_filename) if reading_stdin and stdin_filename else Path(paths[0] if not reading_stdin else ".")
    try:
        config_file = config_path or find_config_file(anchor if anchor.exists() else Path("."))
        settings = load_settings(config_file)
    except SettingsError as exc:
        raise _fail(str(exc))
    overrides: dict[str, object] = {}
    if select:
        overrides["select"] = _rule_ids(select)
    if ignore:
        overrides["ignore"] = settings.ignore | _rule_ids(ignore)
    if unsafe_fixes is not None:
        overrides["unsafe_fixes"] = unsafe_fixes
    if assume_compiled:
        overrides["assume_compiled"] = True
    if unexercised_fixes:
        overrides["unexercised_fixes"] = True
    settings = settings.replace(**overrides)
    if selected_ids(settings) is None:
        from graphweld.engine import RuleSelectionError, selected_rules

        try:
            selected_rules(settings)
        except RuleSelectionError as exc:
            raise _fail(str(exc))

    target = None
    if entry is not None and command:
        raise _fail("--entry and a command after -- are two ways to run the program: give one")
    if entry is not None or command:
        from graphweld.runs.entry import EntryError
        from graphweld.runs.targets import target_for

        try:
            target = target_for(entry, command, _run_settings(device, compile_options, timeout, train), test_command)
        except EntryError as exc:
            raise _fail(str(exc))
    elif train or test_command:
        raise _fail(f"{'--train' if train else '--test'} verifies with a run: it needs --entry ENTRY or -- CMD")
    pending_mode = check or show_diff
    if interactive:
        if show_diff or check or output_format != "text" or reading_stdin:
            raise _fail("--interactive cannot be combined with --diff, --check, --format json/github/sarif or '-' (stdin)")
        if not sys.stdin.isatty():
            raise _fail("--interactive needs a terminal to ask questions on (stdin is not a terminal); use --diff to review changes non-interactively")
        code = _fix_interactive(paths, settings, target, show_traceback)
    elif output_format in ("github", "sarif") and (target is not None or reading_stdin):
        raise _fail(f"--format {output_format} reports on files on disk: it cannot be combined with --entry, a command or '-' (stdin)")
    elif target is not None:
        if reading_stdin:
            raise _fail("a verified fix (--entry, or a command) cannot be combined with '-' (stdin)")
        code = _fix_verified(target, paths, settings, show_diff, check, output_format, show_traceback)
    elif reading_stdin:
        code = _fix_stdin(stdin_filename or "<stdin>", settings, show_diff, check, output_format)
    else:
        nothing = _nothing_to_fix(paths, settings) if output_format == "text" else None
        code = nothing if nothing is not None else _fix_paths(paths, settings, jobs, show_diff, check, output_format)
    if code == EXIT_PENDING and (exit_zero or not pending_mode):
        code = EXIT_OK
    raise click.exceptions.Exit(code)


def _nothing_to_fix(paths: Sequence[str], settings: Settings) -> int | None:
    """EXIT_OK, said in one line, when the bytes prefilter rules out every file under `paths`
    (nothing parsed, no rule imported: the run's whole cost is start-up); None when any file may
    hold a site, holds an uncompiled forward, is a notebook or cannot be read: the full run says."""
    from graphweld.analysis.project import ProjectIndex
    from graphweld.discover import discover
    from graphweld.prefilter import NO_SITE, file_verdict
    from graphweld.source import SourceError, read_bytes

    files, errors = discover(paths, settings.exclude)
    if errors or any(not path.endswith(".py") for path in files):
        return None
    verdict = file_verdict(settings)
    read: list[tuple[str, bytes]] = []
    for path in files:
        try:
            data = read_bytes(path)
        except SourceError:
            return None
        if verdict(data, False) != NO_SITE:
            return None
        read.append((path, data))
    # Only when every file is ruled out on its own is the project index built (the full run builds
    # its own): a file another file compiles may still hold a site.
    index = None if settings.assume_compiled else ProjectIndex.build(files)
    if index is not None and any(index.names_for(path) and verdict(data, True) != NO_SITE for path, data in read):
        return None
    print(f"graphweld: {len(files)} file{'s' if len(files) != 1 else ''} checked: no file can hold a graph-break site.", file=sys.stderr)
    return EXIT_OK


def _fix_interactive(paths: Sequence[str], settings: Settings, target: Target | None, show_traceback: bool) -> int:
    import signal

    from rich.text import Text

    from graphweld.frontends.progress import StepProgress
    from graphweld.frontends.review import Review
    from graphweld.runs.entry import EntryError

    # Ctrl-C must stop the review even when started from a shell that ignores SIGINT for
    # background jobs (the disposition is inherited).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    console = _stdout()
    verify = sites = None
    if target is not None:
        from graphweld.frontends.review_verifier import review_verifier

        try:
            with StepProgress(_stderr(), "review") as steps:
                steps.step(f"running {target.reference_run}")
                verify, sites = review_verifier(target, paths, settings)
        except EntryError as exc:
            raise _entry_failure(exc, show_traceback)
    review = Review(settings, console, ask=lambda prompt: console.input(Text(prompt, style="bold")), verify=verify, sites=sites)
    try:
        summary = review.run(paths)
    except KeyboardInterrupt:
        console.print()
        written = ", ".join(review.summary.written) or "none"
        _stderr().print(f"interrupted: the file under review was left unchanged (files written: {written})", highlight=False)
        return 130
    console.print(
        f"{summary.accepted} change(s) applied, {summary.declined} skipped, {len(summary.written)} file(s) written.",
        highlight=False,
    )
    if summary.unsafe_not_offered:
        console.print(f"{summary.unsafe_not_offered} unsafe fix(es) not offered; add --unsafe-fixes to review them.")
    return EXIT_ERROR if summary.errors else EXIT_OK


def _collect(paths: Sequence[str], settings: Settings, jobs: int | None, show_progress: bool) -> list[FileResult]:
    """Every result, sorted by path; a progress bar once discovery finds more than a handful."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from graphweld.engine import FileResult, run

    progress = Progress(
        TextColumn("graphweld"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=_stderr(), transient=True,
    )
    task = progress.add_task("files", total=None)

    def discovered(count: int) -> None:
        progress.update(task, total=count)
        if show_progress and count > PROGRESS_THRESHOLD:
            progress.start()

    results: list[FileResult] = []
    try:
        for result in run(paths, settings, jobs, on_discovered=discovered):
            results.append(result)
            progress.advance(task)
    finally:
        progress.stop()
    results.sort(key=lambda result: result.path)
    return results


def _fix_paths(
    paths: Sequence[str], settings: Settings, jobs: int | None, show_diff: bool, check: bool, output_format: str
) -> int:
    from graphweld.engine import selected_rules
    from graphweld.frontends.report import (
        AS_GIVEN,
        AS_WRITTEN,
        Summary,
        as_written,
        file_diff,
        lines_note,
        print_diff,
        results_as_github,
        results_as_json,
        results_as_sarif,
        site_line,
    )
    from graphweld.source import SourceError, write_atomically

    err = _stderr()
    interactive_terminal = err.is_terminal and output_format == "text"
    results = _collect(paths, settings, jobs, show_progress=interactive_terminal)
    write = not (show_diff or check)
    summary = Summary()
    for result in results:
        if result.changed and write:
            try:
                assert result.source is not None and result.fixed is not None
                write_atomically(result.path, result.source.encode(result.fixed))
            except SourceError as exc:
                result.error = str(exc)
                result.fixed = None
        summary.add(result)
    if write:
        # What is shown points into the files as they now are.
        results = [as_written(result) for result in results]

    if output_format == "json":
        click.echo(results_as_json(results, summary, applied=write))
    elif output_format == "github":
        annotations = results_as_github(results, applied=write)
        if annotations:
            click.echo(annotations)
    elif output_format == "sarif":
        from graphweld import __version__

        click.echo(results_as_sarif(results, selected_rules(settings), applied=write, version=__version__))
    else:
        out = _stdout()
        for result in results:
            if result.error is not None:
                err.print(f"[bold]{result.path}[/]: [red]error:[/] {result.error}", highlight=False)
                continue
            if result.changed and show_diff:
                assert result.source is not None and result.fixed is not None
                print_diff(out, file_diff(result.path, result.source.text, result.fixed))
            for change in result.applied:
                err.print(site_line(change, prefix="fixed: " if write else "would fix: "))
            for change in result.unsafe_available:
                err.print(site_line(change, prefix="unsafe fix available: "))
            for report in result.reports:
                err.print(site_line(report, prefix="not fixed: "))
        err.print(summary.table(pending=not write))
        if summary.changed and (summary.unsafe_available or summary.not_fixed or summary.per_rule):
            err.print(lines_note(AS_WRITTEN if write else AS_GIVEN), highlight=False)
        if summary.unsafe_available and not settings.unsafe_fixes:
            err.print(f"{summary.unsafe_available} unsafe fix(es) available with --unsafe-fixes.")
        uncompiled = [result.path for result in results if result.no_region]
        if uncompiled:
            err.print(_NO_REGION_HINT.format(count=len(uncompiled), first=uncompiled[0]), highlight=False)
    if summary.errors:
        return EXIT_ERROR
    return EXIT_PENDING if summary.changed else EXIT_OK


# A module's forward calls code that breaks graphs, and nothing the run was given compiles it.
_NO_REGION_HINT = (
    "{count} file(s) with a module's forward that calls code breaking graphs (e.g. {first}) are compiled by "
    "nothing graphweld was given, so it looked for no site there: add the file that compiles them "
    "(torch.compile(Model()) or model.compile()) to the paths, or use --assume-compiled, --entry ENTRY, "
    "or -- CMD to find the sites a run hits."
)


def _fix_stdin(name: str, settings: Settings, show_diff: bool, check: bool, output_format: str) -> int:
    from graphweld.engine import process_source
    from graphweld.frontends.report import Summary, file_diff, print_diff, results_as_json, site_line

    data = sys.stdin.buffer.read()
    result = process_source(name, data, settings)
    summary = Summary()
    summary.add(result)
    if output_format == "json":
        click.echo(results_as_json([result], summary, applied=False))
    elif result.error is not None:
        _stderr().print(f"[bold]{name}[/]: [red]error:[/] {result.error}", highlight=False)
    elif show_diff:
        if result.changed:
            assert result.source is not None and result.fixed is not None
            print_diff(_stdout(), file_diff(name, result.source.text, result.fixed))
    elif not check:
        # Fixed text (or the input unchanged) to stdout, byte for byte in the input's encoding.
        text_out = result.fixed if result.changed else None
        sys.stdout.buffer.write(result.source.encode(text_out) if text_out is not None and result.source else data)
        sys.stdout.buffer.flush()
    if output_format == "text" and result.error is None:
        err = _stderr()
        for report in result.reports:
            err.print(site_line(report, prefix="not fixed: "))
        for change in result.unsafe_available:
            err.print(site_line(change, prefix="unsafe fix available: "))
    if result.error is not None:
        if output_format == "text" and not (show_diff or check):
            sys.stdout.buffer.write(data)  # a format-on-save caller must never lose the buffer
        return EXIT_ERROR
    return EXIT_PENDING if result.changed else EXIT_OK


def _entry_options(function):  # type: ignore[no-untyped-def]
    function = click.option("--traceback", "show_traceback", is_flag=True, help=_TRACEBACK_HELP)(function)
    function = click.option("--train", is_flag=True, help=_TRAIN_HELP)(function)
    function = click.option("--timeout", type=click.FloatRange(min=1), default=600, show_default=True,
                            help="Seconds per run.")(function)
    function = click.option("--compile-options", metavar="K=V,...",
                            help="torch.compile options: fullgraph, dynamic, mode, backend (default inductor); "
                            "and the Dynamo switches capture_scalar_outputs, capture_dynamic_output_shape_ops, allow_rnn, nested_graph_breaks, or any other on/off switch of torch._dynamo.config (a break's hint may name one: trace_autograd_ops).")(function)
    function = click.option("--device", type=click.Choice(["auto", "cuda", "cpu"]), default="auto", show_default=True,
                            help="auto picks CUDA when available.")(function)
    return function


@main.command()
@click.argument("entry", required=False)
@_entry_options
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--config", "config_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="pyproject.toml to read [tool.graphweld] from.")
def explain(entry: str | None, device: str, compile_options: str | None, timeout: float, train: bool,
            show_traceback: bool, output_format: str, config_path: Path | None) -> None:
    """Run ENTRY (or the command after --) under torch.compile and list every graph break, with the
    rule that fixes it.

    ENTRY is file.py[::factory] with my_model_function() and GetInput(); a Python file without them
    is run as a script (`python FILE`), as `graphweld explain -- python FILE` would.
    """
    from graphweld.frontends.progress import StepProgress
    from graphweld.frontends.report import (
        BOUNDARY_NOTES,
        break_sites_table,
        explained_sites,
        explanation_as_json,
        fixes_by_gb_table,
        picture_table,
        print_fullgraph_failure,
        print_recompiles,
        print_trials,
    )
    from graphweld.runs.entry import EntryError
    from graphweld.runs.explanation import explain_target
    from graphweld.runs.targets import EntryTarget, target_for
    from graphweld.settings import SettingsError, find_config_file, load_settings

    command = _command_argv()
    try:
        if entry is not None and command:
            raise EntryError("give an entry or a command after --, not both")
        anchor = Path(entry.partition("::")[0]) if entry else Path(".")
        settings = load_settings(config_path or find_config_file(anchor))
        target = target_for(entry, command, _run_settings(device, compile_options, timeout, train))
        with StepProgress(_stderr(), "explain") as steps:
            what = "the entry" if isinstance(target, EntryTarget) else f"the command `{target.name}`"
            steps.step(f"running {what} under torch.compile" + (" (training steps)" if train else ""))
            explanation = explain_target(target, settings, progress=steps.step, note=steps.note)
    except (EntryError, SettingsError) as exc:
        raise _entry_failure(exc, show_traceback)
    report, explained, trials = explanation.report, explanation.sites, explanation.trials
    _note_unused_options(report)
    if output_format == "json":
        click.echo(explanation_as_json(report, explained, trials))
        return
    out = _table_stdout()
    if report.compile_fails:
        out.print(f"[red]The compiled run fails[/] with {report.compile_error}; the eager run does not.", highlight=False)
    if explained:
        where = f"{report.device}, " if report.device else ""
        out.print(break_sites_table(f"graph breaks ({where}torch {report.torch_version})", explained_sites(explained)))
        out.print(fixes_by_gb_table(explained))
    else:
        out.print("No graph breaks.")
    out.print(picture_table("totals", report))
    print_recompiles(out, report)
    print_fullgraph_failure(out, report)
    out.print(BOUNDARY_NOTES.get(report.compiled_by or "", ""), highlight=False)
    print_trials(out, trials)


@main.command()
@click.argument("before_entry", metavar="BEFORE.py")
@click.argument("after_entry", metavar="AFTER.py")
@_entry_options
def verify(before_entry: str, after_entry: str, device: str, compile_options: str | None, timeout: float, train: bool,
           show_traceback: bool) -> None:
    """Compare two entries: AFTER compiled must equal BEFORE eager, and not compile worse.

    Exit 0 when equal and not worse, 1 otherwise, 2 on errors.
    """
    from graphweld.frontends.progress import StepProgress
    from graphweld.frontends.report import outputs_table, picture_table, print_recompiles
    from graphweld.runs.entry import EntryError, RunFailed
    from graphweld.runs.verify import failed, judge

    after_failed: RunFailed | None = None
    try:
        runs = _run_settings(device, compile_options, timeout, train)
        with StepProgress(_stderr(), "verify") as steps:
            steps.step("running BEFORE eagerly (the reference) and compiled")
            before = runs.run(before_entry)
            steps.step("running AFTER compiled")
            try:
                after = runs.run(after_entry, ("compiled",))
            except RunFailed as exc:  # AFTER's program failing is a verdict; BEFORE's is an error
                after_failed = exc
    except EntryError as exc:
        raise _entry_failure(exc, show_traceback)
    _note_unused_options(before)
    if after_failed is not None:
        _table_stdout().print(f"[red]not verified[/]: {failed(after_failed).problems[0]}")
        raise click.exceptions.Exit(EXIT_PENDING)
    verdict = judge(before, after)
    out = _table_stdout()
    out.print(outputs_table(f"outputs: AFTER compiled vs BEFORE eager ({after.device})", verdict.comparisons))
    out.print(picture_table("compiled", before, after))
    print_recompiles(out, after)
    if verdict.ok:
        judged = f"better ({verdict.progress})" if verdict.progress else "the same picture"
        out.print(f"[green]verified[/]: equal outputs, printed output, log records and warnings; compiles {judged}")
        raise click.exceptions.Exit(EXIT_OK)
    for problem in verdict.problems:
        out.print(f"[red]not verified[/]: {problem}")
    raise click.exceptions.Exit(EXIT_PENDING)


def _print_version(ctx: click.Context, value: bool) -> None:
    """`graphweld --version`: graphweld's, the torch installed beside it, and the tested releases."""
    if not value or ctx.resilient_parsing:
        return
    from importlib.metadata import version

    from graphweld.analysis.torch_api import installed_torch_version, tested_torch_said

    torch = installed_torch_version()
    installed = f"torch {torch}" if torch else "no torch installed (rewriting needs none; verifying does)"
    click.echo(f"graphweld, version {version('graphweld')}; {installed}; tested on {tested_torch_said()}")
    ctx.exit()


def _note_unused_options(report) -> None:  # type: ignore[no-untyped-def]
    """What the user should know of how the run was made: options that applied to nothing, and a
    torch older or newer than graphweld is tested on."""
    from graphweld.analysis.torch_api import TESTED_TORCH, tested_torch_said

    version = re.match(r"(\d+)\.(\d+)", report.torch_version or "")
    found = (int(version.group(1)), int(version.group(2))) if version is not None else None
    if found is not None and not min(TESTED_TORCH) <= found <= max(TESTED_TORCH):
        _stderr().print(
            f"note: this run uses torch {report.torch_version}, {'older' if found < min(TESTED_TORCH) else 'newer'} than "
            f"any graphweld is tested on ({tested_torch_said()}); every rewrite is still verified on this torch, and "
            "what does not verify is dropped",
            highlight=False,
        )
    if report.unused_compile_options:
        _stderr().print(
            f"note: --compile-options {', '.join(report.unused_compile_options)} applied to nothing: the entry "
            "compiles itself, and only `backend` replaces its own compiles' choice",
            highlight=False,
        )


def _fix_verified(target: Target, paths: Sequence[str], settings: Settings, show_diff: bool, check: bool,
                  output_format: str, show_traceback: bool) -> int:
    from rich.text import Text

    from graphweld.frontends.progress import StepProgress
    from graphweld.frontends.report import (
        AS_GIVEN,
        AS_WRITTEN,
        break_sites_table,
        change_as_written,
        explained_sites,
        lines_note,
        picture_table,
        place,
        print_diff,
        print_fullgraph_failure,
        print_recompiles,
        print_trials,
        recompiles_as_given,
        short_path,
        site_line,
        sites_as_given,
        unified_diff,
        verified_fix_as_json,
    )
    from graphweld.runs.entry import EntryError
    from graphweld.runs.targets import EntryTarget
    from graphweld.runs.verified_fix import fix_verified

    err = _stderr()
    write = not (show_diff or check)
    try:
        with StepProgress(err, "fix --entry" if isinstance(target, EntryTarget) else "fix") as steps:
            result = fix_verified(target, paths, settings, write=write, progress=steps.step, note=steps.note)
    except EntryError as exc:
        raise _entry_failure(exc, show_traceback)
    _note_unused_options(result.before)
    trials, setting_fix, setting_note = result.trials, result.setting_fix, result.setting_note
    after = result.after or result.before
    instead_of = {(item.path, item.change): item.instead_of for item in result.tried if item.kept}
    # What is shown points into the files the user now has: as written, or as given.
    rewritten = {os.path.realpath(path): (c.source.text, c.fixed) for path, c in result.kept.items()}
    remaining, recompiles = result.remaining, after.recompiles
    if not write:
        remaining = sites_as_given(remaining, rewritten)
        recompiles = recompiles_as_given(recompiles, rewritten)
    after = dataclasses.replace(after, recompiles=recompiles)
    if output_format == "json":
        click.echo(verified_fix_as_json(result, after, remaining, write))
    else:
        out = _stdout()
        for path, candidate in sorted(result.kept.items()):
            if show_diff:
                print_diff(out, unified_diff(path, candidate.source.text, candidate.fixed))
            for change in candidate.applied:
                first = instead_of.get((path, change))
                shown = change_as_written(change, candidate.source.text, candidate.fixed) if write else change
                said = [result.effects.get((path, change), ""), result.exercised.get((path, change), "")]
                if first:
                    said.append(f"tried after {first.rule} at line {first.location.line} did not verify")
                verified = "verified" + (f" ({'; '.join(filter(None, said))})" if any(said) else "")
                err.print(site_line(shown, prefix=verified + ", " + ("fixed: " if write else "would fix: ")))
        for item in result.dropped:
            line = Text()
            line.append(f"{place(item.change)}: ", style="bold")
            line.append(item.change.rule + (f" ({item.change.form})" if item.change.form else ""), style="magenta")
            line.append(f" [{item.change.safety.value}] ")
            line.append(f"dropped, {item.why}", style="yellow")
            err.print(line, soft_wrap=True)
        for path, message in sorted(result.errors.items()):
            err.print(f"[bold]{path}[/]: [red]error:[/] {message}", highlight=False)
        if result.sites_outside:
            err.print(f"{result.sites_outside} break site(s) lie outside the given paths and were left alone.")
        tables = _table_stderr()
        tables.print(picture_table(f"compiled on {result.before.device}" if result.before.device else "compiled", result.before, after))
        print_recompiles(err, after)
        print_fullgraph_failure(err, after)
        if remaining:
            tables.print(break_sites_table("graph breaks left", explained_sites(remaining)))
        else:
            err.print("No graph breaks left.")
        if result.kept:
            err.print(lines_note(AS_WRITTEN if write else AS_GIVEN), highlight=False)
        print_trials(err, trials)
        if setting_fix is not None:
            # Its file's diff is above: the setting is composed with the rewrites kept there.
            action = "fixed" if write else "would fix"
            line = setting_fix.line if write else setting_fix.line_as_given
            err.print(
                f"[bold]{short_path(setting_fix.path)}:{line}[/]: capture-setting \\[unsafe] measured, "
                f"{action}: {setting_fix.message}",
                highlight=False,
            )
            if result.refused_settings:
                err.print(f"Capture settings passed over: {setting_note}.", highlight=False)
        elif setting_note:
            err.print(f"Capture settings not written: {setting_note}.", highlight=False)
    if result.errors:
        return EXIT_ERROR
    return EXIT_PENDING if result.kept or setting_fix is not None else EXIT_OK


@main.command()
def lsp() -> None:
    """Run the language server over stdio (for editors: diagnostics and quick fixes)."""
    from graphweld.frontends.lsp import main as serve

    serve()


@main.command()
@click.argument("rule_id", required=False)
def rules(rule_id: str | None) -> None:
    """List the rules, or print the documentation of RULE_ID."""
    from rich.markdown import Markdown
    from rich.table import Table

    from graphweld.codemods import RULES, RULES_BY_ID

    out = _stdout()
    if rule_id is None:
        table = Table(title="graphweld rules", title_justify="left")
        table.add_column("id", style="magenta", no_wrap=True)
        table.add_column("summary")
        for rule in RULES:
            table.add_row(rule.id, rule.summary)
        out.print(table)
        out.print("Run `graphweld rules ID` for a rule's documentation.")
        return
    rule = RULES_BY_ID.get(rule_id)
    if rule is None:
        raise _fail(f"unknown rule id '{rule_id}' (known: {', '.join(RULES_BY_ID)})")
    out.print(Markdown(f"# {rule.id}\n\n{inspect.cleandoc(rule.__doc__ or '')}\n\n## Reference\n{rule.reference}"))


if __name__ == "__main__":  # pragma: no cover
    main()
