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


@pytest.fixture
def lines_project(tmp_path: Path) -> Path:
    for name in ("lines_model.py", "lines_entry.py"):
        shutil.copy(PROJECT / name, tmp_path / name)
    return tmp_path


def _statement_at(path: Path, line: int) -> str:
    return path.read_text().splitlines()[line - 1].strip()


def test_check_reports_every_site_at_a_line_of_the_file_as_given(lines_project: Path):
    # The unsafe fixes on offer are found in a later round, after the I/O wrappers were added.
    import json

    shown = json.loads(graphweld(lines_project, "fix", "--check", "--format", "json", "lines_model.py").stdout)
    assert shown["lines"] == "as given"
    where = {(c["rule"], _statement_at(lines_project / "lines_model.py", c["line"])) for c in shown["changes"]}
    assert ("branch-to-where", "if torch.sum(x) > 0:") in where
    assert ("guard-to-check", 'assert torch.all(y > -5), "too small"') in where
    assert ("isolate-io", 'print("out", y.sum())') in where
    github = graphweld(lines_project, "fix", "--check", "--format", "github", "lines_model.py").stdout
    assert "line=12," in github and "line=16," in github


def test_fix_reports_every_site_at_a_line_of_the_file_as_written(lines_project: Path):
    shown = graphweld(lines_project, "fix", "lines_model.py")
    assert "Lines are those of the files as written." in shown.stderr
    written = lines_project / "lines_model.py"
    for row in shown.stderr.splitlines():
        if row.startswith("lines_model.py:"):
            line = int(row.split(":")[1])
            statement = _statement_at(written, line)
            if "branch-to-where" in row:
                assert statement == "if torch.sum(x) > 0:"
            if "isolate-io" in row:
                assert statement.startswith("_deferred_")


@pytest.mark.slow
def test_breaks_left_after_a_verified_diff_are_at_lines_of_the_file_as_given(lines_project: Path):
    shown = graphweld(lines_project, "fix", "--entry", "lines_entry.py", "--diff", "lines_model.py")
    assert "Lines are those of the files as given (before the fixes)." in shown.stderr
    # The branch left is line 12 of the file the user has, not of the rewritten text (about 36).
    assert "lines_model.py:12 " in shown.stderr and "Data-dependent branching" in shown.stderr


def test_a_test_command_failing_on_the_original_stops_at_once_with_exit_2(project: Path):
    shown = graphweld(project, "fix", "--test", f"{sys.executable} -m pytest -q tests/does_not_exist.py", "--", sys.executable, "train.py")
    assert shown.returncode == 2
    assert "the --test command fails before any rewrite" in shown.stderr and "nothing was written" in shown.stderr
    assert "round 1" not in shown.stderr  # no rewrite was tried
    assert (project / "model.py").read_text() == (PROJECT / "model.py").read_text()


def test_a_command_failing_on_the_original_stops_at_once_with_exit_2(project: Path):
    shown = graphweld(project, "fix", "--", sys.executable, "-c", "import sys; sys.exit(3)")
    assert shown.returncode == 2 and "it exited with code 3" in shown.stderr
    assert (project / "model.py").read_text() == (PROJECT / "model.py").read_text()


def test_ctrl_c_exits_130_without_a_traceback(project: Path):
    import signal
    import time

    env = {**os.environ, "NO_COLOR": "1"}
    # The command marks that it runs: Ctrl-C lands while graphweld waits on it, however long the
    # interpreters took to start on a loaded machine (before graphweld's own code runs, an
    # interrupt is Python's to report).
    started = project / "started"
    command = f"import pathlib, time; pathlib.Path({str(started)!r}).touch(); time.sleep(60)"
    child = subprocess.Popen(
        [sys.executable, "-m", "graphweld", "fix", "--diff", ".", "--", sys.executable, "-c", command],
        cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        # A test run started in the background of a script inherits SIGINT ignored (as a shell's
        # background jobs do), and graphweld would keep that: Ctrl-C is given back to it here.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 120
    while not started.exists() and time.monotonic() < deadline and child.poll() is None:
        time.sleep(0.1)
    if not started.exists():
        child.kill()
        out, err = child.communicate(timeout=60)
        raise AssertionError(f"the command never started (graphweld exit {child.returncode}):\n{out[-2000:]}\n{err[-2000:]}")
    time.sleep(0.5)
    os.killpg(child.pid, signal.SIGINT)
    stdout, stderr = child.communicate(timeout=60)
    shown = f"exit {child.returncode}\n--- stdout\n{stdout[-2000:]}\n--- stderr\n{stderr[-4000:]}"
    assert child.returncode == 130, shown
    assert "graphweld: interrupted" in stderr and "Traceback" not in stderr and "Aborted!" not in stderr, shown


def test_an_entry_without_getinput_is_refused_before_any_run(project: Path):
    (project / "entry.py").write_text("from model import Net\n\n\ndef my_model_function():\n    return Net()\n")
    shown = graphweld(project, "fix", "--entry", "entry.py", "--diff", ".", timeout=30)
    assert shown.returncode == 2
    assert "defines no `GetInput`" in shown.stderr and "running the entry" not in shown.stderr


def test_the_culprit_of_a_skipped_frame_is_named_with_its_frames_and_statement():
    from graphweld.runs.entry import BreakSite
    from graphweld.runs.explanation import culprit

    model = str(PROJECT / "model.py")
    site = BreakSite(
        model, 17, "GB0007", "Attempted to call function marked as skipped", "", True,
        explanation="Dynamo does not know how to trace the builtin `time.perf_counter.` This function is ...",
        stack=((str(PROJECT / "train.py"), 9, "<module>"), (os.__file__, 1, "_call_impl"), (model, 37, "forward"), (model, 17, "__enter__")),
        skipped="frame",
    )
    lines = (PROJECT / "model.py").read_text().splitlines()
    said = culprit(site, lambda file, line: lines[line - 1].strip())
    assert said == (
        "the call to `time.perf_counter`; reached through forward (model.py:37) -> __enter__ (model.py:17); "
        'inside `with Timer("embed"):` (model.py:37) Dynamo cannot resume, so all of `forward` runs eagerly'
    )


@pytest.mark.slow
def test_explain_names_the_skipped_callee_and_why_forward_runs_eagerly(project: Path):
    import json

    shown = graphweld(project, "explain", "--format", "json", "--", sys.executable, "train.py")
    sites = {(site["line"], site["gb"]): site for site in json.loads(shown.stdout)["sites"]}
    timer = sites[(17, "GB0007")]
    assert "`time.perf_counter`" in timer["culprit"] and "forward (model.py:37) -> __enter__ (model.py:17)" in timer["culprit"]
    assert 'inside `with Timer("embed"):`' in timer["culprit"]
    # Dynamo's hints whole: the first one points at the next.
    assert "see the next case" not in timer["action"] or "custom operator" in timer["action"]


def test_deferred_io_is_one_small_wrapper_per_kind_in_one_spot(project: Path):
    assert graphweld(project, "fix", ".").returncode == 0
    fixed = (project / "model.py").read_text().splitlines()
    added = len(fixed) - len((PROJECT / "model.py").read_text().splitlines())
    # Three kinds of call (print, logger.info, warnings.warn): three small wrappers.
    assert sum(line.startswith("def _deferred_") for line in fixed) == 3
    assert added <= 27
    # In one spot: right after the logger they need, and nothing of the user's between them.
    logger_line = fixed.index("logger = logging.getLogger(__name__)")
    first = next(i for i, line in enumerate(fixed) if line.startswith("@torch.compiler.disable"))
    last = max(i for i, line in enumerate(fixed) if "reorderable_logging_functions.add(" in line)
    assert logger_line < first and all(
        not line or line.startswith(("@torch.compiler.disable", "def _deferred_", "    ", "torch._dynamo.config"))
        for line in fixed[first : last + 1]
    )


def test_torch_and_the_standard_library_of_another_environment_are_libraries():
    # `fix -- /other/venv/bin/python train.py`: the program's frames in its own torch are not the user's.
    from graphweld.runs.library_files import is_library_file

    assert is_library_file("/other/.venv/lib/python3.12/site-packages/torch/nn/modules/module.py")
    assert is_library_file("/usr/lib/python3.12/contextlib.py")
    assert not is_library_file("/other/.venv/lib/python3.12/site-packages/transformers/models/t5/modeling_t5.py")
    assert not is_library_file(str(PROJECT / "model.py"))


@pytest.mark.slow
def test_a_verified_fix_decides_the_same_from_run_to_run(lines_project: Path):
    import json

    decisions = []
    for _ in range(2):
        shown = graphweld(lines_project, "fix", "--entry", "lines_entry.py", "--unsafe-fixes", "--diff", "--format", "json", "lines_model.py")
        data = json.loads(shown.stdout)
        decisions.append((data["kept"], [(t["line"], t["rule"], t["kept"], t["why"]) for t in data["tried"]], data["after"]))
    assert decisions[0] == decisions[1]
