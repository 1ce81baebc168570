"""`python -m graphweld` and the `graphweld` command.

Ctrl-C exits 130, the shell's code for an interrupt (1 would mean "changes pending"), wherever it
lands: also while the command line's modules are still being imported.
"""

from __future__ import annotations

import sys

from graphweld.interrupted import INTERRUPTED, INTERRUPTED_MESSAGE


def entry() -> None:
    try:
        from graphweld.frontends.cli import main

        main()
    except KeyboardInterrupt:
        print(INTERRUPTED_MESSAGE, file=sys.stderr)
        sys.exit(INTERRUPTED)


if __name__ == "__main__":
    entry()
