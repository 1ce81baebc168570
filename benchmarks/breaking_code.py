"""How much breaking code a library holds, read from its source without running it or graphweld's
rules: the constructs behind issue 68's mechanisms (scalars read out of tensors, shapes decided by
data, recurrent modules, hooks, branches on a tensor's `any()`/`all()`, `torch.autograd.grad`),
counted per library, outside its tests, examples and docs. `reach.py`'s draws are chosen by it
and written down before any program is written or measured for them.

    pip download --no-deps -d wheels/torchkge torchkge      # a wheel or sdist per library
    python benchmarks/breaking_code.py wheels/*/             # folders, wheels or sdists

The counts are a proxy for where the breaks are, not breaks: code a program never runs is
counted, and one construct can break several frames.
"""

from __future__ import annotations

import argparse
import io
import re
import sys
import tarfile
import zipfile
from pathlib import Path
from typing import Iterator

# What each mechanism looks like in source (a regular expression per mechanism).
CONSTRUCTS = {
    "scalars": r"\.item\(\)|\.tolist\(\)",
    "data shapes": r"\.nonzero\(|torch\.nonzero|masked_select|\.unique\(|torch\.unique|repeat_interleave|torch\.where\([^,()]*\)",
    "recurrent": r"nn\.(LSTM|GRU|RNN)\(",
    "hooks": r"register_(full_)?(forward|backward)(_pre)?_hook|register_hook\(",
    "branches": r"if .*\.(any|all)\(\)",
    "autograd.grad": r"autograd\.grad\(",
}
# Folders whose code no user's program runs.
_SKIPPED = re.compile(r"(^|/)(tests?|examples?|docs?|benchmarks?)(/|$)")


def sources(path: Path) -> Iterator[tuple[str, str]]:
    """(name, text) of each `.py` file in a folder, a wheel or an sdist, outside _SKIPPED."""
    if path.is_dir():
        files = ((str(p.relative_to(path)), p.read_bytes) for p in sorted(path.rglob("*.py")))
    elif path.suffix == ".whl" or path.suffix == ".zip":
        archive = zipfile.ZipFile(path)
        files = ((name, lambda name=name: archive.read(name)) for name in archive.namelist() if name.endswith(".py"))
    else:
        tar = tarfile.open(path)
        files = (
            (member.name, lambda member=member: tar.extractfile(member).read())  # type: ignore[union-attr]
            for member in tar.getmembers() if member.isfile() and member.name.endswith(".py")
        )
    for name, read in files:
        if not _SKIPPED.search(name):
            yield name, io.TextIOWrapper(io.BytesIO(read()), errors="replace").read()


def count(path: Path) -> tuple[int, dict[str, int]]:
    """Lines of code and each mechanism's constructs in one library."""
    lines, found = 0, dict.fromkeys(CONSTRUCTS, 0)
    for _, text in sources(path):
        lines += text.count("\n")
        for mechanism, pattern in CONSTRUCTS.items():
            found[mechanism] += len(re.findall(pattern, text))
    return lines, found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", type=Path, help="a library's folder, wheel or sdist (a folder holding one is taken)")
    args = parser.parse_args()
    rows = []
    for path in args.paths:
        archives = sorted(path.glob("*.whl")) + sorted(path.glob("*.tar.gz")) if path.is_dir() else []
        target = archives[0] if archives else path
        try:
            rows.append((path.name.rstrip("/") or str(path), *count(target)))
        except (OSError, zipfile.BadZipFile, tarfile.TarError) as exc:
            print(f"{path}: cannot read: {exc}", file=sys.stderr)
    print(f"| library | lines | constructs | {' | '.join(CONSTRUCTS)} |")
    print("| --- | --- | --- |" + " --- |" * len(CONSTRUCTS))
    for name, lines, found in sorted(rows, key=lambda row: -sum(row[2].values())):
        print(f"| {name} | {lines} | {sum(found.values())} | {' | '.join(str(found[m]) for m in CONSTRUCTS)} |")


if __name__ == "__main__":
    main()
