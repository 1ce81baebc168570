"""iterate-source-list: a function that only iterates a tensor built from a Python list gets the list."""

from __future__ import annotations

import libcst as cst

from graphweld.analysis.names import decorator_name
from graphweld.analysis.regions import FunctionInfo
from graphweld.rule import Rule, Safety
from graphweld.analysis.scopes import mentioned_names
from graphweld.analysis.tensors import FunctionValues
from graphweld.walk import children, iter_nodes, nodes_of_types

# What iterates a value: `for` statements and comprehensions.
_LOOPS = frozenset({cst.For, cst.CompFor})

_FROM_LIST = frozenset(("torch.as_tensor", "torch.tensor"))


class IterateSourceList(Rule):
    """Pass the Python list a tensor was built from to a function that only iterates it.

    ## What it fixes
    In a compiled region, `shapes = torch.as_tensor(shapes_list, ...)` (or `torch.tensor`) and
    then a call, to a function or method of the same module, that passes `shapes` to a parameter
    the callee uses only as what a `for` loop iterates (`for level, (height, width) in
    enumerate(shapes):`). The call then passes `shapes_list` instead. When the call also passes
    `shapes_list` on to the callee, a further call inside the callee that hands its copy of
    `shapes` to such an iterating function gets the callee's copy of the list instead. This is
    the Deformable-DETR family's `get_reference_points` / `generate_encoder_output_proposals`
    pattern (Grounding DINO, RT-DETR, Deformable DETR, OmDet-Turbo, D-FINE in transformers 4.x).

    ## Why the graph breaks
    Iterating a tensor gives tensors; using them as sizes (`torch.linspace(0, height - 1,
    height)`, `.view(batch, height, width)`) needs their values, so Dynamo breaks the graph or
    skips the frame (`Tensor.item()`, GB0124; data-dependent operator, GB0033). The values are in
    the Python list the tensor was built from, as numbers Dynamo knows while tracing.

    ## Example
    ```python
    class DeformableDetrModel(nn.Module):
        def forward(self, output, mask, spatial_shapes_list):
            spatial_shapes = torch.as_tensor(spatial_shapes_list, dtype=torch.long)
            proposals = self.generate_encoder_output_proposals(output, mask, spatial_shapes)
            ...

        def generate_encoder_output_proposals(self, enc_output, padding_mask, spatial_shapes):
            for level, (height, width) in enumerate(spatial_shapes):
                ...
    ```
    becomes
    ```python
            spatial_shapes = torch.as_tensor(spatial_shapes_list, dtype=torch.long)
            proposals = self.generate_encoder_output_proposals(output, mask, spatial_shapes_list)
    ```

    ## Safety
    Always unsafe, so only applied with `--unsafe-fixes`; verify with `fix --entry`. The loop
    now gets numbers (or tuples of numbers) instead of 0-dim tensors: arithmetic, sizes and
    indexing give the same values, but code that asks an element for tensor behaviour
    (`.item()`, `.dtype`, `torch.stack` of them) differs, and graphweld does not prove the loop
    body free of that. Both names must be bound once in the function; that the list is not
    changed in place (`append`) between building the tensor and the call is not checked. For the
    call inside the callee,
    graphweld relies on the call it saw passing the tensor and its list together; other callers
    of the callee (in other modules) are not checked.
    """

    id = "iterate-source-list"
    reference = "https://docs.pytorch.org/docs/stable/compile/programming_model.graph_breaks_index.html"
    summary = "Pass the Python list a tensor was built from to a function that only iterates it"
    # The README's table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = (
        "`t = torch.as_tensor(shapes_list)` passed to a function of the module that only iterates it (`for "
        "level, (h, w) in enumerate(t):`), directly or through a callee that also gets `shapes_list` (the "
        "Deformable-DETR family's reference points and proposals)"
    )
    rewrite = "pass the list instead"
    default = "unsafe: the loop gets numbers instead of 0-dim tensors"
    trigger_words = ("as_tensor", "tensor")
    needs_breaker_call = False
    node_types = (cst.FunctionDef,)

    def __init__(self, context) -> None:  # type: ignore[no-untyped-def]
        super().__init__(context)
        self._proposed: set[int] = set()
        self._callers: dict[int, list[tuple[FunctionInfo, cst.SimpleStatementLine, cst.Call]]] | None = None
        self._sources: dict[int, dict[str, str]] = {}

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        # Seen from the function that iterates (where the run saw the break): its callers change.
        context = self.context
        info = context.regions.function_info(node)
        if info is None or not context.regions.is_compiled(node):
            return
        params = node.params
        names = {param.name.value for param in (*params.posonly_params, *params.params, *params.kwonly_params)}
        # One walk finds the parameters some loop iterates; only those are looked at closely.
        for name in sorted(names & _iterated_names(node)):
            if _only_iterated(node, name):
                self._fix_callers(info, name)

    def _fix_callers(self, iterating: FunctionInfo, parameter: str) -> None:
        loops = _loops_over(iterating.node, parameter)
        for caller, statement, call in self._callers_of(iterating):
            argument = _arguments_by_parameter(call, iterating).get(parameter)
            if not isinstance(argument, cst.Name):
                continue
            source = self._sources_in(caller).get(argument.value)
            if source is not None:
                why = f"`{argument.value}` is only iterated by `{iterating.qualname}`"
                self._replace(statement, argument, source, why, loops)
                continue
            # The caller got the tensor as a parameter: if every call it gets (in this module)
            # also passes the list it was built from, its own parameter for that list serves.
            list_parameter = self._list_parameter(caller, argument.value)
            if list_parameter is not None:
                why = (
                    f"`{argument.value}` is only iterated by `{iterating.qualname}`, and `{caller.qualname}` is "
                    f"passed the list it was built from as `{list_parameter}`"
                )
                self._replace(statement, argument, list_parameter, why, loops)

    def _list_parameter(self, function: FunctionInfo, tensor_parameter: str) -> str | None:
        """The parameter of `function` that every call to it passes the list its
        `tensor_parameter` was built from; None unless there is one (and at least one call)."""
        found: set[str] = set()
        calls = self._callers_of(function)
        for caller, _, call in calls:
            passed = _arguments_by_parameter(call, function)
            tensor = passed.get(tensor_parameter)
            source = self._sources_in(caller).get(tensor.value) if isinstance(tensor, cst.Name) else None
            names = {p for p, a in passed.items() if source is not None and isinstance(a, cst.Name) and a.value == source}
            if len(names) != 1:
                return None
            found |= names
        return found.pop() if calls and len(found) == 1 else None

    def _callers_of(self, function: FunctionInfo) -> list[tuple[FunctionInfo, cst.SimpleStatementLine, cst.Call]]:
        if self._callers is None:
            regions = self.context.regions
            self._callers = {}
            for caller in regions.all_functions():
                for statement, call in _calls(caller.node.body):
                    for callee in regions.resolve_call(call, caller.node):
                        self._callers.setdefault(id(callee.node), []).append((caller, statement, call))
        return self._callers.get(id(function.node), [])

    def _sources_in(self, function: FunctionInfo) -> dict[str, str]:
        """Tensor name -> the name of the list it was built from, for `t = torch.as_tensor(l, ...)`
        with both names bound once in the function."""
        known = self._sources.get(id(function.node))
        if known is not None:
            return known
        imports = self.context.regions.imports
        values = self.context.function_values(function.node)
        sources: dict[str, str] = {}
        for name, bound in values.bindings.items():
            if len(bound) != 1 or not isinstance(bound[0], cst.Call):
                continue
            call = bound[0]
            if imports.qualify(call.func) not in _FROM_LIST or not call.args or call.args[0].keyword is not None:
                continue
            source = call.args[0].value
            if isinstance(source, cst.Name) and source.value != name and _bound_once_or_parameter(values, source.value):
                sources[name] = source.value
        self._sources[id(function.node)] = sources
        return sources

    def _replace(
        self, statement: cst.SimpleStatementLine, argument: cst.Name, source: str, why: str, loops: list[cst.For]
    ) -> None:
        if id(statement) in self._proposed:
            return
        self._proposed.add(id(statement))
        replacement = statement.deep_replace(argument, cst.Name(source))
        message = (
            f"{why}: iterating a tensor reads its values and breaks the graph; pass `{source}`, the list it was "
            "built from (unsafe: the loop gets numbers instead of 0-dim tensors)"
        )
        self.propose(
            statement, [replacement], anchor=statement, message=message, safety=Safety.UNSAFE, resolves=loops
        )  # type: ignore[list-item]


def _bound_once_or_parameter(values: FunctionValues, name: str) -> bool:
    return name in values.parameters and name not in values.bindings or len(values.bindings.get(name, [])) == 1


def _calls(body: cst.CSTNode):  # type: ignore[no-untyped-def]
    """(statement, call) for every call in a simple statement of the body (not in nested
    functions, classes or lambdas)."""
    stack: list[tuple[cst.CSTNode, cst.SimpleStatementLine | None]] = [(body, None)]
    while stack:
        current, line = stack.pop()
        if isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(current, cst.SimpleStatementLine):
            line = current
        elif isinstance(current, cst.Call) and line is not None:
            yield line, current
        stack.extend((child, line) for child in reversed(children(current)))


def _arguments_by_parameter(call: cst.Call, callee: FunctionInfo) -> dict[str, cst.BaseExpression]:
    """The callee's parameter names with the expressions the call passes them."""
    params = callee.node.params
    positional = [*params.posonly_params, *params.params]
    is_static = any(decorator_name(d) == "staticmethod" for d in callee.node.decorators)
    if callee.cls is not None and not is_static:
        positional = positional[1:]  # self or cls
    passed: dict[str, cst.BaseExpression] = {}
    index = 0
    for arg in call.args:
        if arg.star:
            return {}
        if arg.keyword is None:
            if index >= len(positional):
                return {}
            passed[positional[index].name.value] = arg.value
            index += 1
        else:
            passed[arg.keyword.value] = arg.value
    return passed


def _only_iterated(function: cst.FunctionDef, parameter: str) -> bool:
    """Whether every use of `parameter` in the function is what a `for` loop iterates, directly
    or through `enumerate(...)` (comprehensions included), and nothing binds the name again."""
    iterated: set[int] = set()
    uses: list[cst.Name] = []
    stack: list[cst.CSTNode] = [function.body]
    while stack:
        current = stack.pop()
        if isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            if parameter in mentioned_names([current]):
                return False
            continue
        if isinstance(current, (cst.For, cst.CompFor)):
            name = _iterated_name(current)
            if name is not None and name.value == parameter:
                iterated.add(id(name))
        if isinstance(current, cst.Name) and current.value == parameter:
            uses.append(current)
        stack.extend(children(current))
    return bool(uses) and all(id(use) in iterated for use in uses)


def _iterated_name(loop: cst.For | cst.CompFor) -> cst.Name | None:
    """The name a loop iterates, directly or as `enumerate(name)`."""
    source = loop.iter
    if isinstance(source, cst.Call) and isinstance(source.func, cst.Name) and source.func.value == "enumerate":
        source = source.args[0].value if len(source.args) == 1 else source
    return source if isinstance(source, cst.Name) else None


def _iterated_names(function: cst.FunctionDef) -> set[str]:
    """The names `for` loops and comprehensions of the function iterate."""
    loops = nodes_of_types(function.body, _LOOPS)
    return {name.value for name in map(_iterated_name, loops) if name is not None}


def _loops_over(function: cst.FunctionDef, parameter: str) -> list[cst.For]:
    """The `for` statements of the function that iterate `parameter` (where Dynamo reports the break)."""
    return [
        node
        for node in iter_nodes(function.body)
        if isinstance(node, cst.For) and (name := _iterated_name(node)) is not None and name.value == parameter
    ]
