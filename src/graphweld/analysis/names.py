"""Qualified names for expressions, resolved through the module's imports.

`import torch._dynamo as dynamo` makes `dynamo.graph_break` resolve to
`torch._dynamo.graph_break`; `from torch import compile` makes `compile` resolve to
`torch.compile`. Resolution ignores scopes (an import anywhere in the module counts): imports of
the same name to different modules are rare, and being scope-exact would cost a metadata pass.
"""

from __future__ import annotations

import libcst as cst


def dotted_name(node: cst.BaseExpression) -> str | None:
    """`a.b.c` for a Name/Attribute chain, None for anything else."""
    parts: list[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


def decorator_name(decorator: cst.Decorator) -> str | None:
    """The plain name a decorator is written with, called or not: `staticmethod` for
    `@staticmethod`, `selects` for `@selects("layer")`; None for an attribute or anything else."""
    target = decorator.decorator
    if isinstance(target, cst.Call):
        target = target.func
    return target.value if isinstance(target, cst.Name) else None


def is_literal_constant(value: cst.BaseExpression) -> bool:
    """A literal whose value never changes: numbers, strings (f-strings without expressions),
    `True`/`False`/`None`, signed or negated constants, tuples of them."""
    if isinstance(value, (cst.SimpleString, cst.Integer, cst.Float, cst.Imaginary)):
        return True
    if isinstance(value, cst.ConcatenatedString):
        return is_literal_constant(value.left) and is_literal_constant(value.right)  # type: ignore[arg-type]
    if isinstance(value, cst.FormattedString):
        return all(isinstance(part, cst.FormattedStringText) for part in value.parts)
    if isinstance(value, cst.Name):
        return value.value in ("True", "False", "None")
    if isinstance(value, cst.UnaryOperation):
        return is_literal_constant(value.expression)
    if isinstance(value, cst.Tuple):
        return all(is_literal_constant(element.value) for element in value.elements)
    return False


def bare_method_call(node: cst.CSTNode, method: str) -> cst.BaseExpression | None:
    """The receiver of `receiver.method()` called with no arguments (`t.item()`, `d.items()`);
    None for anything else."""
    if isinstance(node, cst.Call) and not node.args and isinstance(node.func, cst.Attribute) and node.func.attr.value == method:
        return node.func.value
    return None


def root_expression(node: cst.BaseExpression) -> cst.BaseExpression:
    """What an attribute, subscript or call chain starts from: `h` for `h.abs()[0].sum()`."""
    while isinstance(node, (cst.Attribute, cst.Subscript, cst.Call)):
        node = node.func if isinstance(node, cst.Call) else node.value
    return node


def root_name(node: cst.BaseExpression) -> str | None:
    """The name an attribute, subscript or call chain starts from (`h` for `h.abs()[0]`), or None
    when it starts from anything else."""
    root = root_expression(node)
    return root.value if isinstance(root, cst.Name) else None


def stored_root_name(node: cst.BaseExpression) -> str | None:
    """The name whose object a write through an attribute or subscript chain changes (`h` for
    `h.data[0]`); None through a call (`h.clone()[0]` writes a new object) or anything else."""
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        node = node.value
    return node.value if isinstance(node, cst.Name) else None


def attribute_of(node: cst.CSTNode, receiver: str | None) -> str | None:
    """ATTR, for a node that is `receiver.ATTR` (`self.stride`); None for any other node."""
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and receiver is not None and node.value.value == receiver:
        return node.attr.value
    return None


def written_attributes(root: cst.CSTNode, receiver: str | None) -> set[str]:
    """The attributes of `receiver` that code under `root` binds (`self.a = ...`, augmented,
    annotated, also inside a tuple target)."""
    from graphweld.walk import iter_nodes

    written = set()
    for node in iter_nodes(root):
        targets: list[cst.BaseExpression] = []
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
            targets = [node.target]
        written.update(name for target in targets for n in iter_nodes(target) if (name := attribute_of(n, receiver)) is not None)
    return written


def _module_name(node: cst.BaseExpression) -> str:
    name = dotted_name(node)
    return name or ""


class ImportTable:
    """Local name -> qualified name, from every import statement in a module."""

    def __init__(self) -> None:
        self.aliases: dict[str, str] = {}

    def add_import(self, node: cst.Import) -> None:
        for alias in node.names:
            full = _module_name(alias.name)
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self.aliases[alias.asname.name.value] = full
            else:
                # `import a.b` binds `a`.
                top = full.split(".", 1)[0]
                self.aliases[top] = top

    def add_import_from(self, node: cst.ImportFrom) -> None:
        if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
            return
        module = _module_name(node.module)
        for alias in node.names:
            name = _module_name(alias.name)
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            self.aliases[local] = f"{module}.{name}"

    def local_name(self, module: str) -> str | None:
        """The name an import binds `module` itself to (`torch` for `import torch`), if any."""
        for local, qualified in self.aliases.items():
            if qualified == module:
                return local
        return None

    def qualify(self, node: cst.BaseExpression) -> str | None:
        """The qualified name of a Name/Attribute chain; unresolved heads stay as written."""
        name = dotted_name(node)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        resolved = self.aliases.get(head)
        if resolved is None:
            return name
        return f"{resolved}.{rest}" if rest else resolved
