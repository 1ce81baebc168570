"""memo-bypass: a memoizing wrapper whose cache key Dynamo cannot trace calls through while compiling."""

from __future__ import annotations

import libcst as cst

from graphweld.analysis.blocks import calls_is_compiling
from graphweld.analysis.names import dotted_name
from graphweld.analysis.regions import FunctionInfo
from graphweld.analysis.scopes import bound_names, own_statements, parameter_names
from graphweld.cst_fast import source
from graphweld.rule import Rule, Safety
from graphweld.walk import iter_nodes

# Calls that make a cache key Dynamo cannot trace: a function it skips (pickle's, hashlib's), the
# text or hash of a tensor, or a tensor's values read into Python.
_KEY_FUNCTIONS = frozenset({
    "pickle.dumps", "_pickle.dumps", "cPickle.dumps", "dill.dumps", "cloudpickle.dumps", "marshal.dumps",
    "hashlib.md5", "hashlib.sha1", "hashlib.sha256", "hashlib.sha512", "hashlib.blake2b", "hashlib.new",
    "repr", "hash", "str",
})
_KEY_METHODS = frozenset({"item", "tolist", "tobytes", "numpy", "hexdigest", "digest"})


class MemoBypass(Rule):
    """Call the memoized function directly while compiling, bypassing a cache keyed by what Dynamo cannot trace.

    ## What it fixes
    A memoizing wrapper (the function a caching decorator returns, or a memoizing class's
    `__call__`) reached from a compiled region, whose cache key is made by a call Dynamo cannot
    trace: `pickle.dumps` of the arguments (GPyTorch's and linear_operator's `@cached`), a
    `hashlib` digest, `str`/`repr`/`hash` of a tensor, or a tensor's values (`.item()`, `.tolist()`),
    directly or through a helper of the module that makes the key. The wrapper calls the function
    it wraps with its own arguments.

    ## Why the graph breaks
    Dynamo inlines the wrapper into the caller's graph and stops at the key: `pickle.dumps` and
    `hashlib` are functions it skips ("Attempted to call function marked as skipped", GB0007),
    `repr` of a tensor and reading its values break too, so every call of a memoized method splits
    its compiled caller. Inside a graph the cache buys nothing: the graph computes the value anyway.

    ## Example
    ```python
    def cached(method):
        @functools.wraps(method)
        def wrapper(self, *args, **kwargs):
            key = (method.__name__, args, pickle.dumps(kwargs))
            if key not in self._memo:
                self._memo[key] = method(self, *args, **kwargs)
            return self._memo[key]
        return wrapper
    ```
    becomes
    ```python
    def cached(method):
        @functools.wraps(method)
        def wrapper(self, *args, **kwargs):
            if torch.compiler.is_compiling():
                return method(self, *args, **kwargs)
            key = (method.__name__, args, pickle.dumps(kwargs))
            ...
    ```

    ## Safety
    Unsafe. While compiling, the wrapped function is computed on every call instead of read from
    the cache, and the cache is not filled. That is the same value for a function of its
    arguments, which is what a cache promises; it differs for a function that draws random
    numbers, reads state that changed since it was cached, or returns an object its callers
    mutate. Eager calls use the cache as before. The wrapper is rewritten only when its call of the
    wrapped function reads nothing but the wrapper's parameters (so it can be made first), and
    every such call in the wrapper is the same call.
    """

    id = "memo-bypass"
    reference = "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0007.html"
    summary = "Call a memoized function directly while compiling when its cache key cannot be traced"
    # The README's table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = (
        "a memoizing wrapper (a caching decorator's inner function, a memoizing class's `__call__`) whose "
        "cache key is made with `pickle.dumps`, `hashlib`, `str`/`repr`/`hash` or a tensor's values"
    )
    rewrite = "`if torch.compiler.is_compiling(): return wrapped(<the wrapper's arguments>)` first in the wrapper"
    default = "unsafe: the cache is bypassed while compiling"
    trigger_words = ("dumps", "hashlib", "repr", "hash", "str", "item", "tolist", "tobytes")
    needs_breaker_call = False
    # The break may be in the module's key helper, or in another file the wrapper calls.
    fixes_from_callers = True
    node_types = (cst.FunctionDef,)

    def __init__(self, context) -> None:  # type: ignore[no-untyped-def]
        super().__init__(context)
        self._by_name: dict[str, FunctionInfo] | None = None

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        context = self.context
        regions = context.regions
        info = regions.function_info(node)
        # Only a nested function or a `__call__` wraps (most functions end here, before any walk).
        if info is None or not (info.parent is not None or node.name.value == "__call__"):
            return
        if not isinstance(node.body, cst.IndentedBlock):
            return
        statements = own_statements(node)
        # A run's break in the wrapper, or in what it calls to make the key (a helper of the module).
        seen_by_run = any(context.breaks_per_run(s) or context.passes_per_run(s) for s in statements)
        if not (seen_by_run or regions.is_compiled(node)):
            return
        wrapped = _wrapped_callees(node, info)
        if not wrapped:
            return
        calls = [
            n for n in iter_nodes(node.body)
            if isinstance(n, cst.Call) and (dotted_name(n.func) or "") in wrapped
        ]
        if not calls or len({source(call, context.module) for call in calls}) != 1:
            return
        call = calls[0]
        read = {n.value for n in iter_nodes(call) if isinstance(n, cst.Name)}
        # The call moves to the top: it may read nothing the wrapper binds, a parameter it rebinds
        # (`x = x.float()` before the call) included.
        if read & bound_names(node.body.body):
            return
        key_statement, helpers = next(((s, h) for s in statements if (h := self._key_helpers(s)) is not None), (None, []))
        if key_statement is None and not seen_by_run:
            return
        # A memo: what the key statement binds looks a cache up or stores in it (here, or in a
        # module helper it is handed to), not a wrapper that only logs or converts its arguments.
        keys = bound_names([key_statement]) if key_statement is not None else set()
        if not any(self._indexes_cache(n, keys) for n in iter_nodes(node.body)) or not _stores_result(node, calls, keys):
            return
        torch_name = context.torch_name()
        if torch_name is None:
            return
        body = list(node.body.body)
        first = 1 if node.get_docstring() is not None and len(body) > 1 else 0
        if first >= len(body):
            return
        target = body[first]
        if isinstance(target, cst.If) and calls_is_compiling(target.test, context.regions.imports):  # this rule's own line (a second run)
            return
        code = source(call, context.module)
        guard = cst.parse_statement(f"if {torch_name}.compiler.is_compiling():\n    return {code}\n")
        anchor = key_statement or target
        message = (
            f"`{info.name}` memoizes `{code}` under a key Dynamo cannot trace (`{context.code(anchor)}`), which "
            f"splits every compiled caller; call it directly while compiling (unsafe: the cache is bypassed there)"
        )
        self.propose(target, [guard, target], anchor=anchor, message=message, safety=Safety.UNSAFE,
                     resolves=[
                         *(s for s in statements if context.breaks_per_run(s) or context.passes_per_run(s)),
                         # A break in the key's helper is this change's too: it is no longer reached.
                         *(s for helper in helpers for s in own_statements(helper.node) if context.breaks_per_run(s)),
                     ])

    def _module_functions(self) -> dict[str, FunctionInfo]:
        if self._by_name is None:
            self._by_name = {info.name: info for info in self.context.regions.module_functions()}
        return self._by_name

    def _key_helpers(self, statement: cst.CSTNode) -> list[FunctionInfo] | None:
        """None when the statement makes no key Dynamo cannot trace; else the module's functions
        through which it makes one (none when it calls what makes it itself)."""
        qualify = self.context.regions.imports.qualify
        helpers: list[FunctionInfo] = []
        direct = False
        for call in (n for n in iter_nodes(statement) if isinstance(n, cst.Call)):
            if _key_call(call, qualify):
                direct = True
            elif isinstance(call.func, cst.Name):
                helper = self._module_functions().get(call.func.value)
                if helper is not None and any(isinstance(n, cst.Call) and _key_call(n, qualify) for n in iter_nodes(helper.node.body)):
                    helpers.append(helper)
        return helpers if helpers or direct else None


    def _indexes_cache(self, node: cst.CSTNode, keys: set[str]) -> bool:
        """Whether `node` looks a cache up or stores in it by one of `keys`: `k in cache`,
        `cache[k]`, `cache.get(k)`/`setdefault`/`pop`, or a module helper handed `k` that does."""
        if not keys:
            return False
        if _uses_as_index(node, keys):
            return True
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
            helper = self._module_functions().get(node.func.value)
            if helper is None:
                return False
            positional = [p.name.value for p in (*helper.node.params.posonly_params, *helper.node.params.params)]
            handed: set[str] = set()
            for index, arg in enumerate(node.args):
                if not any(isinstance(n, cst.Name) and n.value in keys for n in iter_nodes(arg.value)):
                    continue
                if arg.keyword is not None:
                    handed.add(arg.keyword.value)
                elif not arg.star and index < len(positional):
                    handed.add(positional[index])
            return bool(handed) and any(_uses_as_index(n, handed) for n in iter_nodes(helper.node.body))
        return False


def _stores_result(node: cst.FunctionDef, calls: list[cst.Call], keys: set[str]) -> bool:
    """Whether what the wrapped call returns is stored under the key: `cache[key] = <call>` (or a
    name bound to it), `cache.setdefault(key, <call>)`, or a helper handed both (`_add_to_cache`)."""
    call_ids = {id(call) for call in calls}

    def holds(expression: cst.CSTNode, values: set[str]) -> bool:
        return any(id(n) in call_ids or (isinstance(n, cst.Name) and n.value in values) for n in iter_nodes(expression))

    def mentions_key(expression: cst.CSTNode) -> bool:
        return any(isinstance(n, cst.Name) and n.value in keys for n in iter_nodes(expression))

    assigns = [n for n in iter_nodes(node.body) if isinstance(n, cst.Assign)]
    values = {name for n in assigns if holds(n.value, set()) for name in bound_names([n])}
    for n in assigns:
        if holds(n.value, values) and any(
            isinstance(t.target, cst.Subscript) and any(mentions_key(e.slice) for e in t.target.slice) for t in n.targets
        ):
            return True
    for n in iter_nodes(node.body):
        if isinstance(n, cst.Call) and id(n) not in call_ids and len(n.args) >= 2:
            if any(holds(a.value, values) for a in n.args) and any(mentions_key(a.value) for a in n.args):
                return True
    return False


def _uses_as_index(node: cst.CSTNode, keys: set[str]) -> bool:
    def mentions(expression: cst.CSTNode) -> bool:
        return any(isinstance(n, cst.Name) and n.value in keys for n in iter_nodes(expression))

    if isinstance(node, cst.Comparison):
        return any(isinstance(c.operator, (cst.In, cst.NotIn)) for c in node.comparisons) and mentions(node.left)
    if isinstance(node, cst.Subscript):
        return any(mentions(element.slice) for element in node.slice)
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in ("get", "setdefault", "pop"):
        return bool(node.args) and mentions(node.args[0].value)
    return False


def _key_call(call: cst.Call, qualify) -> bool:  # type: ignore[no-untyped-def]
    if (qualify(call.func) or "") in _KEY_FUNCTIONS:
        return True
    return isinstance(call.func, cst.Attribute) and call.func.attr.value in _KEY_METHODS and not call.args


def _wrapped_callees(node: cst.FunctionDef, info: FunctionInfo) -> set[str]:
    """What the wrapper wraps: a parameter of an enclosing function (a decorator's `func`), or, in a
    class's `__call__`, an attribute of `self` its `__init__` stores a parameter in."""
    found: set[str] = set()
    outer = info.parent
    while outer is not None:
        found |= parameter_names(outer.node)
        outer = outer.parent
    if node.name.value == "__call__" and info.cls is not None and node.params.params:
        receiver = node.params.params[0].name.value
        init = info.cls.methods.get("__init__")
        if init is not None and init.node.params.params:
            init_receiver = init.node.params.params[0].name.value
            init_parameters = parameter_names(init.node)
            for n in iter_nodes(init.node.body):
                if (
                    isinstance(n, cst.Assign) and len(n.targets) == 1 and isinstance(n.value, cst.Name)
                    and n.value.value in init_parameters
                    and isinstance(n.targets[0].target, cst.Attribute)
                    and dotted_name(n.targets[0].target.value) == init_receiver
                ):
                    found.add(f"{receiver}.{n.targets[0].target.attr.value}")
    return found
