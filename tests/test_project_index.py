"""Compiled regions across modules (issue 27): a model compiled in another file of the run is a
region in the file that defines it; a forward that breaks graphs but that nothing compiles gets a
hint saying how to find its sites."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from graphweld.analysis.project import ProjectIndex
from graphweld.frontends.cli import main

MODEL = """import torch
import torch.nn as nn


class Net(nn.Module):
    def forward(self, x):
        h = x * 2
        print("hidden", h)
        return h.relu()


def step(x):
    torch._dynamo.graph_break()
    return x + 1
"""


def project(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def index_of(root: Path) -> dict[str, set[str]]:
    index = ProjectIndex.build(str(path) for path in root.rglob("*.py"))
    return {str(Path(path).relative_to(root.resolve())): names for path, names in index.compiled_elsewhere.items()}


def test_compile_calls_of_every_form_name_what_they_compile(tmp_path: Path):
    root = project(tmp_path, {
        "model.py": MODEL,
        "train.py": "import torch\nfrom model import Net\n\nmodel = Net().eval()\ncompiled = torch.compile(model)\n",
        "serve.py": "import model as m\n\nnet = m.Net()\nnet.compile()\n",
        "steps.py": "from torch import compile as jit\nfrom model import step\n\nfast = jit(step)\n",
        "other.py": "import re\nfrom model import Net\n\npattern = re.compile('x')\n",
    })  # fmt: skip
    assert index_of(root) == {"model.py": {"Net.forward", "step"}}


def test_relative_imports_in_a_package(tmp_path: Path):
    root = project(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/model.py": MODEL,
        "pkg/run.py": "import torch\nfrom .model import Net\n\ncompiled = torch.compile(Net())\n",
        "pkg/sub/go.py": "import torch\nfrom ..model import step\n\nfast = torch.compile(step)\n",
    })  # fmt: skip
    assert index_of(root) == {"pkg/model.py": {"Net.forward", "step"}}


def test_fix_finds_the_breaks_of_a_model_another_file_compiles(tmp_path: Path, monkeypatch):
    root = project(tmp_path, {
        "model.py": MODEL,
        "train.py": "import torch\nfrom model import Net\n\ncompiled = torch.compile(Net())\n",
    })  # fmt: skip
    monkeypatch.chdir(root)
    result = CliRunner().invoke(main, ["fix", "--diff", "."])
    assert result.exit_code == 1, result.output
    # Net.forward is where compilation starts: its print is deferred; step is not compiled here.
    assert '+        _deferred_print("hidden", h)' in result.stdout
    assert "graph_break()" not in result.stdout

    alone = CliRunner().invoke(main, ["fix", "--diff", "model.py"])
    assert alone.exit_code == 0 and alone.stdout == ""
    hint = " ".join(alone.stderr.split())
    assert "1 file(s) with a module's forward that calls code breaking graphs (e.g. model.py)" in hint
    assert "--assume-compiled, --entry ENTRY, or -- CMD" in hint
