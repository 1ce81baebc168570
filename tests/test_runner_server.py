"""Runs forked from the server that has torch imported (`runner_server`) report what a fresh
interpreter reports; a run the server cannot make is made fresh; a run past its time is stopped
and the server serves the next."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
import torch

from graphweld.runs import runner_server
from graphweld.runs.entry import EntryError, run_entry

pytestmark = [pytest.mark.slow, pytest.mark.dynamo]

LOOP_ENTRY = '''
import torch


class Net(torch.nn.Module):
    def forward(self, x):
        x = torch.sin(x) + 1
        print("halfway")
        return torch.cos(x) * 2


def my_model_function():
    return Net()


def GetInput():
    return torch.linspace(-1.0, 1.0, 8)
'''


@pytest.fixture
def entry(tmp_path: Path) -> Path:
    path = tmp_path / "loop_entry.py"
    path.write_text(LOOP_ENTRY)
    yield path
    runner_server.forget_server()


def _summary(report) -> tuple:
    return (
        report.graphs, report.skipped_frames, report.fullgraph,
        [(site.line, site.gb) for site in report.breaks], report.eager_stdout, report.compiled_stdout,
    )


@pytest.mark.parametrize("backend", ["eager", "inductor"])
def test_a_forked_run_reports_what_a_fresh_interpreter_reports(entry: Path, monkeypatch, backend: str):
    options = {"backend": backend}
    served = run_entry(str(entry), compile_options=options)
    server = runner_server._server
    assert server is not None and server.process.poll() is None  # the run was the server's
    # A server started for an inductor run has imported inductor's compiler as well.
    assert ("--inductor" in server.process.args) == (backend == "inductor")
    again = run_entry(str(entry), compile_options=options)
    assert runner_server._server is server  # the next run reuses it
    monkeypatch.setenv("GRAPHWELD_FRESH_RUNS", "1")
    fresh = run_entry(str(entry), compile_options=options)
    assert served.graphs == 2 and len(served.breaks) == 1  # a break at the print
    assert _summary(served) == _summary(again) == _summary(fresh)
    for mode in ("eager", "compiled"):
        assert torch.equal(served.outputs[mode], fresh.outputs[mode])


def test_a_run_that_rewrites_a_module_the_server_imported_is_made_fresh(entry: Path):
    # torch._dynamo.exc is imported by the server, and by a fresh runner only after its overlay
    # is in place: only a fresh interpreter sees the rewritten text.
    import torch._dynamo.exc as dynamo_exc

    entry.write_text(LOOP_ENTRY.replace("return torch.linspace(-1.0, 1.0, 8)", (
        "import torch._dynamo.exc\n    return torch.linspace(-1.0, 1.0, 8) * torch._dynamo.exc.GRAPHWELD_OVERLAID"
    )))
    source = Path(dynamo_exc.__file__)
    overlay = {str(source): source.read_text() + "\nGRAPHWELD_OVERLAID = 2.0\n"}
    report = run_entry(str(entry), compile_options={"backend": "eager"}, overlay=overlay)
    expected = torch.cos(torch.sin(torch.linspace(-1.0, 1.0, 8) * 2.0) + 1) * 2
    assert torch.equal(report.outputs["eager"], expected) and torch.equal(report.outputs["compiled"], expected)


def _children(pid: int) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                stat = Path(f"/proc/{name}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(name))
    return found


def test_a_run_past_its_time_is_stopped_and_the_server_serves_the_next(entry: Path):
    run_entry(str(entry), compile_options={"backend": "eager"})  # the server is started and warm
    server = runner_server._server
    assert server is not None
    sleeping = entry.with_name("sleeping_entry.py")
    sleeping.write_text(LOOP_ENTRY.replace("def GetInput():\n", "def GetInput():\n    import time\n    time.sleep(120)\n"))
    started = time.monotonic()
    with pytest.raises(EntryError, match="took longer than 3 s and was stopped"):
        run_entry(str(sleeping), modes=("eager",), timeout=3)
    assert time.monotonic() - started < 60
    assert runner_server._server is server and server.process.poll() is None
    assert _children(server.process.pid) == []  # the stopped run is gone, not left running
    assert run_entry(str(entry), modes=("eager",)).outputs["eager"].shape == (8,)


def test_a_server_that_cannot_serve_with_inductor_imported_serves_without_it(entry: Path, monkeypatch):
    # As where inductor's import loads a GPU driver: that server says it is not ready.
    real = runner_server.RunnerServer

    def start(executable, environment, start_timeout, inductor=False):
        if inductor:
            raise runner_server.ServerUnavailable("a GPU driver is loaded: a forked run could not use the device")
        return real(executable, environment, start_timeout, inductor)

    monkeypatch.setattr(runner_server, "RunnerServer", start)
    report = run_entry(str(entry), compile_options={})  # inductor, torch.compile's default
    server = runner_server._server
    assert server is not None and "--inductor" not in server.process.args
    assert report.graphs == 2 and len(report.breaks) == 1


def test_without_fork_or_when_told_runs_are_made_fresh(monkeypatch):
    monkeypatch.setenv("GRAPHWELD_FRESH_RUNS", "1")
    assert runner_server.server_for(60) is None


def test_a_folder_that_would_shadow_a_module_the_server_imported_needs_a_fresh_interpreter(tmp_path: Path):
    from graphweld.runs.runner_server import _shadows_an_import

    (tmp_path / "model.py").write_text("")
    (tmp_path / "json").mkdir()  # no __init__.py: the real json still wins
    assert not _shadows_an_import(str(tmp_path))
    (tmp_path / "json" / "__init__.py").write_text("")
    assert _shadows_an_import(str(tmp_path))
    (tmp_path / "json" / "__init__.py").unlink()
    (tmp_path / "logging.py").write_text("")
    assert _shadows_an_import(str(tmp_path))
