"""Real-world migration: `graphweld fix --entry` over a copy of the installed transformers.

Small configs, no downloads. The copy goes first on PYTHONPATH, as the README describes.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from graphweld.frontends.cli import main

transformers = pytest.importorskip("transformers")
EXAMPLES = Path(__file__).parents[1] / "examples" / "huggingface"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def transformers_copy(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("site")
    shutil.copytree(Path(transformers.__file__).parent, root / "transformers", ignore=shutil.ignore_patterns("__pycache__"))
    return root


def _fix_entry(entry: str, package: Path, *options: str) -> dict:
    result = CliRunner().invoke(
        main,
        ["fix", "--entry", str(EXAMPLES / entry), "--compile-options", "backend=eager", "--format", "json", *options, str(package)],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize("entry, model_file", [("t5_entry.py", "models/t5/modeling_t5.py"), ("whisper_entry.py", "models/whisper/modeling_whisper.py")])
def test_library_warnings_in_inlined_layers_are_guarded_only_with_unsafe_fixes(
    transformers_copy: Path, monkeypatch, entry: str, model_file: str
):
    """Every break in these models is a `logger.warning_once` in a layer traced inline into the
    model's graph. A deferred call there would be dropped (torch 2.13), so the safe run keeps the
    file as it is; --unsafe-fixes guards the calls and reaches one graph, with equal outputs."""
    monkeypatch.setenv("PYTHONPATH", str(transformers_copy))
    package = transformers_copy / "transformers"
    modeling = package / model_file
    original = modeling.read_text()

    safe = _fix_entry(entry, package)
    assert safe["before"]["graph_breaks"] >= 1 and safe["after"]["graph_breaks"] == safe["before"]["graph_breaks"]
    assert safe["kept"] == {} and modeling.read_text() == original

    unsafe = _fix_entry(entry, package, "--unsafe-fixes")
    assert unsafe["after"]["graph_breaks"] == 0 and unsafe["after"]["graphs"] == 1
    assert unsafe["after"]["fullgraph"] is True and unsafe["after"]["skipped_frames"] == 0
    assert list(unsafe["kept"]) == [str(modeling)] and set(unsafe["kept"][str(modeling)]) == {"isolate-io"}
    fixed = modeling.read_text()
    assert "if not torch.compiler.is_compiling():" in fixed and "reorderable_logging_functions" not in fixed
    # Nothing else in the package was touched.
    assert (package / "models/bert/modeling_bert.py").read_text() == (
        Path(transformers.__file__).parent / "models/bert/modeling_bert.py"
    ).read_text()
    modeling.write_text(original)
