"""The pre-commit hooks as a team uses them: a repository whose config points at graphweld."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_cli import BROKEN, FIXED

ROOT = Path(__file__).resolve().parent.parent


def _git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=check)


def _graphweld_commit() -> str:
    """This checkout's commit, as the config's `rev`: the hooks file must be committed in it."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs graphweld's own git checkout")
    head = _git(ROOT, "rev-parse", "HEAD", check=False)
    listed = _git(ROOT, "ls-tree", "--name-only", "HEAD", ".pre-commit-hooks.yaml", check=False)
    if head.returncode != 0 or ".pre-commit-hooks.yaml" not in listed.stdout:
        pytest.skip("the hooks file is not committed in this checkout")
    return head.stdout.strip()


@pytest.mark.slow
def test_the_fixing_hook_fixes_and_blocks_the_commit_until_the_fix_is_staged(tmp_path: Path):
    rev = _graphweld_commit()
    repo = tmp_path / "project"
    repo.mkdir()
    environment = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-cache"), "GIT_TERMINAL_PROMPT": "0"}
    environment.pop("PRE_COMMIT", None)
    _git(repo, "init", "-q")
    _git(repo, "config", "user.email", "dev@example.com")
    _git(repo, "config", "user.name", "Dev")
    _git(repo, "config", "commit.gpgsign", "false")
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {ROOT.as_posix()}\n    rev: {rev}\n    hooks:\n      - id: graphweld\n"
    )
    (repo / "model.py").write_text(BROKEN)
    _git(repo, "add", ".pre-commit-config.yaml", "model.py")
    pre_commit = [sys.executable, "-m", "pre_commit"]
    installed = subprocess.run([*pre_commit, "install"], cwd=repo, capture_output=True, text=True, env=environment)
    assert installed.returncode == 0, installed.stdout + installed.stderr

    blocked = subprocess.run(["git", "commit", "-m", "model"], cwd=repo, capture_output=True, text=True, env=environment)
    shown = blocked.stdout + blocked.stderr
    assert blocked.returncode != 0, shown
    assert "graphweld" in shown and "files were modified by this hook" in shown, shown
    assert _git(repo, "rev-list", "--all").stdout == ""  # nothing committed
    fixed = (repo / "model.py").read_text()
    assert fixed == FIXED
    assert "model.py" in _git(repo, "diff", "--name-only").stdout  # the fix waits to be staged

    _git(repo, "add", "model.py")
    committed = subprocess.run(["git", "commit", "-m", "model"], cwd=repo, capture_output=True, text=True, env=environment)
    assert committed.returncode == 0, committed.stdout + committed.stderr
    assert _git(repo, "show", "HEAD:model.py").stdout == fixed


@pytest.mark.slow
def test_the_checking_hook_fails_without_changing_anything(tmp_path: Path):
    rev = _graphweld_commit()
    repo = tmp_path / "project"
    repo.mkdir()
    environment = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-cache")}
    _git(repo, "init", "-q")
    (repo / "model.py").write_text(BROKEN)
    _git(repo, "add", "model.py")
    result = subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "graphweld-check", "--ref", rev, "--files", "model.py"],
        cwd=repo, capture_output=True, text=True, env=environment,
    )
    shown = result.stdout + result.stderr
    assert result.returncode == 1, shown
    assert "graphweld (check)" in shown and "Failed" in shown and "would fix" in shown, shown
    assert (repo / "model.py").read_text() == BROKEN
