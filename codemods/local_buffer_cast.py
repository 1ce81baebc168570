"""local-buffer-cast: a buffer converted in forward is kept in a local instead of assigned back to the module."""

from __future__ import annotations

import libcst as cst

from graphweld.analysis.names import attribute_of
from graphweld.analysis.scopes import fresh_name, loaded_names
from graphweld.rule import Rule, Safety
from graphweld.walk import iter_nodes

# Tensor methods that return the tensor converted (device, dtype, layout): what a forward assigns
# back to its buffer.
_CONVERSIONS = frozenset(("to", "type", "type_as", "float", "half", "double", "bfloat16", "cuda", "cpu", "contiguous"))


class LocalBufferCast(Rule):
    """Keep a buffer converted in `forward` in a local, instead of assigning it back to the module.

    ## What it fixes
    In a compiled method, a statement at the top of its body that converts one of the module's
    buffers and assigns it back, `self.pos_encoding = self.pos_encoding.to(device=device,
    dtype=inputs_embeds.dtype)` (CTRL), where the class registers the buffer with `nn.Buffer`
    (`self.pos_encoding = nn.Buffer(...)`, transformers 5's form). The converted tensor goes into
    a local of the same name, and the method's later reads of `self.pos_encoding` read the local.

    ## Why the graph breaks
    Assigning to a buffer goes through `nn.Module.__setattr__`, which looks at the new value's
    `persistent` attribute, kept by `nn.Buffer`; Dynamo cannot answer that on the traced tensor
    and breaks the graph ("Unsupported python_type() call", GB4841, on torch 2.13). Measured: the
    same assignment to a buffer made with `register_buffer` does not break, so those are left
    alone. A local is plain tracing.

    ## Example
    ```python
    class PositionEmbedding(nn.Module):
        def __init__(self, table):
            super().__init__()
            self.pos_encoding = nn.Buffer(table, persistent=False)

        def forward(self, input_ids, position_ids, inputs_embeds):
            self.pos_encoding = self.pos_encoding.to(device=inputs_embeds.device, dtype=inputs_embeds.dtype)
            pos_embeds = self.pos_encoding[position_ids, :]
            return inputs_embeds + pos_embeds
    ```
    becomes
    ```python
        def forward(self, input_ids, position_ids, inputs_embeds):
            pos_encoding = self.pos_encoding.to(device=inputs_embeds.device, dtype=inputs_embeds.dtype)
            pos_embeds = pos_encoding[position_ids, :]
            return inputs_embeds + pos_embeds
    ```

    ## Safety
    Unsafe, so only applied with `--unsafe-fixes`: the method computes what it did, but the module
    keeps its buffer as it was, where the original left it converted after each call. Code that
    reads the attribute afterwards (a caller, a hook, another call of the model with other inputs)
    sees the unconverted buffer; `model.to(...)` still moves it as before. The conversion now
    happens on every call (inside the graph, a no-op when nothing changes). Left alone: an
    assignment inside a branch or loop, a buffer assigned again or deleted in the method, one
    read by another method of the class, and one not made with `nn.Buffer`.
    """

    id = "local-buffer-cast"
    reference = "https://docs.pytorch.org/docs/stable/compile/programming_model.graph_breaks_index.html"
    summary = "Keep a buffer converted in `forward` in a local instead of assigning it back to the module"
    # The README's table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = (
        "`self.buf = self.buf.to(...)` (or `.float()`, `.type(...)`...) at the top level of a compiled "
        "method, where the class makes `buf` with `nn.Buffer` (CTRL's positional encoding)"
    )
    rewrite = "keep the converted tensor in a local and read it for the rest of the method"
    default = "unsafe: the module's buffer is no longer converted in place"
    trigger_words = ("Buffer",)
    needs_breaker_call = False
    node_types = (cst.FunctionDef,)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        context = self.context
        if not context.regions.is_compiled(node) or node.name.value == "__init__" or not node.params.params:
            return
        receiver = node.params.params[0].name.value
        if not isinstance(node.body, cst.IndentedBlock):
            return
        statements = list(node.body.body)
        owner: cst.ClassDef | None = None
        for index, statement in enumerate(statements):
            name = _converted_buffer(statement, receiver)
            if name is None:
                continue
            # The class is looked for only for a conversion assigned back (a walk of the module).
            owner = owner or _owning_class(context.module, node)
            if owner is None:
                return
            if not _made_with_buffer(owner, name, context.regions.imports.qualify):
                continue
            rest = statements[index + 1 :]
            if _assigns_attribute(rest, receiver, name) or _read_elsewhere(owner, node, name):
                continue
            local = fresh_name(name, loaded_names([node]))
            assign = statement.body[0]  # type: ignore[attr-defined]
            new_statement = statement.with_changes(  # type: ignore[attr-defined]
                body=[assign.with_changes(targets=[cst.AssignTarget(cst.Name(local))])]
            )
            reads = _AttributeToLocal(receiver, name, local)
            extra = [(s, [s.visit(reads)]) for s in rest if any(attribute_of(n, receiver) == name for n in iter_nodes(s))]
            message = (
                f"`{receiver}.{name} = {context.code(assign.value)}` assigns a converted tensor back to an "
                f"`nn.Buffer`, which breaks the graph (GB4841); keep it in a local `{local}` (unsafe: the module's "
                "buffer is no longer converted in place)"
            )
            self.propose(statement, [new_statement], anchor=statement, message=message, safety=Safety.UNSAFE, extra=extra)
            return


def _owning_class(module: cst.Module, function: cst.FunctionDef) -> cst.ClassDef | None:
    for node in iter_nodes(module):
        if isinstance(node, cst.ClassDef) and any(s is function for s in node.body.body):  # type: ignore[union-attr]
            return node
    return None


def _converted_buffer(statement: cst.CSTNode, receiver: str) -> str | None:
    """`name` for `receiver.name = receiver.name.to(...)` (conversions only, chained or not)."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    assign = statement.body[0]
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
        return None
    target = assign.targets[0].target
    if not isinstance(target, cst.Attribute) or not isinstance(target.value, cst.Name) or target.value.value != receiver:
        return None
    value: cst.BaseExpression = assign.value
    converted = False
    while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value in _CONVERSIONS:
        value, converted = value.func.value, True
    return target.attr.value if converted and attribute_of(value, receiver) == target.attr.value else None


def _made_with_buffer(owner: cst.ClassDef, name: str, qualify) -> bool:  # type: ignore[no-untyped-def]
    """Whether the class's `__init__` assigns `self.name = nn.Buffer(...)`."""
    for statement in owner.body.body:  # type: ignore[union-attr]
        if isinstance(statement, cst.FunctionDef) and statement.name.value == "__init__" and statement.params.params:
            receiver = statement.params.params[0].name.value
            for node in iter_nodes(statement.body):
                if isinstance(node, cst.Assign) and len(node.targets) == 1 and attribute_of(node.targets[0].target, receiver) == name:
                    if isinstance(node.value, cst.Call) and qualify(node.value.func) == "torch.nn.Buffer":
                        return True
    return False


def _assigns_attribute(statements: list[cst.BaseStatement], receiver: str, name: str) -> bool:
    for statement in statements:
        for node in iter_nodes(statement):
            targets: list[cst.BaseExpression] = []
            if isinstance(node, cst.Assign):
                targets = [t.target for t in node.targets]
            elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
                targets = [node.target]
            elif isinstance(node, cst.Del):
                targets = [node.target]
            if any(attribute_of(t, receiver) == name for t in targets):
                return True
    return False


def _read_elsewhere(owner: cst.ClassDef, method: cst.FunctionDef, name: str) -> bool:
    """Whether a method of the class other than `__init__` and this one mentions `self.name`."""
    for statement in owner.body.body:  # type: ignore[union-attr]
        if not isinstance(statement, cst.FunctionDef) or statement is method or statement.name.value == "__init__":
            continue
        if any(isinstance(n, cst.Attribute) and n.attr.value == name for n in iter_nodes(statement)):
            return True
    return False


class _AttributeToLocal(cst.CSTTransformer):
    def __init__(self, receiver: str, name: str, local: str) -> None:
        self.receiver, self.name, self.local = receiver, name, local

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        return cst.Name(self.local) if attribute_of(original, self.receiver) == self.name else updated
