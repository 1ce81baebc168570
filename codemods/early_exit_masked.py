"""early-exit-masked: a `for` loop that stops early on a tensor's test runs to its end, its values frozen once the test holds."""

from __future__ import annotations

import libcst as cst

from graphweld.analysis.blocks import block_statements, with_statements
from graphweld.analysis.scopes import binds_plain_names, bound_outside, loaded_names, target_names
from graphweld.analysis.tensors import FunctionValues
from graphweld.cst_fast import source
from graphweld.rule import Rule, Safety
from graphweld.walk import iter_nodes

# An update through `op=` made a no-op once stopped: what it adds or multiplies by.
_NEUTRAL = {cst.AddAssign: "0", cst.SubtractAssign: "0", cst.MultiplyAssign: "1", cst.DivideAssign: "1"}
# Every iteration runs after the rewrite, and Dynamo unrolls them all: a literal bound above this
# is a loop the original usually leaves long before its end.
_MOST_ITERATIONS = 100


class Refused(Exception):
    """The loop is not one this rule rewrites; the message says why."""


class EarlyExitMasked(Rule):
    """Run a loop that stops early on a tensor's test to its end, with the values it carries frozen once the test holds.

    ## What it fixes
    A `for` loop over `range(...)` in a compiled region whose body ends the loop on a tensor's
    test (`if err < tol: break`, known from the code, or where a run saw Dynamo stop on
    data-dependent branching there, GB0170) and otherwise only assigns names: the iterations of
    a solver until it converges, as a conjugate-gradient solve (TRPO and natural policy
    gradients: `if new_rdotr < residual_tol: break`), Sinkhorn's scaling of a transport plan, a
    power iteration, or a fixed-point solve.

    ## Why the graph breaks
    The test needs the tensor's value, which Dynamo does not know while it builds the graph, and
    a graph break inside a loop cannot be resumed: Dynamo skips the whole function and runs it
    eagerly ("graph break in loop", GB7000). Run to its end, the loop needs no value: a stop flag
    (a boolean tensor) records that the test held, and from then on every value the loop carries
    keeps what it had (`torch.where(stopped, old, new)`), so the loop ends with the values it had
    when it stopped.

    ## Example
    ```python
    def conjugate_gradients(self, b, flat_kl_grad, nsteps=10, residual_tol=1e-10):
        x = torch.zeros_like(b)
        r, p = b.clone(), b.clone()
        rdotr = r.dot(r)
        for _ in range(nsteps):
            z = self.mvp(p, flat_kl_grad)
            alpha = rdotr / p.dot(z)
            x += alpha * p
            r -= alpha * z
            new_rdotr = r.dot(r)
            if new_rdotr < residual_tol:
                break
            p = r + new_rdotr / rdotr * p
            rdotr = new_rdotr
        return x
    ```
    becomes
    ```python
    def conjugate_gradients(self, b, flat_kl_grad, nsteps=10, residual_tol=1e-10):
        x = torch.zeros_like(b)
        r, p = b.clone(), b.clone()
        rdotr = r.dot(r)
        stopped = torch.zeros((), dtype=torch.bool, device=x.device)
        for _ in range(nsteps):
            z = self.mvp(p, flat_kl_grad)
            alpha = rdotr / p.dot(z)
            x += torch.where(stopped, 0, alpha * p)
            r -= torch.where(stopped, 0, alpha * z)
            new_rdotr = r.dot(r)
            stopped = stopped | (new_rdotr < residual_tol)
            p = torch.where(stopped, p, r + new_rdotr / rdotr * p)
            rdotr = torch.where(stopped, rdotr, new_rdotr)
        return x
    ```
    A name the loop carries (bound before it) is frozen; one bound only in the body and read only
    after its assignment is the iteration's own and left as it is. The flag goes on the device of
    a tensor bound before the loop.

    ## Safety
    Always unsafe, so only applied with `--unsafe-fixes`; verify with `fix --entry`. Every
    iteration now runs, and Dynamo unrolls them all: a loop that usually stops long before its
    end does more work (and a literal bound above 100 is left alone). The iterations after the
    stop compute on frozen values and their results are thrown away: where they overflow or
    divide by zero, forward values are unchanged but gradients through `torch.where` can become
    NaN, and a call that raises on such values raises; calls in the body run more often, so one
    with side effects repeats them. The run compares outputs (and gradients in training) and drops
    the change where they differ. Taken only for a body of assignments to plain names and `+=`,
    `-=`, `*=`, `/=` updates of them, with the one `if ...: break` at its top level (no `else`
    anywhere, no other `break`, `continue` or `return`), where the loop variable and the names only
    the body binds are not read outside the loop.
    """

    id = "early-exit-masked"
    reference = "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb7000.html"
    summary = "Run a loop that stops early on a tensor's test to its end, its values frozen once the test holds"
    # The README's table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = (
        "a `for` loop over `range(...)` ending on a tensor's test (`if err < tol: break`: conjugate gradients, "
        "Sinkhorn, power iterations), whose body only assigns names"
    )
    rewrite = (
        "a stop flag set by the test (`stopped = stopped | (err < tol)`), each carried value frozen by "
        "`torch.where(stopped, old, new)`: the loop runs to its end in one graph"
    )
    default = "unsafe: every iteration runs; gradients can be NaN where a frozen iteration divides by zero"
    trigger_words = ("break",)
    needs_breaker_call = False
    node_types = (cst.For,)

    def visit_For(self, node: cst.For) -> None:
        context = self.context
        function = context.current_function
        if function is None or not context.in_compiled_region:
            return
        exit_test = _exit_test(node)
        if exit_test is None:
            return
        values = context.function_values(function)
        seen = context.branches_on_tensor_per_run(exit_test)
        if not (seen or values.decides_on_tensor(exit_test.test)):
            return
        torch_name = context.regions.imports.local_name("torch")
        if torch_name is None:
            return
        test = context.code(exit_test.test)
        try:
            replacement = _rewrite(node, exit_test, function, values, torch_name, context.module)
        except Refused as refusal:
            if seen:
                self.report(exit_test, f"loop ending on a tensor's test `if {test}: break` is not rewritten: {refusal}")
            return
        message = (
            f"loop ending on a tensor's test `if {test}: break`: Dynamo cannot decide it while tracing, and a "
            "break in a loop makes it skip the whole function; run the loop to its end with a stop flag, the "
            "values it carries frozen once the test holds (unsafe: every iteration runs)"
        )
        self.propose(node, replacement, anchor=exit_test, message=message, safety=Safety.UNSAFE)


def _exit_test(loop: cst.For) -> cst.If | None:
    """The loop's `if ...: break` at the top level of its body (the first one)."""
    for statement in block_statements(loop.body):
        if isinstance(statement, cst.If) and statement.orelse is None:
            inner = block_statements(statement.body)
            if len(inner) == 1 and isinstance(inner[0], cst.SimpleStatementLine):
                if [type(small) for small in inner[0].body] == [cst.Break]:
                    return statement
    return None


def _rewrite(
    loop: cst.For, exit_test: cst.If, function: cst.FunctionDef, values: FunctionValues, torch_name: str, module: cst.Module
) -> list[cst.BaseStatement]:
    if loop.orelse is not None:
        raise Refused("it has an `else`")
    if not _over_range(loop.iter):
        raise Refused("it does not run over `range(...)`")
    statements = block_statements(loop.body)
    before = bound_outside(function, loop)
    outside = loaded_names([function.body], skip=loop)
    # `_` says the value is not used; elsewhere in the function it is another throwaway.
    loop_names = set(target_names(loop.target)) - {"_"}
    if loop_names & outside:
        raise Refused(f"`{sorted(loop_names & outside)[0]}` is read outside it: it would hold the last value of the range")
    updates = {id(s): _update(s, module) for s in statements if s is not exit_test}
    body_names = {name for small in updates.values() for name in _targets(small)}
    carried: set[str] = set()
    own: set[str] = set()
    for statement in statements:
        if statement is exit_test:
            _check_reads(exit_test.test, body_names, own, before)
            continue
        small = updates[id(statement)]
        _check_reads(small.value, body_names, own, before)
        for name in _targets(small):
            if name in before:
                carried.add(name)
            elif name in outside:
                raise Refused(f"`{name}` is bound only in the loop and read after it")
            else:
                own.add(name)
        if isinstance(small, cst.Assign) and _pairs(small) is None and carried & set(_targets(small)):
            raise Refused(f"`{source(statement, module).strip()[:40]}` unpacks a value into a name the loop carries")
    if not carried:
        raise Refused("it carries no value from one iteration to the next")
    stopped = values.unused_names("stopped")[0]
    device = _device_tensor([*sorted(carried), *sorted(before - carried)], function, loop, values)
    where_device = f", device={device}.device" if device is not None else ""
    flag = cst.parse_statement(f"{stopped} = {torch_name}.zeros((), dtype={torch_name}.bool{where_device})\n")
    body: list[cst.BaseStatement] = []
    for statement in statements:
        if statement is exit_test:
            condition = values.boolean_source(exit_test.test, module, torch_name)
            if not isinstance(exit_test.test, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
                condition = f"({condition})"
            line = cst.parse_statement(f"{stopped} = {stopped} | {condition}\n")
            body.append(line.with_changes(leading_lines=exit_test.leading_lines))
            continue
        body.append(_frozen(statement, updates[id(statement)], carried, stopped, torch_name, module))
    rewritten = loop.with_changes(body=with_statements(loop.body, body), leading_lines=())
    return [flag.with_changes(leading_lines=loop.leading_lines), rewritten]


def _over_range(iterable: cst.BaseExpression) -> bool:
    if not (isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and iterable.func.value == "range"):
        return False
    for arg in iterable.args:
        if isinstance(arg.value, cst.Integer) and arg.value.evaluated_value > _MOST_ITERATIONS:
            raise Refused(f"it runs up to {arg.value.value} iterations, all of which would run")
    return True


def _update(statement: cst.BaseStatement, module: cst.Module) -> cst.Assign | cst.AugAssign:
    """The statement's one assignment to plain names, or `name op= value` with a neutral value."""
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        small = statement.body[0]
        if isinstance(small, cst.Assign) and all(binds_plain_names(target.target) for target in small.targets):
            return small
        if isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name) and type(small.operator) in _NEUTRAL:
            return small
    raise Refused(f"`{source(statement, module).strip()[:40]}` is not an assignment to plain names")


def _targets(small: cst.Assign | cst.AugAssign) -> list[str]:
    if isinstance(small, cst.AugAssign):
        return [small.target.value]  # type: ignore[attr-defined]
    return [name for target in small.targets for name in target_names(target.target)]


def _check_reads(value: cst.BaseExpression, body_names: set[str], own: set[str], before: set[str]) -> None:
    """A name only the body binds must be bound earlier in the same iteration when it is read."""
    for name in sorted(loaded_names([value]) & body_names - own - before):
        raise Refused(f"`{name}` is read before the body binds it: it carries a value from the iteration before")


def _device_tensor(candidates: list[str], function: cst.FunctionDef, loop: cst.For, values: FunctionValues) -> str | None:
    """The first candidate that is a tensor before the loop, whose device the flag goes on: a
    tensor parameter, or a name bound outside the loop by one plain assignment, to a tensor."""
    inside = {id(n) for n in iter_nodes(loop)}
    assigned: dict[str, list[cst.BaseExpression]] = {}
    for n in iter_nodes(function.body):
        if id(n) not in inside and isinstance(n, cst.Assign) and len(n.targets) == 1 and isinstance(n.targets[0].target, cst.Name):
            assigned.setdefault(n.targets[0].target.value, []).append(n.value)
    for name in candidates:
        bound = assigned.get(name, [])
        if name in values.tensor_parameters or (len(bound) == 1 and values.is_tensor(bound[0])):
            return name
    return None


def _frozen(
    statement: cst.BaseStatement, small: cst.Assign | cst.AugAssign, carried: set[str], stopped: str, torch_name: str,
    module: cst.Module,
) -> cst.BaseStatement:
    """The statement (its update `small`) with what it binds to a carried name kept as it was once `stopped`."""
    names = _targets(small)
    if not carried.intersection(names):
        return statement
    def where(kept: str, value: cst.BaseExpression) -> cst.BaseExpression:
        return cst.parse_expression(f"{torch_name}.where({stopped}, {kept}, {source(value, module)})")

    if isinstance(small, cst.AugAssign):
        frozen: cst.BaseExpression = where(_NEUTRAL[type(small.operator)], small.value)
    else:
        pairs = _pairs(small)
        assert pairs is not None
        elements = [where(name, value) if name in carried else value for name, value in pairs]
        if isinstance(small.targets[0].target, cst.Name):
            frozen = elements[0]
        else:
            assert isinstance(small.value, cst.Tuple)
            frozen = small.value.with_changes(
                elements=[element.with_changes(value=new) for element, new in zip(small.value.elements, elements)]
            )
    assert isinstance(statement, cst.SimpleStatementLine)
    return statement.with_changes(body=[small.with_changes(value=frozen)])


def _pairs(small: cst.Assign | cst.AugAssign) -> list[tuple[str, cst.BaseExpression]] | None:
    """Each name an assignment binds with the value it gets (`v, s = v2, s2` pairs them up), or
    None where the values are not written one per name (`a, b = f()`, `a = b = c`)."""
    if isinstance(small, cst.AugAssign) or len(small.targets) != 1:
        return None
    target = small.targets[0].target
    if isinstance(target, cst.Name):
        return [(target.value, small.value)]
    value = small.value
    if not isinstance(target, (cst.Tuple, cst.List)) or not isinstance(value, (cst.Tuple, cst.List)):
        return None
    if len(target.elements) != len(value.elements) or any(isinstance(e, cst.StarredElement) for e in value.elements):
        return None
    return [(t.value.value, v.value) for t, v in zip(target.elements, value.elements)]  # type: ignore[attr-defined]
