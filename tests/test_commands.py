"""Real programs as the entry (issue 27): a project whose model lives in model.py, whose train.py
compiles it in a two-step training loop, and whose tests check it. Commands run as written, with
graphweld's instrumentation in their processes; --test must pass before anything is written; the
pytest plugin reports the breaks a test suite hits."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_entry import invoke

pytestmark = pytest.mark.slow

PYTHON = sys.executable

MODEL = '''import torch
import torch.nn as nn


def report(h):
    print("norm", h.norm())


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(8, 8)
        self.head = nn.Linear(8, 1)

    def forward(self, x):
        h = self.linear(x)
        for scale in (0.5, 2.0):
            h = h * scale
            print("scaled by", scale)
        report(h)
        return self.head(h.relu())
'''

TRAIN = '''import argparse

import torch

from model import Net


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=2)
    args = parser.parse_args()
    torch.manual_seed(0)
    model = Net()
    compiled = torch.compile(model, backend="eager")
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(4, 8), torch.randn(4, 1)
    for step in range(args.steps):
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(compiled(x), y)
        loss.backward()
        optimizer.step()
        print(f"step {step}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
'''

TESTS = '''import torch

from model import Net


def test_shape():
    torch.manual_seed(0)
    assert torch.compile(Net(), backend="eager")(torch.randn(3, 8)).shape == (3, 1)


def test_the_compiled_model_reports_its_norm(capsys):
    torch.manual_seed(0)
    torch.compile(Net(), backend="eager")(torch.randn(3, 8))
    assert "norm" in capsys.readouterr().out
'''


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "train.py").write_text(TRAIN)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_model.py").write_text(TESTS)
    # The tests import model.py from the project's root, as pytest's rootdir conftest would.
    (tmp_path / "tests" / "conftest.py").write_text("import sys\nimport pathlib\n\nsys.path.insert(0, str(pathlib.Path(__file__).parents[1]))\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_explain_a_command_lists_the_breaks_in_the_module_it_imports(project: Path):
    result = invoke("explain", "--format", "json", "--", PYTHON, "train.py", "--steps", "2")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["compiled_by"] == "command" and data["fullgraph"] is None
    sites = {(Path(site["file"]).name, site["line"]): site for site in data["sites"]}
    assert sites[("model.py", 19)]["gb"] == "GB0059" and sites[("model.py", 19)]["rule"] == "isolate-io"
    # Each site links to its page of PyTorch's graph-break registry.
    assert sites[("model.py", 19)]["registry"] == "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0059.html"
    assert ("model.py", 6) in sites  # the print in the helper the forward calls
    # Per id, whether graphweld fixes it, and with which rules.
    by_gb = {entry["gb"]: entry for entry in data["by_gb"]}
    assert by_gb["GB0059"]["fix"] == "fix" and "isolate-io" in by_gb["GB0059"]["rules"]
    assert by_gb["GB0059"]["breaks"] >= 2 and by_gb["GB0059"]["registry"].endswith("gb0059.html")
    # A script given as the entry runs as a command.
    script = invoke("explain", "--format", "json", "train.py")
    assert script.exit_code == 0, script.output
    assert json.loads(script.stdout)["break_sites"] == data["break_sites"]


def test_fix_with_a_command_keeps_what_the_run_and_the_tests_accept(project: Path):
    original = (project / "model.py").read_text()
    result = invoke(
        "fix", "--unsafe-fixes", "--format", "json", "--test", f"{PYTHON} -m pytest -q -p no:cacheprovider tests",
        "--", PYTHON, "train.py", "--steps", "2",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    model = str(Path("model.py"))
    assert data["kept"][f"./{model}"] == ["isolate-io"], data["tried"]
    # Guarding the helper's print (unsafe) silences it in compiled runs: the test that reads it fails.
    (guard,) = [item for item in data["tried"] if not item["kept"]]
    assert (guard["rule"], guard["form"]) == ("isolate-io", "guard") and "the tests fail" in guard["why"]
    # Why, as pytest's summary names it (not a warning printed on the way).
    assert "FAILED tests/test_model.py::test_the_compiled_model_reports_its_norm" in guard["why"]
    assert data["before"]["skipped_frames"] == 1 and data["after"]["skipped_frames"] == 0
    fixed = (project / "model.py").read_text()
    assert fixed != original and '_deferred_print("scaled by", scale)' in fixed and 'print("norm", h.norm())' in fixed
    # The tests pass on what was written.
    assert subprocess.run([PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], capture_output=True).returncode == 0


def test_the_pytest_plugin_reports_breaks_per_test_and_can_fail_the_session(project: Path):
    run = [PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]
    reported = subprocess.run([*run, "--graphweld"], capture_output=True, text=True)
    assert reported.returncode == 0, reported.stdout
    out = reported.stdout
    assert "graphweld: graph breaks" in out and "tests/test_model.py::test_shape" in out
    assert "model.py:19 GB0059 skipped frame" in out and "-> isolate-io: fix" in out
    failing = subprocess.run([*run, "--graphweld-fail-on-breaks"], capture_output=True, text=True)
    assert failing.returncode == 1 and "Failing the session: --graphweld-fail-on-breaks." in failing.stdout
    (project / "model.py").write_text(
        "import torch.nn as nn\n\n\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.head = nn.Linear(8, 1)\n\n    def forward(self, x):\n        return self.head(x)\n"
    )
    clean = subprocess.run([*run, "--graphweld-fail-on-breaks", "-k", "shape"], capture_output=True, text=True)
    assert clean.returncode == 0 and "No test hit a graph break." in clean.stdout


def test_a_failing_program_says_why_in_one_line():
    from graphweld.runs.command import _error_line

    warning = ["/site-packages/pytest_asyncio/plugin.py:306: PytestDeprecationWarning: The configuration option", "  warnings.warn(x)"]
    traceback = ["Traceback (most recent call last):", '  File "train.py", line 3, in <module>', "RuntimeError: mat1 and mat2 shapes"]
    summary = ["..F", "FAILED tests/test_model.py::test_norm - AssertionError: assert 'norm' in ''", "1 failed, 1 passed in 2.26s"]
    assert _error_line(warning + traceback, [], 1) == "RuntimeError: mat1 and mat2 shapes"
    assert _error_line(warning, summary, 1) == "FAILED tests/test_model.py::test_norm - AssertionError: assert 'norm' in ''"
    assert _error_line([], ["== 1 error in 0.1s =="], 2) == "1 error in 0.1s"
    assert _error_line([], [], 3) == "it exited with code 3"


@pytest.mark.slow
def test_a_script_that_compiles_its_own_code_is_verified_from_its_rewrite(tmp_path: Path, monkeypatch):
    """`fix -- python script.py` where script.py holds the compiled code: Python reads the script
    itself, past the import overlay, so the run is started on the rewritten text
    (`graphweld.runs.overlaid_script`); the print's split is verified and written."""
    script = tmp_path / "script.py"
    script.write_text(
        "import torch\n\n\n@torch.compile(fullgraph=True)\ndef fn(x):\n    y = x * 2\n    print(\"doubled\", y.shape)\n"
        "    return y + 1\n\n\nif __name__ == \"__main__\":\n    print(fn(torch.ones(3)))\n"
    )
    monkeypatch.chdir(tmp_path)
    result = invoke("fix", "script.py", "--", PYTHON, "script.py")
    assert result.exit_code == 0, result.output
    assert "verified" in result.output and "graph breaks 1 -> 0" in result.output
    assert "_fn_part1" in script.read_text()
