"""Running an entry in a subprocess and reading back what it reported.

An entry is `file.py` or `file.py::factory` (default factory `my_model_function`), with a
`GetInput()` beside it. Each run is a process of its own with a timeout (forked from a server that
has imported torch, `runner_server`, or a fresh interpreter); rewritten sources reach it through
the runner's import overlay, so nothing is written before verification passes.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from graphweld.run_evidence import RunEvidence
from graphweld.runs import runner_server
from graphweld.runs.compile_options import DYNAMO_SETTINGS
from graphweld.runs.library_files import is_library_file

DEFAULT_TIMEOUT = 600
# Dynamo's id for a branch on a tensor's value ("Data-dependent branching").
DATA_DEPENDENT_BRANCHING = "GB0170"
# Dynamo's ids for a call it cannot trace at all: a function it skips ("Attempted to call / inline
# function marked as skipped": a C builtin such as `Generator.manual_seed`, NumPy's
# `SeedSequence`), an object it cannot put in a graph ("An opaque object was created in the middle
# of the program": a `torch.Generator`), a method it does not support (`type.__new__`).
UNTRACEABLE_CALLS = frozenset({"GB0007", "GB0008", "GB0156", "GB0363"})
# Dynamo's "Skip calling `torch.compiler.disable()`d function" and, where it met the call while
# inlining (a method, a function called from a traced one: most calls on torch 2.14), "Skip
# inlining `torch.compiler.disable()`d function".
DISABLED_CALLS = frozenset({"GB0098", "GB0099"})


class EntryError(Exception):
    """The entry could not be run; the message is one line for the user."""


class RunFailed(EntryError):
    """The entry's program raised: `reason` is the exception's first line, without the entry;
    `site` where in the user's code it was raised (`file:line`, or ""), and `traceback` the whole
    traceback, for `--traceback`."""

    def __init__(self, entry: str, reason: str, site: str = "", traceback: str = "") -> None:
        where = f" (at {_short(site)})" if site else ""
        super().__init__(f"{entry}: {reason}{where}")
        self.reason = f"{reason}{where}"
        self.site = site
        self.traceback = traceback


def _short(path: str) -> str:
    """A path relative to the current directory when it lies below it."""
    relative = os.path.relpath(path) if os.path.isabs(path) else path
    return path if relative.startswith("..") else relative


@dataclass(frozen=True)
class BreakSite:
    file: str
    line: int
    gb: str
    reason: str
    hint: str
    skipped_frame: bool
    explanation: str = ""
    # The Python stack down to the break, outermost first: (file, line, function).
    stack: tuple[tuple[str, int, str], ...] = ()
    # Where Dynamo reported the break, when `file:line` is a caller of it (see `in_code`).
    via: str = ""
    # The file of the frame that called the function holding `file:line`, when known.
    caller: str = ""
    # What Dynamo skipped there: "frame" (the whole function), "rest" (what follows the break,
    # which it could not resume from), or "" (it went on compiling after the break).
    skipped: str = ""
    # Breaks logged at this site in the run (`RunReport.sites` counts them).
    count: int = 1
    # The Dynamo switches the break's own hints ask to turn on (`capture_scalar_outputs` for an
    # `.item()` Dynamo cannot trace): what a run measures for it.
    settings: tuple[str, ...] = ()
    # Not a break: the compiled run raised here (`RunReport.compile_failure`).
    fails: bool = False

    @property
    def kind(self) -> str:
        """For a person: "graph break", "skipped frame", "skipped rest of frame" or "compile fails"."""
        if self.fails:
            return "compile fails"
        return {"frame": "skipped frame", "rest": "skipped rest of frame"}.get(self.skipped, "skipped frame" if self.skipped_frame else "graph break")

    def in_code(self, wanted: Callable[[str], bool]) -> "BreakSite | None":
        """This site, or the innermost caller on its stack whose file is `wanted`, moved there: a
        break inside `inspect.currentframe()` is fixed where the user's code calls it."""
        frames = list(self.stack)
        if not frames or (frames[-1][0], frames[-1][1]) != (self.file, self.line):
            frames.append((self.file, self.line, ""))
        for index in range(len(frames) - 1, -1, -1):
            file, line, _ = frames[index]
            if wanted(file):
                caller = frames[index - 1][0] if index > 0 else ""
                via = "" if index == len(frames) - 1 else f"{self.file}:{self.line}"
                return dataclasses.replace(self, file=file, line=line, via=via, caller=caller)
        return None

    @property
    def called_by_user_code(self) -> bool:
        """Whether the function holding the site was called from code outside the standard
        library, torch and graphweld: a helper, not the function torch.compile was handed."""
        return bool(self.caller) and not is_library_file(self.caller)


def evidence_of(sites: Iterable[BreakSite], stack_lines: Iterable[int] = ()) -> RunEvidence:
    """What a run of an entry saw in one file, from the break sites placed in it and the lines of
    it on the stacks of breaks further in, as `engine.propose` takes it."""
    sites = list(sites)
    return RunEvidence(
        site_lines=frozenset(site.line for site in sites),
        called_lines=frozenset(site.line for site in sites if site.called_by_user_code),
        data_dependent_lines=frozenset(site.line for site in sites if site.gb == DATA_DEPENDENT_BRANCHING),
        stack_lines=frozenset(stack_lines),
        # Calls Dynamo cannot trace at all (UNTRACEABLE_CALLS), or an error of its own tracing one.
        untraceable_lines=frozenset(site.line for site in sites if site.gb in UNTRACEABLE_CALLS or _dynamo_failed(site)),
        skipped_frame_lines=frozenset(site.line for site in sites if site.skipped_frame),
        disabled_call_lines=frozenset(site.line for site in sites if site.gb in DISABLED_CALLS),
    )


def _dynamo_failed(site: BreakSite) -> bool:
    """A compiled run that raised inside Dynamo itself while it traced the site's call
    (InternalTorchDynamoError): a call it cannot trace at all, as a skipped function is."""
    return site.fails and "InternalTorchDynamoError" in site.reason


def stack_lines_by_file(sites: Iterable[BreakSite], wanted: Callable[[str], bool]) -> dict[str, set[int]]:
    """The lines of `wanted` files on the stacks of `sites` (each as placed), outside each site's
    own line: the calls, outermost to innermost, that led to a break."""
    found: dict[str, set[int]] = {}
    for site in sites:
        for file, line, _ in site.stack:
            if (file, line) != (site.file, site.line) and wanted(file):
                found.setdefault(file, set()).add(line)
    return found


def sites_by_file(report: RunReport, wanted: Callable[[str], bool]) -> tuple[dict[str, RunEvidence], int]:
    """The run's break sites in the `wanted` files (a break inside library code placed where those
    files call it), per file, and how many sites lie outside them."""
    placed: dict[str, list[BreakSite]] = {}
    outside = 0
    for site in report.fix_sites:
        moved = site.in_code(wanted)
        if moved is None:
            outside += 1
        else:
            placed.setdefault(moved.file, []).append(moved)
    stacks = stack_lines_by_file((site for sites in placed.values() for site in sites), wanted)
    files = placed.keys() | stacks.keys()
    return {file: evidence_of(placed.get(file, ()), stacks.get(file, ())) for file in files}, outside


@dataclass(frozen=True)
class Recompile:
    """One recompilation Dynamo logged: the function, where it is, and the first guard that failed."""

    function: str
    file: str
    line: int
    reason: str


@dataclass
class RunReport:
    """What one run of an entry saw. `outputs` maps "eager"/"compiled" to the first call's output
    pytree, and "eager_calls"/"compiled_calls" to every call's, in order."""

    device: str
    torch_version: str
    outputs: dict[str, Any]
    eager_stdout: str | None = None
    compiled_stdout: str | None = None
    # [logger name, level, message] and [category, message] lists, in the order they happened.
    eager_log_records: list[list[str]] | None = None
    compiled_log_records: list[list[str]] | None = None
    eager_warnings: list[list[str]] | None = None
    compiled_warnings: list[list[str]] | None = None
    graphs: int = 0
    ops: int = 0
    # How many of the model's parameters its graphs take (the first call; None: not counted).
    parameters_in_graphs: int | None = None
    skipped_frames: int = 0
    fullgraph: bool | None = None
    fullgraph_error: str | None = None
    # The capture settings `fullgraph=True` compiled with only because Dynamo turns them on for a
    # fullgraph compile by itself, where the compile the user runs (torch.compile's default) breaks.
    fullgraph_implicit: tuple[str, ...] = ()
    breaks: list[BreakSite] = field(default_factory=list)
    # "entry": the program's own torch.compile calls were measured; "graphweld": running what the
    # factory returns compiled nothing, so the runner compiled it (seed 000's convention).
    compiled_by: str | None = None
    # --compile-options that applied to nothing: the program compiled itself (only `backend` applies).
    unused_compile_options: tuple[str, ...] = ()
    # Recompilations over all the calls of the compiled run.
    recompiles: list[Recompile] = field(default_factory=list)
    # The program's own fullgraph=True failed, so its compiled picture was measured with it
    # relaxed to fullgraph=False (`fullgraph` says False, `fullgraph_error` why).
    fullgraph_relaxed: bool = False
    # A training run (--train): each call a training step, compared with its loss and gradients
    # (or, with the entry's train_step, the parameters after it).
    train: bool = False
    # Compiled backward graphs (AOTAutograd's) the first training step ran (None: inference).
    backward_graphs: int | None = None
    # The eager run's executed lines of the files it was asked to watch: real path -> line -> hits.
    coverage: dict[str, dict[int, int]] = field(default_factory=dict)
    # The Dynamo switches measured for any break whatever its hints (`nested_graph_breaks`) that
    # the run's torch has, off in this run.
    resume_settings: tuple[str, ...] = ()
    # The compiled run raised (the eager run did not): the exception's first line, and where in
    # the user's code (`compile_failure`). Its outputs are missing, its picture "compile fails".
    compile_error: str | None = None
    compile_failure: BreakSite | None = None
    # The rewritten files the run was served (real path -> text); empty for the files as they are.
    overlay: dict[str, str] = field(default_factory=dict)

    @property
    def compile_fails(self) -> bool:
        return self.compile_error is not None

    @property
    def fix_sites(self) -> list[BreakSite]:
        """The sites a fix works on: where the compiled run raised, first, then the break sites."""
        return [*([self.compile_failure] if self.compile_failure is not None else []), *self.sites]

    @property
    def fullgraph_compiles(self) -> bool:
        """Whether `fullgraph=True` compiles as the compile the user runs would: not only under the
        capture settings Dynamo turns on for a fullgraph compile by itself."""
        return bool(self.fullgraph) and not self.fullgraph_implicit

    @property
    def fullgraph_state(self) -> str:
        """`compiles`, `fails`, `not checked`, or `compiles only with capture_scalar_outputs, which
        fullgraph=True turns on`."""
        if self.fullgraph is None:
            return "not checked"
        if not self.fullgraph:
            return "fails"
        if self.fullgraph_implicit:
            return f"compiles only with {', '.join(self.fullgraph_implicit)}, which fullgraph=True turns on"
        return "compiles"

    @property
    def compiler(self) -> str:
        """Who compiled the program, for a person: "the entry's own code", "graphweld" or "nothing"."""
        return {"entry": "the entry's own code", "graphweld": "graphweld", "command": "the command's own code"}.get(
            self.compiled_by or "", "nothing"
        )

    @property
    def sites(self) -> list[BreakSite]:
        """Break sites without duplicates (the same site is logged again when Dynamo traces its
        code again: another call site of the function, a recompile), each with `count`, the
        breaks logged there."""
        seen: dict[tuple[str, int, str], BreakSite] = {}
        counts: dict[tuple[str, int, str], int] = {}
        for site in self.breaks:
            key = (site.file, site.line, site.gb)
            counts[key] = counts.get(key, 0) + 1
            if key not in seen:
                seen[key] = site
            elif site.skipped_frame and not seen[key].skipped_frame:
                # Dynamo logs a break's user stack once ("suppressed due to duplicate graph
                # break" after): the stack places a break inside library code in the user's.
                seen[key] = dataclasses.replace(site, stack=site.stack or seen[key].stack)
        unique = (dataclasses.replace(site, count=counts[key]) for key, site in seen.items())
        return sorted(unique, key=lambda s: (s.file, s.line))


@dataclass(frozen=True)
class RunSettings:
    """How an entry's runs are made: on which device, with which compile options, within how
    many seconds each, and whether each call is a training step (`--train`)."""

    device: str = "auto"
    compile_options: dict[str, Any] = field(default_factory=dict)
    timeout: float = DEFAULT_TIMEOUT
    train: bool = False

    def run(
        self,
        entry: str,
        modes: tuple[str, ...] = ("eager", "compiled"),
        *,
        overlay: dict[str, str] | None = None,
        compile_options: dict[str, Any] | None = None,
        check_fullgraph: bool = True,
        coverage_files: Sequence[str] = (),
        numpy_random_stream: bool = False,
    ) -> RunReport:
        """`run_entry` with these settings (`compile_options` replaces theirs for one run)."""
        return run_entry(
            entry, modes, device=self.device, overlay=overlay, check_fullgraph=check_fullgraph, timeout=self.timeout,
            compile_options=self.compile_options if compile_options is None else compile_options, train=self.train,
            coverage_files=coverage_files, numpy_random_stream=numpy_random_stream,
        )


def parse_entry(entry: str) -> tuple[str, str | None]:
    path, _, factory = entry.partition("::")
    if not path.endswith(".py"):
        raise EntryError(f"{entry}: an entry is a Python file, optionally file.py::factory")
    if not Path(path).is_file():
        raise EntryError(f"{path}: no such file")
    return str(Path(path).resolve()), factory or None


def check_entry_defines(path: str, factory: str | None) -> None:
    """Raise EntryError, before any run, when the entry file cannot define its factory or
    `GetInput`: the run would only find out after importing torch and the model."""
    for names in ((factory or "my_model_function",), ("GetInput", "GetInputs")):
        if not any(_may_bind(path, name) for name in names):
            raise EntryError(
                f"{path}: an entry defines `{names[0]}()` (my_model_function() returns the model, GetInput() "
                f"its input, or GetInputs() several); this file defines no `{names[0]}`"
            )


def _may_bind(path: str, name: str) -> bool:
    """Whether the module's top level may bind `name`: a def, class, assignment or import of it,
    or a star import. A file that does not parse is left for the run to report."""
    import ast

    try:
        tree = ast.parse(Path(path).read_bytes())
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return True
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return True
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if any(alias.name == "*" or (alias.asname or alias.name.split(".")[0]) == name for alias in node.names):
                return True
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "globals", "exec"):
            return True  # bound in a way the text does not show
    return False


def run_entry(
    entry: str,
    modes: tuple[str, ...] = ("eager", "compiled"),
    *,
    device: str = "auto",
    compile_options: dict[str, Any] | None = None,
    overlay: dict[str, str] | None = None,
    check_fullgraph: bool = True,
    timeout: float = DEFAULT_TIMEOUT,
    train: bool = False,
    coverage_files: Sequence[str] = (),
    numpy_random_stream: bool = False,
) -> RunReport:
    """Run `entry` in a fresh interpreter and return what it reported (`train`: each call a
    training step, see the runner's `Program`; `coverage_files`: real paths whose lines the eager
    run records, `RunReport.coverage`; `numpy_random_stream`: compiled code draws `np.random`
    from NumPy's own generator, as eager does, at the price of a break at each draw). A program whose own
    `fullgraph=True` compile fails is run compiled once more, in another interpreter, with it
    relaxed: the failure is its `fullgraph` verdict, the relaxed run its breaks."""
    path, factory = parse_entry(entry)
    request = {
        "entry": path,
        "factory": factory,
        "modes": list(modes),
        "device": device,
        "compile_options": compile_options or {},
        "overlay": overlay or {},
        "check_fullgraph": check_fullgraph,
        "train": train,
        "coverage_files": sorted(coverage_files),
        "numpy_random_stream": numpy_random_stream,
    }
    result, outputs = _run_runner(entry, path, request, timeout)
    if result.get("fullgraph_failed"):
        relaxed, relaxed_outputs = _run_runner(entry, path, {**request, "modes": ["compiled"], "relax_fullgraph": True}, timeout)
        result = {**result, **relaxed, "fullgraph": False, "fullgraph_error": result.get("fullgraph_error")}
        outputs = {**outputs, **relaxed_outputs}
    for mode in ("eager", "compiled"):
        if f"{mode}_calls" in outputs:
            outputs[mode] = outputs[f"{mode}_calls"][0]
    return RunReport(
        device=result["device"],
        torch_version=result["torch"],
        outputs=outputs,
        eager_stdout=result.get("eager_stdout"),
        compiled_stdout=result.get("compiled_stdout"),
        eager_log_records=result.get("eager_log_records"),
        compiled_log_records=result.get("compiled_log_records"),
        eager_warnings=result.get("eager_warnings"),
        compiled_warnings=result.get("compiled_warnings"),
        graphs=result.get("graphs", 0),
        ops=result.get("ops", 0),
        parameters_in_graphs=result.get("parameters_in_graphs"),
        skipped_frames=result.get("skipped_frames", 0),
        fullgraph=result.get("fullgraph"),
        fullgraph_error=result.get("fullgraph_error"),
        fullgraph_implicit=tuple(result.get("fullgraph_implicit", ())),
        compiled_by=result.get("compiled_by"),
        unused_compile_options=tuple(result.get("unused_compile_options", ())),
        breaks=[break_site(b) for b in result.get("breaks", [])],
        recompiles=[Recompile(r["function"], r["file"], r["line"], r["reason"]) for r in result.get("recompiles", [])],
        fullgraph_relaxed=bool(result.get("fullgraph_relaxed")),
        train=train,
        backward_graphs=result.get("backward_graphs"),
        coverage={file: {int(line): count for line, count in lines.items()} for file, lines in result.get("coverage", {}).items()},
        resume_settings=tuple(result.get("resume_settings", ())),
        compile_error=result.get("compile_error"),
        compile_failure=failure_site(result),
        overlay=dict(overlay or {}),
    )


def failure_site(result: dict[str, Any]) -> BreakSite | None:
    """Where the compiled run raised, as a site at the user's line (the innermost frame of the
    user's code it passed through)."""
    error = result.get("compile_error")
    if error is None:
        return None
    stack = tuple((frame[0], frame[1], frame[2]) for frame in result.get("compile_error_stack", []))
    if not stack:
        return None  # raised outside the user's code: reported with the picture, placed nowhere
    file, line, _ = stack[-1]
    return BreakSite(
        file=file, line=line, gb="", reason=f"the compiled run raises {error}", hint="", skipped_frame=False,
        explanation=result.get("compile_error_explanation", ""), stack=stack, fails=True,
    )


def break_site(parsed: dict[str, Any]) -> BreakSite:
    """A break site from the runner's parse of one graph-break record."""
    return BreakSite(
        file=parsed["file"], line=parsed["line"], gb=parsed["gb"], reason=parsed["reason"], hint=parsed["hint"],
        skipped_frame=parsed["skipped_frame"], explanation=parsed.get("explanation", ""),
        stack=tuple((frame[0], frame[1], frame[2]) for frame in parsed.get("stack", [])),
        skipped=parsed.get("skipped", ""), settings=tuple(parsed.get("settings", ())),
    )


def _run_runner(entry: str, path: str, request: dict[str, Any], timeout: float) -> tuple[dict[str, Any], dict[str, Any]]:
    """One runner process: its result and its outputs."""
    with tempfile.TemporaryDirectory(prefix="graphweld-run-") as scratch:
        request = {**request, "outputs_path": os.path.join(scratch, "outputs.pt")}
        request_path = os.path.join(scratch, "request.json")
        result_path = os.path.join(scratch, "result.json")
        with open(request_path, "w", encoding="utf-8") as handle:
            json.dump(request, handle)
        inductor = "compiled" in request["modes"] and request["compile_options"].get("backend", "inductor") == "inductor"
        returncode, output = _runner_process(entry, path, request_path, result_path, timeout, inductor)
        if not os.path.exists(result_path):
            last = (output.strip().splitlines() or ["no output"])[-1]
            raise EntryError(f"{entry}: the run died (exit code {returncode}): {last}")
        with open(result_path, encoding="utf-8") as handle:
            result = json.load(handle)
        if not result.get("ok"):
            raise RunFailed(entry, result.get("error", "the run failed"), result.get("error_site", ""), result.get("traceback", ""))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. "Failed to initialize NumPy" on import
            import torch

        outputs = torch.load(request["outputs_path"], weights_only=False)
    return result, outputs


def _runner_process(
    entry: str, path: str, request_path: str, result_path: str, timeout: float, inductor: bool
) -> tuple[int, str]:
    """Run the runner on a request: forked from the server that has torch imported where it can
    (`runner_server`; `inductor`: the run compiles with inductor, which a server started for it
    imports too), else a fresh interpreter. Its exit status and its stderr (the server's child:
    its stdout and stderr)."""
    directory = os.path.dirname(path)
    stopped = f"{entry}: the run took longer than {timeout:.0f} s and was stopped"
    server = runner_server.server_for(timeout, inductor)
    if server is not None:
        try:
            finished = server.run(request_path, result_path, result_path + ".log", timeout)
            return finished.returncode, finished.output
        except TimeoutError:
            raise EntryError(stopped) from None
        except runner_server.ServerUnavailable:  # made in a fresh interpreter below
            if os.path.exists(result_path):
                os.remove(result_path)
    try:
        completed = subprocess.run(
            [sys.executable, "-m", "graphweld.runs.runner", request_path, result_path],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=directory,
        )
    except subprocess.TimeoutExpired:
        raise EntryError(stopped) from None
    return completed.returncode, completed.stderr


# Compile options that are switches, and the Dynamo settings `--compile-options` also takes.
_SWITCHES = ("fullgraph", "dynamic", *DYNAMO_SETTINGS)
COMPILE_OPTION_KEYS = ("fullgraph", "dynamic", "mode", "backend", *DYNAMO_SETTINGS)


def _is_dynamo_switch(key: str) -> bool:
    """Whether torch._dynamo.config has an on/off switch `key` (what a break's hint may name:
    `trace_autograd_ops`), so that the measured suggestion can be passed back as given."""
    if not key.isidentifier() or key.startswith("_"):
        return False
    try:
        import torch._dynamo.config as config
    except Exception:  # no torch here: the run says so
        return False
    return isinstance(getattr(config, key, None), bool)


def parse_compile_options(text: str | None) -> dict[str, Any]:
    """`fullgraph=true,dynamic=false,mode=max-autotune,backend=eager` -> torch.compile kwargs, plus
    the Dynamo switches of DYNAMO_SETTINGS (`capture_scalar_outputs=true`, `nested_graph_breaks=true`...)."""
    options: dict[str, Any] = {}
    if not text:
        return options
    for pair in text.split(","):
        key, _, value = pair.strip().partition("=")
        switch = key in _SWITCHES or (key not in COMPILE_OPTION_KEYS and _is_dynamo_switch(key))
        if key not in COMPILE_OPTION_KEYS and not switch:
            raise EntryError(
                f"unknown compile option '{key}' (known: {', '.join(COMPILE_OPTION_KEYS)}, or any on/off switch of "
                "torch._dynamo.config that a break's hint names, such as trace_autograd_ops)"
            )
        if switch:
            allowed = ("true", "false", "none") if key in ("fullgraph", "dynamic") else ("true", "false")
            if value.lower() not in allowed:
                raise EntryError(f"compile option {key} takes {', '.join(allowed[:-1])} or {allowed[-1]}")
            options[key] = {"true": True, "false": False, "none": None}[value.lower()]
        else:
            options[key] = value
    return options
