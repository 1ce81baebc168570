"""Jupyter notebooks: code cells fixed as one module, and nothing else in the file touched."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import nbformat
import pytest
from click.testing import CliRunner

from graphweld.frontends.cli import main
from graphweld.notebook import _source_spans, read_notebook
from graphweld.frontends.review import Review
from graphweld.settings import Settings
from test_cli import assert_valid_sarif

IMPORTS = "%pip install -q torch\nimport contextlib\nimport torch"

HELPERS = """\
class Recorder(contextlib.ContextDecorator):
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False"""

# A with-break, a loop-break and a print, in a function compiled two cells later.
BODY = """\
def body(x):
    with Recorder():
        x = x + 1
        torch._dynamo.graph_break()
        x = x * 2
    for scale in (0.5, 2.0):
        x = x * scale
        torch._dynamo.graph_break()
    print("total", 3)
    return x"""

RUN = "%%time\nfast = torch.compile(body)\nresult = fast(torch.ones(3))"


def make_notebook(path: Path, indent: int = 1, final_newline: bool = True) -> Path:
    notebook = nbformat.v4.new_notebook()
    notebook.metadata = {
        "kernelspec": {"name": "python3", "language": "python", "display_name": "Python 3"},
        "language_info": {"name": "python", "version": "3.11.7"},
        "custom": {"z-last": 1, "a-first": "é ☃"},
    }
    notebook.cells = [
        nbformat.v4.new_markdown_cell("# Graph breaks ☃\nA *notebook* with `print`."),
        nbformat.v4.new_code_cell(IMPORTS, execution_count=1),
        nbformat.v4.new_code_cell(HELPERS, execution_count=2),
        nbformat.v4.new_code_cell(BODY, execution_count=3),
        nbformat.v4.new_code_cell(RUN, execution_count=4, outputs=[
            nbformat.v4.new_output("stream", name="stdout", text="total 3\nCPU times: user 1 s\n"),
        ]),
        nbformat.v4.new_code_cell("%%bash\necho print('not python')", execution_count=5),
        nbformat.v4.new_code_cell("!ls\nfiles = !ls\nresult?", execution_count=6),
    ]
    for number, cell in enumerate(notebook.cells):
        cell["id"] = f"cell-{number}"
    # Key order as another tool wrote it (not sorted), to check that it is kept.
    text = json.dumps(notebook, indent=indent, ensure_ascii=False)
    path.write_text(text + ("\n" if final_newline else ""), encoding="utf-8")
    return path


def invoke(*args: str, stdin: bytes | None = None):
    return CliRunner().invoke(main, list(args), input=stdin, catch_exceptions=False)


def outside_sources(raw: str) -> list[str]:
    """The file's text around every cell's source value."""
    pieces, position = [], 0
    for start, end in _source_spans(raw):
        pieces.append(raw[position:start])
        position = end
    pieces.append(raw[position:])
    return pieces


def cell_sources(path: Path) -> list[str]:
    return [cell.source for cell in nbformat.read(path, as_version=4).cells]


@pytest.mark.parametrize("indent, final_newline", [(1, True), (2, False)])
def test_fix_changes_only_the_code_cells_sources(tmp_path: Path, indent: int, final_newline: bool):
    path = make_notebook(tmp_path / "nb.ipynb", indent, final_newline)
    original = path.read_text(encoding="utf-8")
    result = invoke("fix", str(path))
    assert result.exit_code == 0, result.output
    fixed = path.read_text(encoding="utf-8")
    assert fixed != original
    # Byte for byte around the sources: outputs, counts, metadata, key order, indentation, newline.
    assert outside_sources(fixed) == outside_sources(original)
    nbformat.validate(nbformat.reads(fixed, as_version=4))
    after = cell_sources(path)
    assert after[0] == "# Graph breaks ☃\nA *notebook* with `print`."
    assert after[1] == IMPORTS and after[2] == HELPERS
    body = after[3]
    assert body.count("with Recorder():") == 2, body  # hoist-with split the `with`
    assert "_loop_body(0.5)\n" in body and "_loop_body(2.0)" in body  # unroll-loop
    assert "@torch.compile()" in body and '    print("total", 3)\n' in body  # isolate-io split
    assert after[4] == RUN.replace("fast = torch.compile(body)", "fast = body")  # %%time kept
    assert after[5] == "%%bash\necho print('not python')"
    assert after[6] == "!ls\nfiles = !ls\nresult?"
    assert not body.endswith("\n")  # the cell's text still ends as it did
    # A second run changes nothing.
    assert invoke("fix", "--check", str(path)).exit_code == 0
    assert path.read_text(encoding="utf-8") == fixed


def test_fixed_code_cells_compute_and_print_the_same(tmp_path: Path):
    """The cells as the kernel runs them, before and after (IPython lines left out)."""
    torch = pytest.importorskip("torch")
    path = make_notebook(tmp_path / "nb.ipynb")
    before = read_notebook(str(path), path.read_text(encoding="utf-8"))
    assert invoke("fix", str(path)).exit_code == 0
    after = read_notebook(str(path), path.read_text(encoding="utf-8"))

    def execute(notebook) -> tuple[object, str]:
        namespace: dict[str, object] = {"__name__": "__main__"}
        printed = io.StringIO()
        torch._dynamo.reset()
        with contextlib.redirect_stdout(printed):
            exec(compile(notebook.module_text, "<cells>", "exec"), namespace)
        return namespace["result"], printed.getvalue()

    (expected, printed_before), (actual, printed_after) = execute(before), execute(after)
    assert torch.equal(expected, actual)
    assert printed_before == printed_after == "total 3\n"


def test_diff_and_site_lines_name_the_cell(tmp_path: Path):
    path = make_notebook(tmp_path / "nb.ipynb")
    original = path.read_bytes()
    result = invoke("fix", "--diff", str(path))
    assert result.exit_code == 1
    assert f"--- {path}:cell 4\n+++ {path}:cell 4\n" in result.stdout
    assert f"--- {path}:cell 5\n" in result.stdout
    assert '\\"total\\"' not in result.stdout and '"source"' not in result.stdout  # code, not JSON
    assert re.search(rf"{re.escape(str(path))}:cell 4:4:9: hoist-with \[safe\] would fix", result.stderr)
    assert re.search(rf"{re.escape(str(path))}:cell 4:8:9: unroll-loop \[safe\] would fix", result.stderr)
    assert re.search(rf"{re.escape(str(path))}:cell 4:9:5: isolate-io \[safe\] would fix", result.stderr)
    assert path.read_bytes() == original


def test_json_locates_changes_in_cells(tmp_path: Path):
    path = make_notebook(tmp_path / "nb.ipynb")
    payload = json.loads(invoke("fix", "--check", "--format", "json", str(path)).stdout)
    cells = {(change["rule"], change["cell"], change["line"]) for change in payload["changes"]}
    assert cells == {("hoist-with", 4, 4), ("unroll-loop", 4, 8), ("isolate-io", 4, 9)}
    assert all(edit["cell"] in (4, 5) for change in payload["changes"] for edit in change["edits"])


def test_directory_walk_finds_notebooks_and_skips_checkpoints(tmp_path: Path):
    make_notebook(tmp_path / "nb.ipynb")
    (tmp_path / ".ipynb_checkpoints").mkdir()
    checkpoint = make_notebook(tmp_path / ".ipynb_checkpoints" / "nb-checkpoint.ipynb")
    saved = checkpoint.read_bytes()
    result = invoke("fix", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "cell 4" in result.stderr
    assert checkpoint.read_bytes() == saved


def test_stdin_with_a_notebook_name(tmp_path: Path):
    path = make_notebook(tmp_path / "nb.ipynb")
    result = CliRunner().invoke(main, ["fix", "-", "--stdin-filename", "nb.ipynb"], input=path.read_bytes())
    assert result.exit_code == 0
    fixed = result.stdout_bytes.decode("utf-8")
    assert outside_sources(fixed) == outside_sources(path.read_text(encoding="utf-8"))
    assert "_loop_body(0.5)" in fixed


def test_interactive_review_writes_the_accepted_change_into_its_cell(tmp_path: Path):
    path = make_notebook(tmp_path / "nb.ipynb")
    original = path.read_text(encoding="utf-8")
    shown = io.StringIO()
    from rich.console import Console

    answers = iter(["n", "n", "y", "d"])  # offered in line order: hoist-with, unroll-loop, isolate-io
    review = Review(Settings(), Console(file=shown, width=120), ask=lambda prompt: next(answers))
    summary = review.run([str(path)])
    assert summary.accepted == 1 and summary.written == [str(path)]
    assert f"{path}:cell 4:9:5  isolate-io" in shown.getvalue()
    assert f"--- {path}:cell 4" in shown.getvalue()
    fixed = path.read_text(encoding="utf-8")
    assert outside_sources(fixed) == outside_sources(original)
    body = cell_sources(path)[3]
    assert '    print("total", 3)\n' in body and "_body_part1" in body
    assert "with Recorder():\n        x = x + 1\n        torch._dynamo.graph_break()" in body  # declined: unchanged
    assert summary.declined == 2


@pytest.mark.parametrize(
    "content, message",
    [
        ('{"cells": [torch.compile print(', "not a notebook: the file is not valid JSON"),
        ('{"nbformat": 3, "nbformat_minor": 0, "metadata": {"n": "torch.compile print("}, "worksheets": []}',
         "not an nbformat 4 notebook (nbformat 3)"),
        ('{"nbformat": 4, "nbformat_minor": 5, "metadata": {"n": "torch.compile print("}, "cells": [{"cell_type": "code"}]}',
         "invalid nbformat 4 notebook"),
    ],
)
def test_a_bad_notebook_gets_one_line_and_other_files_are_still_fixed(tmp_path: Path, content: str, message: str):
    (tmp_path / "bad.ipynb").write_text(content, encoding="utf-8")
    good = make_notebook(tmp_path / "good.ipynb")
    result = invoke("fix", str(tmp_path))
    assert result.exit_code == 2
    errors = [line for line in result.stderr.splitlines() if "bad.ipynb" in line]
    assert len(errors) == 1 and message in errors[0], result.stderr
    assert "_loop_body" in good.read_text(encoding="utf-8")


def test_a_cell_that_is_not_python_is_an_error_naming_the_file(tmp_path: Path):
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell("@torch.compile\ndef f(:\n    print(1)")]
    path = tmp_path / "nb.ipynb"
    nbformat.write(notebook, path)
    result = invoke("fix", str(path))
    assert result.exit_code == 2
    assert f"{path}: error: syntax error" in result.stderr


def test_notebooks_in_other_languages_are_left_alone(tmp_path: Path):
    notebook = nbformat.v4.new_notebook()
    notebook.metadata = {"language_info": {"name": "R"}}
    notebook.cells = [nbformat.v4.new_code_cell("torch.compile <- function(x) print(x)")]
    path = tmp_path / "nb.ipynb"
    nbformat.write(notebook, path)
    result = invoke("fix", "--check", str(path))
    assert result.exit_code == 0, result.output


def test_ci_formats_name_the_cell_instead_of_a_line_of_the_json(tmp_path: Path):
    path = make_notebook(tmp_path / "nb.ipynb")
    annotations = invoke("fix", "--check", "--format", "github", str(path)).stdout.splitlines()
    assert len(annotations) == 3
    assert all("line=" not in line.split("::")[1] for line in annotations)
    assert any("::cell 4:4:9: would fix:" in line for line in annotations)
    sarif = json.loads(invoke("fix", "--check", "--format", "sarif", str(path)).stdout)
    assert_valid_sarif(sarif)
    results = sarif["runs"][0]["results"]
    assert {r["message"]["text"].split(": ")[0] for r in results} == {"cell 4:4:9", "cell 4:8:9", "cell 4:9:5"}
    assert all("region" not in r["locations"][0]["physicalLocation"] and "fixes" not in r for r in results)


def test_an_added_definition_goes_into_the_cell_that_needs_it(tmp_path: Path):
    torch = pytest.importorskip("torch")
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell("import torch\nfrom torch import nn"),
        nbformat.v4.new_markdown_cell("The model"),
        nbformat.v4.new_code_cell(
            "class Net(nn.Module):\n    def forward(self, x):\n        h = x.relu()\n"
            "        print(\"norm\", h.norm())\n        return h * 2"
        ),
        nbformat.v4.new_code_cell("result = torch.compile(Net(), backend=\"eager\")(torch.arange(3.0))"),
    ]
    path = tmp_path / "nb.ipynb"
    nbformat.write(notebook, path)
    before = read_notebook(str(path), path.read_text(encoding="utf-8"))
    assert invoke("fix", str(path)).exit_code == 0
    sources = cell_sources(path)
    assert sources[0] == "import torch\nfrom torch import nn"  # the imports cell is left as it was
    assert sources[2].startswith("@torch.compiler.disable\ndef _deferred_print(*args):\n")
    assert '        _deferred_print("norm", h.norm())\n' in sources[2]
    assert invoke("fix", "--check", str(path)).exit_code == 0  # a second run changes nothing
    after = read_notebook(str(path), path.read_text(encoding="utf-8"))
    shown = []
    for notebook_code in (before, after):
        printed = io.StringIO()
        torch._dynamo.reset()
        namespace: dict[str, object] = {"__name__": "__main__"}
        with contextlib.redirect_stdout(printed):
            exec(compile(notebook_code.module_text, "<cells>", "exec"), namespace)
        shown.append((namespace["result"].tolist(), printed.getvalue()))
    assert shown[0] == shown[1] == ([0.0, 2.0, 4.0], "norm tensor(2.2361)\n")
