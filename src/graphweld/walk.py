"""Fast tree walks over libcst nodes.

libcst's visitor protocol rebuilds every node's children as it goes, which costs several times
the parse itself; graphweld's analyses only read the tree. These walks read node fields directly
(like `ast.iter_child_nodes`), skip pure-whitespace fields, and use an explicit stack, so deeply
nested expressions cannot overflow the interpreter's recursion limit.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Callable, Iterator

import libcst as cst

# Fields that only ever hold whitespace, comments or punctuation tokens.
_TRIVIA_MARKERS = ("whitespace", "lpar", "rpar", "comma", "semicolon", "colon", "newline", "equal", "leading_lines")
_TRIVIA_FIELDS = frozenset({"header", "footer", "lines_after_decorators", "dot", "star", "operator", "asynchronous"})


@functools.lru_cache(maxsize=None)
def _child_fields(node_type: type) -> tuple[str, ...]:
    return tuple(
        field.name
        for field in dataclasses.fields(node_type)
        if field.name not in _TRIVIA_FIELDS and not any(marker in field.name for marker in _TRIVIA_MARKERS)
    )


def iter_children(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The child nodes that carry code, in source order."""
    for name in _child_fields(type(node)):
        value = getattr(node, name)
        if isinstance(value, cst.CSTNode):
            yield value
        elif isinstance(value, (tuple, list)):
            for item in value:
                if isinstance(item, cst.CSTNode):
                    yield item


def iter_nodes(root: cst.CSTNode, prune: Callable[[cst.CSTNode], bool] | None = None) -> Iterator[cst.CSTNode]:
    """`root` and its descendants, depth first in source order; `prune(node)` true skips below it."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        if prune is not None and node is not root and prune(node):
            continue
        children = list(iter_children(node))
        children.reverse()
        stack.extend(children)


def walk(
    root: cst.CSTNode,
    enter: Callable[[cst.CSTNode], bool],
    leave: Callable[[cst.CSTNode], None] | None = None,
) -> None:
    """Depth-first walk calling `enter(node)` (False skips the children) and `leave(node)`."""
    stack: list[tuple[cst.CSTNode, bool]] = [(root, False)]
    while stack:
        node, leaving = stack.pop()
        if leaving:
            if leave is not None:
                leave(node)
            continue
        if not enter(node):
            if leave is not None:
                leave(node)
            continue
        stack.append((node, True))
        children = list(iter_children(node))
        children.reverse()
        stack.extend((child, False) for child in children)


@functools.lru_cache(maxsize=None)
def _is_expression_type(node_type: type) -> bool:
    return issubclass(node_type, cst.BaseExpression)


def is_expression(node: cst.CSTNode) -> bool:
    """`isinstance(node, cst.BaseExpression)`, without an abstract-class check per node."""
    return _is_expression_type(type(node))
