"""`python -m graphweld.runs.overlaid_script SCRIPT ARGS...`: runs SCRIPT as `python SCRIPT ARGS...`
does, from its rewritten text in the run's import overlay.

The overlay serves the modules a program imports; the script Python is started on is read by
Python itself, before any hook can serve it. A command whose script graphweld rewrote
(`graphweld fix -- python train.py`, where train.py holds the compiled code) is started through
this module instead (`runs/command.py`), so that the run verifies the rewrite and not the file on
disk.
"""

from __future__ import annotations

import builtins
import json
import os
import sys
import types


def main() -> None:
    path = sys.argv[1]
    with open(os.environ["GRAPHWELD_REQUEST"], encoding="utf-8") as handle:
        source = json.load(handle)["overlay"][os.path.realpath(path)]
    sys.argv = sys.argv[1:]
    # `python SCRIPT` puts the script's folder first on sys.path, where `-m` put the working one.
    sys.path[0] = os.path.dirname(os.path.realpath(path))
    module = types.ModuleType("__main__")
    module.__file__ = path
    module.__builtins__ = builtins  # type: ignore[attr-defined]
    sys.modules["__main__"] = module
    exec(compile(source, path, "exec", dont_inherit=True), module.__dict__)  # noqa: S102 (the user's own script)


if __name__ == "__main__":
    main()
