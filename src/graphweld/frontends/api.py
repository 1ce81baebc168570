"""graphweld on a live model, in the current process: `graphweld.explain(model, *args, **kwargs)`.

For a notebook or a REPL, where the model is an object the user already holds rather than an entry
file. The model is compiled here (Dynamo's own graph-break records, as the entry runner collects
them), called once with the given arguments, and the breaks are explained with the same engine as
`graphweld explain`: the rule that fixes each site and its proposed change as a diff. The report
renders as a table in a terminal (rich) and as HTML in Jupyter; `report.fix()` writes the safe
changes with the same engine as `graphweld fix`.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import html
import os
import sysconfig
from pathlib import Path
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Iterator, Sequence

from rich.console import Console, ConsoleOptions, RenderResult
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from graphweld.edits import apply_edits
from graphweld.engine import Change, compiles, non_overlapping
from graphweld.rule import Safety
from graphweld.runs.entry import Recompile, RunReport, break_site
from graphweld.runs.explanation import ExplainedSite, explain_sites
from graphweld.frontends.report import Site, break_sites_table, explained_sites, picture, picture_rows, picture_table, short_path, unified_diff
from graphweld.settings import Settings, find_config_file, load_settings
from graphweld.source import SourceError, read_source, write_atomically

# What a site in code typed into a notebook or REPL cell gets: graphweld fixes files.
INTERACTIVE_CODE = "defined in a notebook or REPL cell: fix the notebook with `graphweld fix NOTEBOOK.ipynb`"


SKIPPED_FRAME_NOTE = (
    "A skipped frame hides the breaks after its first one: fix it, restart, and explain again "
    "(`graphweld fix --entry` repeats this by itself)."
)


@dataclass
class FixResult:
    """What `ExplainReport.fix()` wrote: files and the rules applied in each, and files skipped."""

    written: dict[str, list[str]] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    unsafe_left: int = 0

    @property
    def message(self) -> str:
        if not self.written:
            lines = ["No file changed."]
        else:
            lines = [f"Wrote {len(self.written)} file(s):"]
            lines += [f"  {_short(path)}: {', '.join(rules)}" for path, rules in sorted(self.written.items())]
            lines.append("Restart the kernel (or the interpreter) to load the fixed code: "
                         "modules already imported keep the old functions.")
        lines += [f"Not written: {_short(path)}: {why}" for path, why in sorted(self.skipped.items())]
        if self.unsafe_left:
            lines.append(f"{self.unsafe_left} unsafe fix(es) not applied: report.fix(unsafe=True) applies them.")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.message

    def _repr_html_(self) -> str:
        return f"<pre>{html.escape(self.message)}</pre>"


class ExplainReport:
    """The graph breaks of one compiled call of a live model, each with its fix."""

    def __init__(self, run: RunReport, sites: list[Site], explained: list[ExplainedSite], settings: Settings) -> None:
        self.run = run
        self.sites = sites
        self._explained = explained
        self._settings = settings

    # -- totals (before any fix) --------------------------------------------------------------------

    @property
    def graphs(self) -> int:
        return self.run.graphs

    @property
    def graph_breaks(self) -> int:
        return len(self.run.breaks)

    @property
    def skipped_frames(self) -> int:
        return self.run.skipped_frames

    @property
    def ops(self) -> int:
        return self.run.ops

    def totals(self) -> dict[str, object]:
        """The run's compile picture with the device, as numbers (`graphweld explain --format
        json` gives the same): graphs, ops, skipped frames, graph breaks and sites, recompiles;
        `fullgraph` is None (not checked in a live run)."""
        return {"device": self.run.device, **picture(self.run)}

    # -- applying ---------------------------------------------------------------------------------

    def fix(self, unsafe: bool = False, paths: Sequence[str] | None = None) -> FixResult:
        """Write exactly the fixes this report shows into the files that hold them (safe fixes;
        `unsafe=True` adds the unsafe ones): each site's change, as its diff shows it, and nothing
        else. Files of installed packages are left alone unless `paths` names them (or a folder
        holding them); copy a package before rewriting it. A file changed since the report is
        left alone. Nothing is verified here: `graphweld fix --entry` does that. Restart the
        kernel afterwards to load the fixed code."""
        allowed = [os.path.realpath(path) for path in paths] if paths is not None else None
        result = FixResult()
        shown: dict[str, list[Change]] = defaultdict(list)
        shown_on: dict[str, str] = {}
        for explained in self._explained:
            if explained.change is None or explained.text is None:
                continue
            path = explained.path or explained.site.file
            if explained.change not in shown[path]:
                shown[path].append(explained.change)
            shown_on[path] = explained.text
        for path, changes in sorted(shown.items()):
            if not os.path.isfile(path):
                continue  # code typed into a cell: the report says how to fix the notebook
            real = os.path.realpath(path)
            if allowed is not None and not any(real == root or real.startswith(root + os.sep) for root in allowed):
                continue
            if allowed is None and _installed(real):
                result.skipped[path] = "in an installed package (pass paths=[...] to include it; copy the package first)"
                continue
            permitted = [change for change in changes if unsafe or change.safety is Safety.SAFE]
            result.unsafe_left += len(changes) - len(permitted)
            chosen = non_overlapping(permitted)
            if not chosen:
                continue
            try:
                source = read_source(path)
                if source.text != shown_on[path]:
                    raise SourceError("changed since the report was made; explain again")
                text = apply_edits(source.text, [edit for change in chosen for edit in change.edits])
                if not compiles(text, path):
                    raise SourceError("internal error: the rewritten code does not compile; file left unchanged")
                write_atomically(path, source.encode(text))
            except (SourceError, UnicodeEncodeError) as exc:
                result.skipped[path] = str(exc)
                continue
            result.written[path] = [change.rule for change in chosen]
        return result

    # -- rendering --------------------------------------------------------------------------------

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self._table()
        yield picture_table("totals", self.run)
        for site in self.sites:
            if site.diff:
                yield Text(f"{site.location}  {site.rule}: {site.action}", style="bold")
                yield Syntax(site.diff, "diff", theme="ansi_dark", background_color="default", word_wrap=True)
        if any(site.diff for site in self.sites):
            yield Text("report.fix() applies the safe fixes to these files (unsafe=True adds the others).")
        if self.skipped_frames:
            yield Text(SKIPPED_FRAME_NOTE)

    def _table(self) -> Table | Text:
        if not self.sites:
            return Text("No graph breaks.")
        return break_sites_table(f"graph breaks ({self.run.device}, torch {self.run.torch_version})", self.sites)

    def __str__(self) -> str:
        console = Console(width=120, no_color=True, record=True, file=open(os.devnull, "w"))
        with contextlib.closing(console.file):
            console.print(self)
        return console.export_text()

    def __repr__(self) -> str:
        fails = f"the compiled call fails ({self.run.compile_error}); " if self.run.compile_fails else ""
        return (
            f"<graphweld.ExplainReport: {fails}{self.graph_breaks} graph break(s) at {len(self.sites)} site(s), "
            f"{self.graphs} graph(s), {self.skipped_frames} skipped frame(s); "
            f"{sum(1 for site in self.sites if site.rule and site.diff)} with a fix>"
        )

    def _repr_html_(self) -> str:
        rows = "".join(
            "<tr>"
            + "".join(f"<td>{html.escape(cell)}</td>" for cell in (site.location, site.gb, site.kind, site.reason))
            + f"<td><code>{html.escape(site.fix)}</code>"
            + (f"<details><summary>diff</summary>{_diff_html(site.diff)}</details>" if site.diff else "")
            + "</td></tr>"
            for site in self.sites
        )
        header = "".join(f"<th>{name}</th>" for name in ("site", "GB", "type", "reason", "fix"))
        breaks = (
            f"<table class='graphweld-sites'><thead><tr>{header}</tr></thead><tbody>{rows}</tbody></table>"
            if self.sites else "<p>No graph breaks.</p>"
        )
        totals = "".join(
            f"<tr><td>{html.escape(name)}</td><td>{html.escape(value)}</td></tr>"
            for name, value in [("device", self.run.device), *picture_rows(self.run)]
        )
        hint = "<p><code>report.fix()</code> applies the safe fixes to these files.</p>" if any(s.diff for s in self.sites) else ""
        if self.skipped_frames:
            hint += f"<p>{html.escape(SKIPPED_FRAME_NOTE)}</p>"
        title = f"graph breaks ({html.escape(self.run.device)}, torch {html.escape(self.run.torch_version)})"
        return (
            f"<div class='graphweld-report'><h4>{title}</h4>{breaks}"
            f"<table class='graphweld-totals'><tbody>{totals}</tbody></table>{hint}</div>"
        )


def _diff_html(diff: str) -> str:
    colours = {"+": "#1a7f37", "-": "#cf222e", "@": "#0969da"}
    lines = []
    for line in diff.splitlines():
        colour = None if line.startswith(("+++", "---")) else colours.get(line[:1])
        escaped = html.escape(line)
        lines.append(f"<span style='color:{colour}'>{escaped}</span>" if colour else escaped)
    return "<pre>" + "\n".join(lines) + "</pre>"


def _short(path: str) -> str:
    """A path as a person reads it: relative to the current directory, or to site-packages for an
    installed package (`transformers/models/bart/modeling_bart.py`)."""
    for root in _site_roots():
        if path.startswith(root + os.sep):
            return path[len(root) + 1 :]
    return short_path(path)


def _site_roots() -> set[str]:
    paths = sysconfig.get_paths()
    return {os.path.realpath(paths[key]) for key in ("purelib", "platlib")}


def _installed(path: str) -> bool:
    return any(path.startswith(root + os.sep) for root in _site_roots())


# -- running the model --------------------------------------------------------------------------


def explain(model: Any, *args: Any, train: bool = False, **kwargs: Any) -> ExplainReport:
    """Compile `model` (an `nn.Module` or a function) in this process, call it once with `args`
    and `kwargs`, and explain every graph break.

    A model the user compiled already (`torch.compile(model)`, `model.compile()`, a function
    decorated with `torch.compile`) is measured as it is; anything else is compiled with
    `torch.compile` defaults. Dynamo's caches are reset first, so every frame is traced again (and
    compiled code the process holds for other models is compiled again on its next call). The
    model runs as you left it (train or eval mode, grad enabled or not). With `train=True` the
    call is a training step: the model in train mode with grad enabled, the loss the sum of the
    output's floating-point tensors, and backward (the report adds the backward graphs); the
    model's mode and its parameters' gradients are as they were afterwards. Settings come from the
    `[tool.graphweld]` nearest the current directory.
    """
    import torch

    run = _compiled_call(torch, model, args, kwargs, train)
    settings = load_settings(find_config_file(Path(".")))
    explained = explain_sites(run, settings)
    return ExplainReport(run, _sites(explained), explained, settings)


def _compiled_call(torch: Any, model: Any, args: tuple, kwargs: dict, train: bool = False) -> RunReport:
    import torch._dynamo
    from torch._dynamo.utils import counters

    from graphweld.runs.entry import failure_site
    from graphweld.runs.compile_options import stance
    from graphweld.runs.dynamo_log import parse_break, parse_recompile, skipped_frames
    from graphweld.runs.failures import CompiledRunFailed
    from graphweld.runs.graph_count import GraphCounter
    from graphweld.runs.program import compiled_backward_graphs, default_loss

    compiled_already = _compiles_itself(torch, model)
    callable_ = model if compiled_already else torch.compile(model)
    torch._dynamo.reset()
    counters.clear()
    backward_graphs = None
    failed: dict[str, Any] = {}
    with _dynamo_log(torch) as log, GraphCounter() as graphs:
        try:
            if train:
                with _training_step(torch, model), torch.enable_grad():
                    loss = default_loss(callable_(*args, **kwargs))
                    backward_graphs = compiled_backward_graphs(loss)
                    loss.backward()
            else:
                callable_(*args, **kwargs)
        except Exception as exc:
            # The compiled call raised: a result (the first site) when the model runs eagerly;
            # when it does not, the eager call's own exception is the user's to see.
            with stance("force_eager"):
                callable_(*args, **kwargs)
            failed = CompiledRunFailed(exc, "entry" if compiled_already else "graphweld").fields()
    breaks = [parsed for parsed in map(parse_break, log.breaks) if parsed is not None]
    recompiles = [parsed for parsed in map(parse_recompile, log.recompiles) if parsed is not None]
    device = _device_of(torch, model, args, kwargs)
    return RunReport(
        device=device,
        torch_version=torch.__version__,
        outputs={},
        graphs=len(graphs.ops_per_graph),
        ops=sum(graphs.ops_per_graph),
        # A frame whose compile raised is not one Dynamo skipped: the failure is the picture.
        skipped_frames=0 if failed else skipped_frames({"total": 0, "ok": 0, **counters["frames"]}, breaks),
        compiled_by="entry" if compiled_already else "graphweld",
        breaks=[break_site(parsed) for parsed in breaks],
        recompiles=[Recompile(r["function"], r["file"], r["line"], r["reason"]) for r in recompiles],
        train=train,
        backward_graphs=backward_graphs,
        compile_error=failed.get("compile_error"),
        compile_failure=failure_site(failed),
    )


@contextlib.contextmanager
def _training_step(torch: Any, model: Any) -> Iterator[None]:
    """The model in train mode for one step; its mode and its parameters' gradients restored."""
    if not isinstance(model, torch.nn.Module):
        yield
        return
    was_training = model.training
    gradients = [(parameter, parameter.grad) for parameter in model.parameters()]
    model.train()
    try:
        yield
    finally:
        model.train(was_training)
        for parameter, gradient in gradients:
            parameter.grad = gradient


def _compiles_itself(torch: Any, model: Any) -> bool:
    from torch._dynamo.eval_frame import OptimizedModule

    if isinstance(model, OptimizedModule) or hasattr(model, "_torchdynamo_orig_callable"):
        return True
    return isinstance(model, torch.nn.Module) and getattr(model, "_compiled_call_impl", None) is not None


def _device_of(torch: Any, model: Any, args: tuple, kwargs: dict) -> str:
    for value in (*args, *kwargs.values()):
        if isinstance(value, torch.Tensor):
            return str(value.device)
    if isinstance(model, torch.nn.Module):
        for parameter in model.parameters():
            return str(parameter.device)
    return "cpu"


@contextlib.contextmanager
def _dynamo_log(torch: Any) -> Iterator[Any]:
    """Dynamo's graph-break and recompile records while the block runs; the process's logging
    set-up (torch's log settings, and those loggers' handlers, level and propagation) restored
    after."""
    import logging

    import torch._logging._internal as log_internal

    from graphweld.runs.dynamo_log import collect_dynamo_log, dynamo_loggers

    saved_state = copy.deepcopy(log_internal._get_log_state())
    saved_loggers = {name: (list(lg.handlers), lg.propagate, lg.level) for name, lg in dynamo_loggers().items()}
    collector = collect_dynamo_log(torch)
    try:
        yield collector
    finally:
        log_internal._set_log_state(saved_state)
        log_internal._init_logs()
        for name, logger in dynamo_loggers().items():
            handlers, propagate, level = saved_loggers.get(name, ([], True, logging.NOTSET))
            logger.handlers[:] = handlers
            logger.propagate = propagate
            logger.setLevel(level)


def _sites(explained: list[ExplainedSite]) -> list[Site]:
    """Each explained site as the report shows it, with its change's diff."""
    sites = []
    for item, site in zip(explained, explained_sites(explained, shorten=_short)):
        # A site in code typed into a cell has no file to fix: the notebook holds the code.
        action = item.action if os.path.isfile(site.file) else INTERACTIVE_CODE
        diff = _diff(item.path or site.file, item.text, item.change) if item.change is not None and item.text is not None else ""
        sites.append(dataclasses.replace(site, action=action, diff=diff))
    return sites


def _diff(path: str, text: str, change: Change) -> str:
    return unified_diff(_short(path), text, apply_edits(text, list(change.edits)))
