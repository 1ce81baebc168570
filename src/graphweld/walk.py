"""Fast tree walks over libcst nodes.

libcst's visitor protocol rebuilds every node's children as it goes, which costs several times
the parse itself; graphweld's analyses only read the tree. These walks read node fields directly
(like `ast.iter_child_nodes`), skip pure-whitespace fields, and use an explicit stack, so deeply
nested expressions cannot overflow the interpreter's recursion limit.
"""

from __future__ import annotations

import dataclasses
import functools
import operator
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


class _NodeTypes(dict):
    """type -> whether it is a libcst node. `isinstance(x, cst.CSTNode)` goes through ABCMeta's
    check, which cost more than the rest of a walk; a dict lookup on the type does not."""

    def __missing__(self, value_type: type) -> bool:
        self[value_type] = is_node = isinstance(value_type, type) and issubclass(value_type, cst.CSTNode)
        return is_node


_IS_NODE_TYPE = _NodeTypes()


class _FieldReaders(dict):
    """node type -> a function returning the values of its child fields as a tuple."""

    def __missing__(self, node_type: type) -> Callable[[cst.CSTNode], tuple]:
        names = _child_fields(node_type)
        if not names:
            reader: Callable[[cst.CSTNode], tuple] = lambda node: ()  # noqa: E731
        elif len(names) == 1:
            single = operator.attrgetter(names[0])
            reader = lambda node: (single(node),)  # noqa: E731
        else:
            reader = operator.attrgetter(*names)
        self[node_type] = reader
        return reader


_READERS = _FieldReaders()


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The child nodes that carry code, in source order."""
    found: list[cst.CSTNode] = []
    is_node = _IS_NODE_TYPE
    for value in _READERS[type(node)](node):
        value_type = type(value)
        if value_type is tuple or value_type is list:
            for item in value:
                if is_node[type(item)]:
                    found.append(item)
        elif is_node[value_type]:
            found.append(value)
    return found



def iter_nodes(root: cst.CSTNode, prune: Callable[[cst.CSTNode], bool] | None = None) -> Iterator[cst.CSTNode]:
    """`root` and its descendants, depth first in source order; `prune(node)` true skips below it."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        if prune is not None and node is not root and prune(node):
            continue
        below = children(node)
        below.reverse()
        stack.extend(below)


def nodes_of_types(
    root: cst.CSTNode, wanted: frozenset[type], skip: frozenset[type] = frozenset(), skip_expressions: bool = False
) -> list[cst.CSTNode]:
    """The nodes in `root` (itself included) whose type is one of `wanted`, in `iter_nodes` order;
    nothing below a node of a `skip` type, or below an expression with `skip_expressions`
    (other than `root`), is looked at. Exact types, not `isinstance`: no abstract-class check per
    node, which is most of a filtered walk's cost."""
    found: list[cst.CSTNode] = []
    stack = [root]
    while stack:
        node = stack.pop()
        node_type = type(node)
        if node_type in wanted:
            found.append(node)
        if node is not root and (node_type in skip or (skip_expressions and _is_expression_type(node_type))):
            continue
        below = children(node)
        below.reverse()
        stack.extend(below)
    return found


_CALL = frozenset({cst.Call})
# Code a statement defines, not runs where it is written (what `scopes.is_nested_function` tests).
DEFINITION_TYPES = frozenset({cst.FunctionDef, cst.Lambda, cst.ClassDef})


def calls_outside_definitions(root: cst.CSTNode) -> list[cst.Call]:
    """The calls in `root`, in `iter_nodes` order, outside the functions, lambdas and classes
    defined below it (the rules that rewrite calls walk every compiled line so)."""
    return nodes_of_types(root, _CALL, DEFINITION_TYPES)  # type: ignore[return-value]


def calls_below(root: cst.CSTNode) -> list[cst.Call]:
    """Every call in `root`, nested definitions included, in `iter_nodes` order."""
    return nodes_of_types(root, _CALL)  # type: ignore[return-value]


def parents_of(root: cst.CSTNode) -> dict[int, cst.CSTNode]:
    """Each node below `root` (by `id`) -> the node it is a child of."""
    parents: dict[int, cst.CSTNode] = {}
    for node in iter_nodes(root):
        for child in children(node):
            parents[id(child)] = node
    return parents


def walk(
    root: cst.CSTNode,
    enter: Callable[[cst.CSTNode], bool],
    leave: Callable[[cst.CSTNode], None] | None = None,
    skip_expressions: bool = False,
) -> None:
    """Depth-first walk calling `enter(node)` (False skips the children) and `leave(node)`;
    `skip_expressions` leaves out expression nodes altogether (neither entered nor left)."""
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
        below = children(node)
        below.reverse()
        if skip_expressions:
            stack.extend((child, False) for child in below if not _is_expression_type(type(child)))
        else:
            stack.extend((child, False) for child in below)


@functools.lru_cache(maxsize=None)
def _is_expression_type(node_type: type) -> bool:
    return issubclass(node_type, cst.BaseExpression)


def is_expression(node: cst.CSTNode) -> bool:
    """`isinstance(node, cst.BaseExpression)`, without an abstract-class check per node."""
    return _is_expression_type(type(node))
