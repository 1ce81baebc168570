"""The names of the calls that break graphs, as tables without libcst: the bytes prefilter
(`graphweld.prefilter`) reads them before any parser or rule is imported; `breakers` classifies
calls with them."""

from __future__ import annotations

EXPLICIT_BREAKERS = frozenset({"torch._dynamo.graph_break", "torch._dynamo.skip_frame"})

IO_BREAKERS = frozenset(
    {
        "print",
        "input",
        "open",
        "breakpoint",
        "io.open",
        "pdb.set_trace",
        "warnings.warn",
        "warnings.warn_explicit",
        "torch.save",
        "torch.load",
        "pickle.dump",
        "pickle.load",
        "json.dump",
        "json.load",
        "time.sleep",
        "sys.stdout.write",
        "sys.stderr.write",
        "os.write",
        "numpy.save",
        "numpy.load",
        "logging.log",
        "logging.debug",
        "logging.info",
        "logging.warning",
        "logging.warn",
        "logging.error",
        "logging.exception",
        "logging.critical",
        "logging.fatal",
    }
)

# DLPack exports of a tensor: torch's capsule, and another array library taking the tensor by the
# DLPack protocol (`np.from_dlpack(t)`: Dynamo breaks, or its fake tensor has no data pointer and
# the compile raises; measured on torch 2.13).
DLPACK_BREAKERS = frozenset(
    {
        "torch.utils.dlpack.to_dlpack",
        "torch.to_dlpack",
        "numpy.from_dlpack",
        "cupy.from_dlpack",
        "jax.dlpack.from_dlpack",
        "jax.numpy.from_dlpack",
    }
)

# Calls Dynamo cannot trace although they have no side effects: frame introspection. Measured on
# torch 2.13 (each in a compiled function with fullgraph=True: "Attempted to call function marked
# as skipped"); through torch._dynamo.nonstrict_trace the caller compiles into one graph.
UNTRACEABLE_BREAKERS = frozenset({"inspect.currentframe", "inspect.stack", "sys._getframe"})

# Methods of logger objects; `logger.warning_once` is transformers' deduplicating variant.
LOGGING_METHODS = frozenset(
    {
        "debug",
        "info",
        "warning",
        "warn",
        "error",
        "exception",
        "critical",
        "fatal",
        "log",
        "warning_once",
        "info_once",
        "warning_advice",
    }
)
