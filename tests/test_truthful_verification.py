"""The verified path tells the truth on real programs (issue 24): programs that compile themselves
with fullgraph=True, a site's next fix when its first does not verify, graphweld's own wrappers
never traced, skipped frames as Dynamo logs them, recompiles over several calls, what is left, and
unsafe rewrites kept only when they buy something. End to end, as a user runs the commands."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import torch
from compile_stats import load_module
from torch._dynamo.utils import counters
from test_entry import EAGER, invoke

from graphweld.analysis.torch_api import installed_torch
from graphweld.engine import fix_text
from graphweld.settings import Settings

pytestmark = [pytest.mark.slow, pytest.mark.dynamo]


def fix_entry(entry: Path, *options: str) -> tuple[dict, str]:
    """`fix --entry ENTRY ENTRY --format json` and the same as text (`--check`: the text run
    writes nothing): the JSON report, and what the text run printed on stderr."""
    text = invoke("fix", "--entry", str(entry), *options, "--check", str(entry))
    assert text.exit_code in (0, 1), text.output
    result = invoke("fix", "--entry", str(entry), *options, str(entry), "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout), " ".join(text.stderr.split())


def test_a_program_that_compiles_itself_with_fullgraph_is_fixed_as_written(workdir: Path):
    """Seed 000 as its report writes it: `torch.compile(MyModel(), fullgraph=True, dynamic=True)` in
    the factory. The breaks are found with its fullgraph=True relaxed; the fix is verified on the
    program as written."""
    entry = workdir / "seed_dlpack_fullgraph.py"
    explained = invoke("explain", str(entry), "--format", "json")
    assert explained.exit_code == 0, explained.output
    report = json.loads(explained.stdout)
    assert report["compiled_by"] == "entry" and report["fullgraph"] is False
    assert "Attempted to call function marked as skipped" in report["fullgraph_error"]
    assert "seed_dlpack_fullgraph.py:13" in report["fullgraph_error"]  # where the program failed
    # to_dlpack and from_dlpack each break once the compile goes on after a break.
    assert [(site["line"], site["rule"], site["action"]) for site in report["sites"]] == [
        (13, "dlpack-custom-op", "fix"), (14, "dlpack-custom-op", "fix")
    ]

    data, text = fix_entry(entry)
    # The entry's input is a bool tensor: the other path's round trip (line 18) never ran, so its
    # rewrite is not written (issue 35: --unexercised-fixes would write it).
    assert data["kept"] == {str(entry): ["dlpack-custom-op"]}, data["tried"]
    (unreached,) = [t for t in data["tried"] if not t["kept"]]
    assert unreached["line"] == 18 and unreached["why"].startswith("not exercised: the entry never reached this code")
    before, after = data["before"], data["after"]
    assert before["graph_breaks"] >= 1 and (before["fullgraph"], after["fullgraph"]) == (False, True)
    assert after["graph_breaks"] == 0 and after["compiled_by"] == "entry"
    assert "fails (breaks measured with it relaxed)" in text and "compiles" in text
    assert "torch.compile(MyModel(), fullgraph=True, dynamic=True)" in entry.read_text()


_MASKED_TAGGER = """import torch
import torch.nn.functional as F
from torch import nn


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(13, 8)
        self.classify = nn.Linear(8, 5)

    @torch.compile(fullgraph=True)
    def forward(self, tokens, tags, padding):
        logits = self.classify(self.embed(tokens))
        real = padding == 0
        {extra}return F.cross_entropy(logits[real], tags[real])


def my_model_function():
    return Tagger()


def GetInput():
    return (torch.randint(0, 13, (3, 5)), torch.randint(0, 5, (3, 5)), torch.tensor([[0, 0, 1, 1, 1], [0, 0, 0, 0, 0], [0, 1, 1, 1, 1]]))
"""


@pytest.mark.parametrize("options", [EAGER, []], ids=["forced-eager-backend", "as-written"])
def test_what_the_programs_own_fullgraph_captures_is_no_break(tmp_path: Path, options: list[str]):
    """The program's fullgraph=True compile captures a boolean mask's rows (Dynamo allows
    data-dependent shapes in a one-graph compile), and it runs. Neither a forced backend nor the
    fullgraph probe may report a break there that the program never has."""
    entry = tmp_path / "masked_tagger.py"
    entry.write_text(_MASKED_TAGGER.format(extra=""))
    result = invoke("explain", str(entry), *options, "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["compiled_by"] == "entry" and report["sites"] == []
    assert (report["graphs"], report["graph_breaks"], report["fullgraph"]) == (1, 0, True)


def test_a_relaxed_fullgraph_finds_only_the_programs_breaks(tmp_path: Path):
    """A print fails the program's fullgraph=True compile; measured with it relaxed, the print is
    the one site: the masked rows, which the program's compile captures, are not a break."""
    entry = tmp_path / "masked_tagger.py"
    entry.write_text(_MASKED_TAGGER.format(extra='print("tokens", real.sum())\n        '))
    result = invoke("explain", str(entry), *EAGER, "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["fullgraph"] is False and "masked_tagger.py:16" in report["fullgraph_error"]
    assert [(site["line"], site["rule"]) for site in report["sites"]] == [(16, "isolate-io")]


def test_a_site_whose_first_fix_fails_gets_its_next(workdir: Path):
    """branch-to-where computes both sides, and the untaken one divides by zero; branch-to-cond,
    the next fix in the engine's order, runs only the taken side and verifies."""
    entry = workdir / "shares_entry.py"
    data, text = fix_entry(entry, *EAGER, "--unsafe-fixes")
    tried = {item["rule"]: item for item in data["tried"]}
    assert tried["branch-to-where"]["kept"] is False and "ZeroDivisionError" in tried["branch-to-where"]["why"]
    assert tried["branch-to-cond"]["kept"] is True
    assert tried["branch-to-cond"]["instead_of"] == {"rule": "branch-to-where", "form": None, "line": 10}
    assert data["kept"] == {str(entry): ["branch-to-cond"]}
    assert (data["before"]["graph_breaks"], data["after"]["graph_breaks"], data["after"]["fullgraph"]) == (1, 0, True)
    assert "torch.cond(total > 0," in entry.read_text()
    # The text output lists both: the one dropped, with why, and the one kept instead.
    assert "branch-to-where [unsafe] dropped, it did not verify: the compiled run fails with RuntimeError: ZeroDivisionError" in text
    assert "branch-to-cond [unsafe] verified (round 1: " in text
    assert "; tried after branch-to-where at line 10 did not verify)" in text


def test_explain_names_the_rule_fix_applies(workdir: Path):
    """Both branch rules propose for that `if`; the engine applies branch-to-where (registry
    order), so explain names it."""
    result = invoke("explain", str(workdir / "shares_entry.py"), *EAGER, "--format", "json")
    assert result.exit_code == 0, result.output
    (site,) = json.loads(result.stdout)["sites"]
    assert (site["gb"], site["rule"], site["action"]) == ("GB0170", "branch-to-where", "unsafe fix (--unsafe-fixes)")


def test_deferred_io_is_never_traced(workdir: Path):
    """A forward whose only I/O is deferred (a checkpoint of a tensor written afterwards, a print):
    Dynamo counts no break and skips no frame, under inductor as the user runs it, and explain
    lists no site in graphweld's wrappers."""
    entry = workdir / "deferred_io_entry.py"
    fixed = fix_text(entry.read_text(), str(entry), Settings()).text
    assert fixed.count("@torch.compiler.disable\ndef _deferred_") == 2
    module = load_module(fixed, "deferred_io_fixed")
    model = module.my_model_function()
    torch._dynamo.reset()
    counters.clear()
    torch.compile(model)(module.GetInput())
    assert dict(counters["graph_break"]) == {}
    assert counters["frames"]["total"] == counters["frames"]["ok"]

    data, _ = fix_entry(entry)
    assert data["kept"] == {str(entry): ["isolate-io", "isolate-io"]}
    assert (data["before"]["graph_breaks"], data["after"]["graph_breaks"]) == (2, 0)
    assert (data["after"]["skipped_frames"], data["after"]["graphs"], data["after"]["fullgraph"]) == (0, 1, True)
    explained = invoke("explain", str(entry), "--format", "json")
    assert explained.exit_code == 0, explained.output
    assert json.loads(explained.stdout)["sites"] == []


def test_a_rewrite_dynamo_still_skips_after_is_not_progress(workdir: Path):
    """The timer's `__enter__` calls `time.perf_counter()`: Dynamo skips the rest of the frame
    there, before the split `with` as after it. That is a skipped frame in the picture (as
    Dynamo's log says), so the split buys nothing and is not kept."""
    entry = workdir / "stage_timer_entry.py"
    original = entry.read_text()
    data, text = fix_entry(entry, *EAGER)
    assert data["kept"] == {} and entry.read_text() == original
    assert data["before"]["skipped_frames"] == data["after"]["skipped_frames"] == 1
    (dropped,) = data["tried"]
    assert dropped["rule"] == "hoist-with" and dropped["why"].startswith("it buys nothing")
    (left,) = data["remaining"]
    # torch 2.15 gives a clock read an id of its own ("Call to a time function").
    clock_gb = "GB9193" if installed_torch() >= (2, 15) else "GB0007"
    assert (left["line"], left["gb"], left["type"]) == (16, clock_gb, "skipped rest of frame")
    assert left["rule"] is None and left["action"].startswith("no automatic fix")
    assert "hoist-with [safe] dropped, it buys nothing" in text and "graph breaks left" in text


def test_recompiles_are_counted_and_judged_worse(workdir: Path, tmp_path: Path):
    """The program is called three times. An AFTER that keeps the break and recompiles on every
    later call (a Python counter its code branches on) is judged worse by its recompile count."""
    before = tmp_path / "counter_before.py"
    before.write_text(
        "import torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.calls = 0\n\n    def forward(self, x):\n        h = x * 2\n"
        "        torch._dynamo.graph_break()\n        return h + 1\n\n\ndef my_model_function():\n"
        "    return Model()\n\n\ndef GetInput():\n    return torch.randn(2, 4)\n"
    )
    after = tmp_path / "counter_after.py"
    after.write_text(before.read_text().replace(
        "        h = x * 2\n", "        self.calls += 1\n        h = x * 2 if self.calls > 0 else x\n"
    ))
    result = invoke("verify", str(before), str(after), *EAGER)
    assert result.exit_code == 1, result.output
    out = " ".join(result.stdout.split())
    assert "recompiles (all calls) │ 0 │ 2" in out
    assert "not verified: recompiles went up: 0 -> 2" in out
    assert "Recompiled forward" in out


def test_a_buffer_selected_with_where_does_not_recompile(workdir: Path):
    entry = workdir / "buffer_where_entry.py"
    data, _ = fix_entry(entry, "--unsafe-fixes")
    assert data["kept"] == {str(entry): ["branch-to-where"]}
    assert "torch.where(x.abs().max() > 1.0, self.base * 2, self.base / 2)," in entry.read_text()
    assert (data["before"]["graph_breaks"], data["after"]["graph_breaks"]) == (1, 0)
    assert data["after"]["recompiles"] == 0 and data["recompile_sites"] == []


def test_unsafe_rewrites_that_buy_nothing_are_dropped(workdir: Path):
    """With --unsafe-fixes, the print in a helper the run never calls could be guarded; no break
    the run saw is there, so the guard is dropped and only the split `with` is kept."""
    entry = workdir / "unsafe_for_nothing_entry.py"
    data, text = fix_entry(entry, *EAGER, "--unsafe-fixes")
    assert data["kept"] == {str(entry): ["hoist-with"]}
    (dropped,) = [item for item in data["tried"] if not item["kept"]]
    assert (dropped["rule"], dropped["form"], dropped["safety"]) == ("isolate-io", "guard", "unsafe")
    assert dropped["why"] == "it buys nothing: unsafe, and no break the run saw is at it"
    assert 'print("hidden", h)' in entry.read_text() and "is_compiling" not in entry.read_text()
    assert text.count("isolate-io (guard) [unsafe] dropped, it buys nothing") == 1


def test_fix_entry_ends_with_the_breaks_left(workdir: Path):
    entry = workdir / "unsafe_for_nothing_entry.py"
    data, text = fix_entry(entry, *EAGER)
    (left,) = data["remaining"]
    assert (Path(left["file"]).name, left["line"], left["gb"], left["type"]) == (entry.name, 29, "GB0025", "graph break")
    assert left["action"].startswith("no automatic fix: Remove the `torch._dynamo.graph_break()` call")
    assert "graph breaks left" in text and f"{entry.name}:29" in text


def test_an_entry_that_raises_says_where(workdir: Path):
    entry = workdir / "shape_error_entry.py"
    result = invoke("explain", str(entry), *EAGER)
    assert result.exit_code == 2
    message = " ".join(result.stderr.split())
    # torch 2.15 names the op first ("addmm: mat1 and mat2 ...").
    assert re.search(r"RuntimeError: (addmm: )?mat1 and mat2 shapes cannot be multiplied", message), message
    assert "shape_error_entry.py:15)" in message and "Traceback" not in message
    detailed = invoke("explain", str(entry), *EAGER, "--traceback")
    assert detailed.exit_code == 2
    assert "Traceback (most recent call last)" in detailed.stderr and "return self.second(h)" in detailed.stderr
