"""Which files are libraries: the standard library, torch and graphweld itself, code a user does
not rewrite and whose frames are not the user's (third-party packages such as transformers are
rewritable). Read by the parent and by the runner alike."""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import sysconfig


def is_library_file(path: str) -> bool:
    """Whether a file belongs to the Python standard library, torch or graphweld itself: code a
    user does not rewrite (third-party packages such as transformers are rewritable)."""
    torch_roots, site_roots, stdlib_roots = _library_roots()

    def under(roots: tuple[str, ...]) -> bool:
        return any(path.startswith(root + os.sep) for root in roots)

    return (
        under(torch_roots) or under((_GRAPHWELD_ROOT,)) or (under(stdlib_roots) and not under(site_roots))
        # A program run by another interpreter than graphweld's (`fix -- /other/venv/bin/python
        # train.py`): its torch and standard library are libraries all the same.
        or _OTHER_LIBRARY.search(path) is not None
    )


# torch installed in any environment, and a standard library of any Python (lib/python3.X/, not
# its site-packages).
_OTHER_LIBRARY = re.compile(r"[\\/](?:site|dist)-packages[\\/]torch[\\/]|[\\/]lib[\\/]python3\.\d+[\\/](?!(?:site|dist)-packages[\\/])")


# The package root (this module is in graphweld/runs/): every file of graphweld is library code.
_GRAPHWELD_ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


@functools.lru_cache(maxsize=1)
def _library_roots() -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    paths = sysconfig.get_paths()
    spec = importlib.util.find_spec("torch")
    torch_roots = tuple(os.path.realpath(p) for p in (spec.submodule_search_locations or []) if spec) if spec else ()
    site_roots = tuple({os.path.realpath(paths[key]) for key in ("purelib", "platlib")})
    stdlib_roots = tuple({os.path.realpath(paths[key]) for key in ("stdlib", "platstdlib")})
    return torch_roots, site_roots, stdlib_roots
