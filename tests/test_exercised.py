"""Verified means exercised (issue 35): each kept rewrite says what the eager reference run
exercised of the code it replaced, `GetInputs()` gives several inputs, and a rewrite of code the
entry never reached is not written without `--unexercised-fixes`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from graphweld.runs.exercised import exercised

BRANCH = """\
def f(h):
    if h > 0:
        h = h * 2
    else:
        h = h - 1
    return h
"""


def test_a_branch_says_which_sides_ran():
    assert exercised(2, BRANCH, {2: 3, 3: 3}).said == "verified on the true side only: the false side never ran"
    assert exercised(2, BRANCH, {2: 3, 5: 3}).said == "verified on the false side only: the true side never ran"
    assert exercised(2, BRANCH, {2: 2, 3: 1, 5: 1}).said == "verified on both sides (true once, false once)"
    unreached = exercised(2, BRANCH, {})
    assert not unreached.ran and unreached.said == "not exercised: the entry never reached this code"


def test_a_guard_says_whether_it_fired_and_a_loop_how_often_it_ran():
    guard = "def f(x):\n    if x.sum() < 0:\n        raise ValueError('negative')\n    return x\n"
    assert exercised(2, guard, {2: 4}).said == "the guard was checked 4 times and never fired"
    loop = "def f(x):\n    while x.sum() > 1:\n        x = x / 2\n    return x\n"
    assert exercised(2, loop, {2: 4, 3: 3}).said == "the loop ran 3 iteration(s) in all"
    assertion = "def f(x):\n    assert x.sum() > 0, 'x'\n    return x\n"
    assert exercised(2, assertion, {2: 2}).said == "the assertion was checked 2 times and always held"


def test_code_run_only_while_compiling_counts_as_exercised_where_dynamo_broke_in_it(tmp_path: Path):
    # transformers' `torch_compilable_check` checks with `torch._check_tensor_all` only `if
    # is_tracing():`: the eager reference never runs those lines, the compiled run breaks in them.
    check = (
        "def check(cond):\n"
        "    if is_tracing():\n"
        "        if isinstance(cond, torch.Tensor):\n"
        "            torch._check_tensor_all(cond)\n"
        "        return\n"
        "    assert cond\n"
    )
    eager_hits = {2: 3, 6: 3}
    assert not exercised(3, check, eager_hits).ran
    traced = exercised(3, check, eager_hits, traced=frozenset({4}))
    assert traced.ran and traced.said == "run only under compilation: never in the eager run, and Dynamo broke the graph in it"
    # A change at a definition (a decorator) is exercised when its body runs.
    helper = "def helper(x):\n    y = x * 2\n    return y\n"
    assert exercised(1, helper, {2: 3, 3: 3}).said == "ran 3 times"
    assert not exercised(1, helper, {1: 1}).ran
    # A break elsewhere in the file says nothing of this statement.
    assert not exercised(3, check, eager_hits, traced=frozenset({6})).ran
    # The verdict reads the lines from the run's break sites and their stacks.
    from graphweld.runs.entry import BreakSite, RunReport
    from graphweld.runs.exercised import exercised_in

    path = tmp_path / "checks.py"
    path.write_text(check)
    site = BreakSite(str(path), 4, "GB0124", "item", "", False, stack=((str(tmp_path / "model.py"), 9, "forward"), (str(path), 4, "check")))
    report = RunReport(device="cpu", torch_version="2.13", outputs={}, breaks=[site], coverage={os.path.realpath(path): eager_hits})
    assert exercised_in(str(path), 3, check, check, report).ran


MODEL = """\
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.verbose = False

    def forward(self, x):
        h = self.proj(x)
        if h.sum() > 0:
            h = h * 2
        else:
            h = h - 1
        print("norm", h.norm())
        if self.verbose:
            print("details", h.mean())
        return h
"""

ENTRY = """\
import torch
from model import Net


def my_model_function():
    return Net()


{inputs}
"""
ONE_SIDE = "def GetInput():\n    return torch.ones(2, 4)\n"
BOTH_SIDES = "def GetInputs():\n    return [torch.ones(2, 4) * 10, torch.ones(2, 4) * -10]\n"


def fix_entry(folder: Path, inputs: str, *options: str) -> dict:
    (folder / "model.py").write_text(MODEL)
    (folder / "entry.py").write_text(ENTRY.format(inputs=inputs))
    env = {**os.environ, "NO_COLOR": "1"}
    shown = subprocess.run(
        [sys.executable, "-m", "graphweld", "fix", "--entry", "entry.py", "--compile-options", "backend=eager",
         "--unsafe-fixes", "--diff", "--format", "json", *options, "model.py"],
        cwd=folder, env=env, capture_output=True, text=True, timeout=600,
    )
    assert shown.returncode in (0, 1), shown.stderr
    return json.loads(shown.stdout)


def exercised_of(data: dict, rule: str, line: int) -> str:
    return next(e["exercised"] for e in data["effects"] if e["rule"] == rule and e["line"] == line)


@pytest.mark.slow
def test_one_input_verifies_one_side_and_getinputs_both(tmp_path: Path):
    one = fix_entry(tmp_path, ONE_SIDE)
    said = exercised_of(one, "branch-to-where", 13)
    assert said.startswith("verified on the ") and "side only" in said
    both = fix_entry(tmp_path, BOTH_SIDES)
    assert exercised_of(both, "branch-to-where", 13).startswith("verified on both sides")


@pytest.mark.slow
def test_a_rewrite_of_code_never_reached_is_not_written_without_the_option(tmp_path: Path):
    data = fix_entry(tmp_path, ONE_SIDE)
    dropped = {(t["line"], t["rule"]): t["why"] for t in data["tried"] if not t["kept"]}
    assert dropped[(19, "isolate-io")].startswith("not exercised: the entry never reached this code")
    assert exercised_of(data, "isolate-io", 17) == "ran 3 times"
    opted = fix_entry(tmp_path, ONE_SIDE, "--unexercised-fixes")
    assert (19, "isolate-io") not in {(t["line"], t["rule"]) for t in opted["tried"] if not t["kept"]}


def test_a_decorated_helper_with_a_docstring_is_exercised_when_called(tmp_path: Path):
    # A change at a `def` (nonstrict-helper's decorator) is judged by the body's first line; a
    # docstring is not executed, so no run ever counts its line (ptwt's `_as_wavelet` was
    # dropped as "never reached" though every call ran it).
    from graphweld.runs.coverage import LineCoverage

    helper = tmp_path / "helper.py"
    helper.write_text('def as_name(value):\n    """The name of value."""\n    if isinstance(value, str):\n        return value\n    return str(value)\n')
    namespace: dict = {}
    exec(compile(helper.read_text(), str(helper), "exec"), namespace)
    coverage = LineCoverage([os.path.realpath(helper)])
    with coverage.recording():
        namespace["as_name"]("haar")
        namespace["as_name"](3)
    hits = coverage.hits[os.path.realpath(helper)]
    assert 2 not in hits
    verdict = exercised(1, helper.read_text(), hits)
    assert verdict.ran and verdict.said == "verified on both sides (true once, false once)"
    only_docstring = 'def f():\n    """Nothing."""\n'
    assert not exercised(1, only_docstring, {}).ran
