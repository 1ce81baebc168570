"""The judgement of a rewrite, on synthetic run reports: outputs first, then the compile picture
in order (skipped frames, fullgraph=True, graph breaks, recompiles, graphs); ops are not judged,
except that a helper run eagerly must not take the model with it."""

from __future__ import annotations

import torch

from graphweld.runs.entry import BreakSite, Recompile, RunFailed, RunReport
from graphweld.runs.verify import compare_pictures, failed, judge, verdict_line

OUTPUT = torch.arange(3.0)


def report(*, graphs: int, breaks: int, skipped: int = 0, fullgraph: bool | None = False, ops: int = 10,
           output: torch.Tensor = OUTPUT, stdout: str = "", recompiles: int = 0, later: torch.Tensor = OUTPUT) -> RunReport:
    site = BreakSite(file="m.py", line=1, gb="GB0000", reason="r", hint="", skipped_frame=False)
    recompile = Recompile("forward", "m.py", 3, "0/0: self.calls == 1")
    outputs = {"eager": OUTPUT, "compiled": output, "eager_calls": [OUTPUT, OUTPUT], "compiled_calls": [output, later]}
    return RunReport(
        device="cpu", torch_version=torch.__version__, outputs=outputs,
        eager_stdout="", compiled_stdout=stdout, graphs=graphs, ops=ops, skipped_frames=skipped,
        fullgraph=fullgraph, breaks=[site] * breaks, compiled_by="entry", recompiles=[recompile] * recompiles,
    )


def test_fewer_breaks_is_progress_even_with_fewer_ops():
    verdict = judge(report(graphs=3, breaks=2, ops=6), report(graphs=1, breaks=0, ops=1, fullgraph=True))
    assert verdict.ok
    assert verdict.progress == "fullgraph=True fails -> compiles"
    fewer = judge(report(graphs=3, breaks=2, ops=6), report(graphs=2, breaks=1, ops=2))
    assert fewer.ok and fewer.progress == "graph breaks 2 -> 1"


def test_skipped_frames_up_is_not_progress_even_with_breaks_equal():
    verdict = judge(report(graphs=2, breaks=1), report(graphs=1, breaks=1, skipped=1))
    assert not verdict.ok
    assert verdict.problems == ["skipped frames went up: 0 -> 1"]


def test_the_first_measure_that_changed_decides():
    # A skipped frame gone shows the breaks it hid: still progress.
    unrolled = judge(report(graphs=0, breaks=1, skipped=1), report(graphs=3, breaks=2))
    assert unrolled.ok and unrolled.progress == "skipped frames 1 -> 0"
    # fullgraph=True stops compiling: worse, whatever the breaks did.
    lost = judge(report(graphs=1, breaks=0, fullgraph=True), report(graphs=1, breaks=0, fullgraph=False))
    assert lost.problems == ["fullgraph=True compiled before and fails after"]
    # Same breaks, more graphs: worse.
    assert judge(report(graphs=2, breaks=1), report(graphs=3, breaks=1)).problems == ["graphs went up: 2 -> 3"]
    # Unchanged: verified, no progress claimed.
    same = judge(report(graphs=2, breaks=1), report(graphs=2, breaks=1, ops=3))
    assert same.ok and same.progress == ""


def test_fullgraph_not_checked_on_one_side_is_skipped_in_the_order():
    direction, measure = compare_pictures(report(graphs=2, breaks=1, fullgraph=None), report(graphs=1, breaks=0))
    assert direction == -1 and measure is not None and measure.name == "graph breaks"


def test_outputs_and_printed_text_are_required_first():
    wrong = judge(report(graphs=3, breaks=2), report(graphs=1, breaks=0, output=OUTPUT + 1))
    assert not wrong.ok and wrong.problems[0].startswith("outputs differ from the eager original")
    printed = judge(report(graphs=3, breaks=2), report(graphs=1, breaks=0, stdout="hello\n"))
    assert printed.problems == ["printed output differs from the eager original"]
    assert judge(report(graphs=3, breaks=2), report(graphs=1, breaks=0, stdout="hello\n"), check_shown=False).ok


def test_a_run_that_fails_is_a_verdict_not_an_error():
    verdict = failed(RunFailed("entry.py", "TypeError: sequence item 1: expected str instance, int found"))
    assert verdict.problems == ["the compiled run fails with TypeError: sequence item 1: expected str instance, int found"]


def test_verdict_line_names_what_decided():
    before, after = report(graphs=3, breaks=2), report(graphs=1, breaks=0, fullgraph=True)
    line = verdict_line(before, after, judge(before, after))
    assert line.startswith("verified: outputs equal, printed output the same, better (fullgraph=True fails -> compiles)")
    assert "graph breaks 2 -> 0" in line and "graphs 3 -> 1" in line


def test_a_dropped_log_record_or_warning_fails_a_safe_fix():
    before = report(graphs=2, breaks=1)
    before.eager_log_records = [["model", "INFO", "temperature 0.5"]]
    before.eager_warnings = [["FutureWarning", "deprecated"]]
    after = report(graphs=1, breaks=0, fullgraph=True)
    after.compiled_log_records, after.compiled_warnings = [], [["FutureWarning", "deprecated"]]
    assert judge(before, after).problems == ["log records differ from the eager original"]
    after.compiled_log_records, after.compiled_warnings = [["model", "INFO", "temperature 0.5"]], []
    assert judge(before, after).problems == ["warnings differ from the eager original"]
    assert judge(before, after, check_shown=False).ok


def test_what_the_compiled_original_already_showed_is_not_the_rewrites_doing():
    # torchcrepe compiled warns where eager does not (torch's copy-construct warning, on a tensor
    # Dynamo made of SciPy's NumPy noise): a rewrite that warns just as the compiled original did
    # changes nothing the user sees; one that warns anew does, and one back to eager's is fine.
    copy_warning = ["UserWarning", "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone()"]
    before = report(graphs=17, breaks=21)
    before.eager_warnings, before.compiled_warnings = [], [copy_warning] * 2
    after = report(graphs=12, breaks=13)
    after.compiled_warnings = [copy_warning] * 2
    assert judge(before, after).ok
    after.compiled_warnings = [copy_warning] * 2 + [["FutureWarning", "deprecated"]]
    assert judge(before, after).problems == ["warnings differ from the eager original"]
    after.compiled_warnings = []
    assert judge(before, after).ok


def test_recompiles_are_judged_after_breaks_and_before_graphs():
    # The breaks as they were, and every later call recompiles: worse.
    assert judge(report(graphs=2, breaks=1), report(graphs=2, breaks=1, recompiles=2)).problems == [
        "recompiles went up: 0 -> 2"
    ]
    # Breaks removed do not outweigh a recompile added at a later call: the rewrite is dropped,
    # and the reason says what it would have bought.
    recompiling = judge(report(graphs=2, breaks=1), report(graphs=1, breaks=0, recompiles=1))
    assert recompiling.problems == [
        "recompiles went up: 0 -> 1 (graph breaks 1 -> 0, graphs 2 -> 1 do not outweigh a recompile at later calls)"
    ]
    # A skipped frame gone, or fullgraph=True now compiling, still decides first.
    unskipped = judge(report(graphs=0, breaks=1, skipped=1), report(graphs=1, breaks=0, recompiles=1))
    assert unskipped.ok and unskipped.progress == "skipped frames 1 -> 0"
    whole = judge(report(graphs=2, breaks=1), report(graphs=1, breaks=0, recompiles=1, fullgraph=True))
    assert whole.ok and whole.progress == "fullgraph=True fails -> compiles"
    # Fewer recompiles with the breaks as they were is not progress: the graphs decide.
    fewer = judge(report(graphs=2, breaks=1, recompiles=2), report(graphs=3, breaks=1))
    assert fewer.problems == ["graphs went up: 2 -> 3"]
    same = judge(report(graphs=2, breaks=1, recompiles=2), report(graphs=2, breaks=1))
    assert same.ok and not same.better


def test_every_call_is_compared_with_the_same_eager_call():
    wrong_later = judge(report(graphs=2, breaks=1), report(graphs=1, breaks=0, later=OUTPUT * 2))
    assert not wrong_later.ok
    assert wrong_later.problems[0].startswith("outputs differ from the eager original at call 2: output")


def test_a_round_is_judged_against_the_run_it_started_from():
    """`fix --entry`'s later rounds: the outputs against the eager reference, the picture against
    the last round's run; the same picture is verified but not better."""
    original, last_round = report(graphs=3, breaks=2), report(graphs=2, breaks=1)
    same = judge(original, report(graphs=2, breaks=1), previous=last_round)
    assert same.ok and not same.better
    assert judge(original, report(graphs=1, breaks=0), previous=last_round).progress == "graph breaks 1 -> 0"


def test_a_compiled_original_that_raised_is_judged_without_asking_numpys_stream():
    # No compiled outputs to differ by: the entry target runs nothing more to explain them.
    import dataclasses

    from graphweld.runs.targets import EntryTarget

    failed = dataclasses.replace(report(graphs=0, breaks=0), compile_error="InternalTorchDynamoError: boom", outputs={"eager": OUTPUT, "eager_calls": [OUTPUT, OUTPUT]})
    after = report(graphs=1, breaks=1, output=OUTPUT + 1)
    target = EntryTarget("never_run.py")
    verdict = target.judge(failed, after, check_shown=False, previous=failed)
    assert not verdict.ok and not verdict.numpy_stream
    assert verdict.problems[0].startswith("outputs differ from the eager original at output")


def test_the_graphs_count_the_models_parameters_they_take():
    from torch import nn

    from graphweld.runs.graph_count import GraphCounter

    model = nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 2))
    torch._dynamo.reset()
    with GraphCounter() as graphs:
        torch.compile(model, backend="eager")(torch.randn(2, 3))
    assert len(graphs.parameters) == 4

    # The second layer run eagerly: its two parameters leave the graphs.
    class Split(nn.Module):
        def __init__(self):
            super().__init__()
            self.first, self.second = nn.Linear(3, 3), nn.Linear(3, 2)

        def forward(self, x):
            return torch.compiler.disable(self.second)(self.first(x).relu())

    torch._dynamo.reset()
    with GraphCounter() as graphs:
        torch.compile(Split(), backend="eager")(torch.randn(2, 3))
    assert len(graphs.parameters) == 2


def test_a_helper_run_eagerly_that_takes_the_model_with_it_is_not_progress():
    from graphweld.engine import Change
    from graphweld.runs.eager_helper_policy import compiled_work_moved_out

    def pick(rule):  # type: ignore[no-untyped-def]
        change = Change.__new__(Change)
        object.__setattr__(change, "rule", rule)
        return change

    # torchdiffeq's odeint disabled whole: 37 breaks -> 1, graphs 39 -> 0.
    assert compiled_work_moved_out(report(graphs=39, breaks=37), report(graphs=0, breaks=1), [pick("eager-helper")]) == (
        "nothing is compiled any more: graphs 39 -> 0"
    )
    # A program that compiled nothing before (its compile failed) is judged as always.
    assert compiled_work_moved_out(report(graphs=0, breaks=1), report(graphs=0, breaks=0), [pick("eager-helper")]) == ""
    assert judge(report(graphs=0, breaks=1), report(graphs=0, breaks=0)).ok
    previous, after = report(graphs=15, breaks=14), report(graphs=1, breaks=4)
    previous.parameters_in_graphs, after.parameters_in_graphs = 4, 0
    assert compiled_work_moved_out(previous, after, [pick("eager-helper")]) == (
        "part of the model would run eagerly: parameters in graphs 4 -> 0"
    )
    assert compiled_work_moved_out(previous, after, [pick("branch-to-where")]) == ""
    after.parameters_in_graphs = 2  # a layer's weight and bias
    assert compiled_work_moved_out(previous, after, [pick("eager-helper")]) != ""
    after.parameters_in_graphs = 3  # one parameter read by the helper (SpecAugment's embedding)
    assert compiled_work_moved_out(previous, after, [pick("eager-helper")]) == ""
    previous.ops, after.ops = 103, 27  # torchcde's odeint: the vector field's work leaves
    assert compiled_work_moved_out(previous, after, [pick("eager-helper")]) == (
        "most of the compiled work would run eagerly: ops in graphs 103 -> 27"
    )
    previous.ops, after.ops = 5, 2  # a program of five ops: a helper's share, not judged
    assert compiled_work_moved_out(previous, after, [pick("eager-helper")]) == ""


def test_fullgraph_compiling_only_by_its_implicit_capture_is_no_gain():
    """torch.compile's default still breaks at an `.item()` that fullgraph=True captures because it
    turns capture_scalar_outputs on by itself: for the user's compile that is no success."""
    import dataclasses

    before = report(graphs=2, breaks=1, fullgraph=False)
    implicit = dataclasses.replace(report(graphs=2, breaks=1, fullgraph=True), fullgraph_implicit=("capture_scalar_outputs",))
    verdict = judge(before, implicit)
    assert verdict.ok and not verdict.better
    assert implicit.fullgraph_state == "compiles only with capture_scalar_outputs, which fullgraph=True turns on"
    # Once the default compile is whole too, fullgraph=True compiling is a gain.
    assert judge(implicit, report(graphs=1, breaks=0, fullgraph=True)).progress.startswith(
        "fullgraph=True compiles only with capture_scalar_outputs, which fullgraph=True turns on -> compiles"
    )


def test_a_gain_seen_only_with_the_programs_fullgraph_relaxed_is_not_counted():
    """The program's own fullgraph=True fails before and after: fewer breaks in the measurement
    with it relaxed leave the compile the user runs failing as it did."""
    import dataclasses

    before = dataclasses.replace(report(graphs=3, breaks=2), fullgraph_relaxed=True)
    still = dataclasses.replace(report(graphs=2, breaks=1), fullgraph_relaxed=True)
    verdict = judge(before, still)
    assert verdict.ok and not verdict.better
    assert verdict.not_counted == (
        "graph breaks 2 -> 1 only with the program's own fullgraph=True relaxed; as written it still fails to compile"
    )
    compiles = judge(before, report(graphs=1, breaks=0, fullgraph=True))
    assert compiles.better and compiles.progress == "fullgraph=True fails -> compiles"
