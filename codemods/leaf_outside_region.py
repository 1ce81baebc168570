"""leaf-outside-region: a compiled function makes its autograd leaves (`requires_grad` flags,
`nn.Parameter`s) eagerly, between compiled pieces."""

from __future__ import annotations

import libcst as cst

from graphweld.rule import Rule, Safety

_PARAMETER = frozenset(("torch.nn.Parameter", "torch.nn.parameter.Parameter"))


class LeafOutsideRegion(Rule):
    """Make autograd leaves (`requires_grad` flags, `nn.Parameter`s) outside the compiled region, between compiled pieces of the function.

    ## What it fixes
    A function compiled with `torch.compile` (decorated, or compiled by a module-level
    `f = torch.compile(f)`; a method too) whose top level makes a new autograd leaf: it marks a
    tensor as requiring grad, `x.requires_grad = True` (or `False`) or `x.requires_grad_()`, on
    an input so that a gradient with respect to it can be taken (forces as the gradient of an
    energy with respect to positions, saliency maps, a gradient penalty on interpolated
    samples) or on a tensor it detached itself; or it builds a parameter, `p =
    nn.Parameter(...)` (a fresh weight for a test-time adaptation step, a perturbation to
    optimise). The statement (or a top-level `if` holding only such statements) runs eagerly,
    and the function is split around it into compiled pieces: at the top of the function, the
    leaf is made before the compiled region is entered, as the registry's pages advise.

    ## Why the graph breaks
    Dynamo does not make a new autograd leaf in the middle of a graph: changing `requires_grad`
    ("setattr() on Tensor.requires_grad", GB0206; "Unsupported Tensor.requires_grad_() call",
    GB0125) could turn a leaf into a non-leaf, and `torch.nn.Parameter()` is not traced
    ("Attempted to use `torch.nn.Parameter()` constructor with Dynamo", GB0264). The graph
    breaks there, and with `fullgraph=True` the compile fails.

    ## Example
    ```python
    @torch.compile(fullgraph=True)
    def fn(x):
        x.requires_grad = True
        return x * 2
    ```
    becomes
    ```python
    def fn(x):
        x.requires_grad = True
        return _fn_part1(x)


    @torch.compile(fullgraph=True)
    def _fn_part1(x):
        return x * 2
    ```

    ## Safety
    Safe: the same statements run in the same order, the leaf is made eagerly where Dynamo would
    have made it at its break, and the rest is compiled with the function's own options, so the
    outputs and the gradients are the same. The function itself is now a plain function that
    calls the compiled pieces. Left alone (and left to requires-grad-eager, where it applies): a
    flag set inside a loop or a `with`, a `forward` compiled through its module
    (`torch.compile(model)` enters `forward` itself, so a split would still trace the flag), and
    functions the split does not apply to (nested functions, `yield`, nested `return`s).
    """

    id = "leaf-outside-region"
    reference = "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0206.html"
    summary = "Make autograd leaves (`requires_grad` flags, `nn.Parameter`s) outside the compiled region, between compiled pieces"
    # The docs' table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = (
        "`x.requires_grad = True`, `x.requires_grad_()` or `p = nn.Parameter(...)` at the top level of a compiled "
        "function (GB0206, GB0125, GB0264)"
    )
    rewrite = "**split** the function: the leaf is made eagerly, the rest is compiled in pieces around it"
    default = "safe"
    trigger_words = ("requires_grad", "Parameter")
    needs_breaker_call = False
    node_types = (cst.FunctionDef,)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        context = self.context
        body = context.splitter.body(node)
        if body is None:
            return
        flags = {id(statement): flag for statement in body if (flag := self._leaf_made(statement)) is not None}
        if not flags:
            return
        split = context.splitter.split(node, lambda statement: id(statement) in flags)
        if split is None:
            return
        first = next(flags[id(statement)] for statement in split.cuts)
        name = node.name.value
        self.propose(
            node,
            [split.driver, *split.pieces],
            anchor=first,
            message=(
                f"`{context.code(first)}` in compiled `{name}` makes an autograd leaf, which Dynamo does not do in a "
                f"graph (GB0206, GB0125, GB0264); make it eagerly, with `{name}` split into {len(split.pieces)} "
                "compiled piece(s) around it"
            ),
            safety=Safety.SAFE,
            extra=split.extra,
            ends_region=True,
        )


    def _leaf_made(self, statement: cst.BaseStatement) -> cst.CSTNode | None:
        """The first leaf-making expression of a statement made only of `n.requires_grad = ...`,
        `n.requires_grad_(...)` on names and `n = nn.Parameter(...)` (or a plain `if` whose
        branches are), or None."""
        if isinstance(statement, cst.SimpleStatementLine):
            found = [self._simple_leaf_made(small) for small in statement.body]
            return found[0] if found and all(found) else None
        if isinstance(statement, cst.If) and isinstance(statement.body, cst.IndentedBlock):
            branches = [statement.body.body]
            orelse = statement.orelse
            if isinstance(orelse, cst.Else) and isinstance(orelse.body, cst.IndentedBlock):
                branches.append(orelse.body.body)
            elif orelse is not None:
                return None  # an `elif` chain: left alone
            found = [self._leaf_made(inner) for branch in branches for inner in branch]
            return found[0] if found and all(found) else None
        return None

    def _simple_leaf_made(self, small: cst.BaseSmallStatement) -> cst.CSTNode | None:
        if isinstance(small, cst.Assign) and len(small.targets) == 1:
            target = small.targets[0].target
            if isinstance(target, cst.Attribute) and target.attr.value == "requires_grad" and isinstance(target.value, cst.Name):
                return small
            if (
                isinstance(target, cst.Name)
                and isinstance(small.value, cst.Call)
                and self.context.regions.imports.qualify(small.value.func) in _PARAMETER
            ):
                return small.value
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            func = small.value.func
            if isinstance(func, cst.Attribute) and func.attr.value == "requires_grad_" and isinstance(func.value, cst.Name):
                return small.value
        return None
