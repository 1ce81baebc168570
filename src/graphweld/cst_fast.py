"""Two shortcuts through libcst's internals, each measured on the torch sources.

- Parsing without validation. Every node libcst's parser builds runs the node class's `_validate`
  (libcst's own source notes this could be skipped for parsed trees): about a quarter of a parse.
  A tree the parser built from real source is valid by construction; nodes the rules build are
  still validated, since the shortcut is on only for the duration of a parse.
- Code generation without syntactic-position bookkeeping. `CodegenState.record_syntactic_position`
  is a generator-based context manager entered for most nodes, only to serve libcst's
  PositionProvider; graphweld's code generation never reads it.
"""

from __future__ import annotations

from typing import Any

import libcst as cst
from libcst._nodes.internal import CodegenState

_VALIDATING_POST_INIT = cst.CSTNode.__post_init__


def _skip_validation(self: cst.CSTNode) -> None:
    pass


def parse_module(text: str) -> cst.Module:
    """`libcst.parse_module` without per-node validation; raises what it raises."""
    cst.CSTNode.__post_init__ = _skip_validation  # type: ignore[method-assign]
    try:
        return cst.parse_module(text)
    finally:
        cst.CSTNode.__post_init__ = _VALIDATING_POST_INIT  # type: ignore[method-assign]


class _NoPosition:
    __slots__ = ()

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc_info: object) -> None:
        return None


_NO_POSITION = _NoPosition()


class PlainCodegenState(CodegenState):
    """A code generation state that keeps no syntactic positions."""

    def record_syntactic_position(self, node: Any, *, start_node: Any = None, end_node: Any = None) -> _NoPosition:  # type: ignore[override]
        return _NO_POSITION


def code(nodes: list[cst.CSTNode] | tuple[cst.CSTNode, ...], module: cst.Module, indents: list[str] | None = None) -> str:
    """The code of `nodes` in `module`'s style, inside blocks indented by `indents`."""
    state = PlainCodegenState(default_indent=module.default_indent, default_newline=module.default_newline)
    state.indent_tokens = list(indents or ())
    for node in nodes:
        node._codegen(state)
    return "".join(state.tokens)


def source(node: cst.CSTNode, module: cst.Module) -> str:
    """The code of one node in `module`'s style, without surrounding blank space."""
    return code([node], module).strip()


def call_code(func: str, arguments: list[str], limit: int, prefix: str = "") -> str:
    """`prefix` and `func(a, b)` on one line when that fits in `limit` columns, else with one
    argument per line (a generated call, as a formatter would lay it out)."""
    one_line = f"{prefix}{func}({', '.join(arguments)})"
    if len(one_line) <= limit:
        return one_line
    return f"{prefix}{func}(\n" + "".join(f"    {argument},\n" for argument in arguments) + ")"
