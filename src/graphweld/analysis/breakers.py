"""What breaks a graph, statically: the catalogue of breaking calls and resumable context managers.

A statement breaks the graph when it contains a call to a known breaker: an explicit
`torch._dynamo.graph_break()` / `skip_frame()`, I/O (print, logging, warnings, torch.save/load,
open, pickle, time.sleep, ...), a DLPack export, frame introspection Dynamo cannot trace, or a
name from the user's configuration.
Whether Dynamo can resume after a break inside a `with` depends on the context manager; the
resumable set below was measured on torch 2.13 (a graph break inside each, compiled on CPU: the
frame is resumed, not skipped).
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass

import libcst as cst

from graphweld.analysis.breaker_names import (  # noqa: F401 - the tables are read from here too
    DLPACK_BREAKERS,
    EXPLICIT_BREAKERS,
    IO_BREAKERS,
    LOGGING_METHODS,
    UNTRACEABLE_BREAKERS,
)
from graphweld.analysis.names import ImportTable, dotted_name
from graphweld.settings import Settings
from graphweld.walk import children

# Tensor methods that read a tensor's values into Python: Dynamo breaks the graph on each
# (unless capture_scalar_outputs), and non-strict tracing would freeze the value as a constant.
TENSOR_VALUE_READS = frozenset({"item", "tolist", "numpy"})

DLPACK_IMPORTERS = frozenset({"torch.utils.dlpack.from_dlpack", "torch.from_dlpack"})
# Calls that make a tensor of another library's array, by DLPack or the array interfaces.
ARRAY_IMPORTERS = DLPACK_IMPORTERS | {"torch.as_tensor", "torch.from_numpy", "torch.asarray", "torch.tensor"}


_LOGGER_NAME = re.compile(r"^_*(log|logger|\w+_log|\w+_logger)$", re.IGNORECASE)
_LOGGER_FACTORIES = ("getLogger", "get_logger")

# Measured on torch 2.13 (see module docstring); contextlib.nullcontext included.
RESUMABLE_CONTEXT_MANAGERS = frozenset(
    {
        "torch.no_grad",
        "torch.enable_grad",
        "torch.set_grad_enabled",
        "torch.inference_mode",
        "torch.autograd.no_grad",
        "torch.autograd.enable_grad",
        "torch.autograd.set_grad_enabled",
        "torch.autograd.inference_mode",
        "torch.autograd.grad_mode.no_grad",
        "torch.autograd.grad_mode.enable_grad",
        "torch.autograd.grad_mode.set_grad_enabled",
        "torch.autograd.grad_mode.inference_mode",
        "torch.autocast",
        "torch.amp.autocast",
        "torch.cpu.amp.autocast",
        "torch.cuda.amp.autocast",
        "torch.profiler.profile",
        "torch.profiler.record_function",
        "torch.autograd.profiler.profile",
        "torch.autograd.profiler.record_function",
        "torch.nn.attention.sdpa_kernel",
        "torch.autograd.graph.disable_saved_tensors_hooks",
        "torch._C.DisableTorchFunctionSubclass",
        "torch._C.DisableTorchFunction",
        "contextlib.nullcontext",
    }
)


@dataclass(frozen=True)
class Breaker:
    """A call that breaks the graph: `kind` is explicit, io, logging, dlpack, untraceable or
    configured."""

    kind: str
    name: str

    @property
    def has_side_effects(self) -> bool:
        """Explicit graph_break()/skip_frame() do nothing at run time besides the break."""
        return self.kind != "explicit"


class BreakerCatalog:
    """Classifies calls and statements for one module, with the user's settings applied."""

    def __init__(self, settings: Settings, imports: ImportTable) -> None:
        self.imports = imports
        self.configured = frozenset(settings.extra_breakers)
        self.io = IO_BREAKERS | frozenset(settings.io_functions)
        self.resumable = RESUMABLE_CONTEXT_MANAGERS | frozenset(settings.resumable_context_managers)
        self._statement_cache: dict[int, Breaker | None] = {}
        # See `note_lines`: lines of simple statements (by id) and the lines a breaker is called on.
        self._statement_lines: dict[int, tuple[int, int]] = {}
        self._call_lines: list[int] = []

    def note_lines(self, text: str, statement_lines: dict[int, tuple[int, int]]) -> None:
        """Let `statement_breaker` answer without a walk for a statement on whose lines no
        breaker's name (nor an imported alias of one) is followed by `(`: a call needs that."""
        if "\r" in text.replace("\r\n", ""):
            return  # lone carriage returns: line numbers could disagree
        aliases = {alias for alias, target in self.imports.aliases.items() if target in self._breaker_names}
        pattern = _call_pattern(frozenset(self.prefilter_words() | aliases))
        line_starts = [0, *(match.end() for match in _LINE_BREAK.finditer(text))]
        self._call_lines = sorted({bisect.bisect_right(line_starts, match.start()) for match in pattern.finditer(text)})
        self._statement_lines = statement_lines

    @property
    def _breaker_names(self) -> frozenset[str]:
        return EXPLICIT_BREAKERS | self.configured | self.io | DLPACK_BREAKERS | UNTRACEABLE_BREAKERS

    def classify_call(self, call: cst.Call) -> Breaker | None:
        name = self.imports.qualify(call.func)
        if name is not None:
            if name in EXPLICIT_BREAKERS:
                return Breaker("explicit", name)
            if name in self.configured:
                return Breaker("configured", name)
            if name in self.io:
                return Breaker("io", name)
            if name in DLPACK_BREAKERS:
                return Breaker("dlpack", name)
            if name in UNTRACEABLE_BREAKERS:
                return Breaker("untraceable", name)
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in LOGGING_METHODS:
            if _is_logger(call.func.value, self.imports):
                receiver = dotted_name(call.func.value) or "logger"
                return Breaker("logging", f"{receiver}.{call.func.attr.value}")
        return None

    def statement_breaker(self, statement: cst.CSTNode) -> Breaker | None:
        """The first breaking call in a simple statement (line or small statement), else None.

        Compound statements are never breakers themselves; their bodies are examined by the rules.
        Calls inside lambdas do not count: they do not run where they are written.
        """
        if isinstance(statement, cst.BaseCompoundStatement):
            return None
        key = id(statement)
        if key not in self._statement_cache:
            lines = self._statement_lines.get(key)
            if lines is not None and not self._calls_between(*lines):
                self._statement_cache[key] = None
            else:
                self._statement_cache[key] = self._first_breaking_call(statement)
        return self._statement_cache[key]

    def _calls_between(self, first: int, last: int) -> bool:
        index = bisect.bisect_left(self._call_lines, first)
        return index < len(self._call_lines) and self._call_lines[index] <= last

    def _first_breaking_call(self, node: cst.CSTNode) -> Breaker | None:
        # The hottest walk of a run: every simple statement of every compiled function. Exact
        # type tests (no subclass of Call or Lambda exists) instead of ABC instance checks.
        stack = [node]
        while stack:
            current = stack.pop()
            current_type = type(current)
            if current_type is cst.Lambda:
                continue
            if current_type is cst.Call:
                found = self.classify_call(current)  # type: ignore[arg-type]
                if found is not None:
                    return found
            below = children(current)
            below.reverse()
            stack.extend(below)
        return None

    def is_resumable(self, item: cst.WithItem) -> bool:
        """Whether Dynamo resumes after a graph break inside this `with` item."""
        expression = item.item
        if isinstance(expression, cst.Call):
            expression = expression.func
        name = self.imports.qualify(expression)
        return name is not None and name in self.resumable

    def prefilter_words(self) -> set[str]:
        """Identifiers whose presence in a file's bytes means it may hold a breaking call."""
        words = {
            name.rsplit(".", 1)[-1] for name in (*EXPLICIT_BREAKERS, *self.io, *DLPACK_BREAKERS, *UNTRACEABLE_BREAKERS)
        }
        words |= {name.rsplit(".", 1)[-1] for name in self.configured}
        words |= LOGGING_METHODS
        return words


_LINE_BREAK = re.compile(r"\r\n|\n")


@functools.lru_cache(maxsize=16)
def _call_pattern(names: frozenset[str]) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(re.escape(name) for name in sorted(names)) + r")\s*\(")


def _is_logger(receiver: cst.BaseExpression, imports: ImportTable) -> bool:
    if isinstance(receiver, cst.Call):
        factory = dotted_name(receiver.func)
        return factory is not None and factory.rsplit(".", 1)[-1] in _LOGGER_FACTORIES
    name = dotted_name(receiver)
    if name is None:
        return False
    if imports.qualify(receiver) == "logging":
        return True
    return bool(_LOGGER_NAME.match(name.rsplit(".", 1)[-1]))
