"""eager-module-setup: a method that builds modules, called from compiled code, runs eagerly."""

from __future__ import annotations

import libcst as cst

from graphweld.rule import Rule, Safety
from graphweld.walk import calls_below, iter_nodes, nodes_of_types

# `torch.nn` classes that create parameters when constructed (with their default arguments).
_PARAMETER_HOLDERS = frozenset((
    "Parameter", "Linear", "Bilinear", "LazyLinear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d",
    "ConvTranspose2d", "ConvTranspose3d", "Embedding", "EmbeddingBag", "LayerNorm", "GroupNorm", "RMSNorm",
    "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "MultiheadAttention", "LSTM", "GRU", "RNN", "LSTMCell",
    "GRUCell", "RNNCell", "PReLU", "Transformer", "TransformerEncoderLayer", "TransformerDecoderLayer",
))  # fmt: skip
# What disables Dynamo on a function: a method decorated with one of these is already eager.
_DISABLES = frozenset(("torch.compiler.disable", "torch._dynamo.disable"))
_CLASS = frozenset({cst.ClassDef})
_SIMPLE_LINES = frozenset({cst.SimpleStatementLine, cst.SimpleStatementSuite})


class EagerModuleSetup(Rule):
    """Run a method that builds modules eagerly, with `torch.compiler.disable`, when compiled code calls it.

    ## What it fixes
    A method of a module class, called as `self.method(...)` from a compiled method of the same
    class, that constructs modules or parameters: a class of the same file (`BigBirdSelfAttention(
    config)`), an `nn` module (`nn.Linear(...)`) or `nn.Parameter(...)`, itself or through methods of
    the same name it calls on its children (`layer.set_attention_type(value)`). BigBird's
    `set_attention_type`, which swaps a full-attention module in for inputs too short for block
    sparse attention, is the case the survey's models hit.

    ## Why the graph breaks
    Dynamo cannot trace a module's construction: creating a parameter breaks the graph
    ("Attempted to use `torch.nn.Parameter()` constructor with Dynamo", GB0264, whose hint is to
    construct it outside the compiled region), and so does a module whose `__init__` has not run
    ("Uninitialized nn.Module", GB0119). A method that builds several modules breaks once for
    each, and a break inside a loop over layers skips the frame. Under `torch.compiler.disable`,
    Dynamo does not trace the method: it runs as plain Python, with one break at its call.

    ## Example
    ```python
    class Layer(nn.Module):
        def set_attention_type(self, value):
            self.attention_type = value
            self.attention = nn.MultiheadAttention(self.hidden_size, self.num_heads)


    class Encoder(nn.Module):
        def set_attention_type(self, value):
            self.attention_type = value
            for layer in self.layers:
                layer.set_attention_type(value)

        def forward(self, hidden_states):
            if self.attention_type == "block_sparse" and hidden_states.shape[1] <= self.max_tokens:
                self.set_attention_type("original_full")
            ...
    ```
    becomes
    ```python
    class Encoder(nn.Module):
        @torch.compiler.disable
        def set_attention_type(self, value):
            ...
    ```

    ## Safety
    Safe: the method does what it did, run as eager Python (which is what Dynamo falls back to at
    each break inside it), and its caller's graph is unchanged around the call. It only takes
    methods that construct modules or parameters, which cannot be traced at all. A call that
    builds nothing on some inputs (the method returns early) is now a break where it was traced
    before; `fix --entry` measures the breaks of the program's own calls and keeps the change only
    where they go down. Left alone: a method already under `torch.compiler.disable`, a property,
    static or class method, one not defined in the calling class, and a module without `import
    torch`.
    """

    id = "eager-module-setup"
    reference = "https://docs.pytorch.org/docs/stable/generated/torch.compiler.disable.html"
    summary = "Run a method that builds modules eagerly, with `torch.compiler.disable`, when compiled code calls it"
    # The README's table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = (
        "a method called as `self.method(...)` from a compiled method of its class that constructs modules or"
        " parameters (a module class of the file with weights, `nn.Linear`, `nn.Parameter`...), itself or "
        "through same-named methods of its children: BigBird's `set_attention_type`"
    )
    rewrite = (
        "decorate it with `@torch.compiler.disable`: it runs eagerly, one break at its call instead of one "
        "per module built"
    )
    default = "safe"
    trigger_words = ("nn",)
    needs_breaker_call = False
    node_types = (cst.ClassDef,)

    def __init__(self, context) -> None:  # type: ignore[no-untyped-def]
        super().__init__(context)
        self._methods: dict[str, list[cst.FunctionDef]] | None = None
        self._classes: dict[str, cst.ClassDef] = {}
        self._builds: dict[str, list[cst.CSTNode]] = {}

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        context = self.context
        torch_name = context.torch_name()
        methods = {
            statement.name.value: statement
            for statement in node.body.body  # type: ignore[union-attr]
            if isinstance(statement, cst.FunctionDef)
        }
        proposed: set[str] = set()
        for caller in methods.values():
            # Construction code (`__init__`) is never where compilation runs.
            if caller.name.value == "__init__" or not context.regions.is_compiled(caller):
                continue
            for name in _self_calls(caller):
                method = methods.get(name)
                if method is None or method is caller or name in proposed or name.startswith("__"):
                    continue
                built = self._construction(name, method) if self._plain(method) else []
                if not built:
                    continue
                proposed.add(name)
                if torch_name is None:
                    self.report(method, f"`{name}` builds modules and is called from compiled `{caller.name.value}`; "
                                        "`torch` names something else here, so it is not run eagerly")  # fmt: skip
                    continue
                decorator = cst.Decorator(decorator=cst.parse_expression(f"{torch_name}.compiler.disable"))
                decorated = method.with_changes(decorators=(decorator, *method.decorators))
                message = (
                    f"`{name}`, called from compiled `{caller.name.value}`, builds modules or parameters, which "
                    "Dynamo cannot trace (a break for each): run it eagerly, decorated with "
                    f"`@{torch_name}.compiler.disable`"
                )
                self.propose(method, [decorated], anchor=method, message=message, safety=Safety.SAFE, resolves=built)

    def _plain(self, method: cst.FunctionDef) -> bool:
        """A plain method: not a property, static or class method, and not already disabled."""
        qualify = self.context.regions.imports.qualify
        for decorator in method.decorators:
            target = decorator.decorator
            name = qualify(target.func if isinstance(target, cst.Call) else target) or ""
            if name in _DISABLES or name.split(".")[-1] in ("property", "staticmethod", "classmethod", "setter"):
                return False
        return True

    def _construction(self, name: str, method: cst.FunctionDef) -> list[cst.CSTNode]:
        """What the method constructs (the classes of this module, the `nn` calls), itself or
        through the methods of the same name (in this module) it calls on other objects, with
        those methods: where a run sees the breaks the change removes. Empty when it builds
        nothing."""
        if self._methods is None:
            self._index()
        built = self._constructed(method)
        if built:
            return built
        if not _calls_same_name(method, name):
            return []
        cached = self._builds.get(name)
        if cached is None:
            cached = self._builds[name] = []
            for other in self._methods.get(name, []):  # type: ignore[union-attr]
                made = self._constructed(other)
                if made:
                    cached += [other, *made]
        return cached

    def _index(self) -> None:
        self._methods = {}
        # A class is a compound statement: no line of simple statements holds one.
        for node in nodes_of_types(self.context.module, _CLASS, _SIMPLE_LINES):
            self._classes[node.name.value] = node  # type: ignore[attr-defined]
            for statement in node.body.body:  # type: ignore[attr-defined]
                if isinstance(statement, cst.FunctionDef):
                    self._methods.setdefault(statement.name.value, []).append(statement)

    def _constructed(self, method: cst.FunctionDef) -> list[cst.CSTNode]:
        """What the method constructs that holds parameters: classes of this module (their
        definitions) and `nn` modules with weights or `nn.Parameter` (the calls)."""
        found: list[cst.CSTNode] = []
        for node in calls_below(method.body):
            made = self._parameter_holder(node, set())
            if made is not None:
                found.append(made)
        return found

    def _parameter_holder(self, call: cst.Call, seen: set[str]) -> cst.CSTNode | None:
        """The class definition (or the call, for `nn`) when the call constructs something with
        parameters: Dynamo traces constructing a module without any (a loss, an activation)."""
        if isinstance(call.func, cst.Name) and call.func.value in self._classes:
            name = call.func.value
            if name in seen:
                return None
            definition = self._classes[name]
            init = next(
                (s for s in definition.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"),  # type: ignore[union-attr]
                None,
            )
            if init is None:
                return None
            inner = [n for n in iter_nodes(init.body) if isinstance(n, cst.Call)]
            return definition if any(self._parameter_holder(n, seen | {name}) is not None for n in inner) else None
        qualified = self.context.regions.imports.qualify(call.func) or ""
        head, _, last = qualified.rpartition(".")
        return call if head == "torch.nn" and last in _PARAMETER_HOLDERS else None


def _self_calls(function: cst.FunctionDef) -> set[str]:
    """The methods the function calls on `self` (its first parameter)."""
    params = function.params.params
    if not params:
        return set()
    receiver = params[0].name.value
    return {
        node.func.attr.value
        for node in calls_below(function.body)
        if isinstance(node.func, cst.Attribute)
        and isinstance(node.func.value, cst.Name)
        and node.func.value.value == receiver
    }


def _calls_same_name(method: cst.FunctionDef, name: str) -> bool:
    """Whether the method calls a method of its own name on another object (`layer.name(...)`)."""
    return any(
        isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == name
        for node in iter_nodes(method.body)
    )
