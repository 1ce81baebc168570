#!/usr/bin/env bash
# Prepare what benchmarks/gpu_check.sh installs on a GPU machine that has no package registry:
# graphweld's own wheel and the wheels of what it needs that such a machine lacks (libcst, the
# language server's and the notebooks' packages), for its Python (3.12 by default) and Linux
# x86-64. Run it here, where PyPI is reachable; it fills .gpu-wheels/ (git-ignored), which the
# device tool carries beside the working tree (`carry: [".gpu-wheels"]`).
#
#   bash benchmarks/gpu_wheels.sh [PYTHON_VERSION]
set -euo pipefail
cd "$(dirname "$0")/.."
version="${1:-3.12}"
wheels=.gpu-wheels
rm -rf "$wheels" && mkdir -p "$wheels"
python3 -m pip download --quiet --only-binary=:all: --python-version "$version" \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
    --no-deps -d "$wheels" \
    libcst pyyaml pygls lsprotocol cattrs attrs nbformat fastjsonschema jupyter_core traitlets platformdirs \
    typing_extensions
python3 -m pip wheel --quiet --no-deps -w "$wheels" .
ls -1 "$wheels"
