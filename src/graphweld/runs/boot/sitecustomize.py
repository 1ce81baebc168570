"""Loaded by Python's `site` at the start of every process of a command graphweld runs (this
folder is first on its PYTHONPATH): installs graphweld's instrumentation (graphweld.runs.instrument),
then runs the `sitecustomize` this one hides, if the environment has one."""

import importlib.machinery
import importlib.util
import os
import sys

if os.environ.get("GRAPHWELD_REQUEST"):
    try:
        from graphweld.runs.instrument import boot
    except ImportError:
        # The command runs another interpreter than graphweld's: reach graphweld's own copy last.
        sys.path.append(os.environ.get("GRAPHWELD_HOME", ""))
        from graphweld.runs.instrument import boot
    boot()

_here = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.machinery.PathFinder.find_spec(
    "sitecustomize", [entry for entry in sys.path if os.path.abspath(entry or ".") != _here]
)
if _spec is not None and _spec.loader is not None:
    _module = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_module)
