"""dlpack-custom-op: move a DLPack round trip into a torch.library custom op."""

from __future__ import annotations

import keyword
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import libcst as cst

from graphweld.analysis.array_api import (
    ARRAY_ARITHMETIC,
    ARRAY_EXPORTERS,
    CAPSULE_EXPORTERS,
    CONVERSION_LEAVES,
    DLPACK_CONVERSIONS,
    EXPORT_METHODS,
    FLOAT_ELEMENTWISE,
    SHAPE_AND_DTYPE_PRESERVING,
)
from graphweld.analysis.blocks import binds_at_module_level, definitions_anchor
from graphweld.analysis.breakers import ARRAY_IMPORTERS, DLPACK_BREAKERS, DLPACK_IMPORTERS
from graphweld.analysis.names import stored_root_name
from graphweld.analysis.reported import callee_leaf
from graphweld.rule import Rule, Safety
from graphweld.analysis.scopes import SCOPE_NODES, bound_names, fresh_name, is_scope, loaded_names
from graphweld.walk import children, iter_nodes

# What an export's text holds (DLPACK_BREAKERS, ARRAY_EXPORTERS, EXPORT_METHODS): looked for in the
# module's text before any function is walked.
_EXPORT_WORDS = ("dlpack", "Dlpack", "asarray", ".array(", ".numpy(")
# Namespaces torch reserves for its own operators.
_RESERVED_NAMESPACES = frozenset({"aten", "prim", "prims", "torch", "inductor", "quantized", "_"})
OP_MARK = "graphweld dlpack-custom-op"


@dataclass
class _RoundTrip:
    """One site: statements moved into the op (`moved`, may be empty), the from_dlpack call `importer`
    and the statement holding it (`holder`), and the tensor expression `exported` goes out as."""

    to_dlpack: cst.Call
    importer: cst.Call
    holder: cst.BaseStatement
    moved: list[cst.BaseStatement]
    exported: cst.BaseExpression
    # Calls between the export and the import, when the data goes through another framework.
    foreign_calls: list[cst.Call]


@dataclass(frozen=True)
class _FakeKernel:
    """The op's fake kernel: its output has the input's shape and dtype (checked to be a
    floating-point dtype when `floating`); `said` tells how graphweld knows, `assumed` when it does
    not (only a run comparing outputs shows it right)."""

    floating: bool
    said: str
    assumed: bool = False


class DlpackCustomOp(Rule):
    """Move a DLPack round trip into a `torch.library.custom_op` with a fake kernel.

    ## What it fixes
    A tensor exported to DLPack or another array library and brought back, in a compiled region:
    `torch.utils.dlpack.to_dlpack(x)` flowing into `from_dlpack(...)` (in one expression, through
    a capsule variable, or through cupy/jax/numba in between), and the DLPack protocol as people
    write it today: `np.from_dlpack(t)`, `cp.from_dlpack(t)`, `jax.dlpack.from_dlpack(t)`,
    `cp.asarray(t)` (by `__cuda_array_interface__`), `t.__dlpack__()` or `t.numpy()`, through that
    library's code, and back by `torch.from_dlpack`, `torch.utils.dlpack.from_dlpack`,
    `torch.as_tensor` or `torch.from_numpy`. Any import style is recognised (aliases,
    `from torch.utils.dlpack import to_dlpack, from_dlpack`).

    ## Why the graph breaks
    Dynamo cannot trace `torch._C._to_dlpack`: the call is "marked as skipped" (GB0007). With the default
    `fullgraph=False` the graph breaks there; with `torch.compile(fullgraph=True, dynamic=True)` the
    compilation fails (pytorch/pytorch#169112, reported on CUDA with torch 2.9; reproduced with
    torch 2.13 on CPU). By the protocol it is worse: on torch 2.13 `np.from_dlpack` and JAX's
    `from_dlpack` make the compile raise (a fake tensor has no data pointer), and CuPy's skips the
    frame. A custom operator is opaque to `torch.compile`: Dynamo records one call and never looks
    inside. (NumPy by the array interface, `torch.from_numpy(np.tanh(t.numpy()))`, Dynamo traces
    into the graph itself: that is left alone unless a run saw it break.)

    ## Example
    ```python
    class MyModel(nn.Module):
        def forward(self, x):
            dlpack = torch.utils.dlpack.to_dlpack(x)
            return torch.utils.dlpack.from_dlpack(dlpack)
    ```
    becomes
    ```python
    @torch.library.custom_op("mymodule::dlpack_round_trip", mutates_args=())
    def _dlpack_round_trip(tensor: torch.Tensor) -> torch.Tensor:
        \"\"\"A DLPack round trip as a custom op, opaque to torch.compile (graphweld dlpack-custom-op).\"\"\"
        return torch.utils.dlpack.from_dlpack(torch.utils.dlpack.to_dlpack(tensor)).clone()


    @_dlpack_round_trip.register_fake
    def _dlpack_round_trip_fake(tensor):
        return torch.empty_like(tensor)


    class MyModel(nn.Module):
        def forward(self, x):
            return _dlpack_round_trip(x)
    ```
    The op's namespace comes from the module's path; `register_fake` describes the output with
    symbolic shapes, so `dynamic=True` works. When the data goes through another library between
    the export and the import, every statement in between moves into the op too, and the op runs
    on the device (and, on CUDA, the stream) the tensor is on, as the code did. The fake kernel
    then needs the output's shape and dtype, and the change says how graphweld knows them:
    derived from the code where it keeps them (conversions and copies, `abs`, `clip`: the input's;
    elementwise math and arithmetic, `np.tanh(a) * 2.0`: a floating-point input's, which the fake
    kernel checks; `device=`/`dtype=` of `torch.as_tensor`); otherwise, where a run saw the round
    trip break, assumed to be the input's and left to the run to verify; otherwise the site is
    reported with what you must supply.

    ## Safety
    Safe: the op runs the same round trip eagerly and returns a copy (a custom op may not return
    an alias of its input). A fake kernel assumed rather than derived is unsafe: were it wrong,
    the compiled program would compute on the wrong shape or dtype. A round trip aliases its input, so if the function later mutates the
    input or the result in place (`y.add_(1)`, `y[0] = 1`, `y += 1`), that mutation no longer
    shows through the other one: such a fix is unsafe. Sites whose capsule is used again, or
    whose moved code reads local variables or binds names used later, are reported, not rewritten.
    """

    id = "dlpack-custom-op"
    reference = "https://docs.pytorch.org/tutorials/advanced/custom_ops_landing_page.html"
    summary = "Move a DLPack round trip into a torch.library.custom_op with a register_fake kernel"
    # The README's table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = (
        "`to_dlpack(x)` flowing into `from_dlpack(...)` (one expression, a capsule variable, or through "
        "cupy/jax/numba in between), and the DLPack protocol: `np.from_dlpack(t)`, `cp.from_dlpack(t)`, "
        "`jax.dlpack.from_dlpack(t)`, `cp.asarray(t)`, `t.__dlpack__()` through that library and back by "
        "`torch.from_dlpack`/`as_tensor`/`from_numpy`"
    )
    rewrite = (
        "move the round trip into a module-level `torch.library.custom_op` returning a copy, with a "
        "`register_fake` kernel, and call the op instead"
    )
    default = (
        "safe; unsafe when the input or result is mutated in place afterwards (the round trip aliased them), "
        "or when the fake kernel is assumed, not derived from the code"
    )
    trigger_words = ("to_dlpack", "from_dlpack", "__dlpack__", "fromDlpack", "from_numpy", "cupy", "jax")
    # A round trip by the array interface (`cp.asarray(t)` ... `torch.as_tensor(a)`) calls no
    # breaker the prefilter knows: its own words say enough.
    needs_breaker_call = False
    node_types = (cst.FunctionDef,)

    def __init__(self, context) -> None:  # type: ignore[no-untyped-def]
        super().__init__(context)
        # Op body -> the op's name, for the ops proposed in this pass.
        self._planned: dict[str, str] = {}
        # Every export writes one of these: a module without them holds no round trip.
        text = context.text
        self._may_export = text is None or any(word in text for word in _EXPORT_WORDS)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if not self._may_export or not self.context.regions.is_compiled(node) or not isinstance(node.body, cst.IndentedBlock):
            return
        handled: set[int] = set()
        taken = set(self.context.regions.module_names)
        for statement, block in _statements(node.body.body):
            for call in _own_calls(statement):
                if self._qualify(call) not in ARRAY_IMPORTERS or id(call) in handled:
                    continue
                found = self._round_trip(node, statement, block, call)
                if found is None:
                    continue
                handled.add(id(found.to_dlpack))
                handled.add(id(call))
                if self._breaks(found):
                    reason = self._propose_op(node, found, taken)
                    if reason is not None:
                        self.report(statement, f"`{self.context.code(statement)}` breaks the graph (DLPack round trip); {reason}")
        for statement, block in _statements(node.body.body):
            for call in _own_calls(statement):
                if id(call) in handled or self._exported(call) is None:
                    continue
                handled.add(id(call))
                reason = self._foreign_region(node, statement, block, call, handled)
                if reason is not None and self._export_breaks(call):
                    self.report(statement, f"`{self.context.code(statement)}` breaks the graph (DLPack export); {reason}")

    # -- finding round trips ------------------------------------------------------------------

    def _qualify(self, call: cst.Call) -> str | None:
        return self.context.regions.imports.qualify(call.func)

    def _exported(self, call: cst.Call) -> cst.BaseExpression | None:
        """The tensor a call exports to another array library, or None: `to_dlpack(t)`,
        `np.from_dlpack(t)` (and CuPy's, JAX's), `cp.asarray(t)` (by `__cuda_array_interface__`),
        `np.asarray(t)`, `t.numpy()`, `t.__dlpack__()`."""
        name = self._qualify(call)
        if name in DLPACK_BREAKERS or name in ARRAY_EXPORTERS:
            return _single_argument(call)
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in EXPORT_METHODS and not call.args:
            return func.value
        return None

    def _makes_capsule(self, call: cst.Call) -> bool:
        """Whether the export makes a DLPack capsule (consumed once) rather than an array."""
        func = call.func
        return self._qualify(call) in CAPSULE_EXPORTERS or (isinstance(func, cst.Attribute) and func.attr.value == "__dlpack__")

    def _export_breaks(self, call: cst.Call) -> bool:
        """Whether Dynamo breaks (or fails) on the export itself: all but NumPy's array
        interface, which Dynamo traces into the graph (`t.numpy()`, `np.asarray(t)`)."""
        name = self._qualify(call)
        if name in DLPACK_BREAKERS or (name in ARRAY_EXPORTERS and not name.startswith("numpy.")):
            return True
        func = call.func
        return isinstance(func, cst.Attribute) and func.attr.value == "__dlpack__"

    def _names_module_value(self, node: cst.Attribute, calls: set[int]) -> bool:
        """Whether an attribute is a callee (`cupy.abs`, `array.copy`) or a module's name
        (`numpy.pi`, `cupy.float32`), not an array's attribute."""
        if id(node) in calls:
            return True
        root = node
        while isinstance(root, cst.Attribute):
            if id(root) in calls:
                return True
            root = root.value  # type: ignore[assignment]
        return isinstance(root, cst.Name) and root.value in self.context.regions.imports.aliases

    def _breaks(self, found: _RoundTrip) -> bool:
        """Whether the round trip breaks the graph: its export, a DLPack import, a call into a
        library Dynamo does not trace (anything but NumPy), or a break (or the compile failing)
        that a run saw on one of its statements. A NumPy round trip by the array interface
        (`torch.from_numpy(np.tanh(t.numpy()))`) Dynamo traces into the graph: left alone."""
        if self._export_breaks(found.to_dlpack) or self._qualify(found.importer) in DLPACK_IMPORTERS:
            return True
        for call in found.foreign_calls:
            name = self._qualify(call)
            if name is not None and not name.startswith(("numpy.", "math.")) and name not in ARRAY_IMPORTERS:
                return True
        return any(self.context.breaks_per_run(statement) for statement in (*found.moved, found.holder))

    def _round_trip(
        self, function: cst.FunctionDef, statement: cst.BaseStatement, block: list[cst.BaseStatement], importer: cst.Call
    ) -> _RoundTrip | None:
        """`from_dlpack(to_dlpack(x))`, `torch.from_dlpack(np.tanh(np.from_dlpack(x)))` (an export
        inside the import), or `from_dlpack(capsule)` with `capsule = to_dlpack(x)` earlier in the
        same block and nothing else using the capsule."""
        if len(importer.args) != 1 or importer.args[0].keyword is not None or importer.args[0].star:
            return None
        argument = importer.args[0].value
        inner = [node for node in iter_nodes(argument, prune=is_scope) if isinstance(node, cst.Call) and self._exported(node) is not None]
        if isinstance(argument, cst.Call) and argument in inner:
            exported = self._exported(argument)
            return _RoundTrip(argument, importer, statement, [], exported, []) if exported is not None else None
        if len(inner) == 1:
            # Through the other library in one expression: every call but the export is its code.
            export = inner[0]
            exported = self._exported(export)
            foreign = [node for node in iter_nodes(argument, prune=is_scope) if isinstance(node, cst.Call) and node is not export]
            if exported is None:
                return None
            return _RoundTrip(export, importer, statement, [], exported, foreign)
        index = _index(block, statement)
        if not isinstance(argument, cst.Name) or index is None:
            return None
        for position in range(index - 1, -1, -1):
            earlier = block[position]
            export = _capsule_export(earlier, argument.value)
            if export is not None and self._exported(export) is not None:
                exported = self._exported(export)
                between = block[position + 1 : index]
                if exported is None or _mentions(between, {argument.value} | _names_in(exported)):
                    return None
                if _read_after(function, statement, {argument.value}, skip=importer):
                    return None  # the capsule is used again
                return _RoundTrip(export, importer, statement, [earlier], exported, [])
            if argument.value in bound_names([earlier]):
                return None
        return None

    def _foreign_region(
        self,
        function: cst.FunctionDef,
        statement: cst.BaseStatement,
        block: list[cst.BaseStatement],
        export: cst.Call,
        handled: set[int],
    ) -> str | None:
        """A round trip through another library over statements: `capsule = to_dlpack(x)` (or
        `array = np.from_dlpack(x)`, `array = t.numpy()`...), statements using it, then a statement
        importing the result back into torch. Proposes the rewrite, or returns why it cannot."""
        context = self.context
        capsule = _assigned_name(statement, export)
        exported = self._exported(export)
        start = _index(block, statement)
        not_back = (
            "what it exports does not come back into torch (from_dlpack, as_tensor, from_numpy) in the same block, "
            "so there is no round trip to move into a custom op: keep the export out of the compiled region"
        )
        if capsule is None or exported is None or start is None:
            return not_back
        end = None
        for index in range(start + 1, len(block)):
            if any(self._qualify(call) in ARRAY_IMPORTERS for call in _own_calls(block[index])):
                end = index
                break
        if end is None:
            return not_back
        holder = block[end]
        importer = next(call for call in _own_calls(holder) if self._qualify(call) in ARRAY_IMPORTERS)
        moved = block[start:end]
        produced = bound_names(moved)
        if not loaded_names([importer]) & produced:
            return not_back
        handled.add(id(importer))
        between = "the code between the export and the import"
        if not all(isinstance(s, cst.SimpleStatementLine) for s in moved):
            return f"{between} is not a straight run of simple statements; move it into a custom op by hand"
        if any(isinstance(n, (cst.Return, cst.Yield, cst.Await, cst.Global, cst.Nonlocal)) for s in moved for n in iter_nodes(s)):
            return f"{between} returns, yields or declares names; move it into a custom op by hand"
        inner = [*moved, importer]
        reads = loaded_names(inner, skip=exported) - produced
        known = context.regions.module_names | set(context.regions.imports.aliases) | _BUILTINS
        local_reads = sorted(reads - known)
        if local_reads:
            names = ", ".join(f"`{n}`" for n in local_reads)
            return f"{between} reads local {names}; move it into a custom op by hand, passing {names} in"
        leaked = sorted(_read_after(function, holder, produced, skip=importer))
        if capsule in leaked and self._makes_capsule(export):
            return (
                f"the capsule `{capsule}` is used again after from_dlpack (a capsule can be consumed only once); "
                "move the round trip into a custom op by hand"
            )
        if leaked:
            names = ", ".join(f"`{n}`" for n in leaked)
            return f"{between} sets {names}, used afterwards; move the round trip into a custom op by hand"
        inside = {id(node) for node in iter_nodes(exported)} | {id(export)}
        foreign = [n for n in iter_nodes(moved[0]) if isinstance(n, cst.Call) and id(n) not in inside]
        foreign += [n for s in moved[1:] for n in iter_nodes(s) if isinstance(n, cst.Call)]
        foreign += [n for arg in importer.args for n in iter_nodes(arg.value) if isinstance(n, cst.Call)]
        found = _RoundTrip(export, importer, holder, moved, exported, foreign)
        if not self._breaks(found):
            return None  # NumPy by the array interface: Dynamo traces it into the graph
        return self._propose_op(function, found, set(context.regions.module_names))

    # -- rewriting ------------------------------------------------------------------------------

    def _propose_op(self, function: cst.FunctionDef, found: _RoundTrip, taken: set[str]) -> str | None:
        """Propose the custom op for the round trip; why not, when its fake kernel cannot be told."""
        context = self.context
        module = context.module
        fake = self._fake_kernel(found)
        if isinstance(fake, str):
            return fake
        anchor = definitions_anchor(module)
        if anchor is None:
            return "the module has no import line to put the custom op after"
        parameter = fresh_name("tensor", loaded_names([*found.moved, found.importer]))
        body = self._op_body(found, parameter)
        namespace = op_namespace(context.path)
        extra: list[tuple[cst.CSTNode, Sequence[cst.BaseStatement]]] = []
        op_function = self._existing_op(module, body, parameter)
        if op_function is None:
            # Sites doing the same round trip share one op, whichever change is applied first.
            key = parameter + "".join(module.code_for_node(statement) for statement in body)
            op_function = self._planned.get(key) or fresh_name("_dlpack_round_trip", taken | _all_names(module))
            self._planned[key] = op_function
            placed = _placed(found.importer) + (", memory_format=torch.contiguous_format" if _through_another_library(found) else "")
            definitions = _op_definitions(namespace, op_function, parameter, body, fake.floating, placed)
            if not binds_at_module_level(module, "torch", before=anchor):
                definitions = [cst.parse_statement("import torch\n"), *definitions]
                definitions[1] = definitions[1].with_changes(leading_lines=(cst.EmptyLine(), cst.EmptyLine()))
            extra.append((anchor, [anchor, *definitions]))
        taken.add(op_function)
        call = cst.Call(func=cst.Name(op_function), args=[cst.Arg(found.exported.with_changes(lpar=(), rpar=()))])
        new_holder = found.holder.deep_replace(found.importer, call)
        if found.moved:
            # Comments above the moved statements stay where they were.
            new_holder = new_holder.with_changes(leading_lines=(*found.moved[0].leading_lines, *found.holder.leading_lines))
        extra += [(statement, []) for statement in found.moved]
        mutation = self._aliasing_mutation(function, found)
        through = (
            f" through `{context.code(found.foreign_calls[0])}`" if found.foreign_calls else ""
        )
        export = "`to_dlpack`" if self._makes_capsule(found.to_dlpack) else f"`{context.code(found.to_dlpack.func)}`"
        message = (
            f"DLPack round trip{through} in compiled `{function.name.value}`: Dynamo cannot trace "
            f"{export} (it breaks the graph, or the compile fails); move it into custom op `{op_function}` "
            f"with a fake kernel ({fake.said})"
        )
        unsafe = mutation is not None or fake.assumed
        if mutation is not None:
            message += (
                f" (unsafe: the op returns a copy, and `{mutation}` mutates in place what the round trip "
                "shared between input and result)"
            )
        elif fake.assumed:
            message += " (unsafe: a fake kernel that is wrong gives wrong results; verify it with --entry)"
        self.propose(
            found.holder,
            [new_holder],
            anchor=found.moved[0] if found.moved else found.holder,
            message=message,
            safety=Safety.UNSAFE if unsafe else Safety.SAFE,
            extra=extra,
        )
        return None

    def _fake_kernel(self, found: _RoundTrip) -> _FakeKernel | str:
        """How the op's fake kernel describes its output: the input's shape and dtype, derived from
        the code between export and import (conversions and copies keep both; elementwise math
        and arithmetic keep a floating-point array's), or, where a run saw the round trip break,
        assumed and left to the run to verify; else why graphweld cannot tell."""
        parts: list[cst.CSTNode] = [*found.moved, *(arg.value for arg in found.importer.args)]
        if not found.moved:
            parts = [found.importer]
        inside = {id(node) for node in iter_nodes(found.exported)}
        floating: list[str] = []
        unknown: cst.CSTNode | None = None
        calls = {id(node.func) for part in parts for node in iter_nodes(part, prune=is_scope) if isinstance(node, cst.Call)}
        for part in parts:
            for node in iter_nodes(part, prune=is_scope):
                if id(node) in inside:
                    continue
                if isinstance(node, cst.Call):
                    leaf = callee_leaf(node)
                    if leaf in FLOAT_ELEMENTWISE:
                        floating.append(f"`{self.context.code(node.func)}`")
                    elif leaf not in DLPACK_CONVERSIONS | SHAPE_AND_DTYPE_PRESERVING | CONVERSION_LEAVES and unknown is None:
                        unknown = node
                elif isinstance(node, cst.BinaryOperation) and isinstance(node.operator, ARRAY_ARITHMETIC):
                    floating.append(f"`{self.context.code(node.operator).strip()}`")
                elif unknown is None and isinstance(node, (cst.Comparison, cst.BooleanOperation, cst.Subscript, cst.BinaryOperation)):
                    unknown = node  # a comparison, an index, a matrix product: another shape or dtype
                elif unknown is None and isinstance(node, cst.Attribute) and not self._names_module_value(node, calls):
                    unknown = node  # `array.T`, `array.real`: another shape or dtype
        if unknown is None:
            if floating:
                named = list(dict.fromkeys(floating))
                verb = "keeps" if len(named) == 1 else "keep"
                return _FakeKernel(True, f"shape and dtype derived from the code: {' and '.join(named)} {verb} a floating-point input's")
            return _FakeKernel(False, "shape and dtype derived from the code: the input's")
        if any(self.context.breaks_per_run(statement) for statement in (*found.moved, found.holder)):
            return _FakeKernel(
                False,
                f"shape and dtype assumed to be the input's: graphweld cannot derive them from "
                f"`{self.context.code(unknown)}`, and only a run that compares the compiled outputs shows them right",
                assumed=True,
            )
        return (
            f"the data goes through `{self.context.code(unknown)}`, so graphweld cannot tell the shape "
            "and dtype of what comes back: move those lines into a torch.library.custom_op yourself and give it "
            "a register_fake kernel returning a tensor of that shape and dtype (with --entry, a run that saw "
            "it break lets graphweld try the input's shape and dtype)"
        )

    def _existing_op(self, module: cst.Module, body: list[cst.BaseStatement], parameter: str) -> str | None:
        """A custom op graphweld made earlier in this module that does the same thing, if any."""
        wanted = "".join(module.code_for_node(statement) for statement in body)
        for statement in module.body:
            if not (isinstance(statement, cst.FunctionDef) and OP_MARK in (statement.get_docstring() or "")):
                continue
            params = statement.params.params
            if len(params) != 1 or not isinstance(statement.body, cst.IndentedBlock):
                continue
            own = params[0].name.value
            existing = "".join(module.code_for_node(s) for s in statement.body.body[1:])
            if own == parameter and existing == wanted:
                return statement.name.value
        return None

    def _op_body(self, found: _RoundTrip, parameter: str) -> list[cst.BaseStatement]:
        """The op's statements: the round trip on the op's parameter, returning a copy."""
        argument = cst.Name(parameter)
        export = found.to_dlpack.deep_replace(found.exported, argument)
        if not found.moved:
            # One expression: `from_dlpack(f(export(x)))` on the parameter.
            statements = []
            imported = found.importer.deep_replace(found.exported, argument)
        elif found.foreign_calls or len(found.moved) > 1 or found.to_dlpack is not _assigned_value(found.moved[0]):
            first = found.moved[0].deep_replace(found.exported, argument).with_changes(leading_lines=())
            statements = [first, *found.moved[1:]]
            imported = found.importer
        else:
            # from_dlpack(to_dlpack(x)), in one expression or through a capsule variable.
            statements = []
            imported = found.importer.with_changes(args=[cst.Arg(export)]) if found.moved else found.importer.deep_replace(found.exported, argument)
        copy = cst.Call(func=cst.Attribute(value=imported, attr=cst.Name("clone")))
        if _through_another_library(found):
            # Another library chooses the result's layout (JAX's is contiguous whatever the input's):
            # the op returns a contiguous copy, and its fake kernel says so.
            copy = cst.parse_expression(f"{cst.Module([]).code_for_node(imported)}.clone(memory_format=torch.contiguous_format)")  # type: ignore[assignment]
        return [*statements, cst.SimpleStatementLine(body=[cst.Return(value=copy)])]

    def _aliasing_mutation(self, function: cst.FunctionDef, found: _RoundTrip) -> str | None:
        """An in-place mutation of the round trip's input or result after it, if any."""
        names = _names_in(found.exported) if isinstance(found.exported, cst.Name) else set()
        holder = found.holder
        if isinstance(holder, cst.SimpleStatementLine) and len(holder.body) == 1:
            small = holder.body[0]
            if isinstance(small, cst.Assign) and small.value is found.importer:
                for target in small.targets:
                    if isinstance(target.target, cst.Name):
                        names.add(target.target.value)
        if not names:
            return None
        after = False
        for node in iter_nodes(function.body, prune=is_scope):
            if node is holder:
                after = True
                continue
            if not after:
                continue
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
                method = node.func.attr.value
                if method.endswith("_") and not method.startswith("__") and stored_root_name(node.func.value) in names:
                    return self.context.code(node)
            if isinstance(node, cst.AugAssign) and stored_root_name(node.target) in names:
                return self.context.code(node)
            if (
                isinstance(node, cst.AssignTarget)
                and isinstance(node.target, cst.Subscript)
                and stored_root_name(node.target) in names
            ):
                return self.context.code(node.target) + " = ..."
        return None


def op_namespace(path: str) -> str:
    """A custom-op namespace from a module's path: `models/t5/modeling.py` -> `t5_modeling`."""
    parts = [part for part in re.split(r"[\\/]", path) if part not in ("", ".", "..")]
    if parts:
        parts[-1] = re.sub(r"\.pyi?$", "", parts[-1])
        if parts[-1] == "__init__":
            parts.pop()
    words = [re.sub(r"\W", "_", part).strip("_").lower() for part in parts[-2:]]
    namespace = "_".join(word for word in words if word)
    if not namespace or namespace in ("-", "stdin"):
        namespace = "graphweld"
    if namespace[0].isdigit() or keyword.iskeyword(namespace) or namespace in _RESERVED_NAMESPACES:
        namespace = f"user_{namespace}"
    return namespace


def _through_another_library(found: _RoundTrip) -> bool:
    """Whether the data leaves torch for another library's code, not only a capsule and back."""
    func = found.to_dlpack.func
    capsule = isinstance(func, cst.Attribute) and func.attr.value in ("to_dlpack", "toDlpack", "__dlpack__")
    capsule = capsule or (isinstance(func, cst.Name) and func.value in ("to_dlpack", "toDlpack"))
    return bool(found.foreign_calls) or not capsule


def _placed(importer: cst.Call) -> str:
    """The `device=`/`dtype=` keywords the import gives its tensor, as the fake kernel's."""
    code = cst.Module([]).code_for_node
    return "".join(
        f", {arg.keyword.value}={code(arg.value)}" for arg in importer.args
        if arg.keyword is not None and arg.keyword.value in ("device", "dtype")
    )


def _op_definitions(
    namespace: str, function_name: str, parameter: str, body: list[cst.BaseStatement], floating: bool = False,
    placed: str = "",
) -> list[cst.BaseStatement]:
    op_name = function_name.lstrip("_")
    # The kernel was derived for floating-point inputs: another dtype is an error, not a guess.
    check = (
        f"    torch._check(\n"
        f"        {parameter}.is_floating_point(),\n"
        f'        lambda: "{function_name}: the fake kernel keeps the shape and dtype of floating-point inputs only",\n'
        f"    )\n"
    ) if floating else ""
    definitions = list(
        cst.parse_module(
            f'@torch.library.custom_op("{namespace}::{op_name}", mutates_args=())\n'
            f"def {function_name}({parameter}: torch.Tensor) -> torch.Tensor:\n"
            f'    """A DLPack round trip as a custom op, opaque to torch.compile ({OP_MARK})."""\n'
            f"    pass\n"
            f"\n\n"
            f"@{function_name}.register_fake\n"
            f"def {function_name}_fake({parameter}):\n"
            f"{check}"
            f"    return torch.empty_like({parameter}{placed})\n"
        ).body
    )
    op = definitions[0]
    assert isinstance(op, cst.FunctionDef) and isinstance(op.body, cst.IndentedBlock)
    definitions[0] = op.with_changes(
        body=op.body.with_changes(body=(op.body.body[0], *body)),
        leading_lines=(cst.EmptyLine(), cst.EmptyLine()),
    )
    return definitions


# -- tree helpers ------------------------------------------------------------------------------


def _statements(body: Sequence[cst.BaseStatement]) -> Iterator[tuple[cst.BaseStatement, list[cst.BaseStatement]]]:
    """Every statement of a function body with the block it is in, compound bodies included
    (not nested functions or classes: they do not run where they are written)."""
    block = list(body)
    for statement in block:
        yield statement, block
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            continue
        for child in iter_nodes(statement, prune=lambda n: isinstance(n, (cst.IndentedBlock, *SCOPE_NODES))):
            if isinstance(child, cst.IndentedBlock) and child is not statement:
                yield from _statements(child.body)


def _own_calls(statement: cst.BaseStatement) -> list[cst.Call]:
    """Calls in a statement outside its indented blocks and nested scopes, in source order."""
    return [
        node
        for node in iter_nodes(statement, prune=lambda n: isinstance(n, (cst.IndentedBlock, *SCOPE_NODES)))
        if isinstance(node, cst.Call)
    ]


def _single_argument(call: cst.Call) -> cst.BaseExpression | None:
    if len(call.args) == 1 and call.args[0].keyword is None and not call.args[0].star:
        return call.args[0].value
    return None


def _capsule_export(statement: cst.BaseStatement, capsule: str) -> cst.Call | None:
    """The call in `capsule = <call>`, when the statement is exactly that."""
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        small = statement.body[0]
        if (
            isinstance(small, cst.Assign)
            and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)
            and small.targets[0].target.value == capsule
            and isinstance(small.value, cst.Call)
        ):
            return small.value
    return None


def _assigned_name(statement: cst.BaseStatement, export: cst.Call) -> str | None:
    """`name` when the statement is `name = <expression holding export>`."""
    value = _assigned_value(statement)
    if value is not None and any(node is export for node in iter_nodes(value, prune=is_scope)):
        small = statement.body[0]  # type: ignore[attr-defined]
        target = small.targets[0].target
        if isinstance(target, cst.Name):
            return target.value
    return None


def _assigned_value(statement: cst.BaseStatement) -> cst.BaseExpression | None:
    """The value of `name = value` (one target), or None."""
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        small = statement.body[0]
        if isinstance(small, cst.Assign) and len(small.targets) == 1:
            return small.value
    return None


def _index(block: Sequence[cst.BaseStatement], statement: cst.BaseStatement) -> int | None:
    return next((index for index, item in enumerate(block) if item is statement), None)


def _names_in(expression: cst.CSTNode) -> set[str]:
    return loaded_names([expression])


def _mentions(statements: Sequence[cst.CSTNode], names: set[str]) -> bool:
    return bool(loaded_names(statements) & names) or bool(bound_names(statements) & names)


def _read_after(function: cst.FunctionDef, holder: cst.BaseStatement, names: set[str], skip: cst.CSTNode) -> set[str]:
    """Which of `names` are read from `holder` on (outside `skip`), in source order, before a
    statement binds them again (a rebinding in another branch ends the value's life too)."""
    assert isinstance(function.body, cst.IndentedBlock)
    order = [statement for statement, _ in _statements(function.body.body)]
    start = _index(order, holder)
    if start is None:
        return set(names)
    alive = set(names)
    read: set[str] = set()
    for statement in order[start:]:
        read |= loaded_names(_own_parts(statement), skip=skip) & alive
        alive -= bound_names([statement]) if isinstance(statement, cst.SimpleStatementLine) else set()
        if not alive:
            break
    return read


def _own_parts(statement: cst.BaseStatement) -> list[cst.CSTNode]:
    """What a statement reads where it is written: a compound statement's header, a simple
    statement without the plain names it assigns to (`y = f(x)` reads `f` and `x`, not `y`)."""
    if isinstance(statement, cst.SimpleStatementLine):
        parts: list[cst.CSTNode] = []
        for small in statement.body:
            if isinstance(small, cst.Assign):
                parts.append(small.value)
                parts.extend(t.target for t in small.targets if not isinstance(t.target, (cst.Name, cst.Tuple, cst.List)))
            elif isinstance(small, cst.AnnAssign):
                parts.extend(node for node in (small.value,) if node is not None)
            else:
                parts.append(small)
        return parts
    return [child for child in children(statement) if not isinstance(child, (cst.IndentedBlock, cst.Else, cst.ExceptHandler, cst.Finally))]




def _all_names(module: cst.Module) -> set[str]:
    return {node.value for node in iter_nodes(module) if isinstance(node, cst.Name)}


_BUILTINS = frozenset(dir(__import__("builtins")))
