"""A pure helper that takes an optional argument defaulting to `None`, end to end
(`tests/entries/optional_helper_entry.py`): without a run nonstrict-helper reports it (a call
passing `None` breaks before torch 2.15, GB0236); where a run saw it break, it is decorated and the
run measures its calls, which leave the default alone: breaks 2 -> 0, one graph, on torch 2.13 and
2.15."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_entry import EAGER, invoke

pytestmark = [pytest.mark.slow, pytest.mark.dynamo]


def test_a_helper_with_a_none_default_is_traced_where_a_run_saw_it_break(workdir: Path):
    entry = workdir / "optional_helper_entry.py"
    unrun = invoke("fix", "--diff", str(entry))
    assert "may be called with `None` (`scale=None`)" in unrun.output and "+@torch._dynamo" not in unrun.output
    result = invoke("fix", "--entry", str(entry), *EAGER, "--train", str(entry), "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["before"]["graph_breaks"] > 0
    assert data["kept"][str(entry)] == ["nonstrict-helper"]
    after = data["after"]
    assert (after["graphs"], after["graph_breaks"], after["fullgraph"]) == (1, 0, True)
    assert "@torch._dynamo.nonstrict_trace\ndef scaled_tanh(x, scale=None):" in entry.read_text()
