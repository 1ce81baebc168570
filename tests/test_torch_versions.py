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
