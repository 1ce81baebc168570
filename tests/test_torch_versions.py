"""The torch users have (issue 34): a rewrite is the same text whichever torch graphweld runs
under, and runs on every torch the pyproject admits; the admitted floor is a torch CI tests."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
import torch

from graphweld.analysis import torch_api
from graphweld.engine import fix_text
from test_golden import CASES, run_lines_for, settings_for

ROOT = Path(__file__).parents[1]


def test_the_installed_torch_is_read_without_importing_it():
    major, minor = (int(part) for part in torch.__version__.split(".")[:2])
    assert torch_api.installed_torch() == (major, minor)


@pytest.mark.parametrize("pretended", [(2, 13), (2, 14), None])
def test_every_golden_rewrite_is_the_same_text_whichever_torch_is_installed(monkeypatch, pretended):
    import graphweld.engine as engine

    monkeypatch.setattr(engine, "installed_torch", lambda: pretended)
    for case in CASES:
        expected = case.with_name(case.name.replace(".in.py", ".out.py"))
        source = case.read_text()
        assert fix_text(source, str(case), settings_for(case, source), **run_lines_for(source)).text == (expected.read_text() if expected.exists() else source), case


def test_rewrites_name_only_apis_every_admitted_torch_has():
    # torch.compiler.nonstrict_trace appeared in 2.14, and Dynamo 2.14 skips it at a call site.
    written = "".join(path.read_text() for path in (ROOT / "tests" / "golden").glob("*/*.out.py"))
    assert "torch._dynamo.nonstrict_trace" in written
    assert "torch.compiler.nonstrict_trace" not in written


def test_the_admitted_floor_is_a_torch_ci_runs_the_tests_on():
    pyproject = (ROOT / "pyproject.toml").read_text()
    floors = set(re.findall(r'"torch>=(\d+\.\d+)"', pyproject))
    ci = (ROOT / ".ci" / "run").read_text()
    tested = set(re.findall(r"torch==(\d+\.\d+)", ci))
    assert floors and floors <= tested, (floors, tested)
    assert {"2.13", "2.14"} <= tested
    readme = (ROOT / "README.md").read_text()
    assert "torch 2.13 and 2.14" in readme


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX paths")
def test_the_torch_2_14_test_list_names_files_that_exist():
    for line in (ROOT / ".ci" / "torch-2.14-tests").read_text().split():
        assert (ROOT / line).is_file(), line


# torch 2.15's record of an nn.LSTM's break: the call is delayed (GB0148), the original break
# (GB0014, with its allow_rnn hint) only in the explanation's reason.
DELAYED_LSTM = """Graph break in user code at /work/lstm_entry.py:14
Graph Break Reason: Encountered graph break when attempting to trace CALL: a function call, e.g. f(x, y):

Unsupported function call (delayed)
  Explanation: Dynamo determined that a graph break should occur when calling `L['self']._modules['lstm']`. Reason: Dynamo does not support RNN, GRU, or LSTM. Set torch._dynamo.config.allow_rnn=True to enable experimental support for RNN, GRU, and LSTM in Dynamo


  Developer debug context: source: DictGetItemSource(base=AttrSource(base=UnspecializedNNModuleSource(base=LocalSource(local_name='self', is_input=True, dynamism=None, is_derefed_cell_contents=False)), member='_modules'), index='lstm')

 For more details about this graph break, please visit: https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0148.html
"""


def test_a_delayed_break_is_the_original_break_with_its_hint():
    from graphweld.runs.runner import parse_break

    site = parse_break(DELAYED_LSTM)
    assert site is not None
    assert (site["gb"], site["reason"], site["settings"]) == ("GB0014", "Attempted to wrap RNN, GRU, or LSTM", ["allow_rnn"])
    assert site["all_gb"] == ["GB0014", "GB0148"]
    assert site["explanation"].startswith("Dynamo does not support RNN, GRU, or LSTM.")
