"""A program that compiles an entry's model itself (`run.py` beside the entry), checked before and
after `graphweld fix <entry> -- python run.py`: it fails before with what Dynamo says, and after
the fix prints what the model printed eagerly."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from test_entry import invoke

PRINT_EAGER = "from {module} import *; print(f'{{my_model_function()(*GetInput()).item():.5f}}')"


def assert_fails_then_runs(workdir: Path, module: str, run_text: str, failure: str, *options: str) -> None:
    """`run_text` (which prints the compiled model's output with five decimals) fails before the
    fix with `failure` in its stderr, and after it prints what the model printed eagerly."""
    (workdir / "run.py").write_text(run_text)
    eager = subprocess.run(
        [sys.executable, "-c", PRINT_EAGER.format(module=module)], cwd=workdir, capture_output=True, text=True, check=True
    ).stdout
    failed = subprocess.run([sys.executable, "run.py"], cwd=workdir, capture_output=True, text=True)
    assert failed.returncode != 0 and failure in failed.stderr, failed.stderr[-2000:]
    result = invoke("fix", *options, f"{module}.py", "--", sys.executable, "run.py")
    assert result.exit_code == 0, result.output
    ran = subprocess.run([sys.executable, "run.py"], cwd=workdir, capture_output=True, text=True, check=True)
    assert ran.stdout == eager
