"""Which names statements bind and mention, without entering nested scopes.

Enough scope analysis for rewrites that move statements into a nested function: a name bound
there must be declared `nonlocal` to keep meaning the enclosing function's variable.
"""

from __future__ import annotations

from typing import Iterable, Iterator

import libcst as cst

from graphweld.walk import DEFINITION_TYPES, children, is_expression, iter_nodes, nodes_of_types

_NAME = frozenset({cst.Name})
_CALL = frozenset({cst.Call})

# Nodes that open a scope of their own: what they bind stays inside them.
SCOPE_NODES = (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
# libcst's node classes are ABCs: `isinstance` against them is slow when it fails, which it
# mostly does; walks that test every node look the type up instead.
SCOPE_TYPES = frozenset(SCOPE_NODES)
_BLOCKS_AND_SCOPES = SCOPE_TYPES | {cst.IndentedBlock}


def is_scope(node: cst.CSTNode) -> bool:
    return type(node) in SCOPE_TYPES


def target_names(target: cst.BaseExpression) -> Iterator[str]:
    """Names bound by an assignment target (`a`, `a, (b, *c)`); attributes and subscripts bind none."""
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from target_names(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from target_names(target.value)


def binds_plain_names(target: cst.BaseExpression) -> bool:
    """Whether an assignment target is a name, or a tuple or list of names (no attributes, items
    or starred names): the loops' rules carry such names from one iteration to the next."""
    if isinstance(target, (cst.Tuple, cst.List)):
        return all(isinstance(element, cst.Element) and isinstance(element.value, cst.Name) for element in target.elements)
    return isinstance(target, cst.Name)


def bound_outside(function: cst.FunctionDef, loop: cst.CSTNode) -> set[str]:
    """Names the function binds outside a loop in it, parameters included: where the values the
    loop carries from one iteration to the next can start (the loops' rules)."""
    inside = {id(n) for n in iter_nodes(loop)}
    names = parameter_names(function)
    for node in iter_nodes(function.body):
        if id(node) in inside:
            continue
        if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For)):
            names.update(target_names(node.target))
        elif isinstance(node, cst.AsName):
            names.update(target_names(node.name))  # type: ignore[arg-type]
    return names


def _in_scope(nodes: Iterable[cst.CSTNode], wanted: frozenset[type]) -> Iterator[cst.CSTNode]:
    """The nodes of the `wanted` types in the statements' own scope (nested scopes not entered)."""
    for root in nodes:
        yield from nodes_of_types(root, wanted, SCOPE_TYPES)


# Nodes that bind names: each has a `target`, except those handled by name in `bound_names`.
_BINDING_TYPES = frozenset([
    cst.AssignTarget, cst.AnnAssign, cst.AugAssign, cst.For, cst.NamedExpr, cst.Del,
    cst.AsName, cst.ImportAlias, cst.FunctionDef, cst.ClassDef,
])


def bound_names(nodes: Iterable[cst.CSTNode]) -> set[str]:
    """Names the statements bind in their own scope (assignments, loops, with/except targets,
    imports, walrus, del, and the names of nested functions and classes)."""
    bound: set[str] = set()
    for node in _in_scope(nodes, _BINDING_TYPES):
        node_type = type(node)
        if node_type is cst.ImportAlias:
            if node.asname is None:
                name = node.name
                while isinstance(name, cst.Attribute):
                    name = name.value
                if isinstance(name, cst.Name):
                    bound.add(name.value)
        elif node_type is cst.AsName:
            bound.update(target_names(node.name))  # with ... as, except ... as, import ... as
        elif node_type is cst.FunctionDef or node_type is cst.ClassDef:
            bound.add(node.name.value)
        else:
            bound.update(target_names(node.target))
    return bound


def declared(nodes: Iterable[cst.CSTNode], kind: type[cst.Global] | type[cst.Nonlocal]) -> set[str]:
    """Names declared `global` (or `nonlocal`) in the statements' own scope."""
    return {item.name.value for node in _in_scope(nodes, frozenset({kind})) for item in node.names}


def mentioned_names(nodes: Iterable[cst.CSTNode]) -> set[str]:
    """Every name the statements mention, nested scopes included (closures read them too)."""
    return {node.value for root in nodes for node in nodes_of_types(root, _NAME)}


def loaded_names(nodes: Iterable[cst.CSTNode], skip: cst.CSTNode | None = None) -> set[str]:
    """Names the nodes read or bind, nested scopes included, without attribute and keyword names
    (`a.b(c=d)` reads `a` and `d`); the subtree `skip` is left out."""
    found: set[str] = set()
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if node is skip:
            continue
        node_type = type(node)
        if node_type is cst.Name:
            found.add(node.value)  # type: ignore[attr-defined]
        elif node_type is cst.Attribute or node_type is cst.Arg:
            stack.append(node.value)  # type: ignore[attr-defined]
        else:
            stack.extend(children(node))
    return found


def parameter_names(function: cst.FunctionDef) -> set[str]:
    """Every name a function's parameters bind, `*args` and `**kwargs` included."""
    params = function.params
    names = {param.name.value for param in (*params.posonly_params, *params.params, *params.kwonly_params)}
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            names.add(star.name.value)
    return names


def fresh_name(base: str, taken: set[str]) -> str:
    """`base`, or `base_2`, `base_3`, ... : the first not in `taken`."""
    name, counter = base, 2
    while name in taken:
        name, counter = f"{base}_{counter}", counter + 1
    return name


def own_statements(function: cst.FunctionDef) -> list[cst.BaseStatement]:
    """Every statement of the function, compound ones included, not inside nested functions or
    classes (they do not run where they are written)."""
    return [
        current
        for current in iter_nodes(function.body, prune=nested_scope_or_expression)
        if isinstance(current, cst.BaseStatement) and not isinstance(current, (cst.FunctionDef, cst.ClassDef))
    ]


def calls_where_written(statement: cst.BaseStatement) -> list[cst.Call]:
    """Calls a statement makes where it is written (a compound statement's header, not its
    blocks; not inside lambdas, comprehensions or nested functions)."""
    return nodes_of_types(statement, _CALL, _BLOCKS_AND_SCOPES)  # type: ignore[return-value]


def is_nested_function(node: cst.CSTNode) -> bool:
    """A function, lambda or class inside the code walked: its body does not run where it is
    written (comprehensions do, and are walked into)."""
    return type(node) in DEFINITION_TYPES


def nested_scope_or_expression(node: cst.CSTNode) -> bool:
    """Below a nested function or class nothing runs where it is written; below an expression
    or a line of simple statements there are no statements."""
    return type(node) in (cst.FunctionDef, cst.ClassDef, cst.SimpleStatementLine) or is_expression(node)
