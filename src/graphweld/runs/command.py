"""Running a command as the entry (`graphweld explain -- python train.py --steps 2`, `python -m
pkg`, a console script, `pytest ...`): the command runs as the user would run it, in a subprocess
(with a timeout), with graphweld's instrumentation (`graphweld.runs.instrument`) loaded into every
Python process it starts, through a `sitecustomize` first on its PYTHONPATH. Rewritten files reach
those processes through the import overlay, so nothing is written before the run accepts them.

What the command's processes saw is merged into one `RunReport`: graphs, ops, breaks (file, line,
GB id), skipped frames and recompiles over the whole program, what it printed (its standard
output) and the log records it wrote. A command whose own `fullgraph=True` compile fails is run
again with it relaxed, as an entry is.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphweld.runs.entry import DEFAULT_TIMEOUT, EntryError, RunFailed, RunReport, break_site, Recompile

_BOOT = str(Path(__file__).parent / "boot")
# The folder holding the graphweld package, for a command that runs another interpreter.
_HOME = str(Path(__file__).parents[2])


@dataclass(frozen=True)
class Command:
    """A command line and the folder it runs in."""

    argv: tuple[str, ...]
    cwd: str = field(default_factory=os.getcwd)

    def __str__(self) -> str:
        return shlex.join(self.argv)

    @classmethod
    def parse(cls, text: str, cwd: str | None = None) -> "Command":
        """`"pytest -x tests"` as a command (for `--test`)."""
        argv = tuple(shlex.split(text))
        if not argv:
            raise EntryError("the command is empty")
        return cls(argv, cwd or os.getcwd())


def run_command(
    command: Command,
    *,
    overlay: dict[str, str] | None = None,
    compile_options: dict[str, Any] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    instrument: bool = True,
) -> RunReport:
    """Run the command and return what its processes saw (RunFailed when it exits non-zero,
    with its last line of error output). `instrument=False` serves the overlay only (a test
    command, whose exit status is all that is asked)."""
    result = _run(command, overlay or {}, compile_options or {}, timeout, instrument, relax=False)
    if result["exit_code"] != 0 and result["fullgraph_requested"]:
        relaxed = _run(command, overlay or {}, compile_options or {}, timeout, instrument, relax=True)
        if relaxed["exit_code"] == 0:
            return _report(relaxed, fullgraph_error=result["error"])
    if result["exit_code"] != 0:
        raise RunFailed(str(command), result["error"], traceback=result["stderr"])
    return _report(result)


def _run(command: Command, overlay: dict[str, str], options: dict[str, Any], timeout: float, instrument: bool,
         relax: bool) -> dict[str, Any]:  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="graphweld-command-") as scratch:
        request_path = os.path.join(scratch, "request.json")
        request = {
            "overlay": {os.path.realpath(path): text for path, text in overlay.items()},
            "result_dir": scratch,
            "compile_options": options if instrument else {},
            "relax_fullgraph": relax,
            "instrument": instrument,
        }
        with open(request_path, "w", encoding="utf-8") as handle:
            json.dump(request, handle)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [_BOOT, env.get("PYTHONPATH")]))
        env["GRAPHWELD_REQUEST"] = request_path
        env["GRAPHWELD_HOME"] = _HOME
        env["PYTHONUNBUFFERED"] = "1"
        try:
            completed = subprocess.run(
                overlaid_argv(command, request["overlay"]), cwd=command.cwd, env=env, capture_output=True, text=True, timeout=timeout
            )
        except subprocess.TimeoutExpired:
            raise EntryError(f"{command}: the run took longer than {timeout:.0f} s and was stopped") from None
        except OSError as exc:
            raise EntryError(f"{command}: cannot run it: {exc.strerror or exc}") from None
        processes = []
        for name in sorted(os.listdir(scratch)):
            if name.startswith("result-") and name.endswith(".json"):
                with open(os.path.join(scratch, name), encoding="utf-8") as handle:
                    processes.append(json.load(handle))
    return {
        "exit_code": completed.returncode,
        "stdout": completed.stdout,
        "stderr": completed.stderr,
        "error": _error_line(completed.stderr.strip().splitlines(), completed.stdout.strip().splitlines(), completed.returncode),
        "processes": processes,
        "fullgraph_requested": any(process["fullgraph_requested"] for process in processes),
    }


_EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt)\b")
# pytest's short summary: the first failing test, and why.
_PYTEST_FAILURE = re.compile(r"^(FAILED|ERROR) \S")


def _error_line(stderr: list[str], stdout: list[str], code: int) -> str:
    """Why a program failed, in one line: the exception its traceback ends with; for a test run,
    the first failure pytest's summary names; else the last line it printed (a warning printed
    on the way is not why)."""
    for line in reversed(stderr):
        if _EXCEPTION_LINE.match(line):
            return line.strip()
    for line in stdout:
        if _PYTEST_FAILURE.match(line):
            return line.strip()
    for lines in (stdout, stderr):
        for line in reversed(lines):
            if line.strip() and not line.startswith((" ", "\t")):
                return line.strip(" =")
    return f"it exited with code {code}"


def _report(result: dict[str, Any], fullgraph_error: str | None = None) -> RunReport:
    import torch  # only for the version the report names

    processes = result["processes"]
    return RunReport(
        device="",
        torch_version=torch.__version__,
        outputs={},
        compiled_stdout=result["stdout"],
        compiled_log_records=[record for process in processes for record in process["log_records"]],
        graphs=sum(process["graphs"] for process in processes),
        ops=sum(process["ops"] for process in processes),
        parameters_in_graphs=sum(process.get("parameters_in_graphs", 0) for process in processes),
        skipped_frames=sum(process["skipped_frames"] for process in processes),
        fullgraph=False if fullgraph_error else None,
        fullgraph_error=fullgraph_error,
        fullgraph_relaxed=fullgraph_error is not None,
        compiled_by="command",
        breaks=[break_site(parsed) for process in processes for parsed in process["breaks"]],
        recompiles=[Recompile(r["function"], r["file"], r["line"], r["reason"]) for process in processes for r in process["recompiles"]],
    )


def overlaid_argv(command: Command, overlay: dict[str, str]) -> list[str]:
    """The command's argv, started through `graphweld.runs.overlaid_script` when it runs a
    Python script (`python SCRIPT ARGS...`) whose rewritten text is in the overlay: Python
    reads the script it is started on itself, past the import overlay."""
    argv = list(command.argv)
    script = script_path(command)
    if script is not None and script in overlay:
        return [argv[0], "-m", "graphweld.runs.overlaid_script", *argv[1:]]
    return argv


def script_path(command: Command) -> str | None:
    """The real path of the Python script the command starts (`python SCRIPT ARGS...`); None for
    any other command (`python -m pkg`, `pytest`)."""
    argv = command.argv
    if len(argv) >= 2 and os.path.basename(argv[0]).startswith("python") and not argv[1].startswith("-"):
        return os.path.realpath(os.path.join(command.cwd, argv[1]))
    return None


def command_for_script(path: str) -> Command:
    """`python SCRIPT` with this interpreter, for a file given as the entry that is a program
    rather than an entry (it defines no `my_model_function`)."""
    return Command((sys.executable, path))
