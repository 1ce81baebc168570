"""Shared test helpers: golden-case discovery and torch.compile graph counting."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

ENTRIES = Path(__file__).parent / "entries"


def pytest_configure(config):
    # Inductor's cache would otherwise stay behind in /tmp after every run (gigabytes for the whole
    # suite, which filled CI's disk before its second torch was installed). A cache per session,
    # removed at its end; the runs graphweld starts inherit it. A cache the user names is kept.
    if "TORCHINDUCTOR_CACHE_DIR" not in os.environ:
        cache = tempfile.mkdtemp(prefix="graphweld-tests-inductor-")
        config._graphweld_inductor_cache = cache
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache
        os.environ.setdefault("TRITON_CACHE_DIR", os.path.join(cache, "triton"))


def pytest_unconfigure(config):
    cache = getattr(config, "_graphweld_inductor_cache", None)
    if cache:
        shutil.rmtree(cache, ignore_errors=True)


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
