"""Real-world migration: `graphweld fix --entry` over a copy of the installed transformers.

Small configs, no downloads. The copy goes first on PYTHONPATH, as the README describes.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from graphweld.cli import main

transformers = pytest.importorskip("transformers")
EXAMPLES = Path(__file__).parents[1] / "examples" / "huggingface"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def transformers_copy(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("site")
    shutil.copytree(Path(transformers.__file__).parent, root / "transformers", ignore=shutil.ignore_patterns("__pycache__"))
    return root


@pytest.mark.parametrize("entry, model_file", [("t5_entry.py", "models/t5/modeling_t5.py"), ("whisper_entry.py", "models/whisper/modeling_whisper.py")])
def test_fix_entry_takes_the_model_to_one_graph(transformers_copy: Path, monkeypatch, entry: str, model_file: str):
    monkeypatch.setenv("PYTHONPATH", str(transformers_copy))
    package = transformers_copy / "transformers"
    modeling = package / model_file
    original = modeling.read_text()
    result = CliRunner().invoke(
        main,
        ["fix", "--entry", str(EXAMPLES / entry), "--compile-options", "backend=eager", "--format", "json", str(package)],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["before"]["graph_breaks"] >= 1 and data["after"]["graph_breaks"] == 0
    assert data["after"]["graphs"] == 1 and data["after"]["skipped_frames"] == 0
    assert data["after"]["fullgraph"] is True
    assert data["after"]["ops"] == data["before"]["ops"]
    assert list(data["kept"]) == [str(modeling)] and set(data["kept"][str(modeling)]) == {"isolate-io"}
    assert data["dropped"] == {}
    fixed = modeling.read_text()
    assert fixed != original and "reorderable_logging_functions.add(_deferred_logger_warning_once)" in fixed
    # Nothing else in the package was touched.
    assert (package / "models/bert/modeling_bert.py").read_text() == (
        Path(transformers.__file__).parent / "models/bert/modeling_bert.py"
    ).read_text()
