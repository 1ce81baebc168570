"""The graph-break registry's example programs (tests/registry_pages/, one per page with an
example, each compiled as its page compiles it: mostly `fullgraph=True`, so the original's compile
fails), run as the program graphweld fixes (`graphweld fix PAGE -- python PAGE`). Each page with a
source fix comes out changed, runs (its compile now succeeds) printing what the eager original
prints, and a second fix changes nothing; a page whose workaround would change behaviour is left
as it is."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_entry import invoke

pytestmark = [pytest.mark.slow, pytest.mark.dynamo]

PAGES = Path(__file__).parent / "registry_pages"
PYTHON = sys.executable
# The pages graphweld fixes, and whether the fix is unsafe (applied with --unsafe-fixes).
FIXED = {
    "gb0007": True,
    "gb0059": False,
    "gb0107": False,
    "gb0109": True,
    "gb0123": False,
    "gb0150": True,
    "gb0156": True,
    "gb0206": False,
    "gb0220": True,
    "gb0222": True,
    "gb0264": False,
    "gb0291": False,
    "gb4198": True,
}
# Pages whose workaround is no rewrite of the code as written, each with the rule that reports it
# (None: no rule). GB0246: an explicit class count changes the output's shape, and graphweld says
# so; GB0207: the page sorts on a priority the code does not state, or outside the region.
LEFT = {"gb0246": "one-hot-fixed-classes", "gb0207": None}


def _eager_output(script: Path) -> str:
    """What the program prints run eagerly: `torch.compile` made a no-op (TORCH_COMPILE_DISABLE
    would make torch 2.15's `fullgraph=True` raise that it compiled nothing)."""
    run = (
        "import runpy, sys, torch\n"
        "torch.compile = lambda model=None, **options: model if model is not None else (lambda fn: fn)\n"
        "sys.argv = [sys.argv[1]]\n"
        "runpy.run_path(sys.argv[0], run_name='__main__')\n"
    )
    done = subprocess.run([PYTHON, "-c", run, script.name], cwd=script.parent, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_every_page_is_here():
    assert {path.stem for path in PAGES.glob("gb*.py")} == set(FIXED) | set(LEFT)


@pytest.mark.parametrize("page, unsafe", sorted(FIXED.items()))
def test_a_page_with_a_source_fix_is_fixed_and_then_compiles(page: str, unsafe: bool, tmp_path: Path, monkeypatch):
    script = tmp_path / f"{page}.py"
    shutil.copy(PAGES / script.name, script)
    monkeypatch.chdir(tmp_path)
    eager = _eager_output(script)
    assert subprocess.run([PYTHON, script.name], capture_output=True, timeout=300).returncode != 0, "the page's compile fails"
    flags = ["--unsafe-fixes"] if unsafe else []
    result = invoke("fix", *flags, script.name, "--", PYTHON, script.name)
    assert result.exit_code == 0, result.output
    fixed = script.read_text()
    assert fixed != (PAGES / script.name).read_text(), result.output
    done = subprocess.run([PYTHON, script.name], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout == eager
    again = invoke("fix", *flags, script.name, "--", PYTHON, script.name)
    assert again.exit_code == 0 and script.read_text() == fixed


@pytest.mark.parametrize("page, rule", sorted(LEFT.items()))
def test_a_page_without_a_source_fix_is_left_and_explained(page: str, rule: str | None, tmp_path: Path, monkeypatch):
    script = tmp_path / f"{page}.py"
    shutil.copy(PAGES / script.name, script)
    monkeypatch.chdir(tmp_path)
    result = invoke("explain", "--format", "json", "--", PYTHON, script.name)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    (site,) = data["sites"]
    gb = page.upper()
    assert site["gb"] == gb and site["registry"].endswith(f"{page}.html")
    assert site["rule"] == rule
    if page == "gb0246":
        assert "`num_classes=N`" in site["action"] and "registry's page" in site["action"]
    # Per id: graphweld has no fix for it.
    assert [(entry["gb"], entry["fix"], entry["rules"]) for entry in data["by_gb"]] == [(gb, "none", [])]
    invoke("fix", "--unsafe-fixes", script.name, "--", PYTHON, script.name)
    assert script.read_text() == (PAGES / script.name).read_text()
