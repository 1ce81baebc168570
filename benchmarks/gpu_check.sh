#!/usr/bin/env bash
# graphweld's GPU check, in one call on a machine with a GPU and no package registry (Python,
# torch, click, rich, pytest, cupy, jax there; not libcst, pygls, lsprotocol, cattrs, nbformat):
# installs graphweld from the wheels carried beside the working tree (.gpu-wheels/, made by
# benchmarks/gpu_wheels.sh), then runs `pytest -m cuda` and, for the bundled example and one
# program per rule with a CUDA form, `graphweld fix --entry --device cuda` with the default
# backend, timing each model before and after; prints one table (docs/gpu-check.md).
#
#   bash benchmarks/gpu_check.sh            # results under $OUT (the device tool's), else a temp dir
#   GRAPHWELD_GPU_CHECK_DEVICE=cpu bash benchmarks/gpu_check.sh   # the same runs on CPU, to try it
set -uo pipefail
cd "$(dirname "$0")/.."
wheels="${GRAPHWELD_WHEELS:-.gpu-wheels}"
device="${GRAPHWELD_GPU_CHECK_DEVICE:-cuda}"
out="${OUT:-$(mktemp -d)}/gpu-check"
mkdir -p "$out"
py="${PYTHON:-python3}"
if ! "$py" -c "import libcst, graphweld" 2>/dev/null; then
    if ! ls "$wheels"/*.whl >/dev/null 2>&1; then
        echo "gpu_check: no wheels in $wheels: run benchmarks/gpu_wheels.sh where PyPI is reachable, and carry $wheels" >&2
        exit 2
    fi
    site="$(mktemp -d)/site"
    "$py" -m pip install --quiet --no-index --no-deps --target "$site" "$wheels"/*.whl || exit 2
    export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
fi
"$py" -c "import graphweld, libcst, torch; print('graphweld', graphweld.__version__, 'libcst', libcst.__version__ if hasattr(libcst, '__version__') else '?', 'torch', torch.__version__)" || exit 2
"$py" benchmarks/gpu_check.py --out "$out" --device "$device" "$@"
status=$?
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || true
exit $status
