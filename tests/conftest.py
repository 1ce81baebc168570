"""Shared test helpers: golden-case discovery and torch.compile graph counting."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ENTRIES = Path(__file__).parent / "entries"


def pytest_collection_modifyitems(config, items):
    try:
        import torch

        has_cuda = torch.cuda.is_available()
    except ImportError:  # pragma: no cover - torch is a test dependency
        has_cuda = False
    if has_cuda:
        return
    skip = pytest.mark.skip(reason="needs a CUDA device")
    for item in items:
        if "cuda" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _no_color(monkeypatch):
    # CLI output is asserted as plain text.
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    os.environ.pop("FORCE_COLOR", None)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """The entries of tests/entries/ copied to a temporary folder (fix --entry writes in place)."""
    for path in ENTRIES.glob("*.py"):
        shutil.copy(path, tmp_path / path.name)
    for package in ENTRIES.glob("*/__init__.py"):
        shutil.copytree(package.parent, tmp_path / package.parent.name, ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path
