"""Bad input through the real command line: one clear line per bad path, exit code 2, every good
file in the same run still fixed; and crash safety when the process is killed mid-run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from graphweld.engine import fix_text
from graphweld.settings import Settings

from test_cli import BROKEN  # the same model: a graph break inside an unresumable `with`

FIXED = fix_text(BROKEN, "model.py", Settings()).text


def graphweld(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "graphweld", "fix", *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )


def test_every_kind_of_bad_input_gets_one_line_and_good_files_are_fixed(tmp_path: Path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "good_a.py").write_text(BROKEN)
    bad = {
        "syntax_error.py": ("import torch\n@torch.compile\ndef fn(x:\n    print(x)\n", "syntax error at line 3"),
        "undecodable.py": (b"import torch\nx = '\xff\xfe'\n", "cannot decode as utf-8"),
        "nul_byte.py": (BROKEN.replace("x = x + 1", "x = x + 1\0").encode(), "binary file (contains NUL bytes)"),
        "binary.py": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary file"),
        "huge.py": (b"import torch\n" + b"x = 1  # padding padding padding padding padding\n" * 420_000, "file too large ("),
    }
    for name, (content, _) in bad.items():
        path = project / name
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    os.symlink(project / "self_loop.py", project / "self_loop.py")
    os.symlink(project / "gone.py", project / "dangling.py")
    nested = project / "nested"
    nested.mkdir()
    (nested / "good_b.py").write_text(BROKEN)
    os.symlink(project, nested / "up")  # a directory loop: walking it must end
    empty = tmp_path / "empty_dir"
    empty.mkdir()

    result = graphweld(str(project), str(empty), str(tmp_path / "does_not_exist.py"), cwd=tmp_path)

    assert result.returncode == 2
    assert "Traceback" not in result.stderr + result.stdout
    errors = [line for line in result.stderr.splitlines() if ": error: " in line]
    by_path = {line.split(": error: ", 1)[0]: line.split(": error: ", 1)[1] for line in errors}
    assert len(errors) == len(by_path), "one line per bad path"
    for name, (_, message) in bad.items():
        assert message in by_path.pop(str(project / name)), name
    assert "cannot read" in by_path.pop(str(project / "self_loop.py"))
    assert "cannot read" in by_path.pop(str(project / "dangling.py"))
    assert by_path.pop(str(empty)) == "no Python files found"
    assert by_path.pop(str(tmp_path / "does_not_exist.py")) == "no such file or directory"
    assert by_path == {}
    assert (project / "good_a.py").read_text() == FIXED
    assert (nested / "good_b.py").read_text() == FIXED


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads and writes any file")
def test_unreadable_and_read_only_files(tmp_path: Path):
    (tmp_path / "good.py").write_text(BROKEN)
    unreadable = tmp_path / "unreadable.py"
    unreadable.write_text(BROKEN)
    unreadable.chmod(0)
    read_only = tmp_path / "read_only.py"
    read_only.write_text(BROKEN)
    read_only.chmod(0o444)
    try:
        result = graphweld(str(tmp_path), cwd=tmp_path)
    finally:
        unreadable.chmod(0o644)
    assert result.returncode == 2
    assert f"{unreadable}: error: cannot read: Permission denied" in result.stderr
    assert f"{read_only}: error: cannot write: file is read-only" in result.stderr
    assert read_only.read_text() == BROKEN
    assert (tmp_path / "good.py").read_text() == FIXED


@pytest.mark.slow
def test_sigkill_mid_run_leaves_every_file_whole(tmp_path: Path):
    """Kill the whole process group while it writes: each file is its original bytes or its
    complete new text, never a mix or a truncation."""
    count = 400
    originals = {}
    for index in range(count):
        # Different files, each with its own fix.
        text = BROKEN.replace("x * 2", f"x * {index + 2}")
        path = tmp_path / f"m{index:04d}.py"
        path.write_text(text)
        originals[path] = text
    expected = {path: fix_text(text, str(path), Settings()).text for path, text in originals.items()}
    first = min(originals)

    process = subprocess.Popen(
        [sys.executable, "-m", "graphweld", "fix", "--jobs", "2", str(tmp_path)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if first.read_text() != originals[first]:
            break  # writing has begun (files are written in path order)
        time.sleep(0.002)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=30)

    written = 0
    for path, original in originals.items():
        now = path.read_text()
        assert now in (original, expected[path]), path
        written += now == expected[path]
    assert 1 <= written < count, "the kill landed while files were being written"
    leftovers = [p.name for p in tmp_path.iterdir() if not p.name.endswith(".py")]
    # At most the one temporary file being written at the kill, never a .py file.
    assert len(leftovers) <= 1 and all(name.endswith(".graphweld.tmp") for name in leftovers)
