"""Clocks and timers: which calls read a wall clock or time with a CUDA event, and whether a
function's clock readings decide anything or are only reported.

A clock Dynamo cannot trace (GB0007) can be read only eagerly, reading its neutral value while
compiling, where what it measured is only reported (printed, logged, returned as a duration); a
reading that decides (a timeout, a rate limit, a sleep) must keep its value. profiling-guard
rewrites on these answers.
"""

from __future__ import annotations

import libcst as cst

from graphweld.analysis.blocks import tests_not_compiling
from graphweld.analysis.reported import OUTPUT_CALLS, callee_leaf, reported_nodes
from graphweld.analysis.scopes import is_scope, target_names
from graphweld.walk import iter_nodes

# Wall clocks: Dynamo does not trace them ("marked as skipped", GB0007); their neutral value.
CLOCKS = {
    "time.perf_counter": "0.0", "time.time": "0.0", "time.monotonic": "0.0", "time.process_time": "0.0",
    "time.perf_counter_ns": "0", "time.time_ns": "0", "time.monotonic_ns": "0", "time.process_time_ns": "0",
    "timeit.default_timer": "0.0",
}
CUDA_EVENTS = frozenset({"torch.cuda.Event", "torch.cuda.streams.Event", "torch.Event"})
# An event is a timer only when made with `enable_timing=True` and used for nothing but recording,
# synchronizing and reading a time: one passed on, stored or waited on orders streams (DDP's copy
# events), and is left alone.
# Methods of a CUDA event used for timing: statements, and the one that reads a time.
EVENT_STATEMENTS = frozenset({"record", "synchronize"})
EVENT_READS = {"elapsed_time": "0.0"}
# Waits that only make a timing honest: skipped with the timing, where the function times.
SYNCHRONIZE = frozenset({"torch.cuda.synchronize", "torch.accelerator.synchronize", "torch.cpu.synchronize"})


def timing_events(root: cst.CSTNode, imports, *, local: bool) -> set[str]:  # type: ignore[no-untyped-def]
    """The names (`local`: plain names in a function's body; else `self.NAME` anywhere in the
    module) bound to an event made with `enable_timing=True` and used for nothing but timing:
    recorded, synchronized, queried, or in `elapsed_time`."""
    nodes = list(iter_nodes(root, prune=is_scope if local else None))
    made: set[str] = set()
    for node in nodes:
        if isinstance(node, cst.Assign) and isinstance(node.value, cst.Call) and imports.qualify(node.value.func) in CUDA_EVENTS:
            timed = any(
                arg.keyword is not None and arg.keyword.value == "enable_timing"
                and isinstance(arg.value, cst.Name) and arg.value.value == "True" for arg in node.value.args
            )
            for target in node.targets:
                name = dotted(target.target)
                if timed and name is not None and ("." in name) != local:
                    made.add(name)
    if not made:
        return made
    uses: dict[str, int] = dict.fromkeys(made, 0)
    timed_uses: dict[str, int] = dict.fromkeys(made, 0)
    for node in nodes:
        name = dotted(node) if isinstance(node, (cst.Name, cst.Attribute)) else None
        if name in uses:
            uses[name] += 1
        if isinstance(node, cst.Assign):
            for target in node.targets:
                if dotted(target.target) in timed_uses:
                    timed_uses[dotted(target.target)] += 1  # type: ignore[index]
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            receiver = dotted(node.func.value)
            if receiver in timed_uses and node.func.attr.value in ("record", "synchronize", "query", "elapsed_time"):
                timed_uses[receiver] += 1  # type: ignore[index]
            if node.func.attr.value == "elapsed_time":
                for arg in node.args:
                    if dotted(arg.value) in timed_uses:
                        timed_uses[dotted(arg.value)] += 1  # type: ignore[index]
    return {name for name in made if uses[name] == timed_uses[name]}


def clock_decision(nodes: list[cst.CSTNode], clocks: list[cst.Call]) -> cst.CSTNode | None:
    """The test, comparison or wait in the function that reads a clock's value (directly or through
    names bound from it), or None: a clock that only feeds what is reported is a timer."""
    clock_ids = {id(call) for call in clocks}
    tainted: set[str] = set()

    def reads_clock(node: cst.CSTNode) -> bool:
        return any(
            id(inner) in clock_ids or (isinstance(inner, cst.Name) and inner.value in tainted)
            for inner in iter_nodes(node, prune=is_scope)
        )

    changed = True
    while changed:
        changed = False
        for node in nodes:
            value = node.value if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)) else None
            if value is None or not reads_clock(value):
                continue
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            for target in targets:
                new = set(target_names(target)) - tainted
                if new:
                    tainted |= new
                    changed = True
    # A timestamp that leaves the function (stored on an object, returned) may decide elsewhere
    # (a rate limit, a cache's age); a duration (a difference of clock reads) is what is reported.
    def duration(value: cst.BaseExpression) -> bool:
        return any(
            isinstance(inner, cst.BinaryOperation) and isinstance(inner.operator, cst.Subtract) and reads_clock(inner)
            for inner in iter_nodes(value, prune=is_scope)
        ) or (isinstance(value, cst.Name) and value.value in durations)

    def timestamp(value: cst.BaseExpression) -> bool:
        """A clock's reading itself (`time.time()`, `int(now)`), not a difference of two."""
        return reads_clock(value) and not duration(value) and not any(
            isinstance(inner, cst.Name) and inner.value in durations for inner in iter_nodes(value, prune=is_scope)
        )

    durations = {
        name for node in nodes if isinstance(node, cst.Assign) and reads_clock(node.value)
        and any(isinstance(inner, cst.BinaryOperation) and isinstance(inner.operator, cst.Subtract) for inner in iter_nodes(node.value))
        for target in node.targets for name in target_names(target.target)
    }
    stamps = {
        name for node in nodes if isinstance(node, cst.Assign) and id(node.value) in clock_ids
        for target in node.targets for name in target_names(target.target)
    }
    for node in nodes:
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Subtract) and reads_clock(node):
            # A duration of this function's own clock reads reads 0 while compiling; one measured
            # from a reading made elsewhere (`now - self.start`) would not.
            for side in (node.left, node.right):
                if not (id(side) in clock_ids or (isinstance(side, cst.Name) and side.value in stamps)):
                    return node
        if isinstance(node, cst.Assign) and timestamp(node.value) and any(
            not isinstance(target.target, cst.Name) for target in node.targets
        ):
            return node
        if isinstance(node, cst.Call) and callee_leaf(node) not in _REPORTING_CALLS and any(
            timestamp(arg.value) for arg in node.args
        ):
            return node
        if isinstance(node, cst.Return) and node.value is not None:
            parts = node.value.elements if isinstance(node.value, cst.Tuple) else [node.value]
            if any(timestamp(part.value if isinstance(part, cst.Element) else part) for part in parts):
                return node
    # A comparison or choice whose value is only printed or logged (`ok={elapsed >= 0}` in an
    # f-string) reports; it decides nothing.
    reported = reported_nodes(nodes)
    for node in nodes:
        tested = None
        if id(node) in reported:
            continue
        if isinstance(node, (cst.If, cst.While, cst.IfExp)) and not tests_not_compiling(node.test):
            tested = node.test
        elif isinstance(node, (cst.Comparison, cst.Assert)):
            tested = node
        elif isinstance(node, cst.Call) and isinstance(node.func, (cst.Name, cst.Attribute)):
            leaf = node.func.attr.value if isinstance(node.func, cst.Attribute) else node.func.value
            tested = node if leaf in ("sleep", "wait", "range") else None
        if tested is not None and reads_clock(tested):
            return tested
    return None


# Calls a timing is reported through: a timestamp handed to any other call may decide there.
_REPORTING_CALLS = OUTPUT_CALLS | {"format", "str", "repr", "float", "int", "round", "abs"}


def dotted(node: cst.CSTNode) -> str | None:
    """`start` for a name, `self.start` for an attribute of a name."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name):
        return f"{node.value.value}.{node.attr.value}"
    return None
