"""What a user touches first tells the truth (issue 33), on a small project of their own:
`tests/first_touch/` (model.py with a timer, I/O in a loop, a numpy helper, a data-dependent
branch and a warning; train.py compiling `Net()`; three pytest tests)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest


PROJECT = Path(__file__).parent / "first_touch"
PROMPT = r"\[q\]uit \[\?\]help"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for name in ("model.py", "train.py"):
        shutil.copy(PROJECT / name, tmp_path / name)
    shutil.copytree(PROJECT / "tests", tmp_path / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def graphweld(cwd: Path, *args: str, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "graphweld", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )


def test_the_review_offers_what_fix_applies_with_the_project_index(project: Path):
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200", "TERM": "xterm"}
    child = pexpect.spawn(sys.executable, ["-m", "graphweld", "fix", "--interactive", "."], cwd=str(project), env=env, encoding="utf-8", timeout=60)
    child.expect(PROMPT)
    # It says which region it found, and why: train.py compiles Net().
    assert "compiled regions start at Net.forward (compiled in train.py:5)" in child.before
    child.sendline("a")
    child.expect(pexpect.EOF)
    child.close()
    assert "3 change(s) applied" in child.before
    reviewed = (project / "model.py").read_text()
    # The same text `fix` writes.
    fixed = project.parent / "fixed"
    shutil.copytree(project, fixed)
    assert graphweld(fixed, "fix", "--exit-zero", ".").returncode == 0
    assert reviewed == (fixed / "model.py").read_text() != (PROJECT / "model.py").read_text()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_diff_is_a_patch_git_apply_and_patch_take(project: Path):
    diff = graphweld(project, "fix", "--diff", "--exit-zero", ".").stdout
    assert diff.startswith("--- a/model.py\n+++ b/model.py\n")
    patch = project.parent / "fixes.patch"
    patch.write_text(diff)
    subprocess.run(["git", "init", "-q", "."], cwd=project, check=True)
    checked = subprocess.run(["git", "apply", "--check", str(patch)], cwd=project, capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    if shutil.which("patch"):
        dry = subprocess.run(["patch", "-p1", "--dry-run", "-i", str(patch)], cwd=project, capture_output=True, text=True)
        assert dry.returncode == 0, dry.stdout + dry.stderr
