"""requires-grad-outside-region: a compiled function sets `requires_grad` eagerly, between compiled pieces."""

from __future__ import annotations

import libcst as cst

from graphweld.rule import Rule, Safety


class RequiresGradOutsideRegion(Rule):
    """Set a tensor's `requires_grad` outside the compiled region, between compiled pieces of the function.

    ## What it fixes
    A function compiled with `torch.compile` (decorated, or compiled by a module-level
    `f = torch.compile(f)`; a method too) whose top level marks a tensor as requiring grad:
    `x.requires_grad = True` (or `False`) or `x.requires_grad_()` on an input, so that a
    gradient with respect to it can be taken (forces as the gradient of an energy with respect
    to positions, saliency maps, a gradient penalty on interpolated samples), or on a tensor the
    function detached itself. The statement (or a top-level `if` holding only such statements)
    runs eagerly, and the function is split around it into compiled pieces: at the top of the
    function, the flag is set before the compiled region is entered, as the registry's page
    advises.

    ## Why the graph breaks
    Dynamo does not trace changing `requires_grad` in a compiled region: "setattr() on
    Tensor.requires_grad" (GB0206) and "Unsupported Tensor.requires_grad_() call" (GB0125),
    since it could turn a leaf into a non-leaf in the middle of the graph. The graph breaks
    there, and with `fullgraph=True` the compile fails.

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
    Safe: the same statements run in the same order, the flag is set eagerly where Dynamo would
    have set it at its break, and the rest is compiled with the function's own options, so the
    outputs and the gradients are the same. The function itself is now a plain function that
    calls the compiled pieces. Left alone (and left to requires-grad-eager, where it applies): a
    flag set inside a loop or a `with`, a `forward` compiled through its module
    (`torch.compile(model)` enters `forward` itself, so a split would still trace the flag), and
    functions the split does not apply to (nested functions, `yield`, nested `return`s).
    """

    id = "requires-grad-outside-region"
    reference = "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0206.html"
    summary = "Set a tensor's `requires_grad` outside the compiled region, between compiled pieces of the function"
    # The docs' table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = "`x.requires_grad = True` or `x.requires_grad_()` at the top level of a compiled function (GB0206, GB0125)"
    rewrite = "**split** the function: the flag is set eagerly, the rest is compiled in pieces around it"
    default = "safe"
    trigger_words = ("requires_grad",)
    needs_breaker_call = False
    node_types = (cst.FunctionDef,)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        context = self.context
        body = context.splitter.body(node)
        if body is None:
            return
        flags = {id(statement): flag for statement in body if (flag := _flag_set(statement)) is not None}
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
                f"`{context.code(first)}` in compiled `{name}`: Dynamo does not trace changing `requires_grad` "
                f"(GB0206, GB0125); set it eagerly, with `{name}` split into {len(split.pieces)} compiled piece(s) "
                "around it"
            ),
            safety=Safety.SAFE,
            extra=split.extra,
            ends_region=True,
        )


def _flag_set(statement: cst.BaseStatement) -> cst.CSTNode | None:
    """The first flag-setting expression of a statement made only of `n.requires_grad = ...` and
    `n.requires_grad_(...)` on names (or a plain `if` whose branches are), or None."""
    if isinstance(statement, cst.SimpleStatementLine):
        found = [_simple_flag_set(small) for small in statement.body]
        return found[0] if found and all(found) else None
    if isinstance(statement, cst.If) and isinstance(statement.body, cst.IndentedBlock):
        branches = [statement.body.body]
        orelse = statement.orelse
        if isinstance(orelse, cst.Else) and isinstance(orelse.body, cst.IndentedBlock):
            branches.append(orelse.body.body)
        elif orelse is not None:
            return None  # an `elif` chain: left alone
        found = [_flag_set(inner) for branch in branches for inner in branch]
        return found[0] if found and all(found) else None
    return None


def _simple_flag_set(small: cst.BaseSmallStatement) -> cst.CSTNode | None:
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        target = small.targets[0].target
        if isinstance(target, cst.Attribute) and target.attr.value == "requires_grad" and isinstance(target.value, cst.Name):
            return small
    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        func = small.value.func
        if isinstance(func, cst.Attribute) and func.attr.value == "requires_grad_" and isinstance(func.value, cst.Name):
            return small.value
    return None
