"""graphweld: a codemod that makes PyTorch code compile into whole graphs.

The core API lives in `graphweld.engine`: `propose` (changes for one text), `fix_text` (apply to a
fixed point) and `run` (files under paths, in parallel). On a live model, in a notebook or REPL:
`graphweld.explain(model, *args, **kwargs)` (see `graphweld.frontends.api`).
"""

from typing import TYPE_CHECKING, Any


def __getattr__(name: str) -> Any:
    # `__version__` is read from the installed metadata on first use: importlib.metadata costs
    # more than the rest of the command line's start-up for `graphweld --help`.
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("graphweld")
        except PackageNotFoundError:  # pragma: no cover - running from a source tree
            return "0.0.0"
    raise AttributeError(f"module 'graphweld' has no attribute {name!r}")

if TYPE_CHECKING:  # pragma: no cover
    from graphweld.frontends.api import ExplainReport


def explain(model: Any, *args: Any, **kwargs: Any) -> "ExplainReport":
    """Compile `model` here, call it with `args` and `kwargs`, and explain every graph break: a
    report with each site, the rule that fixes it and its diff, which renders as a table (and as
    HTML in Jupyter); `report.fix()` writes the safe fixes. See `graphweld.frontends.api.explain`."""
    # Imported on use: `import graphweld` stays light for the command line (no torch).
    from graphweld.frontends.api import explain as explain_model

    return explain_model(model, *args, **kwargs)
