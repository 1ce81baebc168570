"""`graphweld.explain(model, *args)` on a live model, in this process (as in a notebook)."""

from __future__ import annotations

import importlib
import logging
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

import graphweld  # noqa: E402
from graphweld.frontends.api import INTERACTIVE_CODE, ExplainReport  # noqa: E402

MODEL = '''import contextlib

import torch
from torch import nn


class Recorder(contextlib.ContextDecorator):
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 4)

    def forward(self, x):
        h = self.linear(x)
        with Recorder():
            h = h.relu()
            torch._dynamo.graph_break()
            h = h * 2
        for scale in (0.5, 2.0):
            h = h * scale
            torch._dynamo.graph_break()
        return h
'''


@pytest.fixture
def model_module(tmp_path: Path, monkeypatch):
    (tmp_path / "tiny_api_model.py").write_text(MODEL)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    sys.modules.pop("tiny_api_model", None)
    module = importlib.import_module("tiny_api_model")
    yield module
    sys.modules.pop("tiny_api_model", None)


def test_explain_reports_sites_rules_and_diffs(model_module):
    torch.manual_seed(0)
    report = graphweld.explain(model_module.Tiny(), torch.ones(2, 4))
    assert isinstance(report, ExplainReport)
    # The `with` break skips the whole frame: nothing compiled, and the loop's break is hidden.
    assert (report.graphs, report.skipped_frames, report.graph_breaks) == (0, 1, 1)
    (site,) = report.sites
    assert (site.location, site.gb, site.rule, site.action) == ("tiny_api_model.py:24", "GB0025", "hoist-with", "fix")
    assert "-            torch._dynamo.graph_break()\n+        torch._dynamo.graph_break()\n+        with Recorder():" in site.diff
    text = str(report)
    assert "tiny_api_model.py:24" in text and "hoist-with: fix" in text and "skipped frames" in text
    assert "A skipped frame hides the breaks" in text
    page = report._repr_html_()
    assert "<table class='graphweld-sites'>" in page and "<td>GB0025</td>" in page
    assert "<summary>diff</summary>" in page and "+        with Recorder():" in page
    # The process's logging is as it was: no graphweld handler left on Dynamo's loggers.
    for name in logging.Logger.manager.loggerDict:
        if name.endswith("__graph_breaks"):
            assert not any(type(h).__name__ == "_BreakCollector" for h in logging.getLogger(name).handlers)


@pytest.mark.slow
def test_fix_writes_the_safe_changes_and_the_fixed_model_compiles_better(model_module, tmp_path: Path):
    torch.manual_seed(0)
    model = model_module.Tiny()
    x = torch.randn(2, 4)
    expected = model(x)
    report = graphweld.explain(model, x)
    result = report.fix()
    assert list(result.written) == [str(tmp_path / "tiny_api_model.py")]
    assert "Restart the kernel" in result.message
    fixed = (tmp_path / "tiny_api_model.py").read_text()
    # Exactly what the report showed: the `with` split (its diff), not the loop its skipped frame hid.
    assert fixed.count("with Recorder():") == 2 and "_loop_body" not in fixed
    (site,) = report.sites
    assert all(line[1:] in fixed for line in site.diff.splitlines() if line.startswith("+") and not line.startswith("+++"))
    # As after a kernel restart: the module loaded anew, the same weights.
    fixed_module = importlib.reload(model_module)
    fixed_model = fixed_module.Tiny()
    fixed_model.load_state_dict(model.state_dict())
    after = graphweld.explain(fixed_model, x)
    # The break in the loop is shown now, with its fix; a second fix() writes it.
    assert after.graphs > report.graphs and "unroll-loop" in {site.rule for site in after.sites}
    after.fix()
    assert "_loop_body(0.5)" in (tmp_path / "tiny_api_model.py").read_text()
    fixed_module = importlib.reload(model_module)
    fixed_model = fixed_module.Tiny()
    fixed_model.load_state_dict(model.state_dict())
    last = graphweld.explain(fixed_model, x)
    assert last.skipped_frames == 0 and last.graphs >= 3
    assert {site.gb for site in last.sites} == {"GB0025"}  # the explicit graph_break() calls remain
    assert torch.allclose(torch.compile(fixed_model, backend="eager")(x), expected)


def test_a_model_compiled_already_is_measured_as_it_is(model_module):
    compiled = torch.compile(model_module.Tiny(), backend="eager")
    report = graphweld.explain(compiled, torch.ones(2, 4))
    assert report.run.compiled_by == "entry"
    totals = report.totals()
    assert totals["compiled_by"] == "entry"
    # Numbers are numbers (issue 24): the same picture `explain --format json` gives.
    assert (totals["graphs"], totals["graph_breaks"], totals["skipped_frames"], totals["recompiles"]) == (0, 1, 1, 0)
    assert totals["fullgraph"] is None


def test_in_an_ipython_shell_the_report_renders_as_html(tmp_path: Path, monkeypatch):
    from IPython.core.interactiveshell import InteractiveShell

    monkeypatch.chdir(tmp_path)
    shell = InteractiveShell.instance()
    try:
        cell = shell.run_cell(
            "import torch, graphweld\n"
            "class Net(torch.nn.Module):\n"
            "    def forward(self, x):\n"
            "        y = x * 2\n"
            "        torch._dynamo.graph_break()\n"
            "        return y + 1\n"
            "report = graphweld.explain(Net(), torch.ones(3))\n"
            "report\n"
        )
        assert cell.success, cell.error_in_exec
        data, _ = shell.display_formatter.format(shell.user_ns["report"])
        assert "<table class='graphweld-sites'>" in data["text/html"]
        assert "graph break" in data["text/plain"]
        (site,) = shell.user_ns["report"].sites
        assert site.action == INTERACTIVE_CODE  # code typed into a cell is fixed through the notebook
        assert shell.user_ns["report"].fix().written == {}
    finally:
        # Dynamo put names in the shell's namespace with hooks that delete them when its code is
        # collected, after the namespace is gone here (noise at exit): the namespace goes anyway.
        torch._dynamo.reset()
        torch._dynamo.utils.CleanupManager.instance.clear()
        InteractiveShell.clear_instance()


FAILING = '''import numpy as np
import torch
from torch import nn


class Scale(nn.Module):
    def forward(self, x):
        peak = np.from_dlpack(x).max()
        return x / float(peak)


class Broken(nn.Module):
    def forward(self, x):
        return x @ torch.ones(3, 3)
'''


def test_a_model_whose_compiled_call_raises_is_reported_not_raised(tmp_path: Path, monkeypatch):
    (tmp_path / "failing_api_model.py").write_text(FAILING)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    sys.modules.pop("failing_api_model", None)
    module = importlib.import_module("failing_api_model")
    report = graphweld.explain(module.Scale(), torch.rand(4, 8) + 1)
    assert report.totals()["compile_error"].startswith("TorchRuntimeError")
    (site,) = report.sites
    assert (site.location, site.type) == ("failing_api_model.py:8", "compile fails")
    assert "the compiled call fails" in repr(report)
    # A model that fails eagerly too raises its own error.
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        graphweld.explain(module.Broken(), torch.ones(2, 2))
    sys.modules.pop("failing_api_model", None)
