"""Which functions are compiled regions, from source alone.

A function is a compiled region when it is
- decorated with `torch.compile` (bare or called with options) or `torch._dynamo.optimize(...)`;
- passed to `torch.compile(...)` in the module: a function, `self.method`, a module instance
  (`torch.compile(MyModel())`, `model = MyModel(); torch.compile(model)`, `model.compile()`),
  whose `forward` is then the region;
- reached from a region by direct calls in the same module: `helper(x)`, a nested function,
  `self.method(x)`, `super().method(x)`, or a submodule `self.block(x)` assigned as
  `self.block = Block(...)`, whose `forward` is reached;
- the `forward` of the model (or the function) an entry's `my_model_function()` returns, in a
  module that follows the entry convention (it also defines `GetInput()`) and compiles nothing
  itself: graphweld compiles that model. A module that compiles something itself is measured as
  its code compiles it, so an eager driver it hands out is not a region;
- or any function at all with `assume_compiled`.
Functions Dynamo does not trace are never regions: decorated with `torch.compiler.disable`,
`torch._dynamo.disable`, `nonstrict_trace` or `allow_in_graph`, and custom operators.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

import libcst as cst

from graphweld.analysis.names import ImportTable, dotted_name
from graphweld.analysis.scopes import parameter_names
from graphweld.walk import children, walk

COMPILE_DECORATORS = frozenset({"torch.compile", "torch._dynamo.optimize"})
# Decorators after which Dynamo does not trace the function's body.
NOT_TRACED_DECORATORS = frozenset(
    {
        "torch.compiler.disable",
        "torch._dynamo.disable",
        "torch._dynamo.nonstrict_trace",
        "torch.compiler.nonstrict_trace",
        "torch._dynamo.allow_in_graph",
        "torch.compiler.allow_in_graph",
        # Custom operators are opaque to torch.compile.
        "torch.library.custom_op",
        "torch.library.triton_op",
    }
)
# Methods of nn.Module that return the module itself: `Model().to(device).eval()` is the model.
_MODULE_RETURNING_METHODS = frozenset({"to", "eval", "train", "cuda", "cpu", "half", "float", "double", "bfloat16", "requires_grad_"})


@dataclass(eq=False)
class FunctionInfo:
    node: cst.FunctionDef
    name: str
    cls: "ClassInfo | None"  # set when the function is a method (directly in a class body)
    parent: "FunctionInfo | None"  # the enclosing function, for nested functions
    outer: "FunctionInfo | None"  # the nearest enclosing function, even across a class body
    nested: dict[str, "FunctionInfo"] = field(default_factory=dict)
    callees: list[cst.BaseExpression] = field(default_factory=list)
    decorators: list[cst.BaseExpression] = field(default_factory=list)
    qualname: str = ""
    returns: list[cst.BaseExpression] = field(default_factory=list)


@dataclass(eq=False)
class ClassInfo:
    name: str
    bases: list[str]
    methods: dict[str, FunctionInfo] = field(default_factory=dict)
    # `self.attr = SomeClass(...)` anywhere in the class: attr -> class name
    attribute_classes: dict[str, str] = field(default_factory=dict)


class _Indexer:
    """One traversal that records imports, functions, classes, calls and compile targets."""

    def __init__(self, record_calls: bool = True) -> None:
        # Calls are only needed to find compile targets and follow the call graph; with
        # assume_compiled neither matters, and expressions need not be entered at all.
        self.record_calls = record_calls
        self.imports = ImportTable()
        self.functions: list[FunctionInfo] = []
        self.module_functions: dict[str, FunctionInfo] = {}
        self.classes: dict[str, ClassInfo] = {}
        # Calls named `compile` (torch.compile(...), model.compile()) and the function they are in;
        # which ones compile what is decided after the pass, when every import is known.
        self.compile_calls: list[tuple[cst.Call, FunctionInfo | None]] = []
        # `name = SomeClass(...)` anywhere: name -> class name (scope-insensitive)
        self.instances: dict[str, str] = {}
        # Module-level `NAME = <integer>` assignments (None once a name is assigned otherwise).
        self.module_integers: dict[str, int | None] = {}
        self.module_names: set[str] = set()
        self._function_stack: list[FunctionInfo] = []
        self._class_stack: list[ClassInfo] = []
        # Whether the innermost enclosing scope is a class body (for methods).
        self._scope_is_class: list[bool] = []
        self._enter = {
            cst.Import: self.visit_Import,
            cst.ImportFrom: self.visit_ImportFrom,
            cst.ClassDef: self.visit_ClassDef,
            cst.FunctionDef: self.visit_FunctionDef,
            cst.Call: self.visit_Call,
            cst.Return: self.visit_Return,
            cst.Assign: self.visit_Assign,
            cst.AugAssign: self.visit_AugAssign,
        }
        self._leave = {cst.ClassDef: self.leave_ClassDef, cst.FunctionDef: self.leave_FunctionDef}

    def index(self, module: cst.Module) -> None:
        walk(module, self._on_enter, self._on_leave, skip_expressions=not self.record_calls)

    def _on_enter(self, node: cst.CSTNode) -> bool:
        handler = self._enter.get(type(node))
        if handler is not None:
            handler(node)
        return True

    def _on_leave(self, node: cst.CSTNode) -> None:
        handler = self._leave.get(type(node))
        if handler is not None:
            handler(node)

    def visit_Import(self, node: cst.Import) -> None:
        self.imports.add_import(node)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self.imports.add_import_from(node)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        if self._at_module_level():
            self.module_names.add(node.name.value)
        bases = [dotted_name(arg.value) or "" for arg in node.bases]
        info = ClassInfo(name=node.name.value, bases=bases)
        if not self._function_stack:
            self.classes.setdefault(info.name, info)
        self._class_stack.append(info)
        self._scope_is_class.append(True)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._class_stack.pop()
        self._scope_is_class.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if self._at_module_level():
            self.module_names.add(node.name.value)
        in_class = bool(self._scope_is_class) and self._scope_is_class[-1]
        parent = self._function_stack[-1] if self._function_stack else None
        info = FunctionInfo(
            node=node,
            name=node.name.value,
            cls=self._class_stack[-1] if in_class else None,
            parent=None if in_class else parent,
            outer=parent,
        )
        scope = ".".join([*(c.name for c in self._class_stack), *(f.name for f in self._function_stack)])
        info.qualname = f"{scope}.{info.name}" if scope else info.name
        for decorator in node.decorators:
            expression = decorator.decorator
            info.decorators.append(expression.func if isinstance(expression, cst.Call) else expression)
        if info.cls is not None:
            info.cls.methods.setdefault(info.name, info)
        elif parent is not None:
            parent.nested.setdefault(info.name, info)
        elif not self._class_stack:
            self.module_functions.setdefault(info.name, info)
        self.functions.append(info)
        self._function_stack.append(info)
        self._scope_is_class.append(False)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._function_stack.pop()
        self._scope_is_class.pop()

    def visit_Call(self, node: cst.Call) -> None:
        current = self._function_stack[-1] if self._function_stack else None
        if current is not None:
            current.callees.append(node.func)
        func = node.func
        if (
            (isinstance(func, cst.Name) and func.value == "compile")
            or (isinstance(func, cst.Attribute) and func.attr.value == "compile")
            # `from torch import compile as compile_fn` (imports usually come first)
            or (isinstance(func, cst.Name) and self.imports.qualify(func) == "torch.compile")
        ):
            self.compile_calls.append((node, current))

    def visit_Return(self, node: cst.Return) -> None:
        if self._function_stack and node.value is not None:
            self._function_stack[-1].returns.append(node.value)

    def _at_module_level(self) -> bool:
        return not self._function_stack and not self._class_stack

    def _module_binding(self, target: cst.BaseExpression, value: int | None) -> None:
        for name in _bound_by_target(target):
            self.module_names.add(name)
            self.module_integers[name] = None if name in self.module_integers else value

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if self._at_module_level():
            self._module_binding(node.target, None)

    def visit_Assign(self, node: cst.Assign) -> None:
        if self._at_module_level():
            for target in node.targets:
                self._module_binding(target.target, _integer_value(node.value))
        if not isinstance(node.value, cst.Call):
            return
        class_name = created_class(node.value)
        if class_name is None:
            return
        for target in node.targets:
            name = dotted_name(target.target)
            if name is None:
                continue
            if name.startswith("self.") and name.count(".") == 1 and self._class_stack:
                self._class_stack[-1].attribute_classes[name[5:]] = class_name
            elif "." not in name:
                self.instances[name] = class_name


def created_class(call: cst.Call) -> str | None:
    """The class (or factory) a call creates a module with: `Model(...)`, and through methods
    that return the module itself, `Model(...).to(device).eval()`."""
    while (
        isinstance(call.func, cst.Attribute)
        and call.func.attr.value in _MODULE_RETURNING_METHODS
        and isinstance(call.func.value, cst.Call)
    ):
        call = call.func.value
    return dotted_name(call.func)


def _bound_by_target(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in _bound_by_target(element.value)]
    if isinstance(target, cst.StarredElement):
        return _bound_by_target(target.value)
    return []


def _integer_value(node: cst.BaseExpression) -> int | None:
    if isinstance(node, cst.Integer):
        return int(node.evaluated_value)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = _integer_value(node.expression)
        return -inner if inner is not None else None
    return None


class CompiledRegions:
    """The compiled-region verdict for every function of one module."""

    def __init__(
        self,
        module: cst.Module,
        assume_compiled: bool = False,
        root_lines: frozenset[int] = frozenset(),
        root_names: frozenset[str] = frozenset(),
        called_lines: frozenset[int] = frozenset(),
        called_names: frozenset[str] = frozenset(),
        compiled_elsewhere: frozenset[str] = frozenset(),
        passed_lines: frozenset[int] = frozenset(),
    ) -> None:
        """`root_lines`: lines where a run saw a graph break; the innermost function holding each
        is a region (dynamic detection). `root_names`: the same, as qualified names.
        `called_lines` / `called_names`: those of them whose function was called from the user's
        code (not entered by torch.compile itself): helpers, in the run's view.
        `compiled_elsewhere`: functions another module compiles (`Net.forward` for a class, see
        `graphweld.analysis.project`): regions where torch.compile starts its frame.
        `passed_lines`: lines on the stack of a break a run saw further in; the functions holding
        them are entered by the rules that fix a break from its callers, not made regions."""
        indexer = _Indexer(record_calls=not assume_compiled)
        indexer.index(module)
        self.imports = indexer.imports
        self._indexer = indexer
        self.module_names = indexer.module_names
        # Module-level names assigned an integer literal exactly once (usable in range(N)).
        self.module_constants = {
            name: value for name, value in indexer.module_integers.items() if value is not None
        }
        self._by_node: dict[int, FunctionInfo] = {id(info.node): info for info in indexer.functions}
        self._compiled: set[int] = set()
        # Functions torch.compile starts a frame at (compiled by the module's own code or as the
        # entry's product) that no other region of the module calls: Dynamo does not inline them.
        self._frame_roots: set[int] = set()
        decorators = {id(info.node): {self.imports.qualify(d) for d in info.decorators} for info in indexer.functions}
        disabled = {id(info.node) for info in indexer.functions if NOT_TRACED_DECORATORS & decorators[id(info.node)]}
        self.root_names = set(root_names)
        # Where torch.compile starts, as far as the module shows: qualified name -> (why, the
        # compile call named by it); lines are found only when `root_reasons()` is asked.
        self._root_reasons: dict[str, tuple[str, cst.Call | None]] = {}
        self._module = module
        # Every name's loads, walked once when a rule first asks `references(name)`.
        self._references: dict[str, list[tuple[bool, cst.FunctionDef | None, str | None]]] | None = None
        # The span of each function (by id), placed once however many kinds of lines are mapped.
        self._function_spans: dict | None = None
        if root_lines:
            self.root_names |= self.innermost_functions(module, root_lines)
        self.called_names = set(called_names)
        if called_lines:
            self.called_names |= self.innermost_functions(module, called_lines)
        extra_roots = [info for info in indexer.functions if info.qualname in self.root_names]
        if assume_compiled:
            self._compiled = {id(info.node) for info in indexer.functions} - disabled
        else:
            self._close_over_calls(decorators, disabled, extra_roots, compiled_elsewhere)
        # Functions worth entering when looking for sites: regions, the frames a run saw on the
        # way to a break, and what encloses them.
        passed = self.innermost_functions(module, passed_lines) if passed_lines else set()
        self._passed = {id(info.node) for info in indexer.functions if info.qualname in passed}
        self._enclosing: set[int] = set()
        for info in indexer.functions:
            if id(info.node) in self._compiled or id(info.node) in self._passed:
                outer = info.outer
                while outer is not None and id(outer.node) not in self._enclosing:
                    self._enclosing.add(id(outer.node))
                    outer = outer.outer

    def references(self, name: str) -> list[tuple[bool, cst.FunctionDef | None]]:
        """Every load of module-level `name` in the module outside its own definition: (is it the
        callee of a call, the innermost enclosing function)."""
        if self._references is None:
            self._references = self._all_references()
        return [(is_call, function) for is_call, function, outermost in self._references.get(name, []) if outermost != name]

    def _all_references(self) -> dict[str, list[tuple[bool, cst.FunctionDef | None, str | None]]]:
        # One walk for every name (eager-helper and nonstrict-helper ask of each helper; a walk per
        # name was most of the scan's time over torch/nn): each load with the outermost function
        # holding it, so that a name's own definition (and its recursion) is left out when asked.
        # A load of a name that a parameter of an enclosing function binds is that parameter, not
        # the module's name (torchphysics' `laplacian(..., grad=None)` beside its function `grad`).
        found: dict[str, list[tuple[bool, cst.FunctionDef | None, str | None]]] = {}
        nothing: frozenset[str] = frozenset()
        stack: list[tuple[Any, cst.FunctionDef | None, str | None, frozenset[str]]] = [(self._module, None, None, nothing)]
        while stack:
            current, function, outermost, parameters = stack.pop()
            # Exact types, not isinstance: libcst's nodes are ABCs, and this walks every node.
            kind = type(current)
            if kind is cst.FunctionDef:
                if function is None:
                    outermost = current.name.value
                for decorator in current.decorators:
                    stack.append((decorator, function, outermost, parameters))
                stack.append((current.body, current, outermost, parameters | parameter_names(current)))
            elif kind is cst.Call and type(current.func) is cst.Name:
                if current.func.value not in parameters:
                    found.setdefault(current.func.value, []).append((True, function, outermost))
                stack.extend((arg, function, outermost, parameters) for arg in current.args)
            elif kind is cst.Name:
                if current.value not in parameters:
                    found.setdefault(current.value, []).append((False, function, outermost))
            elif kind is cst.Attribute:
                stack.append((current.value, function, outermost, parameters))
            else:
                stack.extend((child, function, outermost, parameters) for child in children(current))
        return found

    def only_compiled_calls(self, name: str) -> bool:
        """Whether `name` is used only as the callee of calls in compiled functions."""
        references = self.references(name)
        return bool(references) and all(
            is_call and function is not None and self.is_compiled(function) for is_call, function in references
        )

    def has_compiled_caller(self, name: str) -> bool:
        """Whether a compiled function of the module calls `name`."""
        return any(is_call and f is not None and self.is_compiled(f) for is_call, f in self.references(name))

    def innermost_functions(self, module: cst.Module, lines: frozenset[int]) -> set[str]:
        """The qualified names of the innermost functions holding `lines` of `module`."""
        from graphweld.positions import node_spans

        if module is self._module and self._function_spans is not None:
            spans = self._function_spans
        else:
            spans = node_spans(module, [info.node for info in self._indexer.functions])
            if module is self._module:
                self._function_spans = spans
        found: set[str] = set()
        for line in lines:
            holders = [
                info
                for info in self._indexer.functions
                if spans[id(info.node)].start_line <= line <= spans[id(info.node)].end_line
            ]
            if holders:
                found.add(max(holders, key=lambda info: spans[id(info.node)].start_line).qualname)
        return found

    def _close_over_calls(
        self,
        decorators: dict[int, set[str | None]],
        disabled: set[int],
        extra_roots: list[FunctionInfo],
        compiled_elsewhere: frozenset[str],
    ) -> None:
        indexer = self._indexer
        decorated = [info for info in indexer.functions if COMPILE_DECORATORS & decorators[id(info.node)]]
        roots: list[FunctionInfo] = []

        def add_roots(found: Iterable[FunctionInfo], why: str, call: cst.Call | None = None) -> None:
            for info in found:
                roots.append(info)
                self._root_reasons.setdefault(info.qualname, (why, call))

        add_roots(decorated, "decorated with torch.compile")
        for name in sorted(compiled_elsewhere):
            if name.endswith(".forward"):
                add_roots(self._forward_of(name[: -len(".forward")]), "compiled by another file")
            elif name in indexer.module_functions:
                add_roots([indexer.module_functions[name]], "compiled by another file")
        compile_calls = [(call, scope) for call, scope in indexer.compile_calls if self._is_torch_compile_call(call)]
        for call, scope in compile_calls:
            if self.imports.qualify(call.func) == "torch.compile":
                if call.args and call.args[0].keyword is None:
                    add_roots(self._resolve_target(call.args[0].value, scope), "torch.compile at line {line}", call)
            elif isinstance(call.func, cst.Attribute):
                # nn.Module.compile(): `model.compile()` compiles model.forward in place.
                add_roots(self._resolve_target(call.func.value, scope), "`.compile()` at line {line}", call)
        functions = indexer.module_functions
        compiles_itself = bool(decorated) or bool(compile_calls)
        if "my_model_function" in functions and "GetInput" in functions and not compiles_itself:
            # The entry convention: graphweld compiles the model my_model_function() returns,
            # unless the module compiles something itself (then its own compiles are measured).
            add_roots(self._forward_of_product("my_model_function", None), "the entry's model (my_model_function)")
        # A function a run broke in that the user's code did not call (torch's module machinery
        # did, for a compiled model's forward) is where Dynamo started its frame.
        add_roots((info for info in extra_roots if info.qualname not in self.called_names), "a run saw a graph break in it")
        for info in extra_roots:
            self._root_reasons.setdefault(info.qualname, ("a run saw a graph break in it", None))
        reached: set[int] = set()
        pending = [info for info in roots + extra_roots if id(info.node) not in disabled]
        while pending:
            info = pending.pop()
            if id(info.node) in self._compiled or id(info.node) in disabled:
                continue
            self._compiled.add(id(info.node))
            for callee in info.callees:
                called = self._resolve_call(callee, info)
                reached.update(id(function.node) for function in called)
                pending.extend(called)
        self._frame_roots = {id(info.node) for info in roots if id(info.node) in self._compiled} - reached

    def _is_torch_compile_call(self, call: cst.Call) -> bool:
        """`torch.compile(...)`, or `model.compile()` (nn.Module.compile), not `re.compile(pattern)`."""
        if self.imports.qualify(call.func) in COMPILE_DECORATORS:
            return True
        if not isinstance(call.func, cst.Attribute) or any(arg.keyword is None for arg in call.args):
            return False
        owner = dotted_name(call.func.value)
        # `re.compile(...)`, `regex.compile(...)`: the owner is an imported module, not a model.
        return owner is None or owner.partition(".")[0] not in self.imports.aliases

    def root_reasons(self) -> dict[str, str]:
        """Each function the module's code (or the run, or another file) compiles, with why:
        "decorated with torch.compile", "torch.compile at line 12", ..."""
        from graphweld.positions import node_spans

        calls = [call for _, call in self._root_reasons.values() if call is not None]
        spans = node_spans(self._module, calls) if calls else {}
        return {
            name: why.format(line=spans[id(call)].start_line) if call is not None else why
            for name, (why, call) in sorted(self._root_reasons.items())
        }

    @property
    def any_compiled(self) -> bool:
        return bool(self._compiled)

    def is_compiled(self, node: cst.FunctionDef) -> bool:
        return id(node) in self._compiled

    def worth_entering(self, node: cst.FunctionDef) -> bool:
        """Whether a function is a region, a frame a run saw on the way to a break, or holds one
        (nested functions, local classes)."""
        return id(node) in self._compiled or id(node) in self._passed or id(node) in self._enclosing

    def function_info(self, node: cst.FunctionDef) -> FunctionInfo | None:
        return self._by_node.get(id(node))

    def all_functions(self) -> list[FunctionInfo]:
        """Every function of the module, methods and nested functions included."""
        return list(self._indexer.functions)

    def module_functions(self) -> list[FunctionInfo]:
        """The functions defined at module level."""
        return list(self._indexer.module_functions.values())

    def module_function(self, name: str) -> FunctionInfo | None:
        """The function `def name` at module level, if the module has one."""
        return self._indexer.module_functions.get(name)

    def is_frame_root(self, node: cst.FunctionDef) -> bool:
        """Whether torch.compile starts its frame at this function, as far as the module shows: it
        is compiled by the module's own code (or is the entry's product) and no region of the
        module calls it. Every other region is traced inline into a caller's frame."""
        return id(node) in self._frame_roots

    def is_compile_root(self, node: cst.FunctionDef) -> bool:
        """Whether the function is decorated with `torch.compile` (or `_dynamo.optimize`)."""
        info = self._by_node.get(id(node))
        return info is not None and bool(COMPILE_DECORATORS & {self.imports.qualify(d) for d in info.decorators})

    # -- resolution -------------------------------------------------------------------------

    def _lookup_function(self, name: str, scope: FunctionInfo | None) -> FunctionInfo | None:
        while scope is not None:
            if name in scope.nested:
                return scope.nested[name]
            scope = scope.parent
        return self._indexer.module_functions.get(name)

    def _method(self, cls: ClassInfo | None, name: str, seen: set[str] | None = None) -> FunctionInfo | None:
        """`name` looked up on `cls` and its base classes defined in this module."""
        seen = seen if seen is not None else set()
        if cls is None or cls.name in seen:
            return None
        seen.add(cls.name)
        if name in cls.methods:
            return cls.methods[name]
        for base in cls.bases:
            found = self._method(self._indexer.classes.get(base.rsplit(".", 1)[-1]), name, seen)
            if found is not None:
                return found
        return None

    def _class_of_method(self, scope: FunctionInfo | None) -> ClassInfo | None:
        while scope is not None and scope.cls is None:
            scope = scope.parent
        return scope.cls if scope is not None else None

    def _forward_of(self, class_name: str | None) -> list[FunctionInfo]:
        if class_name is None:
            return []
        cls = self._indexer.classes.get(class_name.rsplit(".", 1)[-1])
        forward = self._method(cls, "forward")
        return [forward] if forward is not None else []

    def _forward_of_product(self, name: str | None, scope: FunctionInfo | None) -> list[FunctionInfo]:
        """`forward` of the module a call to `name` creates: a class, or a factory such as the
        entry convention's `my_model_function()` that returns `Model(...)` or a name bound to one."""
        if name is None:
            return []
        forward = self._forward_of(name)
        if forward:
            return forward
        factory = self._lookup_function(name, scope) if "." not in name else None
        found: list[FunctionInfo] = []
        for value in factory.returns if factory is not None else ():
            if isinstance(value, cst.Call):
                found.extend(self._forward_of(created_class(value)))
            elif isinstance(value, cst.Name):
                function = self._lookup_function(value.value, factory)
                # `return fn`: the factory hands out a function to compile.
                found.extend([function] if function is not None else self._forward_of(self._indexer.instances.get(value.value)))
        return found

    def _resolve_target(self, expression: cst.BaseExpression, scope: FunctionInfo | None) -> list[FunctionInfo]:
        """The functions compiled by `torch.compile(expression)` or `expression.compile()`."""
        if isinstance(expression, cst.Call):
            return self._forward_of_product(created_class(expression), scope)
        if isinstance(expression, cst.Name):
            function = self._lookup_function(expression.value, scope)
            if function is not None:
                return [function]
            return self._forward_of_product(self._indexer.instances.get(expression.value), scope)
        if isinstance(expression, cst.Attribute):
            owner = dotted_name(expression.value)
            attr = expression.attr.value
            cls = self._class_of_method(scope)
            if owner == "self" and cls is not None:
                method = self._method(cls, attr)
                if method is not None:
                    return [method]
                return self._forward_of(cls.attribute_classes.get(attr))
            if attr == "forward" and owner is not None:
                return self._forward_of(self._indexer.instances.get(owner))
        return []

    def resolve_call(self, call: cst.Call, caller: cst.FunctionDef) -> list[FunctionInfo]:
        """The functions of this module that `call`, made in `caller`, runs (for `self.name(...)`,
        the method or the submodule's `forward`)."""
        scope = self._by_node.get(id(caller))
        return self._resolve_call(call.func, scope) if scope is not None else []

    def _resolve_call(self, func: cst.BaseExpression, scope: FunctionInfo) -> list[FunctionInfo]:
        """The functions of this module that a call to `func` inside `scope` runs."""
        if isinstance(func, cst.Name):
            function = self._lookup_function(func.value, scope)
            if function is not None:
                return [function]
            return self._forward_of(self._indexer.instances.get(func.value))
        if isinstance(func, cst.Attribute):
            cls = self._class_of_method(scope)
            owner = func.value
            if isinstance(owner, cst.Call) and dotted_name(owner.func) == "super" and cls is not None:
                for base in cls.bases:
                    found = self._method(self._indexer.classes.get(base.rsplit(".", 1)[-1]), func.attr.value)
                    if found is not None:
                        return [found]
                return []
            if dotted_name(owner) == "self" and cls is not None:
                method = self._method(cls, func.attr.value)
                if method is not None:
                    return [method]
                return self._forward_of(cls.attribute_classes.get(func.attr.value))
        return []
