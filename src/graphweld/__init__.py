"""graphweld: a codemod that makes PyTorch code compile into whole graphs.

The core API lives in `graphweld.engine`: `propose` (changes for one text), `fix_text` (apply to a
fixed point) and `run` (files under paths, in parallel).
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("graphweld")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"
