"""The entry runner: runs inside a subprocess (`python -m graphweld.runs.runner REQUEST RESULT`).

It loads an entry (seed 000's convention: `my_model_function()` returns the model or function,
`GetInput()` its input), serves rewritten sources through an import overlay, runs the model
eagerly and/or compiled, collects every graph break from Dynamo's graph-break logs (file, line,
GB id, reason; `torch._dynamo.explain` misses breaks in loops) and every recompilation from its
recompile log, checks `fullgraph=True`, and writes a JSON result plus the outputs (torch.save).

The program is measured as its own code compiles it: every graph Dynamo hands to a backend is
counted, whoever called `torch.compile`. Only when running what the factory returns compiles
nothing by itself (seed 000's harness compiles a plain model) does the runner compile it. The
eager reference runs with every `torch.compile` in the program turned off
(`torch.compiler.set_stance("force_eager")`).

The program is called more than once, eagerly and compiled alike: with the entry's input, with it
again, and with a second input of the same shapes when `GetInput()` makes one under another seed.
Graphs, ops, breaks and skipped frames are those of the first call; recompilations are counted
over all of them (a rewrite that makes every call recompile is worse, not better).

A program that compiles itself with `fullgraph=True` and fails is measured twice: as written (the
failure, with its site, is what `fullgraph=True` reports), and in a second process with its
`fullgraph=True` requests relaxed to `fullgraph=False`, which finds every break (the request
`relax_fullgraph`).
Only this module imports torch; graphweld's rewriting never does.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.abc
import importlib.machinery
import importlib.util
import io
import json
import logging
import os
import re
import sys
import traceback
from typing import Any, Callable

_SITE = re.compile(r"Graph break .*?in user code at (.+):(\d+)")
# convert_frame's record of a break it could not resume from, whose site is its user stack.
_UNRESUMABLE = "Graph break: torch.compile cannot properly resume from this graph break"
_GB_ID = re.compile(r"/gb/(gb\d+)\.html")
_FRAME = re.compile(r'^\s*File "(.+)", line (\d+), in (\S+)')
_RECOMPILE = re.compile(r"Recompiling function (\S+) in (.+):(\d+)")


class OverlayLoader(importlib.machinery.SourceFileLoader):
    """Loads a module from text held in memory instead of its file (never from a stale .pyc)."""

    def __init__(self, fullname: str, path: str, source: str) -> None:
        super().__init__(fullname, path)
        self.source = source

    def get_data(self, path: str) -> bytes:
        if os.path.realpath(path) == os.path.realpath(self.path):
            return self.source.encode("utf-8")
        return super().get_data(path)

    def get_code(self, fullname: str):  # type: ignore[no-untyped-def]
        return compile(self.source, self.path, "exec", dont_inherit=True)


class OverlayFinder(importlib.abc.MetaPathFinder):
    """A meta-path finder keyed by file path: modules whose file is in `overlay` get its text."""

    def __init__(self, overlay: dict[str, str]) -> None:
        self.overlay = {os.path.realpath(path): text for path, text in overlay.items()}

    def find_spec(self, fullname, path, target=None):  # type: ignore[no-untyped-def]
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.origin is None:
            return None
        real = os.path.realpath(spec.origin)
        if real not in self.overlay:
            return None
        spec.loader = OverlayLoader(fullname, spec.origin, self.overlay[real])
        return spec


def _load_entry(path: str, overlay: OverlayFinder):  # type: ignore[no-untyped-def]
    real = os.path.realpath(path)
    directory = os.path.dirname(real)
    if directory not in sys.path:
        sys.path.insert(0, directory)
    name = "graphweld_entry"
    if real in overlay.overlay:
        loader = OverlayLoader(name, real, overlay.overlay[real])
        # From a file location, so that the module has its `__file__` as when run from disk.
        spec = importlib.util.spec_from_file_location(name, real, loader=loader)
    else:
        spec = importlib.util.spec_from_file_location(name, real)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


class DynamoLog(logging.Handler):
    """Dynamo's graph-break and recompilation records, as their messages (an exception a record
    carries is appended, with its GB link: convert_frame logs some breaks with the exception as
    `exc_info`)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.breaks: list[str] = []
        self.recompiles: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            message += f"\nGraph Break Reason: {record.exc_info[1]}"
        (self.recompiles if record.name.endswith("__recompiles") else self.breaks).append(message)

    def clear(self) -> None:
        self.breaks.clear()
        self.recompiles.clear()


# The artifact loggers DynamoLog listens to.
_LOGGER_SUFFIXES = ("__graph_breaks", "__recompiles")


def dynamo_loggers() -> dict[str, logging.Logger]:
    return {name: logging.getLogger(name) for name in list(logging.Logger.manager.loggerDict) if name.endswith(_LOGGER_SUFFIXES)}


def collect_dynamo_log(torch) -> DynamoLog:  # type: ignore[no-untyped-def]
    """Turn on Dynamo's graph-break and recompile logs and collect them (nothing is printed)."""
    import torch._dynamo.convert_frame  # noqa: F401  (registers the graph-break loggers)
    import torch._dynamo.exc  # noqa: F401
    import torch._dynamo.guards  # noqa: F401  (registers the recompile logger)
    import torch._dynamo.symbolic_convert  # noqa: F401

    torch._logging.set_logs(graph_breaks=True, recompiles=True)
    collector = DynamoLog()
    for logger in dynamo_loggers().values():
        logger.handlers[:] = [collector]
        logger.propagate = False
        logger.setLevel(logging.DEBUG)
    return collector


# What Dynamo logs when it gives up on the rest of a frame: the whole function (a break it cannot
# handle, a break in a loop) or what follows the break (one it cannot resume from, inside a
# `with` or `try`): either way, that code runs eagerly.
_WHOLE_FRAME_SKIPS = ("Skipping the function", "Skipping the frame", "will skip tracing the frame")
_REST_OF_FRAME_SKIP = "skipping the rest of the function"


def parse_break(message: str) -> dict[str, Any] | None:
    """One graph-break log message -> site, GB ids, reason, hint, and whether Dynamo skipped the
    frame ("frame": all of it, "rest": what follows the break, "": neither)."""
    lines = [line.strip() for line in message.splitlines()]
    site = _SITE.search(message)
    stack = _user_stack(message)
    if site is not None:
        file, line = os.path.realpath(site.group(1)), int(site.group(2))
    elif message.startswith(_UNRESUMABLE) and stack:
        file, line = stack[-1][0], stack[-1][1]
    else:
        return None
    reason = ""
    after_header = False
    for text in lines:
        if text.startswith("Graph Break Reason:"):
            after_header = True
            rest = text[len("Graph Break Reason:") :].strip()
            if rest and not rest.startswith(("Encountered graph break", "Failed to handle graph break")):
                reason = rest
                break
            continue
        if after_header and text and not text.startswith(("Explanation:", "Hint:")):
            reason = text
            break
    explanation = next((text[len("Explanation:") :].strip() for text in lines if text.startswith("Explanation:")), "")
    hints = [text[len("Hint:") :].strip() for text in lines if text.startswith("Hint:")]
    ids = [gb.upper() for gb in _GB_ID.findall(message)]
    delayed = _DELAYED.search(explanation)
    if delayed:
        # torch 2.15 delays a break on calling a module (an nn.LSTM) and logs it as "Unsupported
        # function call (delayed)" (GB0148), the original break's explanation and hints as its
        # reason: the site is the original's (GB0014, with its allow_rnn hint).
        hints.append(delayed.group(1))
        underlying = registry_entry(delayed.group(1))
        if underlying is not None:
            ids = [underlying[0], *ids]
            reason, explanation = underlying[1], delayed.group(1)
    # Every hint: the first often refers to the next ("see the next case for a workaround").
    hint = " ".join(hints)
    skipped = "frame" if any(words in message for words in _WHOLE_FRAME_SKIPS) else "rest" if _REST_OF_FRAME_SKIP in message else ""
    return {
        "file": file,
        "line": line,
        "gb": ids[0] if ids else "",
        "all_gb": ids,
        "reason": reason or explanation,
        "explanation": explanation,
        "hint": hint,
        "settings": hinted_settings(" ".join(hints)),
        "skipped_frame": bool(skipped),
        "skipped": skipped,
        "stack": stack,
    }


# A delayed break's explanation: the original break's explanation and hints after "Reason:".
_DELAYED = re.compile(r"^Dynamo determined that a graph break should occur when calling .*?\. Reason: (.+)$")


def registry_entry(text: str) -> tuple[str, str] | None:
    """The GB id and type of the entry of Dynamo's graph-break registry whose explanation `text`
    starts with (the loaded torch's registry; None without torch, or when none matches)."""
    for gb, pattern, gb_type in _registry_explanations():
        if pattern.match(text):
            return gb, gb_type
    return None


@functools.lru_cache(maxsize=1)
def _registry_explanations() -> tuple[tuple[str, re.Pattern[str], str], ...]:
    torch = sys.modules.get("torch")
    path = os.path.join(os.path.dirname(torch.__file__), "_dynamo", "graph_break_registry.json") if torch else ""
    try:
        with open(path, encoding="utf-8") as file:
            registry = json.load(file)
    except (OSError, ValueError):
        return ()
    found = []
    for gb, entries in registry.items():
        for entry in entries:
            explanation = entry.get("Explanation", "")
            # The explanation's {placeholders} match anything; long ones first (the most specific).
            literal = re.split(r"\{[^}]*\}", explanation)
            if len("".join(literal)) >= 20:
                found.append((gb.upper(), re.compile(".*?".join(map(re.escape, literal))), entry.get("Gb_type", "")))
    return tuple(sorted(found, key=lambda item: -len(item[1].pattern)))


# A hint's ways of naming a Dynamo switch to turn on: `torch._dynamo.config.allow_rnn=True`,
# "... with `torch._dynamo.config.capture_scalar_outputs = True`", and "Change
# `torch._dynamo.config.trace_autograd_ops` to `True`" (or "Set ... to True").
_HINTED_SETTING = re.compile(r"torch\._dynamo\.config\.(\w+)(?:\s*=\s*|`\s+to\s+`?)True\b")


def hinted_settings(hints: str) -> list[str]:
    """The Dynamo switches a break's hints ask to turn on, as Dynamo itself wrote them: what the
    run measures for that break. Where torch is loaded, only switches its config has and has off."""
    config = sys.modules.get("torch._dynamo.config")
    names = dict.fromkeys(_HINTED_SETTING.findall(hints))
    return [name for name in names if config is None or getattr(config, name, None) is False]


def _user_stack(message: str) -> list[list[Any]]:
    """The Python stack a record lists down to the break ("User code traceback:", or convert
    frame's "occurred in the following user code:"), outermost frame first."""
    for header in ("User code traceback:", "occurred in the following user code:"):
        at = message.find(header)
        if at >= 0:
            frames = (_FRAME.match(line) for line in message[at:].splitlines())
            return [[os.path.realpath(f.group(1)), int(f.group(2)), f.group(3)] for f in frames if f is not None]
    return []


def parse_recompile(message: str) -> dict[str, Any] | None:
    """One recompile log message -> the function recompiled, where it is, and the first guard
    that failed."""
    found = _RECOMPILE.search(message)
    if found is None:
        return None
    failures = [line.strip()[2:] for line in message.splitlines() if line.strip().startswith("- ")]
    return {
        "function": found.group(1),
        "file": os.path.realpath(found.group(2)),
        "line": int(found.group(3)),
        "reason": failures[0] if failures else "",
    }


def skipped_frames(frames: Any, breaks: list[dict[str, Any]]) -> int:
    """Frames Dynamo gave up on, as its log says: whole frames (counted by its frame counters too,
    which also see the frames it skipped without logging a break) plus frames whose rest it
    skipped after a break it could not resume from (which its counters count as compiled)."""
    whole = sum(1 for parsed in breaks if parsed["skipped"] == "frame")
    rest = sum(1 for parsed in breaks if parsed["skipped"] == "rest")
    return max(frames["total"] - frames["ok"], whole) + rest


def _to_device(value: Any, device: Any) -> Any:
    import torch

    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, tuple):
        return tuple(_to_device(v, device) for v in value)
    if isinstance(value, list):
        return [_to_device(v, device) for v in value]
    if isinstance(value, dict):
        return {k: _to_device(v, device) for k, v in value.items()}
    return value


def _to_cpu(value: Any, depth: int = 0) -> Any:
    """Outputs as plain pytrees of CPU tensors (dict subclasses such as ModelOutput become dicts;
    other objects, such as a model's key/value cache, become dicts of their attributes, named by
    their type, so that two runs' objects compare by what they hold, not by address)."""
    import torch

    if isinstance(value, torch.Tensor):
        return value.detach().cpu()
    if isinstance(value, (tuple, list)):
        items = [_to_cpu(v, depth) for v in value]
        return type(value)(items) if type(value) in (tuple, list) else items
    if isinstance(value, dict):
        return {k: _to_cpu(v, depth) for k, v in value.items()}
    if value is None or isinstance(value, (int, float, bool, str, complex)):
        return value
    kind = f"<{type(value).__module__}.{type(value).__qualname__}>"
    attributes = getattr(value, "__dict__", None)
    if isinstance(attributes, dict) and depth < _OBJECT_DEPTH:
        return {"type": kind, **{k: _to_cpu(v, depth + 1) for k, v in attributes.items() if not callable(v)}}
    text = repr(value)
    return kind if " at 0x" in text else text


# How deep objects inside objects are taken apart (a cache holds lists of tensors, one level).
_OBJECT_DEPTH = 3


def _call(model: Any, inputs: Any) -> Any:
    if isinstance(inputs, dict):
        return model(**inputs)
    if isinstance(inputs, tuple):
        return model(*inputs)
    return model(inputs)


class Program:
    """The entry's program as the runs call it: a fresh model from its factory, its inputs, and
    one call, for inference (eval mode, no grad) or, with `train`, a training step.

    A training call runs the model in train mode with grad enabled, takes the loss from the
    entry's `GetLoss(output)` (default: the sum of every floating-point tensor in the output) and
    runs backward; it records the output, the loss, and the gradient of every parameter and of
    every input that requires grad, then clears them. An entry that defines
    `train_step(model, batch)` (forward, loss, backward, optimizer step) is called instead; the
    call records what it returns and every parameter after the step.
    """

    def __init__(self, module: Any, factory: str, device: Any, train: bool = False) -> None:
        self.module = module
        self.factory = factory
        self.device = device
        self.train = train
        self.loss = getattr(module, "GetLoss", None)
        self.step = getattr(module, "train_step", None) if train else None
        # Backward graphs (AOTAutograd's) each training call ran, in order.
        self.backward_graphs: list[int] = []

    def fresh_model(self) -> Any:
        import torch

        torch.manual_seed(0)
        model = getattr(self.module, self.factory)()
        if isinstance(model, torch.nn.Module):
            model = model.to(self.device)
            model = model.train() if self.train else model.eval()
        return model

    def entry_input(self, seed: int) -> Any:
        import torch

        torch.manual_seed(seed)
        return _to_device(self.module.GetInput(), self.device)

    def inputs(self) -> list[Any]:
        """The inputs the program is called with, in order: those `GetInputs()` returns, when the
        entry defines it (different lengths, masks, values that take the other side of a branch);
        else the entry's input, the same input made again, and `GetInput()` under another seed
        when that has the same structure, shapes and dtypes (its values may differ; a different
        shape would recompile for a reason of its own)."""
        import torch

        several = getattr(self.module, "GetInputs", None)
        if callable(several):
            torch.manual_seed(0)
            return [_to_device(value, self.device) for value in several()]
        first, again, second = self.entry_input(0), self.entry_input(0), self.entry_input(1)
        return [first, again, second] if _same_layout(first, second) else [first, again]

    def grad_mode(self):  # type: ignore[no-untyped-def]
        import torch

        return torch.enable_grad() if self.train else torch.no_grad()

    def call(self, model: Any, value: Any) -> Any:
        """One call (under the program's grad mode), as the record runs compare. A call that runs
        a backward of its own (a step given as the model) is not given another: its gradients
        are recorded as it left them."""
        if not self.train:
            return _to_cpu(_call(model, value))
        if self.step is not None:
            with _backward_graphs_counted(self.backward_graphs):
                result = self.step(model, value)
            return {"returned": _to_cpu(result), "parameters": _named_tensors(model, "data")}
        ran_backward: list[int] = []
        with _backward_graphs_counted(ran_backward, only_when_run=True):
            output = _call(model, value)
        if ran_backward:
            # The program ran its own backward (a step returned as the model): its gradients.
            self.backward_graphs.extend(ran_backward)
            loss = None
        else:
            loss = self.loss(output) if self.loss is not None else default_loss(output)
            if not getattr(loss, "requires_grad", False):
                raise RuntimeError(
                    "the loss does not require grad: no parameter of the model and no input requires grad "
                    "(define GetLoss(output) in the entry, or make GetInput() return tensors that require grad)"
                )
            self.backward_graphs.append(compiled_backward_graphs(loss))
            loss.backward()
        record = {
            "output": _to_cpu(output),
            "loss": _to_cpu(loss),
            "gradients": _named_tensors(model, "grad"),
            "input_gradients": [_to_cpu(t.grad) for t in _tensor_leaves(value) if t.requires_grad],
        }
        _clear_gradients(model, value)
        return record


def default_loss(output: Any) -> Any:
    """The sum of every floating-point tensor in the output (a model output's logits, hidden
    states, its own loss when given labels...), as one scalar."""
    tensors = [t for t in _tensor_leaves(output) if t.is_floating_point() or t.is_complex()]
    if not tensors:
        raise RuntimeError("the output holds no floating-point tensor to take a loss from: define GetLoss(output)")
    return sum(t.real.float().sum() if t.is_complex() else t.float().sum() for t in tensors)


def _tensor_leaves(value: Any, depth: int = 0) -> list[Any]:
    import torch

    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in _tensor_leaves(item, depth)]
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _tensor_leaves(item, depth)]
    attributes = getattr(value, "__dict__", None)
    if isinstance(attributes, dict) and depth < _OBJECT_DEPTH and not callable(value):
        return [leaf for item in attributes.values() for leaf in _tensor_leaves(item, depth + 1)]
    return []


def _named_tensors(model: Any, attribute: str) -> dict[str, Any]:
    """Each parameter's data or gradient by name (a compiled wrapper's `_orig_mod.` dropped, so
    that the eager and compiled runs name them alike)."""
    import torch

    if not isinstance(model, torch.nn.Module):
        return {}
    named = {}
    for name, parameter in model.named_parameters():
        value = getattr(parameter, attribute)
        named[name.replace("_orig_mod.", "")] = None if value is None else value.detach().cpu().clone()
    return named


def _clear_gradients(model: Any, value: Any) -> None:
    import torch

    if isinstance(model, torch.nn.Module):
        model.zero_grad(set_to_none=True)
    for tensor in _tensor_leaves(value):
        tensor.grad = None


@contextlib.contextmanager
def _backward_graphs_counted(counts: list[int], only_when_run: bool = False):  # type: ignore[no-untyped-def]
    """Counts the compiled backward graphs of every backward the program runs itself (a
    train_step's loss is its own): `torch.autograd.backward`, which `Tensor.backward` calls, is
    watched meanwhile. Appends the count to `counts` (with `only_when_run`, only when a backward
    ran)."""
    import torch

    original = torch.autograd.backward
    found = [0]
    runs = [0]

    @torch.compiler.disable  # called where Dynamo broke the graph: never traced itself
    def backward(tensors, *args, **kwargs):  # type: ignore[no-untyped-def]
        runs[0] += 1
        for tensor in [tensors] if isinstance(tensors, torch.Tensor) else list(tensors):
            found[0] += compiled_backward_graphs(tensor)
        return original(tensors, *args, **kwargs)

    torch.autograd.backward = backward
    try:
        yield
    finally:
        torch.autograd.backward = original
        if runs[0] or not only_when_run:
            counts.append(found[0])


def compiled_backward_graphs(loss: Any) -> int:
    """How many compiled graphs the loss's backward runs: AOTAutograd's backward nodes in its
    autograd graph (none with the eager backend, which compiles no backward)."""
    seen: set[int] = set()
    found = 0
    stack = [loss.grad_fn] if getattr(loss, "grad_fn", None) is not None else []
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        found += node.name().startswith("CompiledFunctionBackward")
        stack.extend(next_node for next_node, _ in node.next_functions)
    return found


def _same_layout(left: Any, right: Any) -> bool:
    import torch

    if isinstance(left, torch.Tensor) or isinstance(right, torch.Tensor):
        return (
            isinstance(left, torch.Tensor) and isinstance(right, torch.Tensor)
            and left.shape == right.shape and left.dtype == right.dtype and left.device == right.device
        )
    if isinstance(left, (tuple, list)) and isinstance(right, (tuple, list)):
        return type(left) is type(right) and len(left) == len(right) and all(map(_same_layout, left, right))
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_same_layout(left[k], right[k]) for k in left)
    try:
        return type(left) is type(right) and bool(left == right)
    except Exception:  # a value that cannot be compared: not the same input
        return False


def keep_log_records(records: list[list[str]]) -> Callable[[], None]:
    """From now on, every log record of the program's own (`is_programs_record`) is appended to
    `records` as [logger, level, message] (and handled as before); returns the function that
    stops it."""
    original_handle = logging.Logger.handle

    def handle(logger: logging.Logger, record: logging.LogRecord) -> None:
        if is_programs_record(record):
            records.append([record.name, record.levelname, record.getMessage()])
        original_handle(logger, record)

    logging.Logger.handle = handle  # type: ignore[method-assign]

    def restore() -> None:
        logging.Logger.handle = original_handle  # type: ignore[method-assign]

    return restore


def is_programs_record(record: logging.LogRecord) -> bool:
    """Whether a log record is the program's: not logged by torch, by the standard library or by
    a package torch depends on. With the root logger at DEBUG, a compiled run adds records the
    eager run has not (inductor's file locks through `filelock`, its worker pools through
    `concurrent.futures`); they are the compiler's, not what the program shows."""
    from graphweld.runs.entry import is_library_file

    if record.name.split(".")[0] in ("torch", *_torch_dependency_modules()):
        return False
    return not (record.pathname and is_library_file(os.path.realpath(record.pathname)))


@functools.lru_cache(maxsize=1)
def _torch_dependency_modules() -> frozenset[str]:
    """The top-level modules of the distributions torch requires (filelock, sympy, triton...)."""
    import importlib.metadata

    try:
        required = importlib.metadata.requires("torch") or []
    except importlib.metadata.PackageNotFoundError:
        return frozenset()
    wanted = {_distribution_key(re.split(r"[ ;<>=!~\[(]", line, maxsplit=1)[0]) for line in required if "extra ==" not in line}
    return frozenset(
        module for module, distributions in importlib.metadata.packages_distributions().items()
        if any(_distribution_key(name) in wanted for name in distributions)
    )


def _distribution_key(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


class _OutputRecorder:
    """What a run shows its user: printed text, log records and warnings, in order. Records the
    compiler logs (`is_programs_record`) and warnings raised inside torch (compilation notices)
    are not the program's. Once-only logging helpers (transformers' `logger.warning_once`, an lru_cache on
    Logger) are reset first, so every run starts from the same state."""

    def __init__(self) -> None:
        self.printed = io.StringIO()
        self.records: list[list[str]] = []
        self.warnings: list[list[str]] = []

    @contextlib.contextmanager
    def recording(self):  # type: ignore[no-untyped-def]
        import warnings

        import torch

        torch_root = os.path.dirname(torch.__file__) + os.sep
        for value in vars(logging.Logger).values():
            if hasattr(value, "cache_clear"):
                value.cache_clear()
        restore_logging = keep_log_records(self.records)
        try:
            with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(self.printed):
                warnings.simplefilter("always")
                yield self
        finally:
            restore_logging()
        self.warnings.extend(
            [w.category.__name__, str(w.message)] for w in caught if not str(w.filename).startswith(torch_root)
        )

    def fields(self, prefix: str) -> dict[str, Any]:
        return {
            f"{prefix}_stdout": self.printed.getvalue(),
            f"{prefix}_log_records": self.records,
            f"{prefix}_warnings": self.warnings,
        }


# The `--compile-options` keys that are torch.compile arguments; every other key a run is given is
# a switch of torch._dynamo.config (those the breaks' hints name, or one of DYNAMO_SETTINGS).
TORCH_COMPILE_ARGUMENTS = ("fullgraph", "dynamic", "mode", "backend")
# The Dynamo switches `--compile-options` takes by name: those Dynamo's hints name for the breaks
# graphweld meets most (`.item()`, data-dependent shapes, nn.LSTM), and the one that lets Dynamo
# resume inside a nested frame instead of skipping it, which no hint names.
DYNAMO_SETTINGS = ("capture_scalar_outputs", "capture_dynamic_output_shape_ops", "allow_rnn", "nested_graph_breaks")
# Switches measured whenever a run breaks, whatever its hints say.
RESUME_SETTINGS = ("nested_graph_breaks",)


def apply_dynamo_settings(torch: Any, options: dict[str, Any]) -> dict[str, Any]:
    """Set the Dynamo switches among `options` on torch._dynamo.config; the torch.compile
    arguments are returned."""
    for name in [name for name in options if name not in TORCH_COMPILE_ARGUMENTS]:
        value = options.pop(name)
        if not isinstance(getattr(torch._dynamo.config, name, None), bool):
            raise RuntimeError(f"torch {torch.__version__} has no Dynamo switch `torch._dynamo.config.{name}`")
        setattr(torch._dynamo.config, name, value)
    return options


def resume_settings_off(torch: Any) -> list[str]:
    """RESUME_SETTINGS this torch has, and has off: measured for any run that breaks."""
    return [name for name in RESUME_SETTINGS if getattr(torch._dynamo.config, name, None) is False]


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0]}" if text else type(exc).__name__


def _compile_error_line(exc: BaseException, where: str) -> str:
    """The first line of a compile's failure; where it says nothing past the exception's name
    (Dynamo wrapping an error raised without a message, `InternalTorchDynamoError:
    NotImplementedError:`), `where` (`_raised_where`): which function raised it and which of
    Dynamo's called into it."""
    line = _first_line(exc)
    if re.sub(r"^(\s*\w+:)+", "", line).strip():
        return line
    return f"{line.rstrip(':').rstrip()} ({where})" if where else line


def _raised_where(exc: BaseException) -> str:
    """`raised in Irreps.__len__ (e3nn/o3/_irreps.py:264), called from Dynamo's _sequence_length
    (guards.py)`: the raising frame and the nearest of Dynamo's frames above it, from the deepest
    traceback of the exception and those it wraps (Dynamo re-raises with the original's)."""
    chain, inner = [exc], exc
    while (inner := inner.__cause__ or inner.__context__) is not None and inner not in chain:
        chain.append(inner)
    frames = max(([frame for frame, _ in traceback.walk_tb(e.__traceback__)] for e in chain), key=len)
    if not frames:
        return ""
    raised = frames[-1]
    code = raised.f_code
    said = f"raised in {getattr(code, 'co_qualname', code.co_name)} ({_short_path(code.co_filename)}:{raised.f_lineno})"
    for frame in reversed(frames[:-1]):
        path = frame.f_code.co_filename.replace(os.sep, "/")
        if "/torch/_dynamo/" in path:
            return f"{said}, called from Dynamo's {frame.f_code.co_name} ({path.rsplit('/torch/_dynamo/', 1)[1]})"
    return said


def _short_path(filename: str) -> str:
    """A file's path from its package on (`e3nn/o3/_irreps.py`), or as given outside site-packages."""
    path = filename.replace(os.sep, "/")
    return path.rsplit("/site-packages/", 1)[1] if "/site-packages/" in path else path


class GraphCounter:
    """Counts every graph Dynamo hands to a backend, whichever `torch.compile` call made it.

    The ops of a graph are its call nodes; the ops a `nonstrict_trace` call runs are counted
    inside it (Dynamo records the call as one opaque node), a custom op counts as its one node.
    """

    def __init__(self) -> None:
        self.ops_per_graph: list[int] = []
        # The model's parameters the graphs take (Dynamo lifts them as graph inputs): a rewrite
        # that leaves none of them compiled runs the model eagerly, whatever its break count.
        self.parameters: set[int] = set()
        self._original: Any = None

    def __enter__(self) -> "GraphCounter":
        from torch._dynamo.output_graph import OutputGraph

        self._original = original = OutputGraph.call_user_compiler
        counter = self

        def call_user_compiler(graph_self, gm, example_inputs):  # type: ignore[no-untyped-def]
            from torch.nn import Parameter

            counter.ops_per_graph.append(_count_ops(gm))
            counter.parameters.update(id(value) for value in (*example_inputs, *gm.parameters()) if isinstance(value, Parameter))
            return original(graph_self, gm, example_inputs)

        OutputGraph.call_user_compiler = call_user_compiler
        return self

    def __exit__(self, *exc: object) -> None:
        from torch._dynamo.output_graph import OutputGraph

        OutputGraph.call_user_compiler = self._original

    def clear(self) -> None:
        self.ops_per_graph.clear()
        self.parameters.clear()


def _count_ops(gm: Any) -> int:
    total = 0
    for node in gm.graph.nodes:
        if node.op not in ("call_function", "call_method", "call_module"):
            continue
        if getattr(node.target, "__name__", "") == "flat_apply_capture":
            total += _ops_inside_nonstrict_call(gm, node)
        else:
            total += 1
    return total


def _ops_inside_nonstrict_call(gm: Any, node: Any) -> int:
    """The ATen ops a `nonstrict_trace` call runs, traced with fake tensors of its inputs' shapes
    (1 when they cannot be traced, e.g. symbolic shapes)."""
    import torch
    from torch.fx.experimental.proxy_tensor import make_fx

    try:
        function_node, spec_node, *rest = node.args
        function, spec = getattr(gm, function_node.target), getattr(gm, spec_node.target)
        values = []
        for arg in rest:
            value = arg.meta.get("example_value") if isinstance(arg, torch.fx.Node) else arg
            if isinstance(value, torch.Tensor):
                value = torch.zeros(tuple(int(size) for size in value.shape), dtype=value.dtype, device=value.device)
            values.append(value)
        tensor_positions = [index for index, value in enumerate(values) if isinstance(value, torch.Tensor)]

        def call(*tensors):  # type: ignore[no-untyped-def]
            args = list(values)
            for index, tensor in zip(tensor_positions, tensors):
                args[index] = tensor
            return node.target(function, spec, *args)

        traced = make_fx(call, tracing_mode="fake")(*[values[index] for index in tensor_positions])
        return max(1, sum(1 for inner in traced.graph.nodes if inner.op == "call_function"))
    except Exception:  # counting is best effort; the call itself is in the graph
        return 1


class ProgramCompiles:
    """Watches the `torch.compile` calls the program makes (every call form reaches Dynamo's
    `_optimize`): whether it made any, whether one asked for `fullgraph=True`, and, with `relax`,
    compiles those with `fullgraph=False` instead, so that their breaks are logged rather than
    raised. Compiles torch makes for itself (`torch.cond` run eagerly compiles its branches) are
    not the program's. Installed before the entry is loaded: a decorator compiles when its
    module is imported. Dynamo's switches are global: a program that mixes fullgraph=True compiles
    with others, relaxed or under a forced backend, has the others capture as fullgraph does too."""

    def __init__(self, relax: bool, backend_forced: bool = False) -> None:
        self.relax = relax
        self.backend_forced = backend_forced
        self.made_any = False
        self.fullgraph_requested = False

    def install(self) -> None:
        import torch._dynamo.eval_frame as eval_frame

        original = eval_frame._optimize
        watcher = self

        def _optimize(rebuild_ctx, *args, **kwargs):  # type: ignore[no-untyped-def]
            if _called_by_program(sys._getframe(1)):
                watcher.made_any = True
                if kwargs.get("nopython"):
                    watcher.fullgraph_requested = True
                    if watcher.relax:
                        kwargs["nopython"] = False
                    if watcher.relax or watcher.backend_forced:
                        # Relaxed, or recompiled by a forced backend (which drops the request),
                        # the compile still captures what fullgraph=True captures without a break
                        # (an `.item()`, a boolean mask's rows): the breaks found are the program's.
                        _capture_as_fullgraph_does()
            return original(rebuild_ctx, *args, **kwargs)

        eval_frame._optimize = _optimize


# Dynamo's switches that `fullgraph=True` turns on for its own compile (its shape environment
# allows scalar outputs and data-dependent output shapes whenever the compile is one graph).
FULLGRAPH_CAPTURES = ("capture_scalar_outputs", "capture_dynamic_output_shape_ops")


def _capture_as_fullgraph_does() -> None:
    import torch._dynamo

    for name in FULLGRAPH_CAPTURES:
        setattr(torch._dynamo.config, name, True)


# Where torch.compile's call forms lead to `_optimize`: the frame before them made the call.
_COMPILE_ENTRY_FILES = (
    os.path.join("torch", "__init__.py"),
    os.path.join("torch", "_dynamo", "eval_frame.py"),
    os.path.join("torch", "_dynamo", "__init__.py"),
    os.path.join("torch", "nn", "modules", "module.py"),
)


def _called_by_program(frame: Any) -> bool:
    """Whether the code that called torch.compile (through any of its entry points) is the
    program's rather than torch's own."""
    from graphweld.runs.entry import is_library_file

    while frame is not None and frame.f_code.co_filename.endswith(_COMPILE_ENTRY_FILES):
        frame = frame.f_back
    return frame is not None and not is_library_file(os.path.realpath(frame.f_code.co_filename))


@contextlib.contextmanager
def stance(mode: str, backend: Any = None):  # type: ignore[no-untyped-def]
    """torch.compiler's stance for the block (`force_eager` runs compiled code eagerly), then the default."""
    import torch

    torch.compiler.set_stance(mode, force_backend=backend)
    try:
        yield
    finally:
        torch.compiler.set_stance("default")


class FullgraphFailed(Exception):
    """The program's own `fullgraph=True` compile failed: measured again with it relaxed."""


class CompiledRunFailed(Exception):
    """The compiled run raised (in Dynamo, in fake-tensor propagation or in the compiled code):
    `error` the exception, `compiled_by` who made the compile that failed."""

    def __init__(self, error: BaseException, compiled_by: str) -> None:
        super().__init__(str(error))
        self.error = error
        self.compiled_by = compiled_by

    def fields(self) -> dict[str, Any]:
        """The run report's fields for the failure: where in the user's code, and Dynamo's word."""
        error = self.error
        where = _raised_where(error)
        line = _compile_error_line(error, where)
        return dict(
            compiled_by=self.compiled_by,
            compile_error=line,
            compile_error_stack=user_stack(error),
            compile_error_explanation=_explanation(error, line, where),
            fullgraph=False,
            fullgraph_error=_described(error),
        )


class LineCoverage:
    """Which lines of the given files the eager reference run executed, and how often: what a
    kept rewrite's verdict says it exercised. Traced with `sys.settrace`, scoped to those files (a
    frame of any other file is not traced line by line), so the cost is one check per call made."""

    def __init__(self, files: Any) -> None:
        self.files = frozenset(files)
        self.hits: dict[str, dict[int, int]] = {}

    @contextlib.contextmanager
    def recording(self):  # type: ignore[no-untyped-def]
        if not self.files:
            yield
            return
        files, hits = self.files, self.hits
        # A code object's file name -> its real path's counts, or None for a file not watched.
        watched: dict[str, dict[int, int] | None] = {}

        def counts_of(name: str) -> dict[int, int] | None:
            if name not in watched:
                real = os.path.realpath(name)
                watched[name] = hits.setdefault(real, {}) if real in files else None
            return watched[name]

        def lines(frame, event, arg):  # type: ignore[no-untyped-def]
            if event == "line":
                counts = counts_of(frame.f_code.co_filename)
                if counts is not None:
                    counts[frame.f_lineno] = counts.get(frame.f_lineno, 0) + 1
            return lines

        def calls(frame, event, arg):  # type: ignore[no-untyped-def]
            return lines if counts_of(frame.f_code.co_filename) is not None else None

        previous = sys.gettrace()
        sys.settrace(calls)
        try:
            yield
        finally:
            sys.settrace(previous)

    def as_json(self) -> dict[str, dict[str, int]]:
        return {file: {str(line): count for line, count in counts.items()} for file, counts in self.hits.items() if counts}


def _calls(program: Program, model: Any, inputs: list[Any], after_first: Any = None) -> list[Any]:
    """The program called with each input in turn (seeded per call, the same in every run);
    `after_first()` is asked after the first call whether to go on."""
    import torch

    records = []
    with program.grad_mode():
        for index, value in enumerate(inputs):
            torch.manual_seed(index)
            _seed_host_generators(index)
            records.append(program.call(model, value))
            if index == 0 and after_first is not None and not after_first():
                break
    return records


def _seed_host_generators(seed: int) -> None:
    """Python's and NumPy's generators, seeded as torch's is for each call: a program that draws
    from them (SpecAugment's masks, a layer dropped by `random.random()`) draws the same numbers in
    the eager and the compiled run, where they run as eager code."""
    import random

    random.seed(seed)
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed(seed)


def _compiled_run(program: Program, request: dict[str, Any], programs: ProgramCompiles) -> tuple[dict[str, Any], list[Any]]:
    """Run the entry compiled: as its own code compiles it, or compiled by the runner when that
    compiles nothing. Returns the report's fields and each call's record."""
    import torch
    import torch._dynamo
    from torch._dynamo.utils import counters

    options = dict(request.get("compile_options", {}))
    # --compile-options backend=... replaces the backend of the program's own torch.compile calls.
    forced_backend = options.pop("backend", None)
    mode = options.pop("mode", None)
    log = collect_dynamo_log(torch)
    first_call: dict[str, Any] = {}

    def attempt(compile_it: bool) -> tuple[list[Any], _OutputRecorder]:
        torch._dynamo.reset()
        counters.clear()
        log.clear()
        graphs.clear()
        program.backward_graphs.clear()
        model = program.fresh_model()
        inputs = program.inputs()
        if compile_it:
            extra = {"mode": mode} if mode else {}
            model = torch.compile(model, backend=forced_backend or "inductor", **extra, **options)

        def after_first() -> bool:
            # The picture is the first call's; later calls show whether the program recompiles.
            first_call.update(
                frames=dict(counters["frames"]), breaks=list(log.breaks), ops_per_graph=list(graphs.ops_per_graph),
                parameters=len(graphs.parameters), backward_graphs=sum(program.backward_graphs),
            )
            return compile_it or compiled_anything()

        shown = _OutputRecorder()
        with shown.recording(), stance("default", None if compile_it else forced_backend):
            records = _calls(program, model, inputs, after_first)
        return records, shown

    def compiled_anything() -> bool:
        # The program compiled something of its own, and it ran: a frame counted or a graph made
        # (a fullgraph=True compile makes graphs without counting its frames).
        return programs.made_any and (first_call["frames"].get("total", 0) > 0 or bool(first_call["ops_per_graph"]))

    with GraphCounter() as graphs:
        try:
            records, shown = attempt(compile_it=False)
        except Exception as exc:
            if programs.fullgraph_requested and not programs.relax:
                raise FullgraphFailed(_described(exc)) from exc
            raise CompiledRunFailed(exc, "entry") from exc
        compiled_by = "entry"
        if not compiled_anything():
            try:
                records, shown = attempt(compile_it=True)
            except Exception as exc:
                raise CompiledRunFailed(exc, "graphweld") from exc
            compiled_by = "graphweld"
    breaks = [parsed for parsed in map(parse_break, first_call["breaks"]) if parsed is not None]
    recompiles = [parsed for parsed in map(parse_recompile, log.recompiles) if parsed is not None]
    frames = {"total": 0, "ok": 0, **first_call["frames"]}
    fields: dict[str, Any] = dict(
        compiled_by=compiled_by,
        # Options for the torch.compile the runner makes: unused when the program compiles itself.
        unused_compile_options=sorted(set(request.get("compile_options", {})) - {"backend"}) if compiled_by == "entry" else [],
        **shown.fields("compiled"),
        graphs=len(first_call["ops_per_graph"]),
        ops=sum(first_call["ops_per_graph"]),
        parameters_in_graphs=first_call["parameters"],
        frames_total=frames["total"],
        frames_ok=frames["ok"],
        skipped_frames=skipped_frames(frames, breaks),
        breaks=breaks,
        recompiles=recompiles,
        train=program.train,
        backward_graphs=first_call["backward_graphs"] if program.train else None,
    )
    if programs.relax:
        fields["fullgraph_relaxed"] = True
    elif request.get("check_fullgraph", True):
        fields.update(_fullgraph(program, compiled_by, options.get("dynamic"), programs.fullgraph_requested))
        if fields["fullgraph"] and (breaks or fields["skipped_frames"]) and not (programs.fullgraph_requested or options.get("fullgraph")):
            # torch.compile's default broke where fullgraph=True compiled: only with what Dynamo
            # turns on for a fullgraph compile by itself, which the user's compile does not have.
            off = [name for name in FULLGRAPH_CAPTURES if not getattr(torch._dynamo.config, name)]
            hinted = [name for name in off if any(name in site["settings"] for site in breaks)]
            fields["fullgraph_implicit"] = hinted or off
    return fields, records


def _fullgraph(program: Program, compiled_by: str, dynamic: Any, requested: bool) -> dict[str, Any]:
    """Whether every compiled frame compiles to one graph: `fullgraph=True` on the model the runner
    compiles, or `torch._dynamo.error_on_graph_break(True)` around the program's own compiles (as
    they are: with what their own `fullgraph=True`, when `requested`, captures)."""
    import torch
    import torch._dynamo

    torch._dynamo.reset()
    model, value = program.fresh_model(), program.inputs()[0]
    try:
        with program.grad_mode(), contextlib.redirect_stdout(io.StringIO()):
            if compiled_by == "graphweld":
                program.call(torch.compile(model, backend="eager", fullgraph=True, dynamic=dynamic), value)
            else:
                error_on_graph_break = getattr(torch._dynamo, "error_on_graph_break", None)
                if error_on_graph_break is None:  # torch < 2.9: cannot be asked of the program's compiles
                    return {"fullgraph": None}
                # The forced backend recompiles each frame without the program's fullgraph=True,
                # so what that request captures is switched on here as it would be.
                captures = torch._dynamo.config.patch(**dict.fromkeys(FULLGRAPH_CAPTURES, True)) if requested else contextlib.nullcontext()
                with error_on_graph_break(True), captures, stance("default", "eager"):
                    program.call(model, value)
        return {"fullgraph": True}
    except Exception as exc:  # any failure means fullgraph=True does not hold
        return {"fullgraph": False, "fullgraph_error": _described(exc)}


def _described(exc: BaseException) -> str:
    """An exception's first line, and where in the user's code it was raised: Dynamo's own record
    of the code it was tracing, else the innermost frame outside torch and the standard library."""
    site = error_site(exc)
    return f"{_first_line(exc)} (at {site})" if site else _first_line(exc)


def user_stack(exc: BaseException) -> list[tuple[str, int, str]]:
    """The frames of the user's code an exception passed through, outermost first, as (real path,
    line, function): Dynamo's record of the code it was tracing when it has one, else the
    traceback's."""
    from graphweld.runs.entry import is_library_file

    real_stack = getattr(exc, "real_stack", None)
    frames = [(frame.filename, frame.lineno, frame.name) for frame in real_stack or ()]
    if not frames:
        frames = [(frame.filename, frame.lineno, frame.name) for frame in traceback.extract_tb(exc.__traceback__)]
    stack = []
    for filename, line, function in frames:
        real = os.path.realpath(filename)
        if line and os.path.isfile(real) and not is_library_file(real):
            stack.append((real, int(line), function))
    return stack


def _explanation(exc: BaseException, line: str, where: str) -> str:
    """Dynamo's explanation of a failure (its "Explanation:" line), else `line`, the failure's
    first line as `_compile_error_line` gave it, with what to do where Dynamo's guard on a
    sequence's length is what failed (`where`, from `_raised_where`, says so whatever the
    error's own message)."""
    for text in str(exc).splitlines():
        stripped = text.strip()
        if stripped.startswith("Explanation:"):
            return stripped.removeprefix("Explanation:").strip()
    if re.search(r"called from Dynamo's (SEQUENCE_LENGTH|_sequence_length) ", where):
        return (
            f"{line}: Dynamo guards the length of a sequence the compiled code reads, and this one's len() raises; "
            "hand the compiled code a plain tuple or list of what it needs from it instead"
        )
    return line


def error_site(exc: BaseException) -> str:
    """`file:line` of the user's code an exception comes from (the innermost of `user_stack`), or ""."""
    stack = user_stack(exc)
    return f"{stack[-1][0]}:{stack[-1][1]}" if stack else ""


def run(request: dict[str, Any]) -> dict[str, Any]:
    import torch

    device_name = request.get("device", "auto")
    if device_name == "auto":
        device_name = "cuda" if torch.cuda.is_available() else "cpu"
    device = torch.device(device_name)
    result: dict[str, Any] = {"device": str(device), "torch": torch.__version__}
    overlay = OverlayFinder(request.get("overlay", {}))
    sys.meta_path.insert(0, overlay)
    torch.use_deterministic_algorithms(True, warn_only=True)
    # Dynamo settings among the compile options apply to every compile of the run, the program's
    # own included; the rest are torch.compile arguments.
    request = {**request, "compile_options": apply_dynamo_settings(torch, dict(request.get("compile_options", {})))}
    import torch._inductor.config as inductor_config

    inductor_config.fallback_random = True
    if request.get("numpy_random_stream"):
        # Dynamo draws `np.random` from torch's generator unless told otherwise: a run whose
        # outputs are compared with eager's draws NumPy's (each draw then breaks the graph).
        torch._dynamo.config.use_numpy_random_stream = True
    programs = ProgramCompiles(relax=bool(request.get("relax_fullgraph")), backend_forced="backend" in request["compile_options"])
    programs.install()
    module = _load_entry(request["entry"], overlay)
    factory = request.get("factory") or "my_model_function"
    if not callable(getattr(module, factory, None)):
        raise RuntimeError(f"the entry defines no `{factory}()`")
    if not callable(getattr(module, "GetInput", None)) and not callable(getattr(module, "GetInputs", None)):
        raise RuntimeError("the entry defines no `GetInput()` (or `GetInputs()`)")
    program = Program(module, factory, device, train=bool(request.get("train")))
    outputs: dict[str, Any] = {}

    if "eager" in request["modes"]:
        covered = LineCoverage(request.get("coverage_files") or ())
        # Building the model and its inputs is covered too: a rewrite in `__init__` ran there.
        with covered.recording():
            model = program.fresh_model()
            inputs = program.inputs()
        shown = _OutputRecorder()
        # Every torch.compile the program makes is turned off: the reference is the plain program.
        with shown.recording(), stance("force_eager"), covered.recording():
            outputs["eager_calls"] = _calls(program, model, inputs)
        result.update(shown.fields("eager"))
        result["coverage"] = covered.as_json()

    if "compiled" in request["modes"]:
        try:
            fields, outputs["compiled_calls"] = _compiled_run(program, request, programs)
        except FullgraphFailed as failure:
            # Measured again in a fresh process with the program's fullgraph=True relaxed.
            result.update(fullgraph=False, fullgraph_error=str(failure), fullgraph_failed=True, compiled_by="entry")
        except CompiledRunFailed as failure:
            # The program ran eagerly (the reference) and its compiled run raised: that is the
            # run's first break site, not an error of the run.
            result.update(failure.fields())
        else:
            result.update(fields)
    # Read after the program ran: a setting its own code turns on (one graphweld wrote) is on.
    result["resume_settings"] = resume_settings_off(torch)
    torch.save(outputs, request["outputs_path"])
    return result


def main() -> None:
    request_path, result_path = sys.argv[1], sys.argv[2]
    with open(request_path, encoding="utf-8") as handle:
        request = json.load(handle)
    try:
        result = run(request)
        result["ok"] = True
    except BaseException as exc:  # reported to the parent as one line, with the traceback kept
        error = _first_line(exc)
        if "does not require grad" in error and not request.get("train"):
            error += " (entries run in eval mode under torch.no_grad(); --train runs a training step)"
        result = {
            "ok": False,
            "error": error,
            "error_site": error_site(exc),
            "traceback": traceback.format_exc(),
        }
    with open(result_path, "w", encoding="utf-8") as handle:
        json.dump(result, handle)


def serve(inductor: bool) -> bool:
    """`python -m graphweld.runs.runner --serve [--inductor]`: import torch and Dynamo once (and
    inductor's compiler with `--inductor`), then fork a runner for each request read from stdin
    (one JSON line: request, result and log paths), answer with the child's pid and then its exit
    status. See `runner_server`. Returns True in a forked child, which then runs `main()` as a
    fresh runner would; False in the server when it is done."""
    import gc
    import threading

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
        answer({"ready": False, "why": _first_line(exc)})
        return False
    if threading.active_count() > 1:  # a Python thread would not survive the fork
        answer({"ready": False, "why": "torch's import started a thread"})
        return False
    if _gpu_driver_loaded():
        answer({"ready": False, "why": "a GPU driver is loaded: a forked run could not use the device"})
        return False
    # What the imports made is kept for good: a child's collections then skip it instead of
    # writing to every page of it (copy-on-write), which cost a small run about a second.
    gc.collect()
    gc.freeze()
    answer({"ready": True})
    import time

    from graphweld.runs.runner_server import IDLE_SECONDS, NEEDS_FRESH_INTERPRETER, read_line

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
                return False  # left idle
            if line is None:
                return False  # the parent closed our input
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
        return False  # Ctrl-C reached the whole process group: the parent reports it
    protocol.close()
    _become_runner(job, start_directory, NEEDS_FRESH_INTERPRETER, imported_files)
    return True


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


def _become_runner(job: dict[str, Any], start_directory: str, needs_fresh: int, imported_files: frozenset[str]) -> None:
    """In the forked child: become `python -m graphweld.runs.runner REQUEST RESULT` started in the
    entry's folder (its output to the run's log), or exit with `needs_fresh` where the run
    rewrites a module already imported here (one of `imported_files`) or the entry's folder would
    shadow one."""
    with open(job["request"], encoding="utf-8") as handle:
        request = json.load(handle)
    directory = os.path.dirname(request["entry"])
    if any(os.path.realpath(path) in imported_files for path in request.get("overlay", {})) or _shadows_an_import(directory):
        os._exit(needs_fresh)
    log = os.open(job["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    os.chdir(directory)
    if sys.path and sys.path[0] == start_directory:
        sys.path[0] = os.getcwd()  # as `python -m` puts the folder it starts in
    sys.argv[1:] = [job["request"], job["result"]]


if __name__ == "__main__":
    if sys.argv[1:] not in (["--serve"], ["--serve", "--inductor"]) or serve(inductor=sys.argv[2:] == ["--inductor"]):
        main()
