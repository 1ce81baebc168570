"""A runner process that imports torch once and forks a fresh runner for each run.

Importing torch and Dynamo takes about five seconds of CPU, most of a small entry's run, and a
verified fix makes several runs (eager and compiled, then again for each candidate). The server
(`python -m graphweld.runs.runner_server --serve`, below) imports them once and then, for each run, forks a
child that does exactly what `python -m graphweld.runs.runner REQUEST RESULT` does: a process of
its own, with the entry's folder as its working directory and first on `sys.path`, its output in a
log of its own, and a normal interpreter exit. Nothing of one run reaches the next: the server
itself never loads an entry, compiles or runs anything.

The server is started with the first run and kept while runs keep the same interpreter and
environment (a different one starts another). It imports torch in an empty folder, so nothing of
the user's can stand in for what torch imports. Where it cannot serve (no `fork`, not Linux, a GPU
driver loaded by the import, a run that rewrites a module the server has imported or whose folder
holds a module of the same name, a server that died), the run is made in a fresh interpreter as
before; `GRAPHWELD_FRESH_RUNS=1` always does that.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import signal
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import Any

from graphweld.runs.failures import first_line

# The exit status of a child that could not run here (a module the run rewrites is already
# imported by the server, or the entry's folder would shadow one): the run is made again in a
# fresh interpreter.
NEEDS_FRESH_INTERPRETER = 75
# A server nobody has used for this long exits (a language server keeps graphweld alive for hours).
IDLE_SECONDS = 600


class ServerUnavailable(Exception):
    """The server could not take this run; make it in a fresh interpreter."""


@dataclass
class Finished:
    """A run the server made: its exit status and what it wrote to stdout and stderr."""

    returncode: int
    output: str


class RunnerServer:
    """The parent's side: one server process, one run at a time (runs are sequential)."""

    def __init__(self, executable: str, environment: dict[str, str], start_timeout: float, inductor: bool = False) -> None:
        self.key = _key(executable, environment)
        self.folder = tempfile.mkdtemp(prefix="graphweld-server-")
        self.process = subprocess.Popen(
            [executable, "-m", "graphweld.runs.runner_server", "--serve", *(["--inductor"] if inductor else [])],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=self.folder,
            env=environment,
        )
        self._pending = b""
        self._lock = threading.Lock()
        self.broken = False
        try:
            ready = self._reply(time.monotonic() + start_timeout)
        except (ServerUnavailable, TimeoutError):
            self.close()  # a server slower than the run's time to start is not left behind
            raise
        if not ready.get("ready"):
            self.close()
            raise ServerUnavailable(ready.get("why", "the server is not ready"))

    def run(self, request_path: str, result_path: str, log_path: str, timeout: float) -> Finished:
        """Run one request in a forked child; raise TimeoutError (the child killed) past `timeout`."""
        with self._lock:  # one run at a time: the replies are read in order
            return self._run(request_path, result_path, log_path, timeout)

    def _run(self, request_path: str, result_path: str, log_path: str, timeout: float) -> Finished:
        job = {"request": request_path, "result": result_path, "log": log_path}
        try:
            assert self.process.stdin is not None
            self.process.stdin.write(json.dumps(job).encode("utf-8") + b"\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError) as error:
            self.broken = True
            raise ServerUnavailable(f"the server is gone ({error})") from None
        deadline = time.monotonic() + timeout
        try:
            started = self._reply(deadline)
        except (TimeoutError, ServerUnavailable):
            self.broken = True
            raise ServerUnavailable("the server did not start the run") from None
        pid = started.get("pid")
        if not isinstance(pid, int):
            self.broken = True
            raise ServerUnavailable("the server did not start the run")
        try:
            finished = self._reply(deadline)
        except TimeoutError:
            _kill(pid)
            try:
                self._reply(time.monotonic() + 30)  # the server reaps the child and says so
            except (TimeoutError, ServerUnavailable):
                self.broken = True
            raise
        except BaseException:
            # Ctrl-C, or the server died: the child does not outlive the run it was for.
            _kill(pid)
            self.broken = True
            raise
        if finished.get("status") == NEEDS_FRESH_INTERPRETER:
            raise ServerUnavailable("the run rewrites or shadows a module the server has imported")
        with open(log_path, encoding="utf-8", errors="replace") as handle:
            output = handle.read()
        return Finished(int(finished.get("status", 1)), output)

    def _reply(self, deadline: float) -> dict:
        """The server's next line, as JSON; TimeoutError past the deadline."""
        assert self.process.stdout is not None
        line, self._pending = read_line(self.process.stdout.fileno(), self._pending, deadline)
        if line is None:
            raise ServerUnavailable("the server exited")
        return json.loads(line)

    def close(self) -> None:
        """Stop the server: it exits when its input closes (at once, unless a run is in progress)."""
        try:
            if self.process.stdin is not None:
                self.process.stdin.close()
        except OSError:
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


def read_line(descriptor: int, pending: bytes, deadline: float) -> tuple[bytes | None, bytes]:
    """The next line from a pipe, given what was read past the last one, and what is read past
    this one; None at the end of the pipe; TimeoutError past `deadline` (time.monotonic())."""
    while b"\n" not in pending:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        readable, _, _ = select.select([descriptor], [], [], left)
        if not readable:
            continue
        chunk = os.read(descriptor, 65536)
        if not chunk:
            return None, pending
        pending += chunk
    line, pending = pending.split(b"\n", 1)
    return line, pending


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _key(executable: str, environment: dict[str, str]) -> tuple:
    """What a server is kept for: runs with this interpreter and environment."""
    return (executable, tuple(sorted(environment.items())))


_server: RunnerServer | None = None
_unavailable: set[tuple] = set()
# Why the last servers started did not serve ("with inductor: ..."), for the GPU check to show.
refusals: list[str] = []


def server_for(timeout: float, inductor: bool = False) -> RunnerServer | None:
    """The server for runs with this interpreter and environment, started if need be; None where
    runs are made in fresh interpreters. One started for a run that compiles with inductor imports
    inductor's compiler too (about 1.3 s once, saved on every inductor run); any server serves any
    run."""
    global _server
    if os.environ.get("GRAPHWELD_FRESH_RUNS") or not sys.platform.startswith("linux") or not hasattr(os, "fork"):
        return None
    environment = dict(os.environ)
    key = _key(sys.executable, environment)
    if key in _unavailable:
        return None
    if _server is not None and (_server.key != key or _server.broken or _server.process.poll() is not None):
        _server.close()
        _server = None
    if _server is None:
        refusals.clear()
        # Where inductor's import is what keeps a server from serving (it may load a GPU driver),
        # one without it still saves the rest.
        for preload_inductor in (True, False) if inductor else (False,):
            try:
                _server = RunnerServer(sys.executable, environment, timeout, preload_inductor)
                break
            except (ServerUnavailable, TimeoutError, OSError) as why:
                refusals.append(f"{'with' if preload_inductor else 'without'} inductor: {why or type(why).__name__}")
                if not isinstance(why, ServerUnavailable):
                    break  # too slow to start, or no interpreter: another start would be too
        if _server is None:
            _unavailable.add(key)
    return _server


def forget_server() -> None:
    """Stop the server (the process is exiting)."""
    global _server
    if _server is not None:
        _server.close()
        _server = None


atexit.register(forget_server)


# The server's side: what the process started above runs.


def serve(inductor: bool) -> None:
    """`python -m graphweld.runs.runner_server --serve [--inductor]`: import torch and Dynamo once
    (and inductor's compiler with `--inductor`), then fork a runner for each request read from
    stdin (one JSON line: request, result and log paths), answer with the child's pid and then its
    exit status. Returns in the server when it is done; a forked child is handed to
    `_run_in_child`, and returns when its run is done, to exit as a fresh runner would."""
    import gc

    protocol = os.fdopen(os.dup(1), "w", encoding="utf-8")
    # Nothing but the protocol reaches the parent's pipe (torch's import may print).
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    start_directory = os.getcwd()

    def answer(message: dict[str, Any]) -> None:
        protocol.write(json.dumps(message) + "\n")
        protocol.flush()

    try:
        import torch  # noqa: F401
        import torch._dynamo.convert_frame  # noqa: F401  (what collect_dynamo_log imports)
        import torch._dynamo.exc  # noqa: F401
        import torch._dynamo.guards  # noqa: F401
        import torch._dynamo.symbolic_convert  # noqa: F401
        import torch._inductor.config  # noqa: F401

        # The backends' modules (AOTAutograd and networkx among them), which each run's first
        # compile would import again: about half a second of a small run.
        torch._dynamo.list_backends()
        if inductor:
            import torch._inductor.compile_fx  # noqa: F401  (about 1.3 s of each inductor run)
    except BaseException as exc:  # the fresh runner will report it
        answer({"ready": False, "why": first_line(exc)})
        return
    if threading.active_count() > 1:  # a Python thread would not survive the fork
        answer({"ready": False, "why": "torch's import started a thread"})
        return
    if _gpu_driver_loaded():
        answer({"ready": False, "why": "a GPU driver is loaded: a forked run could not use the device"})
        return
    # What the imports made is kept for good: a child's collections then skip it instead of
    # writing to every page of it (copy-on-write), which cost a small run about a second.
    gc.collect()
    gc.freeze()
    answer({"ready": True})
    # The files of what is imported here, the same for every child (about 0.2 s to resolve).
    imported_files = frozenset(
        os.path.realpath(module.__file__) for module in list(sys.modules.values()) if getattr(module, "__file__", None)
    )
    pending = b""
    try:
        while True:
            try:
                line, pending = read_line(0, pending, time.monotonic() + IDLE_SECONDS)
            except TimeoutError:
                return  # left idle
            if line is None:
                return  # the parent closed our input
            job = json.loads(line)
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                break
            answer({"pid": pid})
            _, status = os.waitpid(pid, 0)
            answer({"status": os.waitstatus_to_exitcode(status)})
    except (KeyboardInterrupt, BrokenPipeError):
        return  # Ctrl-C reached the whole process group: the parent reports it
    # Here only in the forked child, which the loop left at `break`.
    protocol.close()
    _run_in_child(job, start_directory, imported_files)


def _gpu_driver_loaded() -> bool:
    """Whether CUDA's or ROCm's driver library is in this process (a forked child cannot use a
    device its parent initialized)."""
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            mapped = maps.read()
    except OSError:
        return True
    return "libcuda.so" in mapped or "libamdhip64" in mapped


def _shadows_an_import(directory: str) -> bool:
    """Whether `directory`, first on a fresh runner's path, holds a module or package named as one
    the server imported from elsewhere (a fresh interpreter would have imported the user's)."""
    imported = {name.partition(".")[0] for name in sys.modules}
    try:
        names = os.listdir(directory)
    except OSError:
        return False
    for name in names:
        stem = name.partition(".")[0]
        if stem not in imported:
            continue
        path = os.path.join(directory, name)
        if name.endswith((".py", ".pyc", ".so")) or os.path.isfile(os.path.join(path, "__init__.py")):
            return True
    return False


def _run_in_child(job: dict[str, Any], start_directory: str, imported_files: frozenset[str]) -> None:
    """In the forked child: run as `python -m graphweld.runs.runner REQUEST RESULT` started in the
    entry's folder would (its output to the run's log), or exit with NEEDS_FRESH_INTERPRETER where
    the run rewrites a module already imported here (one of `imported_files`) or the entry's folder
    would shadow one."""
    with open(job["request"], encoding="utf-8") as handle:
        request = json.load(handle)
    directory = os.path.dirname(request["entry"])
    if any(os.path.realpath(path) in imported_files for path in request.get("overlay", {})) or _shadows_an_import(directory):
        os._exit(NEEDS_FRESH_INTERPRETER)
    log = os.open(job["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    os.chdir(directory)
    if sys.path and sys.path[0] == start_directory:
        sys.path[0] = os.getcwd()  # as `python -m` puts the folder it starts in
    from graphweld.runs import runner

    sys.argv[:] = [runner.__file__, job["request"], job["result"]]
    runner.main()


if __name__ == "__main__":
    if sys.argv[1:] in (["--serve"], ["--serve", "--inductor"]):
        serve(inductor=sys.argv[2:] == ["--inductor"])
