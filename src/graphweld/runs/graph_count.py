"""Counting the graphs Dynamo compiles, and the ops in each."""

from __future__ import annotations

from typing import Any


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
