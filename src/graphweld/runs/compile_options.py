"""The compile options a run takes: torch.compile's arguments, the Dynamo switches graphweld
measures and writes, and torch.compiler's stance for a block. Read by the parent (which options
`--compile-options` accepts) and by the runner (which applies them); imports torch only when
applying them."""

from __future__ import annotations

import contextlib
from typing import Any


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


def draw_as_eager() -> None:
    """Inductor's random ops draw what eager ones draw (its `fallback_random`), in every run: a
    rewrite that moves a draw into or out of a graph is then judged on the same numbers."""
    import torch._inductor.config as inductor_config

    inductor_config.fallback_random = True


def resume_settings_off(torch: Any) -> list[str]:
    """RESUME_SETTINGS this torch has, and has off: measured for any run that breaks."""
    return [name for name in RESUME_SETTINGS if getattr(torch._dynamo.config, name, None) is False]


# Dynamo's switches that `fullgraph=True` turns on for its own compile (its shape environment
# allows scalar outputs and data-dependent output shapes whenever the compile is one graph).
FULLGRAPH_CAPTURES = ("capture_scalar_outputs", "capture_dynamic_output_shape_ops")


def capture_as_fullgraph_does() -> None:
    import torch._dynamo

    for name in FULLGRAPH_CAPTURES:
        setattr(torch._dynamo.config, name, True)


@contextlib.contextmanager
def stance(mode: str, backend: Any = None):  # type: ignore[no-untyped-def]
    """torch.compiler's stance for the block (`force_eager` runs compiled code eagerly), then the default."""
    import torch

    torch.compiler.set_stance(mode, force_backend=backend)
    try:
        yield
    finally:
        torch.compiler.set_stance("default")
