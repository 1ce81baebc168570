"""The entry runner: one run of an entry, inside a subprocess (`python -m graphweld.runs.runner
REQUEST RESULT`, or a child forked by `runner_server`).

It loads an entry (seed 000's convention: `my_model_function()` returns the model or function,
`GetInput()` its input), serves rewritten sources through an import overlay, runs the model
eagerly and/or compiled, collects every graph break from Dynamo's graph-break logs (file, line,
GB id, reason; `torch._dynamo.explain` misses breaks in loops) and every recompilation from its
recompile log, checks `fullgraph=True`, and writes a JSON result plus the outputs (torch.save).

The program is measured as its own code compiles it: every graph Dynamo hands to a backend is
counted, whoever called `torch.compile`. Only when running what the factory returns compiles
nothing by itself (seed 000's harness compiles a plain model) does the runner compile it. The
eager reference runs with every `torch.compile` in the program turned off
(`torch.compiler.set_stance("force_eager")`).

The program is called more than once, eagerly and compiled alike: with the entry's input, with it
again, and with a second input of the same shapes when `GetInput()` makes one under another seed.
Graphs, ops, breaks and skipped frames are those of the first call; recompilations are counted
over all of them (a rewrite that makes every call recompile is worse, not better).

A program that compiles itself with `fullgraph=True` and fails is measured twice: as written (the
failure, with its site, is what `fullgraph=True` reports), and in a second process with its
`fullgraph=True` requests relaxed to `fullgraph=False`, which finds every break (the request
`relax_fullgraph`).

Only the runner's process imports torch; graphweld's rewriting never does. Its parts: the
overlay (`overlay`), Dynamo's log (`dynamo_log`), the program and its calls (`program`), what it
shows (`program_output`), graph counting (`graph_count`), the program's own compiles
(`program_compiles`), compile options (`compile_options`), failures (`failures`) and coverage
(`coverage`).
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import traceback
from typing import Any

from graphweld.runs.compile_options import FULLGRAPH_CAPTURES, apply_dynamo_settings, draw_as_eager, resume_settings_off, stance
from graphweld.runs.coverage import LineCoverage
from graphweld.runs.dynamo_log import collect_dynamo_log, parse_break, parse_recompile, skipped_frames
from graphweld.runs.failures import CompiledRunFailed, FullgraphFailed, described, error_site, first_line
from graphweld.runs.graph_count import GraphCounter
from graphweld.runs.overlay import OverlayFinder, load_entry
from graphweld.runs.program import Program, calls
from graphweld.runs.program_compiles import ProgramCompiles
from graphweld.runs.program_output import OutputRecorder


def _compiled_run(program: Program, request: dict[str, Any], programs: ProgramCompiles) -> tuple[dict[str, Any], list[Any]]:
    """Run the entry compiled: as its own code compiles it, or compiled by the runner when that
    compiles nothing. Returns the report's fields and each call's record."""
    import torch
    import torch._dynamo
    from torch._dynamo.utils import counters

    options = dict(request.get("compile_options", {}))
    # --compile-options backend=... replaces the backend of the program's own torch.compile calls.
    forced_backend = options.pop("backend", None)
    mode = options.pop("mode", None)
    log = collect_dynamo_log(torch)
    first_call: dict[str, Any] = {}

    def attempt(compile_it: bool) -> tuple[list[Any], OutputRecorder]:
        torch._dynamo.reset()
        counters.clear()
        log.clear()
        graphs.clear()
        program.backward_graphs.clear()
        model = program.fresh_model()
        inputs = program.inputs()
        if compile_it:
            extra = {"mode": mode} if mode else {}
            model = torch.compile(model, backend=forced_backend or "inductor", **extra, **options)

        def after_first() -> bool:
            # The picture is the first call's; later calls show whether the program recompiles.
            first_call.update(
                frames=dict(counters["frames"]), breaks=list(log.breaks), ops_per_graph=list(graphs.ops_per_graph),
                parameters=len(graphs.parameters), backward_graphs=sum(program.backward_graphs),
            )
            return compile_it or compiled_anything()

        shown = OutputRecorder()
        with shown.recording(), stance("default", None if compile_it else forced_backend):
            records = calls(program, model, inputs, after_first)
        return records, shown

    def compiled_anything() -> bool:
        # The program compiled something of its own, and it ran: a frame counted or a graph made
        # (a fullgraph=True compile makes graphs without counting its frames).
        return programs.made_any and (first_call["frames"].get("total", 0) > 0 or bool(first_call["ops_per_graph"]))

    with GraphCounter() as graphs:
        try:
            records, shown = attempt(compile_it=False)
        except Exception as exc:
            if programs.fullgraph_requested and not programs.relax:
                raise FullgraphFailed(described(exc)) from exc
            raise CompiledRunFailed(exc, "entry") from exc
        compiled_by = "entry"
        if not compiled_anything():
            try:
                records, shown = attempt(compile_it=True)
            except Exception as exc:
                raise CompiledRunFailed(exc, "graphweld") from exc
            compiled_by = "graphweld"
    breaks = [parsed for parsed in map(parse_break, first_call["breaks"]) if parsed is not None]
    recompiles = [parsed for parsed in map(parse_recompile, log.recompiles) if parsed is not None]
    frames = {"total": 0, "ok": 0, **first_call["frames"]}
    fields: dict[str, Any] = dict(
        compiled_by=compiled_by,
        # Options for the torch.compile the runner makes: unused when the program compiles itself.
        unused_compile_options=sorted(set(request.get("compile_options", {})) - {"backend"}) if compiled_by == "entry" else [],
        **shown.fields("compiled"),
        graphs=len(first_call["ops_per_graph"]),
        ops=sum(first_call["ops_per_graph"]),
        parameters_in_graphs=first_call["parameters"],
        frames_total=frames["total"],
        frames_ok=frames["ok"],
        skipped_frames=skipped_frames(frames, breaks),
        breaks=breaks,
        recompiles=recompiles,
        train=program.train,
        backward_graphs=first_call["backward_graphs"] if program.train else None,
    )
    if programs.relax:
        fields["fullgraph_relaxed"] = True
    elif request.get("check_fullgraph", True):
        fields.update(_fullgraph(program, compiled_by, options.get("dynamic"), programs.fullgraph_requested))
        if fields["fullgraph"] and (breaks or fields["skipped_frames"]) and not (programs.fullgraph_requested or options.get("fullgraph")):
            # torch.compile's default broke where fullgraph=True compiled: only with what Dynamo
            # turns on for a fullgraph compile by itself, which the user's compile does not have.
            off = [name for name in FULLGRAPH_CAPTURES if not getattr(torch._dynamo.config, name)]
            hinted = [name for name in off if any(name in site["settings"] for site in breaks)]
            fields["fullgraph_implicit"] = hinted or off
    return fields, records


def _fullgraph(program: Program, compiled_by: str, dynamic: Any, requested: bool) -> dict[str, Any]:
    """Whether every compiled frame compiles to one graph: `fullgraph=True` on the model the runner
    compiles, or `torch._dynamo.error_on_graph_break(True)` around the program's own compiles (as
    they are: with what their own `fullgraph=True`, when `requested`, captures)."""
    import torch
    import torch._dynamo

    torch._dynamo.reset()
    model, value = program.fresh_model(), program.inputs()[0]
    try:
        with program.grad_mode(), contextlib.redirect_stdout(io.StringIO()):
            if compiled_by == "graphweld":
                program.call(torch.compile(model, backend="eager", fullgraph=True, dynamic=dynamic), value)
            else:
                error_on_graph_break = getattr(torch._dynamo, "error_on_graph_break", None)
                if error_on_graph_break is None:  # torch < 2.9: cannot be asked of the program's compiles
                    return {"fullgraph": None}
                # The forced backend recompiles each frame without the program's fullgraph=True,
                # so what that request captures is switched on here as it would be.
                captures = torch._dynamo.config.patch(**dict.fromkeys(FULLGRAPH_CAPTURES, True)) if requested else contextlib.nullcontext()
                with error_on_graph_break(True), captures, stance("default", "eager"):
                    program.call(model, value)
        return {"fullgraph": True}
    except Exception as exc:  # any failure means fullgraph=True does not hold
        return {"fullgraph": False, "fullgraph_error": described(exc)}


def run(request: dict[str, Any]) -> dict[str, Any]:
    import torch

    device_name = request.get("device", "auto")
    if device_name == "auto":
        device_name = "cuda" if torch.cuda.is_available() else "cpu"
    device = torch.device(device_name)
    result: dict[str, Any] = {"device": str(device), "torch": torch.__version__}
    overlay = OverlayFinder(request.get("overlay", {}))
    sys.meta_path.insert(0, overlay)
    torch.use_deterministic_algorithms(True, warn_only=True)
    # Dynamo settings among the compile options apply to every compile of the run, the program's
    # own included; the rest are torch.compile arguments.
    request = {**request, "compile_options": apply_dynamo_settings(torch, dict(request.get("compile_options", {})))}
    draw_as_eager()
    if request.get("numpy_random_stream"):
        # Dynamo draws `np.random` from torch's generator unless told otherwise: a run whose
        # outputs are compared with eager's draws NumPy's (each draw then breaks the graph).
        torch._dynamo.config.use_numpy_random_stream = True
    programs = ProgramCompiles(relax=bool(request.get("relax_fullgraph")), backend_forced="backend" in request["compile_options"])
    programs.install()
    module = load_entry(request["entry"], overlay)
    factory = request.get("factory") or "my_model_function"
    if not callable(getattr(module, factory, None)):
        raise RuntimeError(f"the entry defines no `{factory}()`")
    if not callable(getattr(module, "GetInput", None)) and not callable(getattr(module, "GetInputs", None)):
        raise RuntimeError("the entry defines no `GetInput()` (or `GetInputs()`)")
    program = Program(module, factory, device, train=bool(request.get("train")))
    outputs: dict[str, Any] = {}

    if "eager" in request["modes"]:
        covered = LineCoverage(request.get("coverage_files") or ())
        # Building the model and its inputs is covered too: a rewrite in `__init__` ran there.
        with covered.recording():
            model = program.fresh_model()
            inputs = program.inputs()
        shown = OutputRecorder()
        # Every torch.compile the program makes is turned off: the reference is the plain program.
        with shown.recording(), stance("force_eager"), covered.recording():
            outputs["eager_calls"] = calls(program, model, inputs)
        result.update(shown.fields("eager"))
        result["coverage"] = covered.as_json()

    if "compiled" in request["modes"]:
        try:
            fields, outputs["compiled_calls"] = _compiled_run(program, request, programs)
        except FullgraphFailed as failure:
            # Measured again in a fresh process with the program's fullgraph=True relaxed.
            result.update(fullgraph=False, fullgraph_error=str(failure), fullgraph_failed=True, compiled_by="entry")
        except CompiledRunFailed as failure:
            # The program ran eagerly (the reference) and its compiled run raised: that is the
            # run's first break site, not an error of the run.
            result.update(failure.fields())
        else:
            result.update(fields)
    # Read after the program ran: a setting its own code turns on (one graphweld wrote) is on.
    result["resume_settings"] = resume_settings_off(torch)
    torch.save(outputs, request["outputs_path"])
    return result


def main() -> None:
    request_path, result_path = sys.argv[1], sys.argv[2]
    with open(request_path, encoding="utf-8") as handle:
        request = json.load(handle)
    try:
        result = run(request)
        result["ok"] = True
    except BaseException as exc:  # reported to the parent as one line, with the traceback kept
        error = first_line(exc)
        if "does not require grad" in error and not request.get("train"):
            error += " (entries run in eval mode under torch.no_grad(); --train runs a training step)"
        result = {
            "ok": False,
            "error": error,
            "error_site": error_site(exc),
            "traceback": traceback.format_exc(),
        }
    with open(result_path, "w", encoding="utf-8") as handle:
        json.dump(result, handle)


if __name__ == "__main__":
    main()
