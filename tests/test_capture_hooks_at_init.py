"""capture-hooks-at-init, end to end: a vision-language model in the shape of transformers' Llava
(tests/entries/vlm) installs its vision tower's output-capturing hooks lazily, under a lock, on the
first call, the compiled one. The breaks are in the library's plumbing; the fix is made at a call on
their stack, in the model's file: `explain` names it there, and `fix --entry` keeps it with every
break gone and the outputs equal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from graphweld.frontends.cli import main
from graphweld.runs.entry import BreakSite, sites_by_file

# Depends on what Dynamo does: run again on the current torch release by CI (docs/development.md).
pytestmark = pytest.mark.dynamo

EAGER = ["--compile-options", "backend=eager"]


def invoke(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_the_calls_on_a_breaks_stack_are_lines_of_their_files():
    site = BreakSite(
        "/lib/capture.py", 36, "GB0142", "Unsupported context manager", "", True,
        stack=(("/entry.py", 3, "<module>"), ("/pkg/model.py", 40, "forward"), ("/pkg/model.py", 34, "features"),
               ("/lib/capture.py", 60, "wrapper"), ("/lib/capture.py", 36, "maybe_install")),
    )  # fmt: skip
    sites, outside = sites_by_file(_report([site]), lambda file: file.startswith(("/pkg/", "/lib/")))
    assert outside == 0
    assert sites["/lib/capture.py"].site_lines == {36} and sites["/lib/capture.py"].stack_lines == {60}
    # A file with no break of its own is rewritten for the calls on the way to one.
    assert sites["/pkg/model.py"].site_lines == frozenset() and sites["/pkg/model.py"].stack_lines == {34, 40}
    assert "/entry.py" not in sites


def _report(sites: list[BreakSite]):  # type: ignore[no-untyped-def]
    from graphweld.runs.entry import RunReport

    return RunReport(device="cpu", torch_version="", outputs={}, breaks=sites)


@pytest.mark.slow
def test_explain_names_the_fix_at_the_call_on_the_stack(workdir: Path):
    result = invoke("explain", str(workdir / "capture_hooks_entry.py"), *EAGER, "--format", "json")
    assert result.exit_code == 0, result.output
    sites = json.loads(result.stdout)["sites"]
    lock = next(site for site in sites if site["gb"] == "GB0142")
    assert Path(lock["file"]).name == "output_capturing.py"
    assert lock["rule"] == "capture-hooks-at-init"
    assert lock["action"].endswith("at modeling.py:28")


@pytest.mark.slow
def test_fix_entry_installs_the_hooks_at_construction(workdir: Path):
    package = workdir / "vlm"
    result = invoke("fix", "--entry", str(workdir / "capture_hooks_entry.py"), *EAGER, "--unsafe-fixes", str(package), "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["before"]["graph_breaks"] >= 5 and data["before"]["skipped_frames"] >= 1
    assert data["after"]["graph_breaks"] == 0 and data["after"]["graphs"] == 1 and data["after"]["fullgraph"] is True
    assert data["kept"] == {str(package / "modeling.py"): ["capture-hooks-at-init"]}
    text = (package / "modeling.py").read_text()
    assert "import capture_outputs, maybe_install_capturing_hooks, select_hidden_states\n" in text
    assert "        self.post_init()\n        maybe_install_capturing_hooks(self.vision_tower)\n" in text
    # The library's plumbing is left as it is.
    assert (package / "utils" / "output_capturing.py").read_text() == (
        Path(__file__).parent / "entries" / "vlm" / "utils" / "output_capturing.py"
    ).read_text()


@pytest.mark.slow
def test_without_unsafe_fixes_it_is_offered_not_made(workdir: Path):
    package = workdir / "vlm"
    before = (package / "modeling.py").read_text()
    result = invoke("fix", "--entry", str(workdir / "capture_hooks_entry.py"), *EAGER, str(package), "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["kept"] == {}
    assert (package / "modeling.py").read_text() == before


def test_a_file_the_run_only_passed_through_gets_only_fixes_made_from_callers():
    from graphweld.engine import fix_text, propose
    from graphweld.run_evidence import RunEvidence
    from graphweld.settings import Settings

    text = (
        "import torch\n\n\n@torch.compile\ndef step(model, x):\n"
        "    print('step')\n"  # isolate-io would defer this in a file with a break of its own
        "    return model(x)\n"
    )
    settings = Settings(unsafe_fixes=True)
    assert [change.rule for change in propose(text, "train.py", settings).changes] == ["isolate-io"]
    assert propose(text, "train.py", settings, None, RunEvidence(stack_lines=frozenset({7}))).changes == []
    assert fix_text(text, "train.py", settings, RunEvidence(stack_lines=frozenset({7}))).text == text
