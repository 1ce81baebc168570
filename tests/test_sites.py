"""Break sites read from Dynamo's graph-break log, and placed in the user's code."""

from __future__ import annotations

import inspect
import os

import torch
import transformers

from graphweld.runs.entry import BreakSite, RunReport, evidence_of
from graphweld.runs.library_files import is_library_file
from graphweld.runs.dynamo_log import parse_break, parse_recompile, skipped_frames

LOG = """Graph break in user code at /usr/lib/python3.11/inspect.py:1751
Graph Break Reason: Encountered graph break when attempting to trace CALL: a function call, e.g. f(x, y):

Attempted to call function marked as skipped
  Explanation: Dynamo does not know how to trace the builtin `sys._getframe.`
  Hint: If it is a Python builtin, please file an issue on GitHub.

 For more details about this graph break, please visit: https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0007.html

User code traceback:
  File "/work/run.py", line 5, in <module>
    torch.compile(Model())(x)
  File "/work/entry.py", line 8, in forward
    z = scale(y)
        ^^^^^^^^
  File "/work/helpers.py", line 6, in scale
    frame = inspect.currentframe()
  File "/usr/lib/python3.11/inspect.py", line 1751, in currentframe
    return sys._getframe(1) if hasattr(sys, "_getframe") else None
"""


def test_the_log_gives_the_site_its_gb_id_and_the_stack():
    parsed = parse_break(LOG)
    assert parsed is not None
    assert (parsed["line"], parsed["gb"], parsed["reason"]) == (1751, "GB0007", "Attempted to call function marked as skipped")
    frames = [(os.path.basename(file), line, function) for file, line, function in parsed["stack"]]
    assert frames == [("run.py", 5, "<module>"), ("entry.py", 8, "forward"), ("helpers.py", 6, "scale"), ("inspect.py", 1751, "currentframe")]


def test_a_site_in_library_code_moves_to_the_innermost_wanted_caller():
    stack = (("/work/run.py", 5, "<module>"), ("/work/entry.py", 8, "forward"), ("/work/helpers.py", 6, "scale"))
    site = BreakSite("/usr/lib/python3.11/inspect.py", 1751, "GB0007", "skipped", "", False, stack=stack)
    moved = site.in_code(lambda file: file.startswith("/work/") and file != "/work/run.py")
    assert moved is not None and (moved.file, moved.line, moved.via) == ("/work/helpers.py", 6, "/usr/lib/python3.11/inspect.py:1751")
    # scale() was called by the user's forward: a helper.
    assert moved.caller == "/work/entry.py" and moved.called_by_user_code
    entry = site.in_code(lambda file: file == "/work/entry.py")
    assert (entry.line, entry.caller) == (8, "/work/run.py")
    assert site.in_code(lambda file: False) is None
    unmoved = site.in_code(lambda file: True)
    assert (unmoved.file, unmoved.line, unmoved.via, unmoved.caller) == (site.file, 1751, "", "/work/helpers.py")


def test_the_function_torch_compile_was_given_is_not_a_helper():
    # forward, called from torch's module machinery (and graphweld's runner), is the compiled frame.
    torch_file = os.path.realpath(torch.nn.modules.module.__file__)
    stack = (("/work/run.py", 5, "<module>"), (torch_file, 1789, "_call_impl"), ("/work/entry.py", 8, "forward"))
    site = BreakSite("/work/entry.py", 8, "GB0025", "graph_break", "", False, stack=stack)
    placed = site.in_code(lambda file: file == "/work/entry.py")
    assert placed.caller == torch_file and not placed.called_by_user_code


def test_library_files_are_the_standard_library_and_torch_not_other_packages():
    assert is_library_file(os.path.realpath(inspect.__file__))
    assert is_library_file(os.path.realpath(torch.nn.functional.__file__))
    assert not is_library_file(os.path.realpath(transformers.__file__))
    assert not is_library_file(os.path.realpath(__file__))


UNRESUMABLE = """Graph break: torch.compile cannot properly resume from this graph break, which results in a skip.
torch.compile will skip tracing the frame forward (/work/entry.py line 10) and fall back to eager.
The graph break occurred in the following user code:
  File "/work/entry.py", line 12, in forward
    h = step(h)
Graph Break Reason: Call to `torch._dynamo.graph_break()`
  Explanation: User-inserted graph break. Message: None

 For more details about this graph break, please visit: https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0025.html"""

REST_SKIPPED = """Graph break in user code at /work/timer.py:11
Graph Break Reason: Encountered graph break that we cannot resume from. Compiling up to the previous resumable state, then skipping the rest of the function. Graph break encountered:

Attempted to call function marked as skipped
  Explanation: Dynamo does not know how to trace the builtin `time.perf_counter.`
"""

RECOMPILE = """Recompiling function forward in /work/entry.py:14
    triggered by the following guard failure(s):
    - 0/0: self._modules['block'].calls == 1  # if self.calls > 0:  # entry.py:16 in forward"""


def test_a_break_logged_by_convert_frame_is_read_from_its_user_stack():
    """The record convert_frame writes for a break it cannot resume from names no site in its
    first line: the site is the innermost frame of its user code, and the whole frame is skipped."""
    parsed = parse_break(UNRESUMABLE)
    assert parsed is not None
    assert (parsed["file"], parsed["line"], parsed["gb"], parsed["skipped"]) == ("/work/entry.py", 12, "GB0025", "frame")
    assert parsed["reason"] == "Call to `torch._dynamo.graph_break()`"


def test_skipped_frames_count_what_dynamo_skipped_the_rest_of():
    """A break Dynamo cannot resume from inside a `with` compiles what came before and skips the
    rest: its frame counters call that frame compiled; the picture counts it as skipped."""
    rest = parse_break(REST_SKIPPED)
    assert rest is not None and (rest["skipped"], rest["skipped_frame"]) == ("rest", True)
    assert skipped_frames({"total": 2, "ok": 2}, [rest]) == 1
    whole = parse_break(LOG.replace("Graph Break Reason: Encountered", "Graph Break Reason: Failed to handle graph break gracefully. Skipping the function and falling back to eager. Encountered"))
    assert whole is not None and whole["skipped"] == "frame"
    # Frames the counters saw fail are counted once, logged or not.
    assert skipped_frames({"total": 3, "ok": 1}, [whole]) == 2
    assert skipped_frames({"total": 3, "ok": 2}, [whole, rest]) == 2
    assert BreakSite("/w/t.py", 11, "GB0007", "", "", True, skipped="rest").kind == "skipped rest of frame"


def test_a_recompile_record_gives_the_function_and_the_guard_that_failed():
    assert parse_recompile(RECOMPILE) == {
        "function": "forward", "file": "/work/entry.py", "line": 14,
        "reason": "0/0: self._modules['block'].calls == 1  # if self.calls > 0:  # entry.py:16 in forward",
    }
    assert parse_recompile("Graph break in user code at x.py:1") is None


def test_a_break_logged_again_without_its_stack_keeps_the_stack_that_places_it_in_user_code():
    # Dynamo prints a break's user stack once, then "user stack suppressed due to duplicate graph
    # break"; CTRL's buffer assignment breaks inside torch's `register_buffer`, and only the stack
    # places it at the model's own line.
    stack = (("/site/model.py", 319, "forward"), ("/torch/nn/modules/module.py", 587, "register_buffer"))
    first = BreakSite("/torch/nn/modules/module.py", 587, "GB4841", "Unsupported python_type() call", "", False, stack=stack)
    again = BreakSite("/torch/nn/modules/module.py", 587, "GB4841", "Unsupported python_type() call", "", True)
    report = RunReport("cpu", torch.__version__, {}, breaks=[first, again])
    (site,) = report.sites
    assert site.count == 2 and site.skipped_frame
    moved = site.in_code(lambda file: file.startswith("/site/"))
    assert moved is not None and (moved.file, moved.line) == ("/site/model.py", 319)


def test_a_files_sites_say_where_dynamo_met_a_call_it_cannot_trace():
    # torchsde's `_randn`: the generator (GB0363) and its seeding (GB0007) are calls Dynamo cannot
    # trace at all, which eager-helper takes as its evidence; a data-dependent branch is not one.
    sites = [
        BreakSite("/w/brownian.py", 31, "GB0363", "An opaque object was created", "", False),
        BreakSite("/w/brownian.py", 32, "GB0007", "Attempted to call function marked as skipped", "", False),
        BreakSite("/w/brownian.py", 470, "GB0170", "Data-dependent branching", "", False),
    ]
    found = evidence_of(sites)
    assert found.untraceable_lines == frozenset({31, 32})
    assert found.data_dependent_lines == frozenset({470})


def test_a_call_dynamo_raised_an_error_of_its_own_tracing_is_one_it_cannot_trace():
    # PyKEEN's RotatE: the compiled run raises InternalTorchDynamoError at the call into the
    # interaction, which eager-helper runs eagerly; the program's own error at a line is not one.
    raised = "the compiled run raises InternalTorchDynamoError: RuntimeError: Tensor must have a last dimension of size 2"
    sites = [
        BreakSite("/w/nbase.py", 496, "", raised, "", False, fails=True),
        BreakSite("/w/train.py", 12, "", "the compiled run raises ValueError: loss is nan", "", False, fails=True),
    ]
    assert evidence_of(sites).untraceable_lines == frozenset({496})
