"""Which values of a function reach only what it reports: printed or logged, never decided on.

A clock reading or a device statistic that is formatted, compared or combined and then only
printed or logged is a report: reading it as a neutral value while compiling changes the numbers a
compiled run prints, never what the program does. The same comparison in an `if`, a `while`, a
call's argument or a `return` decides, and is not a report.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from graphweld.analysis.scopes import is_scope
from graphweld.walk import iter_nodes

# Calls whose arguments only go out to the user: printing, writing, logging and warning.
OUTPUT_CALLS = frozenset(
    {"print", "write", "debug", "info", "warning", "warn", "error", "critical", "log", "exception", "info_once",
     "warning_once"}
)


def callee_leaf(call: cst.Call) -> str:
    """`info` for `log.info(...)`, `print` for `print(...)`; "" for any other callee."""
    func = call.func
    return func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""


def reported_nodes(nodes: Sequence[cst.CSTNode]) -> set[int]:
    """The ids of the nodes among `nodes` (a function's, nested scopes left out) whose value
    reaches only output: inside an output call's arguments, or inside the value of a plain name
    (`message = f"..."`) that is read nowhere else."""
    reported: set[int] = set()
    for node in nodes:
        if isinstance(node, cst.Call) and callee_leaf(node) in OUTPUT_CALLS:
            for arg in node.args:
                reported.update(id(inner) for inner in iter_nodes(arg.value, prune=is_scope))
    assigned: dict[str, list[cst.Assign]] = {}
    bound_by: dict[str, int] = {}
    targets: set[int] = set()
    for node in nodes:
        if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            for target in node.targets if isinstance(node, cst.Assign) else [node]:
                name = target.target
                if isinstance(name, cst.Name):
                    targets.add(id(name))
                    bound_by[name.value] = bound_by.get(name.value, 0) + 1
                    if isinstance(node, cst.Assign) and len(node.targets) == 1:
                        assigned.setdefault(name.value, []).append(node)
    for node in nodes:
        # Names that are not reads of a variable: an attribute's name, a keyword.
        if isinstance(node, cst.Attribute):
            targets.add(id(node.attr))
        elif isinstance(node, cst.Arg) and node.keyword is not None:
            targets.add(id(node.keyword))
    loads: dict[str, list[cst.Name]] = {}
    for node in nodes:
        if isinstance(node, cst.Name) and id(node) not in targets:
            loads.setdefault(node.value, []).append(node)
    changed = True
    while changed:
        changed = False
        for name, assignments in assigned.items():
            if len(assignments) != bound_by[name] or not loads.get(name):
                continue
            value = assignments[0].value
            if id(value) in reported or not all(id(load) in reported for load in loads[name]):
                continue
            for assignment in assignments:
                reported.update(id(inner) for inner in iter_nodes(assignment.value, prune=is_scope))
            changed = True
    return reported
