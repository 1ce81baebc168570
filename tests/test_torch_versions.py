"""The torch users have (issues 34 and 65): a rewrite is the same text whichever torch graphweld
runs under, and runs on every torch the pyproject admits (one written under torch 2.13 runs under
2.15, and the other way round); the admitted floor and the current release are what CI tests."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from graphweld.analysis import torch_api
from graphweld.engine import fix_text
from test_golden import CASES, run_evidence_for, settings_for

# Depends on what Dynamo does: run again on the current torch release by CI (docs/development.md).
pytestmark = pytest.mark.dynamo

ROOT = Path(__file__).parents[1]


def test_the_installed_torch_is_read_without_importing_it():
    major, minor = (int(part) for part in torch.__version__.split(".")[:2])
    assert torch_api.installed_torch() == (major, minor)


@pytest.mark.parametrize("pretended", [(2, 13), (2, 14), None])
def test_every_golden_rewrite_is_the_same_text_whichever_torch_is_installed(monkeypatch, pretended):
    import graphweld.proposing as proposing

    monkeypatch.setattr(proposing, "installed_torch", lambda: pretended)
    for case in CASES:
        expected = case.with_name(case.name.replace(".in.py", ".out.py"))
        source = case.read_text()
        assert fix_text(source, str(case), settings_for(case, source), run_evidence_for(source)).text == (expected.read_text() if expected.exists() else source), case


def test_rewrites_name_only_apis_every_admitted_torch_has():
    # torch.compiler.nonstrict_trace appeared in 2.14, and Dynamo 2.14 skips it at a call site
    # (2.15 traces both spellings): the rewrites write the one every admitted torch traces.
    written = "".join(path.read_text() for path in (ROOT / "tests" / "golden").glob("*/*.out.py"))
    assert "torch._dynamo.nonstrict_trace" in written
    assert "torch.compiler.nonstrict_trace" not in written


def test_the_admitted_floor_and_the_tested_releases_are_what_ci_runs():
    pyproject = (ROOT / "pyproject.toml").read_text()
    floors = set(re.findall(r'"torch>=(\d+\.\d+)"', pyproject))
    ci = (ROOT / ".ci" / "run").read_text() + (ROOT / ".ci" / "torch-2.15-constraints.txt").read_text()
    tested = set(re.findall(r"torch==(\d+\.\d+)", ci))
    said = {f"{major}.{minor}" for major, minor in torch_api.TESTED_TORCH}
    assert floors and floors <= tested and said == tested, (floors, tested, said)
    # The second leg selects by the marker, not by a list of files.
    assert "-m dynamo" in ci and not (ROOT / ".ci" / "torch-2.14-tests").exists()
    readme = (ROOT / "README.md").read_text()
    assert torch_api.tested_torch_said() in readme


def test_version_names_the_torch_installed_and_the_tested_releases():
    from click.testing import CliRunner

    from graphweld.frontends.cli import main

    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0
    assert f"torch {torch.__version__}" in result.output and "tested on torch 2.13 and 2.15" in result.output


@pytest.mark.parametrize("version, said", [("2.99.0", "newer"), ("2.9.1", "older"), ("2.15.0", None), ("2.14.1", None)])
def test_a_torch_outside_the_tested_releases_is_said_once(capsys, version: str, said: str | None):
    from graphweld.frontends.cli import _note_unused_options
    from graphweld.runs.entry import RunReport

    _note_unused_options(RunReport(device="cpu", torch_version=version, outputs={}))
    err = " ".join(capsys.readouterr().err.split())
    if said is None:
        assert err == ""
    else:
        assert err.count("note:") == 1
        assert f"this run uses torch {version}, {said} than any graphweld is tested on (torch 2.13 and 2.15)" in err
        assert "every rewrite is still verified on this torch" in err


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
    from graphweld.runs.dynamo_log import parse_break

    site = parse_break(DELAYED_LSTM)
    assert site is not None
    assert (site["gb"], site["reason"], site["settings"]) == ("GB0014", "Attempted to wrap RNN, GRU, or LSTM", ["allow_rnn"])
    assert site["all_gb"] == ["GB0014", "GB0148"]
    assert site["explanation"].startswith("Dynamo does not support RNN, GRU, or LSTM.")


# The other torch CI tests on: an interpreter with graphweld installed beside it (CI's second leg
# names the first leg's torch 2.13 environment); unset, the test below is skipped.
OTHER_TORCH_PYTHON = os.environ.get("GRAPHWELD_OTHER_TORCH_PYTHON", "")
# Entries whose fixes write what differs most between releases: nonstrict_trace (nonstrict-helper),
# reorderable logging (isolate-io's deferral) and a custom op with a fake kernel (dlpack-custom-op).
CROSS_VERSION_ENTRIES = ("frame_helper_entry.py", "deferred_io_entry.py", "numpy_dlpack_entry.py")


def _fix_and_verify_elsewhere(entry: Path, fixer: list[str], verifier: list[str]) -> None:
    """`fix --entry` by one interpreter, then `verify` of the original against the file it wrote
    by the other: the rewrite runs there, with outputs equal to eager and a better compile."""
    original = entry.with_name(entry.stem + "_original.py")
    shutil.copy(entry, original)
    fixed = subprocess.run([*fixer, "-m", "graphweld", "fix", "--entry", str(entry), str(entry)], capture_output=True, text=True)
    assert fixed.returncode == 0, fixed.stderr
    assert entry.read_text() != original.read_text(), fixed.stderr
    verified = subprocess.run([*verifier, "-m", "graphweld", "verify", str(original), str(entry)], capture_output=True, text=True)
    assert verified.returncode == 0 and "better" in verified.stdout, verified.stdout + verified.stderr


@pytest.mark.slow
@pytest.mark.skipif(not OTHER_TORCH_PYTHON, reason="GRAPHWELD_OTHER_TORCH_PYTHON names no interpreter with the other torch")
@pytest.mark.parametrize("direction", ["fixed-here-run-there", "fixed-there-run-here"])
@pytest.mark.parametrize("name", CROSS_VERSION_ENTRIES)
def test_a_file_rewritten_under_one_torch_runs_under_the_other(workdir: Path, direction: str, name: str):
    here, there = [sys.executable], [OTHER_TORCH_PYTHON]
    versions = [
        subprocess.run([*python, "-c", "import torch; print(torch.__version__)"], capture_output=True, text=True).stdout
        for python in (here, there)
    ]
    assert versions[0].split(".")[:2] != versions[1].split(".")[:2], versions
    fixer, verifier = (here, there) if direction == "fixed-here-run-there" else (there, here)
    _fix_and_verify_elsewhere(workdir / name, fixer, verifier)
