"""`graphweld fix --interactive`, driven through a real pseudo-terminal with pexpect."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pexpect
import pytest

from graphweld.engine import fix_text
from graphweld.settings import Settings

THREE_CHANGES = Path(__file__).parent / "review" / "three_changes.py"
PROMPT = r"\[q\]uit \[\?\]help"


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    shutil.copy(THREE_CHANGES, tmp_path / "model.py")
    return tmp_path


def spawn(workdir: Path, *args: str) -> pexpect.spawn:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "120", "TERM": "xterm"}
    return pexpect.spawn(
        sys.executable, ["-m", "graphweld", "fix", "--interactive", *args], cwd=str(workdir), env=env, encoding="utf-8", timeout=60
    )


def answer(child: pexpect.spawn, *replies: str) -> None:
    for reply in replies:
        child.expect(PROMPT)
        child.sendline(reply)


def finish(child: pexpect.spawn) -> str:
    output = child.before if child.after is pexpect.EOF else ""
    if child.after is not pexpect.EOF:
        child.expect(pexpect.EOF)
        output = child.before
    child.close()
    return output


def split_functions(text: str) -> dict[str, str]:
    """Source of each top-level function, by name."""
    parts = text.split("\n@torch.compile\ndef ")
    return {part.split("(", 1)[0]: part for part in parts[1:]}


def test_yes_no_yes_applies_the_first_and_third_change(workdir: Path):
    original = (workdir / "model.py").read_text()
    child = spawn(workdir, "model.py")
    answer(child, "y", "n", "y")
    output = finish(child)
    assert child.exitstatus == 0
    assert "2 change(s) applied, 1 skipped, 1 file(s) written." in output
    fixed = split_functions((workdir / "model.py").read_text())
    before = split_functions(original)
    everything = split_functions(fix_text(original, "model.py", Settings()).text)
    assert fixed["first"] == everything["first"] != before["first"]
    assert fixed["second"] == before["second"] != everything["second"]
    assert fixed["third"] == everything["third"] != before["third"]


def test_each_change_is_shown_with_its_rule_safety_and_diff(workdir: Path):
    child = spawn(workdir, "model.py")
    child.expect(PROMPT)
    shown = child.before
    assert "model.py:16:9" in shown and "hoist-with" in shown and "[safe]" in shown
    assert "Split a `with` block around a graph break" in shown
    assert "-        torch._dynamo.graph_break()" in shown and "+    torch._dynamo.graph_break()" in shown
    child.sendline("?")
    child.expect(PROMPT)
    assert "apply it and every remaining change in this file" in child.before
    child.sendline("q")
    finish(child)


def test_all_applies_every_remaining_change_like_fix(workdir: Path):
    original = (workdir / "model.py").read_text()
    child = spawn(workdir, "model.py")
    answer(child, "n", "a")
    output = finish(child)
    assert "2 change(s) applied, 1 skipped" in output
    fixed = split_functions((workdir / "model.py").read_text())
    everything = split_functions(fix_text(original, "model.py", Settings()).text)
    assert fixed["first"] == split_functions(original)["first"]
    assert (fixed["second"], fixed["third"]) == (everything["second"], everything["third"])


def test_done_moves_to_the_next_file_and_quit_stops(workdir: Path):
    shutil.copy(THREE_CHANGES, workdir / "other.py")
    original = (workdir / "model.py").read_text()
    child = spawn(workdir, "model.py", "other.py")
    answer(child, "y", "d")  # model.py: first change, then done
    child.expect(PROMPT)
    assert "other.py:16:9" in child.before
    child.sendline("y")
    answer(child, "q")  # other.py: first change, then quit: written, no more questions
    output = finish(child)
    assert "2 change(s) applied" in output and "2 file(s) written" in output
    for name in ("model.py", "other.py"):
        fixed = split_functions((workdir / name).read_text())
        assert fixed["first"] != split_functions(original)["first"]
        assert fixed["second"] == split_functions(original)["second"]


def test_ctrl_c_leaves_the_file_under_review_untouched(workdir: Path):
    shutil.copy(THREE_CHANGES, workdir / "other.py")
    original = (workdir / "model.py").read_bytes()
    child = spawn(workdir, "model.py", "other.py")
    answer(child, "a")  # model.py fully written
    answer(child, "y")  # other.py: one change accepted, not yet written
    child.expect(PROMPT)
    time.sleep(0.5)  # let it block reading the answer
    child.sendintr()
    if child.expect([pexpect.EOF, pexpect.TIMEOUT], timeout=20) == 1:
        child.sendintr()  # a loaded machine can lose the race with the terminal set-up; press again
    output = finish(child)
    assert child.exitstatus == 130 or child.signalstatus is not None
    assert "interrupted" in output
    assert (workdir / "other.py").read_bytes() == original
    assert (workdir / "model.py").read_text() == fix_text(original.decode(), "model.py", Settings()).text


def test_refuses_without_a_terminal(workdir: Path):
    completed = subprocess.run(
        [sys.executable, "-m", "graphweld", "fix", "--interactive", "model.py"],
        cwd=workdir, capture_output=True, text=True, timeout=60, input="y\n",
    )
    assert completed.returncode == 2
    assert "needs a terminal" in completed.stderr
    assert (workdir / "model.py").read_text() == THREE_CHANGES.read_text()


def test_interactive_cannot_be_combined_with_diff(workdir: Path):
    child = spawn(workdir, "--diff", "model.py")
    output = finish(child)
    assert child.exitstatus == 2 and "cannot be combined" in output


@pytest.mark.slow
def test_with_an_entry_each_change_shows_its_verification(tmp_path: Path):
    entries = Path(__file__).parent / "entries"
    for name in ("helper_entry.py", "helpers.py"):
        shutil.copy(entries / name, tmp_path / name)
    child = spawn(tmp_path, "--entry", "helper_entry.py", "--compile-options", "backend=eager", "helpers.py")
    child.timeout = 180
    child.expect(PROMPT)
    shown = " ".join(child.before.split())
    assert "verification: verified: outputs equal, printed output the same, better (graph breaks 4 -> 2)" in shown and "graphs 4 -> 3" in shown
    # And what the entry's input exercised of the code the change replaces.
    assert "; ran " in shown or "not exercised" in shown
    child.sendline("y")
    child.expect(PROMPT)
    # Verified together with the change accepted before it: the whole function is one graph.
    shown = " ".join(child.before.split())
    assert "verification: verified: outputs equal, printed output the same, better (fullgraph=True fails -> compiles)" in shown
    assert "graphs 4 -> 1" in shown
    child.sendline("y")
    output = finish(child)
    assert "2 change(s) applied" in output
    assert (tmp_path / "helpers.py").read_text().count("@torch._dynamo.nonstrict_trace") == 2


@pytest.mark.slow
def test_with_a_command_each_change_shows_its_verification(tmp_path: Path):
    # The run may be the user's own script (`-- python run.py`), not only an entry.
    (tmp_path / "model.py").write_text(
        "import torch\n\n\n"
        "def step(x):\n"
        "    y = x.sin()\n"
        '    print("computed")\n'
        "    return y.cos()\n"
    )
    (tmp_path / "run.py").write_text(
        "import torch\n\nfrom model import step\n\n"
        'print(torch.compile(step, backend="eager")(torch.ones(3)).sum().item())\n'
    )
    child = spawn(tmp_path, "--unsafe-fixes", "model.py", "--", sys.executable, "run.py")
    child.timeout = 180
    child.expect(PROMPT)
    shown = " ".join(child.before.split())
    assert "verification: verified: it ran, better (graph breaks 1 -> 0)" in shown
    child.sendline("y")
    output = finish(child)
    assert "1 change(s) applied" in output
    assert "if not torch.compiler.is_compiling():" in (tmp_path / "model.py").read_text()


def test_the_runs_evidence_follows_the_changes_accepted_before(tmp_path: Path):
    # Both helpers break where Dynamo cannot trace a call (the run's evidence, which eager-helper
    # needs); accepting the first moves the second down a line, and the review still offers it.
    import io

    from rich.console import Console

    from graphweld.frontends.review import Review
    from graphweld.run_evidence import RunEvidence

    case = Path(__file__).parent / "golden" / "eager-helper" / "untraceable_generator"
    path = tmp_path / "increments.py"
    path.write_text(case.with_suffix(".in.py").read_text())
    lines = frozenset((8, 13))
    sites = {os.path.realpath(path): RunEvidence(site_lines=lines, called_lines=lines, untraceable_lines=lines)}
    answers = iter(["y", "y", "y"])
    shown = io.StringIO()
    settings = Settings(select=frozenset({"eager-helper"}))
    review = Review(settings, Console(file=shown, width=120), ask=lambda prompt: next(answers), sites=sites)
    summary = review.run([str(path)])
    assert summary.accepted == 2, shown.getvalue()
    assert path.read_text() == case.with_suffix(".out.py").read_text()


def test_evidence_on_a_line_a_change_rewrote_is_dropped():
    from graphweld.run_evidence import RunEvidence

    seen = "a = 1\nb = f(a)\nc = 2\n"
    now = "import x\na = 1\nb = g(a)\nc = 2\n"
    moved = RunEvidence(site_lines=frozenset((1, 2, 3)), untraceable_lines=frozenset((2,))).moved(seen, now)
    assert moved.site_lines == frozenset((2, 4)) and moved.untraceable_lines == frozenset()


@pytest.mark.slow
def test_a_decorator_offered_below_its_def_says_what_the_run_exercised(tmp_path: Path):
    # eager-helper's change is placed at the call Dynamo cannot trace (line 6) and inserts a
    # decorator above the def: the verdict reads that line in the file before the change, which
    # every call ran, not in the file after it (where it is the docstring, "never reached").
    (tmp_path / "noise.py").write_text(
        "import torch\n\n\n"
        "def seeded_normal(shape, seed):\n"
        '    """A normal draw from a generator seeded per call."""\n'
        "    generator = torch.Generator().manual_seed(int(seed))\n"
        "    return torch.randn(shape, generator=generator)\n\n\n"
        "class Noisy(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        return x + seeded_normal(x.shape, 7)\n"
    )
    (tmp_path / "entry.py").write_text(
        "import torch\nfrom noise import Noisy\n\n\ndef my_model_function():\n    return Noisy()\n\n\n"
        "def GetInput():\n    return torch.randn(3, 4)\n"
    )
    child = spawn(tmp_path, "--entry", "entry.py", "--compile-options", "backend=eager", "--select", "eager-helper", "noise.py")
    child.timeout = 180
    child.expect(PROMPT)
    shown = " ".join(child.before.split())
    assert "eager-helper" in shown
    assert "; ran 3 times" in shown and "not exercised" not in shown, shown
    child.sendline("d")
    finish(child)
